"""One entry point that turns user tables into validated, canonical review inputs.

Every measure starts here: the real table fixes the schema (inferred unless given), the
synthetic releases and the holdout are conformed to it (all mismatches reported at once),
and the threat model is validated against it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .data import Schema, conform_table, infer_schema, prepare_table
from .errors import InsufficientDataError, SchemaError, ThreatModelError
from .threat import ThreatModel


@dataclass(frozen=True, eq=False)
class ReviewData:
    """Canonical real, synthetic and holdout tables with their schema and threat model."""

    schema: Schema
    threat: ThreatModel
    real: pd.DataFrame
    synthetic: tuple[pd.DataFrame, ...]
    holdout: pd.DataFrame | None = None


def as_release_list(synthetic: pd.DataFrame | Sequence[pd.DataFrame]) -> list[pd.DataFrame]:
    if isinstance(synthetic, pd.DataFrame):
        return [synthetic]
    releases = list(synthetic)
    if not releases:
        raise SchemaError("Give at least one synthetic table.")
    return releases


@dataclass(frozen=True, eq=False)
class ReleaseTables:
    """Canonical real, synthetic and holdout tables with their schema (no threat model)."""

    schema: Schema
    real: pd.DataFrame
    synthetic: tuple[pd.DataFrame, ...]
    holdout: pd.DataFrame | None = None


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
    real_c = real[schema.included] if is_canonical(real, schema) else prepare_table(real, schema)
    releases = as_release_list(synthetic)
    conformed = []
    for i, frame in enumerate(releases):
        label = "synthetic" if len(releases) == 1 else f"synthetic #{i + 1}"
        conformed.append(_conform(frame, schema, label))
    hold = _conform(holdout, schema, "holdout") if holdout is not None else None
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
    return ReleaseTables(schema=schema, real=real_c, synthetic=tuple(conformed), holdout=hold)


def is_canonical(frame: pd.DataFrame, schema: Schema) -> bool:
    """Whether ``frame`` is already in canonical form for ``schema`` (nothing to convert).

    Canonical: exactly the included columns, numerics as float64, categoricals as python
    strings among the schema's levels. Checked on the distinct values only, so a table
    that a measure (or :func:`~privacy_core.fidelity.evaluate_fidelity`) already prepared
    is not converted value by value again. Infinite numerics are not canonical (the data
    layer turns them into missing values).
    """
    if list(frame.columns) != schema.included:
        return False
    for spec in schema.columns:
        if not spec.included:
            continue
        col = frame[spec.name]
        if spec.is_numeric:
            if col.dtype != np.float64 or np.isinf(col.to_numpy()).any():
                return False
        else:
            if col.dtype != object:
                return False
            levels = pd.unique(col)
            if not all(type(v) is str for v in levels) or not set(levels) <= set(spec.categories):
                return False
    return True


def _conform(frame: pd.DataFrame, schema: Schema, label: str) -> pd.DataFrame:
    return frame if is_canonical(frame, schema) else conform_table(frame, schema, table=label)


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
                      synthetic=tables.synthetic, holdout=tables.holdout)
