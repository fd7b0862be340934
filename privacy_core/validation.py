"""Small parameter checks used at the engine's public boundary.

Each check raises :class:`~privacy_core.errors.ParameterError` with a message that names
the parameter, the expectation and the value received.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .errors import ParameterError


def check_in_range(
    name: str,
    value: Any,
    low: float,
    high: float,
    *,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"`{name}` must be a number; got {value!r}.") from None
    ok_low = v >= low if low_inclusive else v > low
    ok_high = v <= high if high_inclusive else v < high
    if not (ok_low and ok_high):
        lb = "[" if low_inclusive else "("
        hb = "]" if high_inclusive else ")"
        raise ParameterError(f"`{name}` must be in {lb}{low}, {high}{hb}; got {value!r}.")
    return v


def check_confidence(confidence: Any) -> float:
    """A confidence level strictly between 0 and 1 (e.g. 0.95)."""
    return check_in_range("confidence", confidence, 0, 1, low_inclusive=False, high_inclusive=False)


def check_positive_int(name: str, value: Any, *, minimum: int = 1) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int,))
        and not (hasattr(value, "__index__"))
    ):
        raise ParameterError(f"`{name}` must be an integer >= {minimum}; got {value!r}.")
    v = int(value)
    if v < minimum:
        raise ParameterError(f"`{name}` must be an integer >= {minimum}; got {value!r}.")
    return v


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    options = tuple(choices)
    if value not in options:
        raise ParameterError(
            f"`{name}` must be one of {', '.join(repr(c) for c in options)}; got {value!r}."
        )
    return str(value)


def check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) and not hasattr(seed, "__index__"):
        raise ParameterError(f"`seed` must be a non-negative integer; got {seed!r}.")
    s = int(seed)
    if s < 0:
        raise ParameterError(f"`seed` must be a non-negative integer; got {seed!r}.")
    return s


def check_epsilon(epsilon: Any, *, error: str, allow_zero: bool = False) -> float:
    """RAPID's continuous tolerance ε: positive, and a proportion for scale-free errors.

    The RAPID paper (``rapid-attribute-inference.md`` §2.3, Algorithm 1) states ε as a
    percentage ("within 10 %"); the engine takes it as a
    proportion. For the ``relative`` and ``symmetric`` errors a value of 1 or more is
    almost surely a percentage typed as a number (ε = 10 flags nearly every record and
    silently reports RAPID ≈ 1), so it is rejected. ``absolute`` and ``normalized`` errors
    are in units of y or of its SD, where any positive value can make sense.
    ``allow_zero`` admits ε = 0 (nobody at risk) for re-thresholding a fitted result,
    where a slider may rest at its left end.
    """
    v = check_in_range("epsilon", epsilon, 0, float("inf"), low_inclusive=allow_zero)
    if error in ("relative", "symmetric") and v >= 1:
        raise ParameterError(
            f"`epsilon` for the {error} error must be in (0, 1): ε is a proportion: "
            f"0.10 means 10 %; got {v:g}. Divide a percentage by 100."
        )
    return v
