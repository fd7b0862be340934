"""RAPID's per-record scores: the gain and error variants and the thresholds they take.

A categorical target gives each real record a gain (how much more confidently than the
class's prevalence the attacker names its true class); a continuous one gives it a
prediction error. This module computes both from the attackers' stored primitives and
owns the names of the variants, their default thresholds and the range a threshold may
take, once for the engine, the app and the command line.

Notes
-----
Templ, Thees & Müller, RAPID (``rapid-attribute-inference.md``) §2.3-§2.4;
``metric-reference.md`` §6 for the R package's variants.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ...validation import check_choice, check_in_range

if TYPE_CHECKING:
    from .result import RapidResult

CATEGORICAL_METHODS = ("marginal", "conditional", "nce")
ERROR_METRICS = ("relative", "absolute", "normalized", "symmetric")
DEFAULT_TAU = {"marginal": 0.3, "conditional": 1.0, "nce": 0.3}
# The range of τ per gain method, once for the engine, the app's slider and the command
# line: the marginal and NCE gains lie in [0, 1]; the conditional gain is a ratio to the
# base rate (the page's slider runs to 3).
TAU_RANGE = {"marginal": (0.0, 1.0), "conditional": (0.0, 3.0), "nce": (0.0, 1.0)}
DEFAULT_EPSILON = 0.10


def check_tau(tau: Any, method: str) -> float:
    """τ for a categorical gain method, range-checked (NaN and infinities refused)."""
    low, high = TAU_RANGE[check_choice("method", method, CATEGORICAL_METHODS)]
    return check_in_range("tau", tau, low, high)


def categorical_scores(
    g: np.ndarray, y_codes: np.ndarray, prevalence: np.ndarray, *, method: str, n_classes: int
) -> np.ndarray:
    """Per-record categorical RAPID scores from g (probability of the true class).

    ``g`` has the records on axis 0 (any trailing axes: attackers, replicates).
    """
    check_choice("method", method, CATEGORICAL_METHODS)
    b = prevalence[y_codes].reshape((-1,) + (1,) * (g.ndim - 1))
    if method == "marginal":
        return (g - b) / (1 - b)
    if method == "nce":
        return 1 + np.log(np.maximum(g, 1e-10)) / np.log(max(n_classes, 2))
    # conditional: baseline = mean predicted probability of class k among class-k records
    out = np.empty_like(g, dtype=float)
    for k in np.unique(y_codes):
        rows = y_codes == k
        bk = g[rows].mean(axis=0, keepdims=True)
        out[rows] = g[rows] / np.where(bk > 0, bk, np.nan)
    return out


def continuous_errors(
    y: np.ndarray, y_hat: np.ndarray, *, error: str, delta: float, scale: float
) -> np.ndarray:
    """Per-record continuous prediction errors (records on axis 0)."""
    check_choice("error", error, ERROR_METRICS)
    yy = y.reshape((-1,) + (1,) * (y_hat.ndim - 1))
    diff = np.abs(yy - y_hat)
    if error == "relative":
        return diff / (np.abs(yy) + delta)
    if error == "absolute":
        return diff
    if error == "normalized":
        return diff / (scale if scale > 0 else 1.0)
    return 2 * diff / (np.abs(yy) + np.abs(y_hat) + 2 * delta)


def rapid_from_scores(
    scores: Sequence[float] | np.ndarray, *, threshold: float, kind: str
) -> float:
    """RAPID for given per-record scores: share above tau (categorical) or below epsilon."""
    s = np.asarray(scores, dtype=float)
    flags = s > threshold if kind == "categorical" else s < threshold
    return float(flags.mean())


def scores_from_primitives(res: RapidResult, params: dict[str, Any]) -> np.ndarray:
    """Per-record scores (n, A, M) of the variant ``params`` names (``method`` for a
    categorical target, ``error`` and ``delta`` for a continuous one), from what the fit
    stored: the probability of the true class, or the prediction."""
    if res.kind == "categorical":
        return categorical_scores(
            cast(np.ndarray, res.g),
            res.y_true,
            res.prevalence,
            method=params["method"],
            n_classes=len(res.classes),
        )
    return continuous_errors(
        res.y_true,
        cast(np.ndarray, res.y_hat),
        error=params["error"],
        delta=params["delta"],
        scale=res.y_scale,
    )
