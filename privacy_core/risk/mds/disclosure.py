"""From the shadows' distances to disclosure: per-record scores and the MDS readings.

:func:`disclosure_scores` gives each record the paper's DS (|mean IN − mean OUT|) and its
*confident* disclosure, the lower ``CONFIDENT_LEVEL`` bound of mean OUT − mean IN floored
at 0. The readings compare the tail mean of the confident disclosure with the noise
floor T0 (the larger of HALF's tail and the method's own tail with IN and OUT relabelled
``NULL_PERMUTATIONS`` times) and with SELF: (T − T0) / (T_SELF − T0), NaN when SELF does
not rise above the floor. :func:`bootstrap_interval` resamples the records.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ...stats import percentile_interval
from .shadows import mds_membership

CONFIDENT_LEVEL = 0.975
NULL_PERMUTATIONS = 10
FLAG_LEVEL = 0.999


@dataclass(frozen=True)
class DisclosureScores:
    """Per record: the paper's DS, the two means, and the confident disclosure."""

    ds: np.ndarray
    mean_in: np.ndarray
    mean_out: np.ndarray
    confident: np.ndarray


def disclosure_scores(
    distance: np.ndarray, keep: np.ndarray, level: float = CONFIDENT_LEVEL
) -> DisclosureScores:
    """Per-record scores over the shadows that have a distance (rows of ``distance`` that
    are all NaN were not run).

    ``ds`` is the paper's |mean IN − mean OUT|. ``confident`` is the shrinkage of the
    record's distance when it is IN that the shadows establish: the one-sided lower
    confidence bound (Welch, Student t at ``level``) of mean OUT − mean IN, floored at 0.
    A method whose emitted tables vary a lot from shadow to shadow (a DP generator at a
    small epsilon) makes |IN − OUT| large by chance; the bound discounts that noise, so
    the relative reading is not mistaken for disclosure.
    """
    from scipy.stats import t as student_t

    done = ~np.isnan(distance).all(axis=1)
    d, k = distance[done], keep[done]
    d_in, d_out = np.where(k, d, np.nan), np.where(~k, d, np.nan)
    n_in, n_out = (~np.isnan(d_in)).sum(axis=0), (~np.isnan(d_out)).sum(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a record with no IN or no OUT
        mean_in = np.nanmean(d_in, axis=0)
        mean_out = np.nanmean(d_out, axis=0)
        var_in = np.nanvar(d_in, axis=0, ddof=1)
        var_out = np.nanvar(d_out, axis=0, ddof=1)
        se = np.sqrt(var_in / n_in + var_out / n_out)
        ok = (n_in >= 2) & (n_out >= 2)
        quantile = np.where(ok, student_t.ppf(level, np.maximum(n_in + n_out - 2, 1)), np.inf)
        bound = (mean_out - mean_in) - quantile * np.where(ok, se, np.inf)
    confident = np.where(
        np.isnan(mean_in) | np.isnan(mean_out),
        np.nan,
        np.maximum(np.nan_to_num(bound, nan=0.0, neginf=0.0), 0.0),
    )
    return DisclosureScores(np.abs(mean_in - mean_out), mean_in, mean_out, confident)


def raw_summary(ds: np.ndarray, quantile: float) -> dict[str, float]:
    """The paper's raw readings of DS: its max, its ``quantile`` and its mean."""
    finite = ds[np.isfinite(ds)]
    if finite.size == 0:
        return {"max": float("nan"), "quantile": float("nan"), "mean": float("nan")}
    return {
        "max": float(finite.max()),
        "quantile": float(np.quantile(finite, quantile)),
        "mean": float(finite.mean()),
    }


def tail_mean(values: np.ndarray, share: float) -> float:
    """Mean of the largest ``share`` of the finite values (at least one: the max)."""
    v = values[np.isfinite(values)]
    if v.size == 0:
        return float("nan")
    k = max(1, math.ceil(share * v.size))
    return float(np.partition(v, v.size - k)[v.size - k :].mean())


def permuted_confident(distance: np.ndarray, m: int, seed: int, n_perm: int) -> np.ndarray:
    """The confident disclosure of every record with IN / OUT relabelled at random
    (``n_perm`` relabellings, same shape of membership): what the method's own
    variation between shadows produces with no membership in it."""
    n = distance.shape[1]
    seeds = np.random.SeedSequence(seed).generate_state(n_perm)
    return np.vstack(
        [disclosure_scores(distance, mds_membership(m, n, int(s))).confident for s in seeds]
    )


def relative_readings(
    tails: tuple[np.ndarray, np.ndarray, np.ndarray],
    null: np.ndarray,
    tail: float,
    raw_max: float,
    half_max: float,
    self_max: float,
) -> tuple[float, float]:
    """The relative reading of the confident tails (:func:`_relative_tail`) and the
    paper's max read between HALF and SELF."""
    return _relative_tail(tails, null, tail), _relative(raw_max, half_max, self_max)


def _relative_tail(
    tails: tuple[np.ndarray, np.ndarray, np.ndarray], null: np.ndarray, tail: float
) -> float:
    """(T − T0) / (T_SELF − T0), T the tail mean of the confident disclosure and T0 the
    larger of HALF's and the method's own relabelled (null) tail mean: the floor is
    whichever noise is higher, the method's or a sample of unseen records'. NaN when
    even SELF does not rise above that floor (the shadows cannot tell members apart at
    this number of shadow models)."""
    t, t_half, t_self = (tail_mean(v, tail) for v in tails)
    t_null = float(np.mean([tail_mean(row, tail) for row in null])) if len(null) else 0.0
    floor = max(t_half, t_null) if np.isfinite(t_half) else t_null
    return _relative(t, floor, t_self)


def _relative(raw: float, half: float, self_: float) -> float:
    """``raw`` placed between ``half`` (0) and ``self_`` (1); NaN when one of them is not
    finite or SELF does not rise above the floor."""
    if not (np.isfinite(raw) and np.isfinite(half) and np.isfinite(self_)) or self_ <= half:
        return float("nan")
    return (raw - half) / (self_ - half)


def bootstrap_interval(
    ds: np.ndarray,
    tails: tuple[np.ndarray, np.ndarray, np.ndarray],
    null: np.ndarray,
    reading: str,
    tail: float,
    n_boot: int,
    confidence: float,
    seed: int,
) -> tuple[float, float] | None:
    """Percentile interval of the reading over records resampled with replacement (the
    three DS vectors are resampled together: they are the same records)."""
    rng = np.random.default_rng(seed)
    n = len(ds)
    out = np.empty(n_boot)
    for b in range(n_boot):
        pick = rng.integers(0, n, n)
        out[b] = (
            _relative_tail((tails[0][pick], tails[1][pick], tails[2][pick]), null[:, pick], tail)
            if reading == "relative"
            else np.nanmax(ds[pick])
        )
    out = out[np.isfinite(out)]
    if out.size == 0:
        return None
    lo, hi = percentile_interval(out, confidence=confidence)
    return float(lo), float(hi)
