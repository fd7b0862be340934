"""Singling out: predicates from the release that isolate one synthetic record, tried on
real records (rank-coded columns, bitset and histogram counting).

Why one module: predicate generation, the rank coding and the bitset counting are tuned
together for speed (issue 14); split, the hot loop would cross module boundaries.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, cast

import numpy as np
import pandas as pd
from scipy.optimize import curve_fit
from scipy.stats import hypergeom

from ...data import Schema
from ...errors import (
    ParameterError,
    UntrustworthyResultWarning,
)
from ...inputs import ReviewData
from ...progress import ProgressFn
from ...results import MetricResult
from ...stats import child_seeds
from ...threat import ThreatModel
from ...validation import (
    check_choice,
    check_confidence,
    check_positive_int,
    check_seed,
)
from .common import (
    AttackResult,
    _attack_inputs,
    _check_n_attacks,
    _resolve_columns,
    _rngs,
    _sample_positions,
    _warn_no_control,
    _warn_untrustworthy,
    _with_summary,
)

SINGLING_OUT_MODES = ("multivariate", "univariate", "paper")
# The risk-insertion and contrastive papers' protocol (risk-insertion-framework.md §6.2.2,
# contrastive-embeddings.md §5.2): the univariate attack and multivariate attacks on 3 to
# 12 columns, each with at most 2,000 guesses; the reported risk is the highest.
PAPER_N_ATTACKS = 2000
PAPER_N_COLS = tuple(range(3, 13))
DEFAULT_N_ATTACKS = 500
SIZE_CORRECTIONS = ("mixture", "subsample", "fit", "none")
_QUERY_BATCH = 1000  # predicates drawn per round (as Anonymeter)
_SATURATION_BATCHES = 100  # stop drawing after this many rounds without a new predicate
_MASK_BLOCK = 1 << 20  # mask entries, or bytes of condition bitsets, held at once
# Bytes for the generator's bit index; beyond it the index covers a row subset (a
# pre-filter) and the survivors are counted exactly. 64 MB keeps multivariate singling out
# near Anonymeter's memory (bench/bench_attack_memory.py: 512 MB rose 638 MB at 50k CART
# rows, 10x Anonymeter's 61 MB) and is faster too: a release with tens of thousands of
# distinct values per numeric column spends longer building the full index than using it.
_BITSET_BUDGET = 64 << 20
_MIN_PREFILTER_ROWS = 1024  # smaller row subsets reject too little to be worth it
_CELL_SAMPLE_ROWS = 1 << 16  # rows of the outlier search's pre-filter index
# predicates whose conditions repeat at least this often on average are counted by bitsets
# of their distinct conditions; below it (every target's own value) one mask per condition
# is cheaper
_SHARED_CONDITIONS = 8

# Predicate operators; every condition is coded as a rank interval [lo, hi] (negated for
# "!="), with -1 the rank of a missing numeric value.
_EQ, _NE, _GT, _LT, _GE, _LE, _ISNA, _NOTNA = range(8)
_SYMBOL = {_EQ: "==", _NE: "!=", _GT: ">", _LT: "<", _GE: ">=", _LE: "<="}
_TOP = np.iinfo(np.int32).max


@dataclass
class _RankCoder:
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
    ) -> tuple[_RankCoder, list[np.ndarray]]:
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

    def subset(self, positions: Sequence[int]) -> _RankCoder:
        return _RankCoder(
            [self.columns[i] for i in positions],
            self.numeric[list(positions)],
            [self.universe[i] for i in positions],
        )

    def text(self, c: int, v: int) -> str:
        """Column ``c``'s value of rank ``v`` as a predicate writes it."""
        value = self.universe[c][v]
        return f"{float(value):.10g}" if self.numeric[c] else repr(str(value))


