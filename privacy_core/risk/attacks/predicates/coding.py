"""How singling out codes tables and writes predicates.

Every analysed column becomes dense int32 ranks over the union of its values in the
tables (missing = -1), so that comparisons between ranks are comparisons between values
and predicates are evaluated on integer arrays. A predicate is three arrays of one row
per predicate and one column per condition: the column, the operator (:data:`EQ` ...
:data:`NOTNA`) and the value's rank. This module holds that vocabulary, the coder
(:class:`RankCoder`), the coding of a review's tables for one attack
(:func:`code_tables`, de-duplicated as in Anonymeter) and the text a person reads
(:func:`describe_predicates`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ....data import Schema
from ....inputs import ReviewData

# Predicate operators; every condition is coded as a rank interval [lo, hi] (negated for
# "!="), with -1 the rank of a missing numeric value.
EQ, NE, GT, LT, GE, LE, ISNA, NOTNA = range(8)
_SYMBOL = {EQ: "==", NE: "!=", GT: ">", LT: "<", GE: ">=", LE: "<="}
TOP = np.iinfo(np.int32).max


@dataclass
class RankCoder:
    """Per-column dense ranks over the union of values in the tables (missing = -1).

    Comparisons between ranks are the comparisons between values, so predicates can be
    evaluated on int32 arrays.
    """

    columns: list[str]
    numeric: np.ndarray
    universe: list[np.ndarray]

    @classmethod
    def fit_codes(
        cls,
        schema: Schema,
        columns: list[str],
        frames: Sequence[pd.DataFrame],
        known: Sequence[Mapping[str, np.ndarray]] = (),
    ) -> tuple[RankCoder, list[np.ndarray]]:
        """The coder of ``frames`` and each frame's (n_columns, n_rows) int32 codes.

        A categorical column whose level positions every frame already has in ``known``
        (from canonicalisation, :meth:`ReviewData.codes_of`) is used as is, with the
        schema's sorted levels as its universe. Any other column takes one hash pass over
        the stacked column (``pd.factorize``; missing -> -1) and a sort of the distinct
        values only: the tables are canonical (no infinities), so the factorized distinct
        values are exactly the universe.
        """
        numeric = np.array([schema[c].is_numeric for c in columns])
        bounds = np.cumsum([0, *(len(f) for f in frames)])
        out = [np.empty((len(columns), len(f)), dtype=np.int32) for f in frames]
        universe = []
        for j, (c, is_num) in enumerate(zip(columns, numeric, strict=False)):
            if not is_num and len(known) == len(frames) and all(c in k for k in known):
                for o, k in zip(out, known, strict=False):
                    o[j] = k[c]
                universe.append(np.array(schema[c].categories, dtype=object))
                continue
            stacked = np.concatenate(
                [f[c].to_numpy(dtype=float if is_num else object) for f in frames]
            )
            codes, distinct = pd.factorize(stacked)
            distinct = np.asarray(distinct, dtype=float if is_num else str)
            order = np.argsort(distinct)  # distinct values: no ties, any sort is exact
            rank = np.empty(distinct.size + 1, dtype=np.int32)
            rank[order] = np.arange(distinct.size, dtype=np.int32)
            rank[-1] = -1  # code -1 (missing) indexes the last slot
            coded = rank[codes]
            for i, o in enumerate(out):
                o[j] = coded[bounds[i] : bounds[i + 1]]
            sorted_values = distinct[order]
            universe.append(sorted_values if is_num else sorted_values.astype(object))
        return cls(list(columns), numeric, universe), out

    def subset(self, positions: Sequence[int]) -> RankCoder:
        return RankCoder(
            [self.columns[i] for i in positions],
            self.numeric[list(positions)],
            [self.universe[i] for i in positions],
        )

    def text(self, c: int, v: int) -> str:
        """Column ``c``'s value of rank ``v`` as a predicate writes it."""
        value = self.universe[c][v]
        return f"{float(value):.10g}" if self.numeric[c] else repr(str(value))


@dataclass(frozen=True)
class CodedTables:
    """The distinct training, synthetic and control rows of one attack, rank-coded on the
    attack's columns ((n_columns, n_rows) int32 each), with the index labels of the real
    rows and the positions of the distinct synthetic rows in the release."""

    coder: RankCoder
    training: np.ndarray
    synthetic: np.ndarray
    control: np.ndarray | None
    training_labels: np.ndarray
    control_labels: np.ndarray | None
    synthetic_rows: np.ndarray

    @property
    def n_training(self) -> int:
        return int(self.training.shape[1])

    @property
    def n_control(self) -> int | None:
        return None if self.control is None else int(self.control.shape[1])


def code_tables(
    data: ReviewData,
    synthetic: pd.DataFrame,
    holdout: pd.DataFrame | None,
    columns: list[str],
) -> CodedTables:
    """Code every table once and keep its distinct rows.

    De-duplication is over all analysed columns (as Anonymeter), and every predicate
    count then works on the int32 codes of ``columns``.
    """
    included = data.schema.included
    frames = [data.real, synthetic] + ([holdout] if holdout is not None else [])
    full_coder, coded = RankCoder.fit_codes(
        data.schema, included, frames, [data.codes_of(f) for f in frames]
    )
    sizes = [len(u) for u in full_coder.universe]
    distinct = [distinct_rows(x, sizes) for x in coded]
    on_cols = [included.index(c) for c in columns]
    coder = full_coder.subset(on_cols)
    if on_cols != list(range(len(included))):
        coded = [x[on_cols] for x in coded]
    ori_codes, syn_codes, *rest = [x[:, keep] for x, keep in zip(coded, distinct, strict=False)]
    return CodedTables(
        coder=coder,
        training=ori_codes,
        synthetic=syn_codes,
        control=rest[0] if rest else None,
        training_labels=data.real.index.to_numpy()[distinct[0]],
        control_labels=holdout.index.to_numpy()[distinct[2]] if holdout is not None else None,
        synthetic_rows=distinct[1],
    )


