"""RAPID's threshold from a permutation null, on a fitted result: the result type, the grid
and the label-permutation null that needs no refit.

:class:`RapidCalibration` holds a calibration (observed and null RAPID per grid
threshold, or pooled null scores) and suggests a threshold; :func:`rapid_null_calibration`
permutes the real records' sensitive values against a fit's fixed predictions. The
rules that refit the attackers are in :mod:`privacy_core.risk.rapid.permutation`.

Notes
-----
``rapid-attribute-inference.md`` §2.5; the authors' reference implementation,
``rapid_threshold_select`` in matthias-da/riskutility.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from ...errors import ParameterError
from ...results import jsonable
from ...validation import check_in_range, check_positive_int, check_seed
from .result import RapidResult
from .scores import categorical_scores, continuous_errors, rapid_from_scores

CALIBRATION_RULES = ("null-rapid", "pooled-scores")
# null-rapid refits the attackers per permutation (y permuted in the release): 20 refits;
# permuting the real labels against fixed predictions costs nothing per permutation: 199
# (the reference implementation's default); pooled-scores: its earlier 5 refits.
DEFAULT_PERMUTATIONS = {"null-rapid": 20, "pooled-scores": 5}
LABEL_PERMUTATIONS = 199
PERMUTE_MODES = ("release", "labels")
# Fewer permutations leave the 95th percentile of the null resting on its top one or two
# draws (with 19 it *is* the maximum).
MIN_NULL_PERMUTATIONS = 20


def calibration_grid(kind: str, method: str = "marginal") -> np.ndarray:
    """The thresholds the null-RAPID rule tests: the reference implementation's grid
    (tau 0.05, 0.10, ..., 0.95; epsilon 1 %, 3 %, ..., 49 % as proportions). The
    conditional ratio g/b_k lives around 1, so its grid runs 0.1, 0.2, ..., 3.0."""
    if kind == "continuous":
        return np.round(np.arange(0.01, 0.50, 0.02), 4)
    if method == "conditional":
        return np.round(np.arange(0.1, 3.0001, 0.1), 4)
    return np.round(np.arange(0.05, 0.9501, 0.05), 4)


@dataclass(frozen=True, eq=False)
class RapidCalibration:
    """A data-driven threshold from a permutation null (§2.5).

    ``rule="null-rapid"`` (default): ``observed`` is the headline RAPID (the strongest
    attacker's) at each grid threshold, ``null_rates`` (permutations x thresholds) the
    same RAPID with the real records' sensitive values permuted against the fixed
    predictions. ``suggested_threshold`` is the largest grid threshold at which the
    observed RAPID is above the ``level`` quantile of its null (NaN when there is none:
    the attackers do no better than predictions unrelated to the truth).

    ``rule="pooled-scores"`` (the earlier rule, kept as an option): ``null_scores`` pools
    the per-record scores of ``n_permutations`` refits on releases with y permuted, and
    the threshold is their ``level`` quantile (1 - ``level`` for errors).
    """

    suggested_threshold: float
    kind: str
    params: dict[str, Any]
    rule: str = "null-rapid"
    null_scores: np.ndarray = field(default_factory=lambda: np.zeros(0))
    thresholds: np.ndarray = field(default_factory=lambda: np.zeros(0))
    observed: np.ndarray = field(default_factory=lambda: np.zeros(0))
    null_rates: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))

    @property
    def level(self) -> float:
        return float(self.params["level"])

    def null_quantile(self, q: float | None = None) -> np.ndarray:
        """The null RAPID's q quantile (default ``level``) at each grid threshold."""
        return np.quantile(self.null_rates, self.level if q is None else q, axis=0)

    def band(self) -> pd.DataFrame:
        """Observed and null RAPID per grid threshold: null median, the central band up to
        the ``level`` quantile, and whether the observed RAPID is above that quantile."""
        if self.rule != "null-rapid":
            return pd.DataFrame(
                columns=[
                    "threshold",
                    "observed",
                    "null_median",
                    "null_lower",
                    "null_upper",
                    "significant",
                ]
            )
        upper = self.null_quantile()
        return pd.DataFrame(
            {
                "threshold": self.thresholds,
                "observed": self.observed,
                "null_median": self.null_quantile(0.5),
                "null_lower": self.null_quantile(1 - self.level),
                "null_upper": upper,
                "significant": self.observed > upper,
            }
        )

    def null_rate(self, threshold: float) -> float:
        """RAPID of a release that carries no information, at ``threshold``.

        null-rapid: the null's ``level`` quantile, linearly interpolated between grid
        thresholds (exact on the grid); pooled-scores: the share of pooled null scores
        beyond the threshold.
        """
        if self.rule == "null-rapid":
            return float(np.interp(threshold, self.thresholds, self.null_quantile()))
        return rapid_from_scores(self.null_scores, threshold=threshold, kind=self.kind)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "suggested_threshold": self.suggested_threshold,
            "kind": self.kind,
            "rule": self.rule,
            "params": self.params,
        }
        if self.rule == "null-rapid":
            out["curve"] = self.band().to_dict(orient="list")
        else:
            out["null_quantiles"] = {
                q: float(np.quantile(self.null_scores, q)) for q in (0.5, 0.9, 0.95, 0.99)
            }
        return jsonable(out)


