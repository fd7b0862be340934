"""The RAPID result: one fit, re-aggregated at any threshold, score variant and interval.

:class:`RapidResult` keeps what the fit computed once (each attacker's per-record
probabilities or predictions, the bootstrap weights) and answers everything else from
it: :meth:`~RapidResult.at` for another threshold or variant, the threshold curve, the
per-record table, the breakdowns by class and subgroup, and the comparison of members
with non-members. Values that do not depend on the threshold are memoised per fit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np
import pandas as pd

from ...results import MetricResult, jsonable
from ...validation import check_choice, check_epsilon
from .aggregation import INTERVALS, aggregate
from .attribution import risk_by_class, risk_by_subgroup
from .bootstrap import ThresholdBootstrap
from .curves import default_thresholds, threshold_curve
from .members import members_vs_non_members
from .scores import (
    CATEGORICAL_METHODS,
    DEFAULT_TAU,
    ERROR_METRICS,
    check_tau,
    scores_from_primitives,
)


@dataclass(frozen=True, eq=False)
class RapidResult(MetricResult):
    """RAPID at one threshold, with everything needed to re-aggregate at another.

    ``value`` is the mean over attackers (each averaged over synthetic replicates);
    ``rate_max`` the conservative maximum envelope over attackers; ``ci`` the interval
    chosen by ``params["interval"]`` (percentile bootstrap over real records by default).

    The headline is ``rate_max`` (:attr:`headline`): §2.5 recommends evaluating strong
    learners and "reporting the maximum observed risk"; §2.4 asks for both the average and
    the envelope, so ``value`` stays the mean (the JSON contract's ``value``) and both are
    reported. ``by_attacker[a]`` holds each attacker's RAPID, interval and its accuracy
    on the real records (categorical; R² for continuous targets), as Table 1 and Fig. 5a
    report them next to each other (§4's joint utility-risk view).
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
    proba: np.ndarray | None = None  # (n, A, M, K) float32 class probabilities (null calibration)
    y_hat: np.ndarray | None = None  # (n, A, M) continuous predictions
    y_scale: float = 1.0
    importances: pd.DataFrame = field(default_factory=pd.DataFrame)
    boot_weights: np.ndarray | None = None  # (n, B) resampling counts, None if redrawn
    boot_index: ThresholdBootstrap | None = None
    scores: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0)))
    # Shared by every result re-aggregated from one fit (``at`` copies it by reference):
    # scores of another variant and threshold curves, computed once per fit, so a slider
    # step costs one aggregation rather than a curve of them (issue 13, item 5).
    memo: dict = field(default_factory=dict, repr=False, compare=False)
    # The same attackers applied to real records the generator never saw (consensus R7):
    # a RapidResult of its own, re-aggregated with this one (``at``).
    control: RapidResult | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------------ re-aggregation
    def at(
        self,
        threshold: float | None = None,
        *,
        method: str | None = None,
        error: str | None = None,
        interval: str | None = None,
    ) -> RapidResult:
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
            if (
                self.kind == "categorical"
                and method is not None
                and method != self.params["method"]
            ):
                threshold = DEFAULT_TAU[params["method"]]
        elif self.kind == "continuous":
            threshold = check_epsilon(threshold, error=params["error"], allow_zero=True)
        else:
            threshold = check_tau(threshold, params["method"])
        scores, index = self.scores, self.boot_index
        if (self.kind == "categorical" and params["method"] != self.params["method"]) or (
            self.kind == "continuous" and params["error"] != self.params["error"]
        ):
            variant = ("scores", params["method"], params["error"])
            scores = self.memoised(variant, lambda: scores_from_primitives(self, params))
            weights = self.boot_weights
            if weights is not None:
                # the sorted bootstrap index of a variant is built once per fit, not per
                # slider step (it is most of an aggregation's cost: issue 14)
                index = self.memoised(
                    ("index", params["method"], params["error"]),
                    lambda: ThresholdBootstrap.build(weights, scores.reshape(len(scores), -1)),
                )
        result = aggregate(self, scores, float(threshold), params, index=index)
        if self.control is not None:
            result = replace(
                result,
                control=self.control.at(
                    float(threshold), method=method, error=error, interval=interval
                ),
            )
        return result

    def members_vs_non_members(self) -> dict[str, Any] | None:
        """RAPID on the training records (members) against the same attackers on holdout
        records the generator never saw (non-members), and the difference: what the
        release discloses beyond the population's patterns (consensus R7). ``None``
        without a control.

        The headline attacker is the strongest on the members (the one behind
        ``rate_max``); each attacker's figures are in ``by_attacker``. The difference's
        interval is the percentile interval of the difference of independent bootstrap
        replicates of the two record sets, or Newcombe's hybrid score interval without a
        bootstrap.
        """
        return members_vs_non_members(self)

    def flags(self, threshold: float | None = None) -> np.ndarray:
        """Per-record, per-attacker, per-replicate at-risk indicators (n, A, M)."""
        t = self.threshold if threshold is None else threshold
        return self.scores > t if self.kind == "categorical" else self.scores < t

    def curve(self, thresholds: Sequence[float] | None = None) -> pd.DataFrame:
        """RAPID against the threshold: one row per (threshold, series).

        Series are each attacker, ``mean`` and ``max``; columns rate, lower, upper.
        """
        grid = default_thresholds(self) if thresholds is None else thresholds
        # the curve does not depend on the current threshold: one per fit and variant
        key = (
            "curve",
            tuple(float(t) for t in grid),
            tuple(sorted((k, repr(v)) for k, v in self.params.items() if k != "threshold")),
        )
        return self.memoised(key, lambda: threshold_curve(self, grid)).copy()

    def memoised(self, key: Any, build: Callable[[], Any]) -> Any:
        """``build()``, computed once per fit under ``key`` and shared by every result
        re-aggregated from it. Sessions of the app may share one fit (built-in data), so
        the value is taken from a local, never re-read after the bounded memo may have
        been cleared by another thread; two threads may build the same value once each."""
        value = self.memo.get(key)
        if value is None:
            value = build()
            if len(self.memo) > 64:  # e.g. a continuous curve's range follows ε
                self.memo.clear()
            self.memo[key] = value
        return value

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
        return self._records(slice(None))

    def records_top(self, k: int, *, only_at_risk: bool = True) -> pd.DataFrame:
        """The ``k`` riskiest rows of :attr:`records` (highest gain, or lowest error,
        first; ties in record order), optionally only those at risk: what a page lists,
        without building the table of every record on each slider step."""
        j = self.attackers.index(self.strongest_attacker)
        score = self.scores[:, j, :].mean(axis=1)
        # NaN sorts last either way (a record without a score is not at risk)
        order = np.argsort(-score if self.kind == "categorical" else score, kind="stable")
        if only_at_risk:
            order = order[self.at_risk[order]]
        return self._records(order[:k]).reset_index(drop=True)

    def _records(self, rows: slice | np.ndarray) -> pd.DataFrame:
        cat = self.kind == "categorical"
        per_att = self.scores[rows].mean(axis=2)  # (n, A)
        j = self.attackers.index(self.strongest_attacker)
        out = pd.DataFrame({"record": self.record_index[rows]})
        for c in self.quasi.columns:
            out[c] = self.quasi[c].to_numpy()[rows]
        y_true = self.y_true[rows]
        out["true"] = np.asarray(self.classes, dtype=object)[y_true] if cat else y_true
        out["score"] = per_att[:, j]
        out["at_risk"] = self.at_risk[rows]
        scores = self.scores[rows]
        flags = scores > self.threshold if cat else scores < self.threshold
        out["share_flagged"] = flags.mean(axis=(1, 2))
        if cat:
            codes = self.pred_code[rows, j, 0]  # type: ignore[index]
            out["prediction"] = np.asarray(self.classes, dtype=object)[codes]
            out["confidence"] = self.pred_conf[rows, j, 0]  # type: ignore[index]
            out["p_true"] = self.g[rows, j, 0]  # type: ignore[index]
        else:
            out["prediction"] = self.y_hat[rows, j, 0]  # type: ignore[index]
        for k, a in enumerate(self.attackers):
            out[f"score_{a}"] = per_att[:, k]
        return out

    @property
    def headline(self) -> dict[str, Any]:
        """The number to report (§2.5: the strongest attacker's RAPID, ``rate_max``)."""
        return {
            "aggregate": "max",
            "attacker": self.strongest_attacker,
            "value": self.rate_max,
            "ci": list(self.ci_max) if self.ci_max else None,
        }

    def accuracy(self) -> dict[str, float]:
        """Each attacker's accuracy on the real records (share of correct class
        predictions, averaged over releases); for a continuous target its R² instead."""
        # it does not depend on the threshold or the score variant: once per fit
        return dict(self.memoised("accuracy", self._accuracy))

    def _accuracy(self) -> dict[str, float]:
        if self.kind == "categorical":
            correct = cast(np.ndarray, self.pred_code) == self.y_true[:, None, None]
            per = correct.mean(axis=(0, 2))
        else:
            y = self.y_true[:, None, None]
            resid = ((y - self.y_hat) ** 2).sum(axis=0)
            total = float(((self.y_true - self.y_true.mean()) ** 2).sum())
            per = (
                (1 - resid / total).mean(axis=1)
                if total > 0
                else np.full(len(self.attackers), np.nan)
            )
        return {a: float(per[j]) for j, a in enumerate(self.attackers)}

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
        return risk_by_class(self, bins=bins)

    def by_subgroup(self, column: str, *, bins: int = 4) -> pd.DataFrame:
        """RAPID within the levels of one quasi-identifier (numeric ones in quantile bins)."""
        return risk_by_subgroup(self, column, bins=bins)

    def to_dict(
        self, *, include_records: bool = False, curve_thresholds: Sequence[float] | None = None
    ) -> dict[str, Any]:
        out = super().to_dict(include_records=False)
        curve = self.curve(curve_thresholds)
        mean_curve = curve[curve["series"] == "mean"]
        out.update(
            jsonable(
                {
                    "kind": self.kind,
                    "threshold": self.threshold,
                    "rate_max": self.rate_max,
                    "ci_max": list(self.ci_max) if self.ci_max else None,
                    "intervals": {k: list(v) for k, v in self.intervals.items()},
                    "headline": self.headline,
                    "by_attacker": {
                        a: {
                            "value": v["value"],
                            "ci": list(v["ci"]),
                            "accuracy": v.get("accuracy"),
                            "r2": v.get("r2"),
                        }
                        for a, v in self.by_attacker.items()
                    },
                    "replicates": {
                        "rates": self.replicate_rates.mean(axis=0).tolist(),
                        "sd": float(np.std(self.replicate_rates.mean(axis=0), ddof=1))
                        if self.replicate_rates.shape[1] > 1
                        else 0.0,
                    },
                    "curve": {
                        "thresholds": mean_curve["threshold"].tolist(),
                        "rate": mean_curve["rate"].tolist(),
                    },
                }
            )
        )
        gap = self.members_vs_non_members()
        if gap is not None:
            out.update(
                jsonable(
                    {
                        "members": gap["members"],
                        "non_members": gap["non_members"],
                        "difference": gap["difference"],
                        "members_vs_non_members": gap,
                    }
                )
            )
        if include_records:
            out["records"] = jsonable(self.records)
            if self.control is not None:
                out["non_member_records"] = jsonable(self.control.records)
        return out
