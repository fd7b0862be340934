"""Who an attack targets: its validated inputs, the columns it may use, and its training
and control targets (seeded samples, every record up to a register-size cap).

Every attack starts with :func:`attack_inputs` (one release, a non-empty holdout if any)
and :func:`resolve_columns`; the neighbour attacks then attack both sides with
:func:`attack_both_sides`, each side's targets drawn by its own generator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np
import pandas as pd

from ...errors import InsufficientDataError, ParameterError, ThreatModelError
from ...inputs import ReviewData, prepare_review
from ...validation import check_positive_int
from ..neighbors import default_queries

T = TypeVar("T")


def check_n_attacks(n_attacks: int | None) -> int | None:
    """``n_attacks`` checked: None (every record) or a positive integer."""
    return None if n_attacks is None else check_positive_int("n_attacks", n_attacks)


def _single_release(data: ReviewData) -> pd.DataFrame:
    if len(data.synthetic) != 1:
        raise ParameterError(
            f"Attacks evaluate one synthetic release at a time; got {len(data.synthetic)}. "
            "Call the measure once per release (consensus R10 asks for each release and "
            "their average)."
        )
    return data.synthetic[0]


def target_count(n_attacks: int | None, n_rows: int, n_release: int) -> int | None:
    """Targets to attack: ``n_attacks``, or with None every record (consensus R2) up to
    :func:`~privacy_core.risk.neighbors.default_queries` of the release's size and a
    seeded sample of that many above it; each target is still matched against the whole
    release."""
    if n_attacks is not None:
        return n_attacks
    cap = default_queries(n_release)
    return cap if n_rows > cap else None


def sample_rows(frame: pd.DataFrame, n: int | None, rng: np.random.Generator) -> pd.DataFrame:
    """``n`` rows without replacement in input order (all rows for None or n >= len)."""
    if n is None or n >= len(frame):
        return frame
    return frame.iloc[sample_positions(len(frame), n, rng)]


def attack_inputs(
    real: pd.DataFrame, synthetic: Any, *, threat: Any, holdout: Any, schema: Any
) -> tuple[ReviewData, pd.DataFrame, pd.DataFrame | None]:
    """The validated review, its one synthetic release and the holdout (if any)."""
    data = prepare_review(real, synthetic, threat=threat, holdout=holdout, schema=schema)
    return data, _single_release(data), _check_holdout(data)


def _check_holdout(data: ReviewData) -> pd.DataFrame | None:
    if data.holdout is not None and len(data.holdout) == 0:
        raise InsufficientDataError("The holdout table has no rows; give at least one.")
    return data.holdout


def resolve_columns(
    data: ReviewData, columns: Sequence[str] | None, name: str, default: Sequence[str]
) -> list[str]:
    """The columns of the option ``name`` (``default`` when None, one name as a list),
    checked to be distinct analysed columns of the real table."""
    cols = (
        list(default)
        if columns is None
        else ([columns] if isinstance(columns, str) else list(columns))
    )
    if not cols:
        raise ParameterError(f"`{name}` must name at least one column; got an empty list.")
    for c in cols:
        if c not in data.schema or not data.schema[c].included:
            raise ThreatModelError(
                f"`{name}` names {c!r}, which is not an analysed column of the real table; "
                f"available: {', '.join(data.schema.included)}."
            )
    dup = sorted({c for c in cols if cols.count(c) > 1})
    if dup:
        raise ParameterError(f"`{name}` repeats {', '.join(map(repr, dup))}.")
    return cols


def sample_positions(n_rows: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """:func:`sample_rows` on positions: ``n`` of ``n_rows`` without replacement, in order."""
    if n >= n_rows:
        return np.arange(n_rows)
    return np.sort(rng.choice(n_rows, size=n, replace=False))


@dataclass(frozen=True)
class TargetSides(Generic[T]):
    """What an attack returned for its training targets and, with a holdout, its control
    targets (``n_control`` and ``control`` None without one), and every guess of both in
    ``records`` (training rows first)."""

    n_training: int
    training: T
    n_control: int | None
    control: T | None
    records: pd.DataFrame


def attack_both_sides(
    attack: Callable[[pd.DataFrame, str], tuple[T, pd.DataFrame]],
    real: pd.DataFrame,
    holdout: pd.DataFrame | None,
    rngs: tuple[np.random.Generator, np.random.Generator],
    *,
    n_attacks: int | None,
    n_release: int,
) -> TargetSides[T]:
    """Run ``attack(targets, role)`` (its outcome and one row per target) on a sample of
    the training rows and, with a holdout, of the control rows, drawn by the two ``rngs``
    (training, control); :func:`target_count` says how many of each, against a release of
    ``n_release`` rows."""
    rng_training, rng_control = rngs
    targets = sample_rows(real, target_count(n_attacks, len(real), n_release), rng_training)
    out_t, table_t = attack(targets, "training")
    if holdout is None:
        return TargetSides(len(targets), out_t, None, None, pd.concat([table_t], ignore_index=True))
    ctrl_targets = sample_rows(
        holdout, target_count(n_attacks, len(holdout), n_release), rng_control
    )
    out_c, table_c = attack(ctrl_targets, "control")
    records = pd.concat([table_t, table_c], ignore_index=True)
    return TargetSides(len(targets), out_t, len(ctrl_targets), out_c, records)