def headline_rates(scores: np.ndarray, thresholds: np.ndarray, *, kind: str) -> np.ndarray:
    """The strongest attacker's RAPID (each attacker averaged over releases, then the max)
    at every threshold, from per-record scores (n, A, M): one sort per model column."""
    n, n_att, n_rep = scores.shape
    cols = np.sort(scores.reshape(n, -1), axis=0)  # NaN (undefined score) sorts last
    rates = np.empty((len(thresholds), cols.shape[1]))
    for c in range(cols.shape[1]):
        col = cols[:, c]
        if kind == "categorical":
            valid = int(np.isfinite(col).sum())
            rates[:, c] = (valid - np.searchsorted(col[:valid], thresholds, side="right")) / n
        else:
            rates[:, c] = np.searchsorted(col, thresholds, side="left") / n
    return rates.reshape(len(thresholds), n_att, n_rep).mean(axis=2).max(axis=1)


def largest_significant_threshold(
    grid: np.ndarray, observed: np.ndarray, null: np.ndarray, level: float
) -> float:
    """The paper's null-RAPID rule (§2.5): the largest grid threshold at which the observed
    RAPID is above the null's ``level`` quantile; NaN where none is."""
    significant = observed > np.quantile(null, level, axis=0)
    return float(grid[significant].max()) if significant.any() else float("nan")


def rapid_null_calibration(
    result: RapidResult,
    *,
    n_permutations: int = LABEL_PERMUTATIONS,
    level: float = 0.95,
    thresholds: Sequence[float] | None = None,
    seed: int = 0,
) -> RapidCalibration:
    """The paper's threshold rule on a fitted result, without refitting (``permute="labels"``).

    The real records' sensitive values are permuted ``n_permutations`` times against the
    attackers' fixed predictions (so predictions and truth are unrelated but every
    marginal is kept), and the headline RAPID is recomputed at each grid threshold. The
    suggested threshold is the largest one at which the observed RAPID is above the
    ``level`` quantile of this null.

    This null is narrower than the refit one (:func:`rapid_permutation_threshold`'s
    default ``permute="release"``): a model fitted to noise still agrees with the real
    labels by chance through the quasi-identifiers, which a label permutation removes, so
    a release of independent marginals can read as significant here (9 of 19 grid
    thresholds on 2,000 health records at kappa = 1, against 1 of 19 with refits).

    Notes
    -----
    ``rapid-attribute-inference.md`` §2.5 ("permute y, recompute RAPID, and choose the
    threshold placing observed risk above the 95th percentile of the resulting null
    distribution"). The construction (fit once, permute the real labels, 199
    permutations, grid 0.05-0.95, largest significant threshold) follows the authors'
    reference implementation, ``rapid_threshold_select`` in matthias-da/riskutility.
    """
    seed = check_seed(seed)
    n_permutations = check_positive_int(
        "n_permutations", n_permutations, minimum=MIN_NULL_PERMUTATIONS
    )
    check_in_range("level", level, 0, 1, low_inclusive=False, high_inclusive=False)
    if result.kind == "categorical" and result.proba is None:
        raise ParameterError(
            "This RAPID result holds no class probabilities; refit it with "
            "this version to calibrate the threshold."
        )
    method, error = result.params["method"], result.params["error"]
    grid = np.asarray(
        calibration_grid(result.kind, method)
        if thresholds is None
        else sorted(float(t) for t in thresholds),
        dtype=float,
    )
    if grid.size == 0:
        raise ParameterError("`thresholds` must hold at least one value.")
    rng = np.random.default_rng(seed)
    n = len(result.y_true)
    observed = headline_rates(result.scores, grid, kind=result.kind)
    null = np.empty((n_permutations, len(grid)))
    rows = np.arange(n)
    for p in range(n_permutations):
        y_perm = result.y_true[rng.permutation(n)]
        if result.kind == "categorical":
            g = result.proba[rows, :, :, y_perm].astype(float)  # type: ignore[index]
            scores = categorical_scores(
                g, y_perm, result.prevalence, method=method, n_classes=len(result.classes)
            )
        else:
            scores = continuous_errors(
                y_perm,
                cast(np.ndarray, result.y_hat),
                error=error,
                delta=result.params["delta"],
                scale=result.y_scale,
            )
        null[p] = headline_rates(scores, grid, kind=result.kind)
    return RapidCalibration(
        suggested_threshold=largest_significant_threshold(grid, observed, null, level),
        kind=result.kind,
        rule="null-rapid",
        thresholds=grid,
        observed=observed,
        null_rates=null,
        params={
            "rule": "null-rapid",
            "attackers": list(result.attackers),
            "series": "max",
            "n_permutations": n_permutations,
            "level": level,
            "method": method,
            "error": error,
            "seed": seed,
            "permuted": "real records' sensitive values against fixed predictions",
        },
    )
