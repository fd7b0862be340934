"""Reading CSV text: encoding, delimiter, header checks and the problems of malformed files.

Contract
--------
:func:`read_csv_text` decodes a CSV file's bytes (UTF-8, UTF-16 with a byte-order mark,
or Windows-1252/Latin-1 with a :class:`~privacy_core.errors.DataLoadWarning`), normalises
line endings, honours Excel's ``sep=`` line, sniffs the delimiter, checks the header (no
empty or duplicate names) and reads every cell as text with polars; blank rows are
dropped with a warning. A malformed file raises
:class:`~privacy_core.errors.DataLoadError` naming the line at fault
(:func:`_csv_problem`), in the file's terms rather than the parser's.
"""

from __future__ import annotations

import csv
import io
import re
import warnings

import polars as pl

from ..errors import DataLoadError, DataLoadWarning
from .text_columns import NULL_TOKENS

__all__ = ["read_csv_text"]

_CANDIDATE_DELIMITERS = ",;\t|"
# Whitespace-only lines before the header (csv exports with a blank first line).
_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\r?\n)+")
# Excel's delimiter hint, a first line such as "sep=;"
_SEP_HINT = re.compile(r"\A\s*sep=(.)[ \t]*\r?\n")


def _decode(raw: bytes, label: str) -> str:
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):  # Excel's "Unicode text" is UTF-16 with a BOM
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError:
            raise DataLoadError(f"{label} starts like UTF-16 text but cannot be decoded.") from None
    if b"\x00" in raw[:4096]:
        raise DataLoadError(f"{label} looks like a binary file, not a CSV text or Parquet file.")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    for encoding in ("cp1252", "latin-1"):
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            continue
        warnings.warn(
            f"{label} is not valid UTF-8; it was decoded as {encoding}. "
            "Check accented characters, or save the file as UTF-8.",
            DataLoadWarning,
            stacklevel=3,
        )
        return text
    raise DataLoadError(f"{label} is neither UTF-8 nor Windows-1252/Latin-1 text.")


def _sniff_delimiter(text: str) -> str:
    sample = "\n".join(text.splitlines()[:50])
    try:
        return csv.Sniffer().sniff(sample, delimiters=_CANDIDATE_DELIMITERS).delimiter
    except csv.Error:
        header = text.splitlines()[0] if text else ""
        counts = {d: header.count(d) for d in _CANDIDATE_DELIMITERS}
        best = max(counts, key=lambda d: counts[d])
        return best if counts[best] > 0 else ","


def read_csv_text(raw: bytes, label: str, delimiter: str | None) -> tuple[pl.DataFrame, str]:
    """The table (every cell as text) and the delimiter used.

    The steps: decode the bytes and normalise the text, choose the delimiter, read and
    check the header, parse the cells, drop the blank rows.
    """
    text = _normalised_text(_decode(raw, label), label)
    text, sep, chosen = _choose_delimiter(text, delimiter)
    names = _header_names(text, sep, label, chosen=chosen is not None)
    frame = _parse_cells(text, sep, names, label)
    return _without_blank_rows(frame, label), sep


def _normalised_text(text: str, label: str) -> str:
    """``\\n`` line endings, no byte-order mark and no blank lines before the header."""
    if "\r" in text:
        # polars ends lines at \n only: a file with classic Mac line endings (Excel's "CSV
        # (Macintosh)"), or mixed ones, would be read as one long header row
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _LEADING_BLANK_LINES.sub("", text.lstrip("\ufeff"))
    if not text.strip():
        raise DataLoadError(f"{label} is empty: it has no header and no rows.")
    return text


def _choose_delimiter(text: str, delimiter: str | None) -> tuple[str, str, str | None]:
    """(the text without Excel's "sep=" line, the delimiter to split on, the delimiter
    the user or that line chose; None when it was sniffed)."""
    hint = _SEP_HINT.match(text)
    if hint is not None:  # Excel's "sep=;" line names the delimiter and is not the header
        text = text[hint.end() :]
        delimiter = delimiter or hint.group(1)
    sep = delimiter or _sniff_delimiter(text)
    if len(sep) != 1:
        raise DataLoadError(f"The delimiter must be one character; got {sep!r}.")
    return text, sep, delimiter


