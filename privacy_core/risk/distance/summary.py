"""The DCR aggregates at one alpha: threshold, share below it, ratio, score and interval.

Both :func:`~privacy_core.risk.distance.dcr` and
:func:`~privacy_core.risk.distance.dcr_knn` store their distances once and aggregate
them here, at the alpha asked for or, through their results' ``at``, at any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...stats import bootstrap_percentile, bootstrap_share_below, child_seeds, percentile_interval
from ...validation import check_confidence, check_in_range

DEFAULT_ALPHA = 2.0


def check_alpha(alpha: float) -> float:
    """Alpha is a percentage strictly between 0 and 100."""
    return check_in_range("alpha", alpha, 0, 100, low_inclusive=False, high_inclusive=False)


def with_alpha(
    params: dict[str, Any], alpha: float | None, confidence: float | None
) -> dict[str, Any]:
    """A copy of a result's params with a new alpha and/or confidence, both validated."""
    out = dict(params)
    if alpha is not None:
        out["alpha"] = check_alpha(alpha)
    if confidence is not None:
        out["confidence"] = check_confidence(confidence)
    return out


def boot_seeds(seed: int) -> tuple[int, int]:
    """Two child seeds of ``seed``: the fallback split's and the bootstrap's (and, from
    the bootstrap's, the RRD and SRD resamples')."""
    a, b = child_seeds(seed, 2)
    return a, b


def finite_sorted(x: np.ndarray) -> np.ndarray:
    """The finite values of ``x``, sorted (what the aggregates are read from)."""
    return np.sort(x[np.isfinite(x)])


@dataclass(frozen=True)
class DcrSummary:
    """The DCR aggregates at one alpha."""

    score: float
    ratio: float
    share_below: float
    threshold: float
    ci: tuple[float, float] | None


def dcr_summary(
    srd_sorted: np.ndarray,
    rrd_sorted: np.ndarray,
    *,
    alpha: float,
    n_boot: int,
    boot_seed: int,
    confidence: float,
) -> DcrSummary:
    """Score, ratio, share and bootstrap interval from sorted SRD and RRD arrays.

    q = the alpha-th percentile of RRD (``numpy.percentile``, linear); p = share of SRD
    strictly below q; ratio = p / a and score = (p - a) / (1 - a) with a = alpha / 100.
    The interval resamples SRD and RRD independently (as the reference code does) and
    takes the 2.5 / 97.5 percentiles of the score (for 95%).
    """
    a = alpha / 100.0
    if srd_sorted.size == 0 or rrd_sorted.size == 0:
        return DcrSummary(float("nan"), float("nan"), float("nan"), float("nan"), None)
    q = float(np.percentile(rrd_sorted, alpha))
    p = float(np.searchsorted(srd_sorted, q, side="left") / srd_sorted.size)
    ci = None
    if n_boot > 0:
        s_rrd, s_srd = boot_seeds(boot_seed)
        q_b = bootstrap_percentile(rrd_sorted, alpha, n_boot=n_boot, seed=s_rrd, assume_sorted=True)
        p_b = bootstrap_share_below(srd_sorted, q_b, seed=s_srd, assume_sorted=True)
        lo, hi = percentile_interval((p_b - a) / (1 - a), confidence=confidence)
        ci = (float(lo), float(hi))
    return DcrSummary(score=(p - a) / (1 - a), ratio=p / a, share_below=p, threshold=q, ci=ci)
