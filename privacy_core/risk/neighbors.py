"""Exact, vectorised, chunked nearest-neighbour search shared by every distance measure.

DCR, identical-match share, linkability and distance-based inference all ask the same
question: for each query row, which reference rows are closest? This module answers it
exactly (brute force, no approximation) with bounded memory: queries are processed in
chunks sized so that a chunk's distance block stays under ``max_block`` entries.

Euclidean distances use the expansion |q|^2 + |r|^2 - 2 q.r (one BLAS product per chunk)
in float64; L1 (cityblock) distances, used for mixed-type attacker distances (range-scaled
numeric differences plus 0/1 category mismatches), are summed feature by feature.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ..validation import check_choice, check_positive_int

METRICS = ("euclidean", "l1")
_DEFAULT_BLOCK = 1 << 24  # distance entries per chunk (128 MiB of float64)


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
    nq = q.shape[0]
    out_d = np.empty((nq, k), dtype=np.float64)
    out_i = np.empty((nq, k), dtype=np.int64)
    per_row = r.shape[0] * (1 if metric == "euclidean" else max(1, r.shape[1]))
    chunk = max(1, int(max_block // max(per_row, 1)))
    r_sq = np.einsum("ij,ij->i", r, r) if metric == "euclidean" else None
    for start in range(0, nq, chunk):
        stop = min(nq, start + chunk)
        block = _distance_block(q[start:stop], r, metric, r_sq)
        if exclude_self:
            rows = np.arange(stop - start)
            block[rows, rows + start] = np.inf
        if k == 1:
            idx = block.argmin(axis=1)[:, None]
        else:
            part = np.argpartition(block, k - 1, axis=1)[:, :k]
            order = np.lexsort((part, np.take_along_axis(block, part, axis=1)), axis=1)
            idx = np.take_along_axis(part, order, axis=1)
        out_i[start:stop] = idx
        out_d[start:stop] = np.take_along_axis(block, idx, axis=1)
    return out_d, out_i


def _distance_block(q: np.ndarray, r: np.ndarray, metric: str,
                    r_sq: np.ndarray | None) -> np.ndarray:
    if metric == "euclidean":
        q_sq = np.einsum("ij,ij->i", q, q)
        d2 = q_sq[:, None] + r_sq[None, :] - 2.0 * (q @ r.T)  # type: ignore[index]
        np.maximum(d2, 0.0, out=d2)
        return np.sqrt(d2, out=d2)
    block = np.zeros((q.shape[0], r.shape[0]), dtype=np.float64)
    for j in range(q.shape[1]):
        block += np.abs(q[:, j, None] - r[None, :, j])
    return block


def exact_match_mask(query: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """For each query row, whether an identical row exists in ``reference`` (hash join)."""
    q = np.ascontiguousarray(query)
    r = np.ascontiguousarray(reference)
    if q.shape[1] != r.shape[1]:
        raise ParameterError("query and reference must have the same width.")
    dtype = np.dtype((np.void, q.dtype.itemsize * q.shape[1]))
    rv = np.ascontiguousarray(r.astype(q.dtype)).view(dtype).ravel()
    qv = q.view(dtype).ravel()
    return np.isin(qv, rv)
