"""The multivariate generator's bit index: one bitset of synthetic rows per (column,
value) condition, so that a drawn predicate is counted by an AND and a popcount instead
of a pass over the release. Only a speed-up: the predicates kept are the same with the
exact index, a row-subset pre-filter or none (:func:`generator_index` picks within a
memory budget).
"""

from __future__ import annotations

import numpy as np

from .counting import popcounts

# Bytes for the generator's bit index; beyond it the index covers a row subset (a
# pre-filter) and the survivors are counted exactly. 64 MB keeps multivariate singling out
# near Anonymeter's memory (bench/bench_attack_memory.py: 512 MB rose 638 MB at 50k CART
# rows, 10x Anonymeter's 61 MB) and is faster too: a release with tens of thousands of
# distinct values per numeric column spends longer building the full index than using it.
BITSET_BUDGET = 64 << 20
MIN_PREFILTER_ROWS = 1024  # smaller row subsets reject too little to be worth it


class BitIndex:
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
        return popcounts(self.table, self.offsets[cols] + local)


def generator_index(
    syn_codes: np.ndarray, numeric: np.ndarray, above: list[np.ndarray], rng: np.random.Generator
) -> BitIndex | None:
    """The exact bit index when it fits the memory budget, else one over a random subset
    of rows (a pre-filter), else none. The index only speeds up counting: the predicates
    kept are the same with any index, as long as ``rng`` is not the generator's own."""
    n_rows = syn_codes.shape[1]
    fit = BitIndex.rows_within(syn_codes, BITSET_BUDGET)
    if fit >= n_rows:
        return BitIndex(syn_codes, numeric, above)
    if fit < MIN_PREFILTER_ROWS:
        return None
    return BitIndex(
        syn_codes, numeric, above, rows=np.sort(rng.choice(n_rows, size=fit, replace=False))
    )