def _intervals(ops: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rank interval [lo, hi] and negation flag of each condition."""
    v = vals.astype(np.int64)
    lo = np.select(
        [ops == _GT, ops == _LT, ops == _LE, ops == _ISNA, ops == _NOTNA],
        [v + 1, 0, 0, -1, 0],
        default=v,
    )
    hi = np.select(
        [ops == _GT, ops == _GE, ops == _LT, ops == _ISNA, ops == _NOTNA],
        [_TOP, _TOP, v - 1, -1, _TOP],
        default=v,
    )
    return lo, hi, ops == _NE


def _count_matches(
    codes: np.ndarray, cols: np.ndarray, ops: np.ndarray, vals: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Rows matched by each predicate (a conjunction of conditions), and one matched row.

    ``codes`` is (n_columns, n_rows); ``cols``, ``ops``, ``vals`` are (n_predicates,
    n_conditions). Returns counts and the position of a matching row (-1 if none).
    """
    n_rows = codes.shape[1]
    n_q, m = cols.shape
    counts = np.zeros(n_q, dtype=np.int64)
    first = np.full(n_q, -1, dtype=np.int64)
    if n_q == 0 or n_rows == 0:
        return counts, first
    lo, hi, neg = _intervals(ops, vals)
    if m == 1:
        for c in np.unique(cols[:, 0]):
            sel = cols[:, 0] == c
            counts[sel], first[sel] = _interval_counts(
                codes[c], lo[sel, 0], hi[sel, 0], neg[sel, 0]
            )
        return counts, first
    keys = np.stack(
        [cols.ravel(), lo.ravel(), hi.ravel(), neg.ravel().astype(np.int64)], axis=1
    ).astype(np.int64)
    distinct, inverse = np.unique(keys, axis=0, return_inverse=True)
    if len(distinct) * _SHARED_CONDITIONS <= keys.shape[0]:
        return _bitset_counts(codes, distinct, inverse.reshape(n_q, m))
    chunk = max(1, _MASK_BLOCK // n_rows)
    for start in range(0, n_q, chunk):
        sl = slice(start, min(n_q, start + chunk))
        mask = _condition_mask(codes, cols[sl, 0], lo[sl, 0], hi[sl, 0], neg[sl, 0])
        for j in range(1, m):
            mask &= _condition_mask(codes, cols[sl, j], lo[sl, j], hi[sl, j], neg[sl, j])
        c = np.count_nonzero(mask, axis=1)
        counts[sl] = c
        first[sl] = np.where(c > 0, mask.argmax(axis=1), -1)
    return counts, first


def _condition_mask(
    codes: np.ndarray, cols: np.ndarray, lo: np.ndarray, hi: np.ndarray, neg: np.ndarray
) -> np.ndarray:
    """(n_predicates, n_rows) truth of one condition of each predicate."""
    x = codes[cols]  # gathered column values
    cond = x >= lo[:, None]
    cond &= x <= hi[:, None]
    if neg.any():
        cond[neg] = ~cond[neg] & (x[neg] >= 0)
    return cond


_LOWEST_BIT = np.array([(b & -b).bit_length() - 1 for b in range(256)], dtype=np.int64)


def _and_rows(table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """For each row of ``ids``, the AND of the ``table`` rows (bitsets) it names."""
    acc = table[ids[:, 0]]  # fancy indexing: a copy, safe to AND into
    for j in range(1, ids.shape[1]):
        acc &= table[ids[:, j]]
    return acc


def _popcounts(table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Set bits of each :func:`_and_rows` bitset: the rows matching every condition."""
    return np.bitwise_count(_and_rows(table, ids)).sum(axis=1, dtype=np.int64)


def _bitset_counts(
    codes: np.ndarray, distinct: np.ndarray, inverse: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_count_matches` when predicates share their conditions (a category's level,
    a numeric bin): each *distinct* condition (rows of ``distinct``: column, lo, hi,
    negated; ``inverse``: each predicate's conditions among them) is evaluated once, as a
    packed bitset over the rows; a predicate's count is the popcount of the AND of its
    conditions' bitsets, and its first matching row the lowest set bit. Rows are taken in
    blocks so the bitsets stay within ``_MASK_BLOCK`` bytes.
    """
    n_rows = codes.shape[1]
    n_q = inverse.shape[0]
    counts = np.zeros(n_q, dtype=np.int64)
    first = np.full(n_q, -1, dtype=np.int64)
    rows_per_block = max(64, (_MASK_BLOCK * 8 // max(len(distinct), 1)) // 64 * 64)
    for r0 in range(0, n_rows, rows_per_block):
        block = codes[:, r0 : r0 + rows_per_block]
        n_bytes = -(-block.shape[1] // 8)
        bits = np.empty((len(distinct), n_bytes), dtype=np.uint8)
        # conditions in groups whose masks stay within _MASK_BLOCK entries
        per = max(1, _MASK_BLOCK // block.shape[1])
        for u0 in range(0, len(distinct), per):
            d = distinct[u0 : u0 + per]
            mask = _condition_mask(block, d[:, 0], d[:, 1], d[:, 2], d[:, 3].astype(bool))
            bits[u0 : u0 + per] = np.packbits(mask, axis=1, bitorder="little")
        chunk = max(1, _MASK_BLOCK // n_bytes)
        for q0 in range(0, n_q, chunk):
            sl = slice(q0, min(n_q, q0 + chunk))
            acc = _and_rows(bits, inverse[sl])
            c_blk = np.bitwise_count(acc).sum(axis=1, dtype=np.int64)
            counts[sl] += c_blk
            found = np.flatnonzero((c_blk > 0) & (first[sl] < 0))
            if found.size:
                hits = acc[found]
                byte = (hits != 0).argmax(axis=1)
                low = _LOWEST_BIT[hits[np.arange(found.size), byte]]
                first[q0 + found] = r0 + byte * 8 + low
    return counts, first


def _interval_counts(
    x: np.ndarray, lo: np.ndarray, hi: np.ndarray, neg: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Counts and a matching row of one-condition predicates ``[lo, hi]`` (negated where
    ``neg``) on one coded column.

    Codes are dense ranks, so a histogram of the column (slot 0: missing, rank r: slot
    r + 1) and its cumulative sum answer every interval in O(1): no pass over the rows per
    predicate. (One histogram over all columns at once was slower: its larger temporaries
    cost more than the per-column calls save.)
    """
    n = x.size
    top = int(max(x.max(initial=-1), lo.max(initial=-1), hi[hi < _TOP].max(initial=-1))) + 1
    shifted = x.astype(np.intp) + 1
    hist = np.bincount(shifted, minlength=top + 1)
    cum = np.concatenate([[0], np.cumsum(hist)])  # cum[k]: rows in slots < k
    a = np.clip(lo + 1, 0, top + 1)
    b = np.clip(hi + 1, -1, top)
    inside = np.where(b >= a, cum[b + 1] - cum[np.minimum(a, b + 1)], 0)
    counts = np.where(neg, (n - hist[0]) - inside, inside)
    row_of = np.full(top + 1, -1, dtype=np.int64)
    row_of[shifted] = np.arange(n)  # a row holding each slot's value
    # the first occupied slot from a; for "!= v", the first occupied slot other than v's
    slot = np.searchsorted(cum, cum[a], side="right") - 1
    occupied = np.flatnonzero(hist[1:]) + 1
    if neg.any() and occupied.size:
        other = occupied[1] if occupied.size > 1 else occupied[0]
        slot = np.where(neg, np.where(occupied[0] != a, occupied[0], other), slot)
    first = np.where(counts > 0, row_of[np.clip(slot, 0, top)], -1)
    return counts, first


class _BitIndex:
    """Bitsets of the synthetic rows matching each generator condition, for fast counting.

    A multivariate predicate's condition on one column depends only on the drawn value
    (``>=``/``<=`` by its side of the median, ``==`` for categoricals, ``is missing``), so
    each (column, value) gets one bitset over the synthetic rows, built by cumulative ORs
    over the sorted values. A predicate's match count is then the popcount of the AND of
    its ``n_cols`` bitsets: a few kilobytes per predicate instead of a pass over the table.

    ``rows`` restricts the bitsets to a subset of the synthetic rows (for tables whose
    full index would not fit in memory): counts are then over that subset, a lower bound
    of the full counts, used to discard predicates that match two or more rows.
    """

    def __init__(
        self,
        syn_codes: np.ndarray,
        numeric: np.ndarray,
        above: list[np.ndarray],
        rows: np.ndarray | None = None,
    ):
        self.exact = rows is None
        sub = syn_codes if rows is None else syn_codes[:, rows]
        n_rows = sub.shape[1]
        n_words = -(-n_rows // 64)
        pos = np.arange(n_rows)
        bit = np.left_shift(np.uint64(1), (pos % 64).astype(np.uint64))
        blocks, self.present, offsets, start = [], [], [], 0
        for c in range(syn_codes.shape[0]):
            # one bitset per value present anywhere in the release (row 0: missing)
            present = np.unique(syn_codes[c][syn_codes[c] >= 0])
            local = np.where(sub[c] >= 0, np.searchsorted(present, sub[c]) + 1, 0)
            exact = np.zeros((present.size + 1, n_words), dtype=np.uint64)
            np.bitwise_or.at(exact, (local, pos // 64), bit)
            if numeric[c] and present.size:
                values = exact[1:]
                ge = np.bitwise_or.accumulate(values[::-1], axis=0)[::-1]
                le = np.bitwise_or.accumulate(values, axis=0)
                exact[1:] = np.where(above[c][present][:, None], ge, le)
            blocks.append(exact)
            self.present.append(present)
            offsets.append(start)
            start += present.size + 1
        self.table = np.concatenate(blocks)
        self.offsets = np.array(offsets, dtype=np.int64)

    @staticmethod
    def rows_within(syn_codes: np.ndarray, budget: int) -> int:
        """Most rows whose index (plus the cumulative copies of the largest column) fits
        in ``budget`` bytes."""
        sizes = [np.unique(x).size + 1 for x in syn_codes]
        per_word = (sum(sizes) + 2 * max(sizes, default=0)) * 8
        return int(budget // max(per_word, 1)) * 64

    def counts(self, cols: np.ndarray, vals: np.ndarray) -> np.ndarray:
        local = np.zeros(cols.shape, dtype=np.int64)
        for c in np.unique(cols):
            at = cols == c
            v = vals[at]
            local[at] = np.where(v >= 0, np.searchsorted(self.present[c], v) + 1, 0)
        return _popcounts(self.table, self.offsets[cols] + local)


def _generator_index(
    syn_codes: np.ndarray, numeric: np.ndarray, above: list[np.ndarray], rng: np.random.Generator
) -> _BitIndex | None:
    """The exact bit index when it fits the memory budget, else one over a random subset
    of rows (a pre-filter), else none. The index only speeds up counting: the predicates
    kept are the same with any index, as long as ``rng`` is not the generator's own."""
    n_rows = syn_codes.shape[1]
    fit = _BitIndex.rows_within(syn_codes, _BITSET_BUDGET)
    if fit >= n_rows:
        return _BitIndex(syn_codes, numeric, above)
    if fit < _MIN_PREFILTER_ROWS:
        return None
    return _BitIndex(
        syn_codes, numeric, above, rows=np.sort(rng.choice(n_rows, size=fit, replace=False))
    )


def _multivariate_queries(
    syn_codes: np.ndarray,
    numeric: np.ndarray,
    above: list[np.ndarray],
    *,
    n_queries: int,
    n_cols: int,
    max_attempts: int,
    rng: np.random.Generator,
    bits: _BitIndex | None = None,
) -> tuple[Any, ...]:
    """Predicates from random synthetic records that single out exactly one of them.

    For a random record and ``n_cols`` random columns: numeric ``>= v`` when v is above
    the column's synthetic median, ``<= v`` otherwise, ``is missing`` for NaN;
    categorical ``== v``. Kept when it matches exactly one synthetic row and was not
    kept before (``metric-reference.md`` §2, Anonymeter's multivariate generator).
    """
    n_col_total, n_syn = syn_codes.shape
    kept_c: list[np.ndarray] = []
    kept_o: list[np.ndarray] = []
    kept_v: list[np.ndarray] = []
    seen: set[bytes] = set()
    attempts = idle = 0
    status = "complete"
    while len(kept_c) < n_queries:
        if attempts >= max_attempts:
            status = "max_attempts"
            break
        if idle >= _SATURATION_BATCHES:
            status = "saturated"
            break
        b = min(_QUERY_BATCH, max_attempts - attempts)
        rows = rng.integers(0, n_syn, size=b)
        cols = np.sort(np.argsort(rng.random((b, n_col_total)), axis=1)[:, :n_cols], axis=1)
        vals = syn_codes[cols, rows[:, None]]
        ops = np.full(cols.shape, _EQ, dtype=np.int8)
        for c in np.flatnonzero(numeric):
            at = cols == c
            if not at.any():
                continue
            v = vals[at]
            ops[at] = np.where(v < 0, _ISNA, np.where(above[c][np.maximum(v, 0)], _GE, _LE))
        if bits is None:
            counts = _count_matches(syn_codes, cols, ops, vals)[0]
        elif bits.exact:
            counts = bits.counts(cols, vals)
        else:
            # two matches in the subset mean two in the release: only the rest is counted
            counts = bits.counts(cols, vals)
            maybe = np.flatnonzero(counts <= 1)
            counts[maybe] = _count_matches(syn_codes, cols[maybe], ops[maybe], vals[maybe])[0]
        attempts += b
        added = 0
        for i in np.flatnonzero(counts == 1):
            key = cols[i].tobytes() + ops[i].tobytes() + vals[i].tobytes()
            if key in seen:
                continue
            seen.add(key)
            kept_c.append(cols[i])
            kept_o.append(ops[i])
            kept_v.append(vals[i])
            added += 1
            if len(kept_c) >= n_queries:
                break
        idle = 0 if added else idle + 1
    return (*_stack(kept_c, kept_o, kept_v, n_cols), attempts, status)


def _univariate_queries(
    syn_codes: np.ndarray, numeric: np.ndarray, *, n_queries: int, rng: np.random.Generator
) -> tuple[Any, ...]:
    """Single-column predicates from rare synthetic values: ``is missing`` when exactly one
    value is missing, ``<= min`` and ``>= max`` of numerics, ``== v`` for values seen once;
    shuffled and kept when they match exactly one synthetic row (Anonymeter's univariate
    generator)."""
    parts: list[np.ndarray] = []
    for c in range(syn_codes.shape[0]):
        hist = np.bincount(syn_codes[c].astype(np.intp) + 1)  # slot 0: missing
        present = np.flatnonzero(hist[1:])
        # (column, operator, value, matches exactly one synthetic row)
        if numeric[c]:
            if hist[0] == 1:
                parts.append(np.array([[c, _ISNA, -1, 1]]))
            if present.size:
                lo, hi = present[0], present[-1]
                parts.append(
                    np.array([[c, _LE, lo, hist[lo + 1] == 1], [c, _GE, hi, hist[hi + 1] == 1]])
                )
        once = np.flatnonzero(hist[1:] == 1)
        parts.append(
            np.column_stack(
                [
                    np.full(once.size, c),
                    np.full(once.size, _EQ),
                    once,
                    np.ones(once.size, dtype=np.int64),
                ]
            )
        )
    cands = np.concatenate(parts).astype(np.int64) if parts else np.zeros((0, 4), np.int64)
    if not len(cands):
        return (*_stack([], [], [], 1), 0, "complete")
    arr = cands[rng.permutation(len(cands))]
    # candidates are distinct by construction ("<= min" and "== min" are two predicates)
    keep = np.flatnonzero(arr[:, 3] == 1)[:n_queries]
    cols, ops, vals = arr[keep, :1], arr[keep, 1:2].astype(np.int8), arr[keep, 2:3]
    status = "complete" if keep.size >= n_queries else "exhausted"
    return cols, ops, vals.astype(np.int32), len(cands), status


def _outlier_queries(
    syn_codes: np.ndarray,
    coder: _RankCoder,
    order: np.ndarray,
    *,
    n_queries: int,
    n_cols: int,
    n_bins: int,
    rng: np.random.Generator,
    tries: int = 3,
) -> tuple[Any, ...]:
    """Predicates built around the release's most isolated records (contrastive paper
    §4.2): for each target in ``order`` (most isolated first), random column subsets of
    ``n_cols`` columns and more (``tries`` draws per size) until one singles the target
    out in the release; a categorical column is taken at the target's category, a numeric
    one at the equal-width bin of the release's range (``n_bins`` bins) holding its value.
    Each target gives at most one predicate; the first ``n_queries`` targets (by
    isolation) that give one are kept.

    Every column enters as two conditions, ``>= lo`` and ``<= hi`` on its ranks (a
    category: lo = hi = its rank; missing: ``is missing`` twice), so that all targets' draws
    of one size are one array and one vectorised count; predicates are padded to a common
    width by repeating their first condition (a conjunction is unchanged by it)."""
    n_col_total, n_rows = syn_codes.shape
    m = min(n_cols, n_col_total)
    width = 2 * n_col_total
    lo = syn_codes.astype(np.int64).copy()
    hi = lo.copy()
    # each row's cell of every column: its category or value bin, 0 when missing; a
    # target's predicate matches exactly the rows sharing its cells on the chosen columns
    cell = np.where(syn_codes >= 0, syn_codes.astype(np.int64) + 1, 0)
    for c in range(n_col_total):
        if not coder.numeric[c]:
            continue
        present = syn_codes[c] >= 0
        if not present.any():
            continue
        u = coder.universe[c].astype(float)
        vals = u[syn_codes[c][present]]
        e = np.linspace(float(vals.min()), float(vals.max()), n_bins + 1)
        b = np.minimum(np.searchsorted(e, vals, side="right") - 1, n_bins - 1)
        cell[c, present] = b + 1
        lo[c, present] = np.searchsorted(u, e[b], side="left")
        right = np.where(
            b == n_bins - 1,
            np.searchsorted(u, e[b + 1], side="right"),
            np.searchsorted(u, e[b + 1], side="left"),
        )
        hi[c, present] = right - 1
    missing = syn_codes < 0
    cells = _CellBits(cell)

    order = np.asarray(order, dtype=np.int64)
    pos_of = np.full(n_rows, -1, dtype=np.int64)
    pos_of[order] = np.arange(order.size)
    found: dict[int, np.ndarray] = {}
    attempts = 0
    # targets in batches, most isolated first: the kept predicates are the first
    # n_queries targets that give one, so a batch that completes them ends the search
    # (trying every record of a large release cost minutes on Adult)
    batch = max(2 * n_queries, 256)
    for first in range(0, order.size, batch):
        attempts += _outlier_batch(
            order[first : first + batch],
            found,
            cells,
            lo,
            hi,
            missing,
            m,
            n_col_total,
            width,
            tries,
            rng,
        )
        if len({a.tobytes() for a in found.values()}) >= n_queries:
            break
    cols_l, ops_l, vals_l = [], [], []
    seen: set[bytes] = set()
    for target in sorted(found, key=lambda r: pos_of[r]):
        arr = found[target]
        if arr.tobytes() in seen:
            continue
        seen.add(arr.tobytes())
        cols_l.append(arr[:, 0])
        ops_l.append(arr[:, 1])
        vals_l.append(arr[:, 2])
        if len(cols_l) >= n_queries:
            break
    status = "complete" if len(cols_l) >= n_queries else "exhausted"
    return (*_stack(cols_l, ops_l, vals_l, width), attempts, status)


class _CellBits:
    """One bitset over the release's rows per (column, cell), cells as
    :func:`_outlier_queries` defines them: the rows an outlier predicate matches are the
    AND of its columns' bitsets at the target's cells, a few kilobytes per predicate
    instead of a pass over the table per condition.

    Above :data:`_CELL_SAMPLE_ROWS` × 4 rows a second index covers every k-th row only: a
    draw that matches another row there matches two or more in the release and is
    rejected from the small index, and only the draws that survive are counted on the full
    one. Most draws on a large release match many rows, so the search reads a sixteenth of
    the bits at a million rows, and the predicates found are the same.
    """

    def __init__(self, cell: np.ndarray):
        n_rows = cell.shape[1]
        sizes = cell.max(axis=1, initial=0) + 1
        # one layout (column c's cells from offsets[c]) for both indexes
        self.offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.table = self._index(cell, self.offsets, int(sizes.sum()))
        self.cell = cell
        self.sample: np.ndarray | None = None
        if n_rows > 4 * _CELL_SAMPLE_ROWS:
            self.step = -(-n_rows // _CELL_SAMPLE_ROWS)
            self.sample = self._index(cell[:, :: self.step], self.offsets, int(sizes.sum()))

    @staticmethod
    def _index(cell: np.ndarray, offsets: np.ndarray, n_cells: int) -> np.ndarray:
        n_cols, n_rows = cell.shape
        pos = np.arange(n_rows)
        bit = np.left_shift(np.uint64(1), (pos % 64).astype(np.uint64))
        table = np.zeros((n_cells, -(-n_rows // 64)), dtype=np.uint64)
        for c in range(n_cols):
            np.bitwise_or.at(table, (offsets[c] + cell[c], pos // 64), bit)
        return table

    def counts(self, targets: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Rows sharing each target's cells on its columns (``cols``: one row each);
        exact up to 1, a lower bound of 2 or more beyond (read as "not singled out")."""
        ids = self.offsets[cols] + self.cell[cols, targets[:, None]]
        if self.sample is None:
            return _popcounts(self.table, ids)
        # the target itself is in the sample when its row is a multiple of the step
        others = _popcounts(self.sample, ids)
        others -= targets % self.step == 0
        out = np.full(len(targets), 2, dtype=np.int64)
        alive = np.flatnonzero(others == 0)
        if alive.size:
            out[alive] = _popcounts(self.table, ids[alive])
        return out


def _outlier_batch(
    todo: np.ndarray,
    found: dict[int, np.ndarray],
    cells: _CellBits,
    lo: np.ndarray,
    hi: np.ndarray,
    missing: np.ndarray,
    m: int,
    n_col_total: int,
    width: int,
    tries: int,
    rng: np.random.Generator,
) -> int:
    """Try the targets ``todo`` (see :func:`_outlier_queries`), adding each one's
    singling predicate to ``found``; returns the attempts made."""
    attempts = 0
    for size in range(m, n_col_total + 1):
        for _ in range(tries if size < n_col_total else 1):
            if not todo.size:
                break
            attempts += todo.size
            chosen = np.sort(
                np.argsort(rng.random((todo.size, n_col_total)), axis=1)[:, :size], axis=1
            )
            hit = cells.counts(todo, chosen) == 1
            for i in np.flatnonzero(hit):
                found[int(todo[i])] = _outlier_predicate(
                    chosen[i], int(todo[i]), lo, hi, missing, width
                )
            todo = todo[~hit]
    return attempts


def _outlier_predicate(
    chosen: np.ndarray, target: int, lo: np.ndarray, hi: np.ndarray, missing: np.ndarray, width: int
) -> np.ndarray:
    """(column, operator, value) rows of one target's predicate: ``>= lo`` and ``<= hi``
    per column (``is missing`` twice), padded to ``width`` with its first condition."""
    cols = np.repeat(chosen, 2)
    is_na = missing[cols, target]
    ops = np.where(is_na, _ISNA, np.tile([_GE, _LE], chosen.size))
    vals = np.where(
        is_na, -1, np.where(np.arange(2 * chosen.size) % 2 == 0, lo[cols, target], hi[cols, target])
    )
    rows = np.stack([cols, ops, vals], axis=1).astype(np.int64)
    return np.concatenate([rows, np.repeat(rows[:1], width - len(rows), axis=0)])


def _outlier_order(
    syn: pd.DataFrame,
    columns: list[str],
    data: ReviewData,
    space: str,
    embedding: Any,
    embedding_params: dict[str, Any] | None,
    k: int,
    seed: int,
    progress: ProgressFn | None = None,
) -> tuple[np.ndarray, dict[str, Any]]:
    """Distinct synthetic rows from the most to the least isolated: the mean distance to
    their ``k`` nearest other synthetic rows, in the contrastive embedding or the shared
    encoding.

    Above :func:`~privacy_core.risk.neighbors.default_queries` distinct rows, the ranking
    is of a seeded sample of that many (each measured against *every* synthetic row, so its
    isolation is exact); ``info["n_ranked"]`` says how many were ranked. The attack needs
    only the first few hundred targets; ranking every row of a million-row release is
    10^12 distance pairs.
    """
    from ...embedding import check_space, resolve_encoder
    from ...encoding import TableEncoder
    from ...stats import child_seeds
    from ..neighbors import default_queries, nearest_neighbors

    check_space(space)
    info: dict[str, Any]
    if space == "contrastive":
        encoder = resolve_encoder(data, embedding, embedding_params, seed, progress=progress)
        x = encoder.transform(syn, columns)
        info = {"space": "contrastive", "embedding": encoder.describe()}
    else:
        x = TableEncoder(data.schema, columns=columns).fit(data.real).transform(syn)
        info = {"space": "shared"}
    k = min(k, len(syn) - 1)
    if k < 1:
        return np.arange(len(syn)), info
    x = x.astype(np.float64)
    cap = default_queries(len(x))
    info["n_ranked"] = min(len(x), cap)
    if len(x) <= cap:
        d, _ = nearest_neighbors(x, x, k=k, exclude_self=True)
        return np.argsort(-d.mean(axis=1), kind="stable"), info
    rng = np.random.default_rng(child_seeds(seed, 2)[1])
    pos = np.sort(rng.choice(len(x), size=cap, replace=False))
    # k + 1 neighbours among all rows, then each sampled row's own entry left out (or the
    # farthest, when a duplicate's lower index took the self's place among the ties)
    d, i = nearest_neighbors(x[pos], x, k=k + 1)
    is_self = i == pos[:, None]
    drop = np.where(is_self.any(axis=1), is_self.argmax(axis=1), k)
    keep = np.ones_like(is_self)
    keep[np.arange(len(pos)), drop] = False
    others = d[keep].reshape(len(pos), k)
    return pos[np.argsort(-others.mean(axis=1), kind="stable")], info


def _stack(c: list, o: list, v: list, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not c:
        return (
            np.zeros((0, m), dtype=np.int64),
            np.zeros((0, m), dtype=np.int8),
            np.zeros((0, m), dtype=np.int32),
        )
    return np.array(c, dtype=np.int64), np.array(o, dtype=np.int8), np.array(v, dtype=np.int32)


def _random_queries(
    syn_codes: np.ndarray,
    numeric: np.ndarray,
    *,
    n_queries: int,
    n_cols: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The random-guess baseline: random columns, a random synthetic value of each and a
    random operator (categorical ==/!=, numeric any comparison; missing -> is (not)
    missing), not filtered on the synthetic data."""
    n_col_total = syn_codes.shape[0]
    cols = np.sort(np.argsort(rng.random((n_queries, n_col_total)), axis=1)[:, :n_cols], axis=1)
    vals = np.zeros(cols.shape, dtype=np.int32)
    ops = np.zeros(cols.shape, dtype=np.int8)
    numeric_ops = np.array([_EQ, _NE, _GT, _LT, _GE, _LE], dtype=np.int8)
    for c in range(n_col_total):
        at = cols == c
        n_at = int(at.sum())
        if not n_at:
            continue
        uniq = np.flatnonzero(np.bincount(syn_codes[c].astype(np.intp) + 1)) - 1  # sorted
        vals[at] = uniq[rng.integers(0, uniq.size, size=n_at)]
        pool = numeric_ops if numeric[c] else numeric_ops[:2]
        ops[at] = pool[rng.integers(0, pool.size, size=n_at)]
    missing = vals < 0
    ops[missing] = np.where(ops[missing] == _EQ, _ISNA, _NOTNA)
    return cols, ops, vals


def _so_probability_integral(n: Any, w: float) -> Any:
    """Integral over [0, w] of n·x·(1-x)^(n-1), the chance that a query of weight x singles
    out one of n rows (Cohen & Nissim 2020; Anonymeter)."""
    return (1 - (n * w + 1) * (1 - w) ** n) / (n + 1)


def _size_correction_factor(
    ctrl_codes: np.ndarray,
    queries: tuple[np.ndarray, ...],
    n_training: int,
    rng: np.random.Generator,
) -> float:
    """Anonymeter's correction f(|T|) / f(|C|): successes on control subsamples of 10 sizes
    x 5 repeats, fitted by ``norm · integral(n, w)``."""
    n_ctrl = ctrl_codes.shape[1]
    sizes, wins = [], []
    for n_rows in np.linspace(min(1000, n_ctrl), n_ctrl, 10).astype(int):
        for _ in range(5):
            pick = rng.choice(n_ctrl, size=n_rows, replace=False)
            counts, _ = _count_matches(ctrl_codes[:, pick], *queries)
            sizes.append(n_rows)
            wins.append(int((counts == 1).sum()))
    x, y = np.array(sizes, dtype=float), np.array(wins, dtype=float)

    def model(n: np.ndarray, w: float, norm: float) -> np.ndarray:
        return norm * _so_probability_integral(n, w)

    w0 = 1 / x.max()
    popt, _ = curve_fit(
        model, x, y, p0=(w0, 1 / _so_probability_integral(x.max(), w0)), bounds=(0, (1, np.inf))
    )
    denom = model(np.array(float(n_ctrl)), *popt)
    if not np.isfinite(denom) or denom <= 0:
        raise RuntimeError("degenerate size-correction fit")
    return float(model(np.array(float(n_training)), *popt) / denom)


def _reference_probabilities(
    counts_t: np.ndarray, counts_c: np.ndarray, n_training: int, n_control: int
) -> tuple[np.ndarray, float]:
    """Per predicate, the exact probability that it singles out a row of a reference table
    as large as the training set, and the share of that table that is holdout rows.

    Holdout at least as large as training: the reference is a uniform random subset of the
    holdout of the training size, averaged exactly (hypergeometric), so no sampling noise is
    added. Smaller holdout: the reference is the holdout plus a uniform random subset of
    ``n_training - n_control`` training rows; a predicate matching ``c_C`` holdout rows and
    ``c_T`` training rows singles out one of its rows with probability
    ``[c_C = 0] P(H = 1) + [c_C = 1] P(H = 0)``, H ~ Hypergeometric(n_training, c_T,
    n_training - n_control). The returned share rho = n_control / n_training is what
    :func:`~privacy_core.risk.attacks.common._undilute` inverts.
    """
    c_c = counts_c.astype(np.int64)
    if n_control >= n_training:
        return hypergeom.pmf(1, n_control, c_c, n_training), 1.0
    draws = n_training - n_control
    c_t = counts_t.astype(np.int64)
    p = np.where(
        c_c == 0,
        hypergeom.pmf(1, n_training, c_t, draws),
        np.where(c_c == 1, hypergeom.pmf(0, n_training, c_t, draws), 0.0),
    )
    return p, n_control / n_training


def _so_table(
    guesses: list[str], labels: np.ndarray, counts: np.ndarray, first: np.ndarray, role: str
) -> pd.DataFrame:
    hit = counts == 1
    record = np.empty(len(counts), dtype=object)
    record[:] = None
    record[hit] = labels[first[hit]]
    return pd.DataFrame(
        {
            "record": record,
            "role": role,
            "query": np.arange(len(counts)),
            "guess": guesses,
            "truth": counts,
            "success": hit,
        }
    )


def _describe_all(coder: _RankCoder, queries: tuple[np.ndarray, ...]) -> list[str]:
    """Each predicate's text (values as :meth:`_RankCoder.text`), written as a person would:
    a condition repeated as padding once, and a column's ``>= lo`` and ``<= hi`` pair (the
    outlier predicates' form) as ``column == value`` when lo = hi (a category) or
    ``lo <= column <= hi`` (a value bin). Values are formatted once per distinct
    (column, value)."""
    cols, ops, vals = queries
    if not len(cols):
        return []
    memo: dict[tuple[int, int], str] = {}

    def value(c: int, v: int) -> str:
        if (c, v) not in memo:
            memo[(c, v)] = coder.text(c, v)
        return memo[(c, v)]

    out = []
    for row in zip(cols.tolist(), ops.tolist(), vals.tolist(), strict=True):
        conds = list(dict.fromkeys(zip(*row, strict=True)))
        bounds: dict[int, dict[int, int]] = {}
        for c, o, v in conds:
            if o in (_GE, _LE):
                bounds.setdefault(c, {})[o] = v
        parts, paired = [], set()
        for c, o, v in conds:
            name = coder.columns[c]
            if o in (_ISNA, _NOTNA):
                parts.append(f"{name} is {'' if o == _ISNA else 'not '}missing")
            elif o in (_GE, _LE) and len(bounds[c]) == 2:
                if c not in paired:
                    paired.add(c)
                    lo, hi = bounds[c][_GE], bounds[c][_LE]
                    parts.append(
                        f"{name} == {value(c, lo)}"
                        if lo == hi
                        else f"{value(c, lo)} <= {name} <= {value(c, hi)}"
                    )
            else:
                parts.append(f"{name} {_SYMBOL[o]} {value(c, v)}")
        out.append(" & ".join(parts))
    return out


def _distinct_rows(codes: np.ndarray, universe_sizes: Sequence[int]) -> np.ndarray:
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


def singling_out(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    mode: str = "multivariate",
    columns: Sequence[str] | None = None,
    n_attacks: int | None | Literal["auto"] = "auto",
    n_cols: int = 3,
    max_attempts: int = 10_000_000,
    size_correction: str = "mixture",
    confidence: float = 0.95,
    seed: int = 0,
    space: str = "shared",
    embedding: Any = None,
    embedding_params: dict[str, Any] | None = None,
    progress: ProgressFn | None = None,
    **outliers: Any,
) -> AttackResult:
    """Singling-out risk: predicates isolating one synthetic record, tried on real data.

    Parameters
    ----------
    real, synthetic, holdout
        Training data, one synthetic release, and real rows the generator never saw (the
        control set; optional, see the module notes).
    threat, schema
        The threat model and (optionally) the schema; see ``prepare_review``.
    mode
        ``multivariate`` (``n_cols`` columns per predicate), ``univariate``, or ``paper``:
        the risk-insertion and contrastive papers' protocol, the univariate attack and the
        multivariate attack on every width from 3 to 12 columns (as many as there are
        columns), the highest risk reported (see :class:`SinglingOutProtocolResult`;
        ``n_cols`` is not used).
    columns
        Columns the predicates may use; default every analysed column (Anonymeter's use,
        and the setting of the risk-insertion experiments). Pass
        ``threat.quasi_identifiers`` for the QI-only reading of consensus R1.
    n_attacks
        Predicates to generate (the Wilson denominator, even when fewer are found, as
        Anonymeter). None: one per distinct training record. ``"auto"`` (default): 500
        (Anonymeter's default), 2,000 per configuration in ``paper`` mode (the papers'
        N_A, where a configuration that finds fewer predicates is scored on those it
        found: "at most 2,000 attacks").
    n_cols
        Conditions per multivariate predicate.
    max_attempts
        Cap on predicates drawn; drawing also stops after 100 rounds of 1,000 draws that
        add no new predicate (``params["generation"]`` says which).
    size_correction
        How the control count is made comparable when |control| != |training| (see
        Notes): ``mixture`` (default) compares the training set with a reference table of
        the same size, made of the control rows and, when the control is smaller, a
        random remainder of training rows whose contribution is then inverted exactly;
        ``subsample`` evaluates training and control on random subsets of equal size
        (the larger one subsampled, seeded; under-reads a copy by |C|/|T| when the
        control is smaller); ``fit`` is Anonymeter's correction f(|T|)/f(|C|) fitted by
        ``curve_fit`` on control subsamples (Anonymeter parity; extrapolating to a larger
        table over-reads an independent release: 0.19 at 20,000 / 5,000 rows); ``none``
        uses raw counts.
    confidence
        Level of the Wilson intervals.
    seed
        Seed of every random step (``SeedSequence`` children).
    space, embedding, embedding_params
        Where the predicates come from. ``shared`` (default): Anonymeter's generation,
        random synthetic rows and columns. ``contrastive``: the contrastive-embeddings
        paper's "SO + CL" (§4.2): the release's most isolated records in the contrastive
        embedding are the targets, each predicate a category or value bin of the target
        (see :func:`singling_out_outliers`), ``n_cols`` columns (one in ``univariate``
        mode; every width of the protocol in ``paper`` mode), and a configuration is
        scored on the predicates its targets gave (the paper's "at most N_A attacks").
        ``embedding`` is a fitted :class:`~privacy_core.embedding.ContrastiveEncoder` (else
        the cached one for the training rows), ``embedding_params`` its options.

    Returns
    -------
    AttackResult
        Named ``singling_out``. ``records``: one row per (predicate, role) with ``guess``
        the predicate text, ``truth`` the number of rows it matches, ``success`` (exactly
        one) and ``record`` the singled-out row's index label.

    Raises
    ------
    ParameterError
        Bad option values, ``n_cols`` larger than the number of columns, several releases.
    ThreatModelError
        ``columns`` names a column that is not analysed.

    Notes
    -----
    Giomi et al. (PoPETs 2023); ``risk-insertion-framework.md`` §4.3.1 (guesses as
    Bernoulli trials, Wilson interval) and §5.3.2 (control set); ``metric-reference.md``
    §2 (generation, baseline, size correction). Training, synthetic and control tables are
    de-duplicated first, as in Anonymeter.

    *The ``mixture`` size correction.* A predicate's chance of singling out a row depends on
    the size of the table it is tried on, so the control rate must be read at the training
    size n_T. With a control of n_C >= n_T rows the reference is a random n_T-subset of the
    control, averaged exactly over all such subsets (hypergeometric). With n_C < n_T no
    estimate of the n_T-size rate can come from the control alone without a model of how
    the rate grows with the table (the ``fit`` option's model, which over-reads private
    releases). Instead the reference table M is the control plus a random subset R of
    n_T - n_C training rows, averaged exactly over R. M holds n_T rows of the population,
    so when the release is independent of the training records E[r_M] = E[r_T] and the
    risk is 0 in expectation. When the release memorises training records, each memorised
    target is in R with probability 1 - rho, rho = n_C / n_T, and then counts in r_M as it
    does in r_T; otherwise M is a fresh sample. Writing phi*Delta for the memorised
    predicates' share times their excess success, r_T = p + phi*Delta and
    r_M = p + (1 - rho)*phi*Delta, so the measured risk is
    R_M = (r_T - r_M) / (1 - r_M) = rho R / (1 - (1 - rho) R), with R = phi*Delta / (1 - p)
    the risk against a fresh reference of n_T rows. The reported risk inverts this:
    R = R_M / (rho + (1 - rho) R_M), applied to the estimate and to both interval ends.
    It is exact at both ends (0 for an independent release, 1 for a copy, at any size
    ratio); the price of a small control is a wider interval (the slope of the inversion
    at 0 is 1/rho).
    """
    from ...embedding import check_space

    check_choice("mode", mode, (*SINGLING_OUT_MODES, "outliers"))
    check_space(space)
    if outliers and mode != "outliers":
        raise ParameterError(f"Unknown option(s) {sorted(outliers)} of singling_out.")
    if space == "contrastive" and mode in ("univariate", "multivariate"):
        # SO + CL: targets found in the embedding, scored on the predicates they gave
        res = singling_out(
            real,
            synthetic,
            threat=threat,
            holdout=holdout,
            schema=schema,
            mode="outliers",
            columns=columns,
            n_attacks=DEFAULT_N_ATTACKS if n_attacks == "auto" else n_attacks,
            n_cols=1 if mode == "univariate" else n_cols,
            max_attempts=max_attempts,
            size_correction=size_correction,
            confidence=confidence,
            seed=seed,
            space=space,
            embedding=embedding,
            embedding_params=embedding_params,
            progress=progress,
        )
        res = _found_denominator(res)
        return replace(res, params={**res.params, "mode": mode, "targets": "outliers"})
    check_choice("size_correction", size_correction, SIZE_CORRECTIONS)
    if isinstance(n_attacks, str):
        if n_attacks != "auto":
            raise ParameterError(
                f"`n_attacks` must be a positive integer, None (one per record) or 'auto'; "
                f"got {n_attacks!r}."
            )
        n_attacks = PAPER_N_ATTACKS if mode == "paper" else DEFAULT_N_ATTACKS
    n_attacks = _check_n_attacks(n_attacks)
    if mode == "paper":
        return _paper_protocol(
            real,
            synthetic,
            threat=threat,
            holdout=holdout,
            schema=schema,
            columns=columns,
            n_attacks=n_attacks,
            max_attempts=max_attempts,
            size_correction=size_correction,
            confidence=confidence,
            seed=seed,
            space=space,
            embedding=embedding,
            embedding_params=embedding_params,
        )
    if mode in ("multivariate", "outliers"):  # univariate: one condition, whatever n_cols
        n_cols = check_positive_int("n_cols", n_cols)
    max_attempts = check_positive_int("max_attempts", max_attempts)
    confidence = check_confidence(confidence)
    seed = check_seed(seed)
    data, syn_full, hold = _attack_inputs(
        real, synthetic, threat=threat, holdout=holdout, schema=schema
    )
    cols = _resolve_columns(data, columns, "columns", data.schema.included)
    m = n_cols if mode in ("multivariate", "outliers") else 1
    if m > len(cols):
        raise ParameterError(
            f"`n_cols` must be at most the number of columns used ({len(cols)}); got {n_cols}."
        )
    # every table is coded once; de-duplication (over all analysed columns, as Anonymeter)
    # and every predicate count then work on the int32 codes
    included = data.schema.included
    frames = [data.real, syn_full] + ([hold] if hold is not None else [])
    full_coder, coded = _RankCoder.fit_codes(
        data.schema, included, frames, [data.codes_of(f) for f in frames]
    )
    sizes = [len(u) for u in full_coder.universe]
    distinct = [_distinct_rows(x, sizes) for x in coded]
    on_cols = [included.index(c) for c in cols]
    coder = full_coder.subset(on_cols)
    if on_cols != list(range(len(included))):
        coded = [x[on_cols] for x in coded]
    ori_codes, syn_codes, *rest = [x[:, keep] for x, keep in zip(coded, distinct, strict=False)]
    ctrl_codes = rest[0] if rest else None
    ori_labels = data.real.index.to_numpy()[distinct[0]]
    ctrl_labels = hold.index.to_numpy()[distinct[2]] if hold is not None else None
    n_ori, n_syn = ori_codes.shape[1], syn_codes.shape[1]
    n_ctrl = None if ctrl_codes is None else ctrl_codes.shape[1]
    # `n_attacks` reaches here checked: None (one per record) or a positive int
    n_queries: int = n_ori if n_attacks is None else int(n_attacks)
    # the pre-filter's rows come from a stream of their own, so the predicates drawn do
    # not depend on whether the generator's bit index fits its budget
    rng_gen, rng_base, rng_size, rng_prefilter = _rngs(seed, 4)

    if mode == "multivariate":
        above = []
        for j in range(len(cols)):
            if coder.numeric[j]:
                x = coder.universe[j][syn_codes[j][syn_codes[j] >= 0]]
                med = float(np.median(x)) if x.size else np.inf
                above.append(coder.universe[j] > med)
            else:
                above.append(np.zeros(0, dtype=bool))
        bits = _generator_index(syn_codes, coder.numeric, above, rng_prefilter)
        *queries, attempts, status = _multivariate_queries(
            syn_codes,
            coder.numeric,
            above,
            n_queries=n_queries,
            n_cols=m,
            max_attempts=max_attempts,
            rng=rng_gen,
            bits=bits,
        )
    elif mode == "outliers":
        syn_distinct = syn_full.iloc[distinct[1]]
        order, space_info = _outlier_order(
            syn_distinct,
            cols,
            data,
            space,
            embedding,
            embedding_params,
            int(outliers.get("k", 5)),
            seed,
            # the encoder's training is most of the attack's time
            None if progress is None else lambda f, msg: progress(0.9 * f, msg),
        )
        if progress:
            progress(0.9, "searching the predicates that single out the most isolated records")
        *queries, attempts, status = _outlier_queries(
            syn_codes,
            coder,
            order,
            n_queries=n_queries,
            n_cols=m,
            n_bins=int(outliers.get("n_bins", 10)),
            rng=rng_gen,
        )
    else:
        *queries, attempts, status = _univariate_queries(
            syn_codes, coder.numeric, n_queries=n_queries, rng=rng_gen
        )
    queries_t = tuple(queries)
    n_found = len(queries_t[0])
    if n_found < n_queries:
        warnings.warn(
            f"Only {n_found} of the {n_queries} requested singling-out predicates could be "
            f"generated ({status}); unfound predicates count as failures, so the risk may be "
            "underestimated.",
            UntrustworthyResultWarning,
            stacklevel=2,
        )

    # make the control count comparable when the tables differ in size
    ori_pick = np.arange(n_ori)
    ctrl_pick = None if n_ctrl is None else np.arange(n_ctrl)
    correction = 1.0
    dilution = 1.0
    applied = "none"
    method = size_correction
    if (
        ctrl_codes is not None
        and n_ctrl is not None
        and n_ctrl != n_ori
        and method == "fit"
        and n_found
    ):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                correction = _size_correction_factor(ctrl_codes, queries_t, n_ori, rng_size)
            applied = "fit"
        except (RuntimeError, ValueError) as exc:
            warnings.warn(
                f"The control-size correction fit failed ({exc}); falling back to "
                "the mixture reference.",
                UntrustworthyResultWarning,
                stacklevel=2,
            )
            method = "mixture"
    if n_ctrl is not None and n_ctrl != n_ori and method == "subsample":
        size = min(n_ori, n_ctrl)
        if n_ori > size:
            ori_pick = _sample_positions(n_ori, size, rng_size)
        else:
            ctrl_pick = _sample_positions(n_ctrl, size, rng_size)
        applied = "subsample"

    guesses = _describe_all(coder, queries_t)
    ori_eval, ori_eval_labels = ori_codes[:, ori_pick], ori_labels[ori_pick]
    counts_t, first_t = _count_matches(ori_eval, *queries_t)
    k_train = int((counts_t == 1).sum())
    records = [_so_table(guesses, ori_eval_labels, counts_t, first_t, "training")]
    k_ctrl: float | None = None
    if ctrl_codes is not None:
        counts_c, first_c = _count_matches(ctrl_codes[:, ctrl_pick], *queries_t)
        ctrl_labels = cast(np.ndarray, ctrl_labels)  # set together with ctrl_codes
        control_table = _so_table(guesses, ctrl_labels[ctrl_pick], counts_c, first_c, "control")
        if method == "mixture" and n_ctrl is not None and n_ctrl != n_ori:
            p_ref, dilution = _reference_probabilities(counts_t, counts_c, n_ori, n_ctrl)
            k_ctrl = float(p_ref.sum())
            control_table["p_reference"] = p_ref
            applied = "mixture"
        else:
            k_ctrl = float((counts_c == 1).sum()) * correction
        records.append(control_table)

    base_q = _random_queries(syn_codes, coder.numeric, n_queries=n_queries, n_cols=m, rng=rng_base)
    counts_b, first_b = _count_matches(ori_eval, *base_q)
    baseline_table = _so_table(
        _describe_all(coder, base_q), ori_eval_labels, counts_b, first_b, "baseline"
    )

    params = {
        "mode": mode,
        "columns": cols,
        "n_attacks": n_queries,
        "n_cols": m,
        "max_attempts": max_attempts,
        "attempts": int(attempts),
        "generation": status,
        "n_queries": n_found,
        "size_correction": size_correction,
        "size_correction_applied": applied,
        "control_correction_factor": correction,
        "reference_control_share": dilution,
        "n_training_rows": n_ori,
        "n_synthetic_rows": n_syn,
        "n_control_rows": n_ctrl,
        "n_training_evaluated": len(ori_pick),
        "n_control_evaluated": None if ctrl_pick is None else len(ctrl_pick),
        "control": n_ctrl is not None,
        "confidence": confidence,
        "seed": seed,
        "space": "shared",
    }
    if mode == "outliers":
        params.update(
            space_info, n_bins=int(outliers.get("n_bins", 10)), k=int(outliers.get("k", 5))
        )
    shell = AttackResult(
        name="singling_out",
        value=float("nan"),
        ci=None,
        params=params,
        record_table=pd.concat(records, ignore_index=True),
        goal="lower",
        bounds=(0.0, 1.0),
        n_attacks=n_queries,
        n_success=k_train,
        n_control_attacks=n_queries if n_ctrl is not None else 0,
        n_control_success=k_ctrl,
        n_baseline_attacks=n_queries,
        n_baseline_success=int((counts_b == 1).sum()),
        confidence=confidence,
        baseline_table=baseline_table,
        dilution=dilution,
    )
    result = _with_summary(shell, confidence)
    if n_ctrl is None:
        _warn_no_control("singling-out")
    _warn_untrustworthy(result, "singling-out")
    return result


# ============================================================================ paper protocol
@dataclass(frozen=True, eq=False)
class SinglingOutProtocolResult(AttackResult):
    """Singling out under the papers' protocol: the highest risk over several
    configurations, with every configuration kept.

    ``value`` is the highest configuration value; the fields of :class:`AttackResult`
    (counts, records, rates) are those of that configuration. ``ci`` is a simultaneous
    interval: every configuration's interval at level 1 - (1 - confidence) / K (Bonferroni
    over the K configurations), and the interval of the maximum runs from the largest
    lower end to the largest upper end (if all K intervals hold, so does this one).
    ``extra["configurations"]`` lists each configuration's label, value, own interval at
    ``confidence``, simultaneous interval, rates and number of predicates.

    The maximum of K noisy estimates is biased upwards: on a release that leaks nothing
    each configuration reads 0 plus noise and the maximum picks the largest noise.
    The simultaneous interval is what keeps that honest: read the floor from its lower end.
    """

    configurations: tuple[AttackResult, ...] = ()
    labels: tuple[str, ...] = ()

    def at(self, *, confidence: float | None = None) -> SinglingOutProtocolResult:
        conf = self.confidence if confidence is None else check_confidence(confidence)
        return _protocol_summary(self.configurations, self.labels, conf, self.params)

    def configuration_table(self) -> pd.DataFrame:
        """One row per configuration: label, mode, n_cols, value, lower, upper (own
        interval), simultaneous lower / upper, attack, control and baseline rates,
        predicates found, and whether it is the reported one."""
        rows = [
            {k: v for k, v in c.items() if k not in ("ci", "ci_simultaneous")}
            | {
                "lower": c["ci"][0],
                "upper": c["ci"][1],
                "simultaneous_lower": c["ci_simultaneous"][0],
                "simultaneous_upper": c["ci_simultaneous"][1],
            }
            for c in self.extra["configurations"]
        ]
        return pd.DataFrame(rows)


def protocol_label(mode: str, n_cols: int | None) -> str:
    """How a singling-out configuration is named in headlines and tables."""
    return "univariate" if mode == "univariate" else f"{n_cols} columns"


def _ci_or_nan(ci: tuple[float, float] | None) -> list[float]:
    return [float("nan"), float("nan")] if ci is None else [float(ci[0]), float(ci[1])]


def _protocol_summary(
    configs: Sequence[AttackResult],
    labels: Sequence[str],
    confidence: float,
    params: dict[str, Any],
) -> SinglingOutProtocolResult:
    k = len(configs)
    own = [c.at(confidence=confidence) for c in configs]
    joint = [c.at(confidence=1 - (1 - confidence) / k) for c in configs]
    values = np.array([r.value for r in own], dtype=float)
    usable = np.isfinite(values)
    best = int(np.flatnonzero(usable)[np.argmax(values[usable])]) if usable.any() else 0
    table = []
    for i, (label, r, j) in enumerate(zip(labels, own, joint, strict=True)):
        table.append(
            {
                "label": label,
                "mode": r.params["mode"],
                "n_cols": r.params["n_cols"],
                "value": float(r.value),
                "ci": _ci_or_nan(r.ci),
                "ci_simultaneous": _ci_or_nan(j.ci),
                "attack_rate": r.extra["attack_rate"],
                "control_rate": r.extra["control_rate"],
                "baseline_rate": r.extra["baseline_rate"],
                "n_queries": r.params["n_queries"],
                "generation": r.params["generation"],
                "reported": i == best,
            }
        )
    lows = [j.ci[0] for j, u in zip(joint, usable, strict=True) if u and j.ci is not None]
    highs = [j.ci[1] for j, u in zip(joint, usable, strict=True) if u and j.ci is not None]
    ci = (float(max(lows)), float(max(highs))) if lows else None
    chosen = own[best]
    extra = dict(chosen.extra)
    extra.update(
        {
            "configurations": table,
            "reported_configuration": labels[best],
            "interval": f"simultaneous over {k} configurations (Bonferroni, level "
            f"1 - {1 - confidence:g}/{k})",
        }
    )
    out_params = {
        **chosen.params,
        **params,
        "mode": "paper",
        "reported_configuration": labels[best],
        "reported_mode": chosen.params["mode"],
        "n_cols": chosen.params["n_cols"],
        "n_queries": chosen.params["n_queries"],
    }
    base = {f.name: getattr(chosen, f.name) for f in fields(AttackResult) if f.init}
    base.update(
        value=float(values[best]), ci=ci, params=out_params, extra=extra, confidence=confidence
    )
    return SinglingOutProtocolResult(**base, configurations=tuple(configs), labels=tuple(labels))


def _found_denominator(result: AttackResult) -> AttackResult:
    """Score a configuration on the predicates it found (the papers' "at most N_A
    attacks"), not on the number requested (Anonymeter's convention, which shrinks every
    rate of a configuration that finds few predicates, e.g. univariate on a small table)."""
    n_found = int(result.params["n_queries"])
    if n_found == 0 or n_found >= result.n_attacks:
        return result
    shell = replace(
        result,
        n_attacks=n_found,
        n_control_attacks=n_found if result.n_control_success is not None else 0,
    )
    return _with_summary(shell, result.confidence)


def _paper_protocol(
    real: pd.DataFrame,
    synthetic: Any,
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None,
    schema: Schema | None,
    columns: Sequence[str] | None,
    n_attacks: int | None,
    max_attempts: int,
    size_correction: str,
    confidence: float,
    seed: int,
    space: str = "shared",
    embedding: Any = None,
    embedding_params: dict[str, Any] | None = None,
) -> SinglingOutProtocolResult:
    """Run every configuration of the papers' protocol (own child seed each) and keep the
    highest; see :func:`singling_out` (``mode="paper"``)."""
    confidence = check_confidence(confidence)
    seed = check_seed(seed)
    data, _, _ = _attack_inputs(real, synthetic, threat=threat, holdout=holdout, schema=schema)
    n_columns = len(_resolve_columns(data, columns, "columns", data.schema.included))
    widths = [w for w in PAPER_N_COLS if w <= n_columns]
    plan = [("univariate", 1)] + [("multivariate", w) for w in widths]
    seeds = child_seeds(seed, len(plan))
    configs, labels, caught_by = [], [], []
    for (mode, width), s in zip(plan, seeds, strict=True):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = singling_out(
                real,
                synthetic,
                threat=threat,
                holdout=holdout,
                schema=schema,
                mode=mode,
                columns=columns,
                n_attacks=n_attacks,
                n_cols=width,
                max_attempts=max_attempts,
                size_correction=size_correction,
                confidence=confidence,
                seed=s,
                space=space,
                embedding=embedding,
                embedding_params=embedding_params,
            )
        configs.append(_found_denominator(res))
        labels.append(protocol_label(mode, width))
        caught_by.append(caught)
    params: dict[str, Any] = {
        "mode": "paper",
        "n_attacks": configs[0].n_attacks if n_attacks is None else n_attacks,
        "configurations": labels,
        "seed": seed,
        "configuration_seeds": seeds,
        "denominator": "predicates found",
        **{
            k: configs[0].params[k]
            for k in ("space", "embedding", "targets")
            if k in configs[0].params
        },
    }
    result = _protocol_summary(configs, labels, confidence, params)
    # the reported configuration's own warnings (others' are in their table rows); the
    # "only k of n predicates" note is the protocol's "at most N_A", not a defect
    best = labels.index(result.params["reported_configuration"])
    for w in caught_by[best]:
        if issubclass(w.category, UserWarning) and "could be generated" not in str(w.message):
            warnings.warn(w.message, w.category, stacklevel=3)
    return result


def describe_configuration(result: MetricResult) -> str:
    """Which singling-out configuration a result reports, for headlines: e.g.
    "multivariate, 3 columns, 500 attacks" or "paper protocol: max over univariate and
    3–12 columns = 7 columns, 2,000 attacks"."""
    p = result.params
    if p.get("mode") == "paper":
        labels = list(p.get("configurations", []))
        widths = [lb.split()[0] for lb in labels if lb != "univariate"]
        span = (
            f"univariate and {widths[0]}–{widths[-1]} columns"
            if len(widths) > 1
            else f"univariate and {widths[0]} columns"
            if widths
            else "univariate"
        )
        found, asked = int(p.get("n_queries", 0)), p.get("n_attacks")
        attacks = (
            f"{found:,} attacks"
            if asked is None or found >= asked
            else f"{found:,} of {asked:,} attacks"
        )
        return f"paper protocol: max over {span} = {p.get('reported_configuration')}, {attacks}"
    width = "one column" if p.get("mode") == "univariate" else f"{p.get('n_cols')} columns"
    return f"{p.get('mode')}, {width}, {int(p.get('n_attacks') or 0):,} attacks"


def singling_out_outliers(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    columns: Sequence[str] | None = None,
    n_attacks: int | None = 2000,
    n_cols: int = 3,
    n_bins: int = 10,
    k: int = 5,
    space: str = "contrastive",
    embedding: Any = None,
    embedding_params: dict[str, Any] | None = None,
    size_correction: str = "mixture",
    confidence: float = 0.95,
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> AttackResult:
    """Outlier-targeted singling out (Plasencia Palacios et al., ``contrastive-
    embeddings.md`` §4.2): the release's most isolated records, found in the contrastive
    embedding (the mean distance to their ``k`` nearest synthetic neighbours), are the
    targets; each target's predicate takes ``n_cols`` random columns, a category as it is
    and a numeric value as its equal-width bin of the release's range (``n_bins`` bins).
    Predicates that single out one synthetic record are tried on the training and control
    rows exactly as :func:`singling_out` (Wilson intervals, the ``mixture`` size
    correction, the random-guess baseline); at most ``n_attacks`` (the paper's 2,000).

    ``space="shared"`` finds the isolated records in the shared encoding instead. The
    result is named ``singling_out_outliers``; ``params`` record the space, the encoder,
    ``n_bins`` and ``k``.
    """
    n_bins = check_positive_int("n_bins", n_bins, minimum=2)
    k = check_positive_int("k", k)
    res = singling_out(
        real,
        synthetic,
        threat=threat,
        holdout=holdout,
        schema=schema,
        mode="outliers",
        columns=columns,
        n_attacks=n_attacks,
        n_cols=n_cols,
        size_correction=size_correction,
        confidence=confidence,
        seed=seed,
        space=space,
        embedding=embedding,
        embedding_params=embedding_params,
        n_bins=n_bins,
        k=k,
        progress=progress,
    )
    # the paper's "at most 2,000 attacks": scored on the predicates the targets gave
    return replace(_found_denominator(res), name="singling_out_outliers")
