"""One entry point that turns user tables into validated, canonical review inputs.

Every measure starts here: the real table fixes the schema (inferred unless given), the
synthetic releases and the holdout are conformed to it (all mismatches reported at once),
and the threat model is validated against it.

Categories that a holdout or synthetic table holds and the real table does not are not a
mismatch: the review's schema is the real one extended by them
(:meth:`~privacy_core.data.Schema.with_unseen`: appended after the real categories, so
every table's level codes share one list and the real levels keep their codes), and one
:class:`~privacy_core.errors.UnseenCategoryWarning` names them.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .data import (
    ConformedTable,
    Schema,
    conform_table_levels,
    infer_schema,
    level_positions,
    prepare_table_coded,
    warn_unseen,
)
from .data.frames import check_frame
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
    level_codes: tuple[tuple[pd.DataFrame, LevelCodes], ...] = field(default=(), repr=False)


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
    level_codes: tuple[tuple[pd.DataFrame, LevelCodes], ...] = field(default=(), repr=False)


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

    Returns
    -------
    ReleaseTables
        Its ``schema`` is the given (or inferred) one, extended by any categories the
        synthetic or holdout tables hold and the real one does not.

    Warns
    -----
    UnseenCategoryWarning
        A synthetic or holdout table holds categories never seen in the real data (one
        warning naming every table, column and category).

    Raises
    ------
    SchemaMismatchError
        A synthetic or holdout table does not match the real one (missing or extra
        columns, text in a numeric column).
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
    labels = [
        "synthetic" if len(releases) == 1 else f"synthetic #{i + 1}" for i in range(len(releases))
    ]
    parts = [_conform(frame, schema, label) for frame, label in zip(releases, labels, strict=True)]
    if holdout is not None:
        parts.append(_conform(holdout, schema, "holdout"))
        labels.append("holdout")
    unseen = {label: p.unseen for label, p in zip(labels, parts, strict=True) if p.unseen}
    codes = [real_codes, *(p.codes for p in parts)]
    if unseen:
        merged: dict[str, set[str]] = {}
        for columns in unseen.values():
            for c, levels in columns.items():
                merged.setdefault(c, set()).update(levels)
        extended = schema.with_unseen(merged)
        # each table coded its own unseen levels after the real ones; recode them to the
        # shared list (the real prefix is the same in both, so only the tail moves)
        codes = [real_codes, *(_recoded(p, schema, extended) for p in parts)]
        schema = extended
    conformed = [p.frame for p in parts[: len(releases)]]
    hold = parts[-1].frame if holdout is not None else None
    tables = [("real", real_c), *[(f"synthetic #{i + 1}", f) for i, f in enumerate(conformed)]]
    if hold is not None:
        tables.append(("holdout", hold))
    for label, frame in tables:
        if len(frame) < min_rows:
            raise InsufficientDataError(
                f"The {label} table has {len(frame)} row(s); this measure needs at least "
                f"{min_rows}."
            )
    if not schema.included:
        raise InsufficientDataError("The real table has no usable column (all are excluded).")
    note = _not_in_real(unseen, real_c, real_codes)
    if note:
        warn_unseen(note, stacklevel=2)
    frames = [real_c, *conformed] + ([hold] if hold is not None else [])
    return ReleaseTables(
        schema=schema,
        real=real_c,
        synthetic=tuple(conformed),
        holdout=hold,
        level_codes=tuple(zip(frames, codes, strict=True)),
    )


def canonical_codes(frame: pd.DataFrame, schema: Schema) -> dict[str, np.ndarray] | None:
    """The level positions of a canonical table's categorical columns (one hash pass each,
    which the canonical check needs anyway); None when ``frame`` is not canonical.

    Canonical: exactly the included columns, numerics as float64, categoricals as python
    strings among the schema's levels; checked on the distinct values only, so a table a
    caller already prepared is not converted value by value again. Infinite numerics are
    not canonical (the data layer turns them into missing values)."""
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
            positions = level_positions(np.asarray(levels, dtype=object), codes, spec.categories)
            if positions is None:
                return None
            coded[spec.name] = positions
    return coded


def _conform(frame: pd.DataFrame, schema: Schema, label: str) -> ConformedTable:
    codes = canonical_codes(frame, schema)
    if codes is not None:
        return ConformedTable(frame, codes, {})
    return conform_table_levels(frame, schema, table=label)


def _not_in_real(
    unseen: dict[str, dict[str, tuple[str, ...]]], real: pd.DataFrame, real_codes: LevelCodes
) -> dict[str, dict[str, tuple[str, ...]]]:
    """``unseen`` without the levels the real table holds after all.

    A schema given by the caller may lack levels of the real table (e.g. one inferred on
    part of it); such a column has no real codes, and its levels are not news to report.
    """
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for label, columns in unseen.items():
        kept = {}
        for c, levels in columns.items():
            if c not in real_codes:
                held = set(real[c].unique())
                levels = tuple(v for v in levels if v not in held)
            if levels:
                kept[c] = levels
        if kept:
            out[label] = kept
    return out


def _recoded(part: ConformedTable, schema: Schema, extended: Schema) -> dict[str, np.ndarray]:
    """``part``'s level codes, from positions in ``schema.with_unseen(part.unseen)`` to
    positions in ``extended``."""
    codes = dict(part.codes)
    for c, levels in part.unseen.items():
        own = schema[c].categories + levels
        if own != extended[c].categories:
            moved = level_positions(np.asarray(own, dtype=object), codes[c], extended[c].categories)
            if moved is not None:  # always: the extended list holds every level of own
                codes[c] = moved
    return codes


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

    A declared sampling-weight column (``threat.weights``) is checked in ``real`` and
    ``holdout`` as given and marked in the schema (``ReviewData.schema``): the canonical
    tables leave it out, and a release need not have it. A ``real`` without it passes
    only with a ``schema`` that has it (tables canonicalised with the marked schema).

    Warns
    -----
    UnseenCategoryWarning
        See :func:`prepare_release_tables`.

    Raises
    ------
    SchemaMismatchError
        A synthetic or holdout table does not match the real one.
    ThreatModelError
        The threat model does not fit the schema, or the weight column is missing from
        the real table or the holdout or holds values that are not sampling weights.
    InsufficientDataError
        A table has fewer than ``min_rows`` rows.
    """
    if not isinstance(threat, ThreatModel):
        raise ThreatModelError(
            f"`threat` must be a ThreatModel; got {type(threat).__name__}. Build one with "
            "ThreatModel(quasi_identifiers=[...], sensitive=[...])."
        )
    if threat.weights is not None:
        # the declared sampling weight is checked in the tables as loaded and marked in
        # the schema: excluded from the analysis, not required in a release; the sdcMicro
        # measures read it from ``real`` / ``holdout``. Tables without it are canonical
        # ones made with a schema that marks it (an experiment's or a calibration's
        # splits): only the measures that read the weights refuse those.
        check_frame(real, "real")
        if holdout is not None:
            check_frame(holdout, "holdout")
        if threat.weights in real.columns:
            threat.validate_weights(real, holdout)
        if schema is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                schema = infer_schema(real)
        schema = threat.analysis_schema(schema)
    tables = prepare_release_tables(
        real, synthetic, holdout=holdout, schema=schema, min_rows=min_rows
    )
    threat.validate(tables.schema, tables.real)
    return ReviewData(
        schema=tables.schema,
        threat=threat,
        real=tables.real,
        synthetic=tables.synthetic,
        holdout=tables.holdout,
        level_codes=tables.level_codes,
    )
