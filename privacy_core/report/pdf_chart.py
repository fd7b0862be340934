"""The PDF's dot-and-interval chart of one measure, drawn with fpdf2's primitives: a line
per candidate (dot = value, bar = 95% interval, or ± sd over replicates), reference ticks
for HALF (green) and SELF (red), and the calibration's floor and ceiling (grey, dashed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .pdf_text import Latin1, clip

# (candidate, value, interval, baseline): one line of the chart
_Point = tuple[str, float | None, Any, Any]
# (label, value, RGB colour): one vertical reference line
_Mark = tuple[str, float, tuple[int, int, int]]

LINE_H = 5.0  # mm per candidate line


def chart_height(n_cands: int) -> float:
    """The height (mm) :func:`interval_chart` takes for ``n_cands`` candidates."""
    return 5 + LINE_H * n_cands + 2 + 4.5


def interval_chart(
    pdf: Any,
    text: Latin1,
    row: Mapping[str, Any],
    cands: Sequence[Mapping[str, Any]],
    refs: Mapping[str, Any],
    cal: Mapping[str, Any] | None,
    *,
    x0: float,
    width: float,
) -> None:
    """One measure as a dot-and-interval chart drawn with fpdf2's primitives: a line per
    candidate (dot = value, bar = 95% interval, or ± sd over replicates), reference ticks
    for HALF (green) and SELF (red), and the calibration's floor and ceiling (grey)."""
    points = _points(row, cands)
    marks = _marks(refs, cal)
    span = _span(points, marks)
    if span is None:
        return
    frame = _Frame.fit(x0, width, *span)
    top = pdf.get_y()
    pdf.set_font("Helvetica", "B", 8)
    pdf.set_xy(x0, top)
    pdf.cell(
        width,
        4,
        text(row["label"] + (" (indicator)" if row["indicator"] else "") + f"  -  {row['goal']}"),
    )
    y = top + 5
    pdf.set_draw_color(200, 200, 200)
    pdf.set_line_width(0.2)
    pdf.rect(frame.plot_x, y, frame.plot_w, LINE_H * len(points) + 2)
    pdf.set_font("Helvetica", "", 7)
    for point in points:
        _draw_line(pdf, text, frame, point, y)
        y += LINE_H
    bottom = y + 2
    _draw_marks(pdf, frame, marks, top + 5, bottom)
    bottom = _draw_axis(pdf, text, frame, marks, bottom)
    pdf.set_text_color(0, 0, 0)
    pdf.set_draw_color(0, 0, 0)
    pdf.set_fill_color(238, 244, 251)  # tables fill their headings with the current colour
    pdf.set_line_width(0.2)
    pdf.set_y(bottom + 4.5)


@dataclass(frozen=True)
class _Frame:
    """Where the chart's parts go (mm) and the value range its plot shows."""

    x0: float
    width: float
    wide: bool
    label_w: float
    value_w: float  # the reading in figures, right of the plot
    plot_x: float
    plot_w: float
    lo: float
    hi: float

    @classmethod
    def fit(cls, x0: float, width: float, lo: float, hi: float) -> _Frame:
        wide = width > 150
        label_w = 48.0 if wide else 28.0
        value_w = 44.0 if wide else 22.0
        return cls(
            x0=x0,
            width=width,
            wide=wide,
            label_w=label_w,
            value_w=value_w,
            plot_x=x0 + label_w,
            plot_w=width - label_w - value_w - 2,
            lo=lo,
            hi=hi,
        )

    def sx(self, v: float) -> float:
        """The x position of a value, clipped to the plot."""
        return (
            self.plot_x
            + (min(max(v, self.lo), self.hi) - self.lo) / (self.hi - self.lo) * self.plot_w
        )


def _points(row: Mapping[str, Any], cands: Sequence[Mapping[str, Any]]) -> list[_Point]:
    """Each candidate's value, interval (or ± sd over replicates) and baseline."""
    points: list[_Point] = []
    for c in cands:
        cell = row["cells"][c["name"]]
        if cell is None or cell.get("value") is None:
            points.append((c["name"], None, None, None))
            continue
        v: float | None = float(cell["value"])
        lo_hi = cell.get("ci") or ((v - cell["sd"], v + cell["sd"]) if cell.get("sd") else None)
        points.append((c["name"], v, lo_hi, cell.get("baseline")))
    return points


