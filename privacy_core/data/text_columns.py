"""Typing the text cells of a loaded table: numbers, codes, decimal commas and booleans.

Contract
--------
:func:`type_text_columns` strips text cells, maps the :data:`NULL_TOKENS` to missing and
makes a text column numeric when every value is a number (Int64 when all are whole and
none is missing, else Float64). Codes with leading zeros (``007``, postcodes) stay text;
numbers written with decimal commas are read as Float64 with a warning (only for files
not delimited by commas); ``true``/``false`` columns become booleans.
"""

from __future__ import annotations

import warnings

import polars as pl

from ..errors import DataLoadWarning

__all__ = ["NULL_TOKENS", "type_text_columns"]

NULL_TOKENS = ("", "?", "NA", "N/A", "NaN", "nan", "null", "NULL", "None")

_LEADING_ZERO = r"^[+-]?0[0-9]"  # "007", "01234": a code, not a number
_DECIMAL_COMMA = r"^[+-]?(?:[0-9]{1,3}(?:\.[0-9]{3})+|[0-9]+),[0-9]+$"  # 1,5  1.234,56
_PLAIN_INTEGER = r"^[+-]?[0-9]+$"
# in a column with decimal commas, 1.234 is one thousand two hundred and thirty-four
_DOTTED_THOUSANDS = r"^[+-]?[0-9]{1,3}(?:\.[0-9]{3})+$"
_BOOLEAN_TEXT = ("true", "false")
_INT64_LIMIT = float(2**63)


def type_text_columns(
    frame: pl.DataFrame, label: str = "the file", *, decimal_comma: bool = False
) -> pl.DataFrame:
    """Strip text cells, map null tokens to null, and type the text columns.

    A text column becomes numeric when every value is a number: Int64 when all are whole
    numbers in range and none is missing, else Float64. Exceptions, in the order checked:
    values with leading zeros ("007", postcodes) stay text; a column of numbers with
    decimal commas ("1,5", "1.234,56", and "1.000" as a thousand beside them; only with
    ``decimal_comma``, for files not delimited by commas) is read as Float64 with a warning;
    "true"/"false" columns become booleans.
    """
    exprs = []
    for col, dtype in zip(frame.columns, frame.dtypes, strict=True):
        if dtype == pl.String:
            stripped = pl.col(col).str.strip_chars()
            cleaned = pl.when(stripped.is_in(list(NULL_TOKENS))).then(None).otherwise(stripped)
            exprs.append(cleaned.alias(col))
    if exprs:
        frame = frame.with_columns(exprs)
    casts, comma_columns = [], []
    for col, dtype in zip(frame.columns, frame.dtypes, strict=True):
        if dtype != pl.String:
            continue
        values = frame[col]
        present = values.drop_nulls()
        if present.len() == 0:
            continue
        if present.str.to_lowercase().is_in(list(_BOOLEAN_TEXT)).all():
            casts.append(pl.col(col).str.to_lowercase().eq("true").alias(col))
            continue
        if present.str.contains(_LEADING_ZERO).any():
            continue
        if (
            decimal_comma
            and present.str.contains(_DECIMAL_COMMA).any()
            and (
                present.str.contains(_DECIMAL_COMMA)
                | present.str.contains(_PLAIN_INTEGER)
                | present.str.contains(_DOTTED_THOUSANDS)
            ).all()
        ):
            comma_columns.append(col)
            casts.append(
                pl.col(col)
                .str.replace_all(".", "", literal=True)
                .str.replace(",", ".", literal=True)
                .cast(pl.Float64)
            )
            continue
        as_num = values.cast(pl.Float64, strict=False)
        if as_num.null_count() != values.null_count():
            continue  # some value is not a number: text
        numbers = as_num.drop_nulls()
        whole = bool((numbers == numbers.round(0)).all())
        in_range = bool((numbers.abs() < _INT64_LIMIT).all())
        if (
            whole
            and in_range
            and values.null_count() == 0
            and present.str.contains(_PLAIN_INTEGER).all()
        ):
            casts.append(pl.col(col).cast(pl.Int64))
        else:
            casts.append(pl.col(col).cast(pl.Float64))
    if casts:
        frame = frame.with_columns(casts)
    if comma_columns:
        warnings.warn(
            f"{label}: column(s) {', '.join(map(repr, comma_columns))} were read as numbers "
            "written with decimal commas (e.g. 1,5 = 1.5).",
            DataLoadWarning,
            stacklevel=3,
        )
    return frame
