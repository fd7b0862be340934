"""GTCAP's view of a table: key classes, min-max scaled numeric keys and the target.

:func:`reduce_frames` codes every table alike (categorical keys into one class id,
numerics scaled by the real table's range, missing numerics placed beyond any radius so
that missing matches missing only); :func:`distinct_rows` and :func:`subset` pick rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...data import Schema
from ...encoding import TableEncoder
from ...threat import ThreatModel

_MISSING_POSITION = -1e9  # scaled position of a missing numeric: beyond any radius


@dataclass(frozen=True)
class Frame:
    """One table reduced to what GTCAP compares."""

    group: np.ndarray  # categorical-key class id (shared coding across frames)
    keys: np.ndarray  # (n, p) numeric keys, min-max scaled by the real range
    target_code: np.ndarray | None  # categorical target codes
    target_value: np.ndarray | None  # numeric target, scaled


@dataclass(frozen=True)
class AttackColumns:
    """The attack's columns: the keys (categorical ones matched exactly, numeric ones
    within the radius) and the target."""

    keys: list[str]
    target: str
    categorical_keys: list[str]
    numeric_keys: list[str]
    target_numeric: bool

    @classmethod
    def of(cls, threat: ThreatModel, schema: Schema) -> AttackColumns:
        """The threat model's quasi-identifiers as keys and its target, split by type."""
        keys = list(threat.quasi_identifiers)
        target = threat.target
        return cls(
            keys=keys,
            target=target,
            categorical_keys=[c for c in keys if not schema[c].is_numeric],
            numeric_keys=[c for c in keys if schema[c].is_numeric],
            target_numeric=schema[target].is_numeric,
        )

    @property
    def numeric(self) -> list[str]:
        """The numeric keys, then the target when it is numeric (the min-max scaled columns)."""
        return self.numeric_keys + ([self.target] if self.target_numeric else [])


def reduce_frames(
    frames: dict[str, pd.DataFrame],
    schema: Schema,
    cols: AttackColumns,
    real: pd.DataFrame,
) -> dict[str, Frame]:
    """Every table as its key classes, scaled numeric keys and target codes or values,
    coded alike across the tables."""
    cat_keys, num_keys = cols.categorical_keys, cols.numeric_keys
    target, target_numeric = cols.target, cols.target_numeric
    names = list(frames)
    sizes = [len(frames[n]) for n in names]
    bounds = np.cumsum([0, *sizes])
    num_cols = cols.numeric
    encoded: dict[str, np.ndarray] = {}
    if num_cols:
        enc = TableEncoder(schema, columns=num_cols).fit(real)
        for n in names:
            x = enc.transform(frames[n]).astype(np.float64)
            # the encoder imputes; put missing values far outside every radius instead,
            # so that missing matches missing and nothing else
            missing = frames[n][num_cols].isna().to_numpy()
            x[missing] = _MISSING_POSITION
            encoded[n] = x
    if cat_keys:
        codes = np.column_stack(
            [
                pd.factorize(pd.concat([frames[n][c] for n in names], ignore_index=True))[0]
                for c in cat_keys
            ]
        )
        group_all = np.unique(codes, axis=0, return_inverse=True)[1].ravel()
    else:
        group_all = np.zeros(int(bounds[-1]), dtype=np.int64)
    if not target_numeric:
        t_all = pd.factorize(pd.concat([frames[n][target] for n in names], ignore_index=True))[0]
    out = {}
    p = len(num_keys)
    for j, n in enumerate(names):
        sl = slice(bounds[j], bounds[j + 1])
        x = encoded.get(n, np.zeros((sizes[j], 0)))
        out[n] = Frame(
            group=group_all[sl],
            keys=np.ascontiguousarray(x[:, :p]),
            target_code=None if target_numeric else t_all[sl],
            target_value=x[:, p] if target_numeric else None,
        )
    return out


def distinct_rows(f: Frame) -> tuple[np.ndarray, np.ndarray]:
    """First positions and multiplicities of the distinct (group, keys, target) rows."""
    t = f.target_value if f.target_value is not None else f.target_code
    mat = np.column_stack([f.group.astype(np.float64), f.keys, np.asarray(t, np.float64)])
    _, first, counts = np.unique(mat, axis=0, return_index=True, return_counts=True)
    order = np.argsort(first)
    return first[order], counts[order]


def subset(f: Frame, pos: np.ndarray) -> Frame:
    """The rows of ``f`` at positions ``pos``."""
    return Frame(
        group=f.group[pos],
        keys=f.keys[pos],
        target_code=None if f.target_code is None else f.target_code[pos],
        target_value=None if f.target_value is None else f.target_value[pos],
    )
