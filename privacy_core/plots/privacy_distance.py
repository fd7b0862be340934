"""Figures of the distance indicators: SRD against RRD, and the k-NN score curve.

Functions from result objects to plotly figures; nothing is computed here that the
result does not already hold (histogram counts aside).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from ..errors import ParameterError
from ..risk.distance import DcrResult, KnnResult
from ..validation import check_choice, check_positive_int

SRD_COLOUR = "#c0392b"
RRD_COLOUR = "#2c7fb8"


def percent_per_bin(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Percent of the finite ``values`` in each bin of ``edges`` (values beyond the ends
    counted in the end bins); zeros when no value is finite."""
    v = values[np.isfinite(values)]
    if v.size == 0:
        return np.zeros(len(edges) - 1)
    counts, _ = np.histogram(np.clip(v, edges[0], edges[-1]), bins=edges)
    return 100.0 * counts / v.size


def dcr_histogram(
    result: DcrResult, *, bins: int = 60, which: str = "measure", upper_quantile: float = 0.99
) -> go.Figure:
    """Overlaid histograms of SRD and RRD with the alpha-th RRD percentile as a line.

    Parameters
    ----------
    result
        A :func:`~privacy_core.risk.distance.dcr` result.
    bins
        Number of bins shared by both histograms.
    which
        ``measure``: the values the score compares (distances, or ratios for the ratio
        variant), with the threshold line; ``plain``: the nearest-training-record
        distances of synthetic and holdout records (no line unless they are the measure).
    upper_quantile
        The x axis ends at this quantile of both samples (x 1.05); larger values are
        counted in the last bin, so a long tail does not squash the informative left end.

    Returns
    -------
    plotly.graph_objects.Figure
        Two bar traces (``SRD`` and ``RRD``, percent of records per bin) and, for
        ``measure``, a vertical line at the threshold.
    """
    bins = check_positive_int("bins", bins)
    check_choice("which", which, ("measure", "plain"))
    if not 0 < upper_quantile <= 1:
        raise ParameterError(f"`upper_quantile` must be in (0, 1]; got {upper_quantile!r}.")
    if which == "measure":
        srd, rrd = np.asarray(result.srd, float), np.asarray(result.rrd, float)
    else:
        srd = np.asarray(result.dcr_synthetic, float)
        rrd = np.asarray(result.dcr_holdout, float)
    both = np.concatenate([srd[np.isfinite(srd)], rrd[np.isfinite(rrd)]])
    top = float(np.quantile(both, upper_quantile)) * 1.05 if both.size else 1.0
    top = top if top > 0 else 1.0
    edges = np.linspace(0.0, top, bins + 1)
    centres = (edges[:-1] + edges[1:]) / 2
    width = edges[1] - edges[0]
    is_ratio = which == "measure" and result.variant == "ratio"
    unit = "distance ratio" if is_ratio else "distance to the nearest training record"
    source = (
        "holdout" if result.params.get("rrd_source") == "holdout" else "split of the training data"
    )
    fig = go.Figure()
    fig.add_bar(
        x=centres,
        y=percent_per_bin(srd, edges),
        width=width,
        name="SRD (synthetic)",
        marker_color=SRD_COLOUR,
        opacity=0.6,
        hovertemplate="%{x:.4g}: %{y:.2f}% of synthetic records<extra></extra>",
    )
    fig.add_bar(
        x=centres,
        y=percent_per_bin(rrd, edges),
        width=width,
        name=f"RRD ({source})",
        marker_color=RRD_COLOUR,
        opacity=0.6,
        hovertemplate="%{x:.4g}: %{y:.2f}% of real records<extra></extra>",
    )
    show_line = which == "measure" or (result.variant == "distance" and result.k == 1)
    if show_line and np.isfinite(result.threshold):
        fig.add_vline(
            x=result.threshold,
            line_dash="dash",
            line_color="black",
            annotation_text=f"{result.alpha:g}% percentile of RRD (score {result.value:.3f})",
            annotation_position="top right",
        )
    fig.update_layout(
        barmode="overlay",
        bargap=0,
        xaxis_title=unit.capitalize(),
        yaxis_title="Percent of records",
        legend={"orientation": "h", "y": 1.12},
        margin={"l": 60, "r": 20, "t": 50, "b": 50},
    )
    return fig


def knn_curve(result: KnnResult) -> go.Figure:
    """The k-NN privacy score against k with its bootstrap interval and the zero line."""
    by_k = result.by_k
    err: dict[str, Any] = {
        "type": "data",
        "symmetric": False,
        "array": (by_k["upper"] - by_k["value"]).to_numpy(),
        "arrayminus": (by_k["value"] - by_k["lower"]).to_numpy(),
    }
    fig = go.Figure()
    fig.add_scatter(
        x=by_k["k"].astype(int).tolist(),
        y=by_k["value"],
        mode="lines+markers",
        name="score",
        error_y=err,
        marker_color=SRD_COLOUR,
        hovertemplate="k = %{x}: %{y:.3f}<extra></extra>",
    )
    fig.add_hline(y=0.0, line_dash="dot", line_color="grey")
    fig.update_layout(
        xaxis_title="k (neighbours averaged)",
        yaxis_title=f"Privacy-risk score at alpha = {result.alpha:g}%",
        xaxis={"dtick": 1},
        margin={"l": 60, "r": 20, "t": 30, "b": 50},
    )
    return fig
