"""Statistics shared by every measure: intervals, bootstrap weights, baselines.

One place for each formula: Wilson and Clopper-Pearson intervals for proportions, the
percentile bootstrap over records (with weights drawn once so that a new threshold is a
single matrix product), and the control-baseline risk of Anonymeter / Giomi et al.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as _st

from .validation import check_in_range


def _z(confidence: float) -> float:
    return float(_st.norm.ppf((1 + confidence) / 2))


def wilson_interval(k: float, n: float, *, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for k successes out of n.

    Notes
    -----
    Wilson (1927); the form used by RAPID (``rapid-attribute-inference.md`` §2.5) and
    Anonymeter (``stats/confidence.py``).
    """
    check_in_range("confidence", confidence, 0, 1, low_inclusive=False, high_inclusive=False)
    if n <= 0:
        return (0.0, 1.0)
    z = _z(confidence)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def wilson_centre(k: float, n: float, *, confidence: float = 0.95) -> tuple[float, float]:
    """Anonymeter's Wilson point estimate and half-width, r = (k + z²/2)/(n + z²)."""
    z = _z(confidence)
    rate = (k + z * z / 2) / (n + z * z)
    err = z / (n + z * z) * math.sqrt(k * (n - k) / n + z * z / 4) if n > 0 else 1.0
    return rate, err


def clopper_pearson_interval(
    k: float, n: float, *, confidence: float = 0.95
) -> tuple[float, float]:
    """Exact (Clopper-Pearson, 1934) binomial interval."""
    check_in_range("confidence", confidence, 0, 1, low_inclusive=False, high_inclusive=False)
    if n <= 0:
        return (0.0, 1.0)
    alpha = 1 - confidence
    lo = 0.0 if k <= 0 else float(_st.beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k >= n else float(_st.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return (lo, hi)


def bootstrap_weights(n: int, n_boot: int, *, seed: int) -> np.ndarray:
    """Multinomial resampling counts, shape ``(n_boot, n)``, float32.

    Row b holds how often each record appears in bootstrap sample b, so the bootstrap
    mean of any per-record indicator vector I is ``weights @ I / n``: one matrix product
    per threshold, no refit and no resampling at slider time.
    """
    rng = np.random.default_rng(seed)
    if n_boot <= 0 or n <= 0:
        return np.zeros((0, max(n, 0)), dtype=np.float32)
    counts = rng.multinomial(n, np.full(n, 1.0 / n), size=n_boot)
    return counts.astype(np.float32)


def percentile_interval(samples: np.ndarray, *, confidence: float = 0.95, axis: int = 0
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval (2.5 and 97.5 percent for 95%; not 0.025 percent)."""
    a = (1 - confidence) / 2 * 100
    lo = np.nanpercentile(samples, a, axis=axis)
    hi = np.nanpercentile(samples, 100 - a, axis=axis)
    return lo, hi


def control_baseline_risk(attack_rate: float, control_rate: float) -> float:
    """Risk relative to the control (non-member) attack, R = (r_a - r_c) / (1 - r_c).

    Notes
    -----
    Giomi et al. (PoPETs 2023); ``metric-reference.md`` §2. Undefined (NaN) when the
    control attack always succeeds.
    """
    if control_rate >= 1:
        return float("nan")
    return (attack_rate - control_rate) / (1 - control_rate)


def mean_interval(values: np.ndarray, *, confidence: float = 0.95) -> tuple[float, float]:
    """Normal interval of a mean over replicates or folds, mean ± z·sd/√k."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return (float("nan"), float("nan"))
    if v.size == 1:
        return (float(v[0]), float(v[0]))
    half = _z(confidence) * float(np.std(v, ddof=1)) / math.sqrt(v.size)
    return (float(v.mean() - half), float(v.mean() + half))
