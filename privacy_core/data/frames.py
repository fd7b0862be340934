"""Checks and identity of the pandas tables handed to the data layer.

Contract
--------
:func:`check_frame` refuses what is not a table a review can use (not a DataFrame, no
rows, duplicate column names) with a :class:`~privacy_core.errors.SchemaError` naming the
table; :func:`with_string_names` gives the column names as the schema stores them;
:func:`fingerprint` is a short content hash of a table.
"""

from __future__ import annotations

import hashlib

import pandas as pd

from ..errors import SchemaError

__all__ = ["check_frame", "fingerprint", "with_string_names"]


def check_frame(frame: pd.DataFrame, table: str) -> None:
    """Refuse what is not a usable table (not a DataFrame, no rows, duplicate column
    names) with a :class:`SchemaError` naming the ``table``."""
    if not isinstance(frame, pd.DataFrame):
        raise SchemaError(
            f"The {table} table must be a pandas DataFrame; got {type(frame).__name__}."
        )
    if frame.shape[0] == 0:
        raise SchemaError(f"The {table} table has no rows.")
    cols = [str(c) for c in frame.columns]
    dup = sorted({c for c in cols if cols.count(c) > 1})
    if dup:
        raise SchemaError(f"The {table} table has duplicate column names: {', '.join(dup)}.")


def with_string_names(frame: pd.DataFrame) -> pd.DataFrame:
    """Column names as strings, as the schema stores them (e.g. ``read_csv(header=None)``)."""
    if all(isinstance(c, str) for c in frame.columns):
        return frame
    return frame.rename(columns=str)


def fingerprint(frame: pd.DataFrame) -> str:
    """A short content hash of a table, used for cache keys and report provenance."""
    h = hashlib.sha256()
    h.update("|".join(map(str, frame.columns)).encode())
    h.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return h.hexdigest()[:16]
