"""The schema of the real table: each column's kind and, for categoricals, its levels.

Contract
--------
* :class:`ColumnSpec` is what the engine knows about one column: its kind (``numeric``,
  ``categorical``, ``boolean``, ``id``, ``constant`` or ``weight``; only the first three
  are *included* in a review), whether a numeric column holds whole numbers, and the
  sorted levels of a categorical one.
* :class:`Schema` holds the ordered specs of the real table;
  :meth:`Schema.with_unseen` appends categories that only a holdout or synthetic table
  holds, after the real ones, so every code computed before stays valid;
  :meth:`Schema.with_weight` marks the declared sampling-weight column: survey design
  information that only the sdcMicro measures read (from the raw tables), excluded from
  every other measure, and never required in a release.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

import pandas as pd

from ..errors import ColumnNotFoundError, SchemaError

__all__ = ["INCLUDED_KINDS", "OVERRIDE_KINDS", "WEIGHT_NOTE", "ColumnKind", "ColumnSpec", "Schema"]

ColumnKind = Literal["numeric", "categorical", "boolean", "id", "constant", "weight"]
INCLUDED_KINDS = ("numeric", "categorical", "boolean")
OVERRIDE_KINDS = ("numeric", "categorical", "boolean", "exclude")
#: The note of the declared sampling-weight column (:meth:`Schema.with_weight`).
WEIGHT_NOTE = "sampling weight"


@dataclass(frozen=True)
class ColumnSpec:
    """What the engine knows about one column."""

    name: str
    kind: ColumnKind
    integer: bool = False
    n_unique: int = 0
    n_missing: int = 0
    categories: tuple[str, ...] = ()
    note: str = ""
    # Levels appended to ``categories`` that the real table does not hold: seen only in a
    # holdout or synthetic table of the review (see Schema.with_unseen).
    unseen: tuple[str, ...] = ()

    @property
    def real_categories(self) -> tuple[str, ...]:
        """The categories of the real table (``categories`` without the appended unseen
        levels)."""
        return self.categories[: len(self.categories) - len(self.unseen)]

    @property
    def included(self) -> bool:
        return self.kind in INCLUDED_KINDS

    @property
    def is_numeric(self) -> bool:
        return self.kind == "numeric"

    @property
    def is_categorical(self) -> bool:
        return self.kind in ("categorical", "boolean")

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "kind": self.kind,
            "integer": self.integer,
            "n_unique": self.n_unique,
            "n_missing": self.n_missing,
            "n_categories": len(self.categories),
            "note": self.note,
        }


@dataclass(frozen=True)
class Schema:
    """The ordered column specs of the real table."""

    columns: tuple[ColumnSpec, ...]
    n_rows: int = 0
    overrides: Mapping[str, str] = field(default_factory=dict)

    def __getitem__(self, name: str) -> ColumnSpec:
        for spec in self.columns:
            if spec.name == name:
                return spec
        raise ColumnNotFoundError(
            f"Column {name!r} is not in the table; available columns: {', '.join(self.names)}."
        )

    def __contains__(self, name: object) -> bool:
        return any(spec.name == name for spec in self.columns)

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def included(self) -> list[str]:
        return [c.name for c in self.columns if c.included]

    @property
    def excluded(self) -> list[str]:
        return [c.name for c in self.columns if not c.included]

    @property
    def numeric(self) -> list[str]:
        return [c.name for c in self.columns if c.is_numeric]

    @property
    def categorical(self) -> list[str]:
        return [c.name for c in self.columns if c.is_categorical]

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([c.to_dict() for c in self.columns])

    def with_unseen(self, unseen: Mapping[str, Iterable[str]]) -> Schema:
        """This schema with categories that the real table does not hold appended.

        Parameters
        ----------
        unseen
            ``{column: categories}`` found in a holdout or synthetic table; categories
            the schema already knows are ignored.

        Returns
        -------
        Schema
            ``self`` when nothing is new; otherwise a copy whose specs have the new
            categories appended (sorted) to ``categories`` and recorded in ``unseen``.

        Notes
        -----
        Why appended and not merged into the sorted list: the real levels keep their
        positions (:func:`level_positions`), so the real table's codes, and every code a
        measure computed before, stay valid; an unseen level gets a position of its own,
        so it never equals a real category while rows holding the same unseen value equal
        each other. Why not one shared "other" level: two different invented categories
        would then count as equal. Categorical measures only test equality of levels, so
        the order of the appended tail carries no meaning.
        """
        add: dict[str, tuple[str, ...]] = {}
        for col, levels in unseen.items():
            spec = self[col]
            if not spec.is_categorical:
                raise SchemaError(f"Column {col!r} is not categorical; it has no categories.")
            known = set(spec.categories)
            new = tuple(sorted({str(v) for v in levels} - known))
            if new:
                add[col] = new
        if not add:
            return self
        columns = tuple(
            replace(
                spec,
                categories=spec.categories + add[spec.name],
                unseen=spec.unseen + add[spec.name],
            )
            if spec.name in add
            else spec
            for spec in self.columns
        )
        return replace(self, columns=columns)

    @property
    def weight(self) -> str | None:
        """The column marked as the sampling weight (:meth:`with_weight`), or None."""
        return next((c.name for c in self.columns if c.kind == "weight"), None)

    def with_weight(self, column: str) -> Schema:
        """This schema with ``column`` marked as the sampling weight.

        Parameters
        ----------
        column
            A column of the schema.

        Returns
        -------
        Schema
            ``self`` when ``column`` is marked already; otherwise a copy in which it has
            the kind ``"weight"`` (excluded from the analysis, with the note
            :data:`WEIGHT_NOTE`).

        Raises
        ------
        ColumnNotFoundError
            ``column`` is not in the schema.
        SchemaError
            Another column is marked as the sampling weight already (a review has one).

        Notes
        -----
        Why excluded and not a numeric column: a sampling weight says how many people a
        record stands for (survey design), not something about them. As a column it would
        enter every distance, marginal and classifier, and a release, which usually lacks
        it, would fail the compatibility checks. The sdcMicro measures read it from the
        raw real and holdout tables (F_k, the estimated population frequency).
        """
        self[column]  # a clear error for an unknown column
        if column == self.weight:
            return self
        if self.weight is not None:
            raise SchemaError(
                f"Column {self.weight!r} is the sampling weight already; a review has one "
                f"weight column, so {column!r} cannot be another."
            )
        columns = tuple(
            replace(spec, kind="weight", categories=(), unseen=(), note=WEIGHT_NOTE)
            if spec.name == column
            else spec
            for spec in self.columns
        )
        return replace(self, columns=columns)

    def to_dict(self) -> dict:
        return {"n_rows": self.n_rows, "columns": [c.to_dict() for c in self.columns]}
