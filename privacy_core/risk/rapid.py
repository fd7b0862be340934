"""RAPID: Risk of Attribute Prediction-Induced Disclosure.

An attacker trains a model on the release (quasi-identifiers -> sensitive attribute) and
applies it to every real record. A record is at risk when the prediction is confidently
correct beyond what the marginal distribution alone gives:

* categorical y: normalised gain r_i = (g_i - b_i) / (1 - b_i) > tau, with g_i the
  predicted probability of the true class and b_i the real prevalence of that class
  (``method="marginal"``, default tau 0.3); the R package's ``conditional`` (r_i = g_i /
  b_k with b_k the mean g over class k, default tau 1) and ``nce`` (normalised entropy,
  1 + log(g_i)/log K) variants are options;
* continuous y: error e_i < epsilon, with e_i relative |y - ŷ| / (|y| + delta)
  (default, epsilon 0.10), absolute, normalised by the SD of y, or symmetric. The paper
  states epsilon as a percentage ("10 %"); here it is a proportion (0.10), and 1 or more
  is rejected for the relative and symmetric errors
  (:func:`~privacy_core.validation.check_epsilon`).

RAPID = share of real records at risk. The expensive part (fitting the attackers on
each synthetic replicate) happens once in :func:`rapid`; thresholds, score variants and
intervals are re-aggregated by :meth:`RapidResult.at` from the stored per-record
probabilities / predictions and pre-drawn bootstrap weights: one matrix product.

Notes
-----
Templ, Thees & Müller, RAPID (``rapid-attribute-inference.md``) §2-§5;
``metric-reference.md`` §6 for the R package's variants.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, StratifiedKFold

from ..data import Schema
from ..encoding import TableEncoder
from ..errors import InsufficientDataError, ParameterError, UntrustworthyResultWarning
from ..inputs import prepare_review
from ..results import MetricResult, jsonable
from ..stats import (
    bootstrap_weights,
    clopper_pearson_interval,
    mean_interval,
    percentile_interval,
    wilson_interval,
)
from ..threat import ThreatModel
from ..validation import (
    check_choice,
    check_confidence,
    check_epsilon,
    check_in_range,
    check_positive_int,
    check_seed,
)
from .attackers import ATTACKER_LABELS, check_attackers, fit_predict

CATEGORICAL_METHODS = ("marginal", "conditional", "nce")
ERROR_METRICS = ("relative", "absolute", "normalized", "symmetric")
INTERVALS = ("bootstrap", "wilson", "clopper-pearson")
DEFAULT_TAU = {"marginal": 0.3, "conditional": 1.0, "nce": 0.3}
DEFAULT_EPSILON = 0.10
# Above this many stored bootstrap weights (B x n float32 = 4 bytes each) the weights
# are redrawn in chunks at each aggregation instead of kept: bounded memory on 1M rows.
_MAX_STORED_WEIGHTS = 60_000_000
ProgressFn = Callable[[float, str], None]


# ============================================================================ scores
def categorical_scores(g: np.ndarray, y_codes: np.ndarray, prevalence: np.ndarray,
                       *, method: str, n_classes: int) -> np.ndarray:
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


def continuous_errors(y: np.ndarray, y_hat: np.ndarray, *, error: str, delta: float,
                      scale: float) -> np.ndarray:
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


def rapid_from_scores(scores: Sequence[float], *, threshold: float, kind: str) -> float:
    """RAPID for given per-record scores: share above tau (categorical) or below epsilon."""
    s = np.asarray(scores, dtype=float)
    flags = s > threshold if kind == "categorical" else s < threshold
    return float(flags.mean())


# ============================================================================ bootstrap index
@dataclass(frozen=True, eq=False)
class ThresholdBootstrap:
    """Exact bootstrap rates of ``score > t`` (or ``< t``) for any threshold t, fast.

    Records are sorted by score once per model column, and the bootstrap weight rows
    (records x replicates) are summed at block boundaries of the sorted order. The rate
    at a threshold is then one prefix lookup plus the sum of at most one block of weight
    rows: a slider move touches kilobytes instead of the whole B x n weight matrix.
    """

    weights_t: np.ndarray  # (n, B) float32, resampling counts of each record
    order: np.ndarray  # (k, n) records sorted by score (ascending, NaN last)
    sorted_scores: np.ndarray  # (k, n)
    n_valid: np.ndarray  # (k,) non-NaN scores per column
    prefix: np.ndarray  # (k, n_blocks + 1, B) weight sums of the first j * block records
    block: int

    @classmethod
    def build(cls, weights_t: np.ndarray, scores2d: np.ndarray, *, block: int = 256
              ) -> ThresholdBootstrap:
        n, n_boot = weights_t.shape
        k = scores2d.shape[1]
        order = np.argsort(scores2d, axis=0, kind="stable").T.copy()
        sorted_scores = np.take_along_axis(scores2d.T, order, axis=1)
        n_blocks = n // block
        prefix = np.zeros((k, n_blocks + 1, n_boot), dtype=np.float64)
        for j in range(k):
            head = weights_t[order[j, : n_blocks * block]]
            sums = head.reshape(n_blocks, block, n_boot).sum(axis=1, dtype=np.float64)
            prefix[j, 1:] = np.cumsum(sums, axis=0)
        return cls(weights_t=weights_t, order=order, sorted_scores=sorted_scores,
                   n_valid=np.isfinite(sorted_scores).sum(axis=1), prefix=prefix, block=block)

    def _prefix_sum(self, j: int, p: int) -> np.ndarray:
        b = p // self.block
        rest = self.order[j, b * self.block: p]
        return self.prefix[j, b] + self.weights_t[rest].sum(axis=0, dtype=np.float64)

    def rates(self, threshold: float, *, above: bool) -> np.ndarray:
        """Bootstrap rates, shape (B, k), of score > threshold (above) or < threshold."""
        n = self.weights_t.shape[0]
        out = np.empty((self.weights_t.shape[1], self.order.shape[0]))
        for j in range(self.order.shape[0]):
            valid = self.sorted_scores[j, : self.n_valid[j]]
            if above:
                start = int(np.searchsorted(valid, threshold, side="right"))
                total = self._prefix_sum(j, int(self.n_valid[j]))
                out[:, j] = (total - self._prefix_sum(j, start)) / n
            else:
                end = int(np.searchsorted(valid, threshold, side="left"))
                out[:, j] = self._prefix_sum(j, end) / n
        return out


# ============================================================================ result
@dataclass(frozen=True, eq=False)
class RapidResult(MetricResult):
    """RAPID at one threshold, with everything needed to re-aggregate at another.

    ``value`` is the mean over attackers (each averaged over synthetic replicates);
    ``rate_max`` the conservative maximum envelope over attackers; ``ci`` the interval
    chosen by ``params["interval"]`` (percentile bootstrap over real records by default).
    """

    kind: str = "categorical"
    threshold: float = 0.3
    rate_max: float = float("nan")
    ci_max: tuple[float, float] | None = None
    by_attacker: dict[str, dict[str, Any]] = field(default_factory=dict)
    replicate_rates: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    attackers: tuple[str, ...] = ()
    # ----- stored per-record primitives (fitted once) -----
    record_index: np.ndarray = field(default_factory=lambda: np.zeros(0))
    quasi: pd.DataFrame = field(default_factory=pd.DataFrame)
    y_true: np.ndarray = field(default_factory=lambda: np.zeros(0))
    classes: tuple[str, ...] = ()
    prevalence: np.ndarray = field(default_factory=lambda: np.zeros(0))
    g: np.ndarray | None = None  # (n, A, M) probability of the true class
    pred_code: np.ndarray | None = None  # (n, A, M) predicted class code
    pred_conf: np.ndarray | None = None  # (n, A, M) probability of the predicted class
    y_hat: np.ndarray | None = None  # (n, A, M) continuous predictions
    y_scale: float = 1.0
    importances: pd.DataFrame = field(default_factory=pd.DataFrame)
    boot_weights: np.ndarray | None = None  # (n, B) resampling counts, None if redrawn
    boot_index: ThresholdBootstrap | None = None
    scores: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0)))

    # ------------------------------------------------------------------ re-aggregation
    def at(self, threshold: float | None = None, *, method: str | None = None,
           error: str | None = None, interval: str | None = None) -> RapidResult:
        """The same fitted evaluation at a new threshold / score variant (no refit).

        A continuous ``threshold`` is ε as a proportion (0.10 = 10 %), checked like
        :func:`rapid`'s ``epsilon``.
        """
        params = dict(self.params)
        if method is not None:
            params["method"] = check_choice("method", method, CATEGORICAL_METHODS)
        if error is not None:
            params["error"] = check_choice("error", error, ERROR_METRICS)
        if interval is not None:
            params["interval"] = check_choice("interval", interval, INTERVALS)
        if threshold is None:
            threshold = self.threshold
            if self.kind == "categorical" and method is not None and method != self.params["method"]:
                threshold = DEFAULT_TAU[params["method"]]
        elif self.kind == "continuous":
            threshold = check_epsilon(threshold, error=params["error"], allow_zero=True)
        scores = self.scores
        if (self.kind == "categorical" and params["method"] != self.params["method"]) or (
                self.kind == "continuous" and params["error"] != self.params["error"]):
            scores = _scores_from_primitives(self, params)
        return _aggregate(self, scores, float(threshold), params)

    def flags(self, threshold: float | None = None) -> np.ndarray:
        """Per-record, per-attacker, per-replicate at-risk indicators (n, A, M)."""
        t = self.threshold if threshold is None else threshold
        return self.scores > t if self.kind == "categorical" else self.scores < t

    def curve(self, thresholds: Sequence[float] | None = None) -> pd.DataFrame:
        """RAPID against the threshold: one row per (threshold, series).

        Series are each attacker, ``mean`` and ``max``; columns rate, lower, upper.
        """
        if thresholds is None:
            thresholds = default_thresholds(self)
        rows = []
        for t in thresholds:
            # Not self.at(): a curve may sweep the tolerance past 1 on purpose, and the
            # ε unit check guards values typed by a user, not a plotted axis.
            r = _aggregate(self, self.scores, float(t), dict(self.params))
            for a in self.attackers:
                rows.append((t, a, r.by_attacker[a]["value"], *r.by_attacker[a]["ci"]))
            rows.append((t, "mean", r.value, *(r.ci or (np.nan, np.nan))))
            rows.append((t, "max", r.rate_max, *(r.ci_max or (np.nan, np.nan))))
        return pd.DataFrame(rows, columns=["threshold", "series", "rate", "lower", "upper"])

    # ------------------------------------------------------------------ per record
    @property
    def records(self) -> pd.DataFrame:
        """One row per real record at the current threshold.

        ``score`` is the strongest attacker's score (the attacker with the highest RAPID
        at this threshold, :attr:`strongest_attacker`, averaged over replicates) and
        ``at_risk`` applies the threshold to it, so the records at risk are the ones that
        make up ``rate_max`` (paper §2.5: report the strongest attacker): with one release
        ``at_risk.sum() == rate_max * n`` exactly. ``prediction`` (and ``confidence``,
        ``p_true``) are that attacker's; ``score_<attacker>`` every attacker's score;
        ``share_flagged`` is the share of attacker x replicate fits that flag the record
        (its mean over records is the headline mean RAPID).
        """
        n = self.scores.shape[0]
        cat = self.kind == "categorical"
        per_att = self.scores.mean(axis=2)  # (n, A)
        j = self.attackers.index(self.strongest_attacker)
        out = pd.DataFrame({"record": self.record_index})
        for c in self.quasi.columns:
            out[c] = self.quasi[c].to_numpy()
        out["true"] = np.asarray(self.classes, dtype=object)[self.y_true] if cat else self.y_true
        out["score"] = per_att[:, j]
        out["at_risk"] = self.at_risk
        out["share_flagged"] = self.flags().mean(axis=(1, 2))
        if cat:
            codes = self.pred_code[:, j, 0]  # type: ignore[index]
            out["prediction"] = np.asarray(self.classes, dtype=object)[codes]
            out["confidence"] = self.pred_conf[:, j, 0]  # type: ignore[index]
            out["p_true"] = self.g[:, j, 0]  # type: ignore[index]
        else:
            out["prediction"] = self.y_hat[:, j, 0]  # type: ignore[index]
        for k, a in enumerate(self.attackers):
            out[f"score_{a}"] = per_att[:, k]
        return out

    @property
    def strongest_attacker(self) -> str:
        """The attacker whose RAPID is ``rate_max`` at this threshold (first on ties)."""
        if not self.by_attacker:
            return self.attackers[0]
        return max(self.attackers, key=lambda a: self.by_attacker[a]["value"])

    @property
    def at_risk(self) -> np.ndarray:
        """Per-record at-risk flags of the strongest attacker (its score averaged over
        replicates against the threshold): the records behind ``rate_max``."""
        j = self.attackers.index(self.strongest_attacker)
        score = self.scores[:, j, :].mean(axis=1)
        return score > self.threshold if self.kind == "categorical" else score < self.threshold

    @property
    def n_at_risk(self) -> int:
        """How many records the strongest attacker puts at risk (``rate_max * n`` with one
        release); the same count as ``records["at_risk"].sum()``."""
        return int(self.at_risk.sum())

    def by_class(self, *, bins: int = 4) -> pd.DataFrame:
        """RAPID stratified by the true value, with Wilson intervals.

        Categorical targets: one row per class, with its prevalence b_k as ``baseline``.
        Continuous targets: quantile bands of the true value (``bins`` of them).
        """
        share = self.flags().mean(axis=(1, 2))
        if self.kind == "categorical":
            groups = np.asarray(self.classes, dtype=object)[self.y_true]
            order = list(self.classes)
        else:
            groups = _level_strings(pd.qcut(self.y_true, q=bins, duplicates="drop"))
            order = list(pd.unique(groups[np.argsort(self.y_true, kind="stable")]))
        rows = []
        for level in order:
            sel = groups == level
            n_k = int(sel.sum())
            if n_k == 0:
                continue
            rate = float(share[sel].mean())
            lo, hi = wilson_interval(rate * n_k, n_k)
            row = {"class": level, "n": n_k, "rate": rate, "lower": lo, "upper": hi}
            if self.kind == "categorical":
                row["baseline"] = float(self.prevalence[self.classes.index(level)])
            rows.append(row)
        return pd.DataFrame(rows)

    def by_subgroup(self, column: str, *, bins: int = 4) -> pd.DataFrame:
        """RAPID within the levels of one quasi-identifier (numeric ones in quantile bins)."""
        if column not in self.quasi.columns:
            raise ParameterError(
                f"`column` must be a quasi-identifier ({', '.join(self.quasi.columns)}); got {column!r}."
            )
        share = self.flags().mean(axis=(1, 2))
        values = self.quasi[column]
        if pd.api.types.is_numeric_dtype(values.dtype):
            groups = _level_strings(pd.qcut(values.to_numpy(), q=bins, duplicates="drop"))
        else:
            groups = _level_strings(pd.Categorical(values.to_numpy()))
        frame = pd.DataFrame({"group": groups, "share": share})
        rows = []
        for level, part in frame.groupby("group", sort=True, observed=True):
            n_g = len(part)
            rate = float(part["share"].mean())
            lo, hi = wilson_interval(rate * n_g, n_g)
            rows.append({"column": column, "level": level, "n": n_g, "rate": rate,
                         "lower": lo, "upper": hi})
        return pd.DataFrame(rows)

    def to_dict(self, *, include_records: bool = False,
                curve_thresholds: Sequence[float] | None = None) -> dict[str, Any]:
        out = super().to_dict(include_records=False)
        curve = self.curve(curve_thresholds)
        mean_curve = curve[curve["series"] == "mean"]
        out.update(jsonable({
            "kind": self.kind,
            "threshold": self.threshold,
            "rate_max": self.rate_max,
            "ci_max": list(self.ci_max) if self.ci_max else None,
            "intervals": {k: list(v) for k, v in self.intervals.items()},
            "by_attacker": {a: {"value": v["value"], "ci": list(v["ci"])}
                            for a, v in self.by_attacker.items()},
            "replicates": {"rates": self.replicate_rates.mean(axis=0).tolist(),
                           "sd": float(np.std(self.replicate_rates.mean(axis=0), ddof=1))
                           if self.replicate_rates.shape[1] > 1 else 0.0},
            "curve": {"thresholds": mean_curve["threshold"].tolist(),
                      "rate": mean_curve["rate"].tolist()},
        }))
        if include_records:
            out["records"] = jsonable(self.records)
        return out


def _level_strings(cats: pd.Categorical) -> np.ndarray:
    """Each value's level as a string ("nan" for missing), converting only the distinct
    levels: a per-value string conversion costs ~0.1 s per view at 50k records."""
    labels = np.append(np.asarray(cats.categories.astype(str), dtype=object), "nan")
    return labels[np.where(cats.codes < 0, len(labels) - 1, cats.codes)]


def default_thresholds(result: RapidResult) -> np.ndarray:
    if result.kind == "categorical":
        if result.params["method"] == "conditional":
            hi = float(np.nanmax(result.scores)) if result.scores.size else 2.0
            return np.round(np.linspace(0, max(hi, 1.0), 41), 4)
        return np.round(np.linspace(0, 1, 41), 4)
    return np.round(np.linspace(0, max(0.5, 2 * result.threshold), 41), 4)


def _scores_from_primitives(res: RapidResult, params: dict[str, Any]) -> np.ndarray:
    if res.kind == "categorical":
        return categorical_scores(res.g, res.y_true, res.prevalence, method=params["method"],  # type: ignore[arg-type]
                                  n_classes=len(res.classes))
    return continuous_errors(res.y_true, res.y_hat, error=params["error"],  # type: ignore[arg-type]
                             delta=params["delta"], scale=res.y_scale)


def _bootstrap_rates(res: RapidResult, scores: np.ndarray, threshold: float,
                     index: ThresholdBootstrap | None) -> np.ndarray:
    """Bootstrap rates of the at-risk flag for every model column: shape (B, A*M)."""
    n = scores.shape[0]
    above = res.kind == "categorical"
    if index is not None:
        return index.rates(threshold, above=above)
    n_boot = int(res.params["bootstrap"])
    if n_boot == 0:
        return np.zeros((0, scores.shape[1] * scores.shape[2]))
    flags = (scores > threshold if above else scores < threshold).reshape(n, -1)
    f = flags.astype(np.float32)
    chunk = max(1, _MAX_STORED_WEIGHTS // max(n, 1))
    out = []
    for start in range(0, n_boot, chunk):
        size = min(chunk, n_boot - start)
        w = bootstrap_weights(n, size, seed=int(res.params["bootstrap_seed"]) + start)
        out.append((w @ f) / n)
    return np.vstack(out)


def _aggregate(res: RapidResult, scores: np.ndarray, threshold: float,
               params: dict[str, Any]) -> RapidResult:
    kind = res.kind
    flags = scores > threshold if kind == "categorical" else scores < threshold
    n, n_att, n_rep = flags.shape
    index = res.boot_index
    if res.boot_weights is not None and (index is None or scores is not res.scores):
        index = ThresholdBootstrap.build(res.boot_weights, scores.reshape(n, -1))
    rep_rates = flags.mean(axis=0)  # (A, M)
    att_rates = rep_rates.mean(axis=1)  # (A,)
    value = float(att_rates.mean())
    rate_max = float(att_rates.max())
    conf = params["confidence"]
    boot = _bootstrap_rates(res, scores, threshold, index)
    k_mean = value * n
    intervals = {
        "wilson": wilson_interval(k_mean, n, confidence=conf),
        "clopper-pearson": clopper_pearson_interval(round(k_mean), n, confidence=conf),
    }
    by_attacker: dict[str, dict[str, Any]] = {}
    if boot.shape[0] > 0:
        b = boot.reshape(-1, n_att, n_rep).mean(axis=2)  # (B, A)
        lo, hi = percentile_interval(b.mean(axis=1), confidence=conf)
        intervals["bootstrap"] = (float(lo), float(hi))
        lo_m, hi_m = percentile_interval(b.max(axis=1), confidence=conf)
        ci_max = (float(lo_m), float(hi_m))
        lo_a, hi_a = percentile_interval(b, confidence=conf)
        for j, a in enumerate(res.attackers):
            by_attacker[a] = {"value": float(att_rates[j]), "ci": (float(lo_a[j]), float(hi_a[j]))}
    else:
        ci_max = wilson_interval(rate_max * n, n, confidence=conf)
        for j, a in enumerate(res.attackers):
            by_attacker[a] = {"value": float(att_rates[j]),
                              "ci": wilson_interval(att_rates[j] * n, n, confidence=conf)}
    chosen = params["interval"] if params["interval"] in intervals else "wilson"
    params = {**params, "threshold": threshold}
    if kind == "categorical":
        params["tau"] = threshold
    else:
        params["epsilon"] = threshold
    return replace(res, value=value, ci=tuple(intervals[chosen]), params=params,  # type: ignore[arg-type]
                   threshold=threshold, rate_max=rate_max, ci_max=ci_max,
                   by_attacker=by_attacker, replicate_rates=rep_rates,
                   intervals=intervals, scores=scores, boot_index=index)


# ============================================================================ fitting
def rapid(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    schema: Schema | None = None,
    attackers: Sequence[str] | str = ("rf", "xgb", "logit"),
    tau: float | None = None,
    epsilon: float | None = None,
    method: str = "marginal",
    error: str = "relative",
    delta: float = 0.01,
    bootstrap: int = 500,
    interval: str = "bootstrap",
    confidence: float = 0.95,
    numeric_missing: str = "median",
    n_trees: int = 500,
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> RapidResult:
    """Fit the attacker suite on each synthetic release and score every real record.

    Parameters
    ----------
    real
        The original data (all of it is the target set, consensus R2).
    synthetic
        One release or several replicates of the same generator (averaged, R10).
    threat
        Quasi-identifiers (attacker's features) and the sensitive attribute (the first
        of ``threat.sensitive`` is the target).
    attackers
        Any of ``rf``, ``xgb``, ``logit`` (lasso for continuous targets).
    tau, epsilon
        Thresholds for categorical (gain above tau) / continuous (error below epsilon)
        targets; defaults 0.3 (1.0 for ``conditional``) and 0.10. ``epsilon`` is a
        proportion, not the paper's percentage: 0.10 means 10 %. For the ``relative``
        and ``symmetric`` errors it must be below 1 (a :class:`ParameterError` says so);
        for ``absolute`` it is in units of y, for ``normalized`` in SDs of y.
    method
        Categorical score: ``marginal`` (paper), ``conditional`` or ``nce``.
    error
        Continuous error: ``relative`` (paper), ``absolute``, ``normalized`` (by SD of
        y) or ``symmetric`` (R package default).
    delta
        Stabiliser of the relative / symmetric error denominators.
    bootstrap
        Percentile-bootstrap replicates over real records (0 to skip; no refit).
    interval
        Which interval becomes ``ci``: ``bootstrap``, ``wilson`` or ``clopper-pearson``.
    numeric_missing
        Missing numeric quasi-identifiers: ``median`` imputation or ``error``.
    n_trees
        Trees of the random-forest attacker (500 as in the paper).
    seed
        Seeds the attackers and the bootstrap; same inputs and seed, same numbers.

    Returns
    -------
    RapidResult

    Notes
    -----
    ``rapid-attribute-inference.md`` Algorithm 1 and §2.5.
    """
    seed = check_seed(seed)
    attackers = check_attackers(attackers)
    check_choice("method", method, CATEGORICAL_METHODS)
    check_choice("error", error, ERROR_METRICS)
    check_choice("interval", interval, INTERVALS)
    bootstrap = check_positive_int("bootstrap", bootstrap, minimum=0)
    n_trees = check_positive_int("n_trees", n_trees)
    check_confidence(confidence)
    check_in_range("delta", delta, 0, np.inf)
    data = prepare_review(real, synthetic, threat=threat, schema=schema, min_rows=10)
    target = threat.target
    qis = list(threat.quasi_identifiers)
    spec = data.schema[target]
    kind = "categorical" if spec.is_categorical else "continuous"
    if kind == "categorical":
        threshold = DEFAULT_TAU[method] if tau is None else float(tau)
    else:
        threshold = DEFAULT_EPSILON if epsilon is None else check_epsilon(epsilon, error=error)

    real_c = data.real
    targets_mask = np.ones(len(real_c), dtype=bool)
    if kind == "continuous":
        targets_mask = real_c[target].notna().to_numpy()
    targets = real_c[targets_mask]
    if len(targets) < 10:
        raise InsufficientDataError(
            f"Only {len(targets)} real record(s) have a value for {target!r}; RAPID needs 10."
        )
    encoder = TableEncoder(data.schema, columns=qis, numeric_missing=numeric_missing).fit(real_c)
    X_target = encoder.transform(targets)
    missing_counts = encoder.n_missing(real_c, qis)

    if kind == "categorical":
        classes = tuple(sorted(real_c[target].unique()))
        y_true = pd.Index(classes).get_indexer(targets[target]).astype(np.int64)
        prevalence = np.bincount(y_true, minlength=len(classes)) / len(y_true)
        y_scale = 1.0
    else:
        classes = ()
        y_true = targets[target].to_numpy(dtype=float)
        prevalence = np.zeros(0)
        y_scale = float(np.std(y_true, ddof=1)) if len(y_true) > 1 else 1.0

    n, n_att, n_rep = len(targets), len(attackers), len(data.synthetic)
    g = np.zeros((n, n_att, n_rep)) if kind == "categorical" else None
    pred_code = np.zeros((n, n_att, n_rep), dtype=np.int64) if kind == "categorical" else None
    pred_conf = np.zeros((n, n_att, n_rep)) if kind == "categorical" else None
    y_hat = np.zeros((n, n_att, n_rep)) if kind == "continuous" else None
    importance_rows = []
    child_seeds = np.random.SeedSequence(seed).spawn(n_rep * n_att + 1)
    dropped_rows = []
    total = n_rep * n_att
    step = 0
    for m, syn in enumerate(data.synthetic):
        if kind == "continuous":
            keep = syn[target].notna().to_numpy()
            dropped_rows.append(int((~keep).sum()))
            syn = syn[keep]
            if len(syn) < 10:
                raise InsufficientDataError(
                    f"Synthetic release #{m + 1} has {len(syn)} row(s) with a value for "
                    f"{target!r}; RAPID needs 10 to train an attacker."
                )
        X_syn = encoder.transform(syn)
        if kind == "categorical":
            y_syn = pd.Index(classes).get_indexer(syn[target]).astype(np.int64)
        else:
            y_syn = syn[target].to_numpy(dtype=float)
        for j, att in enumerate(attackers):
            if progress:
                progress(step / total, f"Fitting {ATTACKER_LABELS[att]} on release {m + 1}/{n_rep}")
            att_seed = int(child_seeds[m * n_att + j].generate_state(1)[0] % (2**31 - 1))
            out = fit_predict(att, X_syn, y_syn, X_target, categorical=kind == "categorical",
                              n_classes=len(classes), n_trees=n_trees, seed=att_seed)
            if kind == "categorical":
                g[:, j, m] = out.proba[np.arange(n), y_true]  # type: ignore[index]
                pred_code[:, j, m] = out.prediction  # type: ignore[index]
                pred_conf[:, j, m] = out.proba.max(axis=1)  # type: ignore[index, union-attr]
            else:
                y_hat[:, j, m] = out.prediction  # type: ignore[index]
            per_col = pd.Series(out.importance, index=encoder.feature_columns()).groupby(
                level=0, sort=False).sum()
            for col, imp in per_col.items():
                importance_rows.append({"attacker": att, "replicate": m, "column": col,
                                        "importance": float(imp)})
            step += 1
    if progress:
        progress(1.0, "Scoring records")

    boot_seed = int(child_seeds[-1].generate_state(1)[0])
    boot = np.ascontiguousarray(bootstrap_weights(n, bootstrap, seed=boot_seed).T) if (
        bootstrap and bootstrap * n <= _MAX_STORED_WEIGHTS) else None
    params = {
        "attackers": list(attackers), "quasi_identifiers": qis, "sensitive": target,
        "kind": kind, "method": method, "error": error, "delta": delta,
        "bootstrap": bootstrap, "bootstrap_seed": boot_seed, "interval": interval,
        "confidence": confidence, "numeric_missing": numeric_missing,
        "imputed_missing": missing_counts, "n_trees": n_trees, "seed": seed,
        "n_real": n, "n_synthetic": [len(s) for s in data.synthetic],
        "n_replicates": n_rep,
        "excluded_targets_missing_value": int((~targets_mask).sum()),
        "dropped_synthetic_rows_missing_target": dropped_rows,
    }
    importances = pd.DataFrame(importance_rows)
    if not importances.empty:
        importances = importances.groupby(["attacker", "column"], as_index=False, sort=False)[
            "importance"].mean()
    shell = RapidResult(
        name="rapid", value=float("nan"), ci=None, params=params, goal="lower",
        bounds=(0.0, 1.0), kind=kind, threshold=threshold, attackers=attackers,
        record_index=targets.index.to_numpy(), quasi=targets[qis].reset_index(drop=True),
        y_true=y_true, classes=classes, prevalence=prevalence, g=g, pred_code=pred_code,
        pred_conf=pred_conf, y_hat=y_hat, y_scale=y_scale, importances=importances,
        boot_weights=boot, scores=np.zeros((0, 0, 0)),
    )
    result = _aggregate(shell, _scores_from_primitives(shell, params), threshold, params)
    if kind == "categorical" and float(prevalence.max()) > 0.95:
        warnings.warn(
            f"{target!r} is dominated by one class ({prevalence.max():.1%}); RAPID's gains "
            "for the rare classes rest on few records.", UntrustworthyResultWarning, stacklevel=2)
    return result


# ============================================================================ attribution
def rapid_attribution(result: RapidResult, *, threshold: float | None = None) -> pd.DataFrame:
    """Which quasi-identifiers drive risk: logistic regression of the at-risk flag.

    The per-record envelope flag is regressed on the one-hot quasi-identifiers (first
    level of each categorical as reference, numerics standardised). Rows: column, level,
    coefficient (log-odds), odds_ratio. Empty when every record has the same flag.

    Notes
    -----
    ``rapid-attribution-inference.md`` §5.5 (Figure 6).
    """
    res = result if threshold is None else result.at(threshold)
    flags = res.records["at_risk"].to_numpy()
    if flags.all() or not flags.any():
        return pd.DataFrame(columns=["column", "level", "coefficient", "odds_ratio"])
    parts, names = [], []
    for col in res.quasi.columns:
        values = res.quasi[col]
        if pd.api.types.is_numeric_dtype(values.dtype):
            x = values.to_numpy(dtype=float)
            x = np.where(np.isnan(x), np.nanmedian(x), x)
            sd = x.std()
            parts.append(((x - x.mean()) / (sd if sd > 0 else 1.0))[:, None])
            names.append((col, "per SD"))
        else:
            levels = sorted(values.astype(str).unique())
            for lvl in levels[1:]:
                parts.append((values.astype(str).to_numpy() == lvl).astype(float)[:, None])
                names.append((col, f"{lvl} vs {levels[0]}"))
    X = np.hstack(parts)
    model = LogisticRegression(C=100.0, max_iter=1000)
    model.fit(X, flags.astype(int))
    coef = model.coef_[0]
    return pd.DataFrame({"column": [c for c, _ in names], "level": [lv for _, lv in names],
                         "coefficient": coef, "odds_ratio": np.exp(coef)})


# ============================================================================ calibration
@dataclass(frozen=True, eq=False)
class RapidCalibration:
    """Permutation null of per-record RAPID scores and the suggested threshold."""

    suggested_threshold: float
    kind: str
    null_scores: np.ndarray
    params: dict[str, Any]

    def null_rate(self, threshold: float) -> float:
        return rapid_from_scores(self.null_scores, threshold=threshold, kind=self.kind)

    def to_dict(self) -> dict[str, Any]:
        return jsonable({"suggested_threshold": self.suggested_threshold, "kind": self.kind,
                         "params": self.params,
                         "null_quantiles": {q: float(np.quantile(self.null_scores, q))
                                            for q in (0.5, 0.9, 0.95, 0.99)}})


def rapid_permutation_threshold(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    schema: Schema | None = None,
    attacker: str = "rf",
    n_permutations: int = 5,
    method: str = "marginal",
    error: str = "relative",
    delta: float = 0.01,
    n_trees: int = 200,
    level: float = 0.95,
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> RapidCalibration:
    """Data-driven threshold: permute y in the release, refit, read the null scores.

    Permuting the sensitive attribute breaks its link to the quasi-identifiers, so the
    attacker's scores on real records show what "no information" looks like. The suggested
    threshold is the ``level`` quantile of the pooled null gains (categorical) or the
    1 - ``level`` quantile of the null errors (continuous): at it, a release that leaks
    nothing flags about 5% of records.

    Notes
    -----
    ``rapid-attribute-inference.md`` §2.5 ("permute y, recompute RAPID ...").
    """
    seed = check_seed(seed)
    n_permutations = check_positive_int("n_permutations", n_permutations)
    check_in_range("level", level, 0, 1, low_inclusive=False, high_inclusive=False)
    rng = np.random.default_rng(seed)
    releases = [synthetic] if isinstance(synthetic, pd.DataFrame) else list(synthetic)
    target = threat.target
    pooled = []
    kind = "categorical"
    for p in range(n_permutations):
        if progress:
            progress(p / n_permutations, f"Permutation {p + 1}/{n_permutations}")
        permuted = []
        for syn in releases:
            s = syn.copy()
            s[target] = s[target].to_numpy()[rng.permutation(len(s))]
            permuted.append(s)
        res = rapid(real, permuted, threat=threat, schema=schema, attackers=(attacker,),
                    method=method, error=error, delta=delta, bootstrap=0, n_trees=n_trees,
                    seed=int(rng.integers(2**31 - 1)))
        kind = res.kind
        pooled.append(res.scores.ravel())
    if progress:
        progress(1.0, "Done")
    null = np.concatenate(pooled)
    null = null[np.isfinite(null)]
    q = float(np.quantile(null, level if kind == "categorical" else 1 - level))
    return RapidCalibration(
        suggested_threshold=q, kind=kind, null_scores=null,
        params={"attacker": attacker, "n_permutations": n_permutations, "level": level,
                "method": method, "error": error, "n_trees": n_trees, "seed": seed},
    )


# ============================================================================ synthesizer CV
def rapid_synthesizer_cv(
    real: pd.DataFrame,
    *,
    threat: ThreatModel,
    schema: Schema | None = None,
    generator: str = "cart",
    generator_params: dict[str, Any] | None = None,
    k: int = 5,
    attackers: Sequence[str] | str = ("rf",),
    tau: float | None = None,
    epsilon: float | None = None,
    method: str = "marginal",
    error: str = "relative",
    n_trees: int = 500,
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> MetricResult:
    """Expected RAPID of a generator by k-fold cross-validation.

    Each fold: synthesise from the other k - 1 folds (stratified by y when categorical)
    with a built-in generator, evaluate RAPID on the held-out fold. ``value`` is the mean
    fold rate, ``ci`` the Student-t interval mean ± t_{k-1} sd / sqrt(k)
    (:func:`privacy_core.stats.mean_interval`); ``records`` holds one row per fold.

    Notes
    -----
    ``rapid-attribute-inference.md`` §2.5 ("Evaluating Synthetic Data Generators");
    the R package's ``rapid_synthesizer_cv``.
    """
    from ..synth import make_generator

    seed = check_seed(seed)
    k = check_positive_int("k", k, minimum=2)
    data = prepare_review(real, real, threat=threat, schema=schema, min_rows=2)
    real_c = data.real.reset_index(drop=True)
    target = threat.target
    categorical = data.schema[target].is_categorical
    if not categorical and epsilon is not None:
        check_epsilon(epsilon, error=error)  # before k refits, not inside the first fold
    if len(real_c) < 2 * k:
        raise InsufficientDataError(
            f"{k}-fold cross-validation needs at least {2 * k} rows; the real table has {len(real_c)}."
        )
    if categorical:
        counts = real_c[target].value_counts()
        if counts.min() < k:
            raise InsufficientDataError(
                f"Class {counts.idxmin()!r} of {target!r} has {int(counts.min())} record(s), "
                f"fewer than the {k} folds of a stratified split; lower k or merge rare classes."
            )
        splitter = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
        splits = list(splitter.split(real_c, real_c[target]))
    else:
        splits = list(KFold(n_splits=k, shuffle=True, random_state=seed).split(real_c))
    rows = []
    for f, (train_idx, test_idx) in enumerate(splits):
        if progress:
            progress(f / k, f"Fold {f + 1}/{k}: synthesising and attacking")
        train = real_c.iloc[train_idx]
        test = real_c.iloc[test_idx]
        gen = make_generator(generator, **(generator_params or {})).fit(train, seed=seed + f)
        syn = gen.sample(len(train), seed=seed + f)
        res = rapid(test, syn, threat=threat, schema=data.schema, attackers=attackers,
                    tau=tau, epsilon=epsilon, method=method, error=error, bootstrap=0,
                    n_trees=n_trees, seed=seed + f)
        rows.append({"fold": f + 1, "n_train": len(train), "n_test": len(test),
                     "rate": res.value, "rate_max": res.rate_max})
    if progress:
        progress(1.0, "Done")
    folds = pd.DataFrame(rows)
    rates = folds["rate"].to_numpy()
    return MetricResult(
        name="rapid_cv", value=float(rates.mean()), ci=mean_interval(rates), record_table=folds,
        params={"generator": generator, "generator_params": generator_params or {}, "k": k,
                "attackers": list(check_attackers(attackers)), "method": method, "error": error,
                "tau": tau, "epsilon": epsilon, "n_trees": n_trees, "seed": seed,
                "stratified": categorical},
        extra={"sd": float(rates.std(ddof=1)), "se": float(rates.std(ddof=1) / np.sqrt(k)),
               "median": float(np.median(rates)), "min": float(rates.min()),
               "max": float(rates.max())},
    )
