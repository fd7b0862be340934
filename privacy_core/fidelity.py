"""Fidelity: Wasserstein distances over every 1- and 2-way marginal, and the fidelity suite.

Why one module: the distances, the marginals they are computed on and the measure share
one representation of a marginal's points (category codes, min-max scaled numerics, -1 for
a missing value) and one transport solver with its iteration limit; the sampling of
column pairs and its interval read the same family labels. Split, the point encoding and
the costs that assume it would live apart.

Contract
--------
* :func:`wasserstein_fidelity` compares the real table with one or more synthetic
  releases over all 1-way and 2-way marginals of the included columns and returns a
  :class:`WassersteinResult` (one row per marginal in ``records``; ``pair_matrix()`` and
  ``worst()`` are cheap views for the figures).
* The fidelity suite (this, ML affinity, query error, the discriminator) runs through
  :func:`privacy_core.evaluation.evaluate` like every measure;
  :func:`privacy_core.references.fidelity_baselines` evaluates the HALF and HISTOGRAM
  reference releases with it.

Distances (SynMeter's code, ``metric-reference.md`` §1a; the paper's Definition 3.1):

=========  ==================================================================  ===========
family     distance                                                            range
=========  ==================================================================  ===========
cat        total variation distance (W1 with 0/1 cost)                         [0, 1]
num        exact W1 of values min-max scaled on real ∪ synthetic               [0, 1]
cat-cat    TVD over the product domain (W1 with cost 1[tuple differs])         [0, 1]
num-num    exact OT, cost |Δx| + |Δy| on min-max scaled values                 [0, 2]
cat-num    exact OT, cost 1[category differs] + |Δx| (scaled)                  [0, 2]
=========  ==================================================================  ===========

A missing numeric value (NaN) is a point of its own: cost 0 to another missing value and
1 (the largest scaled distance) to any value. The headline is the mean of the available
family means (SynMeter's code); the paper's mean over all marginals is ``extra["mean_all"]``.
Because the 2-way costs add two scaled distances, the result's bounds are [0, 2].
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import combinations
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from .data import Schema
from .errors import ParameterError, UntrustworthyResultWarning
from .inputs import ReleaseTables, prepare_release_tables
from .parallel import usable_cores
from .progress import ProgressFn
from .results import MetricResult
from .stats import mean_interval
from .threat import ThreatModel
from .validation import check_positive_int, check_seed

FAMILIES = ("cat", "num", "cat-cat", "num-num", "cat-num")
FIDELITY_METRICS = ("wasserstein", "mla", "query_error", "discriminator")
DEFAULT_MAX_PAIRS = 1000
"""2-way marginals scored at most (a seeded sample of the column pairs above it).

