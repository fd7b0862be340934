"""Statistics shared by every measure: intervals, bootstrap weights, baselines.

One place for each formula: Wilson and Clopper-Pearson intervals for proportions, the
percentile bootstrap over records (with weights drawn once so that a new threshold is a
single matrix product), and the control-baseline risk of Anonymeter / Giomi et al.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as _st

from .validation import check_confidence, check_in_range


# ---------------------------------------------------------------------------- seeds
# Every random step of a measure draws from its own child of the caller's seed (numpy's
# SeedSequence.spawn): steps are independent, and adding a step does not move the others.
def child_sequences(seed: int, n: int) -> list[np.random.SeedSequence]:
    """``n`` independent children of ``seed``."""
    return np.random.SeedSequence(seed).spawn(n)


def child_seeds(seed: int, n: int) -> list[int]:
    """``n`` independent integer seeds derived from ``seed`` (each a 32-bit draw of a child)."""
    return [int(s.generate_state(1)[0]) for s in child_sequences(seed, n)]


def child_rngs(seed: int, n: int) -> list[np.random.Generator]:
    """``n`` independent generators seeded by the children of ``seed``."""
    return [np.random.default_rng(s) for s in child_sequences(seed, n)]


def _z(confidence: float) -> float:
    return float(_st.norm.ppf((1 + confidence) / 2))


def wilson_interval(k: float, n: float, *, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for k successes out of n.

    Notes
    -----
    Wilson (1927); the form used by RAPID (``rapid-attribute-inference.md`` §2.5) and
    Anonymeter (``stats/confidence.py``).
    """
    check_confidence(confidence)
    if n <= 0:
        return (0.0, 1.0)
    z = _z(confidence)
    p = k / n
    if k <= 0 or k >= n:  # closed form at the edges, avoiding 1e-19 round-off
        edge = z * z / (n + z * z)
        return (0.0, edge) if k <= 0 else (1 - edge, 1.0)
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


