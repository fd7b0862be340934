"""Data layer: loading tables, inferring their schema, and conforming releases to it.

Why one module: loading, schema inference and conformance share the rules for what a
column is (numeric, categorical, constant, identifier, missing); one module keeps the
rules and the messages that name them together.

Contract
--------
* :func:`load_table` reads CSV (delimiter and encoding sniffed) or Parquet with polars and
  returns a pandas DataFrame; ``?``, empty and ``NA`` cells are missing. It never executes
  code from the file (no pickle).
* :func:`infer_schema` decides each column's kind: ``numeric`` (integer or float),
  ``categorical``, ``boolean``, ``id`` (unique per row: excluded) or ``constant``
  (one value or all missing: excluded). Users override with ``overrides``.
* :func:`prepare_table` turns a real table into the engine's canonical form: included
  columns only, numerics as float64 (missing stays NaN), categoricals as strings with
  missing as its own level :data:`MISSING`.
* :func:`conform_table` checks a synthetic or holdout table against the real schema,
  raising :class:`~privacy_core.errors.SchemaMismatchError` with every problem at once
  (missing or extra columns, text in numeric columns), and returns it in canonical form.
  Categories the real table never holds are not a problem: they are kept, reported with
  an :class:`~privacy_core.errors.UnseenCategoryWarning`, and become levels of their own
  appended after the real categories (:meth:`Schema.with_unseen`).
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, Literal, NamedTuple

import numpy as np
import pandas as pd
import polars as pl

from .errors import (
    ColumnNotFoundError,
    DataLoadError,
    DataLoadWarning,
    SchemaError,
    SchemaMismatchError,
    SchemaWarning,
    UnseenCategoryWarning,
)

MISSING = "(missing)"
"""The level that stands for a missing categorical value."""

NULL_TOKENS = ("", "?", "NA", "N/A", "NaN", "nan", "null", "NULL", "None")
_CANDIDATE_DELIMITERS = ",;\t|"
_ID_MIN_ROWS = 20
# Whitespace-only lines before the header (csv exports with a blank first line).
_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\r?\n)+")
# Excel's delimiter hint, a first line such as "sep=;"
_SEP_HINT = re.compile(r"\A\s*sep=(.)[ \t]*\r?\n")

ColumnKind = Literal["numeric", "categorical", "boolean", "id", "constant"]
INCLUDED_KINDS = ("numeric", "categorical", "boolean")
OVERRIDE_KINDS = ("numeric", "categorical", "boolean", "exclude")


# --------------------------------------------------------------------------- loading
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
        frame, sep = _read_csv(raw, label, delimiter)
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
    frame = _check_column_types(_clean_text_columns(frame, label, decimal_comma=comma_ok), label)
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


def _read_csv(raw: bytes, label: str, delimiter: str | None) -> tuple[pl.DataFrame, str]:
    """The table (every cell as text) and the delimiter used."""
    text = _decode(raw, label)
    if "\r" in text:
        # polars ends lines at \n only: a file with classic Mac line endings (Excel's "CSV
        # (Macintosh)"), or mixed ones, would be read as one long header row
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _LEADING_BLANK_LINES.sub("", text.lstrip("\ufeff"))
    if not text.strip():
        raise DataLoadError(f"{label} is empty: it has no header and no rows.")
    hint = _SEP_HINT.match(text)
    if hint is not None:  # Excel's "sep=;" line names the delimiter and is not the header
        text = text[hint.end() :]
        delimiter = delimiter or hint.group(1)
    sep = delimiter or _sniff_delimiter(text)
    if len(sep) != 1:
        raise DataLoadError(f"The delimiter must be one character; got {sep!r}.")
    # the first record, not the first line: a quoted name may hold a line break
    try:
        header = next(csv.reader(io.StringIO(text, newline=""), delimiter=sep), [])
    except csv.Error:  # e.g. a stray carriage return: the first line is the header
        header = next(csv.reader([text.splitlines()[0]], delimiter=sep), [])
    names = [h.strip() for h in header]
    if len(names) == 1 and delimiter is not None:
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
    try:
        frame = pl.read_csv(
            io.BytesIO(text.encode("utf-8")),
            separator=sep,
            null_values=list(NULL_TOKENS),
            # every cell as text: the column types are decided by _clean_text_columns, which
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
    frame = frame.rename(dict(zip(frame.columns, names, strict=True)))
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
            stacklevel=3,
        )
    return (frame.filter(~empty) if n_empty else frame), sep


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


_LEADING_ZERO = r"^[+-]?0[0-9]"  # "007", "01234": a code, not a number
_DECIMAL_COMMA = r"^[+-]?(?:[0-9]{1,3}(?:\.[0-9]{3})+|[0-9]+),[0-9]+$"  # 1,5  1.234,56
_PLAIN_INTEGER = r"^[+-]?[0-9]+$"
# in a column with decimal commas, 1.234 is one thousand two hundred and thirty-four
_DOTTED_THOUSANDS = r"^[+-]?[0-9]{1,3}(?:\.[0-9]{3})+$"
_BOOLEAN_TEXT = ("true", "false")
_INT64_LIMIT = float(2**63)


def _clean_text_columns(
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


# --------------------------------------------------------------------------- schema
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

    def to_dict(self) -> dict:
        return {"n_rows": self.n_rows, "columns": [c.to_dict() for c in self.columns]}


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
    _check_frame(real, "real")
    real = _with_string_names(real)
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


def _check_frame(frame: pd.DataFrame, table: str) -> None:
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


def _with_string_names(frame: pd.DataFrame) -> pd.DataFrame:
    """Column names as strings, as the schema stores them (e.g. ``read_csv(header=None)``)."""
    if all(isinstance(c, str) for c in frame.columns):
        return frame
    return frame.rename(columns=str)


def _category_strings(series: pd.Series) -> pd.Series:
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
        return _category_levels(s)[0]
    else:
        # mixed objects: str() of each value (factorizing would merge 1, 1.0 and True)
        missing = s.isna().to_numpy()
        values = s.astype(str).to_numpy(dtype=object)
        values[missing] = MISSING
        return pd.Series(values, index=s.index, dtype=object)
    return out.fillna(MISSING).astype(object)


def _category_levels(series: pd.Series) -> tuple[pd.Series, np.ndarray, np.ndarray]:
    """:func:`_category_strings`, its distinct levels and each row's index into them."""
    if isinstance(series.dtype, pd.StringDtype):
        codes, uniques = pd.factorize(series)
        levels = np.asarray(uniques, dtype=object)
        if (codes < 0).any():
            levels = np.append(levels, MISSING)
            codes[codes < 0] = len(levels) - 1
        return pd.Series(levels[codes], index=series.index, dtype=object), levels, codes
    values = _category_strings(series)
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