The pairs grow with the square of the columns: 2,001 columns have 2,001,000 of them, each
a transport problem (issue 32 measured no result after 300 s and 4.9 GB). Above this
budget a seeded sample of pairs is scored (stratified by family: at least 50 pairs of each,
or all of a smaller family), the 2-way family means become sample means, and the interval
is the bootstrap over the sampled pairs (``params["pair_sampling"]``). 1,000
numeric pairs take about 7 s at 300 rows on two cores, so the Fidelity page (the release
and its references) stays under a minute at 2,001 columns; every table of up to 45
columns is scored whole."""
DEFAULT_MAX_ROWS = 3000
"""Rows per table for the network-simplex marginals (SynMeter's large-data subsample).

At 3,000 rows the slowest marginal of UCI Adult (``fnlwgt`` × another column, ~3,000
distinct points per side) takes about 1.5 s; all 105 marginals take well under a minute
(``bench/bench_fidelity.py``)."""
_MISSING = -1.0  # scaled numerics live in [0, 1]; -1 marks a missing value
_NUM_ITER_MAX = 100_000_000  # POT's default (1e5) can stop early on 3000 x 3000 problems


# ============================================================================ result
@dataclass(frozen=True, eq=False)
class WassersteinResult(MetricResult):
    """Wasserstein fidelity with its per-marginal breakdown.

    ``records`` has one row per marginal (not per record: the measure has no per-record
    values): ``marginal`` ("a" or "a|b"), ``column_a``, ``column_b``, ``family``, ``ways``,
    ``distance`` (mean over replicates), ``sd`` (over replicates), ``n_real`` and
    ``n_synthetic`` (rows used per table; the mean over replicates) and ``all_rows``
    (False when the marginal was computed on the subsample).
    """

    columns: tuple[str, ...] = ()

    def pair_matrix(self) -> pd.DataFrame:
        """Square table of 2-way distances (columns × columns, NaN on the diagonal)."""
        cols = list(self.columns)
        mat = pd.DataFrame(np.nan, index=cols, columns=cols, dtype=float)
        table = self.records
        if table is None:
            return mat
        pairs = table[table["ways"] == 2]
        for a, b, d in zip(pairs["column_a"], pairs["column_b"], pairs["distance"], strict=True):
            mat.loc[a, b] = d
            mat.loc[b, a] = d
        return mat

    def worst(self, k: int = 10, *, ways: int | None = None) -> pd.DataFrame:
        """The ``k`` marginals with the largest distance (optionally only 1- or 2-way)."""
        k = check_positive_int("k", k)
        table = self.records
        if table is None:
            return pd.DataFrame()
        if ways is not None:
            table = table[table["ways"] == ways]
        return table.sort_values("distance", ascending=False, kind="stable").head(k)


# ============================================================================ distances
def total_variation(p_counts: np.ndarray, q_counts: np.ndarray) -> float:
    """Total variation distance ½ Σ |p − q| between two count vectors on one domain."""
    p = np.asarray(p_counts, dtype=float)
    q = np.asarray(q_counts, dtype=float)
    return 0.5 * float(np.abs(p / p.sum() - q / q.sum()).sum())


def wasserstein_1d(u: np.ndarray, v: np.ndarray) -> float:
    """W1 between two samples of one variable: the area between their empirical CDFs.

    scipy's ``wasserstein_distance`` computes the same integral, but its last step is a
    BLAS dot product, whose partial sums follow the machine's thread count (a marginal's
    last digit differed between one and two threads on Adult); ``np.sum`` adds pairwise
    on one thread, so the value is the same on every machine and in every scheduled task.
    """
    u, v = np.sort(np.asarray(u, dtype=float)), np.sort(np.asarray(v, dtype=float))
    both = np.sort(np.concatenate([u, v]), kind="mergesort")
    deltas = np.diff(both)
    u_cdf = np.searchsorted(u, both[:-1], side="right") / u.size
    v_cdf = np.searchsorted(v, both[:-1], side="right") / v.size
    return float(np.sum(np.abs(u_cdf - v_cdf) * deltas))


def _collapse(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unique rows and their probability weights: the same empirical distribution."""
    uniq, counts = np.unique(points, axis=0, return_counts=True)
    return uniq, counts / counts.sum()


def mixed_cost(u: np.ndarray, v: np.ndarray, kinds: Sequence[str]) -> np.ndarray:
    """Cost matrix Σ_dims c(u_d, v_d) between point sets (rows) of a marginal.

    ``cat`` dimensions hold integer codes and cost 1[codes differ]; ``num`` dimensions hold
    min-max scaled values (or -1 for missing) and cost |Δ| between values, 0 between two
    missing values and 1 between a value and a missing one.
    """
    cost = np.zeros((u.shape[0], v.shape[0]), dtype=float)
    for d, kind in enumerate(kinds):
        a = u[:, d][:, None]
        b = v[:, d][None, :]
        if kind == "cat":
            cost += a != b
        elif (a >= 0).all() and (b >= 0).all():
            diff = np.subtract(a, b)  # one (p, q) temporary: these matrices reach 72 MB
            np.abs(diff, out=diff)
            cost += diff
        else:
            a_miss = a < 0
            b_miss = b < 0
            both = ~a_miss & ~b_miss
            cost += np.where(both, np.abs(a - b), (a_miss != b_miss).astype(float))
    return cost


