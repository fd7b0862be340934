"""Figures for RAPID results."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..errors import ParameterError
from ..results import MetricResult
from ..risk.attackers import ATTACKER_LABELS
from ..risk.rapid import RapidCalibration, RapidResult

PALETTE = {
    "rf": "#1f77b4",
    "xgb": "#2ca02c",
    "cart": "#8c564b",
    "logit": "#9467bd",
    "mean": "#222222",
    "max": "#d62728",
    "null": "#ff7f0e",
}
RISK_COLOR = "#d62728"
SAFE_COLOR = "#7f7f7f"


def _threshold_label(result: RapidResult) -> str:
    return (
        "τ (normalised gain threshold)" if result.kind == "categorical" else "ε (error tolerance)"
    )


def _band(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, color: str, name: str) -> go.Scatter:
    rgba = _rgba(color, 0.15)
    return go.Scatter(
        x=np.concatenate([x, x[::-1]]),
        y=np.concatenate([hi, lo[::-1]]),
        fill="toself",
        fillcolor=rgba,
        line={"width": 0},
        hoverinfo="skip",
        name=f"{name} 95% interval",
        showlegend=False,
    )


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def _attacker_label(result: RapidResult, attacker: str) -> str:
    """The attacker's name with its accuracy (or R²) on the real records: Table 1 and
    Fig. 5a read RAPID next to it."""
    perf = result.by_attacker.get(attacker, {})
    label = ATTACKER_LABELS.get(attacker, attacker)
    if perf.get("accuracy") is not None:
        return f"{label} (accuracy {perf['accuracy']:.3f})"
    if perf.get("r2") is not None:
        return f"{label} (R² {perf['r2']:.3f})"
    return label


class FigureSpec(go.Figure):
    """A finished figure held as plain plotly data, for a page to draw as it is.

    Building or copying a ``go.Figure`` re-validates plotly's whole template (10-50 ms a
    figure), which a slider step must not pay for the parts that did not move: the RAPID
    page draws the cached spec of a figure with only the threshold marker and counts
    changed. Only serialisation is supported (``to_dict``, ``to_plotly_json``,
    ``to_json``: what ``st.plotly_chart`` and ``plotly.io`` call); ``go.Figure(spec)``
    gives a full figure back.
    """

    def __init__(self, spec: dict) -> None:  # no super().__init__(): that is the cost
        self._spec = spec

    def to_dict(self) -> dict:
        return self._spec

    def to_plotly_json(self) -> dict:
        return self._spec

    def to_json(self, *args, **kwargs) -> str:
        import plotly.io as pio

        return pio.to_json(self._spec, *args, **{"validate": False, **kwargs})

    def __repr__(self) -> str:
        return f"FigureSpec({len(self._spec.get('data', []))} traces)"


def _with_vline(spec: dict, x: float, *, dash: str, color: str, label: str | None = None) -> dict:
    """``spec`` (not modified) with a vertical line at ``x`` across the plot, labelled on
    top: what ``add_vline`` draws, as data."""
    layout = dict(spec.get("layout", {}))
    layout["shapes"] = [
        *layout.get("shapes", ()),
        {
            "type": "line",
            "x0": x,
            "x1": x,
            "xref": "x",
            "y0": 0,
            "y1": 1,
            "yref": "y domain",
            "line": {"color": color, "dash": dash},
        },
    ]
    if label is not None:
        layout["annotations"] = [
            *layout.get("annotations", ()),
            {
                "showarrow": False,
                "text": label,
                "x": x,
                "xanchor": "center",
                "xref": "x",
                "y": 1,
                "yanchor": "bottom",
                "yref": "y domain",
            },
        ]
    return {**spec, "layout": layout}


def rapid_threshold_curve(
    result: RapidResult,
    thresholds: Sequence[float] | None = None,
    *,
    suggested: float | None = None,
    null: RapidCalibration | None = None,
    spec: bool = False,
    marker: bool = True,
) -> go.Figure:
    """RAPID against the threshold: one line per attacker (labelled with its accuracy),
    the mean and the max envelope (the headline, §2.5), interval bands for the mean and
    max, and a marker at the current threshold (``marker=False`` leaves it out).

    With ``null`` (a ``null-rapid`` calibration at the same score variant) the null
    RAPID's median and its band up to the 95th percentile are drawn too, and the suggested
    threshold is the calibration's unless ``suggested`` is given. ``spec=True`` returns a
    :class:`FigureSpec` (a slider step's cost), otherwise a full ``go.Figure``. The live
    page draws ``spec=True, marker=False``: the same data at every step, which the
    browser does not redraw (80 ms of a 200 ms step; issue 13, item 5).
    """
    if null is not None and null.rule == "null-rapid" and suggested is None:
        suggested = null.suggested_threshold
    # Everything but the current-threshold marker is the same at every slider step:
    # built once per fit and score variant (issue 13, item 5).
    key = (
        "curve_figure",
        None if thresholds is None else tuple(map(float, thresholds)),
        _variant(result),
        null,
        None if suggested is None else float(suggested),
    )
    base, data = _memoised(result, key, lambda: _curve_base(result, thresholds, null, suggested))
    if not marker:
        return FigureSpec(data) if spec else go.Figure(base)
    label = f"current {result.threshold:.2f}"
    if spec:
        return FigureSpec(
            _with_vline(data, result.threshold, dash="dash", color="#555", label=label)
        )
    fig = go.Figure(base)  # a copy: the cached figure is shared by every step
    fig.add_vline(
        x=result.threshold,
        line_dash="dash",
        line_color="#555",
        annotation_text=label,
        annotation_position="top",
    )
    return fig


def _variant(result: RapidResult) -> tuple:
    return tuple(
        sorted(
            (k, repr(v))
            for k, v in result.params.items()
            if k not in ("threshold", "tau", "epsilon")
        )
    )


def _memoised(result: RapidResult, key: tuple, build) -> tuple[go.Figure, dict]:
    """A figure and its plain data, kept in the fit's memo (shared by every
    re-aggregation of one fit)."""

    def both() -> tuple[go.Figure, dict]:
        fig = build()
        return fig, fig.to_dict()

    return result.memoised(key, both)


def _curve_base(
    result: RapidResult,
    thresholds: Sequence[float] | None,
    null: RapidCalibration | None,
    suggested: float | None,
) -> go.Figure:
    curve = result.curve(thresholds)
    fig = go.Figure()
    if null is not None and null.rule == "null-rapid":
        band = null.band()
        x = band["threshold"].to_numpy()
        fig.add_trace(
            _band(
                x,
                band["null_lower"].to_numpy(),
                band["null_upper"].to_numpy(),
                PALETTE["null"],
                "null",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=band["null_median"],
                mode="lines",
                name=f"Null RAPID, y permuted (median, band to the {null.level:.0%} quantile)",
                line={"color": PALETTE["null"], "width": 2, "dash": "dash"},
                hovertemplate="%{y:.3f}",
            )
        )
    for series in ("mean", "max"):
        part = curve[curve["series"] == series]
        fig.add_trace(
            _band(
                part["threshold"].to_numpy(),
                part["lower"].to_numpy(),
                part["upper"].to_numpy(),
                PALETTE[series],
                series,
            )
        )
    for series in (*result.attackers, "mean", "max"):
        part = curve[curve["series"] == series]
        label = {"mean": "Mean of attackers", "max": "Max = headline (strongest attacker)"}.get(
            series
        ) or _attacker_label(result, series)
        fig.add_trace(
            go.Scatter(
                x=part["threshold"],
                y=part["rate"],
                mode="lines",
                name=label,
                line={
                    "color": PALETTE.get(series, "#444"),
                    "width": 3 if series in ("mean", "max") else 1.5,
                    "dash": "solid" if series in ("mean", "max") else "dot",
                },
                hovertemplate="%{y:.3f}",
            )
        )
    if suggested is not None and np.isfinite(suggested):
        fig.add_vline(
            x=suggested,
            line_dash="dot",
            line_color="#ff7f0e",
            annotation_text=f"suggested {suggested:.2f}",
            annotation_position="bottom right",
        )
    fig.update_layout(
        xaxis_title=_threshold_label(result),
        yaxis_title="RAPID (share of records at risk)",
        yaxis_range=[0, 1.02],
        legend={"orientation": "h", "y": -0.25},
        margin={"t": 30, "b": 10},
        height=420,
        hovermode="x unified",  # one read-out of every line at the hovered threshold
    )
    return fig


HISTOGRAM_BINS = 50


def rapid_score_histogram(result: RapidResult, *, spec: bool = False) -> go.Figure:
    """Distribution of per-record scores (the strongest attacker's), at-risk side coloured.
    ``spec=True`` returns a :class:`FigureSpec` (see :func:`rapid_threshold_curve`)."""
    j = result.attackers.index(result.strongest_attacker)
    # the strongest attacker's score averaged over releases, as ``records["score"]``
    score = result.scores[:, j, :].mean(axis=1).astype(float)
    finite = np.isfinite(score)
    # binned here, not in the browser: 50 bars instead of every record's score (a 50k-row
    # table would send ~0.7 MB of raw scores on every slider step)
    lo, hi = (float(score[finite].min()), float(score[finite].max())) if finite.any() else (0, 1)
    edges = np.linspace(lo, hi if hi > lo else lo + 1.0, HISTOGRAM_BINS + 1)
    at_risk = score > result.threshold if result.kind == "categorical" else score < result.threshold
    counts = [np.histogram(score[finite & (at_risk == flag)], edges)[0] for flag in (True, False)]
    key = ("histogram_figure", _variant(result), result.strongest_attacker)
    # the bars' layout depends on the scores only; a step moves counts and the marker
    base, data = _memoised(result, key, lambda: _histogram_base(result, edges))
    if spec:
        traces = [{**trace, "y": c} for trace, c in zip(data["data"], counts, strict=False)]
        return FigureSpec(
            _with_vline({**data, "data": traces}, result.threshold, dash="dash", color="#333")
        )
    fig = go.Figure(base)
    for trace, c in zip(fig.data, counts, strict=False):
        trace.y = c
    fig.add_vline(x=result.threshold, line_dash="dash", line_color="#333")
    return fig


def _histogram_base(result: RapidResult, edges: np.ndarray) -> go.Figure:
    centres, width = (edges[:-1] + edges[1:]) / 2, edges[1] - edges[0]
    fig = go.Figure()
    for color, name in ((RISK_COLOR, "at risk"), (SAFE_COLOR, "not at risk")):
        fig.add_trace(
            go.Bar(
                x=centres,
                y=np.zeros(len(centres), dtype=int),
                width=width,
                name=name,
                marker_color=color,
                opacity=0.8,
                hovertemplate="%{x:.3f}: %{y} records<extra>" + name + "</extra>",
            )
        )
    title = "normalised gain r_i" if result.kind == "categorical" else "prediction error e_i"
    fig.update_layout(
        barmode="stack",
        xaxis_title=f"Per-record {title} ({result.strongest_attacker}, the strongest attacker)",
        yaxis_title="records",
        height=320,
        margin={"t": 20, "b": 10},
        legend={"orientation": "h", "y": 1.1},
    )
    return fig


def _rate_bars(
    frame: pd.DataFrame, x: str, title: str, baseline_col: str | None = None
) -> go.Figure:
    err_plus = frame["upper"] - frame["rate"]
    err_minus = frame["rate"] - frame["lower"]
    fig = go.Figure(
        go.Bar(
            x=frame[x].astype(str),
            y=frame["rate"],
            marker_color="#1f77b4",
            name="RAPID",
            error_y={"type": "data", "array": err_plus, "arrayminus": err_minus},
            customdata=frame["n"],
            hovertemplate="%{x}: %{y:.3f} (n=%{customdata})<extra></extra>",
        )
    )
    if baseline_col is not None:
        fig.add_trace(
            go.Scatter(
                x=frame[x].astype(str),
                y=frame[baseline_col],
                mode="markers",
                marker={"symbol": "line-ew-open", "size": 30, "color": "#ff7f0e"},
                name="class prevalence b_k",
            )
        )
    fig.update_layout(
        yaxis_title="RAPID",
        yaxis_range=[0, 1.02],
        xaxis_title=title,
        height=320,
        margin={"t": 20, "b": 10},
        legend={"orientation": "h", "y": 1.12},
    )
    return fig


def rapid_by_class_figure(result: RapidResult) -> go.Figure:
    """RAPID stratified by true class (with its prevalence, the baseline, marked) or, for a
    continuous target, by quantile band of the true value."""
    if result.kind == "categorical":
        return _rate_bars(result.by_class(), "class", "true class", baseline_col="baseline")
    return _rate_bars(result.by_class(), "class", "true value (quantile band)")


def rapid_subgroup_figure(result: RapidResult, column: str) -> go.Figure:
    """RAPID within the levels of one quasi-identifier."""
    return _rate_bars(result.by_subgroup(column), "level", column)


def rapid_attribution_figure(coefficients: pd.DataFrame) -> go.Figure:
    """Log-odds coefficients of the at-risk flag on the quasi-identifiers."""
    frame = coefficients.sort_values("coefficient")
    labels = frame["column"] + ": " + frame["level"]
    colors = np.where(frame["coefficient"] > 0, RISK_COLOR, "#1f77b4")
    fig = go.Figure(
        go.Bar(
            x=frame["coefficient"],
            y=labels,
            orientation="h",
            marker_color=colors,
            customdata=frame["odds_ratio"],
            hovertemplate="%{y}<br>log-odds %{x:.2f} (odds ×%{customdata:.2f})<extra></extra>",
        )
    )
    fig.add_vline(x=0, line_color="#333")
    fig.update_layout(
        xaxis_title="effect on the odds of being at risk (log-odds)",
        height=max(260, 28 * len(frame) + 80),
        margin={"t": 20, "b": 10},
    )
    return fig


def rapid_importance_figure(result: RapidResult) -> go.Figure:
    """Attackers' feature importances summed back to quasi-identifiers."""
    imp = result.importances
    fig = go.Figure()
    for att in result.attackers:
        part = imp[imp["attacker"] == att]
        fig.add_trace(
            go.Bar(
                x=part["column"],
                y=part["importance"],
                name=ATTACKER_LABELS.get(att, att),
                marker_color=PALETTE.get(att),
            )
        )
    fig.update_layout(
        barmode="group",
        yaxis_title="share of importance",
        height=320,
        margin={"t": 20, "b": 10},
        legend={"orientation": "h", "y": 1.12},
    )
    return fig


def rapid_cv_figure(cv: MetricResult) -> go.Figure:
    """Per-fold RAPID of a synthesizer cross-validation with the mean and its interval."""
    folds = cv.require_records()
    fig = go.Figure(
        go.Bar(
            x=folds["fold"].astype(str), y=folds["rate"], marker_color="#1f77b4", name="fold RAPID"
        )
    )
    fig.add_hline(y=cv.value, line_color="#222", annotation_text=f"mean {cv.value:.3f}")
    if cv.ci is not None:
        fig.add_hrect(y0=cv.ci[0], y1=cv.ci[1], fillcolor="#222", opacity=0.1, line_width=0)
    fig.update_layout(
        xaxis_title="fold",
        yaxis_title="RAPID",
        yaxis_range=[0, 1.02],
        height=300,
        margin={"t": 20, "b": 10},
    )
    return fig


def rapid_attackers_figure(result: RapidResult) -> go.Figure:
    """Each attacker's RAPID (with its interval) next to its accuracy on the real records
    (R² for a continuous target): the paper's Table 1 / Fig. 5a pairing."""
    atts = list(result.attackers)
    labels = [ATTACKER_LABELS.get(a, a) for a in atts]
    rates = np.array([result.by_attacker[a]["value"] for a in atts])
    lo = np.array([result.by_attacker[a]["ci"][0] for a in atts])
    hi = np.array([result.by_attacker[a]["ci"][1] for a in atts])
    key = "accuracy" if result.kind == "categorical" else "r2"
    perf = [result.by_attacker[a].get(key) for a in atts]
    fig = go.Figure(
        go.Bar(
            x=labels,
            y=rates,
            name="RAPID",
            marker_color=RISK_COLOR,
            error_y={"type": "data", "array": hi - rates, "arrayminus": rates - lo},
            hovertemplate="%{x}: RAPID %{y:.3f}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Bar(
            x=labels,
            y=[np.nan if p is None else p for p in perf],
            name="accuracy" if key == "accuracy" else "R²",
            marker_color="#1f77b4",
            hovertemplate="%{x}: " + key + " %{y:.3f}<extra></extra>",
        )
    )
    fig.update_layout(
        barmode="group",
        yaxis_range=[0, 1.02],
        height=300,
        yaxis_title="share of real records",
        margin={"t": 20, "b": 10},
        legend={"orientation": "h", "y": 1.12},
    )
    return fig


def rapid_members_figure(result: RapidResult) -> go.Figure:
    """Members (training records) against non-members (holdout records) for each
    attacker, with intervals: the gap is what the release discloses about the people in
    it beyond what it says about anyone from the same population (consensus R7)."""
    gap = result.members_vs_non_members()
    if gap is None:
        raise ParameterError(
            "No holdout records were scored: load a holdout to compare members with non-members."
        )
    atts = list(result.attackers)
    labels = [ATTACKER_LABELS.get(a, a) for a in atts]
    fig = go.Figure()
    for role, color, name in (
        ("members", RISK_COLOR, "members (training records)"),
        ("non_members", SAFE_COLOR, "non-members (holdout)"),
    ):
        v = np.array([gap["by_attacker"][a][role] for a in atts])
        ci = np.array([gap["by_attacker"][a][f"{role}_ci"] for a in atts])
        fig.add_trace(
            go.Bar(
                x=labels,
                y=v,
                name=name,
                marker_color=color,
                error_y={"type": "data", "array": ci[:, 1] - v, "arrayminus": v - ci[:, 0]},
                hovertemplate="%{x}: %{y:.3f}<extra>" + name + "</extra>",
            )
        )
    fig.update_layout(
        barmode="group",
        yaxis_range=[0, 1.02],
        height=300,
        yaxis_title=f"RAPID at {_threshold_label(result).split(' ')[0]} = {result.threshold:.2f}",
        margin={"t": 20, "b": 10},
        legend={"orientation": "h", "y": 1.12},
    )
    return fig


def rapid_null_figure(calibration: RapidCalibration) -> go.Figure:
    """The permutation null: for the null-RAPID rule the observed RAPID against the null
    RAPID's band over the threshold grid; for the pooled-scores rule the distribution of
    per-record null scores."""
    if calibration.rule == "null-rapid":
        band = calibration.band()
        x = band["threshold"].to_numpy()
        fig = go.Figure(
            _band(
                x,
                band["null_lower"].to_numpy(),
                band["null_upper"].to_numpy(),
                PALETTE["null"],
                "null",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=band["null_upper"],
                mode="lines",
                name=f"null {calibration.level:.0%} quantile",
                line={"color": PALETTE["null"], "dash": "dash"},
            )
        )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=band["observed"],
                mode="lines+markers",
                name="observed RAPID (strongest attacker)",
                line={"color": PALETTE["max"]},
            )
        )
        if np.isfinite(calibration.suggested_threshold):
            fig.add_vline(
                x=calibration.suggested_threshold,
                line_color=PALETTE["null"],
                line_dash="dot",
                annotation_text="suggested threshold",
            )
        fig.update_layout(
            xaxis_title="threshold",
            yaxis_title="RAPID",
            yaxis_range=[0, 1.02],
            height=300,
            margin={"t": 20, "b": 10},
            legend={"orientation": "h", "y": 1.15},
        )
        return fig
    fig = go.Figure(go.Histogram(x=calibration.null_scores, nbinsx=60, marker_color=SAFE_COLOR))
    fig.add_vline(
        x=calibration.suggested_threshold,
        line_color="#ff7f0e",
        line_dash="dot",
        annotation_text="suggested threshold",
    )
    fig.update_layout(
        xaxis_title="per-record score with y permuted (no real signal)",
        yaxis_title="records",
        height=280,
        margin={"t": 20, "b": 10},
    )
    return fig
