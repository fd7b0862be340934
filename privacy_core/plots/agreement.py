"""Figures for following records across measures: flag matrix and agreement heatmap."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go


def flag_matrix_figure(flags: pd.DataFrame, *, top: int = 40) -> go.Figure:
    """The most-flagged records (rows) against the measures (columns), flagged in red."""
    cols = [c for c in flags.columns if c != "n_flags"]
    part = flags.head(top)
    fig = go.Figure(
        go.Heatmap(
            z=part[cols].astype(int).to_numpy(),
            x=cols,
            y=[f"record {r}" for r in part.index],
            colorscale=[[0, "#f2f2f2"], [1, "#d62728"]],
            showscale=False,
            xgap=2,
            ygap=1,
            hovertemplate="%{y}<br>%{x}: %{z}<extra></extra>",
        )
    )
    fig.update_layout(
        height=max(300, 16 * len(part) + 120),
        margin={"t": 20, "b": 10},
        yaxis={"autorange": "reversed"},
    )
    return fig


def flag_agreement_heatmap(
    agreement: pd.DataFrame, reasons: pd.DataFrame | None = None
) -> go.Figure:
    """Pairwise phi correlation of the measures' per-record flags.

    An undefined cell (a measure that flags no record or every record) reads "n/a" and
    its hover says why, from ``reasons`` (:func:`~privacy_core.risk.agreement.
    flag_agreement_reasons`), never a bare "NaN".
    """
    z = agreement.to_numpy(dtype=float)
    undefined = ~np.isfinite(z)
    why = (
        reasons.reindex(index=agreement.index, columns=agreement.columns)
        .fillna("")
        .to_numpy(dtype=object)
        if reasons is not None
        else np.full(z.shape, "", dtype=object)
    )
    why = np.where(undefined & (why == ""), "agreement is undefined", why)
    text = [
        ["n/a" if bad else f"{v:.2f}" for v, bad in zip(row, brow, strict=False)]
        for row, brow in zip(z, undefined, strict=False)
    ]
    hover = [
        [w if bad else f"phi {v:.2f}" for v, w, bad in zip(row, wrow, brow, strict=False)]
        for row, wrow, brow in zip(z, why, undefined, strict=False)
    ]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(agreement.columns),
            y=list(agreement.index),
            zmin=-1,
            zmax=1,
            colorscale="RdBu_r",
            text=text,
            customdata=hover,
            texttemplate="%{text}",
            hovertemplate="%{y} vs %{x}: %{customdata}<extra></extra>",
        )
    )
    fig.update_layout(height=420, margin={"t": 20, "b": 10})
    return fig
