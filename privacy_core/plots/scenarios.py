"""Figures of the teaching scenarios (:mod:`privacy_core.scenarios`).

Functions from scenario results to plotly figures; the sweeps' response curves and the
risk–utility map reuse the lab's and the map's builders, so a measure looks the same on
the Learn page as on the Risk lab and the map.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..errors import ParameterError
from ..measures import MEASURES, measure_goal, measure_label
from ..scenarios import (
    RELEASE_LABELS,
    DependencyPopulation,
    DependencyScenario,
    LeakyScenario,
    PrivacyPriceScenario,
    SimilarityScenario,
)
from ..validation import check_choice
from .lab import lab_response_figure
from .map import axis_title, risk_utility_map

RAPID_COLOUR = "#d62728"
ACCURACY_COLOUR = "#7f7f7f"
DISEASE_COLOURS = {"healthy": "#2ca02c", "diabetic": "#ff7f0e", "hypertensive": "#9467bd"}
RELEASE_COLOURS = {"patterns": "#1f77b4", "copies": "#ff7f0e"}
READINGS = ("absolute", "relative")


def _band(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, colour: str, name: str) -> go.Scatter:
    """A closed interval band (hi forward, lo backward) without a legend entry."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return go.Scatter(
        x=np.concatenate([x, x[::-1]]),
        y=np.concatenate([hi, lo[::-1]]),
        fill="toself",
        fillcolor=f"rgba({r},{g},{b},0.15)",
        line={"width": 0},
        hoverinfo="skip",
        showlegend=False,
        name=f"{name} interval",
    )


def dependency_population_figure(population: DependencyPopulation) -> go.Figure:
    """Disease shares per age band (stacked bars): how much age tells about disease."""
    fig = go.Figure()
    shares = population.shares
    for disease in ("healthy", "diabetic", "hypertensive"):
        part = shares[shares["disease"] == disease]
        fig.add_trace(
            go.Bar(
                x=part["age_band"],
                y=part["share"],
                name=disease,
                marker_color=DISEASE_COLOURS[disease],
                hovertemplate=f"{disease}: %{{y:.0%}} of ages %{{x}}<extra></extra>",
            )
        )
    fig.update_layout(
        barmode="stack",
        height=340,
        margin={"t": 40, "b": 10},
        title=f"Simulated population at κ = {population.kappa:g}",
        xaxis_title="age band",
        yaxis={"title": "share of the band", "tickformat": ".0%", "range": [0, 1]},
        legend={"title": "disease"},
    )
    return fig


def dependency_curve_figure(
    result: DependencyScenario, *, tau: float | None = None, highlight: float | None = None
) -> go.Figure:
    """RAPID against κ with its interval band and the attacker's accuracy (Fig. 5a).

    ``tau`` reads RAPID at another threshold of the same fits; ``highlight`` marks one κ.
    """
    tau = result.tau if tau is None else float(tau)
    curve = result.curves[np.isclose(result.curves["threshold"], tau)].sort_values("kappa")
    if curve.empty:
        raise ParameterError(f"No RAPID at tau = {tau:g} in this result.")
    x = curve["kappa"].to_numpy(float)
    points = result.points.sort_values("kappa")
    fig = go.Figure()
    fig.add_trace(
        _band(
            x, curve["lower"].to_numpy(float), curve["upper"].to_numpy(float), RAPID_COLOUR, "RAPID"
        )
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=curve["rate"],
            mode="lines+markers",
            name=f"RAPID (τ = {tau:g})",
            line={"color": RAPID_COLOUR, "width": 2.5},
            customdata=curve[["lower", "upper"]],
            hovertemplate=(
                "κ = %{x:g}: RAPID %{y:.3f}<br>interval %{customdata[0]:.3f} – "
                "%{customdata[1]:.3f}<extra></extra>"
            ),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=points["kappa"],
            y=points["accuracy"],
            mode="lines+markers",
            name="attacker accuracy",
            line={"color": ACCURACY_COLOUR, "dash": "dash"},
            hovertemplate="κ = %{x:g}: accuracy %{y:.3f}<extra></extra>",
        )
    )
    if highlight is not None:
        fig.add_vline(
            x=float(highlight),
            line={"color": "#555", "dash": "dot"},
            annotation_text=f"your κ = {float(highlight):g}",
            annotation_position="top left",
        )
    fig.update_layout(
        height=400,
        margin={"t": 40, "b": 10},
        xaxis_title="dependency strength κ",
        yaxis={"title": "share of records (lower is better for RAPID)", "range": [0, 1.02]},
        legend={"orientation": "h", "y": -0.2},
    )
    return fig


