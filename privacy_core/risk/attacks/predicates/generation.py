"""The predicates an attacker draws from the release.

Anonymeter's two generators, on rank codes: :func:`multivariate_queries` (conditions on
``n_cols`` columns of a random synthetic record, kept when they single it out) and
:func:`univariate_queries` (rare single values); and the random-guess baseline's
predicates (:func:`random_queries`), which are not filtered on the release. The two
generators return ``(cols, ops, vals, attempts, status)``; ``status`` says why drawing
stopped (``complete``, ``max_attempts``, ``saturated`` or ``exhausted``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .bit_index import BitIndex
from .coding import EQ, GE, GT, ISNA, LE, LT, NE, NOTNA, RankCoder, stack_predicates
from .counting import count_matches

_QUERY_BATCH = 1000  # predicates drawn per round (as Anonymeter)
_SATURATION_BATCHES = 100  # stop drawing after this many rounds without a new predicate


def above_median(coder: RankCoder, syn_codes: np.ndarray) -> list[np.ndarray]:
    """Per column, whether each value of its universe lies above the column's synthetic
    median (an empty array for a categorical column): the side of the median decides
    ``>=`` or ``<=`` in :func:`multivariate_queries`."""
    above = []
    for j in range(len(coder.columns)):
        if coder.numeric[j]:
            x = coder.universe[j][syn_codes[j][syn_codes[j] >= 0]]
            med = float(np.median(x)) if x.size else np.inf
            above.append(coder.universe[j] > med)
        else:
            above.append(np.zeros(0, dtype=bool))
    return above


def multivariate_queries(
    syn_codes: np.ndarray,
    numeric: np.ndarray,
    above: list[np.ndarray],
    *,
    n_queries: int,
    n_cols: int,
    max_attempts: int,
    rng: np.random.Generator,
    bits: BitIndex | None = None,
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
        ops = np.full(cols.shape, EQ, dtype=np.int8)
        for c in np.flatnonzero(numeric):
            at = cols == c
            if not at.any():
                continue
            v = vals[at]
            ops[at] = np.where(v < 0, ISNA, np.where(above[c][np.maximum(v, 0)], GE, LE))
        if bits is None:
            counts = count_matches(syn_codes, cols, ops, vals)[0]
        elif bits.exact:
            counts = bits.counts(cols, vals)
        else:
            # two matches in the subset mean two in the release: only the rest is counted
            counts = bits.counts(cols, vals)
            maybe = np.flatnonzero(counts <= 1)
            counts[maybe] = count_matches(syn_codes, cols[maybe], ops[maybe], vals[maybe])[0]
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
    return (*stack_predicates(kept_c, kept_o, kept_v, n_cols), attempts, status)


def univariate_queries(
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
                parts.append(np.array([[c, ISNA, -1, 1]]))
            if present.size:
                lo, hi = present[0], present[-1]
                parts.append(
                    np.array([[c, LE, lo, hist[lo + 1] == 1], [c, GE, hi, hist[hi + 1] == 1]])
                )
        once = np.flatnonzero(hist[1:] == 1)
        parts.append(
            np.column_stack(
                [
                    np.full(once.size, c),
                    np.full(once.size, EQ),
                    once,
                    np.ones(once.size, dtype=np.int64),
                ]
            )
        )
    cands = np.concatenate(parts).astype(np.int64) if parts else np.zeros((0, 4), np.int64)
    if not len(cands):
        return (*stack_predicates([], [], [], 1), 0, "complete")
    arr = cands[rng.permutation(len(cands))]
    # candidates are distinct by construction ("<= min" and "== min" are two predicates)
    keep = np.flatnonzero(arr[:, 3] == 1)[:n_queries]
    cols, ops, vals = arr[keep, :1], arr[keep, 1:2].astype(np.int8), arr[keep, 2:3]
    status = "complete" if keep.size >= n_queries else "exhausted"
    return cols, ops, vals.astype(np.int32), len(cands), status


def random_queries(
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
    numeric_ops = np.array([EQ, NE, GT, LT, GE, LE], dtype=np.int8)
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
    ops[missing] = np.where(ops[missing] == EQ, ISNA, NOTNA)
    return cols, ops, vals
