"""The sampling-weight column: its checks, and the analysis schema that leaves it out.

A survey's sampling weight says how many people of the population each record stands for.
It is design information, not an attribute: the threat model declares it
(:attr:`privacy_core.threat.ThreatModel.weights`), sdcMicro's measures read it for F_k,
the estimated population frequency of a key combination, and every other measure leaves
it out (the analysis schema marks it, :func:`mark_weight_column`), so a release need not
have it. Its checks live here once: the threat model, the command line, the app and the
sdcMicro measures give the same message for the same bad column.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .data import Schema
from .errors import ThreatModelError


def weight_not_in_table(column: str, table: str) -> str:
    """The message for a weight column that ``table`` lacks."""
    return (
        f"The weight column {column!r} is not in the {table} table; name a column of "
        "sampling weights or leave the weights out."
    )


def _weight_is_qi(column: str) -> str:
    return (
        f"The weight column {column!r} is also a quasi-identifier; a sampling weight "
        "is not something an attacker knows: take it out of the quasi-identifiers."
    )


def check_weight_name(
    column: object, quasi_identifiers: Sequence[str], sensitive: Sequence[str]
) -> str | None:
    """The declared weight column's name, checked against the threat model's lists.

    Raises
    ------
    ThreatModelError
        Not one column name, or also a quasi-identifier or a sensitive attribute.
    """
    if column is None:
        return None
    if not isinstance(column, str) or not column:
        raise ThreatModelError(
            f"The sampling-weight column must be one column name (or none); got {column!r}."
        )
    if column in quasi_identifiers:
        raise ThreatModelError(_weight_is_qi(column))
    if column in sensitive:
        raise ThreatModelError(
            f"The weight column {column!r} is also sensitive; a sampling weight says how "
            "many people a record stands for, not what an attacker wants to learn: take it "
            "out of the sensitive attributes."
        )
    return column


def check_weight_column(
    frame: pd.DataFrame,
    column: str,
    *,
    quasi_identifiers: Sequence[str] = (),
    table: str = "real",
    error: type[Exception] = ThreatModelError,
) -> np.ndarray:
    """The sampling weights of ``frame``, checked: present, not a quasi-identifier,
    numbers of at least 1 (finite, none missing).

    Parameters
    ----------
    frame
        The real (or holdout) table as loaded.
    column
        The weight column.
    quasi_identifiers
        The threat model's quasi-identifiers (the weight column must not be one).
    table
        The table's name in the message.
    error
        The exception raised (a measure's own check raises ParameterError).

    Returns
    -------
    numpy.ndarray
        The weights as floats, one per row.

    Raises
    ------
    ThreatModelError
        (or ``error``) The column is missing, a quasi-identifier, or holds text, values
        below 1, infinities or missing values.

    Notes
    -----
    A sampling weight is the number of population units a record stands for, so it is
    at least 1 (sdcMicro's ``freqCalc``: F_k, the sum of the weights of the records
    sharing key k, estimates the key's population frequency; Templ, Kowarik & Meindl
    2015, JSS 67(4), Section 3).
    """
    if column not in frame.columns:
        raise error(weight_not_in_table(column, table))
    if column in quasi_identifiers:
        raise error(_weight_is_qi(column))
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
    if not np.all(np.isfinite(values)) or np.any(values < 1):
        raise error(
            f"The weight column {column!r} must hold sampling weights: numbers of at least "
            "1 (how many people each record stands for), none missing"
            + ("." if table == "real" else f"; the {table} table's are not.")
        )
    return values


def mark_weight_column(schema: Schema, column: str | None) -> Schema:
    """The analysis schema: ``schema`` with the sampling-weight ``column`` marked
    (:meth:`~privacy_core.data.Schema.with_weight`: excluded from every measure but the
    sdcMicro ones, not required in a release); ``schema`` itself when ``column`` is None.

    Raises
    ------
    ThreatModelError
        ``column`` is not in the schema.
    """
    if column is None:
        return schema
    if column not in schema:
        raise ThreatModelError(weight_not_in_table(column, "real"))
    return schema.with_weight(column)


__all__ = ["check_weight_column", "check_weight_name", "mark_weight_column", "weight_not_in_table"]
