"""The threat model: which columns an attacker knows and which are secret.

Consensus recommendation R1 (``consensus-privacy-framework.md``, Table 2): disclosure
measures are computed on quasi-identifiers chosen by the data controller.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from .data import Schema
from .errors import ThreatModelError


@dataclass(frozen=True)
class ThreatModel:
    """Quasi-identifiers known to the attacker and the sensitive attribute(s).

    Parameters
    ----------
    quasi_identifiers
        Columns the attacker knows about a target (from external sources).
    sensitive
        Columns the attacker wants to learn. The first one is the default target of
        single-target measures such as RAPID.
    sampling_fraction
        Share of the population that is in the real data (membership prevalence t), used
        by membership measures; ``None`` when unknown.
    """

    quasi_identifiers: tuple[str, ...]
    sensitive: tuple[str, ...]
    sampling_fraction: float | None = None

    def __init__(
        self,
        quasi_identifiers: Sequence[str] | str,
        sensitive: Sequence[str] | str,
        sampling_fraction: float | None = None,
    ):
        # A bare string is one column, not a sequence of one-letter columns.
        if isinstance(quasi_identifiers, str):
            quasi_identifiers = (quasi_identifiers,)
        if isinstance(sensitive, str):
            sensitive = (sensitive,)
        object.__setattr__(self, "quasi_identifiers", tuple(quasi_identifiers))
        object.__setattr__(self, "sensitive", tuple(sensitive))
        object.__setattr__(self, "sampling_fraction", sampling_fraction)
        if not self.quasi_identifiers:
            raise ThreatModelError(
                "Choose at least one quasi-identifier: a column the attacker already knows."
            )
        if not self.sensitive:
            raise ThreatModelError(
                "Choose at least one sensitive attribute: the column the attacker wants to learn."
            )
        both = [c for c in self.sensitive if c in self.quasi_identifiers]
        if both:
            raise ThreatModelError(
                f"{', '.join(map(repr, both))} cannot be both a quasi-identifier and "
                "sensitive; remove it from one of the two lists."
            )
        for group, cols in (("quasi-identifier", self.quasi_identifiers),
                            ("sensitive attribute", self.sensitive)):
            dup = sorted({c for c in cols if cols.count(c) > 1})
            if dup:
                raise ThreatModelError(f"{group} list repeats {', '.join(map(repr, dup))}.")
        if sampling_fraction is not None and not (0 < _as_fraction(sampling_fraction) <= 1):
            raise ThreatModelError(
                f"The sampling fraction must be in (0, 1]; got {sampling_fraction!r}."
            )

    @property
    def target(self) -> str:
        """The primary sensitive attribute."""
        return self.sensitive[0]

    @property
    def columns(self) -> list[str]:
        return [*self.quasi_identifiers, *self.sensitive]

    def validate(self, schema: Schema, real: pd.DataFrame | None = None) -> None:
        """Check the threat model against the real schema (and canonical real data).

        Raises
        ------
        ThreatModelError
            A column is unknown, excluded (ID-like / constant), or a categorical sensitive
            attribute has fewer than two classes.
        """
        for col in self.columns:
            if col not in schema:
                raise ThreatModelError(
                    f"Column {col!r} is not in the real table; available columns: "
                    f"{', '.join(schema.names)}."
                )
            spec = schema[col]
            if not spec.included:
                raise ThreatModelError(
                    f"Column {col!r} is excluded from the analysis ({spec.note}); "
                    "change its type on the data page to use it."
                )
        for col in self.sensitive:
            spec = schema[col]
            if spec.is_categorical:
                # "(missing)" counts as a class, as in the canonical data: a column that is
                # either "yes" or missing still discloses something.
                classes = list(spec.categories)
                if real is not None and col in real.columns:
                    classes = sorted(set(real[col].unique()))
                if len(classes) < 2:
                    raise ThreatModelError(
                        f"The sensitive column {col!r} has a single class "
                        f"({classes[0] if classes else 'none'!r}); an attacker learns nothing "
                        "from it. Choose a column with two or more classes."
                    )

    def to_dict(self) -> dict:
        return {
            "quasi_identifiers": list(self.quasi_identifiers),
            "sensitive": list(self.sensitive),
            "sampling_fraction": self.sampling_fraction,
        }


def _as_fraction(value: object) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ThreatModelError(
            f"The sampling fraction must be a number in (0, 1]; got {value!r}."
        ) from None
