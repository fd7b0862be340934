"""Loading a table: CSV or Parquet from a path, bytes or an upload, into pandas.

Contract
--------
:func:`load_table` reads CSV (delimiter and encoding sniffed, :mod:`.csv_reader`) or
Parquet with polars and returns a pandas DataFrame; ``?``, empty and ``NA`` cells are
missing, and text columns are typed (:mod:`.text_columns`). It never executes code from
the file (no pickle).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import IO

import pandas as pd
import polars as pl

from ..errors import DataLoadError
from .csv_reader import read_csv_text
from .text_columns import type_text_columns

__all__ = ["load_table"]


def load_table(
    source: str | Path | bytes | IO[bytes],
    *,
    name: str | None = None,
    delimiter: str | None = None,
) -> pd.DataFrame:
    """Read a CSV or Parquet table.

    Parameters
    ----------
    source
        A path, the file's bytes, or a binary file-like object (e.g. a Streamlit upload).
    name
        The file name, used for the format decision and in error messages.
    delimiter
        Force a CSV delimiter; by default it is sniffed from the first lines.

    Returns
    -------
    pandas.DataFrame
        Columns in file order; numeric columns as int64/float64, text as strings, missing
        cells as NaN/None.

    Raises
    ------
    DataLoadError
        Empty file, header only, binary non-Parquet content, a single column, duplicate
        column names, or a Parquet file that cannot be read; malformed CSV (a row with more
        fields than the header, an unclosed or stray quote) with the line it is on.
    """
    raw, label = _read_bytes(source, name)
    if len(raw.strip()) == 0:
        raise DataLoadError(f"{label} is empty: it has no header and no rows.")
    if raw[:4] == b"PAR1" or label.lower().endswith(".parquet"):
        frame, comma_ok = _read_parquet(raw, label), False
    else:
        frame, sep = read_csv_text(raw, label, delimiter)
        comma_ok = sep != ","  # in a comma-delimited file "1,234" is a thousands separator
    if frame.height == 0:
        raise DataLoadError(
            f"{label} has a header ({frame.width} columns) but no data rows; "
            "a review needs at least one record."
        )
    if frame.width < 2:
        raise DataLoadError(
            f"{label} was read as a single column ({frame.columns[0]!r}); a review needs at "
            "least a quasi-identifier and a sensitive column. If the file uses another "
            "delimiter, choose it explicitly."
        )
    frame = _check_column_types(type_text_columns(frame, label, decimal_comma=comma_ok), label)
    try:
        return frame.to_pandas()
    except Exception as exc:  # pyarrow / polars conversion errors of exotic types
        raise DataLoadError(
            f"{label} has column types that cannot be converted to a table: "
            f"{str(exc).splitlines()[0]}"
        ) from None


def _check_column_types(frame: pl.DataFrame, label: str) -> pl.DataFrame:
    """Reject nested columns and narrow 128-bit integers that pandas cannot hold."""
    nested = [
        c
        for c, t in zip(frame.columns, frame.dtypes, strict=True)
        if t.is_nested() or t == pl.Object
    ]
    if nested:
        raise DataLoadError(
            f"{label} has nested (list or struct) column(s) {', '.join(map(repr, nested))}; "
            "a review needs one value per cell. Flatten or drop them."
        )
    wide = [
        c for c, t in zip(frame.columns, frame.dtypes, strict=True) if t in (pl.Int128, pl.UInt128)
    ]
    if wide:
        frame = frame.with_columns([pl.col(c).cast(pl.Float64) for c in wide])
    return frame


def _read_bytes(source: str | Path | bytes | IO[bytes], name: str | None) -> tuple[bytes, str]:
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.exists():
            raise DataLoadError(f"File not found: {str(path)!r}.")
        if path.is_dir():
            raise DataLoadError(f"{str(path)!r} is a folder, not a CSV or Parquet file.")
        return path.read_bytes(), name or path.name
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), name or "the file"
    if hasattr(source, "read"):
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        return bytes(data), name or getattr(source, "name", None) or "the file"
    raise DataLoadError(
        f"Cannot read a table from an object of type {type(source).__name__}; "
        "pass a path, bytes or a binary file object."
    )


def _read_parquet(raw: bytes, label: str) -> pl.DataFrame:
    try:
        return pl.read_parquet(io.BytesIO(raw))
    except Exception as exc:  # polars raises several internal types
        raise DataLoadError(f"{label} could not be read as Parquet: {exc}") from None
