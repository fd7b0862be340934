"""The risk–utility map: candidate releases as points, with interval whiskers on both axes.

Why one module: the map's table and its figure are one contract (the table's columns are
the figure's traces and whiskers); the page and the report draw both.

:func:`map_table` lines up, per candidate, one privacy result (x) and one fidelity or
utility result (y); :func:`risk_utility_map` draws that table. Candidates are keyed by an
id that the figure carries as ``customdata``, so a click on a point (Streamlit's
``on_select``) can be mapped back to the release; :func:`selected_candidate` reads it.
The reference releases HALF, HISTOGRAM and SELF get distinct reference markers.

Axes follow each measure's goal (:class:`~privacy_core.measures.MeasureGoal`): lower,
higher, or a target such as the discriminator's 0.5, so the "better" hint points the
right way. Point labels are placed by :func:`place_labels` so that no two labels and no
label and marker overlap at any chart width from :data:`LABEL_LAYOUT_WIDTH` up; a label
that finds no free place is replaced by a number, explained above the plot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..measures import MeasureGoal
from ..results import MetricResult

KIND_STYLE: dict[str, tuple[str, str, str]] = {
    "workspace": ("Loaded releases", "#1f77b4", "circle"),
    "generated": ("Generated candidates", "#ff7f0e", "circle"),
    "half": ("HALF (a random half of the real rows)", "#2ca02c", "diamond"),
    "histogram": ("HISTOGRAM (independent columns)", "#7f7f7f", "x"),
    "self": ("SELF (the real table itself)", "#d62728", "star"),
}
REFERENCE_KINDS = ("half", "histogram", "self")
MAP_COLUMNS = [
    "id",
    "label",
    "kind",
    "risk",
    "risk_lo",
    "risk_hi",
    "utility",
    "utility_lo",
    "utility_hi",
]


def _value_ci(result: MetricResult | None) -> tuple[float, float, float]:
    if result is None or not isinstance(result, MetricResult):
        return (np.nan, np.nan, np.nan)
    value = float(result.value) if result.value is not None else np.nan
    if result.ci is None:
        return (value, np.nan, np.nan)
    lo, hi = result.ci
    return (value, np.nan if lo is None else float(lo), np.nan if hi is None else float(hi))


def map_table(
    risk: Mapping[str, MetricResult | None],
    utility: Mapping[str, MetricResult | None],
    *,
    kinds: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """One row per candidate: its risk and utility values with their intervals.

    Parameters
    ----------
    risk, utility
        ``{candidate id: result}`` for the x and the y axis; a missing id or ``None``
        (not computed, or failed) gives NaN.
    kinds
        ``{candidate id: kind}``, a key of :data:`KIND_STYLE` (default ``generated``).
    labels
        ``{candidate id: display name}`` (default: the id).

    Returns
    -------
    pandas.DataFrame
        Columns ``id``, ``label``, ``kind``, ``risk``, ``risk_lo``, ``risk_hi``,
        ``utility``, ``utility_lo``, ``utility_hi``; candidates in first-seen order.
    """
    kinds = kinds or {}
    labels = labels or {}
    ids = list(dict.fromkeys([*risk, *utility]))
    rows = []
    for cid in ids:
        r, r_lo, r_hi = _value_ci(risk.get(cid))
        u, u_lo, u_hi = _value_ci(utility.get(cid))
        rows.append(
            {
                "id": cid,
                "label": labels.get(cid, cid),
                "kind": kinds.get(cid, "generated"),
                "risk": r,
                "risk_lo": r_lo,
                "risk_hi": r_hi,
                "utility": u,
                "utility_lo": u_lo,
                "utility_hi": u_hi,
            }
        )
    return pd.DataFrame(rows, columns=MAP_COLUMNS)


def _whiskers(value: pd.Series, lo: pd.Series, hi: pd.Series) -> dict[str, Any] | None:
    if lo.isna().all() and hi.isna().all():
        return None
    plus = (hi - value).clip(lower=0).fillna(0.0).tolist()
    minus = (value - lo).clip(lower=0).fillna(0.0).tolist()
    return {
        "type": "data",
        "symmetric": False,
        "array": plus,
        "arrayminus": minus,
        "visible": True,
        "thickness": 1.2,
        "width": 4,
    }


def _fmt(value: float, lo: float, hi: float) -> str:
    if np.isnan(value):
        return "n/a"
    if np.isnan(lo) or np.isnan(hi):
        return f"{value:.3f}"
    return f"{value:.3f} [{lo:.3f}, {hi:.3f}]"


# ----------------------------------------------------------------- goals and titles
LOWER = MeasureGoal("lower", 0.0)
INDICATOR_NOTE = "similarity indicator (not a disclosure measure)"


def goal_reading(goal: MeasureGoal | None) -> str:
    """How to read an axis: "lower is better", "higher is better" or "0.5 is ideal, …"."""
    goal = goal or LOWER
    if goal.direction == "higher":
        return "higher is better"
    if goal.direction == "target":
        return f"{goal.ideal:g} is ideal, worse either way"
    return "lower is better"


def axis_title(
    label: str, goal: MeasureGoal | None = None, *, indicator: bool = False, detail: str = ""
) -> str:
    """An axis title that says which way is better, and when the measure only reports
    similarity that it is no disclosure measure (consensus R3)."""
    name = f"{label} — {INDICATOR_NOTE}" if indicator else label
    inside = "; ".join(p for p in (detail, goal_reading(goal)) if p)
    return f"{name} ({inside})"


_CORNER_ARROWS = {
    ("lower", "lower"): ("↙", "lower left"),
    ("higher", "lower"): ("↘", "lower right"),
    ("lower", "higher"): ("↖", "upper left"),
    ("higher", "higher"): ("↗", "upper right"),
}


def better_hint(x_goal: MeasureGoal | None, y_goal: MeasureGoal | None) -> dict[str, Any]:
    """The "better" annotation for a pair of axis goals (keyword arguments of
    ``Figure.add_annotation``): a corner arrow when both axes are monotone, otherwise the
    arrow of the monotone axis and the target's dotted ideal line. It stands above the
    plot, where no point or label can hide it (the best corner is where good releases
    lie)."""
    gx, gy = x_goal or LOWER, y_goal or LOWER
    if gx.direction != "target" and gy.direction != "target":
        arrow, corner = _CORNER_ARROWS[gx.direction, gy.direction]
        text = f"better {arrow} (toward the {corner})"
    elif gx.direction == "target" and gy.direction == "target":
        text = f"better: near x = {gx.ideal:g} and y = {gy.ideal:g} (dotted lines)"
    elif gy.direction == "target":
        arrow = "→" if gx.direction == "higher" else "←"
        text = f"better: {arrow} and near the dotted {gy.ideal:g} line"
    else:
        arrow = "↑" if gy.direction == "higher" else "↓"
        text = f"better: {arrow} and near the dotted {gx.ideal:g} line"
    return {
        "text": text,
        "showarrow": False,
        "font": {"color": "#555555", "size": 12},
        "name": "better",
        "xref": "paper",
        "yref": "paper",
        "x": 0.0,
        "y": 1.0,
        "xanchor": "left",
        "yanchor": "bottom",
        "yshift": 4,
    }


# ----------------------------------------------------------------- label placement
HEIGHT = 560
MARGIN = {"l": 80, "r": 30, "t": 46, "b": 124}
LABEL_LAYOUT_WIDTH = 640
"""The narrowest figure width (px) the labels are laid out for: a wider chart only moves
points apart, and the placement keeps labels clear at every width from this one up."""
LABEL_FONT = 11
LABEL_CHAR_PX = 0.64 * LABEL_FONT  # a generous average glyph width of the default font
LABEL_HEIGHT = LABEL_FONT + 6
MARKER_RADIUS = 8.0
LABEL_GAP = 2.0
_DISTANCES = (3.0, 16.0, 34.0, 58.0, 90.0)


def _offsets(w: float, h: float) -> list[tuple[float, float]]:
    """Places for a w × h label around its point, nearest first: beside the point (right
    before left) in rows stepping up and down, then above and below it."""
    step = h + LABEL_GAP
    out: dict[tuple[float, float], float] = {}
    for d in _DISTANCES:
        for k in range(7):
            for dy in (0.0,) if k == 0 else (-k * step, k * step):
                for ux in (1, -1):
                    gap = float(np.hypot(d, max(abs(dy) - h / 2, 0.0)))
                    out.setdefault(
                        (ux * (MARKER_RADIUS + d + w / 2), dy), gap + (0.5 if ux < 0 else 0.0)
                    )
        for uy in (-1, 1):
            out.setdefault((0.0, uy * (MARKER_RADIUS + d + h / 2)), d + 6.0)
    return sorted(out, key=out.__getitem__)


def plot_size(width: float = LABEL_LAYOUT_WIDTH) -> tuple[float, float]:
    """Width and height (px) of the plotting area of a figure ``width`` px wide."""
    return width - MARGIN["l"] - MARGIN["r"], HEIGHT - MARGIN["t"] - MARGIN["b"]


def label_size(text: str) -> tuple[float, float]:
    """Width and height (px) allowed for a label's box."""
    return LABEL_CHAR_PX * len(text) + 6.0, float(LABEL_HEIGHT)


