"""One entry point that turns user tables into validated, canonical review inputs.

Every measure starts here: the real table fixes the schema (inferred unless given), the
synthetic releases and the holdout are conformed to it (all mismatches reported at once),
and the threat model is validated against it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

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


def prepare_review(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    min_rows: int = 2,
) -> ReviewData:
    """Validate and canonicalise the inputs of a review.

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
    if schema is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schema = infer_schema(real)
    real_c = prepare_table(real, schema)
    threat.validate(schema, real_c)
    releases = as_release_list(synthetic)
    labels = ["synthetic" if len(releases) == 1 else f"synthetic #{i + 1}"
              for i in range(len(releases))]
    conformed = [conform_table(frame, schema, table=label)
                 for frame, label in zip(releases, labels, strict=True)]
    hold = conform_table(holdout, schema, table="holdout") if holdout is not None else None
    tables = [("real", real_c), *zip(labels, conformed, strict=True)]
    if hold is not None:
        tables.append(("holdout", hold))
    for label, frame in tables:
        if len(frame) < min_rows:
            raise InsufficientDataError(
                f"The {label} table has {len(frame)} row(s); this measure needs at least "
                f"{min_rows}."
            )
    return ReviewData(schema=schema, threat=threat, real=real_c,
                      synthetic=tuple(conformed), holdout=hold)
