"""The risk–utility map: candidate releases as points, with interval whiskers on both axes.

:func:`map_table` lines up, per candidate, one privacy result (x) and one fidelity or
utility result (y); :func:`risk_utility_map` draws that table. Candidates are keyed by an
id that the figure carries as ``customdata``, so a click on a point (Streamlit's
``on_select``) can be mapped back to the release; :func:`selected_candidate` reads it.
The reference releases HALF, HISTOGRAM and SELF get distinct reference markers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..results import MetricResult

KIND_STYLE: dict[str, tuple[str, str, str]] = {
    "workspace": ("Loaded releases", "#1f77b4", "circle"),
    "generated": ("Generated candidates", "#ff7f0e", "circle"),
    "half": ("HALF (a random half of the real rows)", "#2ca02c", "diamond"),
    "histogram": ("HISTOGRAM (independent columns)", "#7f7f7f", "x"),
    "self": ("SELF (the real table itself)", "#d62728", "star"),
}
REFERENCE_KINDS = ("half", "histogram", "self")
MAP_COLUMNS = ["id", "label", "kind", "risk", "risk_lo", "risk_hi", "utility", "utility_lo",
               "utility_hi"]


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
        rows.append({"id": cid, "label": labels.get(cid, cid),
                     "kind": kinds.get(cid, "generated"), "risk": r, "risk_lo": r_lo,
                     "risk_hi": r_hi, "utility": u, "utility_lo": u_lo, "utility_hi": u_hi})
    return pd.DataFrame(rows, columns=MAP_COLUMNS)


def _whiskers(value: pd.Series, lo: pd.Series, hi: pd.Series) -> dict[str, Any] | None:
    if lo.isna().all() and hi.isna().all():
        return None
    plus = (hi - value).clip(lower=0).fillna(0.0).tolist()
    minus = (value - lo).clip(lower=0).fillna(0.0).tolist()
    return {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus,
            "visible": True, "thickness": 1.2, "width": 4}


def _fmt(value: float, lo: float, hi: float) -> str:
    if np.isnan(value):
        return "n/a"
    if np.isnan(lo) or np.isnan(hi):
        return f"{value:.3f}"
    return f"{value:.3f} [{lo:.3f}, {hi:.3f}]"


def risk_utility_map(
    risk: Mapping[str, MetricResult | None],
    utility: Mapping[str, MetricResult | None],
    *,
    kinds: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
    risk_title: str = "privacy risk (lower is better)",
    utility_title: str = "fidelity / utility loss (lower is better)",
    utility_ideal: float | None = None,
    selected: str | None = None,
    short_labels: Mapping[str, str] | None = None,
) -> go.Figure:
    """Candidate releases on a risk (x) × utility-loss (y) plane.

    Parameters
    ----------
    risk, utility, kinds, labels
        As :func:`map_table`. Candidates without both values are left out of the figure.
    risk_title, utility_title
        Axis titles (say which direction is better).
    utility_ideal
        A value of the utility measure that means "ideal" when it is not 0 (0.5 for the
        discriminator AUC), drawn as a dotted line.
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
        trace, hover with the candidate's name and both values.
    """
    table = map_table(risk, utility, kinds=kinds, labels=labels)
    shown = table.dropna(subset=["risk", "utility"])
    fig = go.Figure()
    order = ["workspace", "generated", *REFERENCE_KINDS]
    kinds_present = [k for k in order if (shown["kind"] == k).any()]
    kinds_present += [k for k in shown["kind"].unique() if k not in kinds_present]
    for kind in kinds_present:
        part = shown[shown["kind"] == kind]
        name, color, symbol = KIND_STYLE.get(kind, (kind, "#333333", "circle"))
        hover = [f"<b>{lab}</b><br>risk {_fmt(r, rl, rh)}<br>utility {_fmt(u, ul, uh)}"
                 for lab, r, rl, rh, u, ul, uh in zip(
                     part["label"], part["risk"], part["risk_lo"], part["risk_hi"],
                     part["utility"], part["utility_lo"], part["utility_hi"], strict=True)]
        reference = kind in REFERENCE_KINDS
        # neighbours along x take turns above and below their marker: fewer collisions
        rank = part["risk"].rank(method="first").to_numpy()
        positions = ["top center" if r % 2 else "bottom center" for r in rank]
        fig.add_trace(go.Scatter(
            x=part["risk"].tolist(), y=part["utility"].tolist(), mode="markers+text",
            name=name, text=[(short_labels or {}).get(cid, lab)
                             for cid, lab in zip(part["id"], part["label"], strict=True)],
            textposition=positions, textfont={"size": 11, "color": color},
            marker={"color": color, "symbol": symbol, "size": 15 if reference else 12,
                    "line": {"width": 1, "color": "#ffffff"}},
            error_x=_whiskers(part["risk"], part["risk_lo"], part["risk_hi"]),
            error_y=_whiskers(part["utility"], part["utility_lo"], part["utility_hi"]),
            customdata=[[cid] for cid in part["id"]], hovertext=hover,
            hovertemplate="%{hovertext}<extra></extra>", meta={"kind": kind},
        ))
    if selected is not None and (shown["id"] == selected).any():
        row = shown[shown["id"] == selected].iloc[0]
        fig.add_trace(go.Scatter(
            x=[float(row["risk"])], y=[float(row["utility"])], mode="markers",
            name="selected",
            marker={"symbol": "circle-open", "size": 28, "color": "#111111",
                    "line": {"width": 2}},
            customdata=[[selected]], hoverinfo="skip", showlegend=False,
            meta={"kind": "selected"}))
    if utility_ideal is not None:
        fig.add_hline(y=utility_ideal, line_dash="dot", line_color="#999999",
                      annotation_text=f"{utility_ideal:g} = ideal",
                      annotation_position="top left")
    fig.add_annotation(text="better ↙", xref="paper", yref="paper", x=0.0, y=0.0,
                       xanchor="left", yanchor="bottom", showarrow=False,
                       font={"color": "#555555", "size": 12})
    fig.update_layout(
        xaxis_title=risk_title, yaxis_title=utility_title, uirevision="risk-utility-map",
        legend={"orientation": "h", "y": -0.18}, margin={"t": 30, "b": 10}, height=520,
        hovermode="closest")
    return fig


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


__all__ = ["KIND_STYLE", "REFERENCE_KINDS", "map_table", "risk_utility_map",
           "selected_candidate"]