def _range(values: list[float], pad: float = 0.1) -> tuple[float, float]:
    lo, hi = float(np.nanmin(values)), float(np.nanmax(values))
    span = hi - lo
    if span <= 0:
        span = max(abs(hi), 1.0) * 0.1
    return lo - pad * span, hi + pad * span


MAX_WIDTH = 2600
"""The widest figure (px) the layout is checked for: a full-HD screen and more."""


@dataclass(frozen=True)
class LabelBox:
    """A box whose left edge is anchored at ``ax`` and right edge at ``ax2`` (default
    ``ax``), both pixel positions at :data:`LABEL_LAYOUT_WIDTH` that move to ``ax·s`` when
    the plot is s times wider, plus a fixed offset ``dx`` and width ``w``; vertical
    positions (``ay + dy``, height ``h``) do not depend on the width. A label is anchored
    at its point; an interval whisker spans from its low to its high end."""

    ax: float
    ay: float
    dx: float
    dy: float
    w: float
    h: float
    ax2: float | None = None

    def edges(self) -> tuple[float, float, float, float]:
        """(left anchor, left offset, right anchor, right offset)."""
        right = self.ax if self.ax2 is None else self.ax2
        return self.ax, self.dx - self.w / 2, right, self.dx + self.w / 2


def _scales(c: float, k: float, lo: float, hi: float) -> tuple[float, float]:
    """The s in (lo, hi) with c·s < k, as an interval (empty when lo >= hi)."""
    if c > 0:
        return lo, min(hi, k / c)
    if c < 0:
        return max(lo, k / c), hi
    return (lo, hi) if k > 0 else (hi, hi)