def stack_predicates(
    c: list, o: list, v: list, m: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Kept predicates' columns, operators and values as (n, m) arrays (empty arrays of
    width ``m`` when none was kept)."""
    if not c:
        return (
            np.zeros((0, m), dtype=np.int64),
            np.zeros((0, m), dtype=np.int8),
            np.zeros((0, m), dtype=np.int32),
        )
    return np.array(c, dtype=np.int64), np.array(o, dtype=np.int8), np.array(v, dtype=np.int32)


def describe_predicates(coder: RankCoder, queries: tuple[np.ndarray, ...]) -> list[str]:
    """Each predicate's text (values as :meth:`RankCoder.text`), written as a person would:
    a condition repeated as padding once, and a column's ``>= lo`` and ``<= hi`` pair (the
    outlier predicates' form) as ``column == value`` when lo = hi (a category) or
    ``lo <= column <= hi`` (a value bin). Each distinct condition is written once."""
    cols, ops, vals = queries
    if not len(cols):
        return []
    # A row whose conditions are on distinct columns (the multivariate and random
    # predicates, by construction) has no padding and no range pair: its text is its
    # conditions' texts joined, each distinct condition written once.
    ordered = np.sort(cols, axis=1)
    simple = (ordered[:, 1:] != ordered[:, :-1]).all(axis=1)
    out: list[str] = [""] * len(cols)
    if simple.any():
        rows = np.flatnonzero(simple)
        flat = [np.asarray(x)[rows].ravel() for x in (cols, ops, vals)]
        inverse, first = distinct_tuples(*flat)
        c, o, v = (x[first].tolist() for x in flat)
        written = [_condition_text(coder, *cond) for cond in zip(c, o, v, strict=True)]
        texts = np.array(written, dtype=object)[inverse.reshape(len(rows), -1)]
        for i, parts in zip(rows.tolist(), texts.tolist(), strict=True):
            out[i] = " & ".join(parts)
        if simple.all():
            return out
    memo: dict[tuple[int, int], str] = {}

    def value(c: int, v: int) -> str:
        if (c, v) not in memo:
            memo[(c, v)] = coder.text(c, v)
        return memo[(c, v)]

    for i in np.flatnonzero(~simple).tolist():
        row = (cols[i].tolist(), ops[i].tolist(), vals[i].tolist())
        conds = list(dict.fromkeys(zip(*row, strict=True)))
        bounds: dict[int, dict[int, int]] = {}
        for c, o, v in conds:
            if o in (GE, LE):
                bounds.setdefault(c, {})[o] = v
        parts, paired = [], set()
        for c, o, v in conds:
            if o in (GE, LE) and len(bounds[c]) == 2:
                if c not in paired:
                    paired.add(c)
                    lo, hi = bounds[c][GE], bounds[c][LE]
                    name = coder.columns[c]
                    parts.append(
                        f"{name} == {value(c, lo)}"
                        if lo == hi
                        else f"{value(c, lo)} <= {name} <= {value(c, hi)}"
                    )
            else:
                parts.append(_condition_text(coder, c, o, v))
        out[i] = " & ".join(parts)
    return out


def _condition_text(coder: RankCoder, c: int, o: int, v: int) -> str:
    """One condition as :func:`describe_predicates` writes it outside a range pair."""
    name = coder.columns[c]
    if o in (ISNA, NOTNA):
        return f"{name} is {'' if o == ISNA else 'not '}missing"
    return f"{name} {_SYMBOL[o]} {coder.text(c, v)}"


def distinct_tuples(*parts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The tuples ``(parts[0][i], parts[1][i], ...)`` numbered in order of first appearance:
    each position's number, and the position where each number first appears. Hashed
    (one ``pd.factorize`` per part on a dense key that stays below n², n the length), where
    ``np.unique(..., axis=0)`` would sort the rows."""
    dense = np.zeros(len(parts[0]), dtype=np.int64)
    for part in parts:
        codes, levels = pd.factorize(part)
        dense = pd.factorize(dense * len(levels) + codes)[0].astype(np.int64)
    # factorize numbers in order of first appearance: a number's first position is where
    # it exceeds every number before it
    before = np.maximum.accumulate(np.concatenate([[-1], dense[:-1]]))
    return dense, np.flatnonzero(dense > before)


def distinct_rows(codes: np.ndarray, universe_sizes: Sequence[int]) -> np.ndarray:
    """Positions of the first occurrence of each distinct row of coded columns (in order;
    as ``DataFrame.drop_duplicates``: equal codes are equal values, missing included)."""
    key = np.zeros(codes.shape[1], dtype=np.int64)
    bound = 1  # key < bound
    for x, size in zip(codes, universe_sizes, strict=False):
        width = int(size) + 1  # ranks and "missing"
        if bound > (1 << 62) // width:
            key = pd.factorize(key)[0].astype(np.int64)  # re-densify before overflow
            bound = int(key.max(initial=0)) + 1
        key = key * width + (x.astype(np.int64) + 1)
        bound *= width
    return np.flatnonzero(~pd.Series(key).duplicated().to_numpy())
