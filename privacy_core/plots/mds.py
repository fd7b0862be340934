"""Figures of the membership disclosure score: the per-record DS distribution against
its SELF and HALF references, and the method's place between them."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..risk.mds import MdsResult
from .privacy_distance import percent_per_bin

METHOD_COLOUR = "#c0392b"
HALF_COLOUR = "#2c7fb8"
SELF_COLOUR = "#7f7f7f"


def mds_distribution(result: MdsResult, *, bins: int = 50) -> go.Figure:
    """Histograms of DS over the evaluated records for the method, HALF (a method that
    emits unseen records: the noise floor) and SELF (a copy: the worst case), each with a
    dashed line at its max; the records at or above the reported quantile (those an
    attacker would target) are drawn as a rug of their own."""
    rec = result.require_records()
    series = [
        ("The method's shadows", rec["ds"].to_numpy(float), METHOD_COLOUR),
        ("HALF (emits unseen records)", rec["ds_half"].to_numpy(float), HALF_COLOUR),
        ("SELF (copies its training data)", rec["ds_self"].to_numpy(float), SELF_COLOUR),
    ]
    finite = np.concatenate([v[np.isfinite(v)] for _, v, _ in series])
    top = float(finite.max()) * 1.05 if finite.size and finite.max() > 0 else 1.0
    edges = np.linspace(0.0, top, bins + 1)
    centres = (edges[:-1] + edges[1:]) / 2
    fig = go.Figure()
    for name, values, colour in series:
        if not np.isfinite(values).any():
            continue
        fig.add_bar(
            x=centres,
            y=percent_per_bin(values, edges),
            width=edges[1] - edges[0],
            name=name,
            marker_color=colour,
            opacity=0.55,
            hovertemplate="DS %{x:.4g}: %{y:.2f}% of records<extra></extra>",
        )
        fig.add_vline(x=float(np.nanmax(values)), line_dash="dash", line_color=colour)
    targeted = rec.loc[rec["targeted"].astype(bool)]
    if len(targeted):
        fig.add_scatter(
            x=targeted["ds"],
            y=np.zeros(len(targeted)),
            mode="markers",
            yaxis="y",
            name=f"targeted records (DS ≥ {result.raw_quantile:.3g}, top "
            f"{1 - result.params['quantile']:.0%})",
            marker={"symbol": "line-ns-open", "size": 14, "color": "black"},
            customdata=targeted["record"],
            hovertemplate="record %{customdata}: DS %{x:.4g}<extra></extra>",
        )
    fig.update_layout(
        barmode="overlay",
        bargap=0,
        xaxis_title="Disclosure score DS(x) (distance per column)",
        yaxis_title="Percent of records",
        legend={"orientation": "h", "y": 1.18},
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
    )
    return fig


def mds_scale_figure(result: MdsResult) -> go.Figure:
    """The method's MDS on the line from HALF (0) to SELF (1), with its interval: the
    relative reading drawn, so a workshop sees what 0 and 1 are."""
    fig = go.Figure()
    fig.add_scatter(
        x=[0.0, 1.0],
        y=[0, 0],
        mode="markers+text",
        name="references",
        text=[f"HALF<br>{result.half_max:.3f}", f"SELF<br>{result.self_max:.3f}"],
        textposition="bottom center",
        marker={"size": 14, "color": [HALF_COLOUR, SELF_COLOUR]},
        hovertemplate="%{text}<extra></extra>",
    )
    value = result.relative
    if np.isfinite(value):
        err = None
        if result.ci is not None and result.params.get("reading") == "relative":
            err = {
                "type": "data",
                "symmetric": False,
                "array": [result.ci[1] - value],
                "arrayminus": [value - result.ci[0]],
            }
        fig.add_scatter(
            x=[value],
            y=[0],
            mode="markers+text",
            name="this method",
            text=[f"MDS {result.raw_max:.3f}<br>relative {value:.2f}"],
            textposition="top center",
            error_x=err,
            marker={"size": 18, "color": METHOD_COLOUR, "symbol": "diamond"},
            hovertemplate="relative MDS %{x:.3f}<extra></extra>",
        )
    fig.add_shape(
        type="line", x0=0, x1=1, y0=0, y1=0, line={"color": "#bbb", "width": 3}, layer="below"
    )
    fig.update_layout(
        height=230,
        showlegend=False,
        margin={"l": 30, "r": 30, "t": 60, "b": 50},
        xaxis={
            "range": [-0.15, 1.15],
            "title": "Relative MDS: 0 = HALF, 1 = SELF",
            "zeroline": False,
        },
        yaxis={"visible": False, "range": [-1.6, 1.6]},
    )
    return fig
