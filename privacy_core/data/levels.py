"""Categorical levels: the canonical string of each value and the integer codes of levels.

Contract
--------
A categorical column's canonical form is text, with a missing value as the level
:data:`MISSING`; :func:`category_strings` converts a column (booleans as ``True`` /
``False``, whole numbers without a decimal point), :func:`category_levels` adds its
distinct levels and each row's index into them, and :func:`level_positions` maps those to
positions in a schema's categories (the codes measures compare instead of strings).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["MISSING", "category_levels", "category_strings", "level_positions", "level_strings"]

MISSING = "(missing)"
"""The level that stands for a missing categorical value."""


def category_strings(series: pd.Series) -> pd.Series:
    """Canonical string form of a categorical column; missing becomes :data:`MISSING`."""
    s = series
    if pd.api.types.is_bool_dtype(s.dtype):
        out = s.map(lambda v: str(bool(v)) if pd.notna(v) else None)
    elif pd.api.types.is_numeric_dtype(s.dtype):

        def fmt(v: object) -> str | None:
            if pd.isna(v):
                return None
            f = float(v)  # type: ignore[arg-type]
            return str(int(f)) if f.is_integer() else repr(f)

        out = s.map(fmt)
    elif isinstance(s.dtype, pd.StringDtype):
        # text: convert the distinct values and gather (hashing each row once is cheaper
        # than a per-row string conversion); NA -> code -1 -> the MISSING slot at the end
        return category_levels(s)[0]
    else:
        # mixed objects: str() of each value (factorizing would merge 1, 1.0 and True)
        missing = s.isna().to_numpy()
        values = s.astype(str).to_numpy(dtype=object)
        values[missing] = MISSING
        return pd.Series(values, index=s.index, dtype=object)
    return out.fillna(MISSING).astype(object)


def category_levels(series: pd.Series) -> tuple[pd.Series, np.ndarray, np.ndarray]:
    """:func:`category_strings`, its distinct levels and each row's index into them."""
    if isinstance(series.dtype, pd.StringDtype):
        codes, uniques = pd.factorize(series)
        levels = np.asarray(uniques, dtype=object)
        if (codes < 0).any():
            levels = np.append(levels, MISSING)
            codes[codes < 0] = len(levels) - 1
        return pd.Series(levels[codes], index=series.index, dtype=object), levels, codes
    values = category_strings(series)
    codes, uniques = pd.factorize(values.to_numpy())
    return values, np.asarray(uniques, dtype=object), codes


def level_positions(
    levels: np.ndarray, codes: np.ndarray, categories: Sequence[str]
) -> np.ndarray | None:
    """Each row's position in the schema's ``categories`` (int32), from its index
    ``codes`` into ``levels``; None when a level is not among the categories.

    The categories are the real table's levels, sorted, then any unseen levels appended
    (:meth:`Schema.with_unseen`): positions are integer codes of a categorical column, equal
    exactly when the values are equal, and order-preserving among the real levels.
    Measures that compare or count values (singling out) use them instead of hashing the
    strings again.
    """
    where = {v: i for i, v in enumerate(categories)}
    remap = np.array([where.get(v, -1) for v in levels], dtype=np.int32)
    if (remap < 0).any():
        return None
    return remap[codes]


def level_strings(series: pd.Series) -> list[str]:
    """Sorted canonical levels of a column (missing included), converted from its distinct
    values; mixed objects are converted row by row, as hashing merges 0, 0.0 and False."""
    if series.dtype != object:
        series = pd.Series(series.unique(), dtype=series.dtype)
    return sorted(set(category_strings(series)))
