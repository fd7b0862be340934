"""Query error (``query_error``): how far random range and point queries answer apart.

Contract
--------
:func:`query_error` draws, for each query order k, seeded random k-way queries over the
real table's ranges and levels, answers each on the real table and on every release
(the share of rows meeting every condition), and returns a
:class:`~privacy_core.results.MetricResult` whose value is the mean over k of the mean
absolute difference (lower is better); one row per query in ``records``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..data import Schema
from ..errors import ParameterError
from ..inputs import ReleaseTables, prepare_release_tables
from ..results import MetricResult
from ..stats import bootstrap_weights, child_rngs, child_seeds, percentile_interval
from ..threat import ThreatModel
from ..validation import check_confidence, check_positive_int, check_seed

__all__ = ["query_answers", "query_error"]


def _query_matrix(
    frame: pd.DataFrame, columns: Sequence[str], schema: Schema, categories: dict[str, list[str]]
) -> np.ndarray:
    """Every column as float: numerics raw (NaN missing), categoricals as level codes."""
    out = np.empty((len(frame), len(columns)))
    for j, c in enumerate(columns):
        if schema[c].is_numeric:
            out[:, j] = frame[c].to_numpy(dtype=float)
        else:
            # -1 for a value outside ``categories`` (a synthetic category the real data
            # never holds): it meets no point condition
            out[:, j] = pd.Index(categories[c]).get_indexer(frame[c].astype(str))
    return out


def query_answers(X: np.ndarray, cols: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Share of rows of X meeting every condition lo <= x <= hi, for each query (row)."""
    n_q, k = cols.shape
    out = np.empty(n_q)
    chunk = max(1, 4_000_000 // max(X.shape[0] * k, 1))
    for start in range(0, n_q, chunk):
        sl = slice(start, start + chunk)
        vals = X[:, cols[sl].ravel()].reshape(X.shape[0], -1, k)  # (n, q, k)
        with np.errstate(invalid="ignore"):
            ok = (vals >= lo[sl][None]) & (vals <= hi[sl][None])
        out[sl] = ok.all(axis=2).mean(axis=0)
    return out


def query_error(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    schema: Schema | None = None,
    threat: ThreatModel | None = None,
    n_queries: int = 1000,
    ways: Sequence[int] = (1, 2, 3),
    bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> MetricResult:
    """Mean absolute error of random k-way range / point query answers.

    For each k in ``ways``, ``n_queries`` queries are drawn: k distinct columns uniformly;
    a categorical column gets a point condition x = v with v uniform over its real
    levels; a numeric column gets a range lo <= x <= hi with lo ~ U(min, max) and
    hi ~ U(lo, max) over the real range. A query's answer is the share of rows meeting
    every condition (a missing numeric value meets none); its error is the absolute
    difference between the real and the synthetic answer (averaged over replicates).

    Parameters
    ----------
    schema
        Column kinds; inferred from ``real`` when omitted.
    threat
        Ignored (queries involve every column); accepted for one calling convention.
    n_queries
        Queries per k.
    ways
        Query orders k; orders above the number of columns are skipped (recorded in
        ``params["ways"]``).
    bootstrap
        Percentile-bootstrap replicates over queries (resampled within each k) for ``ci``.
    seed
        Seeds the queries and the bootstrap.

    Returns
    -------
    MetricResult
        ``name="query_error"``, value = mean over k of err_k, goal lower, bounds [0, 1];
        ``records``: one row per query (``query``, ``k``, ``columns``, ``condition``,
        ``real``, ``synthetic``, ``error``); ``extra["by_way"]`` = {k: err_k}.

    Notes
    -----
    Du & Li §3.3, Definition 3.5; ``metric-reference.md`` §1d, with a seeded generator
    instead of the reference code's time-based seeds.
    """
    seed = check_seed(seed)
    n_queries = check_positive_int("n_queries", n_queries)
    bootstrap = check_positive_int("bootstrap", bootstrap, minimum=0)
    check_confidence(confidence)
    ways_t = tuple(sorted({check_positive_int("ways", k) for k in ways}))
    if not ways_t:
        raise ParameterError("`ways` must list at least one query order, e.g. (1, 2, 3).")
    data = prepare_release_tables(real, synthetic, schema=schema, min_rows=1)
    cols = data.schema.included
    usable = tuple(k for k in ways_t if k <= len(cols))
    if not usable:
        raise ParameterError(f"`ways` {ways_t} all exceed the number of columns ({len(cols)}).")
    space = _query_space(data)
    rng = child_rngs(seed, 2)[0]
    # one draw after another from the one generator: the queries of k depend on the
    # orders before it
    asked = [_ask_queries(space, k, n_queries, rng, i * n_queries) for i, k in enumerate(usable)]
    by_way = {k: float(err.mean()) for k, (_, err) in zip(usable, asked, strict=True)}
    params = {
        "n_queries": n_queries,
        "ways": list(usable),
        "bootstrap": bootstrap,
        "confidence": confidence,
        "seed": seed,
        "columns": cols,
        "n_real": len(data.real),
        "n_synthetic": [len(s) for s in data.synthetic],
        "n_replicates": len(data.synthetic),
    }
    return MetricResult(
        name="query_error",
        value=float(np.mean(list(by_way.values()))),
        ci=_query_interval([err for _, err in asked], bootstrap, seed, confidence),
        params=params,
        record_table=pd.concat([frame for frame, _ in asked], ignore_index=True),
        goal="lower",
        bounds=(0.0, 1.0),
        extra={"by_way": by_way},
    )


class _QuerySpace(NamedTuple):
    """The tables as float matrices (:func:`_query_matrix`) and what queries are drawn
    from: each numeric column's real range and each categorical column's levels."""

    cols: list[str]
    categories: dict[str, list[str]]
    X_real: np.ndarray
    X_syn: list[np.ndarray]
    is_num: np.ndarray
    col_min: np.ndarray
    col_max: np.ndarray
    n_levels: np.ndarray


def _query_space(data: ReleaseTables) -> _QuerySpace:
    """Encode the real table and the releases, and take the real ranges and levels."""
    cols = data.schema.included
    # the real levels only (not the schema's appended unseen ones): a point query asks
    # about the real distribution; a synthetic value the real data never holds codes as
    # -1 and so meets no point condition
    categories = {
        c: sorted(set(map(str, data.schema[c].real_categories)) | set(data.real[c].astype(str)))
        for c in cols
        if not data.schema[c].is_numeric
    }
    X_real = _query_matrix(data.real, cols, data.schema, categories)
    X_syn = [_query_matrix(s, cols, data.schema, categories) for s in data.synthetic]
    is_num = np.array([data.schema[c].is_numeric for c in cols])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        col_min = np.where(is_num, np.nanmin(np.where(is_num, X_real, 0), axis=0), 0)
        col_max = np.where(is_num, np.nanmax(np.where(is_num, X_real, 0), axis=0), 0)
    n_levels = np.array([len(categories[c]) if c in categories else 0 for c in cols])
    return _QuerySpace(cols, categories, X_real, X_syn, is_num, col_min, col_max, n_levels)


def _ask_queries(
    space: _QuerySpace, k: int, n_queries: int, rng: np.random.Generator, first_id: int
) -> tuple[pd.DataFrame, np.ndarray]:
    """Draw ``n_queries`` k-way queries, answer them on every table; (their records, each
    query's error averaged over releases)."""
    cols = space.cols
    sel = np.argsort(rng.random((n_queries, len(cols))), axis=1)[:, :k]  # k distinct
    u1, u2, uv = rng.random((3, n_queries, k))
    lo_num = space.col_min[sel] + u1 * (space.col_max[sel] - space.col_min[sel])
    hi_num = lo_num + u2 * (space.col_max[sel] - lo_num)
    level = np.floor(uv * np.maximum(space.n_levels[sel], 1)).astype(np.int64)
    num = space.is_num[sel]
    lo = np.where(num, lo_num, level)
    hi = np.where(num, hi_num, level)
    mu_real = query_answers(space.X_real, sel, lo, hi)
    mu_syn = np.column_stack([query_answers(X, sel, lo, hi) for X in space.X_syn])
    err = np.abs(mu_real[:, None] - mu_syn).mean(axis=1)
    frame = pd.DataFrame(
        {
            "query": np.arange(first_id, first_id + n_queries),
            "k": k,
            "columns": [", ".join(cols[i] for i in row) for row in sel],
            "condition": [
                _describe(cols, row, lo[q], hi[q], num[q], space.categories)
                for q, row in enumerate(sel)
            ],
            "real": mu_real,
            "synthetic": mu_syn.mean(axis=1),
            "error": err,
        }
    )
    return frame, err


def _query_interval(
    errors_by_way: list[np.ndarray], bootstrap: int, seed: int, confidence: float
) -> tuple[float, float] | None:
    """Percentile bootstrap of the value, resampling the queries within each order
    (None without replicates)."""
    if not bootstrap:
        return None
    boot_seed = child_seeds(seed, 2)[1]
    boot = np.zeros(bootstrap)
    for i, err in enumerate(errors_by_way):
        w = bootstrap_weights(len(err), bootstrap, seed=boot_seed + i)
        boot += (w @ err.astype(np.float32)) / len(err)
    lo_b, hi_b = percentile_interval(boot / len(errors_by_way), confidence=confidence)
    return (float(lo_b), float(hi_b))


def _describe(
    cols: Sequence[str],
    row: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    num: np.ndarray,
    categories: dict[str, list[str]],
) -> str:
    parts = []
    for j, i in enumerate(row):
        c = cols[i]
        if num[j]:
            parts.append(f"{c} in [{lo[j]:.4g}, {hi[j]:.4g}]")
        else:
            parts.append(f"{c} = {categories[c][int(lo[j])]}")
    return " & ".join(parts)
