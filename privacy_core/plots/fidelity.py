"""Figures for fidelity and utility results (Wasserstein, MLA, query error, discriminator).

Functions from result objects to plotly figures; :func:`marginal_overlay` takes the
tables themselves (a marginal is drawn from data, not from a distance).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..data import Schema
from ..errors import ParameterError
from ..fidelity import FAMILIES, WassersteinResult
from ..inputs import prepare_release_tables
from ..measures import measure_label
from ..results import MetricResult
from ..utility import EVALUATOR_LABELS

REAL_COLOR = "#1f77b4"
SYNTHETIC_COLOR = "#ff7f0e"
FAMILY_COLORS = {
    "cat": "#8c564b",
    "num": "#17becf",
    "cat-cat": "#9467bd",
    "num-num": "#2ca02c",
    "cat-num": "#d62728",
}
FAMILY_LABELS = {
    "cat": "categorical",
    "num": "numeric",
    "cat-cat": "categorical pair",
    "num-num": "numeric pair",
    "cat-num": "mixed pair",
}
BASELINE_STYLE = {
    "half": ("HALF (two real halves)", "#2ca02c", "diamond"),
    "histogram": ("HISTOGRAM (independent columns)", "#7f7f7f", "x"),
}
FIDELITY_MEASURES = ("wasserstein", "mla", "query_error", "discriminator")


# ============================================================================ Wasserstein
def fidelity_pair_heatmap(result: WassersteinResult) -> go.Figure:
    """Heatmap of the 2-way marginal distances (columns × columns), darker = worse."""
    mat = result.pair_matrix()
    text = mat.map(lambda v: "" if pd.isna(v) else f"{v:.3f}")
    fig = go.Figure(
        go.Heatmap(
            z=mat.to_numpy(),
            x=list(mat.columns),
            y=list(mat.index),
            colorscale="Reds",
            zmin=0,
            text=text.to_numpy(),
            texttemplate="%{text}" if len(mat) <= 12 else None,
            colorbar={"title": "distance"},
            hoverongaps=False,
            hovertemplate="%{y} × %{x}<br>distance %{z:.4f}<extra></extra>",
        )
    )
    fig.update_layout(
        xaxis={"side": "bottom", "tickangle": -45},
        yaxis={"autorange": "reversed"},
        margin={"t": 30, "b": 10},
        height=max(360, 32 * len(mat) + 140),
    )
    return fig


def fidelity_worst_marginals(
    result: WassersteinResult, k: int = 15, *, ways: int | None = None
) -> go.Figure:
    """Horizontal bars of the ``k`` marginals farthest from the real data, by family."""
    worst = result.worst(k, ways=ways).iloc[::-1]
    fig = go.Figure()
    for fam in FAMILIES:
        part = worst[worst["family"] == fam]
        if part.empty:
            continue
        err = None
        if part["sd"].notna().any():
            err = {"type": "data", "array": part["sd"].fillna(0).to_numpy(), "visible": True}
        fig.add_trace(
            go.Bar(
                x=part["distance"],
                y=part["marginal"].str.replace("|", " × ", regex=False),
                orientation="h",
                name=FAMILY_LABELS[fam],
                marker_color=FAMILY_COLORS[fam],
                error_x=err,
                hovertemplate="%{y}<br>distance %{x:.4f}<extra></extra>",
            )
        )
    fig.update_layout(
        xaxis_title="Wasserstein distance (lower is better)",
        barmode="overlay",
        yaxis={
            "categoryorder": "array",
            "categoryarray": worst["marginal"].str.replace("|", " × ", regex=False).tolist(),
        },
        legend={"orientation": "h", "y": -0.2},
        margin={"t": 30, "b": 10},
        height=max(320, 24 * len(worst) + 120),
    )
    return fig


def fidelity_family_figure(result: WassersteinResult) -> go.Figure:
    """Mean distance per marginal family, with every marginal as a point."""
    table = result.require_records()
    fig = go.Figure()
    for fam, mean in result.extra["families"].items():
        part = table[table["family"] == fam]
        fig.add_trace(
            go.Box(
                y=part["distance"],
                name=FAMILY_LABELS[fam],
                marker_color=FAMILY_COLORS[fam],
                boxpoints="all",
                jitter=0.4,
                pointpos=0,
                text=part["marginal"],
                hovertemplate="%{text}<br>%{y:.4f}<extra></extra>",
                showlegend=False,
            )
        )
        fig.add_trace(
            go.Scatter(
                x=[FAMILY_LABELS[fam]],
                y=[mean],
                mode="markers",
                marker={"symbol": "line-ew-open", "size": 30, "color": "#222"},
                name="family mean",
                showlegend=False,
                hovertemplate=f"mean {mean:.4f}<extra></extra>",
            )
        )
    fig.update_layout(
        yaxis_title="distance", yaxis_rangemode="tozero", margin={"t": 30, "b": 10}, height=380
    )
    return fig


# ============================================================================ overlays
def marginal_overlay(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    columns: str | Sequence[str],
    *,
    schema: Schema | None = None,
    bins: int = 30,
    max_levels: int = 30,
) -> go.Figure:
    """Real against synthetic for one marginal.

    One numeric column: overlaid histograms on shared bins (proportions). One categorical
    column: grouped bars of level proportions. Two columns: the joint distribution as
    heatmaps (real, synthetic, and synthetic − real), numerics in ``bins`` equal-width bins
    over the real ∪ synthetic range, categoricals by level (the ``max_levels`` most frequent
    real levels, the rest pooled as "other").
    """
    cols = [columns] if isinstance(columns, str) else list(columns)
    if len(cols) not in (1, 2):
        raise ParameterError(f"`columns` must name one or two columns; got {cols!r}.")
    data = prepare_release_tables(real, synthetic, schema=schema, min_rows=1)
    for c in cols:
        if c not in data.schema.included:
            raise ParameterError(
                f"Column {c!r} is not an included column; choose from "
                f"{', '.join(data.schema.included)}."
            )
    r, s = data.real, data.synthetic[0]
    if len(cols) == 1:
        c = cols[0]
        if data.schema[c].is_numeric:
            return _numeric_overlay(r[c], s[c], c, bins)
        return _categorical_overlay(r[c], s[c], c, max_levels)
    return _pair_heatmaps(r, s, cols, data.schema, bins, max_levels)


def _numeric_overlay(real: pd.Series, syn: pd.Series, name: str, bins: int) -> go.Figure:
    x_r = real.dropna().to_numpy(dtype=float)
    x_s = syn.dropna().to_numpy(dtype=float)
    both = np.concatenate([x_r, x_s])
    edges = np.histogram_bin_edges(both, bins=bins) if both.size else np.array([0.0, 1.0])
    fig = go.Figure()
    for x, label, color in ((x_r, "real", REAL_COLOR), (x_s, "synthetic", SYNTHETIC_COLOR)):
        counts, _ = np.histogram(x, bins=edges)
        share = counts / max(counts.sum(), 1)
        fig.add_trace(
            go.Bar(
                x=(edges[:-1] + edges[1:]) / 2,
                y=share,
                width=np.diff(edges),
                name=label,
                marker_color=color,
                opacity=0.55,
                hovertemplate="%{x:.4g}<br>%{y:.3f}<extra>" + label + "</extra>",
            )
        )
    missing = (real.isna().mean(), syn.isna().mean())
    title = (
        name
        if max(missing) == 0
        else f"{name} (missing: real {missing[0]:.1%}, synthetic {missing[1]:.1%})"
    )
    fig.update_layout(
        barmode="overlay",
        xaxis_title=title,
        yaxis_title="share of records",
        legend={"orientation": "h", "y": -0.2},
        margin={"t": 30, "b": 10},
        height=380,
    )
    return fig


def _levels(real: pd.Series, max_levels: int) -> list[str]:
    order = real.value_counts().index.astype(str).tolist()
    return order[:max_levels]


def _pooled(values: pd.Series, levels: list[str]) -> pd.Series:
    v = values.astype(str)
    return v.where(v.isin(levels), "other")


def _categorical_overlay(real: pd.Series, syn: pd.Series, name: str, max_levels: int) -> go.Figure:
    levels = _levels(real, max_levels)
    r, s = _pooled(real, levels), _pooled(syn, levels)
    cats = levels + (["other"] if (r == "other").any() or (s == "other").any() else [])
    fig = go.Figure()
    for v, label, color in ((r, "real", REAL_COLOR), (s, "synthetic", SYNTHETIC_COLOR)):
        share = v.value_counts(normalize=True).reindex(cats, fill_value=0.0)
        fig.add_trace(
            go.Bar(
                x=cats,
                y=share.to_numpy(),
                name=label,
                marker_color=color,
                hovertemplate="%{x}<br>%{y:.3f}<extra>" + label + "</extra>",
            )
        )
    fig.update_layout(
        barmode="group",
        xaxis_title=name,
        yaxis_title="share of records",
        legend={"orientation": "h", "y": -0.25},
        margin={"t": 30, "b": 10},
        height=380,
    )
    return fig


def _axis_codes(
    real: pd.Series, syn: pd.Series, numeric: bool, bins: int, max_levels: int
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Bin / level codes of both tables on a shared axis (missing as its own bin)."""
    if numeric:
        both = pd.concat([real, syn]).dropna().to_numpy(dtype=float)
        edges = np.histogram_bin_edges(both, bins=bins) if both.size else np.array([0.0, 1.0])
        labels = [f"{a:.4g}–{b:.4g}" for a, b in zip(edges[:-1], edges[1:], strict=True)]

        def code(x: pd.Series) -> np.ndarray:
            v = x.to_numpy(dtype=float)
            c = np.clip(np.searchsorted(edges, v, side="right") - 1, 0, len(edges) - 2)
            return np.where(np.isnan(v), len(labels), c)

        has_missing = real.isna().any() or syn.isna().any()
        return code(real), code(syn), labels + (["missing"] if has_missing else [])
    levels = _levels(real, max_levels)
    r, s = _pooled(real, levels), _pooled(syn, levels)
    cats = levels + (["other"] if (r == "other").any() or (s == "other").any() else [])
    index = pd.Index(cats)
    return index.get_indexer(r), index.get_indexer(s), cats