def rapid_tau_figure(result: DependencyScenario, *, kappa: float, tau: float) -> go.Figure:
    """RAPID against the confidence threshold τ at one κ, the chosen τ marked (Fig. 5b)."""
    curve = result.curves[np.isclose(result.curves["kappa"], float(kappa))]
    if curve.empty:
        raise ParameterError(
            f"No RAPID at kappa = {kappa:g}; computed: {sorted(result.points['kappa'].tolist())}."
        )
    curve = curve.sort_values("threshold")
    x = curve["threshold"].to_numpy(float)
    at = result.at(kappa, tau)
    fig = go.Figure()
    fig.add_trace(
        _band(
            x, curve["lower"].to_numpy(float), curve["upper"].to_numpy(float), RAPID_COLOUR, "RAPID"
        )
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=curve["rate"],
            mode="lines",
            name="RAPID",
            line={"color": RAPID_COLOUR, "width": 2.5},
            hovertemplate="τ = %{x:.2f}: RAPID %{y:.3f}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[at["tau"]],
            y=[at["rapid"]],
            mode="markers",
            name=f"τ = {at['tau']:g}",
            marker={"color": "#222", "size": 11, "symbol": "diamond"},
            hovertemplate="τ = %{x:.2f}: RAPID %{y:.3f}<extra></extra>",
        )
    )
    fig.update_layout(
        height=340,
        margin={"t": 40, "b": 10},
        showlegend=False,
        title=f"RAPID against the threshold at κ = {float(kappa):g}",
        xaxis_title="confidence threshold τ (gain over the base rate)",
        yaxis={"title": "records at risk (share)", "range": [0, 1.02]},
    )
    return fig


def measure_snapshot_figure(
    rows: pd.DataFrame, *, level: float, level_name: str, ideal: bool = False
) -> go.Figure:
    """Each measure at one level as a horizontal bar with its interval.

    ``rows`` as :meth:`LeakyScenario.at` / :meth:`PrivacyPriceScenario.at`; ``ideal``
    draws the leaky model's ideal reading (value = f_l) as a dashed line.
    """
    rows = rows.iloc[::-1]  # the first measure on top
    value = rows["value"].to_numpy(float)
    # the value goes with the name: text beside a bar would sit on its interval whisker
    labels = [f"{measure_label(m)}: {v:.2f}" for m, v in zip(rows["measure"], value, strict=True)]
    plus = np.nan_to_num(rows["ci_high"].to_numpy(float) - value, nan=0.0).clip(min=0)
    minus = np.nan_to_num(value - rows["ci_low"].to_numpy(float), nan=0.0).clip(min=0)
    colours = [
        "#2ca02c"
        if MEASURES[m].family == "fidelity"
        else "#7f7f7f"
        if MEASURES[m].indicator
        else RAPID_COLOUR
        for m in rows["measure"]
    ]
    fig = go.Figure(
        go.Bar(
            x=value,
            y=labels,
            orientation="h",
            marker_color=colours,
            error_x={"type": "data", "array": plus, "arrayminus": minus, "visible": True},
            customdata=np.column_stack([rows["ci_low"], rows["ci_high"]]),
            hovertemplate=(
                "%{y}<br>value %{x:.3f}, interval %{customdata[0]:.3f} – "
                "%{customdata[1]:.3f}<extra></extra>"
            ),
        )
    )
    if ideal:
        fig.add_vline(
            x=float(level),
            line={"color": "#444", "dash": "dash"},
            annotation_text=(f"ideal for a risk measure: {level_name} = {float(level):g}"),
            annotation_position="top",
        )
    fig.update_layout(
        height=60 + 42 * len(rows),
        margin={"t": 40, "b": 10, "l": 10},
        xaxis={
            "title": f"value at {level_name} = {float(level):g} "
            "(grey: similarity indicator, green: fidelity)",
            "range": [min(0.0, float(np.nanmin(value)) - 0.05), 1.1],
        },
        showlegend=False,
    )
    return fig