def boxes_clash(a: LabelBox, b: LabelBox, gap: float = LABEL_GAP) -> bool:
    """Whether the boxes overlap at some chart width from :data:`LABEL_LAYOUT_WIDTH` to
    :data:`MAX_WIDTH`.

    Vertical pixels do not change with the width. Horizontally every edge is
    ``s·anchor + offset`` (s = the plot's width over its width at the narrowest figure),
    so "a's left edge is left of b's right edge" is a linear inequality in s, as is the
    converse; the boxes meet at some width iff both hold for one s in the range."""
    if abs((b.ay + b.dy) - (a.ay + a.dy)) >= (a.h + b.h) / 2 + gap:
        return False
    s_max = plot_size(MAX_WIDTH)[0] / plot_size()[0]
    al, alo, ar, aro = a.edges()
    bl, blo, br, bro = b.edges()
    # s·al + alo - gap < s·br + bro  and  s·bl + blo - gap < s·ar + aro
    lo1, hi1 = _scales(al - br, bro - alo + gap, 1.0, s_max)
    lo2, hi2 = _scales(bl - ar, aro - blo + gap, 1.0, s_max)
    return max(lo1, lo2, 1.0) < min(hi1, hi2, s_max) or (
        # the narrowest width itself (an interval closed at 1)
        al + alo - gap < br + bro and bl + blo - gap < ar + aro
    )