def ot_distance(
    real_points: np.ndarray, synthetic_points: np.ndarray, kinds: Sequence[str]
) -> float:
    """Exact W1 between two empirical distributions under :func:`mixed_cost`.

    Equal points are merged into one weighted point first, which leaves the optimal
    transport value unchanged and shrinks the problem to the number of distinct points.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # POT's own notice; re-raised below
        value, problem = _ot_value(real_points, synthetic_points, kinds)
    _warn_not_converged(problem, stacklevel=3)
    return value


def _ot_value(
    real_points: np.ndarray, synthetic_points: np.ndarray, kinds: Sequence[str]
) -> tuple[float, str]:
    """:func:`ot_distance`'s value and POT's non-convergence message ('' when solved),
    without touching the warnings machinery (safe to call from worker threads: POT's
    solver releases the GIL, so marginals are solved two at a time on two cores)."""
    import ot  # POT imports torch when installed (~2 s): load it on first use only

    u, a = _collapse(real_points)
    v, b = _collapse(synthetic_points)
    cost = mixed_cost(u, v, kinds)
    if u.shape[0] == 1 or v.shape[0] == 1:  # one side is a single point: no choice to make
        return float((cost * a[:, None] * b[None, :]).sum()), ""
    value, log = ot.emd2(a, b, cost, numItermax=_NUM_ITER_MAX, log=True)
    return float(value), str(log.get("warning") or "")


def _warn_not_converged(problem: str, stacklevel: int) -> None:
    if problem:
        warnings.warn(
            f"The exact transport solver did not converge ({problem}); "
            "this marginal's distance is an upper bound.",
            UntrustworthyResultWarning,
            stacklevel=stacklevel + 1,
        )


def _family(kinds: Sequence[str]) -> str:
    if len(kinds) == 1:
        return kinds[0]
    if kinds[0] == kinds[1]:
        return f"{kinds[0]}-{kinds[1]}"
    return "cat-num"


def _subsample_index(n: int, max_rows: int | None, seed: int) -> np.ndarray:
    """Seeded rows of a table of ``n`` rows: depends on the seed and n only.

    Two tables of the same length get the same positions, so identical tables are compared
    on identical rows and swapping real and synthetic leaves the result unchanged.
    """
    if max_rows is None or n <= max_rows:
        return np.arange(n)
    rng = np.random.default_rng(np.random.SeedSequence([seed, n]))
    return np.sort(rng.choice(n, size=max_rows, replace=False))


class _Encoded:
    """A table as per-column arrays: category codes, raw numerics."""

    def __init__(
        self,
        frame: pd.DataFrame,
        columns: Sequence[str],
        kinds: Mapping[str, str],
        categories: Mapping[str, list[str]],
    ):
        self.n = len(frame)
        self.values: dict[str, np.ndarray] = {}
        for c in columns:
            if kinds[c] == "cat":
                codes = pd.Categorical(frame[c].astype(str), categories=categories[c]).codes
                self.values[c] = codes.astype(np.int64)
            else:
                self.values[c] = frame[c].to_numpy(dtype=float)


def _scaled(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    span = hi - lo
    out = (x - lo) / span if span > 0 else np.zeros_like(x)
    return np.where(np.isnan(x), _MISSING, out)


def _marginal_distances(
    real: _Encoded,
    syn: _Encoded,
    columns: Sequence[str],
    kinds: Mapping[str, str],
    categories: Mapping[str, list[str]],
    marginals: Sequence[tuple[str, ...]],
    max_rows: int | None,
    seed: int,
    progress: Callable[[int], None] | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Distance of each marginal for one release, and which ones the network simplex solved
    (on the subsample when a table is longer than ``max_rows``)."""
    ranges = {}
    for c in columns:
        if kinds[c] == "num":
            both = np.concatenate([real.values[c], syn.values[c]])
            finite = both[np.isfinite(both)]
            ranges[c] = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    idx_r = _subsample_index(real.n, max_rows, seed)
    idx_s = _subsample_index(syn.n, max_rows, seed)

    def points(table: _Encoded, marginal: tuple[str, ...], idx: np.ndarray | None) -> np.ndarray:
        cols = []
        for c in marginal:
            v = table.values[c] if idx is None else table.values[c][idx]
            cols.append(v.astype(float) if kinds[c] == "cat" else _scaled(v, *ranges[c]))
        return np.column_stack(cols)

    out = np.empty(len(marginals))
    used_ot = np.zeros(len(marginals), dtype=bool)
    done = 0
    for i, marginal in enumerate(marginals):
        mk = [kinds[c] for c in marginal]
        has_missing = any(
            kinds[c] == "num" and (np.isnan(real.values[c]).any() or np.isnan(syn.values[c]).any())
            for c in marginal
        )
        if all(k == "cat" for k in mk):
            # closed form on all rows: TVD of the (joint) category counts
            size = 1
            code_r = np.zeros(real.n, dtype=np.int64)
            code_s = np.zeros(syn.n, dtype=np.int64)
            for c in marginal:
                k = len(categories[c])
                code_r = code_r * k + real.values[c]
                code_s = code_s * k + syn.values[c]
                size *= k
            out[i] = total_variation(
                np.bincount(code_r, minlength=size), np.bincount(code_s, minlength=size)
            )
        elif len(marginal) == 1 and not has_missing:
            c = marginal[0]
            out[i] = wasserstein_1d(
                _scaled(real.values[c], *ranges[c]), _scaled(syn.values[c], *ranges[c])
            )
        else:
            used_ot[i] = True  # solved below, on the worker threads
            continue
        done += 1
        if progress:
            progress(done)

    def solve(i: int) -> tuple[int, float, str]:
        m = marginals[i]
        return (i, *_ot_value(points(real, m, idx_r), points(syn, m, idx_s), [kinds[c] for c in m]))

    with warnings.catch_warnings(), ThreadPoolExecutor(usable_cores()) as pool:
        warnings.simplefilter("ignore", UserWarning)  # POT's notice; ours follows
        problems = []
        for i, value, problem in pool.map(solve, np.flatnonzero(used_ot)):
            out[i] = value
            problems.append(problem)
            done += 1
            if progress:
                progress(done)
    for problem in problems:
        _warn_not_converged(problem, stacklevel=3)
    return out, used_ot


