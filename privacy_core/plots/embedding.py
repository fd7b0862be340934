"""The contrastive embedding seen from above: real and synthetic records on its first two
principal axes, with the records the measures flag."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
import plotly.graph_objects as go

COLOURS = {"real": "#9e9e9e", "synthetic": "#2c7fb8"}
FLAG_COLOUR = "#c0392b"


def embedding_projection_figure(points: pd.DataFrame, flagged: Iterable | None = None) -> go.Figure:
    """Scatter of :func:`privacy_core.embedding.project_2d` points: one trace per source
    and the flagged real records on top (red rings), so a reader sees whether the risky
    records sit where synthetic records crowd."""
    fig = go.Figure()
    for source, group in points.groupby("source", sort=False):
        fig.add_scattergl(
            x=group["x"],
            y=group["y"],
            mode="markers",
            name=f"{source} records",
            marker={"size": 4, "opacity": 0.45, "color": COLOURS.get(str(source), "#555")},
            customdata=group["record"],
            hovertemplate=f"{source} record %{{customdata}}<extra></extra>",
        )
    flagged = set(() if flagged is None else flagged)
    if flagged:
        hit = points[(points["source"] == "real") & points["record"].isin(flagged)]
        fig.add_scattergl(
            x=hit["x"],
            y=hit["y"],
            mode="markers",
            name="flagged real records",
            marker={
                "size": 9,
                "color": "rgba(0,0,0,0)",
                "line": {"color": FLAG_COLOUR, "width": 1.5},
            },
            customdata=hit["record"],
            hovertemplate="flagged record %{customdata}<extra></extra>",
        )
    fig.update_layout(
        xaxis_title="first principal axis of the real embeddings",
        yaxis_title="second principal axis",
        height=420,
        legend={"orientation": "h", "y": 1.1},
        margin={"l": 60, "r": 20, "t": 40, "b": 50},
    )
    return fig
