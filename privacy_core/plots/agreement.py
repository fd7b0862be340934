"""Figures for following records across measures: flag matrix and agreement heatmap."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go


def flag_matrix_figure(flags: pd.DataFrame, *, top: int = 40) -> go.Figure:
    """The most-flagged records (rows) against the measures (columns), flagged in red."""
    cols = [c for c in flags.columns if c != "n_flags"]
    part = flags.head(top)
    fig = go.Figure(go.Heatmap(
        z=part[cols].astype(int).to_numpy(), x=cols, y=[f"record {r}" for r in part.index],
        colorscale=[[0, "#f2f2f2"], [1, "#d62728"]], showscale=False, xgap=2, ygap=1,
        hovertemplate="%{y}<br>%{x}: %{z}<extra></extra>"))
    fig.update_layout(height=max(300, 16 * len(part) + 120), margin={"t": 20, "b": 10},
                      yaxis={"autorange": "reversed"})
    return fig


def flag_agreement_heatmap(agreement: pd.DataFrame) -> go.Figure:
    """Pairwise phi correlation of the measures' per-record flags."""
    fig = go.Figure(go.Heatmap(
        z=agreement.to_numpy(), x=list(agreement.columns), y=list(agreement.index),
        zmin=-1, zmax=1, colorscale="RdBu_r", text=agreement.round(2).to_numpy(),
        texttemplate="%{text}", hovertemplate="%{y} vs %{x}: %{z:.2f}<extra></extra>"))
    fig.update_layout(height=420, margin={"t": 20, "b": 10})
    return fig