def _header_names(text: str, sep: str, label: str, *, chosen: bool) -> list[str]:
    """The column names of the header, refused when one is empty or repeated, or when a
    ``chosen`` delimiter leaves one column while the header holds another delimiter."""
    # the first record, not the first line: a quoted name may hold a line break
    try:
        header = next(csv.reader(io.StringIO(text, newline=""), delimiter=sep), [])
    except csv.Error:  # e.g. a stray carriage return: the first line is the header
        header = next(csv.reader([text.splitlines()[0]], delimiter=sep), [])
    names = [h.strip() for h in header]
    if len(names) == 1 and chosen:
        others = [d for d in _CANDIDATE_DELIMITERS if d != sep and d in text.splitlines()[0]]
        if others:
            raise DataLoadError(
                f"{label} has only one column when split on {sep!r}, but its header contains "
                f"{others[0]!r}: choose {others[0]!r} as the delimiter."
            )
    if any(n == "" for n in names) and len(names) > 1:
        position = names.index("") + 1
        trailing = (
            (f" (the header ends with the delimiter {sep!r}: remove it, or name the column)")
            if position == len(names)
            else ""
        )
        raise DataLoadError(f"{label} has an empty column name at position {position}{trailing}.")
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise DataLoadError(
            f"{label} has duplicate column names: {', '.join(map(repr, duplicates))}. "
            "Rename them so that every column name is unique."
        )
    return names


def _parse_cells(text: str, sep: str, names: list[str], label: str) -> pl.DataFrame:
    """Every cell as text, under the header's ``names``; a malformed file is refused with
    the line at fault."""
    try:
        frame = pl.read_csv(
            io.BytesIO(text.encode("utf-8")),
            separator=sep,
            null_values=list(NULL_TOKENS),
            # every cell as text: the column types are decided by type_text_columns, which
            # keeps codes with leading zeros and reads decimal commas
            infer_schema=False,
            truncate_ragged_lines=False,
            quote_char='"',
        )
    except Exception as exc:
        detail: str | None = _csv_problem(text, sep, len(names)) or str(exc).splitlines()[0]
        raise DataLoadError(
            f"{label} could not be parsed as CSV with delimiter {sep!r}: {detail}"
        ) from None
    if frame.height == 0 and len(text.strip().splitlines()) > 1:
        # the lines after the header vanished into it: an unclosed quote in the header
        first = text.splitlines()[0]
        detail = _csv_problem(text, sep, len(names)) or (
            f'a quote (") in the header {first[:80]!r} runs on into the lines below; '
            "remove it or close it."
            if '"' in first
            else None
        )
        if detail:
            raise DataLoadError(
                f"{label} could not be parsed as CSV with delimiter {sep!r}: {detail}"
            )
    if frame.width != len(names):  # the csv module and polars split the header differently
        raise DataLoadError(
            f"{label} has {len(names)} column name(s) in its header but was read as "
            f"{frame.width} columns with delimiter {sep!r}; check the delimiter, the quotes "
            "and the line endings (save it again as CSV from a spreadsheet)."
        )
    return frame.rename(dict(zip(frame.columns, names, strict=True)))


def _without_blank_rows(frame: pl.DataFrame, label: str) -> pl.DataFrame:
    """The rows with at least one value (a warning counts the others); refused when no
    row has one."""
    # polars reads a blank line as a row of nulls; such rows carry no record.
    empty = frame.select(pl.all_horizontal(pl.all().is_null())).to_series()
    n_empty = int(empty.sum())
    if n_empty and n_empty == frame.height:
        raise DataLoadError(
            f"{label} has a header ({frame.width} columns) but no data rows: its {n_empty} "
            "row(s) are blank lines or have every cell missing (empty or a missing-value "
            f"token such as {', '.join(NULL_TOKENS[1:4])}); a review needs at least one "
            "record with values."
        )
    if n_empty and n_empty < frame.height:
        warnings.warn(
            f"{label}: skipped {n_empty} empty row(s) (blank lines or every cell missing).",
            DataLoadWarning,
            stacklevel=4,  # the caller of load_table, as the other loading warnings
        )
    return frame.filter(~empty) if n_empty else frame


def _csv_problem(text: str, sep: str, n_columns: int) -> str | None:
    """Where and why a file is not valid CSV, in the user's terms (line numbers of the
    file) rather than the parser's; None when the csv module finds nothing wrong."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, strict=True)
    start = 1
    try:
        for row in reader:
            if len(row) > n_columns:
                return (
                    f"line {start} has {len(row)} fields but the header has {n_columns} "
                    f"columns (a {sep!r} inside a value that is not quoted?)."
                )
            start = reader.line_num + 1
    except csv.Error as exc:
        if "unexpected end of data" in str(exc):
            return f'the quote (") opened on line {start} is never closed; close it or remove it.'
        if reader.line_num > start:  # the record began on an earlier line
            return (
                f"a quoted value that starts on line {start} runs on to line "
                f'{reader.line_num}; check the quotes (") on line {start}.'
            )
        return (
            f'line {reader.line_num} has a quote (") inside a value that is not quoted '
            'as a whole; write it as two quotes ("") inside a quoted value.'
        )
    return None
