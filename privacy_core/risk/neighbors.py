"""Exact, vectorised, chunked nearest-neighbour search shared by every distance measure.

DCR, identical-match share, linkability and distance-based inference all ask the same
question: for each query row, which reference rows are closest? This module answers it
exactly (brute force, no approximation) with bounded memory: queries are processed in
chunks sized so that a chunk's distance block stays under ``max_block`` entries.

Euclidean neighbours are ranked with the expansion |r|^2 - 2 q.r (one BLAS product per
chunk, in float64; |q|^2 is constant along a row and does not change the ranking), and the
distances of the selected neighbours are then recomputed directly from the differences, so
that identical rows are exactly 0 apart (the expansion alone leaves ~1e-8 of cancellation
error). L1 (cityblock) distances, used for mixed-type attacker distances (range-scaled
numeric differences plus 0/1 category mismatches), are summed feature by feature.

Inside :func:`search_backend` with ``backend="ray"``, a search of at least
:data:`RAY_MIN_PAIRS` pairs is split into contiguous blocks of query rows, each searched
against the whole reference table as a task on the Ray cluster; every query row's
neighbours are the same as in one search here. A local L1 search of at least
:data:`THREAD_MIN_PAIRS` pairs is split the same way over this process's BLAS threads
(its share of the cores: all of them in a serial run, a scheduled task's share in a
side-by-side one), each block searched on a thread of its own.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..parallel import BACKENDS, map_unordered, one_blas_thread, usable_cores
from ..validation import check_choice, check_positive_int

METRICS = ("euclidean", "l1")
# up to this k, k row-wise argmin passes beat one argpartition (which costs ~100 argmins
# on a 50,000-column block)
_SUCCESSIVE_ARGMIN_MAX_K = 32
# below this many columns per neighbour, k argmin passes are as cheap as the threshold
_THRESHOLD_MIN_COLS = 64
_DEFAULT_BLOCK = 1 << 24  # distance entries per chunk (128 MiB of float64)
# Searches of at least this many pairs are remembered (results only: distances and
# indices), so a measure that asks again (k-NN DCR after DCR, on the same encoding) reuses
# the search; bounded, least recently used first out.
_CACHE_MIN_PAIRS = 10_000_000
_CACHE_MAX_BYTES = 256 << 20
_cache: OrderedDict[tuple, tuple[np.ndarray, np.ndarray]] = OrderedDict()
_cache_lock = threading.Lock()

MAX_QUERIES = 50_000
"""Query records (synthetic records, attack targets) per side above which the
nearest-neighbour measures measure a seeded sample of them by default (see
:func:`default_queries`). Each sampled query is still compared with the *whole* reference
table, so its distance is exact: a copied record is found as surely as in the full
search. Subsampling the reference side too would push every distance up and let a full
copy pass (SDMetrics' DCR does that)."""
PAIR_BUDGET = 20_000_000_000
"""Distance pairs per side that the default sample aims at, for a table of up to
:data:`BUDGET_COLUMNS` encoded columns: a search of that size takes about a minute on two
cores."""
BUDGET_COLUMNS = 32
"""Encoded columns up to which a distance pair costs about the same (the search's
selection pass dominates); beyond it the product's cost grows with the width, so a wider
table's pair budget shrinks in proportion (126 columns, the 30-column wide simulation:
a quarter)."""
MIN_QUERIES = 10_000
"""The default sample never goes below this (a share's standard error stays under 0.5
points)."""


def default_queries(n_reference: int, n_columns: int | None = None) -> int:
    """How many query records a default nearest-neighbour measure takes against a
    reference table of ``n_reference`` rows and ``n_columns`` encoded columns: every
    record up to :data:`MAX_QUERIES` while the reference has up to 400,000 rows (narrow
    tables), then fewer, so that queries x reference stays near :data:`PAIR_BUDGET`
    (20,000 at a million rows) scaled down for tables wider than :data:`BUDGET_COLUMNS`,
    never below :data:`MIN_QUERIES` (or MAX_QUERIES, if that is smaller)."""
    budget = PAIR_BUDGET
    if n_columns is not None and n_columns > BUDGET_COLUMNS:
        budget = budget * BUDGET_COLUMNS // n_columns
    return int(min(MAX_QUERIES, max(MIN_QUERIES, budget // max(n_reference, 1))))


RAY_MIN_PAIRS = 2_000_000_000
"""Searches smaller than this stay here even inside ``search_backend("ray")``: shipping
the tables out costs more than the search (about 5 s of work on two cores)."""
RAY_TASK_PAIRS = 1_000_000_000
"""Distance pairs per Ray task of a distributed search (a few seconds on one core)."""
THREAD_MIN_PAIRS = 100_000_000
"""L1 searches of at least this many pairs are split over this process's threads (about
a second of work on one core; a smaller search gains less than the threads cost)."""
_backend: ContextVar[tuple[str, str | None]] = ContextVar(
    "neighbour_search_backend", default=("local", None)
)


@contextmanager
def search_backend(backend: str = "local", ray_address: str | None = None) -> Iterator[None]:
    """Run the nearest-neighbour searches made inside this block on ``backend``:
    ``"ray"`` splits each large search into query blocks, one Ray task each, at
    ``ray_address`` (see :data:`RAY_MIN_PAIRS`). Same neighbours as a local search."""
    check_choice("backend", backend, BACKENDS)
    token = _backend.set((backend, ray_address))
    try:
        yield
    finally:
        _backend.reset(token)


def current_search_backend() -> tuple[str, str | None]:
    """The (backend, Ray address) of the :func:`search_backend` block this code runs in:
    a scheduler hands it to the tasks it starts, which do not inherit this process's
    context (a worker process or a Ray task starts with the default)."""
    return _backend.get()


def _fingerprint(x: np.ndarray) -> bytes:
    h = hashlib.blake2b(repr(x.shape).encode(), digest_size=16)
    h.update(x.data.cast("B"))
    return h.digest()


def clear_neighbor_cache() -> None:
    """Forget every remembered search (tests, memory)."""
    with _cache_lock:
        _cache.clear()


def nearest_neighbors(
    query: np.ndarray,
    reference: np.ndarray,
    *,
    k: int = 1,
    metric: str = "euclidean",
    exclude_self: bool = False,
    max_block: int = _DEFAULT_BLOCK,
) -> tuple[np.ndarray, np.ndarray]:
    """The k nearest reference rows of every query row.

    Parameters
    ----------
    query, reference
        Encoded matrices (rows = records) with the same number of columns.
    k
        Neighbours per query, sorted by distance (ties broken by the lower index).
    metric
        ``euclidean`` or ``l1``.
    exclude_self
        ``query`` and ``reference`` are the same table: a row is not its own neighbour
        (the diagonal is skipped, duplicates elsewhere still count).
    max_block
        Upper bound on distance entries held at once (memory control).

    Returns
    -------
    distances, indices
        Arrays of shape (n_query, k).
    """
    check_choice("metric", metric, METRICS)
    k = check_positive_int("k", k)
    q = np.ascontiguousarray(query, dtype=np.float64)
    r = np.ascontiguousarray(reference, dtype=np.float64)
    if q.ndim != 2 or r.ndim != 2 or q.shape[1] != r.shape[1]:
        raise ParameterError(
            f"query and reference must be 2-D with the same width; got {q.shape} and {r.shape}."
        )
    n_ref = r.shape[0] - (1 if exclude_self else 0)
    if k > n_ref:
        raise ParameterError(f"`k` must be at most {n_ref} (reference rows); got {k}.")
    if q.shape[0] * r.shape[0] < _CACHE_MIN_PAIRS:
        return _dispatch(q, r, k, metric, exclude_self, max_block)
    key = (_fingerprint(q), _fingerprint(r), metric, exclude_self)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None and hit[0].shape[1] >= k:
            _cache.move_to_end(key)
            # the first k of a sorted k' > k search are the k search (ties: lower index)
            return hit[0][:, :k].copy(), hit[1][:, :k].copy()
    d, i = _dispatch(q, r, k, metric, exclude_self, max_block)
    with _cache_lock:
        _cache[key] = (d.copy(), i.copy())
        _cache.move_to_end(key)
        while sum(a.nbytes + b.nbytes for a, b in _cache.values()) > _CACHE_MAX_BYTES:
            _cache.popitem(last=False)
    return d, i


def _dispatch(
    q: np.ndarray, r: np.ndarray, k: int, metric: str, exclude_self: bool, max_block: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_search` here (on several threads for a large L1 search), or in query blocks
    on the Ray cluster of :func:`search_backend`."""
    backend, address = _backend.get()
    pairs = q.shape[0] * r.shape[0]
    if backend == "local" or pairs < RAY_MIN_PAIRS:
        threads = _search_threads(q.shape[0]) if metric == "l1" and pairs >= THREAD_MIN_PAIRS else 1
        if threads > 1:
            return _threaded_search(q, r, k, exclude_self, max_block, threads)
        return _search(q, r, k, metric, exclude_self, max_block)
    n_tasks = min(q.shape[0], math.ceil(pairs / RAY_TASK_PAIRS))
    context = {
        "q": q,
        "r": r,
        "k": k,
        "metric": metric,
        "exclude_self": exclude_self,
        "max_block": max_block,
        # decided on the whole query table: a block's own rows could decide otherwise
        "indicators": _IndicatorPart.spec(q, r) if metric == "l1" else None,
    }
    out_d = np.empty((q.shape[0], k), dtype=np.float64)
    out_i = np.empty((q.shape[0], k), dtype=np.int64)
    for start, stop, d, i in map_unordered(
        _search_task,
        _row_blocks(q.shape[0], n_tasks),
        context=context,
        backend=backend,
        address=address,
    ):
        out_d[start:stop], out_i[start:stop] = d, i
    return out_d, out_i


def _row_blocks(n: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous, non-empty (start, stop) blocks of ``n`` rows."""
    bounds = np.linspace(0, n, min(n, parts) + 1).astype(int)
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def _search_threads(n_query: int) -> int:
    """Threads for a local L1 search: this process's BLAS thread count, which is its
    share of the cores (``privacy_core.scheduler.as_task`` limits a side-by-side task's),
    at most one per query row."""
    from ..scheduler import thread_settings

    return max(1, min(thread_settings().get("blas", 1), usable_cores(), n_query))


def _threaded_search(
    q: np.ndarray, r: np.ndarray, k: int, exclude_self: bool, max_block: int, threads: int
) -> tuple[np.ndarray, np.ndarray]:
    """An L1 :func:`_search` split into contiguous query blocks, one thread each (numpy's
    element-wise passes release the GIL). Every row's distances are summed in the same
    order as in one search (the indicator columns are chosen on the whole query table),
    so the neighbours and distances are the same to the last bit; the blocks share the
    memory budget ``max_block``. The indicator part's products run on one BLAS thread
    each: ``threads`` blocks on ``threads`` BLAS threads each would oversubscribe the
    cores (the products are exact, so their thread count changes no value)."""
    from concurrent.futures import ThreadPoolExecutor

    prepared = _L1Reference.of(r, _IndicatorPart.spec(q, r))
    out_d = np.empty((q.shape[0], k), dtype=np.float64)
    out_i = np.empty((q.shape[0], k), dtype=np.int64)

    def part(block: tuple[int, int]) -> None:
        start, stop = block
        d, i = _search(
            q[start:stop],
            r,
            k,
            "l1",
            exclude_self,
            max(1, max_block // threads),
            offset=start,
            l1=prepared,
        )
        out_d[start:stop], out_i[start:stop] = d, i

    with (
        one_blas_thread(),
        ThreadPoolExecutor(max_workers=threads, thread_name_prefix="l1-search") as pool,
    ):
        list(pool.map(part, _row_blocks(q.shape[0], threads)))
    return out_d, out_i


def _search_task(
    block: tuple[int, int], context: dict[str, Any]
) -> tuple[int, int, np.ndarray, np.ndarray]:
    """Query rows ``start:stop`` against the whole reference (a Ray task)."""
    start, stop = block
    spec = context["indicators"]
    d, i = _search(
        context["q"][start:stop],
        context["r"],
        context["k"],
        context["metric"],
        context["exclude_self"],
        context["max_block"],
        offset=start,
        l1=None if spec is None else _L1Reference.of(context["r"], spec),
    )
    return start, stop, d, i


def _search(
    q: np.ndarray,
    r: np.ndarray,
    k: int,
    metric: str,
    exclude_self: bool,
    max_block: int,
    offset: int = 0,
    l1: _L1Reference | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The search of :func:`nearest_neighbors` on checked, contiguous float64 inputs.
    ``offset``: the reference row of query row 0 when ``exclude_self`` (a block of a
    split search); ``l1``: the reference prepared for an L1 search of the whole query
    table that ``q`` is a block of."""
    nq = q.shape[0]
    out_d = np.empty((nq, k), dtype=np.float64)
    out_i = np.empty((nq, k), dtype=np.int64)
    # L1 holds a scratch block next to the distance block: budget two entries per pair
    per_row = r.shape[0] * (1 if metric == "euclidean" else 2)
    chunk = max(1, int(max_block // max(per_row, 1)))
    r_sq = np.einsum("ij,ij->i", r, r) if metric == "euclidean" else None
    # [-2 r, |r|^2]: with a column of ones on the query side, one product gives
    # |r|^2 - 2 q.r (no separate pass to add |r|^2: the block is memory-bound)
    r_neg2 = np.hstack([-2.0 * r, r_sq[:, None]]) if r_sq is not None else None
    r_sq_max = float(r_sq.max(initial=0.0)) if r_sq is not None else 0.0
    q_aug = np.hstack([q, np.ones((nq, 1))]) if metric == "euclidean" else q
    r_cols = r
    indicators = None
    if metric == "l1":
        if l1 is None:
            l1 = _L1Reference.of(r, _IndicatorPart.spec(q, r))
        indicators, r_cols = l1.indicators, l1.r_cols
    # one buffer (two for L1) reused by every chunk: allocating a fresh 100 MB block per
    # chunk costs page faults that showed as a third of the run time at 50k x 50k
    rows_max = min(chunk, nq)
    buf = np.empty((rows_max, r.shape[0]), dtype=np.float64)
    scratch = np.empty_like(buf) if metric == "l1" else None
    for start in range(0, nq, chunk):
        stop = min(nq, start + chunk)
        block = _ranking_block(
            q_aug[start:stop],
            r_cols,
            metric,
            r_neg2,
            buf[: stop - start],
            None if scratch is None else scratch[: stop - start],
            indicators,
        )
        if exclude_self:
            rows = np.arange(stop - start)
            block[rows, rows + start + offset] = np.inf
        if k == 1:
            idx = block.argmin(axis=1)[:, None]
        elif k <= _SUCCESSIVE_ARGMIN_MAX_K and block.shape[1] >= _THRESHOLD_MIN_COLS * k:
            idx = _smallest_by_threshold(block, k)
        elif k <= _SUCCESSIVE_ARGMIN_MAX_K:
            idx = _smallest_by_argmin(block, k)
        else:
            idx = _smallest_by_partition(block, k)
        if metric == "euclidean":
            # exact distances of the chosen neighbours (no cancellation error), then a
            # stable re-sort in case the exact values reorder near-ties
            diff = q[start:stop, None, :] - r[idx]
            dist = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
            if k > 1:
                order = np.lexsort((idx, dist), axis=1)
                idx = np.take_along_axis(idx, order, axis=1)
                dist = np.take_along_axis(dist, order, axis=1)
            _refine_near_ties(q[start:stop], r, block, idx, dist, r_sq_max)
        else:
            dist = np.take_along_axis(block, idx, axis=1)
        out_i[start:stop] = idx
        out_d[start:stop] = dist
    return out_d, out_i


def _smallest_by_threshold(block: np.ndarray, k: int) -> np.ndarray:
    """Column indices of the k smallest entries per row, in order (ties: lower index),
    in about two passes over the block instead of k.

    The row's columns are cut into k groups; the largest of the k group minima is an
    entry with at least k entries (one per group) at or below it, so it bounds the k-th
    smallest from above. Every entry at or below that bound is a candidate (a handful per
    row), and the candidates are ordered by (value, column): the same picks as k argmin
    passes, ties included.
    """
    rows, n = block.shape
    group_min = np.minimum.reduceat(block, np.arange(k) * (n // k), axis=1)
    bound = group_min.max(axis=1, keepdims=True)
    # flatnonzero: a 2-D np.nonzero costs more than the k argmin passes it replaces
    flat = np.flatnonzero(block <= bound)
    r_idx, c_idx = np.divmod(flat, n)
    order = np.lexsort((c_idx, block.reshape(-1)[flat], r_idx))
    starts = np.searchsorted(r_idx, np.arange(rows))  # r_idx is sorted: row-major scan
    return c_idx[order][starts[:, None] + np.arange(k)[None, :]]


def _smallest_by_argmin(block: np.ndarray, k: int) -> np.ndarray:
    """Column indices of the k smallest entries per row, in order (ties: lower index).

    Each pass takes the row minima and masks them; the masked entries are restored
    afterwards, so ``block`` is left as it was.
    """
    rows = np.arange(block.shape[0])
    idx = np.empty((block.shape[0], k), dtype=np.int64)
    vals = np.empty((block.shape[0], k), dtype=block.dtype)
    for j in range(k):
        pick = block.argmin(axis=1)
        idx[:, j] = pick
        vals[:, j] = block[rows, pick]
        block[rows, pick] = np.inf
    block[rows[:, None], idx] = vals
    return idx


def _smallest_by_partition(block: np.ndarray, k: int) -> np.ndarray:
    """Column indices of the k smallest entries per row, in order (ties: lower index).

    The k-th smallest value comes from a partition; every entry below it is taken, and
    the entries equal to it in column order until k are reached, so a tie at the k-th
    place is also broken by the lower index.
    """
    kth = np.partition(block, k - 1, axis=1)[:, k - 1 : k]
    below = block < kth
    equal = block == kth
    room = k - below.sum(axis=1, keepdims=True)
    take = below | (equal & (np.cumsum(equal, axis=1) <= room))
    cols = np.nonzero(take)[1].reshape(block.shape[0], k)  # row-major: columns ascending
    order = np.lexsort((cols, np.take_along_axis(block, cols, axis=1)), axis=1)
    return np.take_along_axis(cols, order, axis=1)


def _refine_near_ties(
    q: np.ndarray,
    r: np.ndarray,
    block: np.ndarray,
    idx: np.ndarray,
    dist: np.ndarray,
    r_sq_max: float,
) -> None:
    """Fix picks that the expansion could not tell apart (in place).

    The ranking values carry a rounding error of about d * eps * (|q|^2 + |r|^2), so a
    row whose chosen squared distance is of that order may have missed a closer (even
    identical) reference row whose ranking value lies within the error. Only those rows,
    rare outside near-duplicates, are re-ranked on exact distances among every reference
    row within the error band.
    """
    k = idx.shape[1]
    q_sq = np.einsum("ij,ij->i", q, q)
    # d + 1 terms: the product carries |r|^2 as one more column
    tol = 8.0 * (q.shape[1] + 1) * np.finfo(np.float64).eps * (q_sq + r_sq_max)
    unsure = np.flatnonzero((dist[:, -1] > 0) & (dist[:, -1] ** 2 <= 4.0 * tol))
    for i in unsure:
        band = np.take(block[i], idx[i]).max() + tol[i]
        cols = np.flatnonzero(block[i] <= band)
        if cols.size <= k:
            continue
        diff = q[i] - r[cols]
        d = np.sqrt(np.einsum("ij,ij->i", diff, diff))
        best = np.lexsort((cols, d))[:k]
        idx[i] = cols[best]
        dist[i] = d[best]


class _IndicatorPart:
    """The L1 distance over indicator columns (every value 0 or one positive v_j per
    column, as the half-weighted one-hot categories of the mixed attacker space) in one
    matrix product: with x = v a and y = v b (a, b in {0, 1}),
    sum_j |x_j - y_j| = sum x + sum y - 2 x.(b), exactly (dyadic values, small sums).
    A 15-column table with 100 category levels then costs one product and a pass per
    numeric column instead of a pass per level."""

    def __init__(self, cols: np.ndarray, rest: np.ndarray, r_unit: np.ndarray, r_sum: np.ndarray):
        self.cols, self.rest, self.r_unit, self.r_sum = cols, rest, r_unit, r_sum

    @staticmethod
    def spec(q: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The indicator columns of ``q`` and ``r`` together, and each one's value v."""
        top = np.maximum(q.max(axis=0, initial=0.0), r.max(axis=0, initial=0.0))
        # a power of two keeps x / v and every product exact
        binary = (top > 0) & (np.frexp(top)[0] == 0.5)
        binary &= ((q == 0) | (q == top)).all(axis=0) & ((r == 0) | (r == top)).all(axis=0)
        cols = np.flatnonzero(binary)
        # too few indicators to pay for the product: sum every column as before
        if cols.size < 4:
            cols = np.zeros(0, dtype=np.int64)
        return cols, top[cols]

    @classmethod
    def of(cls, r: np.ndarray, spec: tuple[np.ndarray, np.ndarray]) -> _IndicatorPart:
        """The part for reference ``r``, its columns from :meth:`spec`."""
        cols, top = spec
        rest = np.setdiff1d(np.arange(r.shape[1]), cols)
        r_unit = np.ascontiguousarray(r[:, cols] / top) if cols.size else r[:, :0]
        return cls(cols, rest, r_unit, r[:, cols].sum(axis=1))


class _L1Reference:
    """The reference side of an L1 search, prepared once for every block of its query
    rows: the indicator part and the other columns transposed (each feature one
    contiguous row)."""

    def __init__(self, indicators: _IndicatorPart, r_cols: np.ndarray):
        self.indicators, self.r_cols = indicators, r_cols

    @classmethod
    def of(cls, r: np.ndarray, spec: tuple[np.ndarray, np.ndarray]) -> _L1Reference:
        """For reference ``r``, the indicator columns of :meth:`_IndicatorPart.spec` on
        the whole query table."""
        indicators = _IndicatorPart.of(r, spec)
        # only the other columns are summed one by one
        return cls(indicators, np.ascontiguousarray(r[:, indicators.rest].T))


def _ranking_block(
    q: np.ndarray,
    r: np.ndarray,
    metric: str,
    r_neg2: np.ndarray | None,
    block: np.ndarray,
    scratch: np.ndarray | None,
    indicators: _IndicatorPart | None = None,
) -> np.ndarray:
    """Fill ``block`` with values whose row-wise order is the order of the distances.

    Euclidean: |r|^2 - 2 q.r, i.e. the squared distance minus the row constant |q|^2,
    as one product of ``q`` with a trailing column of ones and ``r_neg2`` = [-2 r, |r|^2]
    (one pass over the block). L1: the
    distance itself, the indicator columns by one product (:class:`_IndicatorPart`, the
    query rows being ``q``'s first rows of the chunk) and the others summed one by one.
    """
    if metric == "euclidean":
        np.matmul(q, r_neg2.T, out=block)  # type: ignore[union-attr]
        return block
    # r arrives transposed (features x rows) so that each feature is one contiguous row;
    # the scratch block is reused for every feature
    if scratch is None:
        scratch = np.empty_like(block)
    rest = np.arange(q.shape[1]) if indicators is None else indicators.rest
    if indicators is not None and indicators.cols.size:
        x = q[:, indicators.cols]
        np.matmul(x, indicators.r_unit.T, out=block)
        block *= -2.0
        block += x.sum(axis=1)[:, None]
        block += indicators.r_sum[None, :]
    else:
        block.fill(0.0)
    for j, col in enumerate(rest):
        np.subtract(q[:, col, None], r[j][None, :], out=scratch)
        np.abs(scratch, out=scratch)
        block += scratch
    return block


def exact_match_mask(query: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """For each query row, whether an identical row exists in ``reference`` (hash join)."""
    q = np.ascontiguousarray(query)
    r = np.ascontiguousarray(reference)
    if q.shape[1] != r.shape[1]:
        raise ParameterError("query and reference must have the same width.")
    if np.issubdtype(q.dtype, np.floating):
        # -0.0 and 0.0 are equal but differ in their bytes; adding 0.0 maps -0.0 to 0.0
        q = q + 0.0
        r = r.astype(q.dtype) + 0.0
    dtype = np.dtype((np.void, q.dtype.itemsize * q.shape[1]))
    rv = np.ascontiguousarray(r.astype(q.dtype)).view(dtype).ravel()
    qv = q.view(dtype).ravel()
    return np.isin(qv, rv)
