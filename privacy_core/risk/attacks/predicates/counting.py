"""How many rows each predicate matches, and one of them.

:func:`count_matches` answers a batch of predicates on rank-coded rows by one of three
routes, chosen for speed with identical answers: one-condition predicates by a histogram
of the column and its cumulative sum; predicates that share their conditions by packed
bitsets of the distinct conditions (popcount of their AND); others by one boolean mask
per condition. :func:`popcounts` is the AND-and-popcount kernel the bit indexes share.
"""

from __future__ import annotations

import numpy as np

from .coding import GE, GT, ISNA, LE, LT, NE, NOTNA, TOP, distinct_tuples

MASK_BLOCK = 1 << 20  # mask entries, or bytes of condition bitsets, held at once
# predicates whose conditions repeat at least this often on average are counted by bitsets
# of their distinct conditions; below it (every target's own value) one mask per condition
# is cheaper
SHARED_CONDITIONS = 8


def _intervals(ops: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rank interval [lo, hi] and negation flag of each condition."""
    v = vals.astype(np.int64)
    lo = np.select(
        [ops == GT, ops == LT, ops == LE, ops == ISNA, ops == NOTNA],
        [v + 1, 0, 0, -1, 0],
        default=v,
    )
    hi = np.select(
        [ops == GT, ops == GE, ops == LT, ops == ISNA, ops == NOTNA],
        [TOP, TOP, v - 1, -1, TOP],
        default=v,
    )
    return lo, hi, ops == NE


def count_matches(
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
    distinct, inverse = _distinct_conditions(cols.ravel(), lo.ravel(), hi.ravel(), neg.ravel())
    if len(distinct) * SHARED_CONDITIONS <= cols.size:
        return _bitset_counts(codes, distinct, inverse.reshape(n_q, m))
    chunk = max(1, MASK_BLOCK // n_rows)
    for start in range(0, n_q, chunk):
        sl = slice(start, min(n_q, start + chunk))
        mask = _condition_mask(codes, cols[sl, 0], lo[sl, 0], hi[sl, 0], neg[sl, 0])
        for j in range(1, m):
            mask &= _condition_mask(codes, cols[sl, j], lo[sl, j], hi[sl, j], neg[sl, j])
        c = np.count_nonzero(mask, axis=1)
        counts[sl] = c
        first[sl] = np.where(c > 0, mask.argmax(axis=1), -1)
    return counts, first


def _distinct_conditions(
    cols: np.ndarray, lo: np.ndarray, hi: np.ndarray, neg: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (column, lo, hi, negated) conditions as rows, in order of first
    appearance, and each condition's row among them (:func:`distinct_tuples`: hashed, where
    ``np.unique(..., axis=0)`` sorts the rows). The order of the distinct rows changes no
    count and no first row."""
    inverse, first = distinct_tuples(cols, lo, hi, neg)
    distinct = np.stack([cols, lo, hi, neg.astype(np.int64)], axis=1).astype(np.int64)[first]
    return distinct, inverse.astype(np.intp)


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


def popcounts(table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Set bits of each :func:`_and_rows` bitset: the rows matching every condition."""
    return np.bitwise_count(_and_rows(table, ids)).sum(axis=1, dtype=np.int64)


def _bitset_counts(
    codes: np.ndarray, distinct: np.ndarray, inverse: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`count_matches` when predicates share their conditions (a category's level,
    a numeric bin): each *distinct* condition (rows of ``distinct``: column, lo, hi,
    negated; ``inverse``: each predicate's conditions among them) is evaluated once, as a
    packed bitset over the rows; a predicate's count is the popcount of the AND of its
    conditions' bitsets, and its first matching row the lowest set bit. Rows are taken in
    blocks so the bitsets stay within ``MASK_BLOCK`` bytes.
    """
    n_rows = codes.shape[1]
    n_q = inverse.shape[0]
    counts = np.zeros(n_q, dtype=np.int64)
    first = np.full(n_q, -1, dtype=np.int64)
    rows_per_block = max(64, (MASK_BLOCK * 8 // max(len(distinct), 1)) // 64 * 64)
    for r0 in range(0, n_rows, rows_per_block):
        block = codes[:, r0 : r0 + rows_per_block]
        n_bytes = -(-block.shape[1] // 8)
        bits = np.empty((len(distinct), n_bytes), dtype=np.uint8)
        # conditions in groups whose masks stay within MASK_BLOCK entries
        per = max(1, MASK_BLOCK // block.shape[1])
        for u0 in range(0, len(distinct), per):
            d = distinct[u0 : u0 + per]
            mask = _condition_mask(block, d[:, 0], d[:, 1], d[:, 2], d[:, 3].astype(bool))
            bits[u0 : u0 + per] = np.packbits(mask, axis=1, bitorder="little")
        chunk = max(1, MASK_BLOCK // n_bytes)
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
    top = int(max(x.max(initial=-1), lo.max(initial=-1), hi[hi < TOP].max(initial=-1))) + 1
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
