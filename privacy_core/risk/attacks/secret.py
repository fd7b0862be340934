"""The secret an attribute-inference attack guesses: which column it is
(:func:`resolve_secret`) and whether a guess of it is right (:func:`inference_success`).
Shared by the distance-based and the ML attack."""

from __future__ import annotations

import numpy as np

from ...errors import ThreatModelError
from ...inputs import ReviewData
from .targets import resolve_columns


def resolve_secret(data: ReviewData, secret: str | None, aux: list[str]) -> str:
    """The secret column (default ``threat.target``), checked to be analysed and not one of
    the attacker's ``aux`` columns."""
    target = data.threat.target if secret is None else secret
    resolve_columns(data, [target], "secret", [])
    if target in aux:
        raise ThreatModelError(
            f"The secret {target!r} is also an auxiliary column; the attacker cannot already "
            "know what it tries to learn. Remove it from aux_cols."
        )
    return target


def inference_success(
    guess: np.ndarray, truth: np.ndarray, *, regression: bool, tolerance: float = 0.05
) -> np.ndarray:
    """Whether each guess of a secret is correct.

    Categorical: equal. Numeric: |g - s| <= tolerance·|s|, relative to the *true* value
    with an absolute value (Anonymeter divides by the signed guess, so any negative guess
    counted as correct: the ``[code bug]`` of ``metric-reference.md`` §2); two missing
    values count as correct, as in Anonymeter.
    """
    if not regression:
        return np.asarray(guess, dtype=object) == np.asarray(truth, dtype=object)
    g = np.asarray(guess, dtype=float)
    s = np.asarray(truth, dtype=float)
    with np.errstate(invalid="ignore"):
        ok = np.abs(g - s) <= tolerance * np.abs(s)
    return ok | (np.isnan(g) & np.isnan(s))
