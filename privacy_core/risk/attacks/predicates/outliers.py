"""The outlier search of the contrastive-embeddings paper's "SO + CL" (§4.2): the
release's most isolated records as targets (:func:`outlier_order`), and for each the
predicate of a few of its categories and value bins that singles it out in the release
(:func:`outlier_queries`, counted on the per-cell bitsets of :class:`CellBits`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ....encoding import TableEncoder
from ....inputs import ReviewData
from ....progress import ProgressFn
from ....stats import child_seeds
from ...neighbors import default_queries, nearest_neighbors
from .coding import GE, ISNA, LE, RankCoder, stack_predicates
from .counting import popcounts

CELL_SAMPLE_ROWS = 1 << 16  # rows of the outlier search's pre-filter index


def outlier_queries(
    syn_codes: np.ndarray,
    coder: RankCoder,
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
    cells = CellBits(cell)

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
    return (*stack_predicates(cols_l, ops_l, vals_l, width), attempts, status)


class CellBits:
    """One bitset over the release's rows per (column, cell), cells as
    :func:`outlier_queries` defines them: the rows an outlier predicate matches are the
    AND of its columns' bitsets at the target's cells, a few kilobytes per predicate
    instead of a pass over the table per condition.

    Above :data:`CELL_SAMPLE_ROWS` × 4 rows a second index covers every k-th row only: a
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
        if n_rows > 4 * CELL_SAMPLE_ROWS:
            self.step = -(-n_rows // CELL_SAMPLE_ROWS)
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
            return popcounts(self.table, ids)
        # the target itself is in the sample when its row is a multiple of the step
        others = popcounts(self.sample, ids)
        others -= targets % self.step == 0
        out = np.full(len(targets), 2, dtype=np.int64)
        alive = np.flatnonzero(others == 0)
        if alive.size:
            out[alive] = popcounts(self.table, ids[alive])
        return out


def _outlier_batch(
    todo: np.ndarray,
    found: dict[int, np.ndarray],
    cells: CellBits,
    lo: np.ndarray,
    hi: np.ndarray,
    missing: np.ndarray,
    m: int,
    n_col_total: int,
    width: int,
    tries: int,
    rng: np.random.Generator,
) -> int:
    """Try the targets ``todo`` (see :func:`outlier_queries`), adding each one's
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
    ops = np.where(is_na, ISNA, np.tile([GE, LE], chosen.size))
    vals = np.where(
        is_na, -1, np.where(np.arange(2 * chosen.size) % 2 == 0, lo[cols, target], hi[cols, target])
    )
    rows = np.stack([cols, ops, vals], axis=1).astype(np.int64)
    return np.concatenate([rows, np.repeat(rows[:1], width - len(rows), axis=0)])


def outlier_order(
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
    from ....embedding import check_space, resolve_encoder

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
