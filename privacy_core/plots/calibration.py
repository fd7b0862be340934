"""Figures and display table of a calibration of the measures (the leaky risk model run on
every disclosure measure, at several training:holdout size ratios).

Functions from a :class:`~privacy_core.calibration.CalibrationResult`:

* :func:`calibration_figure` -- small multiples, one panel per measure (and mode): the
  measured value against the leak fraction f_l, one line per size ratio with the
  measure's own intervals as error bars, the ideal response y = f_l (dashed), the floor
  band 0 .. ``FLOOR_MAX`` (shaded) and, where the registry documents one, the measure's
  ceiling (dotted). Each panel's title carries the measure's label and its verdict in
  words and a symbol ("✓ pass", "✗ uncalibrated", "… incomplete"), never colour alone.
* :func:`calibration_table` -- one row per measure: verdict, floor, ceiling, slope,
  linearity, monotonicity, ratio gap, the reasons for a failure and the registry's note.
* :func:`calibration_status` -- the verdict of one summary (pass, uncalibrated or, for a
  run stopped before every level and ratio of the measure finished, incomplete).

Notes
-----
``risk-insertion-framework.md`` §5.1.1 (leaky risk model) and Table 2 (values at no and
at maximal inserted risk); DESIGN.md, "Calibration contract".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..calibration import FLOOR_MAX, CalibrationResult, CalibrationSummary, calibration_key
from ..measures import MEASURES, measure_label
from ..validation import check_positive_int

# Okabe & Ito's colour-blind-safe palette; each ratio also has its own marker symbol.
RATIO_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000")
RATIO_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "cross")
FLOOR_COLOUR = "rgba(0,158,115,0.16)"
IDEAL_COLOUR = "#777"
CEILING_COLOUR = "#555"

STATUS_TEXT = {
    "pass": "✓ pass",
    "uncalibrated": "✗ uncalibrated on this data",
    "inconclusive": "? inconclusive (more rows or attacks needed)",
    "incomplete": "… incomplete (stopped)",
}
_TITLE_MARK = {
    "pass": "✓ pass",
    "uncalibrated": "✗ uncalibrated",
    "inconclusive": "? inconclusive",
    "incomplete": "… incomplete",
}


def _label(metric: str, mode: str = "default") -> str:
    """The registry label of a measure with its calibration mode (none for ``default``)."""
    return measure_label(f"{metric}:{mode}")


def ratio_label(ratio: float) -> str:
    return f"ratio {ratio:g}:1"


def _complete(result: CalibrationResult, metric: str, mode: str) -> bool:
    rows = result.rows
    g = rows[(rows["metric"] == metric) & (rows["mode"] == mode)]
    have = {(float(lv), float(r)) for lv, r in zip(g["level"], g["ratio"], strict=True)}
    return all((float(lv), float(r)) in have for lv, r in product(result.levels, result.ratios))


def calibration_status(result: CalibrationResult, summary: CalibrationSummary) -> str:
    """``"pass"``, ``"uncalibrated"``, ``"inconclusive"`` (intervals too wide to decide)
    or ``"incomplete"`` (a stopped run that did not reach every level and ratio of this
    measure: its floor and ceiling are provisional)."""
    if result.stopped and not _complete(result, summary.metric, summary.mode):
        return "incomplete"
    if summary.passed:
        return "pass"
    return "inconclusive" if summary.verdict == "inconclusive" else "uncalibrated"


def _panels(result: CalibrationResult) -> list[tuple[str, str]]:
    """(metric, mode) pairs in the calibration's order: every measure the run was asked
    for (``params["measures"]``, so a stopped run keeps its grid), then any other with
    a summary or rows."""
    out: list[tuple[str, str]] = []
    for key in result.params.get("measures", []):
        metric, _, mode = str(key).partition(":")
        out.append((metric, mode or "default"))
    for pair in [(s.metric, s.mode) for s in result.summaries] + list(
        zip(result.rows["metric"], result.rows["mode"], strict=True)
    ):
        if pair not in out:
            out.append(pair)
    return out


def _panel_title(result: CalibrationResult, metric: str, mode: str) -> str:
    summary = result.summary(metric, mode)
    status = "incomplete" if summary is None else calibration_status(result, summary)
    return f"{_label(metric, mode)}<br>{_TITLE_MARK[status]}"


def _finite(values: pd.Series) -> np.ndarray:
    return values.to_numpy(dtype=float)


def calibration_figure(result: CalibrationResult, *, columns: int = 3) -> go.Figure:
    """Small multiples of every measure's response to the leak fraction f_l.

    One panel per (measure, mode); in each, one line per training:holdout size ratio
    (colour and marker consistent across panels, legend ``ratio r:1``) with the measure's
    interval as error bars, the dashed ideal y = f_l, the shaded floor band
    0 .. ``FLOOR_MAX`` and a dotted line at the registry's documented ceiling where there
    is one. The points of the ratios are dodged slightly along x so their error bars do
    not hide each other (the hover shows the true f_l). All panels share the y range, so
    responses can be compared with each other and with y = x.
    """
    columns = check_positive_int("columns", columns)
    panels = _panels(result)
    if not panels:
        return _no_values_figure()
    n_cols = min(columns, len(panels))
    n_rows = math.ceil(len(panels) / n_cols)
    fig = make_subplots(
        rows=n_rows,
        cols=n_cols,
        subplot_titles=[_panel_title(result, m, md) for m, md in panels],
        horizontal_spacing=0.06,
        # about 85 px between rows for the two-line panel titles
        vertical_spacing=(min(85 / (290 * n_rows - 30), 0.3) if n_rows > 1 else 0.0),
    )
    axes = _Axes.of(result)
    for i, (metric, mode) in enumerate(panels):
        cell = {"row": i // n_cols + 1, "col": i % n_cols + 1}
        first = i == 0
        _add_floor_band(fig, axes, calibration_key(metric, mode), first, cell)
        _add_ideal(fig, axes, calibration_key(metric, mode), first, cell)
        _add_documented_ceiling(fig, axes, metric, mode, cell)
        part = result.rows[(result.rows["metric"] == metric) & (result.rows["mode"] == mode)]
        for j, ratio in enumerate(axes.ratios):
            fig.add_trace(_ratio_trace(part, axes, metric, mode, j, ratio, first), **cell)
    _lay_out(fig, axes, n_rows, n_cols)
    return fig


def _no_values_figure() -> go.Figure:
    fig = go.Figure()
    fig.update_layout(
        height=200,
        annotations=[
            {
                "text": "No calibration values yet",
                "showarrow": False,
                "x": 0.5,
                "y": 0.5,
                "xref": "paper",
                "yref": "paper",
            }
        ],
    )
    return fig


@dataclass(frozen=True)
class _Axes:
    """What every panel shares: the ratios and levels drawn, the x and y ranges (one y
    range for all panels) and the dodge between the ratios' points."""

    ratios: list[float]
    levels: list[float]
    x_range: list[float]
    y_range: list[float]
    dodge: float

    @classmethod
    def of(cls, result: CalibrationResult) -> _Axes:
        rows = result.rows
        ratios = list(result.ratios) or sorted(rows["ratio"].unique())
        levels = list(result.levels) or sorted(rows["level"].unique())
        width = (max(levels) - min(levels)) if len(levels) > 1 else 1.0
        lo_all = (
            np.nanmin(np.r_[_finite(rows["ci_low"]), _finite(rows["value"]), 0.0])
            if len(rows)
            else 0.0
        )
        hi_all = (
            np.nanmax(np.r_[_finite(rows["ci_high"]), _finite(rows["value"]), 1.0])
            if len(rows)
            else 1.0
        )
        return cls(
            ratios=ratios,
            levels=levels,
            x_range=[min(levels) - 0.06 * width, max(levels) + 0.06 * width],
            y_range=[min(-0.05, float(lo_all) - 0.03), max(1.08, float(hi_all) + 0.03)],
            dodge=0.012 * width,
        )


