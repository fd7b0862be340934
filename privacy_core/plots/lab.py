"""Figures of the risk lab: measure responses to inserted risk, correlations, training.

Why one module: every figure of the risk lab reads the same SweepResult table with the
same colours and labels; one module keeps them consistent.

Functions from a :class:`~privacy_core.experiments.SweepResult` (or a
:class:`~privacy_core.synth.autoregressive.TrainingCurve`) to plotly figures. Responses are
the mean over replicates with its interval as a band (``SweepResult.summary``).

The response figure is a set of small multiples, one panel per measure group of the
registry (:data:`privacy_core.measures.MEASURE_GROUPS`): a dozen lines on one axis
cannot be told apart, and a utility measure (query error, discriminator AUC) on a
"measured risk" axis reads as a risk. Risk panels carry the leaky model's ideal response
y = f_l (a measure that detects all inserted risk reads f_l); the utility panel has its
own axis and no ideal line. Every name shown — legend, panel, table, heatmap — comes from
:func:`privacy_core.measures.measure_label`, the one label vocabulary.

Notes
-----
``risk-insertion-framework.md`` Appendix A (response curves, Figures 2-6; correlation
matrices, Figures 7-11).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..errors import ParameterError
from ..experiments import SweepResult
from ..measures import (
    MEASURE_GROUPS,
    VARIANT_GROUP,
    measure_group,
    measure_label,
    split_measure_key,
)
from ..synth.autoregressive import TrainingCurve
from ..validation import check_positive_int

COLOURS = [
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#7f7f7f",
    "#393b79",
    "#637939",
]
AXIS_TITLES = {
    "f_l": "leak fraction f_l (share of training records in the release)",
    "f_o": "overfit ratio f_o (validation loss / its minimum L*)",
    "epsilon": "privacy budget ε (log scale)",
}
SHORT_AXIS_TITLES = {
    "f_l": "leak fraction f_l",
    "f_o": "overfit ratio f_o",
    "epsilon": "privacy budget ε",
}
UTILITY_GROUP = "Utility & fidelity"
# y-axis titles per panel: disclosure measures read a risk, similarity indicators are no
# disclosure evidence (consensus R3) and utility measures read how far the release is
# from the real data, so none of the latter two is titled "risk".
Y_TITLES = {
    "Similarity indicators": "indicator value",
    UTILITY_GROUP: "utility / fidelity value",
    VARIANT_GROUP: "attack success rate",
}
# panels without the ideal y = f_l: utility, and the canary rows (chance is their reference)
NO_IDEAL = (UTILITY_GROUP, VARIANT_GROUP)
# the panel order: the canary check next to the attacks it checks
PANEL_ORDER = [
    g
    for group in MEASURE_GROUPS
    for g in ((group, VARIANT_GROUP) if group == "Attribute inference" else (group,))
]
RISK_Y_TITLE = "measured risk"
IDEAL_NAME = "ideal response y = f_l"
SYMBOLS = ["circle", "square", "diamond", "triangle-up", "x"]
# a sweep's row variants share their measure's colour and differ by dash
VARIANT_DASH = {"": "solid", "canary": "dot", "training": "dash"}


def _label(measure: str) -> str:
    return measure_label(measure)


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def _pick(
    result: SweepResult, measures: Sequence[str] | None, outlier_fraction: float | None
) -> tuple[pd.DataFrame, list[str]]:
    summary = result.summary()
    if outlier_fraction is not None:
        summary = summary[np.isclose(summary["outlier_fraction"], outlier_fraction)]
    elif not summary.empty:
        summary = summary[summary["outlier_fraction"] == summary["outlier_fraction"].min()]
    present = set(summary["measure"])
    # The sweep's own order (the user's), each measure followed by its @canary rows.
    ordered = [
        m
        for base in result.measures
        for m in sorted(present)
        if m == base or m.startswith(f"{base}@")
    ]
    available = ordered + sorted(present - set(ordered))
    chosen = available if measures is None else [m for m in measures if m in available]
    if measures is not None:
        missing = [m for m in measures if m not in available]
        if missing:
            raise ParameterError(f"No rows for measure(s) {missing}; the sweep has {available}.")
    return summary, chosen


def measure_colours(result: SweepResult, chosen: Sequence[str]) -> dict[str, str]:
    """One colour per measure of the sweep, shared by its variants (``@canary``) and by
    every figure of the lab, so a measure keeps its colour from panel to panel."""
    bases: list[str] = list(result.measures)
    for m in chosen:
        base = split_measure_key(m)[0]
        if base not in bases:
            bases.append(base)
    return {m: COLOURS[bases.index(split_measure_key(m)[0]) % len(COLOURS)] for m in chosen}


def measure_panels(measures: Sequence[str]) -> list[tuple[str, list[str]]]:
    """``[(group, measures)]`` in :data:`PANEL_ORDER`, only groups present."""
    order = PANEL_ORDER
    groups: dict[str, list[str]] = {}
    for m in measures:
        groups.setdefault(measure_group(m), []).append(m)
    return sorted(
        groups.items(), key=lambda kv: (order.index(kv[0]) if kv[0] in order else len(order), kv[0])
    )


def panel_y_title(group: str) -> str:
    return Y_TITLES.get(group, RISK_Y_TITLE)


def _band(
    x: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    colour: str,
    name: str,
    legendgroup: str | None = None,
    alpha: float = 0.13,
) -> go.Scatter:
    ok = np.isfinite(lo) & np.isfinite(hi)
    x, lo, hi = x[ok], lo[ok], hi[ok]
    return go.Scatter(
        x=np.concatenate([x, x[::-1]]),
        y=np.concatenate([hi, lo[::-1]]),
        mode="lines",
        fill="toself",
        fillcolor=_rgba(colour, alpha),
        line={"width": 0},
        hoverinfo="skip",
        showlegend=False,
        name=f"{name} interval",
        legendgroup=legendgroup or name,
    )


def _y_range(
    summary: pd.DataFrame, ms: Sequence[str], group: str, risk_model: str
) -> list[float] | None:
    """The panel's y range: its means (and 0-1 where the ideal or a rate lives), padded.

    Intervals over two or three replicates can be wide (Student t with 1-2 degrees of
    freedom); fitting the axis to them would flatten the means, so bands are clipped.
    """
    y = summary.loc[summary["measure"].isin(ms), "mean"].to_numpy(float)
    y = y[np.isfinite(y)]
    if not len(y):
        return None
    lo, hi = float(y.min()), float(y.max())
    if group == VARIANT_GROUP or (risk_model == "leaky" and group not in NO_IDEAL):
        lo, hi = min(lo, 0.0), max(hi, 1.0)
    if group == UTILITY_GROUP and "discriminator" in ms:
        lo, hi = min(lo, 0.5), max(hi, 0.5)
    pad = max(0.06 * (hi - lo), 0.02)
    return [lo - pad, hi + pad]


def _chance(result: SweepResult, ms: Sequence[str]) -> float | None:
    """The chance success rate of the canary rows (one value when the attacks agree)."""
    rows = result.rows
    if "baseline" not in rows:
        return None
    base = rows.loc[
        rows["measure"].isin([m for m in ms if m.endswith("@canary")]), "baseline"
    ].to_numpy(float)
    base = np.unique(np.round(base[np.isfinite(base)], 6))
    return float(base[0]) if len(base) == 1 else None


def lab_response_figure(
    result: SweepResult,
    measures: Sequence[str] | None = None,
    *,
    outlier_fraction: float | None = None,
    columns: int = 3,
) -> go.Figure:
    """Every measure's mean against the inserted risk level, one panel per measure group.

    Panels follow :data:`~privacy_core.measures.MEASURE_GROUPS` (attribute inference,
    singling out, linkability, membership, similarity indicators, utility & fidelity),
    each with its own y axis: risk panels are titled "measured risk" and carry the ideal
    y = f_l of the leaky model; the utility panel is titled as utility and has no ideal
    line. Canary rows (``inference@canary``, ``@training``) are attack success rates, on
    a panel of their own next to attribute inference, with the chance rate as a dotted
    line, dotted (canaries) or dashed (other training records) in their attack's colour.
    One line per measure (mean over replicates; band = the interval of
    :meth:`SweepResult.summary`, clipped to the panel's range), one legend grouped by
    panel, a log x axis for epsilon. Unreached overfit levels have no point.
    """
    columns = check_positive_int("columns", columns)
    summary, chosen = _pick(result, measures, outlier_fraction)
    panels = measure_panels(chosen)
    if not panels:
        return go.Figure()
    cols = min(columns, len(panels))
    rows_n = math.ceil(len(panels) / cols)
    fig = _panel_grid(panels, rows_n, cols)
    colours = measure_colours(result, chosen)
    place = {g: (i // cols + 1, i % cols + 1) for i, (g, _) in enumerate(panels)}
    # the ideal lines first (one legend entry), so they sit beneath the measures
    if result.risk_model == "leaky":
        _add_ideal_lines(fig, result, panels, place)
    for rank, (group, ms) in enumerate(panels, start=2):
        r, c = place[group]
        for j, m in enumerate(ms):
            part = summary[summary["measure"] == m].sort_values("level")
            for trace in _measure_traces(part, m, j, len(ms), group, rank, colours[m], result):
                fig.add_trace(trace, row=r, col=c)
        fig.update_yaxes(
            title_text=panel_y_title(group),
            title_standoff=4,
            range=_y_range(summary, ms, group, result.risk_model),
            row=r,
            col=c,
        )
        _add_reference_line(fig, result, group, ms, r, c)
    fig.update_xaxes(title_text=SHORT_AXIS_TITLES[result.level_name], title_standoff=2)
    if result.risk_model == "dp":
        fig.update_xaxes(type="log")
    _place_legend(fig, panels, rows_n, cols)
    return fig


def _panel_grid(panels: list[tuple[str, list[str]]], rows_n: int, cols: int) -> go.Figure:
    """The subplot grid, one titled panel per group; the grid's unused cells get no axes
    (an empty frame reads as a panel without data)."""
    specs: list[list[dict | None]] = [
        [{} if r * cols + c < len(panels) else None for c in range(cols)] for r in range(rows_n)
    ]
    return make_subplots(
        rows=rows_n,
        cols=cols,
        subplot_titles=[g for g, _ in panels],
        specs=specs,
        horizontal_spacing=0.09,
        vertical_spacing=0.13 if rows_n > 1 else 0.1,
    )


def _add_ideal_lines(
    fig: go.Figure,
    result: SweepResult,
    panels: list[tuple[str, list[str]]],
    place: dict[str, tuple[int, int]],
) -> None:
    """The leaky model's ideal y = f_l on every risk panel, with one legend entry."""
    lo_x = min(result.levels) if result.levels else 0.0
    hi_x = max(result.levels) if result.levels else 1.0
    first = True
    for group, _ in panels:
        if group in NO_IDEAL:
            continue
        r, c = place[group]
        fig.add_trace(
            go.Scatter(
                x=[lo_x, hi_x],
                y=[lo_x, hi_x],
                mode="lines",
                name=IDEAL_NAME,
                legendgroup="ideal",
                showlegend=first,
                legendrank=1,
                hoverinfo="skip",
                line={"color": "#999", "dash": "dash", "width": 1.5},
            ),
            row=r,
            col=c,
        )
        first = False


def _measure_traces(
    part: pd.DataFrame,
    m: str,
    j: int,
    n_in_panel: int,
    group: str,
    rank: int,
    colour: str,
    result: SweepResult,
) -> tuple[go.Scatter, go.Scatter]:
    """One measure's interval band and its line of means: the ``j``-th of its panel."""
    label = _label(m)
    dash = VARIANT_DASH.get(split_measure_key(m)[2], "dashdot")
    x = part["level"].to_numpy(float)
    # fainter bands where several overlap, so the lines stay readable
    band = _band(
        x,
        part["ci_low"].to_numpy(float),
        part["ci_high"].to_numpy(float),
        colour,
        label,
        legendgroup=group,
        alpha=0.13 if n_in_panel <= 2 else 0.06,
    )
    line = go.Scatter(
        x=x,
        y=part["mean"],
        mode="lines+markers",
        name=label,
        legendgroup=group,
        legendrank=rank,
        legendgrouptitle={"text": group} if j == 0 else None,
        line={"color": colour, "width": 2.2, "dash": dash},
        # a symbol per line of the panel: lines that coincide stay visible
        marker={"size": 7, "symbol": SYMBOLS[j % len(SYMBOLS)]},
        customdata=part[["n", "ci_low", "ci_high"]],
        hovertemplate=(
            f"{label}<br>{result.level_name} %{{x:g}}: %{{y:.3f}}<br>"
            "interval %{customdata[1]:.3f} – %{customdata[2]:.3f} "
            "(%{customdata[0]} replicates)<extra></extra>"
        ),
    )
    return band, line


def _add_reference_line(
    fig: go.Figure, result: SweepResult, group: str, ms: Sequence[str], r: int, c: int
) -> None:
    """A panel's dotted reference: the chance rate on the canaries, or the
    discriminator's indistinguishable AUC 0.5 on the utility panel."""
    if group == VARIANT_GROUP:
        chance = _chance(result, ms)
        if chance is not None:
            fig.add_hline(
                y=chance,
                line={"color": "#bbb", "dash": "dot", "width": 1},
                annotation_text=f"chance on canaries ({chance:.2f})",
                annotation_font={"size": 10, "color": "#888"},
                annotation_position="bottom right",
                row=r,
                col=c,
            )
    if group == UTILITY_GROUP and "discriminator" in ms:
        # the discriminator's ideal is AUC 0.5 (indistinguishable), not 0
        fig.add_hline(
            y=0.5,
            line={"color": "#bbb", "dash": "dot", "width": 1},
            annotation_text="AUC 0.5 = indistinguishable",
            annotation_font={"size": 10, "color": "#888"},
            annotation_position="bottom right",
            row=r,
            col=c,
        )


def _place_legend(
    fig: go.Figure, panels: list[tuple[str, list[str]]], rows_n: int, cols: int
) -> None:
    """Legends, grouped by panel, where they cost no plot space.

    A single row of panels gets one legend on its right. Otherwise the groups are split
    into columns of vertical legends (plotly's ``legend``, ``legend2``, ...): in the grid's
    unused cells of the last row, or below the panels when the grid is full. Vertical
    legends never overlap, whatever the length of a label.
    """
    base = {
        "groupclick": "toggleitem",
        "tracegroupgap": 8,
        "font": {"size": 12},
        "orientation": "v",
        "yanchor": "top",
        "xanchor": "left",
    }
    row_px, line_px, gap_px, top, bottom = 300, 20, 8, 40, 10
    height = row_px * rows_n + 70
    if rows_n == 1:
        fig.update_layout(
            height=height,
            legend={**base, "x": 1.02, "y": 1},
            margin={"t": top, "b": bottom, "r": 10},
        )
        return
    free = rows_n * cols - len(panels)
    slots = free if free else cols
    # each group takes its title and one line per entry; the ideal line goes first
    sizes = [1 + len(ms) for _, ms in panels]
    sizes[0] += 1
    columns = _balanced(sizes, slots)
    needed = max(sum(sizes[i] for i in col) * line_px + gap_px * len(col) for col in columns)
    plot_px = height - top - bottom
    if free:
        x_at = [fig.layout[_axis("xaxis", cols - free + k)].domain[0] for k in range(slots)]
        y_top = fig.layout[_axis("yaxis", (rows_n - 1) * cols)].domain[1] + 0.01
        cell_px = row_px - 10
        extra = max(0, needed - cell_px)
    else:
        x_at = [fig.layout[_axis("xaxis", k)].domain[0] for k in range(cols)]
        extra = needed + 45
        y_top = -45 / plot_px  # below the x axis titles of the last row
    bottom += extra
    height += extra
    legend_of = {}
    layout: dict = {}
    for k, col in enumerate(columns):
        name = "legend" if k == 0 else f"legend{k + 1}"
        layout[name] = {**base, "x": x_at[k], "y": y_top}
        for i in col:
            legend_of[panels[i][0]] = name
    for trace in fig.data:
        group = "Attribute inference" if trace.legendgroup == "ideal" else trace.legendgroup
        trace.legend = legend_of.get(group, legend_of.get(panels[0][0], "legend"))
    if any(t.legendgroup == "ideal" for t in fig.data):
        for trace in fig.data:  # the ideal's entry heads the first column
            if trace.legendgroup == "ideal":
                trace.legend = "legend"
    fig.update_layout(height=height, margin={"t": top, "b": bottom, "r": 10}, **layout)


def _balanced(sizes: list[int], parts: int) -> list[list[int]]:
    """Split consecutive items into at most ``parts`` columns of similar total size."""
    parts = max(1, min(parts, len(sizes)))
    target = sum(sizes) / parts
    columns: list[list[int]] = [[]]
    total = 0
    for i, size in enumerate(sizes):
        if columns[-1] and len(columns) < parts and total + size / 2 > target:
            columns.append([])
            total = 0
        columns[-1].append(i)
        total += size
    return columns


def _axis(kind: str, index: int) -> str:
    """The layout name of the ``index``-th (0-based) subplot's axis: xaxis, xaxis2, ..."""
    return kind if index == 0 else f"{kind}{index + 1}"


def lab_small_multiples(
    result: SweepResult,
    measures: Sequence[str] | None = None,
    *,
    columns: int = 3,
    outlier_fraction: float | None = None,
) -> go.Figure:
    """One panel per measure: mean line, interval band, replicate points (and y = x).

    Each panel has its own y range, so measures on different scales stay readable; the
    ideal y = f_l is drawn on the panels of risk measures only, and each measure keeps
    its colour of the response figure.
    """
    columns = check_positive_int("columns", columns)
    summary, chosen = _pick(result, measures, outlier_fraction)
    if not chosen:
        return go.Figure()
    rows_n = math.ceil(len(chosen) / columns)
    fig = make_subplots(
        rows=rows_n,
        cols=min(columns, len(chosen)),
        subplot_titles=[_label(m) for m in chosen],
        horizontal_spacing=0.07,
        vertical_spacing=0.12 if rows_n > 1 else 0.1,
    )
    raw = result.rows
    if outlier_fraction is not None:
        raw = raw[np.isclose(raw["outlier_fraction"], outlier_fraction)]
    elif not raw.empty:
        raw = raw[raw["outlier_fraction"] == raw["outlier_fraction"].min()]
    colours = measure_colours(result, chosen)
    for i, m in enumerate(chosen):
        r, c = i // columns + 1, i % columns + 1
        colour = colours[m]
        part = summary[summary["measure"] == m].sort_values("level")
        x = part["level"].to_numpy(float)
        if result.risk_model == "leaky" and measure_group(m) not in NO_IDEAL:
            fig.add_trace(
                go.Scatter(
                    x=[0, 1],
                    y=[0, 1],
                    mode="lines",
                    showlegend=False,
                    line={"color": "#999", "dash": "dash", "width": 1},
                    hoverinfo="skip",
                ),
                row=r,
                col=c,
            )
        fig.add_trace(
            _band(
                x,
                part["ci_low"].to_numpy(float),
                part["ci_high"].to_numpy(float),
                colour,
                _label(m),
            ),
            row=r,
            col=c,
        )
        pts = raw[raw["measure"] == m]
        fig.add_trace(
            go.Scatter(
                x=pts["level"],
                y=pts["value"],
                mode="markers",
                showlegend=False,
                marker={"color": colour, "size": 5, "opacity": 0.45},
                hovertemplate="replicate value %{y:.3f}<extra></extra>",
            ),
            row=r,
            col=c,
        )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=part["mean"],
                mode="lines+markers",
                showlegend=False,
                line={"color": colour, "width": 2},
                hovertemplate="mean %{y:.3f}<extra></extra>",
            ),
            row=r,
            col=c,
        )
    if result.risk_model == "dp":
        fig.update_xaxes(type="log")
    fig.update_layout(height=260 * rows_n + 40, margin={"t": 40, "b": 10}, showlegend=False)
    fig.update_xaxes(title_text=result.level_name, title_standoff=2)
    return fig


