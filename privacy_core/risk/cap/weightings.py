"""GTCAP's three weightings: which synthetic records pass the WEAP filter and how the
attributions they make on the training and holdout records are weighed.

``box_pooled`` (default; formerly ``sphere``) and ``box_per_record`` match in a box of
half-width r per numeric column; ``triangular`` is the reference code's weighting. The
package docstring (:mod:`privacy_core.risk.cap`) describes each.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ...validation import check_choice
from .frames import Frame
from .pair_sums import box_sums, pair_sums, triangular_kernel, weap_kernel

GTCAP_WEIGHTINGS = ("box_pooled", "box_per_record", "triangular")
#: former names of a weighting, still accepted with a DeprecationWarning
DEPRECATED_WEIGHTINGS = {"sphere": "box_pooled"}


def check_weighting(weighting: str) -> str:
    """The weighting's current name; a former name works but warns (called by
    :func:`~privacy_core.risk.cap.gtcap` itself: the warning names gtcap's caller)."""
    if isinstance(weighting, str) and weighting in DEPRECATED_WEIGHTINGS:
        new = DEPRECATED_WEIGHTINGS[weighting]
        warnings.warn(
            f"GTCAP weighting {weighting!r} is now called {new!r}: its 'sphere' is a box "
            "of half-width radius per numeric column (the L-infinity ball), pooled over "
            f"records. Pass weighting={new!r}; {weighting!r} will be removed.",
            DeprecationWarning,
            stacklevel=3,
        )
        return new
    check_choice("weighting", weighting, GTCAP_WEIGHTINGS)
    return weighting


@dataclass(frozen=True)
class Attack:
    """The attack per distinct synthetic record: ``kept`` (it passes the WEAP filter) and
    its ``weap``; ``per[name] = (a, b)`` with G = sum_kept a / sum_kept b for the training
    (``real``) and ``holdout`` records; ``shown[name]`` = (correct matches, matches,
    score) for the per-record table."""

    kept: np.ndarray
    weap: np.ndarray
    per: dict[str, tuple[np.ndarray, np.ndarray]]
    shown: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]


def attack_statistics(
    U: Frame,
    frames: dict[str, Frame],
    weighting: str,
    radius: float,
    *,
    has_numeric: bool,
    release: Frame | None = None,
) -> Attack:
    """The attack of the distinct synthetic records ``U`` on the training (``real``) and
    ``holdout`` records of ``frames``, in the chosen weighting. ``release``: every
    distinct synthetic record, when ``U`` is a sample of them (a record's WEAP is read
    against the whole release); ``U`` itself otherwise."""
    release = U if release is None else release
    if weighting in ("box_pooled", "box_per_record"):
        return _box_attack(U, release, frames, radius, pooled=weighting == "box_pooled")
    return _triangular_attack(U, release, frames, radius, has_numeric=has_numeric)


def _box_attack(
    U: Frame, release: Frame, frames: dict[str, Frame], radius: float, *, pooled: bool
) -> Attack:
    """Box matching: WEAP = 1 when every matching synthetic record shares the target; G
    pools the pairs (``pooled``) or averages the per-record TCAPs of eq. 7."""
    stats_u = box_sums(U, release, radius)
    kept = stats_u["num"] == stats_u["den"]
    weap = stats_u["num"] / stats_u["den"]
    per: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    shown: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for name in ("real", "holdout"):
        st = box_sums(U, frames[name], radius)
        tcap = _ratio(st["num"], st["den"])
        if pooled:
            per[name] = (st["num"], st["den"])
        else:  # mean of the defined per-record TCAPs: sum tcap / number defined
            defined = st["den"] > 0
            per[name] = (np.where(defined, tcap, 0.0), defined.astype(np.float64))
        shown[name] = (st["num"], st["den"], tcap)
    return Attack(kept, weap, per, shown)


def _triangular_attack(
    U: Frame, release: Frame, frames: dict[str, Frame], radius: float, *, has_numeric: bool
) -> Attack:
    """The reference code's WEAP filter and triangular weights (pooled counts when no
    column is numeric)."""
    stats_u = pair_sums(U, release, weap_kernel(radius))
    kept = stats_u["n_tk"] == stats_u["n_k"]
    if has_numeric:
        kept &= (stats_u["c_k"] > 0) & (stats_u["c_tk"] >= stats_u["c_k"] - 1e-9)
    weap = stats_u["n_tk"] / stats_u["n_k"]
    per: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    shown: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for name in ("real", "holdout"):
        st = pair_sums(U, frames[name], triangular_kernel(radius))
        if has_numeric:
            score = np.divide(
                st["num"], st["den"], out=np.zeros_like(st["num"]), where=st["den"] > 0
            )
            per[name] = (score, np.ones_like(score))
        else:
            score = _ratio(st["count_t"], st["count"])
            per[name] = (st["count_t"], st["count"])
        shown[name] = (st["count_t"], st["count"], score)
    return Attack(kept, weap, per, shown)


def _ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a / b with NaN where b is 0 (no match: no attribution to score)."""
    return np.divide(a, b, out=np.full(a.shape, np.nan), where=b > 0)