def _pair_heatmaps(
    real: pd.DataFrame,
    syn: pd.DataFrame,
    cols: list[str],
    schema: Schema,
    bins: int,
    max_levels: int,
) -> go.Figure:
    a, b = cols
    ra, sa, la = _axis_codes(real[a], syn[a], schema[a].is_numeric, bins, max_levels)
    rb, sb, lb = _axis_codes(real[b], syn[b], schema[b].is_numeric, bins, max_levels)

    def joint(ca: np.ndarray, cb: np.ndarray) -> np.ndarray:
        counts = np.bincount(cb * len(la) + ca, minlength=len(la) * len(lb)).astype(float)
        return (counts / max(counts.sum(), 1)).reshape(len(lb), len(la))

    p_r, p_s = joint(ra, rb), joint(sa, sb)
    top = float(max(p_r.max(), p_s.max(), 1e-12))
    diff = p_s - p_r
    span = float(max(np.abs(diff).max(), 1e-12))
    fig = make_subplots(
        rows=1,
        cols=3,
        shared_yaxes=True,
        horizontal_spacing=0.04,
        subplot_titles=("real", "synthetic", "synthetic − real"),
    )
    hover = f"{a} %{{x}}<br>{b} %{{y}}<br>%{{z:.4f}}<extra></extra>"
    fig.add_trace(
        go.Heatmap(
            z=p_r,
            x=la,
            y=lb,
            colorscale="Blues",
            zmin=0,
            zmax=top,
            showscale=False,
            hovertemplate=hover,
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Heatmap(
            z=p_s,
            x=la,
            y=lb,
            colorscale="Blues",
            zmin=0,
            zmax=top,
            showscale=False,
            hovertemplate=hover,
        ),
        row=1,
        col=2,
    )
    fig.add_trace(
        go.Heatmap(
            z=diff,
            x=la,
            y=lb,
            colorscale="RdBu_r",
            zmin=-span,
            zmax=span,
            colorbar={"title": "Δ share"},
            hovertemplate=hover,
        ),
        row=1,
        col=3,
    )
    for i in (1, 2, 3):
        fig.update_xaxes(title_text=a, row=1, col=i, tickangle=-45)
    fig.update_yaxes(title_text=b, row=1, col=1)
    fig.update_layout(margin={"t": 40, "b": 10}, height=440)
    return fig


# ============================================================================ utility
def utility_by_evaluator(result: MetricResult) -> go.Figure:
    """Each evaluator's test score when trained on real vs on synthetic data (MLA).

    Bars show the score (weighted F1 or RMSE, on the real holdout); the label above each
    pair is the evaluator's relative gap with its bootstrap interval.
    """
    table = result.records
    if table is None or table.empty:
        return go.Figure()
    agg = (
        table.groupby("evaluator", sort=False)
        .agg(
            score_real=("score_real", "first"),
            score_synthetic=("score_synthetic", "mean"),
            gap=("gap", "mean"),
        )
        .reset_index()
    )
    labels = [EVALUATOR_LABELS.get(e, e) for e in agg["evaluator"]]
    score = result.extra.get("score", "score")
    score_label = {
        "f1_weighted": "weighted F1 (higher is better)",
        "rmse": "RMSE (lower is better)",
    }.get(score, score)
    by_eval = result.extra.get("by_evaluator", {})
    text = []
    for e, g in zip(agg["evaluator"], agg["gap"], strict=True):
        ci = by_eval.get(e, {}).get("ci")
        text.append(f"gap {g:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""))
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            x=labels,
            y=agg["score_real"],
            name="trained on real",
            marker_color=REAL_COLOR,
            hovertemplate="%{x}<br>%{y:.4f}<extra>trained on real</extra>",
        )
    )
    fig.add_trace(
        go.Bar(
            x=labels,
            y=agg["score_synthetic"],
            name="trained on synthetic",
            marker_color=SYNTHETIC_COLOR,
            text=text,
            textposition="outside",
            hovertemplate="%{x}<br>%{y:.4f}<extra>trained on synthetic</extra>",
        )
    )
    top = float(np.nanmax(agg[["score_real", "score_synthetic"]].to_numpy()))
    fig.update_layout(
        barmode="group",
        yaxis_title=f"{score_label} on the real holdout",
        yaxis_range=[0, top * 1.2 if np.isfinite(top) and top > 0 else 1],
        legend={"orientation": "h", "y": -0.2},
        margin={"t": 30, "b": 10},
        height=400,
    )
    return fig