def lab_correlation_heatmap(result: SweepResult, *, method: str = "pearson") -> go.Figure:
    """Correlation matrix of measures across the sweep's releases (diverging, -1..1)."""
    corr = result.correlations(method=method)
    labels = [_label(m) for m in corr.columns]
    z = corr.to_numpy(dtype=float)
    text = np.where(np.isfinite(z), np.round(z, 2).astype(str), "n/a")
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=labels,
            y=labels,
            zmin=-1,
            zmax=1,
            colorscale="RdBu",
            reversescale=True,
            text=text,
            texttemplate="%{text}",
            hovertemplate="%{y} × %{x}: %{z:.2f}<extra></extra>",
            colorbar={"title": method},
        )
    )
    fig.update_layout(
        height=max(320, 42 * len(labels) + 140),
        margin={"t": 30, "b": 10},
        yaxis={"autorange": "reversed"},
    )
    return fig


def lab_training_curve(curve: TrainingCurve) -> go.Figure:
    """Training and validation loss per epoch, the best epoch (L*) and the f_o checkpoints.

    Checkpoints are markers on the validation curve labelled ``f_o = ...``; dotted
    horizontal lines mark the targets f_o · L*; unreached levels are listed in the title.
    The fit phase's epochs after the best one (the early-stopping patience, from which
    the overfit phase does *not* continue) are drawn faint and dotted.
    """
    h = curve.history
    fit = h[h["phase"] == "fit"]
    # The overfit phase restarts from the best state: the fit-phase epochs after it (the
    # early-stopping patience) are a discarded branch, drawn faint and dotted.
    kept = pd.concat([fit[fit["epoch"] <= curve.best_epoch], h[h["phase"] == "overfit"]])
    discarded = fit[fit["epoch"] >= curve.best_epoch]
    fig = go.Figure()
    for col, name, colour in (
        ("train_loss", "training loss", "#1f77b4"),
        ("val_loss", "validation loss", "#d62728"),
    ):
        fig.add_trace(
            go.Scatter(
                x=kept["epoch"], y=kept[col], mode="lines", name=name, line={"color": colour}
            )
        )
    for col, colour in (("train_loss", "#1f77b4"), ("val_loss", "#d62728")):
        if len(discarded) > 1:
            fig.add_trace(
                go.Scatter(
                    x=discarded["epoch"],
                    y=discarded[col],
                    mode="lines",
                    name="after L*, discarded by early stopping",
                    legendgroup="discarded",
                    showlegend=col == "val_loss",
                    line={"color": colour, "dash": "dot", "width": 1},
                    opacity=0.5,
                )
            )
    reached = [c for c in curve.checkpoints if c.reached]
    fig.add_trace(
        go.Scatter(
            x=[c.epoch for c in reached],
            y=[c.val_loss for c in reached],
            mode="markers+text",
            name="kept checkpoints",
            text=[f"f_o = {c.level:g}" for c in reached],
            textposition="top left",
            marker={"color": "#222", "size": 9, "symbol": "diamond"},
            hovertemplate="epoch %{x:.2f}<br>validation loss %{y:.3f}<extra>%{text}</extra>",
        )
    )
    for c in curve.checkpoints:
        fig.add_hline(y=c.target_loss, line_dash="dot", line_color="#bbb", line_width=1)
    fig.add_vline(
        x=curve.best_epoch,
        line_dash="dash",
        line_color="#555",
        annotation_text=f"best L* = {curve.best_loss:.2f}",
        annotation_position="top right",
    )
    unreached = curve.unreached
    title = (
        ""
        if not unreached
        else f"not reached within the budget: f_o = {', '.join(f'{f:g}' for f in unreached)}"
    )
    fig.update_layout(
        title=title,
        xaxis_title="epoch",
        yaxis_title="loss (negative log-likelihood per row, nats)",
        height=420,
        margin={"t": 40 if title else 20, "b": 10},
        legend={"orientation": "h", "y": -0.2},
    )
    return fig


__all__ = [
    "lab_correlation_heatmap",
    "lab_response_figure",
    "lab_small_multiples",
    "lab_training_curve",
    "measure_colours",
    "measure_panels",
    "panel_y_title",
]
