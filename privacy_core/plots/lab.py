"""Figures of the risk lab: measure responses to inserted risk, correlations, training.

Functions from a :class:`~privacy_core.experiments.SweepResult` (or a
:class:`~privacy_core.synth.autoregressive.TrainingCurve`) to plotly figures. Responses are
the mean over replicates with its interval as a band (``SweepResult.summary``); the
leaky model adds the ideal response y = x (a measure that detects all inserted risk
reads f_l).

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
from ..measures import MEASURES
from ..synth.autoregressive import TrainingCurve
from ..validation import check_positive_int

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
           "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939"]
AXIS_TITLES = {"f_l": "leak fraction f_l (share of training records in the release)",
               "f_o": "overfit ratio f_o (validation loss / its minimum L*)",
               "epsilon": "privacy budget ε (log scale)"}


def _label(measure: str) -> str:
    base, _, suffix = measure.partition("@")
    label = MEASURES[base].label if base in MEASURES else base
    return f"{label} ({suffix})" if suffix else label


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def _pick(result: SweepResult, measures: Sequence[str] | None,
          outlier_fraction: float | None) -> tuple[pd.DataFrame, list[str]]:
    summary = result.summary()
    if outlier_fraction is not None:
        summary = summary[np.isclose(summary["outlier_fraction"], outlier_fraction)]
    elif not summary.empty:
        summary = summary[summary["outlier_fraction"] == summary["outlier_fraction"].min()]
    present = set(summary["measure"])
    # The sweep's own order (the user's), each measure followed by its @canary rows.
    ordered = [m for base in result.measures for m in sorted(present)
               if m == base or m.startswith(f"{base}@")]
    available = ordered + sorted(present - set(ordered))
    chosen = available if measures is None else [m for m in measures if m in available]
    if measures is not None:
        missing = [m for m in measures if m not in available]
        if missing:
            raise ParameterError(f"No rows for measure(s) {missing}; the sweep has "
                                 f"{available}.")
    return summary, chosen


def _band(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, colour: str, name: str
          ) -> go.Scatter:
    ok = np.isfinite(lo) & np.isfinite(hi)
    x, lo, hi = x[ok], lo[ok], hi[ok]
    return go.Scatter(x=np.concatenate([x, x[::-1]]), y=np.concatenate([hi, lo[::-1]]),
                      mode="lines", fill="toself", fillcolor=_rgba(colour, 0.15), line={"width": 0},
                      hoverinfo="skip", showlegend=False, name=f"{name} interval",
                      legendgroup=name)


def lab_response_figure(result: SweepResult, measures: Sequence[str] | None = None, *,
                        outlier_fraction: float | None = None) -> go.Figure:
    """Every measure's mean against the inserted risk level, with interval bands.

    One line per measure (mean over replicates; band = the interval of
    :meth:`SweepResult.summary`), the ideal y = x for the leaky model, a log x axis for
    epsilon. Unreached overfit levels have no point.
    """
    summary, chosen = _pick(result, measures, outlier_fraction)
    fig = go.Figure()
    level_name = result.level_name
    if result.risk_model == "leaky":
        fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="ideal response y = f_l",
                                 line={"color": "#999", "dash": "dash", "width": 1.5}))
    for i, m in enumerate(chosen):
        part = summary[summary["measure"] == m].sort_values("level")
        colour = COLOURS[i % len(COLOURS)]
        x = part["level"].to_numpy(float)
        fig.add_trace(_band(x, part["ci_low"].to_numpy(float), part["ci_high"].to_numpy(float),
                            colour, _label(m)))
        fig.add_trace(go.Scatter(
            x=x, y=part["mean"], mode="lines+markers", name=_label(m), legendgroup=_label(m),
            line={"color": colour, "width": 2.5}, customdata=part[["n", "ci_low", "ci_high"]],
            hovertemplate=(f"{_label(m)}<br>{level_name} %{{x:g}}: %{{y:.3f}}<br>"
                           "interval %{customdata[1]:.3f} – %{customdata[2]:.3f} "
                           "(%{customdata[0]} replicates)<extra></extra>")))
    fig.update_layout(xaxis_title=AXIS_TITLES[level_name], yaxis_title="measured risk",
                      height=460, margin={"t": 30, "b": 10},
                      legend={"orientation": "h", "y": -0.2})
    if result.risk_model == "dp":
        fig.update_xaxes(type="log")
    return fig


def lab_small_multiples(result: SweepResult, measures: Sequence[str] | None = None, *,
                        columns: int = 3, outlier_fraction: float | None = None) -> go.Figure:
    """One panel per measure: mean line, interval band, replicate points (and y = x).

    Each panel has its own y range, so measures on different scales stay readable.
    """
    columns = check_positive_int("columns", columns)
    summary, chosen = _pick(result, measures, outlier_fraction)
    if not chosen:
        return go.Figure()
    rows_n = math.ceil(len(chosen) / columns)
    fig = make_subplots(rows=rows_n, cols=min(columns, len(chosen)),
                        subplot_titles=[_label(m) for m in chosen],
                        horizontal_spacing=0.07, vertical_spacing=0.12 if rows_n > 1 else 0.1)
    raw = result.rows
    if outlier_fraction is not None:
        raw = raw[np.isclose(raw["outlier_fraction"], outlier_fraction)]
    elif not raw.empty:
        raw = raw[raw["outlier_fraction"] == raw["outlier_fraction"].min()]
    for i, m in enumerate(chosen):
        r, c = i // columns + 1, i % columns + 1
        colour = COLOURS[i % len(COLOURS)]
        part = summary[summary["measure"] == m].sort_values("level")
        x = part["level"].to_numpy(float)
        if result.risk_model == "leaky":
            fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", showlegend=False,
                                     line={"color": "#999", "dash": "dash", "width": 1},
                                     hoverinfo="skip"), row=r, col=c)
        fig.add_trace(_band(x, part["ci_low"].to_numpy(float),
                            part["ci_high"].to_numpy(float), colour, _label(m)), row=r, col=c)
        pts = raw[raw["measure"] == m]
        fig.add_trace(go.Scatter(x=pts["level"], y=pts["value"], mode="markers",
                                 showlegend=False, marker={"color": colour, "size": 5,
                                                           "opacity": 0.45},
                                 hovertemplate="replicate value %{y:.3f}<extra></extra>"),
                      row=r, col=c)
        fig.add_trace(go.Scatter(x=x, y=part["mean"], mode="lines+markers", showlegend=False,
                                 line={"color": colour, "width": 2},
                                 hovertemplate="mean %{y:.3f}<extra></extra>"), row=r, col=c)
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
    fig = go.Figure(go.Heatmap(
        z=z, x=labels, y=labels, zmin=-1, zmax=1, colorscale="RdBu", reversescale=True,
        text=text, texttemplate="%{text}", hovertemplate="%{y} × %{x}: %{z:.2f}<extra></extra>",
        colorbar={"title": method}))
    fig.update_layout(height=max(320, 42 * len(labels) + 140), margin={"t": 30, "b": 10},
                      yaxis={"autorange": "reversed"})
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
    for col, name, colour in (("train_loss", "training loss", "#1f77b4"),
                              ("val_loss", "validation loss", "#d62728")):
        fig.add_trace(go.Scatter(x=kept["epoch"], y=kept[col], mode="lines", name=name,
                                 line={"color": colour}))
    for col, colour in (("train_loss", "#1f77b4"), ("val_loss", "#d62728")):
        if len(discarded) > 1:
            fig.add_trace(go.Scatter(
                x=discarded["epoch"], y=discarded[col], mode="lines",
                name="after L*, discarded by early stopping",
                legendgroup="discarded", showlegend=col == "val_loss",
                line={"color": colour, "dash": "dot", "width": 1}, opacity=0.5))
    reached = [c for c in curve.checkpoints if c.reached]
    fig.add_trace(go.Scatter(
        x=[c.epoch for c in reached], y=[c.val_loss for c in reached], mode="markers+text",
        name="kept checkpoints", text=[f"f_o = {c.level:g}" for c in reached],
        textposition="top left", marker={"color": "#222", "size": 9, "symbol": "diamond"},
        hovertemplate="epoch %{x:.2f}<br>validation loss %{y:.3f}<extra>%{text}</extra>"))
    for c in curve.checkpoints:
        fig.add_hline(y=c.target_loss, line_dash="dot", line_color="#bbb", line_width=1)
    fig.add_vline(x=curve.best_epoch, line_dash="dash", line_color="#555",
                  annotation_text=f"best L* = {curve.best_loss:.2f}",
                  annotation_position="top right")
    unreached = curve.unreached
    title = ("" if not unreached else
             f"not reached within the budget: f_o = {', '.join(f'{f:g}' for f in unreached)}")
    fig.update_layout(title=title, xaxis_title="epoch",
                      yaxis_title="loss (negative log-likelihood per row, nats)", height=420,
                      margin={"t": 40 if title else 20, "b": 10},
                      legend={"orientation": "h", "y": -0.2})
    return fig


__all__ = [
    "lab_correlation_heatmap",
    "lab_response_figure",
    "lab_small_multiples",
    "lab_training_curve",
]