def place_labels(
    points: list[tuple[float, float]],
    texts: list[str],
    *,
    obstacles: Sequence[LabelBox] = (),
    numbers_from: int = 1,
) -> list[tuple[float, float, str]]:
    """Offsets (px, y down) and the text written for each label, in input order.

    ``points`` are pixel positions at :data:`LABEL_LAYOUT_WIDTH`. Each label takes the
    first place, nearest first, that stays inside the plot and clashes with no marker, no
    obstacle and no label already placed (:func:`boxes_clash`); crowded points go first,
    while the nearby places are free. A label with no free place is written as a number
    (``numbers_from``, ``numbers_from + 1``, …), which needs far less room."""
    pw, ph = plot_size()
    fixed = [
        *obstacles,
        *(LabelBox(x, y, 0.0, 0.0, 2 * MARKER_RADIUS, 2 * MARKER_RADIUS) for x, y in points),
    ]
    crowd = [sum(abs(x - x2) < 90 and abs(y - y2) < 45 for x2, y2 in points) for x, y in points]
    order = sorted(range(len(points)), key=lambda i: (-crowd[i], points[i][0], points[i][1]))
    placed: list[LabelBox] = []
    out: list[tuple[float, float, str] | None] = [None] * len(points)
    number = numbers_from

    def first_free(i: int, text: str) -> tuple[float, float] | None:
        x, y = points[i]
        w, h = label_size(text)
        own = LabelBox(x, y, 0.0, 0.0, 2 * MARKER_RADIUS, 2 * MARKER_RADIUS)
        for dx, dy in _offsets(w, h):
            if not (
                x + dx - w / 2 >= 0
                and x + dx + w / 2 <= pw
                and y + dy - h / 2 >= 0
                and y + dy + h / 2 <= ph
            ):
                continue
            box = LabelBox(x, y, dx, dy, w, h)
            if any(boxes_clash(box, o) for o in fixed if o != own):
                continue
            if any(boxes_clash(box, o) for o in placed):
                continue
            return dx, dy
        return None

    for i in order:
        text = texts[i]
        spot = first_free(i, text)
        if spot is None:
            text, number = str(number), number + 1
            spot = first_free(i, text)
        if spot is None:  # nowhere at all: beside the point, even if it overlaps
            w, h = label_size(text)
            spot = (MARKER_RADIUS + w / 2, 0.0)
        w, h = label_size(text)
        placed.append(LabelBox(points[i][0], points[i][1], spot[0], spot[1], w, h))
        out[i] = (spot[0], spot[1], text)
    return [o for o in out if o is not None]


def _whisker_boxes(shown: pd.DataFrame, to_px: Any) -> list[LabelBox]:
    """The interval whiskers as obstacles: a label must not hide an interval."""
    out = []
    for row in shown.itertuples():
        px, py = to_px(row.risk, row.utility)
        if not (np.isnan(row.risk_lo) or np.isnan(row.risk_hi)):
            out.append(
                LabelBox(
                    to_px(row.risk_lo, None)[0],
                    py,
                    0.0,
                    0.0,
                    2.0,
                    9.0,
                    ax2=to_px(row.risk_hi, None)[0],
                )
            )
        if not (np.isnan(row.utility_lo) or np.isnan(row.utility_hi)):
            top, bottom = to_px(None, row.utility_hi)[1], to_px(None, row.utility_lo)[1]
            out.append(LabelBox(px, py, 0.0, (top + bottom) / 2 - py, 9.0, bottom - top))
    return out


# ----------------------------------------------------------------- the figure
def risk_utility_map(
    risk: Mapping[str, MetricResult | None],
    utility: Mapping[str, MetricResult | None],
    *,
    kinds: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
    risk_title: str = "privacy risk (lower is better)",
    utility_title: str = "fidelity / utility loss (lower is better)",
    risk_goal: MeasureGoal | None = None,
    utility_goal: MeasureGoal | None = None,
    selected: str | None = None,
    short_labels: Mapping[str, str] | None = None,
) -> go.Figure:
    """Candidate releases on a risk (x) × utility-loss (y) plane.

    Parameters
    ----------
    risk, utility, kinds, labels
        As :func:`map_table`. Candidates without both values are left out of the figure.
    risk_title, utility_title
        Axis titles (:func:`axis_title` says which direction is better).
    risk_goal, utility_goal
        Each axis's goal (default: lower is better). A target goal (the discriminator's
        AUC, ideal 0.5) draws its ideal as a dotted line; the "better" hint follows both.
    selected
        The id of a candidate to ring (the one whose details are shown).
    short_labels
        ``{candidate id: text}`` written next to each point (default: the label); the
        hover always shows the full label.

    Returns
    -------
    plotly.graph_objects.Figure
        One scatter trace per kind present (markers of :data:`KIND_STYLE`), whiskers from
        each result's interval on both axes, ``customdata`` = ``[[id], ...]`` in each
        trace, hover with the candidate's name and both values. Point labels are layout
        annotations named by candidate id (``name``), offset in pixels (``ax``, ``ay``)
        by :func:`place_labels`; ``layout.meta`` holds the width they were laid out for
        and ``numbered``, ``{number: label}`` of the labels written as numbers.
    """
    table = map_table(risk, utility, kinds=kinds, labels=labels)
    shown = table.dropna(subset=["risk", "utility"]).reset_index(drop=True)
    fig = go.Figure()
    for kind in _kinds_present(shown):
        fig.add_trace(_kind_trace(shown[shown["kind"] == kind], kind))
    if selected is not None and (shown["id"] == selected).any():
        fig.add_trace(_selected_ring(shown[shown["id"] == selected].iloc[0], selected))
    gx, gy = risk_goal or LOWER, utility_goal or LOWER
    numbered: dict[str, str] = {}
    layout: dict[str, Any] = {}
    if not shown.empty:
        # fixed ranges and margins: the labels' pixel layout depends on them
        layout = _axis_ranges(shown, gx, gy)
        fig.add_annotation(**better_hint(gx, gy))
        _add_target_lines(fig, gx, gy)
        numbered = _add_point_labels(fig, shown, layout, short_labels)
    fig.update_layout(
        xaxis_title=risk_title,
        yaxis_title=utility_title,
        uirevision="risk-utility-map",
        legend={"orientation": "h", "x": 0.0, "y": -0.19, "yanchor": "top"},
        margin=MARGIN,
        height=HEIGHT,
        hovermode="closest",
        xaxis={"automargin": False},
        yaxis={"automargin": False},
        meta={"label_layout_width": LABEL_LAYOUT_WIDTH, "numbered": numbered},
        **layout,
    )
    return fig


