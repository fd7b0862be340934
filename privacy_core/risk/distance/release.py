"""The one release and the columns a distance or membership measure compares.

Shared by every measure under :mod:`privacy_core.risk` that evaluates one synthetic
release against the real table on a set of included columns (IMS, DCR, k-NN, GTCAP,
DOMIAS, the partition attack, MDS, the sdcMicro reproductions).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ...data import Schema
from ...errors import ParameterError
from ...inputs import ReviewData


def single_release(data: ReviewData, measure: str) -> pd.DataFrame:
    """The one synthetic table of a review (these measures evaluate one release)."""
    if len(data.synthetic) != 1:
        raise ParameterError(
            f"`{measure}` evaluates one synthetic release at a time; got "
            f"{len(data.synthetic)}. Call it once per release (and average the values "
            "over replicates of one generator)."
        )
    return data.synthetic[0]


def analysis_columns(schema: Schema, columns: Sequence[str] | None) -> list[str]:
    """The included columns to compare (all of them by default)."""
    if columns is None:
        return list(schema.included)
    cols = list(columns)
    if not cols:
        raise ParameterError("`columns` must name at least one column; got an empty list.")
    for c in cols:
        if c not in schema or not schema[c].included:
            raise ParameterError(
                f"`columns` must be included columns of the real table "
                f"({', '.join(schema.included)}); got {c!r}."
            )
    return cols