def newcombe_difference_interval(
    k1: float, n1: float, k2: float, n2: float, *, confidence: float = 0.95
) -> tuple[float, float]:
    """Interval for p1 - p2 of two independent proportions: Newcombe's hybrid score
    method (1998, method 10), built from the two Wilson intervals; unlike the Wald
    interval it stays inside [-1, 1] and keeps its coverage near 0 and 1."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson_interval(k1, n1, confidence=confidence)
    l2, u2 = wilson_interval(k2, n2, confidence=confidence)
    d = p1 - p2
    return (
        float(d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)),
        float(d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)),
    )


def clopper_pearson_interval(
    k: float, n: float, *, confidence: float = 0.95
) -> tuple[float, float]:
    """Exact (Clopper-Pearson, 1934) binomial interval."""
    check_confidence(confidence)
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


POISSON_CHUNK = 65_536  # records per generator: fixed, so the weights depend on the seed only


def poisson_bootstrap_weights(n: int, n_boot: int, *, seed: int) -> np.ndarray:
    """Poisson(1) bootstrap weights, shape ``(n, n_boot)`` (records first), uint8.

    The Poisson bootstrap (Hanley & MacGibbon 2006; Chamandy et al. 2012) draws each
    record's count in each replicate independently instead of a multinomial over all n
    records: the same asymptotic intervals, but drawn in record chunks at a byte per
    weight, so a million records x 500 replicates is 500 MB drawn in seconds rather than
    a multinomial of a million categories per replicate. Rates are then weighted sums over
    each replicate's own total weight.
    """
    out = np.zeros((max(n, 0), max(n_boot, 0)), dtype=np.uint8)
    for c, start in enumerate(range(0, max(n, 0), POISSON_CHUNK)):
        stop = min(start + POISSON_CHUNK, n)
        rng = np.random.default_rng([seed, c])
        # P(Poisson(1) > 255) is below 1e-500: the cast never clips
        out[start:stop] = rng.poisson(1.0, size=(stop - start, n_boot))
    return out


def percentile_interval(
    samples: np.ndarray, *, confidence: float = 0.95, axis: int = 0
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
    """Student-t interval of a mean over replicates or folds, mean ± t_{k-1}·sd/√k.

    Parameters
    ----------
    values
        One value per replicate or fold; non-finite values are dropped first.
    confidence
        Coverage of the interval, in (0, 1).

    Returns
    -------
    tuple of float
        ``(lo, hi)``; ``(nan, nan)`` with no finite value, ``(v, v)`` with one.

    Notes
    -----
    The sd is estimated from the same k values, so the standardised mean follows a
    Student t with k - 1 degrees of freedom, not a normal: with k = 2, 3, 5 the normal
    quantile 1.96 covers only about 70 %, 81 % and 88 % instead of 95 %. The t quantile
    (12.71, 4.30, 2.78 at 95 %) restores the nominal coverage for normal replicates.
    Used for the average and variation over synthetic datasets of consensus R10
    (``consensus-privacy-framework.md`` §R10) and over cross-validation folds.
    """
    check_confidence(confidence)
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return (float("nan"), float("nan"))
    if v.size == 1:
        return (float(v[0]), float(v[0]))
    t = float(_st.t.ppf((1 + confidence) / 2, df=v.size - 1))
    half = t * float(np.std(v, ddof=1)) / math.sqrt(v.size)
    return (float(v.mean() - half), float(v.mean() + half))


def bootstrap_percentile(
    values: np.ndarray, q: float, *, n_boot: int, seed: int, assume_sorted: bool = False
) -> np.ndarray:
    """Bootstrap distribution of ``np.percentile(resample, q)``, drawn in O(n_boot).

    The q-th percentile (linear interpolation) of a resample of n values is fixed by two
    consecutive order statistics of the resample, at 0-based ranks lo and lo + 1. A draw
    of the resample is the sorted sample at position floor(n U) with U uniform, so the
    ranks' positions are floor(n U_(lo+1)) and floor(n U_(lo+2)) with U_(k) the k-th
    smallest of n uniforms: U_(k) ~ Beta(k, n - k + 1), and given U_(k) = u the next one
    is u + (1 - u) Beta(1, n - k). Drawing these two numbers per replicate gives exactly
    the distribution of the full bootstrap, with no resample materialised.

    Parameters
    ----------
    values
        The sample (finite values).
    q
        Percentile in [0, 100].
    n_boot
        Bootstrap replicates.
    seed
        Seed of the draws.
    assume_sorted
        ``values`` are already sorted ascending (skips a sort).

    Returns
    -------
    numpy.ndarray
        Shape ``(n_boot,)``.

    Notes
    -----
    Used by the DCR score (``contrastive-embeddings.md`` §3.3; ``metric-reference.md``
    §3a, whose bootstrap of the RRD percentile this reproduces without its 0.025 bug).
    """
    check_in_range("q", q, 0, 100)
    x = np.asarray(values, dtype=float)
    x = x if assume_sorted else np.sort(x)
    n = x.size
    if n == 0 or n_boot <= 0:
        return np.full(max(n_boot, 0), np.nan)
    h = (n - 1) * q / 100.0
    lo = min(math.floor(h), n - 1)
    frac = h - lo
    rng = np.random.default_rng(seed)
    k = lo + 1  # 1-based rank of the lower order statistic
    u_lo = rng.beta(k, n - k + 1, size=n_boot)
    pos_lo = np.minimum((n * u_lo).astype(np.int64), n - 1)
    if k < n:
        u_hi = u_lo + (1.0 - u_lo) * rng.beta(1, n - k, size=n_boot)
        pos_hi = np.minimum((n * u_hi).astype(np.int64), n - 1)
    else:
        pos_hi = pos_lo
    return x[pos_lo] + frac * (x[pos_hi] - x[pos_lo])


def bootstrap_share_below(
    values: np.ndarray, thresholds: np.ndarray, *, seed: int, assume_sorted: bool = False
) -> np.ndarray:
    """Bootstrap shares of a sample strictly below given thresholds, one per replicate.

    For replicate b with threshold ``thresholds[b]``, the count of a resample (of size n)
    below the threshold is Binomial(n, F(threshold)) with F the share of the original
    sample below it, which is drawn directly: exact, and O(n_boot log n).

    Returns
    -------
    numpy.ndarray
        Shape ``thresholds.shape``: the resampled shares.
    """
    x = np.asarray(values, dtype=float)
    x = x if assume_sorted else np.sort(x)
    t = np.asarray(thresholds, dtype=float)
    n = x.size
    if n == 0:
        return np.full(t.shape, np.nan)
    share = np.searchsorted(x, t, side="left") / n
    rng = np.random.default_rng(seed)
    return rng.binomial(n, share) / n


def bootstrap_auc(scores: np.ndarray, labels: np.ndarray, *, n_boot: int, seed: int) -> np.ndarray:
    """Stratified bootstrap of the ROC AUC (positives and negatives resampled apart).

    The AUC of a resample is the Mann-Whitney statistic with resampling counts as
    weights, computed from per-score-group counts (ties count one half), so no resample
    is materialised or re-sorted.

    Parameters
    ----------
    scores
        Higher means "more likely positive".
    labels
        1 for positives, 0 for negatives (both present).
    n_boot, seed
        Replicates and seed.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_boot,)``.
    """
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels).astype(bool)
    n1, n0 = int(y.sum()), int((~y).sum())
    if n1 == 0 or n0 == 0 or n_boot <= 0:
        return np.full(max(n_boot, 0), np.nan)
    order = np.argsort(s, kind="stable")
    s_sorted = s[order]
    group = np.concatenate([[0], np.cumsum(s_sorted[1:] != s_sorted[:-1])])
    n_groups = int(group[-1]) + 1
    g_pos = group[y[order]]
    g_neg = group[~y[order]]
    rng = np.random.default_rng(seed)
    out = np.empty(n_boot)
    chunk = max(1, min(n_boot, 20_000_000 // max(n_groups + n1 + n0, 1)))
    for start in range(0, n_boot, chunk):
        size = min(chunk, n_boot - start)
        rep1 = np.repeat(np.arange(size), n1)
        rep0 = np.repeat(np.arange(size), n0)
        pos = np.bincount(
            rep1 * n_groups + g_pos[rng.integers(0, n1, size=size * n1)], minlength=size * n_groups
        ).reshape(size, n_groups)
        neg = np.bincount(
            rep0 * n_groups + g_neg[rng.integers(0, n0, size=size * n0)], minlength=size * n_groups
        ).reshape(size, n_groups)
        out[start : start + size] = weighted_auc(pos, neg)
    return out


def weighted_auc(pos_counts: np.ndarray, neg_counts: np.ndarray) -> np.ndarray:
    """ROC AUC from positive / negative counts per ascending score group (last axis).

    AUC = sum_g P_g (N_<g + N_g / 2) / (P N): the Mann-Whitney form with ties at one half.
    """
    p = np.asarray(pos_counts, dtype=float)
    m = np.asarray(neg_counts, dtype=float)
    below = np.cumsum(m, axis=-1) - m
    num = (p * (below + 0.5 * m)).sum(axis=-1)
    return num / (p.sum(axis=-1) * m.sum(axis=-1))


def control_baseline_error(
    attack_rate: float, attack_error: float, control_rate: float, control_error: float
) -> float:
    """Propagated half-width of R = (r_a - r_c) / (1 - r_c).

    e_R = sqrt((e_a / |1 - r_c|)^2 + (e_c (r_a - 1) / (1 - r_c)^2)^2), first-order error
    propagation of the two (independent) Wilson half-widths; NaN when r_c = 1.

    Notes
    -----
    Giomi et al. (PoPETs 2023), Anonymeter ``stats/confidence.py::residual_success``;
    ``metric-reference.md`` §2.
    """
    if control_rate >= 1:
        return float("nan")
    d_attack = 1.0 / abs(1.0 - control_rate)
    d_control = (attack_rate - 1.0) / (1.0 - control_rate) ** 2
    return math.sqrt((attack_error * d_attack) ** 2 + (control_error * d_control) ** 2)


def bounded_estimate(
    value: float, error: float, *, low: float = 0.0, high: float = 1.0
) -> tuple[float, tuple[float, float]]:
    """Point estimate and interval value ± error, each clipped to [low, high].

    Clipping happens after the interval is formed, so a negative residual risk reads as
    0 with an interval that may still reach above 0 (Anonymeter's ``bind_value``).
    """

    def clip(x: float) -> float:
        return float(min(max(x, low), high))

    return clip(value), (clip(value - error), clip(value + error))


def bounded_interval(
    value: float, lo: float, hi: float, *, low: float = 0.0, high: float = 1.0
) -> tuple[float, tuple[float, float] | None]:
    """:func:`bounded_estimate` for an interval that is not symmetric (a percentile
    bootstrap, or one mapped through a monotone function): value and ends clipped to
    [low, high]; NaN value and None interval where they are not finite."""

    def clip(x: float) -> float:
        return float(min(max(x, low), high))

    out = clip(value) if math.isfinite(value) else float("nan")
    return out, ((clip(lo), clip(hi)) if math.isfinite(lo) and math.isfinite(hi) else None)


def kde_logpdf(
    kde: _st.gaussian_kde, points: np.ndarray, *, max_cells: int = 4_000_000
) -> np.ndarray:
    """``kde.logpdf(points)`` of a fitted ``scipy.stats.gaussian_kde``, exactly, in tiles of
    BLAS matrix products: both sets are whitened by the kernel covariance's Cholesky factor
    (so the kernel exponent is a squared Euclidean distance), the distances of a tile of
    points to every data point come from one GEMM, and a log-sum-exp over the data
    weights adds them up. scipy's own routine is a single-threaded loop; this one uses
    every BLAS thread and at most ``max_cells`` distances (8 bytes each) at a time.
    Equal to scipy's to rounding (``tests/unit/test_stats.py``)."""
    from scipy.linalg import solve_triangular

    pts = np.atleast_2d(np.asarray(points, dtype=np.float64))
    d = kde.d
    if pts.shape[0] != d:
        pts = pts.reshape(d, -1)
    chol = np.asarray(kde.cho_cov, dtype=np.float64)  # covariance = chol @ chol.T
    xs = solve_triangular(chol, kde.dataset, lower=True).T  # (n, d)
    zs = solve_triangular(chol, pts, lower=True).T  # (m, d)
    w = np.asarray(kde.weights, dtype=np.float64)
    uniform = bool(np.all(w == w[0]))
    # the kernel exponent's terms: -0.5 (|z|^2 + |x|^2 - 2 z.x) + log w_x
    x_term = -0.5 * np.einsum("ij,ij->i", xs, xs) + (0.0 if uniform else np.log(w))
    log_norm = float(np.log(np.diag(chol)).sum()) + 0.5 * d * math.log(2 * math.pi)
    out = np.empty(len(zs))
    step = max(1, max_cells // max(1, len(xs)))
    for start in range(0, len(zs), step):
        z = zs[start : start + step]
        arg = z @ xs.T  # in place from here: one (tile, n) buffer
        arg += x_term[None, :]
        arg -= 0.5 * np.einsum("ij,ij->i", z, z)[:, None]
        np.minimum(arg, np.log(w)[None, :] if not uniform else 0.0, out=arg)  # d2 >= 0
        top = arg.max(axis=1, keepdims=True)
        arg -= top
        np.exp(arg, out=arg)
        out[start : start + step] = np.log(arg.sum(axis=1)) + top[:, 0]
    if uniform:
        out += math.log(w[0])
    return out - log_norm