def _kinds_present(shown: pd.DataFrame) -> list[str]:
    """The kinds of the points shown: releases first, then the references, then others."""
    order = ["workspace", "generated", *REFERENCE_KINDS]
    kinds_present = [k for k in order if (shown["kind"] == k).any()]
    kinds_present += [k for k in shown["kind"].unique() if k not in kinds_present]
    return kinds_present


def _kind_trace(part: pd.DataFrame, kind: str) -> go.Scatter:
    """The points of one kind with whiskers on both axes, each carrying its id."""
    name, color, symbol = KIND_STYLE.get(kind, (kind, "#333333", "circle"))
    hover = [
        f"<b>{lab}</b><br>risk {_fmt(r, rl, rh)}<br>utility {_fmt(u, ul, uh)}"
        for lab, r, rl, rh, u, ul, uh in zip(
            part["label"],
            part["risk"],
            part["risk_lo"],
            part["risk_hi"],
            part["utility"],
            part["utility_lo"],
            part["utility_hi"],
            strict=True,
        )
    ]
    reference = kind in REFERENCE_KINDS
    return go.Scatter(
        x=part["risk"].tolist(),
        y=part["utility"].tolist(),
        mode="markers",
        name=name,
        marker={
            "color": color,
            "symbol": symbol,
            "size": 15 if reference else 12,
            "line": {"width": 1, "color": "#ffffff"},
        },
        error_x=_whiskers(part["risk"], part["risk_lo"], part["risk_hi"]),
        error_y=_whiskers(part["utility"], part["utility_lo"], part["utility_hi"]),
        customdata=[[cid] for cid in part["id"]],
        hovertext=hover,
        hovertemplate="%{hovertext}<extra></extra>",
        meta={"kind": kind},
    )


def _selected_ring(row: pd.Series, selected: str) -> go.Scatter:
    """An open ring around the selected candidate (no legend entry, no hover)."""
    return go.Scatter(
        x=[float(row["risk"])],
        y=[float(row["utility"])],
        mode="markers",
        name="selected",
        marker={
            "symbol": "circle-open",
            "size": 28,
            "color": "#111111",
            "line": {"width": 2},
        },
        customdata=[[selected]],
        hoverinfo="skip",
        showlegend=False,
        meta={"kind": "selected"},
    )


def _axis_ranges(shown: pd.DataFrame, gx: MeasureGoal, gy: MeasureGoal) -> dict[str, Any]:
    """Both axes' ranges: the points, their whiskers and any target ideal."""
    xs = [*shown["risk"], *shown["risk_lo"].dropna(), *shown["risk_hi"].dropna()]
    ys = [*shown["utility"], *shown["utility_lo"].dropna(), *shown["utility_hi"].dropna()]
    xs += [gx.ideal] if gx.direction == "target" else []
    ys += [gy.ideal] if gy.direction == "target" else []
    x0, x1 = _range(xs)
    y0, y1 = _range(ys, pad=0.14)
    return {"xaxis_range": [x0, x1], "yaxis_range": [y0, y1]}


def _add_target_lines(fig: go.Figure, gx: MeasureGoal, gy: MeasureGoal) -> None:
    """A dotted line at the ideal of each axis whose goal is a target."""
    for axis, goal in (("x", gx), ("y", gy)):
        if goal.direction != "target":
            continue
        line = dict(line_dash="dot", line_color="#999999")
        if axis == "y":
            fig.add_hline(y=goal.ideal, **line)
        else:
            fig.add_vline(x=goal.ideal, **line)


