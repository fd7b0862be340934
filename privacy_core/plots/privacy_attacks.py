"""Figures for the attack-based measures (singling out, linkability, inference).

Built from :class:`~privacy_core.risk.attacks.AttackResult` objects only: the success
rates on training targets (members), control targets (non-members) and the random-guess
baseline, each with its interval, and the control-baseline risk.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..risk.attacks import AttackResult, LinkabilityResult

SERIES = ("training", "control", "baseline")
SERIES_LABELS = {
    "training": "Attack on training records (members)",
    "control": "Same attack on control records (non-members)",
    "baseline": "Random guess",
}
SERIES_COLORS = {"training": "#d62728", "control": "#1f77b4", "baseline": "#7f7f7f"}
ATTACK_LABELS = {
    "singling_out": "Singling out",
    "linkability": "Linkability",
    "inference": "Inference (nearest record)",
    "ml_inference": "Inference (ML)",
}


def _label(result: AttackResult) -> str:
    base = ATTACK_LABELS.get(result.name, result.name)
    if result.name == "singling_out":
        return f"{base} ({result.params.get('mode', '')})"
    if result.name == "linkability":
        return f"{base} (k={result.params.get('n_neighbors', 1)})"
    if result.name in ("inference", "ml_inference"):
        return f"{base}: {result.params.get('secret', '')}"
    return base


def attack_rates_table(results: Sequence[AttackResult]) -> pd.DataFrame:
    """Tidy success rates of several attacks: attack, series, rate, lower, upper, n."""
    rows = []
    for r in results:
        rates = r.rates()
        rates.insert(0, "attack", _label(r))
        rows.append(rates)
    if not rows:
        return pd.DataFrame(
            columns=["attack", "series", "successes", "n", "rate", "lower", "upper"]
        )
    return pd.concat(rows, ignore_index=True)


def attack_rates_figure(results: Sequence[AttackResult] | AttackResult) -> go.Figure:
    """Grouped bars per attack: success on members, on non-members and by random guessing,
    with their intervals as error bars.

    The risk each measure reports is the gap between the first two bars relative to what
    the control attack left to learn; a first bar no taller than the third means the
    attack does not work at all. For ML inference on a continuous secret the bars are
    scores (1 - RMSE/range) rather than success rates.
    """
    items = [results] if isinstance(results, AttackResult) else list(results)
    table = attack_rates_table(items)
    risk_of = {_label(r): r.value for r in items}
    fig = go.Figure()
    for series in SERIES:
        part = table[table["series"] == series]
        if part.empty:
            continue
        rate = part["rate"].to_numpy(dtype=float)
        # the normalised risk is another scale: named in the hover, never drawn as a bar
        risk = part["attack"].map(risk_of).to_numpy(dtype=float)
        fig.add_trace(
            go.Bar(
                x=part["attack"],
                y=rate,
                name=SERIES_LABELS[series],
                marker_color=SERIES_COLORS[series],
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": np.clip(part["upper"].to_numpy(dtype=float) - rate, 0, None),
                    "arrayminus": np.clip(rate - part["lower"].to_numpy(dtype=float), 0, None),
                },
                customdata=np.column_stack([part["lower"], part["upper"], part["n"], risk]),
                hovertemplate=(
                    "%{x}<br>success rate %{y:.3f} [%{customdata[0]:.3f}, "
                    "%{customdata[1]:.3f}]<br>n = %{customdata[2]}"
                    "<br>(normalised risk of the attack: %{customdata[3]:.3f})<extra>"
                    + SERIES_LABELS[series]
                    + "</extra>"
                ),
            )
        )
    fig.update_layout(
        barmode="group",
        yaxis={"title": "Success rate", "range": [0, 1.05]},
        xaxis={"title": None},
        legend={"orientation": "h", "y": -0.2},
        margin={"t": 30},
    )
    return fig


def attack_risk_figure(results: Sequence[AttackResult] | AttackResult) -> go.Figure:
    """The control-baseline risk of each attack with its interval (horizontal bars)."""
    items = [results] if isinstance(results, AttackResult) else list(results)
    labels = [_label(r) for r in items]
    value = np.array([r.value for r in items], dtype=float)
    lo = np.array([r.ci[0] if r.ci else np.nan for r in items], dtype=float)
    hi = np.array([r.ci[1] if r.ci else np.nan for r in items], dtype=float)
    fig = go.Figure(
        go.Bar(
            y=labels,
            x=value,
            orientation="h",
            marker_color=SERIES_COLORS["training"],
            error_x={
                "type": "data",
                "symmetric": False,
                "array": np.clip(hi - value, 0, None),
                "arrayminus": np.clip(value - lo, 0, None),
            },
            hovertemplate="%{y}<br>risk %{x:.3f}<extra></extra>",
            name="Risk",
        )
    )
    fig.update_layout(
        xaxis={"title": "Risk beyond the control attack", "range": [0, 1.05]},
        yaxis={"autorange": "reversed"},
        margin={"t": 30},
        showlegend=False,
    )
    return fig


def linkability_neighbors_figure(result: LinkabilityResult) -> go.Figure:
    """Linkability against the number of neighbours k' (re-read from one search).

    Two panels, one scale each: the raw success rates of the attack, the control and the
    random guess (top), and the normalised risk (attack − control) / (1 − control) with
    its interval band (bottom). A normalised risk drawn on the rates' axis would look
    lower than the random guess it has already been corrected for.
    """
    from plotly.subplots import make_subplots

    curve = result.curve()
    k = curve["n_neighbors"].to_numpy()
    fig = make_subplots(
        rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08, row_heights=[0.55, 0.45]
    )
    fig.add_trace(
        go.Scatter(
            x=np.concatenate([k, k[::-1]]),
            y=np.concatenate([curve["upper"].to_numpy(), curve["lower"].to_numpy()[::-1]]),
            fill="toself",
            fillcolor="rgba(34,34,34,0.12)",
            line={"width": 0},
            hoverinfo="skip",
            showlegend=False,
            name="risk interval",
        ),
        row=2,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=k,
            y=curve["risk"],
            mode="lines+markers",
            name="Normalised risk (attack − control) / (1 − control)",
            line={"color": "#222222", "width": 3},
        ),
        row=2,
        col=1,
    )
    for series, col in (
        ("training", "attack_rate"),
        ("control", "control_rate"),
        ("baseline", "baseline_rate"),
    ):
        if curve[col].isna().all():
            continue
        fig.add_trace(
            go.Scatter(
                x=k,
                y=curve[col],
                mode="lines",
                name=SERIES_LABELS[series],
                line={"color": SERIES_COLORS[series], "dash": "dot"},
            ),
            row=1,
            col=1,
        )
    fig.update_yaxes(title_text="Success rate", range=[0, 1.05], row=1, col=1)
    fig.update_yaxes(title_text="Normalised risk", range=[0, 1.05], row=2, col=1)
    fig.update_xaxes(title_text="Neighbours considered (k)", dtick=1, row=2, col=1)
    fig.update_layout(legend={"orientation": "h", "y": -0.2}, margin={"t": 30}, height=480)
    return fig


__all__ = [
    "attack_rates_figure",
    "attack_rates_table",
    "attack_risk_figure",
    "linkability_neighbors_figure",
]