def _level_strings(series: pd.Series) -> list[str]:
    """Sorted canonical levels of a column (missing included), converted from its distinct
    values; mixed objects are converted row by row, as hashing merges 0, 0.0 and False."""
    if series.dtype != object:
        series = pd.Series(series.unique(), dtype=series.dtype)
    return sorted(set(_category_strings(series)))


def _is_integral(values: pd.Series) -> bool:
    """Whether every non-missing value is a whole number (infinities are not)."""
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.mod(values.to_numpy(dtype=float), 1) == 0))


def _infer_column(series: pd.Series, name: str) -> ColumnSpec:
    n = len(series)
    n_missing = int(series.isna().sum())
    # everything below needs only the distinct values (one hash pass over the rows)
    distinct = pd.Series(series.unique(), dtype=series.dtype)
    levels_from = series if series.dtype == object else distinct  # see _level_strings
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
        is_num and (pd.api.types.is_integer_dtype(series.dtype) or (_is_integral(non_null)))
    )
    if pd.api.types.is_bool_dtype(series.dtype) or (is_num and n_unique <= 2 and integer):
        return ColumnSpec(kind="boolean", categories=tuple(_level_strings(levels_from)), **base)
    if n >= _ID_MIN_ROWS and n_missing == 0 and n_unique == n and (integer or not is_num):
        return ColumnSpec(
            kind="id",
            integer=integer,
            note="its value is unique on every row (an identifier)",
            **base,
        )
    if is_num:
        return ColumnSpec(kind="numeric", integer=integer, **base)
    return ColumnSpec(kind="categorical", categories=tuple(_level_strings(levels_from)), **base)


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
        integer = _is_integral(as_num.dropna())
        return replace(spec, kind="numeric", integer=integer, categories=(), note="set by the user")
    cats = tuple(_level_strings(series))
    if kind == "boolean" and len([c for c in cats if c != MISSING]) > 2:
        raise SchemaError(
            f"Column {spec.name!r} has {len(cats)} distinct values; a boolean column has two."
        )
    return replace(spec, kind=kind, categories=cats, note="set by the user")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- canonical form