def query_error_figure(result: MetricResult) -> go.Figure:
    """Per-query absolute errors by query order k, with err_k marked."""
    table = result.records
    fig = go.Figure()
    if table is None or table.empty:
        return fig
    for k, part in table.groupby("k", sort=True):
        fig.add_trace(
            go.Box(
                y=part["error"],
                name=f"{k}-way",
                boxpoints="outliers",
                marker_color="#555",
                text=part["condition"],
                hovertemplate="%{text}<br>error %{y:.4f}<extra></extra>",
                boxmean=True,
                showlegend=False,
            )
        )
    fig.update_layout(
        yaxis_title="|real share − synthetic share| per query",
        yaxis_rangemode="tozero",
        margin={"t": 30, "b": 10},
        height=380,
    )
    return fig


def discriminator_importance(result: MetricResult, k: int = 15) -> go.Figure:
    """Which columns let the discriminator tell real from synthetic (share of gain)."""
    imp = (
        pd.Series(result.extra.get("importance", {}), dtype=float)
        .sort_values(ascending=False)
        .head(k)
        .iloc[::-1]
    )
    fig = go.Figure(
        go.Bar(
            x=imp.to_numpy(),
            y=imp.index.tolist(),
            orientation="h",
            marker_color=SYNTHETIC_COLOR,
            hovertemplate="%{y}<br>%{x:.3f}<extra></extra>",
        )
    )
    fig.update_layout(
        xaxis_title="share of the classifier's gain",
        title={"text": f"AUC {result.value:.3f} (0.5 = indistinguishable)", "x": 0.01},
        margin={"t": 40, "b": 10},
        height=max(300, 24 * len(imp) + 100),
    )
    return fig