# ============================================================================ measure
def wasserstein_fidelity(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    schema: Schema | None = None,
    threat: ThreatModel | None = None,
    columns: Sequence[str] | None = None,
    max_rows: int | None = DEFAULT_MAX_ROWS,
    max_pairs: int | None = DEFAULT_MAX_PAIRS,
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> WassersteinResult:
    """Wasserstein distance between real and synthetic over all 1- and 2-way marginals.

    Parameters
    ----------
    real
        The real table the release should resemble.
    synthetic
        One release, or several replicates of one generator (averaged marginal by
        marginal; the interval is then over replicates).
    schema
        Column kinds; inferred from ``real`` when omitted.
    threat
        Ignored: fidelity has no attacker. Accepted so that every measure shares one
        calling convention (as scikit-learn's ``y=None``).
    columns
        Restrict to these included columns (default: all included columns).
    max_rows
        Rows per table for the marginals solved by the network simplex (2-way marginals
        with a numeric column, 1-way numerics with missing values): a table longer than
        this is replaced by a seeded subsample of ``max_rows`` rows. ``None`` uses every
        row (exact, but the cost grows with the square of the distinct points). 1-way
        marginals and categorical pairs have closed forms and always use every row.
    max_pairs
        2-way marginals scored at most: with more column pairs than this, a seeded sample
        of ``max_pairs`` pairs is scored and the interval includes the sampling of pairs
        (see :data:`DEFAULT_MAX_PAIRS`). ``None`` scores every pair (the cost grows with
        the square of the columns).
    seed
        Seeds the subsample (a table's rows depend on the seed and its length only, so
        the measure is symmetric and zero on identical tables).
    progress
        Optional callable(fraction, message).

    Returns
    -------
    WassersteinResult
        ``value`` = mean of the family means (cat, num, cat-cat, num-num, cat-num), lower
        is better, bounds [0, 2]; ``ci`` = Student-t interval over replicates (None for a
        single release: the subsample is fixed by the seed and a row bootstrap would
        re-solve every transport problem). ``extra``: ``one_way``, ``two_way`` (means over
        1-way / 2-way marginals), ``mean_all`` (the paper's mean over all marginals),
        ``families``, ``by_marginal`` ({"a": d, "a|b": d}), ``replicate_values``.

    Notes
    -----
    Du & Li, Systematic Assessment of Tabular Data Synthesis (``systematic-assessment-
    fidelity-mds.md``) §3.1, Definition 3.1; the costs and the family average follow
    SynMeter's code (``metric-reference.md`` §1a), with the numeric OT solved to
    optimality (POT ``emd2`` with a raised iteration limit; a non-converged solve warns).
    """
    seed = check_seed(seed)
    if max_rows is not None:
        max_rows = check_positive_int("max_rows", max_rows, minimum=2)
    if max_pairs is not None:
        max_pairs = check_positive_int("max_pairs", max_pairs, minimum=1)
    data = prepare_release_tables(real, synthetic, schema=schema, min_rows=2)
    cols = _choose_columns(data.schema, columns)
    kinds = {c: "num" if data.schema[c].is_numeric else "cat" for c in cols}
    plan = _marginal_plan(cols, kinds, max_pairs, seed)
    per_rep, used_ot = _release_distances(
        data, cols, kinds, plan.marginals, max_rows, seed, progress
    )
    dist = per_rep.mean(axis=0)
    fam_arr, ways = np.asarray(plan.families), plan.ways
    rep_values = [_family_mean(values, fam_arr) for values in per_rep]
    value = float(np.mean(rep_values))
    ci = mean_interval(np.asarray(rep_values)) if len(rep_values) > 1 else None
    if plan.pairs_sampled:
        # the pairs are a sample: the interval covers that sampling too; with replicates,
        # the two half-widths add in quadrature (independent sources of uncertainty)
        lo, hi = _pair_sampling_interval(dist, fam_arr, ways, seed)
        if ci is not None:
            half = math.hypot((ci[1] - ci[0]) / 2, (hi - lo) / 2)
            lo, hi = value - half, value + half
        ci = (lo, hi)
    rows = _rows_used(data, max_rows, used_ot)
    extra = {
        "one_way": float(dist[ways == 1].mean()),
        "two_way": float(dist[ways == 2].mean()) if (ways == 2).any() else float("nan"),
        "mean_all": float(np.mean([float(values.mean()) for values in per_rep])),
        "families": {f: float(dist[fam_arr == f].mean()) for f in FAMILIES if (fam_arr == f).any()},
        "by_marginal": dict(zip(plan.keys, map(float, dist), strict=True)),
        "replicate_values": rep_values,
    }
    if progress:
        progress(1.0, "Wasserstein fidelity done")
    return WassersteinResult(
        name="wasserstein",
        value=value,
        ci=ci,
        params=_fidelity_params(data, cols, plan, rows, max_rows, max_pairs, seed),
        record_table=_marginal_table(data, plan, per_rep, used_ot, rows),
        goal="lower",
        bounds=(0.0, 2.0),
        extra=extra,
        columns=tuple(cols),
    )


class _MarginalPlan(NamedTuple):
    """The marginals scored: each column, then the column pairs (every pair, or a seeded
    sample above ``max_pairs``), with each marginal's family."""

    marginals: list[tuple[str, ...]]
    families: list[str]
    n_pairs: int
    n_pairs_total: int
    pairs_sampled: bool

    @property
    def keys(self) -> list[str]:
        return ["|".join(m) for m in self.marginals]

    @property
    def ways(self) -> np.ndarray:
        return np.array([len(m) for m in self.marginals])


def _marginal_plan(
    cols: list[str], kinds: dict[str, str], max_pairs: int | None, seed: int
) -> _MarginalPlan:
    """Every column and every pair of columns, or a seeded sample of :func:`sample_pairs`
    when there are more pairs than ``max_pairs``."""
    n_pairs_total = len(cols) * (len(cols) - 1) // 2
    pairs_sampled = max_pairs is not None and n_pairs_total > max_pairs
    pairs: list[tuple[str, ...]]
    if pairs_sampled:
        pick = sample_pairs(cols, kinds, max_pairs or n_pairs_total, seed)
        first, second = np.triu_indices(len(cols), 1)  # every pair, without tuples
        pairs = [(cols[first[k]], cols[second[k]]) for k in pick]
    else:
        pairs = list(combinations(cols, 2))
    marginals: list[tuple[str, ...]] = [(c,) for c in cols]
    marginals += pairs
    families = [_family([kinds[c] for c in m]) for m in marginals]
    return _MarginalPlan(marginals, families, len(pairs), n_pairs_total, pairs_sampled)


def _release_distances(
    data: ReleaseTables,
    cols: list[str],
    kinds: dict[str, str],
    marginals: list[tuple[str, ...]],
    max_rows: int | None,
    seed: int,
    progress: ProgressFn | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Each release's distance on each marginal (release x marginal), and which marginals
    the network simplex solved."""
    categories = {
        c: sorted(
            set(map(str, data.schema[c].categories))
            | set(data.real[c].astype(str).unique())
            | set().union(*(set(s[c].astype(str).unique()) for s in data.synthetic))
        )
        for c in cols
        if kinds[c] == "cat"
    }
    enc_real = _Encoded(data.real, cols, kinds, categories)
    n_rep = len(data.synthetic)
    total = n_rep * len(marginals)
    per_rep = np.empty((n_rep, len(marginals)))
    used_ot = np.zeros(len(marginals), dtype=bool)
    for r, syn in enumerate(data.synthetic):
        enc_syn = _Encoded(syn, cols, kinds, categories)

        def tick(done: int, r: int = r) -> None:
            if progress and (done % 5 == 0 or done == len(marginals)):
                progress(
                    (r * len(marginals) + done) / total,
                    f"Marginal {done}/{len(marginals)} of release {r + 1}/{n_rep}",
                )

        per_rep[r], ot_r = _marginal_distances(
            enc_real, enc_syn, cols, kinds, categories, marginals, max_rows, seed, tick
        )
        used_ot |= ot_r
    return per_rep, used_ot


def _family_mean(values: np.ndarray, families: np.ndarray) -> float:
    """The mean of the family means of one release's marginal distances."""
    return float(np.mean([values[families == f].mean() for f in FAMILIES if (families == f).any()]))


class _RowsUsed(NamedTuple):
    """Rows per table: in all and on the subsample, and which marginals used it."""

    n_syn: list[int]
    n_sub_real: int
    n_sub_syn: list[int]
    subsampled: np.ndarray


def _rows_used(data: ReleaseTables, max_rows: int | None, used_ot: np.ndarray) -> _RowsUsed:
    """The rows each table has, those the network simplex used (at most ``max_rows``),
    and which marginals that subsample computed."""
    n_syn = [len(s) for s in data.synthetic]
    n_sub_real = min(len(data.real), max_rows) if max_rows else len(data.real)
    n_sub_syn = [min(n, max_rows) if max_rows else n for n in n_syn]
    subsampled = used_ot & (n_sub_real < len(data.real) or n_sub_syn != n_syn)
    return _RowsUsed(n_syn, n_sub_real, n_sub_syn, subsampled)


def _marginal_table(
    data: ReleaseTables,
    plan: _MarginalPlan,
    per_rep: np.ndarray,
    used_ot: np.ndarray,
    rows: _RowsUsed,
) -> pd.DataFrame:
    """The records: one row per marginal (see :class:`WassersteinResult`)."""
    marginals = plan.marginals
    return pd.DataFrame(
        {
            "marginal": plan.keys,
            "column_a": [m[0] for m in marginals],
            "column_b": [m[1] if len(m) == 2 else None for m in marginals],
            "family": plan.families,
            "ways": plan.ways,
            "distance": per_rep.mean(axis=0),
            "sd": (
                per_rep.std(axis=0, ddof=1) if len(per_rep) > 1 else np.full(len(marginals), np.nan)
            ),
            "n_real": np.where(used_ot, rows.n_sub_real, len(data.real)),
            "n_synthetic": np.where(
                used_ot, round(float(np.mean(rows.n_sub_syn))), round(float(np.mean(rows.n_syn)))
            ),
            "all_rows": ~rows.subsampled,
        }
    )


def _fidelity_params(
    data: ReleaseTables,
    cols: list[str],
    plan: _MarginalPlan,
    rows: _RowsUsed,
    max_rows: int | None,
    max_pairs: int | None,
    seed: int,
) -> dict[str, Any]:
    """The result's parameters: the options, the rows and the marginals used."""
    return {
        "columns": cols,
        "max_rows": max_rows,
        "seed": seed,
        "subsample_rows": {"real": rows.n_sub_real, "synthetic": rows.n_sub_syn},
        "n_real": len(data.real),
        "n_synthetic": rows.n_syn,
        "n_replicates": len(data.synthetic),
        "n_marginals": len(plan.marginals),
        "max_pairs": max_pairs,
        "n_pairs_total": plan.n_pairs_total,
        "n_pairs_scored": plan.n_pairs,
        "pair_sampling": (
            f"{plan.n_pairs} of {plan.n_pairs_total} column pairs, seeded sample; the interval "
            "is the bootstrap over the sampled pairs"
            if plan.pairs_sampled
            else "every pair"
        ),
        "n_subsampled_marginals": int(rows.subsampled.sum()),
        "aggregate": "mean of family means",
        "missing_numeric_cost": 1.0,
        "scaling": "min-max on real ∪ synthetic, per column and release",
    }


MIN_PAIRS_PER_FAMILY = 50
"""Pairs scored at least in each 2-way family (every pair of a smaller family)."""


def sample_pairs(cols: list[str], kinds: dict[str, str], budget: int, seed: int) -> np.ndarray:
    """Indices (into ``np.triu_indices(len(cols), 1)``) of a seeded sample of ``budget``
    column pairs, stratified by family (cat-cat, cat-num, num-num): each family gets a
    share of the budget proportional to its size but at least :data:`MIN_PAIRS_PER_FAMILY`
    (or all its pairs), so no family the table has drops out of the mean of family means.
    """
    numeric = np.array([kinds[c] == "num" for c in cols], dtype=np.int8)
    first, second = np.triu_indices(len(cols), 1)
    family = numeric[first] + numeric[second]  # 0 cat-cat, 1 cat-num, 2 num-num
    rng = np.random.default_rng([seed, 2])
    sizes = np.bincount(family, minlength=3)
    floor = np.minimum(sizes, MIN_PAIRS_PER_FAMILY)
    rest = max(budget - int(floor.sum()), 0)
    share = rest * (sizes - floor) / max(int((sizes - floor).sum()), 1)
    extra = np.floor(share).astype(int)
    # the pairs the rounding down left over go to the largest remainders
    for f in np.argsort(-(share - extra), kind="stable")[: rest - int(extra.sum())]:
        extra[f] += 1
    take = np.minimum(sizes, floor + extra)
    chosen = [
        rng.choice(np.flatnonzero(family == f), int(take[f]), replace=False)
        for f in range(3)
        if take[f]
    ]
    return np.sort(np.concatenate(chosen))


def _pair_sampling_interval(
    dist: np.ndarray, families: np.ndarray, ways: np.ndarray, seed: int, n_boot: int = 500
) -> tuple[float, float]:
    """95% percentile bootstrap of the mean of family means over sampled 2-way marginals:
    the 1-way marginals (all scored) stay fixed, the pairs of each family are resampled."""
    rng = np.random.default_rng([seed, 3])
    fixed = {f: dist[(families == f) & (ways == 1)] for f in FAMILIES}
    sampled = {f: dist[(families == f) & (ways == 2)] for f in FAMILIES}
    values = np.empty(n_boot)
    for b in range(n_boot):
        means = []
        for f in FAMILIES:
            if len(fixed[f]):
                means.append(fixed[f].mean())
            if len(sampled[f]):
                means.append(rng.choice(sampled[f], len(sampled[f])).mean())
        values[b] = np.mean(means)
    lo, hi = np.quantile(values, [0.025, 0.975])
    return float(lo), float(hi)


def _choose_columns(schema: Schema, columns: Sequence[str] | None) -> list[str]:
    included = schema.included
    if columns is None:
        return included
    cols = [columns] if isinstance(columns, str) else list(columns)
    bad = [c for c in cols if c not in included]
    if bad or not cols:
        raise ParameterError(
            f"`columns` must name included columns ({', '.join(included)}); got {bad or cols!r}."
        )
    return [c for c in included if c in cols]


__all__ = [
    "FAMILIES",
    "FIDELITY_METRICS",
    "DEFAULT_MAX_PAIRS",
    "DEFAULT_MAX_ROWS",
    "WassersteinResult",
    "wasserstein_1d",
    "wasserstein_fidelity",
    "total_variation",
    "mixed_cost",
    "ot_distance",
]