def leaky_response_figure(
    result: LeakyScenario, measures: Sequence[str] | None = None
) -> go.Figure:
    """Every measure against f_l with the ideal y = f_l (the risk lab's figure)."""
    return lab_response_figure(result.sweep, measures)


def privacy_price_response_figure(
    result: PrivacyPriceScenario, measures: Sequence[str] | None = None
) -> go.Figure:
    """Risk and fidelity against ε on a log axis (the risk lab's figure)."""
    return lab_response_figure(result.sweep, measures)


def similarity_figure(result: SimilarityScenario, *, reading: str = "absolute") -> go.Figure:
    """The two releases side by side: similarity indicators and RAPID, with intervals.

    ``reading="relative"`` replaces RAPID on all records by its members − non-members
    difference (what the release adds to the population's patterns, consensus R7).
    """
    check_choice("reading", reading, READINGS)
    fig = go.Figure()
    for release, label in RELEASE_LABELS.items():
        part = result.table[result.table["release"] == release].set_index("measure")
        names, values, lo, hi = [], [], [], []
        for m in part.index:
            if m == "rapid" and reading == "relative":
                row = result.members.set_index("release").loc[release]
                names.append("RAPID: members − non-members")
                values.append(float(row["difference"]))
                lo.append(float(row["ci_low"]))
                hi.append(float(row["ci_high"]))
                continue
            name = measure_label(m)
            names.append(f"{name} (similarity)" if MEASURES[m].indicator else name)
            values.append(float(part.loc[m, "value"]))
            lo.append(float(part.loc[m, "ci_low"]))
            hi.append(float(part.loc[m, "ci_high"]))
        v = np.array(values)
        fig.add_trace(
            go.Bar(
                x=names,
                y=v,
                name=label,
                marker_color=RELEASE_COLOURS[release],
                error_y={
                    "type": "data",
                    "visible": True,
                    "array": np.nan_to_num(np.array(hi) - v, nan=0.0).clip(min=0),
                    "arrayminus": np.nan_to_num(v - np.array(lo), nan=0.0).clip(min=0),
                },
                text=[f"{x:.2f}" for x in v],
                textposition="outside",
                cliponaxis=False,
                hovertemplate=f"{label}<br>%{{x}}: %{{y:.3f}}<extra></extra>",
            )
        )
    fig.update_layout(
        barmode="group",
        height=400,
        margin={"t": 40, "b": 10},
        yaxis={"title": "value (lower is better)", "range": [-0.05, 1.05]},
        legend={"orientation": "h", "y": -0.15},
    )
    return fig


def privacy_price_map(
    result: PrivacyPriceScenario, *, risk: str = "rapid", utility: str = "query_error"
) -> go.Figure:
    """One point per budget ε on the risk–utility map (the map page's figure)."""
    risk_results, utility_results = result.map_results(risk=risk, utility=utility)
    return risk_utility_map(
        risk_results,
        utility_results,
        risk_title=axis_title(
            measure_label(risk), measure_goal(risk), indicator=MEASURES[risk].indicator
        ),
        utility_title=axis_title(measure_label(utility), measure_goal(utility)),
        risk_goal=measure_goal(risk),
        utility_goal=measure_goal(utility),
    )


__all__ = [
    "dependency_curve_figure",
    "dependency_population_figure",
    "leaky_response_figure",
    "measure_snapshot_figure",
    "privacy_price_map",
    "privacy_price_response_figure",
    "rapid_tau_figure",
    "similarity_figure",
]
