"""One entry point that turns user tables into validated, canonical review inputs.

Every measure starts here: the real table fixes the schema (inferred unless given), the
synthetic releases and the holdout are conformed to it (all mismatches reported at once),
and the threat model is validated against it.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .data import (
    Schema,
    conform_table_coded,
    infer_schema,
    level_positions,
    prepare_table_coded,
)
from .errors import InsufficientDataError, SchemaError, ThreatModelError
from .threat import ThreatModel

LevelCodes = Mapping[str, np.ndarray]


class _CodedTables:
    """Lookup of the level codes computed while the tables were canonicalised."""

    level_codes: tuple[tuple[pd.DataFrame, LevelCodes], ...]

    def codes_of(self, frame: pd.DataFrame) -> LevelCodes:
        """``{column: level positions}`` of one of these tables (see
        :func:`~privacy_core.data.level_positions`); empty for any other frame, so a
        caller that subsets or copies a table falls back to coding it itself."""
        for f, codes in self.level_codes:
            if f is frame:
                return codes
        return {}


@dataclass(frozen=True, eq=False)
class ReviewData(_CodedTables):
    """Canonical real, synthetic and holdout tables with their schema and threat model.

    ``level_codes`` pairs each table (real, synthetic, holdout) with the integer codes of
    its categorical columns that canonicalisation computed anyway; read them with
    :meth:`codes_of`. The pairs hold the table itself, so a table swapped in later (e.g.
    by ``dataclasses.replace``) has no codes rather than another table's.
    """

    schema: Schema
    threat: ThreatModel
    real: pd.DataFrame
    synthetic: tuple[pd.DataFrame, ...]
    holdout: pd.DataFrame | None = None
    level_codes: tuple[tuple[pd.DataFrame, LevelCodes], ...] = field(
        default=(), repr=False)


def as_release_list(synthetic: pd.DataFrame | Sequence[pd.DataFrame]) -> list[pd.DataFrame]:
    if isinstance(synthetic, pd.DataFrame):
        return [synthetic]
    releases = list(synthetic)
    if not releases:
        raise SchemaError("Give at least one synthetic table.")
    return releases


@dataclass(frozen=True, eq=False)
class ReleaseTables(_CodedTables):
    """Canonical real, synthetic and holdout tables with their schema (no threat model)."""

    schema: Schema
    real: pd.DataFrame
    synthetic: tuple[pd.DataFrame, ...]
    holdout: pd.DataFrame | None = None
    level_codes: tuple[tuple[pd.DataFrame, LevelCodes], ...] = field(
        default=(), repr=False)


def prepare_release_tables(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    min_rows: int = 2,
) -> ReleaseTables:
    """Validate and canonicalise the inputs of a fidelity or utility measure.

    The same steps as :func:`~privacy_core.inputs.prepare_review` without the threat
    model, which fidelity and utility measures do not need.

    Raises
    ------
    SchemaMismatchError
        A synthetic or holdout table does not match the real one.
    InsufficientDataError
        A table has fewer than ``min_rows`` rows.
    """
    if schema is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schema = infer_schema(real)
    real_codes = canonical_codes(real, schema)
    if real_codes is not None:
        real_c = real[schema.included]
    else:
        real_c, real_codes = prepare_table_coded(real, schema)
    releases = as_release_list(synthetic)
    conformed, codes = [], [real_codes]
    for i, frame in enumerate(releases):
        label = "synthetic" if len(releases) == 1 else f"synthetic #{i + 1}"
        table, table_codes = _conform(frame, schema, label)
        conformed.append(table)
        codes.append(table_codes)
    hold = None
    if holdout is not None:
        hold, hold_codes = _conform(holdout, schema, "holdout")
        codes.append(hold_codes)
    tables = [("real", real_c), *[(f"synthetic #{i + 1}", f) for i, f in enumerate(conformed)]]
    if hold is not None:
        tables.append(("holdout", hold))
    for label, frame in tables:
        if len(frame) < min_rows:
            raise InsufficientDataError(
                f"The {label} table has {len(frame)} row(s); this measure needs at least "
                f"{min_rows}.")
    if not schema.included:
        raise InsufficientDataError("The real table has no usable column (all are excluded).")
    frames = [real_c, *conformed] + ([hold] if hold is not None else [])
    return ReleaseTables(schema=schema, real=real_c, synthetic=tuple(conformed), holdout=hold,
                         level_codes=tuple(zip(frames, codes, strict=True)))


def is_canonical(frame: pd.DataFrame, schema: Schema) -> bool:
    """Whether ``frame`` is already in canonical form for ``schema`` (nothing to convert).

    Canonical: exactly the included columns, numerics as float64, categoricals as python
    strings among the schema's levels. Checked on the distinct values only, so a table
    that a measure (or :func:`~privacy_core.fidelity.evaluate_fidelity`) already prepared
    is not converted value by value again. Infinite numerics are not canonical (the data
    layer turns them into missing values).
    """
    return canonical_codes(frame, schema) is not None


def canonical_codes(frame: pd.DataFrame, schema: Schema) -> dict[str, np.ndarray] | None:
    """The level positions of a canonical table's categorical columns (one hash pass each,
    which the canonical check needs anyway); None when ``frame`` is not canonical."""
    if list(frame.columns) != schema.included:
        return None
    coded = {}
    for spec in schema.columns:
        if not spec.included:
            continue
        col = frame[spec.name]
        if spec.is_numeric:
            if col.dtype != np.float64 or np.isinf(col.to_numpy()).any():
                return None
        else:
            if col.dtype != object:
                return None
            codes, levels = pd.factorize(col.to_numpy())
            # missing values (code -1) are not canonical: they become the MISSING level
            if (codes < 0).any() or not all(type(v) is str for v in levels):
                return None
            positions = level_positions(np.asarray(levels, dtype=object), codes,
                                        spec.categories)
            if positions is None:
                return None
            coded[spec.name] = positions
    return coded


def _conform(frame: pd.DataFrame, schema: Schema, label: str
             ) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    codes = canonical_codes(frame, schema)
    if codes is not None:
        return frame, codes
    return conform_table_coded(frame, schema, table=label)


def prepare_review(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    min_rows: int = 2,
) -> ReviewData:
    """Validate and canonicalise the inputs of a review: :func:`prepare_release_tables`
    plus the threat model's check against the schema.

    Raises
    ------
    SchemaMismatchError
        A synthetic or holdout table does not match the real one.
    ThreatModelError
        The threat model does not fit the schema.
    InsufficientDataError
        A table has fewer than ``min_rows`` rows.
    """
    if not isinstance(threat, ThreatModel):
        raise ThreatModelError(
            f"`threat` must be a ThreatModel; got {type(threat).__name__}. Build one with "
            "ThreatModel(quasi_identifiers=[...], sensitive=[...])."
        )
    tables = prepare_release_tables(real, synthetic, holdout=holdout, schema=schema,
                                    min_rows=min_rows)
    threat.validate(tables.schema, tables.real)
    return ReviewData(schema=tables.schema, threat=threat, real=tables.real,
                      synthetic=tables.synthetic, holdout=tables.holdout,
                      level_codes=tables.level_codes)
