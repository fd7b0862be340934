"""Schema inference: deciding each column's kind from the real table.

Contract
--------
:func:`infer_schema` decides each column's kind: ``numeric`` (integer or float),
``categorical``, ``boolean``, ``id`` (unique per row: excluded) or ``constant`` (one value
or all missing: excluded); users override with ``overrides``. :func:`canonical_schema` is
the schema of a table already in canonical form (float64 numerics, string levels).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ColumnNotFoundError, SchemaError, SchemaWarning
from .frames import check_frame, with_string_names
from .levels import MISSING, level_strings
from .schema import OVERRIDE_KINDS, ColumnSpec, Schema

__all__ = ["canonical_schema", "infer_schema", "is_integral"]

_ID_MIN_ROWS = 20


def infer_schema(real: pd.DataFrame, overrides: Mapping[str, str] | None = None) -> Schema:
    """Infer each column's kind from the real table.

    Parameters
    ----------
    real
        The real (training) table as returned by :func:`load_table`.
    overrides
        ``{column: kind}`` with kind in ``numeric``, ``categorical``, ``boolean`` or
        ``exclude``; applied after inference.

    Notes
    -----
    ID-like columns (text or integers unique on every row, at least 20 rows) and constant
    or all-missing columns are excluded with a :class:`SchemaWarning`: they carry no
    statistical signal and would make every record unique.
    """
    check_frame(real, "real")
    real = with_string_names(real)
    overrides = {str(k): v for k, v in (overrides or {}).items()}
    unknown = [c for c in overrides if c not in real.columns]
    if unknown:
        raise ColumnNotFoundError(
            f"Type override for unknown column(s) {', '.join(map(repr, unknown))}; "
            f"available columns: {', '.join(map(str, real.columns))}."
        )
    specs = []
    for col in real.columns:
        spec = _infer_column(real[col], str(col))
        if col in overrides:
            spec = _apply_override(real[col], spec, overrides[col])
        elif spec.kind in ("id", "constant"):
            warnings.warn(f"Column {col!r} was excluded: {spec.note}.", SchemaWarning, stacklevel=2)
        specs.append(spec)
    return Schema(columns=tuple(specs), n_rows=len(real), overrides=overrides)


def is_integral(values: pd.Series) -> bool:
    """Whether every non-missing value is a whole number (infinities are not)."""
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.mod(values.to_numpy(dtype=float), 1) == 0))


def _infer_column(series: pd.Series, name: str) -> ColumnSpec:
    n = len(series)
    n_missing = int(series.isna().sum())
    # everything below needs only the distinct values (one hash pass over the rows)
    distinct = pd.Series(series.unique(), dtype=series.dtype)
    levels_from = series if series.dtype == object else distinct  # see level_strings
    non_null = distinct.dropna()
    n_unique = len(non_null)
    base: dict[str, Any] = {"name": name, "n_unique": n_unique, "n_missing": n_missing}
    if n_unique == 0:
        return ColumnSpec(kind="constant", note="all values are missing", **base)
    if n_unique == 1 and n_missing == 0:
        value = non_null.iloc[0]
        # the note is shown to users: numpy 2 would show 0 as "np.int64(0)"
        value = value.item() if isinstance(value, np.generic) else value
        return ColumnSpec(kind="constant", note=f"it has the single value {value!r}", **base)
    is_num = pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(
        series.dtype
    )
    integer = bool(
        is_num and (pd.api.types.is_integer_dtype(series.dtype) or (is_integral(non_null)))
    )
    if pd.api.types.is_bool_dtype(series.dtype) or (is_num and n_unique <= 2 and integer):
        return ColumnSpec(kind="boolean", categories=tuple(level_strings(levels_from)), **base)
    if n >= _ID_MIN_ROWS and n_missing == 0 and n_unique == n and (integer or not is_num):
        return ColumnSpec(
            kind="id",
            integer=integer,
            note="its value is unique on every row (an identifier)",
            **base,
        )
    if is_num:
        return ColumnSpec(kind="numeric", integer=integer, **base)
    return ColumnSpec(kind="categorical", categories=tuple(level_strings(levels_from)), **base)


def _apply_override(series: pd.Series, spec: ColumnSpec, kind: str) -> ColumnSpec:
    if kind not in OVERRIDE_KINDS:
        raise SchemaError(
            f"Unknown type {kind!r} for column {spec.name!r}; choose one of "
            f"{', '.join(OVERRIDE_KINDS)}."
        )
    if kind == "exclude":
        return replace(
            spec, kind="id" if spec.kind == "id" else "constant", note="excluded by the user"
        )
    if kind == "numeric":
        as_num = pd.to_numeric(series, errors="coerce")
        bad = series[as_num.isna() & series.notna()]
        if len(bad):
            examples = ", ".join(map(repr, bad.astype(str).unique()[:3]))
            raise SchemaError(
                f"Column {spec.name!r} cannot be numeric: {len(bad)} value(s) are not numbers "
                f"(e.g. {examples})."
            )
        integer = is_integral(as_num.dropna())
        return replace(spec, kind="numeric", integer=integer, categories=(), note="set by the user")
    cats = tuple(level_strings(series))
    if kind == "boolean" and len([c for c in cats if c != MISSING]) > 2:
        raise SchemaError(
            f"Column {spec.name!r} has {len(cats)} distinct values; a boolean column has two."
        )
    return replace(spec, kind=kind, categories=cats, note="set by the user")  # type: ignore[arg-type]


def canonical_schema(frame: pd.DataFrame) -> Schema:
    """The schema of a table already in canonical form (float64 numerics, string levels).

    Used by components that receive canonical data without the original schema, such as
    generators fitted on a training split.
    """
    specs = []
    for col in frame.columns:
        s = frame[col]
        non_null = s.dropna()
        if pd.api.types.is_float_dtype(s.dtype) or pd.api.types.is_integer_dtype(s.dtype):
            integer = is_integral(non_null)
            specs.append(
                ColumnSpec(
                    name=str(col),
                    kind="numeric",
                    integer=integer,
                    n_unique=int(non_null.nunique()),
                    n_missing=int(s.isna().sum()),
                )
            )
        else:
            cats = tuple(sorted(map(str, pd.unique(s))))
            specs.append(
                ColumnSpec(name=str(col), kind="categorical", categories=cats, n_unique=len(cats))
            )
    return Schema(columns=tuple(specs), n_rows=len(frame))