def _add_floor_band(
    fig: go.Figure, axes: _Axes, panel: str, first: bool, cell: dict[str, int]
) -> None:
    x0, x1 = axes.x_range
    fig.add_trace(
        go.Scatter(
            x=[x0, x1, x1, x0],
            y=[0, 0, FLOOR_MAX, FLOOR_MAX],
            mode="lines",
            fill="toself",
            fillcolor=FLOOR_COLOUR,
            line={"width": 0},
            name=f"floor band (0 – {FLOOR_MAX:g})",
            legendgroup="floor",
            showlegend=first,
            hoverinfo="skip",
            meta={"role": "floor", "panel": panel},
        ),
        **cell,
    )


def _add_ideal(fig: go.Figure, axes: _Axes, panel: str, first: bool, cell: dict[str, int]) -> None:
    fig.add_trace(
        go.Scatter(
            x=[min(axes.levels), max(axes.levels)],
            y=[min(axes.levels), max(axes.levels)],
            mode="lines",
            name="ideal response y = f_l",
            legendgroup="ideal",
            showlegend=first,
            line={"color": IDEAL_COLOUR, "dash": "dash", "width": 1.2},
            hoverinfo="skip",
            meta={"role": "ideal", "panel": panel},
        ),
        **cell,
    )


def _add_documented_ceiling(
    fig: go.Figure, axes: _Axes, metric: str, mode: str, cell: dict[str, int]
) -> None:
    """The registry's documented ceiling as a dotted line (one legend entry in all)."""
    spec = MEASURES.get(metric)
    if spec is None or spec.documented_ceiling is None:
        return
    fig.add_trace(
        go.Scatter(
            x=axes.x_range,
            y=[spec.documented_ceiling] * 2,
            mode="lines",
            name="documented ceiling",
            legendgroup="ceiling",
            showlegend=not any(t.legendgroup == "ceiling" for t in fig.data),
            line={"color": CEILING_COLOUR, "dash": "dot", "width": 1.5},
            hovertemplate=f"documented ceiling {spec.documented_ceiling:g}<extra></extra>",
            meta={"role": "ceiling", "panel": calibration_key(metric, mode)},
        ),
        **cell,
    )


