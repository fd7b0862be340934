"""RAPID at one threshold: the rates, the envelope over attackers and their intervals.

Everything a fit stores (per-record scores, the bootstrap index) is re-aggregated here
into a :class:`~privacy_core.risk.rapid.result.RapidResult` at a threshold: the share of
records at risk per attacker and release, their mean and maximum, and the intervals of
both. No attacker is refitted; a new threshold costs a binary search per model column.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ...stats import clopper_pearson_interval, percentile_interval, wilson_interval
from .bootstrap import ThresholdBootstrap, bootstrap_rates

if TYPE_CHECKING:
    from .result import RapidResult

INTERVALS = ("bootstrap", "wilson", "clopper-pearson")


def aggregate(
    res: RapidResult,
    scores: np.ndarray,
    threshold: float,
    params: dict[str, Any],
    *,
    index: ThresholdBootstrap | None = None,
) -> RapidResult:
    """``res`` re-aggregated from per-record ``scores`` (n, A, M) at ``threshold``.

    The rate of each attacker (averaged over releases), their mean (``value``) and
    maximum (``rate_max``), and the Wilson, Clopper-Pearson and (with a bootstrap)
    percentile intervals; ``params["interval"]`` picks the one that becomes ``ci``.
    ``index``: the bootstrap index of ``scores`` when the caller holds one.
    """
    kind = res.kind
    n, n_att, n_rep = scores.shape
    if index is None:
        index = res.boot_index
        if res.boot_weights is not None and (index is None or scores is not res.scores):
            index = ThresholdBootstrap.build(res.boot_weights, scores.reshape(n, -1))
    if index is not None:
        # the index holds every column's scores sorted: a count is a binary search
        rep_rates = (index.counts(threshold, above=kind == "categorical") / n).reshape(n_att, n_rep)
    else:
        flags = scores > threshold if kind == "categorical" else scores < threshold
        rep_rates = flags.mean(axis=0)  # (A, M)
    att_rates = rep_rates.mean(axis=1)  # (A,)
    value = float(att_rates.mean())
    rate_max = float(att_rates.max())
    conf = params["confidence"]
    boot = bootstrap_rates(res, scores, threshold, index)
    k_mean = value * n
    intervals = {
        "wilson": wilson_interval(k_mean, n, confidence=conf),
        # the mean over attackers is a fractional count: the beta quantiles take it as is
        # (rounding it could move the exact interval inside Wilson's)
        "clopper-pearson": clopper_pearson_interval(k_mean, n, confidence=conf),
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
            by_attacker[a] = {
                "value": float(att_rates[j]),
                "ci": wilson_interval(att_rates[j] * n, n, confidence=conf),
            }
    # the attackers' predictive performance does not depend on the threshold
    perf = res.accuracy() if res.pred_code is not None or res.y_hat is not None else {}
    for a in by_attacker:
        by_attacker[a]["accuracy" if kind == "categorical" else "r2"] = perf.get(a)
    chosen = params["interval"] if params["interval"] in intervals else "wilson"
    params = {**params, "threshold": threshold}
    if kind == "categorical":
        params["tau"] = threshold
    else:
        params["epsilon"] = threshold
    return replace(
        res,
        value=value,
        ci=(intervals[chosen][0], intervals[chosen][1]),
        params=params,
        threshold=threshold,
        rate_max=rate_max,
        ci_max=ci_max,
        by_attacker=by_attacker,
        replicate_rates=rep_rates,
        intervals=intervals,
        scores=scores,
        boot_index=index,
    )
