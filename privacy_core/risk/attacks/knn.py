"""Nearest synthetic records on mixed columns with random tie-breaking (linkability and
distance-based inference)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...encoding import TableEncoder
from ..neighbors import nearest_neighbors

# L1 distance blocks of ~2M entries stay in cache; the module default is tuned for memory.
_KNN_BLOCK = 1 << 21
_MAX_GROUPS = 256  # category combinations searched separately by the kNN speed-up


def gower_matrix(encoder: TableEncoder, frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """Range-scaled numerics and one-hot categoricals weighted 1/2: under L1 a category
    mismatch adds exactly 1 (two half-weight indicators differ), as Anonymeter's
    Gower-like distance."""
    x = encoder.transform(frame, columns).astype(np.float64)
    cat = np.array([not encoder.schema[c].is_numeric for c in encoder.feature_columns(columns)])
    if cat.any():
        x[:, cat] *= 0.5
    return x


@dataclass
class MixedSpace:
    """One table in the attacker's mixed-type space: the Gower matrix, its numeric part and
    a group id per row (the combination of its category levels)."""

    full: np.ndarray
    numeric: np.ndarray
    group: np.ndarray
    metric: str = "l1"

    @classmethod
    def of(cls, encoder: TableEncoder, frame: pd.DataFrame, columns: list[str]) -> MixedSpace:
        full = gower_matrix(encoder, frame, columns)
        is_num = np.array([encoder.schema[c].is_numeric for c in encoder.feature_columns(columns)])
        group = np.zeros(len(frame), dtype=np.int64)
        for c in columns:
            if not encoder.schema[c].is_numeric:
                cats = encoder.categories_[c]
                codes = pd.Categorical(frame[c].to_numpy(dtype=object), categories=cats).codes
                group = group * (len(cats) + 1) + codes.astype(np.int64) + 1
        return cls(full, np.ascontiguousarray(full[:, is_num]), group)

    @classmethod
    def embedded(cls, encoder: Any, frame: pd.DataFrame, columns: list[str]) -> MixedSpace:
        """The table in the contrastive embedding, the columns outside ``columns`` masked
        (Euclidean; one group, so the search is the plain exact one)."""
        z = encoder.transform(frame, columns)
        return cls(z, z, np.zeros(len(frame), dtype=np.int64), "euclidean")


def attack_space(
    data: Any,
    columns: list[str],
    numeric_missing: str,
    space: str,
    embedding: Any,
    embedding_params: dict[str, Any] | None,
    seed: int,
) -> tuple[Callable[[pd.DataFrame, list[str]], MixedSpace], dict[str, Any]]:
    """How an attack places tables: ``(frame, columns) -> MixedSpace`` in the shared
    mixed-type space (Gower-like L1 over ``columns``) or the contrastive embedding
    (trained on every included column of the training rows, the others masked), and the
    space's params."""
    from ...embedding import check_space, resolve_encoder

    check_space(space)
    if space == "contrastive":
        encoder = resolve_encoder(data, embedding, embedding_params, seed)
        return (
            lambda frame, cols: MixedSpace.embedded(encoder, frame, cols),
            {"space": "contrastive", "embedding": encoder.describe()},
        )
    table_encoder = TableEncoder(data.schema, columns=columns, numeric_missing=numeric_missing).fit(
        data.real
    )
    return (lambda frame, cols: MixedSpace.of(table_encoder, frame, cols), {"space": "shared"})


def knn_random_ties(
    query: MixedSpace, reference: MixedSpace, k: int, perm: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Exact k nearest reference rows under the mixed L1 distance, ties broken by the
    random order ``perm``.

    Speed-up, still exact: a reference row of another category combination is at least 1
    away (one mismatch), so when the k-th neighbour found among the rows of the query's
    own combination (numeric columns only) is closer than 1, no other row can enter the
    list; the remaining queries get a full search. Both searches rank ties by position in
    ``perm``, so the result is the one of a single full search.
    """
    ref_full, ref_num, ref_group = (
        reference.full[perm],
        reference.numeric[perm],
        reference.group[perm],
    )
    n_q = len(query.full)
    dist = np.empty((n_q, k))
    idx = np.empty((n_q, k), dtype=np.int64)
    todo = np.ones(n_q, dtype=bool)
    groups = np.unique(query.group)
    single = np.unique(ref_group).size == 1
    if groups.size <= _MAX_GROUPS:
        order = np.argsort(ref_group, kind="stable")  # keeps the random order within groups
        sorted_group = ref_group[order]
        for g in groups:
            lo, hi = np.searchsorted(sorted_group, [g, g + 1])
            if hi - lo < k:
                continue
            members = order[lo:hi]
            rows = np.flatnonzero(query.group == g)
            if ref_num.shape[1] == 0:
                # categories only: every member is at distance 0, so the first k in the
                # random order are the neighbours (a full search of a million-row release
                # ranked hundreds of thousands of ties per query)
                d = np.zeros((len(rows), k))
                i = np.broadcast_to(np.arange(k), (len(rows), k))
            else:
                d, i = nearest_neighbors(
                    query.numeric[rows],
                    ref_num[members],
                    k=k,
                    metric=reference.metric,
                    max_block=_KNN_BLOCK,
                )
            ok = np.ones(len(rows), dtype=bool) if single else d[:, -1] < 1.0
            dist[rows[ok]] = d[ok]
            idx[rows[ok]] = members[i[ok]]
            todo[rows[ok]] = False
    if todo.any():
        d, i = nearest_neighbors(
            query.full[todo], ref_full, k=k, metric=reference.metric, max_block=_KNN_BLOCK
        )
        dist[todo] = d
        idx[todo] = i
    return dist, perm[idx]
