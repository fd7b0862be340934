"""Which query records a DCR search measures: all of them, or a seeded sample of each side.

Only the query side is sampled (:data:`~privacy_core.risk.neighbors.MAX_QUERIES` says
why); every sampled record is still measured against the whole training table. DCR and
k-NN draw the same sample at the same seed, so they still share one neighbour search.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...stats import child_seeds
from ...validation import check_positive_int
from ..neighbors import default_queries


def check_max_queries(
    max_queries: int | str | None, n_reference: int, n_columns: int | None = None
) -> int | None:
    """``"auto"`` (:func:`~privacy_core.risk.neighbors.default_queries` for this reference
    size and encoded width), None (every record) or a positive count."""
    if max_queries == "auto":
        return default_queries(n_reference, n_columns)
    if max_queries is None:
        return None
    return check_positive_int("max_queries", max_queries)


def query_sample(n: int, max_queries: int | None, seed: int, side: int) -> np.ndarray | None:
    """Sorted positions of a seeded sample of ``max_queries`` of ``n`` query records, or
    None when all of them are measured.

    Only the query side is sampled (:data:`~privacy_core.risk.neighbors.MAX_QUERIES`
    says why). ``side`` (0 synthetic, 1 real) gives each side its own draw; DCR and k-NN
    draw the same sample at the same seed, so they still share one neighbour search.
    """
    if max_queries is None or n <= max_queries:
        return None
    rng = np.random.default_rng(child_seeds(seed, 4)[2 + side])
    return np.sort(rng.choice(n, size=max_queries, replace=False))


def sample_queries(
    S: np.ndarray,
    query_real: np.ndarray,
    max_queries: int | str | None,
    seed: int,
    params: dict[str, Any],
    n_reference: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The query records measured (all, or a seeded sample of each side) and the sampled
    synthetic positions; records the sample in ``params``. The bootstrap interval then
    resamples the measured records, so it carries the sampling's variance."""
    max_queries = check_max_queries(max_queries, n_reference, S.shape[1])
    pos_s = query_sample(len(S), max_queries, seed, 0)
    pos_r = query_sample(len(query_real), max_queries, seed, 1)
    params.update(
        max_queries=max_queries,
        query_sample=pos_s is not None or pos_r is not None,
        n_queries_synthetic=len(S) if pos_s is None else len(pos_s),
        n_queries_real=len(query_real) if pos_r is None else len(pos_r),
    )
    return (
        S if pos_s is None else S[pos_s],
        query_real if pos_r is None else query_real[pos_r],
        np.arange(len(S)) if pos_s is None else pos_s,
    )