def _marks(refs: Mapping[str, Any], cal: Mapping[str, Any] | None) -> list[_Mark]:
    """The reference lines: HALF and SELF where computed, the calibration's ends."""
    marks: list[_Mark] = []
    for kind, colour in (("half", (44, 160, 44)), ("self", (214, 39, 40))):
        if kind in refs:
            marks.append((kind.upper(), float(refs[kind]["value"]), colour))
    if cal and cal.get("floor") is not None and cal.get("ceiling") is not None:
        marks += [
            ("floor", float(cal["floor"]), (140, 140, 140)),
            ("ceiling", float(cal["ceiling"]), (140, 140, 140)),
        ]
    return marks


def _span(points: list[_Point], marks: list[_Mark]) -> tuple[float, float] | None:
    """The padded range of every finite value drawn; None when there is none."""
    xs = [v for _, v, _, _ in points if v is not None]
    xs += [b for _, _, ci, _ in points if ci for b in ci] + [m[1] for m in marks]
    xs += [float(b) for _, _, _, b in points if b is not None]
    xs = [x for x in xs if np.isfinite(x)]
    if not xs:
        return None
    lo, hi = min(xs), max(xs)
    if hi - lo < 1e-9:
        lo, hi = lo - 0.05, hi + 0.05
    pad = (hi - lo) * 0.06
    return lo - pad, hi + pad


def _draw_line(pdf: Any, text: Latin1, frame: _Frame, point: _Point, y: float) -> None:
    """One candidate's line: its name, and its dot, interval, baseline tick and reading
    (or "not computed")."""
    name, v, ci, base = point
    pdf.set_xy(frame.x0, y + 1)
    pdf.cell(frame.label_w - 1, LINE_H - 1, clip(text.line(name), 34 if frame.wide else 18))
    cy = y + 1 + LINE_H / 2
    if v is None:
        pdf.set_text_color(120, 120, 120)
        pdf.set_xy(frame.plot_x + 2, y + 1)
        pdf.cell(40, LINE_H - 1, "not computed")
        pdf.set_text_color(0, 0, 0)
        return
    pdf.set_xy(frame.plot_x + frame.plot_w + 2, y + 1)
    pdf.cell(
        frame.value_w,
        LINE_H - 1,
        f"{v:.3f}" + (f"  [{ci[0]:.3f}, {ci[1]:.3f}]" if ci and frame.wide else ""),
    )
    sx = frame.sx
    if base is not None and np.isfinite(base):
        # the measure's own control (e.g. attack success on unseen records)
        pdf.set_draw_color(255, 127, 14)
        pdf.set_line_width(0.5)
        pdf.line(sx(float(base)), cy - 1.8, sx(float(base)), cy + 1.8)
    pdf.set_draw_color(31, 95, 168)
    pdf.set_line_width(0.6)
    if ci:
        pdf.line(sx(ci[0]), cy, sx(ci[1]), cy)
        pdf.line(sx(ci[0]), cy - 1, sx(ci[0]), cy + 1)
        pdf.line(sx(ci[1]), cy - 1, sx(ci[1]), cy + 1)
    pdf.set_fill_color(31, 95, 168)
    pdf.ellipse(sx(v) - 1.1, cy - 1.1, 2.2, 2.2, style="F")


def _draw_marks(pdf: Any, frame: _Frame, marks: list[_Mark], top: float, bottom: float) -> None:
    """The reference lines across the plot; the calibration's ends dashed."""
    for label, value, colour in marks:
        pdf.set_draw_color(*colour)
        pdf.set_line_width(0.5)
        x = frame.sx(value)
        if label in ("floor", "ceiling"):
            pdf.set_dash_pattern(dash=1, gap=0.8)
        pdf.line(x, top, x, bottom)
        pdf.set_dash_pattern()


def _draw_axis(pdf: Any, text: Latin1, frame: _Frame, marks: list[_Mark], bottom: float) -> float:
    """The axis: the ends and the reference values; returns the chart's new bottom (a
    narrow chart puts the reference values on a line of their own)."""
    pdf.set_font("Helvetica", "", 6)
    pdf.set_text_color(80, 80, 80)
    pdf.set_xy(frame.plot_x - 6, bottom + 0.3)
    pdf.cell(12, 3, f"{frame.lo:.3g}", align="C")
    pdf.set_xy(frame.plot_x + frame.plot_w - 6, bottom + 0.3)
    pdf.cell(12, 3, f"{frame.hi:.3g}", align="C")
    legend = "  ".join(f"{label} {value:.3f}" for label, value, _ in marks)
    if legend and frame.wide:
        pdf.set_xy(frame.plot_x + 14, bottom + 0.3)
        pdf.cell(frame.plot_w - 28, 3, text(legend), align="C")
    elif legend:
        pdf.set_xy(frame.x0, bottom + 3.3)
        pdf.cell(frame.width, 3, text(legend), align="C")
        bottom += 3
    return bottom


__all__ = ["chart_height", "interval_chart"]