# ============================================================================ references
def fidelity_reference_figure(
    results: Mapping[str, Mapping[str, MetricResult]],
    *,
    metrics: Sequence[str] | None = None,
) -> go.Figure:
    """Each release's headline per measure next to the HALF / HISTOGRAM references.

    ``results`` maps a release name to its ``{measure: result}``; the names ``half`` and
    ``histogram`` (as :func:`privacy_core.references.fidelity_baselines` returns them) are
    drawn as reference markers. One panel per measure, each with its own scale; whiskers
    are the intervals.
    """
    names = list(results)
    present = [m for m in FIDELITY_MEASURES if any(m in results[n] for n in names)]
    chosen = [m for m in (metrics or present) if m in present]
    if not chosen:
        return go.Figure()
    fig = make_subplots(rows=1, cols=len(chosen), subplot_titles=[measure_label(m) for m in chosen])
    palette = ["#ff7f0e", "#1f77b4", "#9467bd", "#8c564b", "#e377c2", "#bcbd22"]
    shown: set[str] = set()
    releases = [n for n in names if n not in BASELINE_STYLE]
    order = releases + [n for n in names if n in BASELINE_STYLE]
    for j, metric in enumerate(chosen, start=1):
        for name in order:
            res = results[name].get(metric)
            if res is None:
                continue
            if name in BASELINE_STYLE:
                label, color, symbol = BASELINE_STYLE[name]
            else:
                label, color, symbol = name, palette[releases.index(name) % len(palette)], "circle"
            err = None
            if res.ci is not None and all(np.isfinite(res.ci)):
                err = {
                    "type": "data",
                    "symmetric": False,
                    "array": [max(res.ci[1] - res.value, 0)],
                    "arrayminus": [max(res.value - res.ci[0], 0)],
                }
            fig.add_trace(
                go.Scatter(
                    x=[label],
                    y=[res.value],
                    mode="markers",
                    error_y=err,
                    name=label,
                    marker={"color": color, "symbol": symbol, "size": 12},
                    legendgroup=label,
                    showlegend=label not in shown,
                    hovertemplate=f"{label}<br>{measure_label(metric)} %{{y:.4f}}<extra></extra>",
                ),
                row=1,
                col=j,
            )
            shown.add(label)
        if metric == "discriminator":
            fig.add_hline(y=0.5, line_dash="dot", line_color="#999", row=1, col=j)
        fig.update_xaxes(showticklabels=False, row=1, col=j)
        fig.update_yaxes(rangemode="tozero", row=1, col=j)
    fig.update_layout(legend={"orientation": "h", "y": -0.1}, margin={"t": 40, "b": 10}, height=380)
    return fig


__all__ = [
    "fidelity_pair_heatmap",
    "fidelity_worst_marginals",
    "fidelity_family_figure",
    "marginal_overlay",
    "utility_by_evaluator",
    "query_error_figure",
    "discriminator_importance",
    "fidelity_reference_figure",
]
