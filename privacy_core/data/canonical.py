"""The canonical form: real, synthetic and holdout tables as the measures read them.

Contract
--------
* :func:`prepare_table` turns a real table into the engine's canonical form: included
  columns only, numerics as float64 (missing stays NaN), categoricals as strings with
  missing as its own level :data:`~.levels.MISSING`.
* :func:`conform_table` checks a synthetic or holdout table against the real schema,
  raising :class:`~privacy_core.errors.SchemaMismatchError` with every problem at once
  (missing or extra columns, text in numeric columns), and returns it in canonical form.
  Categories the real table never holds are not a problem: they are kept, reported with
  an :class:`~privacy_core.errors.UnseenCategoryWarning`, and become levels of their own
  appended after the real categories (:meth:`~.schema.Schema.with_unseen`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..errors import ColumnNotFoundError, SchemaMismatchError
from .frames import check_frame, with_string_names
from .levels import category_levels, level_positions
from .schema import Schema
from .unseen import warn_unseen

__all__ = [
    "ConformedTable",
    "conform_table",
    "conform_table_coded",
    "conform_table_levels",
    "prepare_table",
    "prepare_table_coded",
]


def prepare_table(real: pd.DataFrame, schema: Schema) -> pd.DataFrame:
    """Return the real table in canonical form (included columns only)."""
    return prepare_table_coded(real, schema)[0]


def prepare_table_coded(
    real: pd.DataFrame, schema: Schema
) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """:func:`prepare_table` and the :func:`level_positions` of its categorical columns
    (a column whose levels are not all in the schema has none)."""
    check_frame(real, "real")
    real = with_string_names(real)
    out, coded = {}, {}
    for spec in schema.columns:
        if not spec.included:
            continue
        if spec.name not in real.columns:
            raise ColumnNotFoundError(f"Column {spec.name!r} of the schema is not in the table.")
        if spec.is_numeric:
            out[spec.name] = _as_float(pd.to_numeric(real[spec.name], errors="coerce"))
            continue
        out[spec.name], levels, codes = category_levels(real[spec.name])
        positions = level_positions(levels, codes, spec.categories)
        if positions is not None:
            coded[spec.name] = positions
    return pd.DataFrame(out, index=real.index), coded


def _as_float(series: pd.Series) -> pd.Series:
    """float64 with NaN for missing; infinities count as missing, as in the encoder."""
    values = series.to_numpy(dtype=np.float64, na_value=np.nan, copy=True)
    values[~np.isfinite(values)] = np.nan
    return pd.Series(values, index=series.index, name=series.name)


def conform_table(other: pd.DataFrame, schema: Schema, *, table: str = "synthetic") -> pd.DataFrame:
    """Check ``other`` against the real schema and return it in canonical form.

    Every problem (missing or extra columns, non-numeric values in numeric columns) is
    collected and raised together as a :class:`SchemaMismatchError`. Categories never seen
    in the real data are kept as they are and reported with an
    :class:`~privacy_core.errors.UnseenCategoryWarning` (see :func:`conform_table_levels`).
    """
    return conform_table_coded(other, schema, table=table)[0]


def conform_table_coded(
    other: pd.DataFrame, schema: Schema, *, table: str = "synthetic"
) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """:func:`conform_table` and the :func:`level_positions` of its categorical columns.

    A column with categories never seen in the real data has positions in
    ``schema.with_unseen(...)``, the schema extended by this table's unseen categories; use
    :func:`conform_table_levels` to get those categories with the codes.
    """
    conformed = conform_table_levels(other, schema, table=table)
    if conformed.unseen:
        warn_unseen({table: conformed.unseen}, stacklevel=3)
    return conformed.frame, conformed.codes


class ConformedTable(NamedTuple):
    """A table in canonical form, its level codes and its unseen categories."""

    frame: pd.DataFrame
    codes: dict[str, np.ndarray]
    """``{column: positions}`` in ``schema.with_unseen(unseen)``."""
    unseen: dict[str, tuple[str, ...]]
    """``{column: categories}`` the real table does not hold (sorted; only non-empty)."""


def conform_table_levels(
    other: pd.DataFrame, schema: Schema, *, table: str = "synthetic"
) -> ConformedTable:
    """:func:`conform_table_coded` without the warning, returning the unseen categories.

    Parameters
    ----------
    other
        A synthetic or holdout table.
    schema
        The real table's schema (possibly already extended by :meth:`Schema.with_unseen`).
    table
        The table's label in error messages.

    Returns
    -------
    ConformedTable
        The canonical table; the level positions of every categorical column in
        ``schema.with_unseen(unseen)``; the categories the schema does not know.

    Raises
    ------
    SchemaMismatchError
        Missing or extra columns, or non-numeric values in a numeric column (every
        problem at once).

    Notes
    -----
    A category the real table does not hold is a sample's normal variation in a holdout
    (rare levels absent from the real sample) and a generator's invention in a synthetic
    table; neither makes the table unreviewable, so it is kept as a level of its own
    (appended after the real ones, see :meth:`Schema.with_unseen`) instead of being
    refused or merged into a real level.
    """
    check_frame(other, table)
    other = with_string_names(other)
    problems: list[str] = []
    known = set(schema.names)
    missing = [c for c in schema.included if c not in other.columns]
    if missing:
        problems.append(f"missing column(s): {', '.join(map(repr, missing))}")
    extra = [str(c) for c in other.columns if c not in known]
    if extra:
        problems.append(f"column(s) not in the real table: {', '.join(map(repr, extra))}")
    out: dict[str, pd.Series] = {}
    coded: dict[str, np.ndarray] = {}
    unseen: dict[str, tuple[str, ...]] = {}
    for spec in schema.columns:
        if not spec.included or spec.name not in other.columns:
            continue
        col = other[spec.name]
        if spec.is_numeric:
            as_num = pd.to_numeric(col, errors="coerce")
            # only text can hold values that are not numbers
            is_num = pd.api.types.is_numeric_dtype(col.dtype)
            bad = col.iloc[:0] if is_num else col[as_num.isna() & col.notna()]
            if len(bad):
                examples = ", ".join(map(repr, bad.astype(str).unique()[:3]))
                problems.append(
                    f"column {spec.name!r} is numeric in the real table but has "
                    f"{len(bad)} non-numeric value(s) here (e.g. {examples})"
                )
                continue
            out[spec.name] = _as_float(as_num)
        else:
            values, levels, codes = category_levels(col)
            new = tuple(sorted(set(levels) - set(spec.categories)))
            categories = spec.categories + new
            if new:
                unseen[spec.name] = new
            out[spec.name] = values
            positions = level_positions(levels, codes, categories)
            if positions is not None:  # always: the categories hold every level
                coded[spec.name] = positions
    if problems:
        raise SchemaMismatchError(problems, table=table)
    # built in schema.included order
    return ConformedTable(pd.DataFrame(out, index=other.index), coded, unseen)