def _pixel_mapper(
    layout: dict[str, Any],
) -> Callable[[float | None, float | None], tuple[float, float]]:
    """Data coordinates to pixels (y down) at :data:`LABEL_LAYOUT_WIDTH`; either may be
    None (its pixel is then 0)."""
    (x0, x1), (y0, y1) = layout["xaxis_range"], layout["yaxis_range"]
    pw, ph = plot_size()

    def to_px(x: float | None, y: float | None) -> tuple[float, float]:
        return (
            (0.0 if x is None else (x - x0) / (x1 - x0) * pw),
            (0.0 if y is None else (y1 - y) / (y1 - y0) * ph),
        )

    return to_px


def _add_point_labels(
    fig: go.Figure,
    shown: pd.DataFrame,
    layout: dict[str, Any],
    short_labels: Mapping[str, str] | None,
) -> dict[str, str]:
    """Each point's label, placed by :func:`place_labels` clear of the markers, whiskers
    and other labels; returns ``{number: label}`` of those written as numbers (also
    explained above the plot)."""
    to_px = _pixel_mapper(layout)
    pts = [to_px(x, y) for x, y in zip(shown["risk"], shown["utility"], strict=True)]
    texts = [
        (short_labels or {}).get(cid, lab)
        for cid, lab in zip(shown["id"], shown["label"], strict=True)
    ]
    spots = place_labels(pts, texts, obstacles=_whisker_boxes(shown, to_px))
    colors = [KIND_STYLE.get(k, ("", "#333333"))[1] for k in shown["kind"]]
    rows = list(
        zip(
            spots,
            shown["id"],
            texts,
            shown["label"],
            shown["risk"],
            shown["utility"],
            colors,
            strict=True,
        )
    )
    # farthest labels first: the boxes of nearer labels, drawn later, cover the long
    # leader lines that would otherwise cross their text
    rows.sort(key=lambda r: -float(np.hypot(r[0][0], r[0][1])))
    numbered: dict[str, str] = {}
    for (dx, dy, text), cid, lab, full, x, y, color in rows:
        if text != lab:
            numbered[text] = full
        fig.add_annotation(
            x=float(x),
            y=float(y),
            ax=dx,
            ay=dy,
            axref="pixel",
            ayref="pixel",
            text=text,
            name=cid,
            showarrow=True,
            arrowhead=0,
            arrowwidth=1,
            arrowcolor="#bbbbbb",
            standoff=MARKER_RADIUS - 2,
            xanchor="center",
            yanchor="middle",
            font={"size": LABEL_FONT, "color": color},
            bgcolor="rgba(255,255,255,0.9)",
            borderpad=1,
        )
    if numbered:
        fig.add_annotation(
            text="Numbered points: " + " · ".join(f"{k} = {v}" for k, v in numbered.items()),
            # a line above the "better" hint: both stay clear of the plot
            xref="paper",
            yref="paper",
            x=0.0,
            y=1.0,
            xanchor="left",
            yanchor="bottom",
            yshift=24,
            showarrow=False,
            font={"size": 10, "color": "#333333"},
            name="numbered",
        )
    return numbered


def selected_candidate(selection: Any) -> str | None:
    """The candidate id of the first clicked point in a Streamlit plotly selection.

    Accepts the event object returned by ``st.plotly_chart(..., on_select="rerun")`` or its
    ``selection`` mapping; None when nothing with a candidate id is selected.
    """
    if not isinstance(selection, Mapping):  # Streamlit's event is a dict subclass
        return None
    sel = selection.get("selection", selection)
    points = sel.get("points") if isinstance(sel, Mapping) else None
    for point in points or []:
        data = point.get("customdata") if isinstance(point, Mapping) else None
        if isinstance(data, (list, tuple)):
            data = data[0] if data else None
        if isinstance(data, str) and data:
            return data
    return None


__all__ = [
    "INDICATOR_NOTE",
    "KIND_STYLE",
    "LABEL_LAYOUT_WIDTH",
    "LabelBox",
    "REFERENCE_KINDS",
    "axis_title",
    "better_hint",
    "boxes_clash",
    "goal_reading",
    "label_size",
    "map_table",
    "place_labels",
    "plot_size",
    "risk_utility_map",
    "selected_candidate",
]