def prepare_table(real: pd.DataFrame, schema: Schema) -> pd.DataFrame:
    """Return the real table in canonical form (included columns only)."""
    return prepare_table_coded(real, schema)[0]


def prepare_table_coded(
    real: pd.DataFrame, schema: Schema
) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """:func:`prepare_table` and the :func:`level_positions` of its categorical columns
    (a column whose levels are not all in the schema has none)."""
    _check_frame(real, "real")
    real = _with_string_names(real)
    out, coded = {}, {}
    for spec in schema.columns:
        if not spec.included:
            continue
        if spec.name not in real.columns:
            raise ColumnNotFoundError(f"Column {spec.name!r} of the schema is not in the table.")
        if spec.is_numeric:
            out[spec.name] = _as_float(pd.to_numeric(real[spec.name], errors="coerce"))
            continue
        out[spec.name], levels, codes = _category_levels(real[spec.name])
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
    _check_frame(other, table)
    other = _with_string_names(other)
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
            values, levels, codes = _category_levels(col)
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


_MAX_SHOWN = 5  # categories listed per column; the rest are counted


def unseen_message(unseen: Mapping[str, Mapping[str, Sequence[str]]]) -> str:
    """The note on categories never seen in the real data, naming every table, column and
    (up to five per column) category, and how they are treated.

    ``unseen`` maps a table's label (e.g. ``"holdout"``) to ``{column: categories}``.
    """
    parts = []
    for table, columns in unseen.items():
        shown = []
        for col, levels in columns.items():
            listed = ", ".join(map(repr, list(levels)[:_MAX_SHOWN]))
            more = f" and {len(levels) - _MAX_SHOWN} more" if len(levels) > _MAX_SHOWN else ""
            shown.append(f"column {col!r} has {listed}{more}")
        parts.append(f"The {table} table: {'; '.join(shown)}.")
    tables = set(unseen)
    why = []
    if any(t.startswith("holdout") for t in tables):
        why.append(
            " A holdout is another sample of the same population, so rare categories "
            "absent from the real sample are expected there."
        )
    if any(not t.startswith("holdout") for t in tables):
        why.append(" A synthetic release with such categories holds values its generator invented.")
    return (
        "Categories never seen in the real data. " + " ".join(parts) + " "
        "Each is kept as a category of its own, placed after the real categories: it never "
        "equals a real category, rows with the same unseen value equal each other, and the "
        "shared encoder gives it a one-hot column of its own." + "".join(why)
    )


def warn_unseen(unseen: Mapping[str, Mapping[str, Sequence[str]]], *, stacklevel: int = 2) -> None:
    """Issue the :class:`UnseenCategoryWarning` of :func:`unseen_message`."""
    warnings.warn(
        UnseenCategoryWarning(
            unseen_message(unseen),
            unseen={t: {c: tuple(v) for c, v in cols.items()} for t, cols in unseen.items()},
        ),
        stacklevel=stacklevel + 1,
    )


def fingerprint(frame: pd.DataFrame) -> str:
    """A short content hash of a table, used for cache keys and report provenance."""
    h = hashlib.sha256()
    h.update("|".join(map(str, frame.columns)).encode())
    h.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return h.hexdigest()[:16]


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
            integer = _is_integral(non_null)
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