def _ratio_trace(
    part: pd.DataFrame,
    axes: _Axes,
    metric: str,
    mode: str,
    j: int,
    ratio: float,
    first: bool,
) -> go.Scatter:
    """The line of one size ratio (the ``j``-th) in one panel, with its intervals as
    asymmetric error bars, dodged along x."""
    g = part[np.isclose(part["ratio"].to_numpy(dtype=float), ratio)].sort_values("level")
    colour = RATIO_COLOURS[j % len(RATIO_COLOURS)]
    value = _finite(g["value"])
    lo, hi = _finite(g["ci_low"]), _finite(g["ci_high"])
    has_ci = np.isfinite(lo) & np.isfinite(hi)
    plus = np.where(has_ci, np.maximum(hi - value, 0.0), 0.0)
    minus = np.where(has_ci, np.maximum(value - lo, 0.0), 0.0)
    offset = (j - (len(axes.ratios) - 1) / 2) * axes.dodge
    level = _finite(g["level"])
    return go.Scatter(
        x=level + offset,
        y=value,
        mode="lines+markers",
        name=ratio_label(ratio),
        legendgroup=ratio_label(ratio),
        showlegend=first,
        line={"color": colour, "width": 2},
        marker={
            "color": colour,
            "size": 7,
            "symbol": RATIO_SYMBOLS[j % len(RATIO_SYMBOLS)],
        },
        error_y={
            "type": "data",
            "symmetric": False,
            "array": plus,
            "arrayminus": minus,
            "color": colour,
            "thickness": 1.2,
            "width": 3,
        },
        customdata=np.c_[level, np.where(has_ci, lo, np.nan), np.where(has_ci, hi, np.nan)],
        hovertemplate=(
            f"{_label(metric, mode)} · {ratio_label(ratio)}<br>"
            "f_l %{customdata[0]:g}: %{y:.3f}<br>interval "
            "%{customdata[1]:.3f} – %{customdata[2]:.3f}<extra></extra>"
        ),
        meta={
            "role": "ratio",
            "ratio": float(ratio),
            "panel": calibration_key(metric, mode),
        },
    )


