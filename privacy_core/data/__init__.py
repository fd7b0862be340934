"""Data layer: loading tables, inferring their schema, and conforming releases to it.

Contract
--------
* :func:`load_table` reads CSV (delimiter and encoding sniffed) or Parquet with polars and
  returns a pandas DataFrame; ``?``, empty and ``NA`` cells are missing. It never executes
  code from the file (no pickle).
* :func:`infer_schema` decides each column's kind: ``numeric`` (integer or float),
  ``categorical``, ``boolean``, ``id`` (unique per row: excluded) or ``constant``
  (one value or all missing: excluded). Users override with ``overrides``; a declared
  sampling-weight column is marked ``weight`` (excluded; :meth:`Schema.with_weight`).
* :func:`prepare_table` turns a real table into the engine's canonical form: included
  columns only, numerics as float64 (missing stays NaN), categoricals as strings with
  missing as its own level :data:`MISSING`.
* :func:`conform_table` checks a synthetic or holdout table against the real schema,
  raising :class:`~privacy_core.errors.SchemaMismatchError` with every problem at once
  (missing or extra columns, text in numeric columns), and returns it in canonical form.
  Categories the real table never holds are not a problem: they are kept, reported with
  an :class:`~privacy_core.errors.UnseenCategoryWarning`, and become levels of their own
  appended after the real categories (:meth:`Schema.with_unseen`).

Modules
-------
``loading``, ``csv_reader``, ``text_columns``
    Reading a file into a table: the format, the CSV text, the types of text cells.
``schema``
    :class:`ColumnSpec` and :class:`Schema`.
``inference``
    :func:`infer_schema` and :func:`canonical_schema`.
``levels``
    Categorical levels: their canonical strings and integer codes (:data:`MISSING`).
``canonical``
    :func:`prepare_table` and :func:`conform_table` with their coded variants.
``unseen``
    The note and warning on categories the real table does not hold.
``frames``
    Checks of the tables handed in, and :func:`fingerprint`.
"""

from __future__ import annotations

from .canonical import (
    ConformedTable,
    conform_table,
    conform_table_coded,
    conform_table_levels,
    prepare_table,
    prepare_table_coded,
)
from .frames import fingerprint
from .inference import canonical_schema, infer_schema
from .levels import MISSING, level_positions
from .loading import load_table
from .schema import INCLUDED_KINDS, OVERRIDE_KINDS, WEIGHT_NOTE, ColumnKind, ColumnSpec, Schema
from .text_columns import NULL_TOKENS
from .unseen import unseen_message, warn_unseen

__all__ = [
    "INCLUDED_KINDS",
    "MISSING",
    "NULL_TOKENS",
    "OVERRIDE_KINDS",
    "WEIGHT_NOTE",
    "ColumnKind",
    "ColumnSpec",
    "ConformedTable",
    "Schema",
    "canonical_schema",
    "conform_table",
    "conform_table_coded",
    "conform_table_levels",
    "fingerprint",
    "infer_schema",
    "level_positions",
    "load_table",
    "prepare_table",
    "prepare_table_coded",
    "unseen_message",
    "warn_unseen",
]
