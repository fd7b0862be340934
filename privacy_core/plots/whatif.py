"""The what-if figure: each measure before and after a mitigation, risk and utility side
by side, so that what a mitigation buys and what it costs are read together."""

from __future__ import annotations

from typing import Any

import pandas as pd

_COLOURS = {"better": "#2b8a3e", "worse": "#c92a2a", "same": "#868e96"}
_SYMBOLS = {"better": "▲ better", "worse": "▼ worse", "same": "= same"}


def mitigation_figure(comparison: pd.DataFrame, *, title: str = "") -> Any:
    """Dumbbells: a hollow dot before, a filled dot after, joined by a line coloured by
    whether the change is an improvement (words in the hover and the labels, not colour
    alone). Left panel: privacy measures (indicators marked); right: fidelity and utility.

    ``comparison`` is :func:`privacy_core.mitigation.compare_measures`'s table.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    panels = [
        ("risk", "Privacy (lower is better)"),
        ("utility", "Fidelity and utility (toward the ideal is better)"),
    ]
    fig = make_subplots(
        rows=1, cols=2, subplot_titles=[p[1] for p in panels], horizontal_spacing=0.22
    )
    for col, (family, _) in enumerate(panels, start=1):
        part = comparison[comparison["family"] == family]
        for row in part.itertuples(index=False):
            label = row.label + (" (indicator)" if row.indicator else "")
            colour = _COLOURS[row.better]
            fig.add_trace(
                go.Scatter(
                    x=[row.before, row.after],
                    y=[label, label],
                    mode="lines",
                    line={"color": colour, "width": 3},
                    showlegend=False,
                    hoverinfo="skip",
                ),
                row=1,
                col=col,
            )
            fig.add_trace(
                go.Scatter(
                    x=[row.before],
                    y=[label],
                    mode="markers",
                    name="before",
                    marker={
                        "symbol": "circle-open",
                        "size": 11,
                        "color": "#495057",
                        "line": {"width": 2},
                    },
                    showlegend=False,
                    hovertemplate=f"{label}<br>before %{{x:.4f}}<extra></extra>",
                ),
                row=1,
                col=col,
            )
            fig.add_trace(
                go.Scatter(
                    x=[row.after],
                    y=[label],
                    mode="markers+text",
                    name="after",
                    marker={"symbol": "circle", "size": 11, "color": colour},
                    text=[_SYMBOLS[row.better]],
                    textposition="middle right",
                    textfont={"color": colour},
                    showlegend=False,
                    hovertemplate=f"{label}<br>after %{{x:.4f}} ({row.better})<extra></extra>",
                ),
                row=1,
                col=col,
            )
    n = max(
        int((comparison["family"] == "risk").sum()),
        int((comparison["family"] == "utility").sum()),
        1,
    )
    fig.update_layout(
        title=title or None, height=150 + 42 * n, margin={"l": 10, "r": 20}, template="plotly_white"
    )
    for col, (family, _) in enumerate(panels, start=1):
        part = comparison[comparison["family"] == family]
        values = pd.concat([part["before"], part["after"]]) if len(part) else pd.Series([1.0])
        low, top = min(0.0, float(values.min())), max(float(values.max()), 1e-9)
        # room on the right for the "▲ better" labels
        fig.update_xaxes(range=[low, top + 0.35 * (top - low)], row=1, col=col)
    fig.add_annotation(
        text="○ before  ● after",
        xref="paper",
        yref="paper",
        x=0,
        y=-0.18,
        showarrow=False,
        font={"size": 12, "color": "#495057"},
    )
    return fig