def _lay_out(fig: go.Figure, axes: _Axes, n_rows: int, n_cols: int) -> None:
    """Shared ranges, axis titles on the outer panels, the legend above the grid."""
    fig.update_xaxes(
        range=axes.x_range,
        tickvals=axes.levels,
        ticktext=[f"{v:g}" for v in axes.levels],
        zeroline=False,
    )
    fig.update_yaxes(range=axes.y_range, zeroline=False)
    for c in range(1, n_cols + 1):
        fig.update_xaxes(title_text="leak fraction f_l", title_standoff=4, row=n_rows, col=c)
    for r in range(1, n_rows + 1):
        fig.update_yaxes(title_text="measured value", title_standoff=4, row=r, col=1)
    fig.update_annotations(font_size=13)
    fig.update_layout(
        height=290 * n_rows + 110,
        margin={"t": 100, "b": 40, "l": 60, "r": 20},
        legend={
            "orientation": "h",
            "x": 0,
            "xanchor": "left",
            "yref": "container",
            "y": 1.0,
            "yanchor": "top",
        },
        hovermode="closest",
    )


def calibration_table(result: CalibrationResult) -> pd.DataFrame:
    """One display row per measure (and mode): verdict, floor, ceiling and the contract's
    figures, the reasons for a failure and the registry's calibration note.

    Columns: measure, key, status, floor (on unseen real rows, smallest ratio), ceiling (on a
    full copy, smallest ratio), slope, linearity (R²), monotone, ratio gap, gap beyond
    intervals, documented ceiling, reasons, note. A stopped run lists every measure it was
    asked for; one it did not finish shows only its floor (if its lowest level ran), one
    it never reached no value. Aggregates only.
    """
    out: list[dict[str, Any]] = []
    for metric, mode in _panels(result):
        s = result.summary(metric, mode)
        if s is None:  # asked for, but the run stopped before its first value
            spec = MEASURES.get(metric)
            out.append(
                {
                    "measure": _label(metric, mode),
                    "key": calibration_key(metric, mode),
                    "status": STATUS_TEXT["incomplete"],
                    "reasons": "not run before the stop",
                    "note": spec.calibration_note if spec is not None else "",
                }
            )
            continue
        status = calibration_status(result, s)
        if status == "incomplete":  # only the floor can be read, and only if it was reached
            rows = result.rows
            reached = (
                (rows["metric"] == metric)
                & (rows["mode"] == mode)
                & np.isclose(rows["level"].to_numpy(dtype=float), min(result.levels))
            ).any()
            out.append(
                {
                    "measure": _label(metric, mode),
                    "key": s.key,
                    "status": STATUS_TEXT[status],
                    "floor": s.floor if reached else math.nan,
                    "reasons": "stopped before every level and ratio ran",
                    "note": s.note,
                }
            )
            continue
        reasons = "; ".join(s.reasons) if status == "uncalibrated" else ""
        out.append(
            {
                "measure": _label(s.metric, s.mode),
                "key": s.key,
                "status": STATUS_TEXT[status],
                "floor": s.floor,
                "ceiling": s.ceiling,
                "slope": s.slope,
                "linearity": s.linearity,
                "monotone": s.monotone,
                "ratio gap": s.ratio_gap,
                # the share of the gap beyond the two readings' intervals (the contract allows
                # a larger gap inside the noise of small data)
                "gap beyond intervals": getattr(s, "ratio_gap_beyond_noise", math.nan),
                "documented ceiling": s.documented_ceiling,
                "reasons": reasons,
                "note": s.note,
            }
        )
    return pd.DataFrame(
        out,
        columns=[
            "measure",
            "key",
            "status",
            "floor",
            "ceiling",
            "slope",
            "linearity",
            "monotone",
            "ratio gap",
            "gap beyond intervals",
            "documented ceiling",
            "reasons",
            "note",
        ],
    )


__all__ = ["STATUS_TEXT", "calibration_figure", "calibration_status", "calibration_table"]
