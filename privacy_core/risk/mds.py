"""Membership disclosure score (MDS) with shadow synthesizers.

Why one module: the shadow models, the disclosure score and its HALF/SELF reading are
one method (Du & Li §5); the overfit variant reuses every step.

Du & Li, "Systematic Assessment of Tabular Data Synthesis"
(``systematic-assessment-fidelity-mds.md``) §5; the reference code's details are in
``metric-reference.md`` §1b. MDS asks of a *generating method*, not of one release: how
much does adding or removing one record change what the method emits near it?

m shadow synthesizers are trained on seeded halves of the real table such that every
record is a member of exactly ⌊m/2⌋ of them (``argsort(U, axis=0) < ⌊m/2⌋`` over a
uniform m x N matrix). Each shadow emits ``shadow_sets`` tables the size of its training
half. The distance of a record x to a table S is its nearest-neighbour distance on the
engine's shared encoder (min-max numerics, one-hot categoricals, fitted on the real
table) divided by √p, p the number of original columns. d̄_i(x) is the mean over shadow
i's tables, and DS(x) = |mean of d̄_i(x) over the shadows x trained | − mean over the
others|. MDS = max_x DS(x): the record a membership attacker would target.

Two references from the paper's baselines are computed with the same shadows' splits:
SELF (each shadow emits its training half: the worst case) and HALF (each shadow emits
real records it never saw, drawn from the holdout: what a release that tells nothing
about its members reads, i.e. the noise floor). The raw MDS is a distance whose scale
depends on the table; the *relative* reading (T − T0) / (T_SELF − T0) puts it on the
calibration contract's scale: about 0 for a method that emits unseen records, 1 for one
that copies its training data, rising with the share it copies. Three choices make it
stable with the few shadow models an interactive review can afford (the paper's code
uses 100 tables per shadow):

- T is a mean over the most exposed ``tail`` share of records (1 %; the max below 100
  records) rather than the max, a maximum of noise: the max's relative reading moved by
  ±0.1 between seeds at f_l = 0 (10 shadows, 2 tables, 1,500 records), the 1 % tail mean
  by ±0.05.
- Each record enters by its *confident* disclosure, the lower 97.5 % bound (Welch,
  Student t) of mean OUT − mean IN, floored at 0: a record counts only as far as the
  shadows establish that its presence brings the emitted data closer.
- T0, the noise floor, is the larger of HALF's tail and the method's own tail with IN
  and OUT relabelled at random (``NULL_PERMUTATIONS`` times): a generator whose tables
  vary wildly from shadow to shadow (DP-MST at epsilon 0.1) otherwise reads above SELF
  by chance. When even SELF does not rise above that floor the reading is NaN
  (uninformative at this number of shadows), never a number that looks like a risk.

The paper's max and its relative reading against HALF and SELF are reported alongside
(``raw_max``, ``relative_max``).
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, cast

import numpy as np
import pandas as pd

from ..data import Schema, infer_schema
from ..encoding import TableEncoder
from ..errors import InsufficientDataError, ParameterError, UntrustworthyResultWarning
from ..inputs import prepare_release_tables
from ..parallel import BACKENDS, map_unordered
from ..progress import ProgressFn
from ..results import MetricResult
from ..stats import child_seeds, percentile_interval
from ..threat import ThreatModel
from ..validation import (
    check_choice,
    check_confidence,
    check_in_range,
    check_positive_int,
    check_seed,
)
from .distance import analysis_columns
from .neighbors import nearest_neighbors

READINGS = ("relative", "max")
DEFAULT_SHADOW_MODELS = 10
DEFAULT_SHADOW_SETS = 5
DEFAULT_RECORDS = 2000
DEFAULT_MAX_ROWS = 50_000
MAX_COLUMNS = 100
"""Columns compared at most. Every shadow fits one tree per column on the columns before
it, so the cost grows with the square of the width: at 300 rows × 2,001 columns the
default reading ran for more than 400 s without a result. A wider table is read on a
seeded sample of this many columns (``params["columns_sampled"]``, with a warning); the
calibration contract holds on any column subset (a copy still reads about 1, unseen rows
about 0)."""
"""Distinct real records above which the shadows study a seeded sample of this many (each
shadow trains on half of it). MDS asks how much one record moves what the *method* emits;
a record's pull shrinks as the training table grows, so reading the method on a 50,000-row
sample errs on the side of more disclosure. Ten CART shadows on 500,000-row halves of a
million-row register took 279 s (health, 6 columns), and on 50,000-row halves of the
30-column wide table still 264 s (``bench/bench_scaling.py``)."""
CONFIDENT_LEVEL = 0.975
NULL_PERMUTATIONS = 10
FLAG_LEVEL = 0.999


@dataclass(frozen=True, eq=False)
class MdsResult(MetricResult):
    """MDS in the chosen reading, with the raw max, quantile, mean and references.

    ``records`` holds one row per evaluated record: ``record`` (index in the real
    table), ``ds`` (its disclosure score), ``mean_in``/``mean_out`` (its mean distance
    to the tables of the shadows it trained / did not train), ``ds_self`` and
    ``ds_half`` (the same record under the SELF and HALF references, NaN when not
    computed), ``confident`` (the lower confidence bound of mean OUT − mean IN, floored
    at 0), ``targeted`` (DS at or above the reported quantile: the records an attacker
    would try) and ``flagged`` (the same bound at the stricter ``FLAG_LEVEL`` is above
    0: about one unseen record in a thousand is flagged by chance).
    """

    raw_max: float = float("nan")
    raw_quantile: float = float("nan")
    raw_mean: float = float("nan")
    self_max: float = float("nan")
    half_max: float = float("nan")
    relative: float = float("nan")
    relative_max: float = float("nan")
    stopped: bool = False
    ds: np.ndarray = field(default_factory=lambda: np.empty(0))


@dataclass(frozen=True)
class _ShadowContext:
    """What every shadow task needs (pickled once per worker)."""

    table: pd.DataFrame  # canonical real rows, deduplicated, 0..N-1
    keep: np.ndarray  # (m, N) membership matrix
    targets: np.ndarray  # positions of the evaluated records
    encoder: TableEncoder
    method: str
    params: dict[str, Any]
    pool: pd.DataFrame | None
    sets: int
    seeds: np.ndarray  # (m, 1 + sets)
    scale: float  # √p
    # overfit levels f_o each (autoregressive) shadow is sampled at; (None,) = as fitted
    levels: tuple[float | None, ...] = (None,)


def _encode(ctx: _ShadowContext, frame: pd.DataFrame) -> np.ndarray:
    return ctx.encoder.transform(frame).astype(np.float64)


def _distances(ctx: _ShadowContext, targets: np.ndarray, table: pd.DataFrame) -> np.ndarray:
    x = _encode(ctx, table)
    x = x[np.isfinite(x).all(axis=1)]  # the reference code drops NaN / inf rows
    d, _ = nearest_neighbors(targets, x, k=1)
    return d[:, 0] / ctx.scale


def _shadow_task(i: int, ctx: _ShadowContext) -> tuple[int, np.ndarray]:
    """Fit shadow ``i`` on its half, sample its tables at each of ``ctx.levels``; the
    targets' mean NN distance per level, shape (levels, targets) (NaN at an overfit
    level the shadow's training never reached)."""
    from ..synth import make_generator
    from ..synth.autoregressive import torch_threads

    train = ctx.table[ctx.keep[i]]
    if ctx.method == "half":
        return i, _half_shadow(i, ctx, train)
    params = dict(ctx.params)
    if ctx.method == "leaky":
        params["pool"] = ctx.pool
    overfit = [lv for lv in ctx.levels if lv is not None]
    if overfit:
        params["overfit_levels"] = overfit
    fit: dict[str, Any] = {}
    if ctx.method == "autoregressive":
        # its validation loss (early stopping, overfit levels) on records it never trains
        # on: the pool, else the shadow's OUT records. Holding out a share of its own
        # half instead would make those IN records non-members.
        fit["validation"] = ctx.pool if ctx.pool is not None else ctx.table[~ctx.keep[i]]
    targets = _encode(ctx, ctx.table.iloc[ctx.targets])
    d = np.full((len(ctx.levels), len(ctx.targets)), np.nan)
    with warnings.catch_warnings(), torch_threads(1):
        warnings.simplefilter("ignore")
        gen = make_generator(ctx.method, **params).fit(train, seed=int(ctx.seeds[i, 0]), **fit)
        for li, level in enumerate(ctx.levels):
            # a level is set only for autoregressive shadows, which keep their loss curve
            if level is not None and not cast(Any, gen).curve.checkpoint(level).reached:
                continue
            at = {} if level is None else {"level": level}
            d[li] = sum(
                _distances(
                    ctx, targets, gen.sample(len(train), seed=int(ctx.seeds[i, 1 + j]), **at)
                )
                for j in range(ctx.sets)
            )
    return i, d / ctx.sets


def _half_shadow(i: int, ctx: _ShadowContext, train: pd.DataFrame) -> np.ndarray:
    """HALF as the systematic-assessment paper defines it (§4, "HALF (upper bound)"): the
    shadow's tables are real records of the other half of the population, never its own
    training rows, so a record's presence cannot move them (MDS about 0). The same
    construction as the HALF reference: ``ctx.sets`` draws from the pool, each of the
    training half's size. (The ``half`` generator, which releases half of the rows it is
    fitted on, is a partial copy: as a shadow method it read like a leaky generator.)"""
    pool = cast(pd.DataFrame, ctx.pool)
    targets = _encode(ctx, ctx.table.iloc[ctx.targets])
    d = np.zeros(len(ctx.targets))
    for j in range(ctx.sets):
        rng = np.random.default_rng(int(ctx.seeds[i, 1 + j]))
        take = rng.choice(len(pool), len(train), replace=len(train) > len(pool))
        d += _distances(ctx, targets, pool.iloc[take])
    return np.broadcast_to(d / ctx.sets, (len(ctx.levels), len(ctx.targets))).copy()


@dataclass(frozen=True)
class _Scores:
    """Per record: the paper's DS, the two means, and the confident disclosure."""

    ds: np.ndarray
    mean_in: np.ndarray
    mean_out: np.ndarray
    confident: np.ndarray


def _disclosure(distance: np.ndarray, keep: np.ndarray, level: float = CONFIDENT_LEVEL) -> _Scores:
    """Per-record scores over the shadows that have a distance (rows of ``distance`` that
    are all NaN were not run).

    ``ds`` is the paper's |mean IN − mean OUT|. ``confident`` is the shrinkage of the
    record's distance when it is IN that the shadows establish: the one-sided lower
    confidence bound (Welch, Student t at ``level``) of mean OUT − mean IN, floored at 0.
    A method whose emitted tables vary a lot from shadow to shadow (a DP generator at a
    small epsilon) makes |IN − OUT| large by chance; the bound discounts that noise, so
    the relative reading is not mistaken for disclosure.
    """
    from scipy.stats import t as student_t

    done = ~np.isnan(distance).all(axis=1)
    d, k = distance[done], keep[done]
    d_in, d_out = np.where(k, d, np.nan), np.where(~k, d, np.nan)
    n_in, n_out = (~np.isnan(d_in)).sum(axis=0), (~np.isnan(d_out)).sum(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a record with no IN or no OUT
        mean_in = np.nanmean(d_in, axis=0)
        mean_out = np.nanmean(d_out, axis=0)
        var_in = np.nanvar(d_in, axis=0, ddof=1)
        var_out = np.nanvar(d_out, axis=0, ddof=1)
        se = np.sqrt(var_in / n_in + var_out / n_out)
        ok = (n_in >= 2) & (n_out >= 2)
        quantile = np.where(ok, student_t.ppf(level, np.maximum(n_in + n_out - 2, 1)), np.inf)
        bound = (mean_out - mean_in) - quantile * np.where(ok, se, np.inf)
    confident = np.where(
        np.isnan(mean_in) | np.isnan(mean_out),
        np.nan,
        np.maximum(np.nan_to_num(bound, nan=0.0, neginf=0.0), 0.0),
    )
    return _Scores(np.abs(mean_in - mean_out), mean_in, mean_out, confident)


def mds_membership(m: int, n: int, seed: int) -> np.ndarray:
    """The (m, n) membership matrix: record j trains shadow i when ``keep[i, j]``; every
    record is IN exactly ⌊m/2⌋ shadows (the reference code's argsort construction)."""
    u = np.random.default_rng(seed).random((m, n))
    return np.argsort(u, axis=0) < m // 2


def membership_disclosure_score(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | list[pd.DataFrame] | None = None,
    *,
    threat: ThreatModel | None = None,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    columns: list[str] | None = None,
    shadow_method: str = "cart",
    shadow_params: dict[str, Any] | None = None,
    shadow_models: int = DEFAULT_SHADOW_MODELS,
    shadow_sets: int = DEFAULT_SHADOW_SETS,
    records: int | None = DEFAULT_RECORDS,
    max_rows: int | None = DEFAULT_MAX_ROWS,
    reading: str = "relative",
    references: bool = True,
    quantile: float = 0.95,
    tail: float = 0.01,
    bootstrap: int = 500,
    confidence: float = 0.95,
    numeric_missing: str = "median",
    n_jobs: int = 1,
    backend: str = "local",
    ray_address: str | None = None,
    progress: ProgressFn | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_partial: Callable[[Callable[[], MdsResult]], None] | None = None,
    seed: int = 0,
) -> MdsResult:
    """Membership disclosure score of a generating method, with shadow synthesizers.

    Parameters
    ----------
    real
        The real table: the records whose membership is scored (duplicates dropped).
    synthetic
        Not read: MDS measures the method through its shadows, not one release. Accepted
        (and checked against the real table's schema) so the measure can be called like
        every other.
    threat
        Not needed (MDS compares whole records); accepted for the registry's calls.
    holdout
        Real records the shadows never see: the HALF reference draws its tables from it,
        and ``shadow_method="leaky"`` fills its non-copied rows from it. Required for
        ``reading="relative"``.
    columns
        The columns compared (default: every included column).
    shadow_method, shadow_params
        The built-in generator each shadow is (``cart`` by default; ``autoregressive``,
        ``histogram``, ``dp-mst``, ``leaky`` ...) and its keyword arguments.
    shadow_models
        m, the number of shadows (at least 2; the paper finds m = 80 sufficient, the
        reference code defaults to 20; 10 is a quick reading, see ``bench/bench_mds.py``).
    shadow_sets
        Tables each shadow emits (the reference code: 100), each the size of its half.
    records
        Evaluate a seeded subsample of this many records (None = all). Every record still
        trains its ⌊m/2⌋ shadows; only the distance computation is restricted.
    max_rows
        Study a seeded sample of this many distinct real records when the table has more
        (:data:`DEFAULT_MAX_ROWS`; None = every record): the shadows train on halves of
        the sample, and ``records`` are drawn from it. Tables up to that size are read
        exactly as before.
    reading
        ``relative`` (default): (T − T_HALF) / (T_SELF − T_HALF) with T the mean DS of the
        top ``tail`` share of records, about 0 for a method that emits unseen records and
        1 for a copy; ``max``: the paper's raw MDS, a distance.
    references
        Compute SELF and HALF (cheap: no fitting). Forced on by ``reading="relative"``.
    quantile
        The high quantile of DS reported next to the max; records at or above it are
        marked ``targeted``.
    tail
        The share of most exposed records whose mean DS the relative reading compares
        (default 0.01, at least one record).
    bootstrap, confidence
        Percentile bootstrap over the evaluated records (0 = no interval).
    n_jobs, backend, ray_address
        Shadows are fitted in parallel: joblib worker processes (``n_jobs``, -1 = all
        cores) or a Ray cluster (``backend="ray"``).
    progress, should_stop
        ``progress(fraction, message)`` after each shadow; ``should_stop()`` ends the run
        early and the result (``stopped=True``) is read from the shadows done so far.
    on_partial
        Called after each shadow (but the last) with a function that builds the result
        of the shadows done so far: a caller whose run may be cut off from outside (a
        click in the app) keeps it and calls it only then.
    seed
        Seeds the membership matrix, the record subsample, the shadows and the bootstrap.

    Returns
    -------
    MdsResult
        ``name="mds"``; ``value`` in the chosen reading, ``ci`` its bootstrap interval;
        ``raw_max``, ``raw_quantile``, ``raw_mean``, ``self_max``, ``half_max`` and
        ``relative`` (also in ``extra``); per-record ``records`` and ``ds``.
    """
    return _mds(dict(locals()), (None,))[0]


def mds_overfit_levels(
    real: pd.DataFrame, levels: Sequence[float], **options: Any
) -> dict[float, MdsResult]:
    """MDS of the autoregressive generator trained past its optimum, at each overfit
    level f_o (the risk-insertion framework's overfit model): every shadow is trained
    once, with its validation loss on records it never sees (the holdout), and sampled at
    the checkpoint where that loss first reaches f_o × L*, so all levels share the
    shadows' splits and training runs. A level a shadow never reached leaves it out of
    that level's reading (``params["n_shadows_reached"]``); a level no shadow reached
    reads NaN. ``options`` are those of :func:`membership_disclosure_score`
    (``shadow_method`` is ``autoregressive``; ``shadow_params`` go to the generator);
    ``on_partial`` is not used.
    """
    levels = tuple(float(check_in_range("overfit level", f, 1, 100)) for f in levels)
    if not levels:
        raise ParameterError("Give at least one overfit level f_o (1 = the optimum).")
    method = options.setdefault("shadow_method", "autoregressive")
    if method != "autoregressive":
        raise ParameterError(
            f"Overfit levels are points in the training of the autoregressive generator; "
            f"shadow_method {method!r} has none."
        )
    options["on_partial"] = None
    bound = inspect.signature(membership_disclosure_score).bind(real, **options)
    bound.apply_defaults()
    return dict(zip(levels, _mds(dict(bound.arguments), levels), strict=True))


def _mds(a: dict[str, Any], levels: tuple[float | None, ...]) -> list[MdsResult]:
    """The body of :func:`membership_disclosure_score` (``a``: its arguments), one
    result per level of ``levels`` (``None``: the shadows as fitted)."""
    (
        real,
        synthetic,
        holdout,
        schema,
        columns,
        shadow_method,
        shadow_params,
        shadow_models,
        shadow_sets,
        records,
        max_rows,
        reading,
        references,
        quantile,
        tail,
        bootstrap,
        confidence,
        numeric_missing,
        n_jobs,
        backend,
        ray_address,
        progress,
        should_stop,
        on_partial,
        seed,
    ) = (
        a[k]
        for k in (
            "real",
            "synthetic",
            "holdout",
            "schema",
            "columns",
            "shadow_method",
            "shadow_params",
            "shadow_models",
            "shadow_sets",
            "records",
            "max_rows",
            "reading",
            "references",
            "quantile",
            "tail",
            "bootstrap",
            "confidence",
            "numeric_missing",
            "n_jobs",
            "backend",
            "ray_address",
            "progress",
            "should_stop",
            "on_partial",
            "seed",
        )
    )
    seed = check_seed(seed)
    m = check_positive_int("shadow_models", shadow_models, minimum=2)
    sets = check_positive_int("shadow_sets", shadow_sets)
    if records is not None:
        records = check_positive_int("records", records, minimum=2)
    if max_rows is not None:
        max_rows = check_positive_int("max_rows", max_rows, minimum=20)
    check_choice("reading", reading, READINGS)
    check_choice("backend", backend, BACKENDS)
    quantile = check_in_range("quantile", quantile, 0, 1)
    tail = check_in_range("tail", tail, 0, 1, low_inclusive=False)
    bootstrap = check_positive_int("bootstrap", bootstrap, minimum=0)
    check_confidence(confidence)
    from ..synth import GENERATORS

    check_choice("shadow_method", shadow_method, GENERATORS)
    if shadow_method == "half" and holdout is None:
        raise ParameterError(
            "HALF shadows emit real records they never saw (the systematic-assessment "
            "paper's upper bound of privacy, MDS about 0): give a holdout to draw them "
            "from, or choose another shadow method."
        )
    if shadow_method == "leaky" and holdout is None:
        raise ParameterError(
            "Leaky shadows fill the rows they do not copy with real records they never saw: "
            "give a holdout (the pool), or choose another shadow method."
        )
    if reading == "relative" and holdout is None:
        raise ParameterError(
            "The relative MDS reading needs a holdout: its HALF reference (a method that "
            "emits real records it never saw) draws from it. Give a holdout, or ask for "
            "reading='max' (the paper's raw distance, read against SELF)."
        )
    references = references or reading == "relative"
    if schema is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schema = infer_schema(real)
    tables = prepare_release_tables(
        real, real if synthetic is None else synthetic, holdout=holdout, schema=schema, min_rows=2
    )
    schema = tables.schema
    cols = analysis_columns(schema, columns)
    columns_sampled = len(cols) > MAX_COLUMNS
    if columns_sampled:
        # its own stream: the seven below, and every narrower table's reading, unchanged
        keep = np.random.default_rng([seed, 8]).choice(len(cols), MAX_COLUMNS, replace=False)
        warnings.warn(
            f"MDS compared a seeded sample of {MAX_COLUMNS} of the {len(cols):,} columns: its "
            "shadow models fit one tree per column, so every column of a table this wide "
            "would take hours. Name the columns that matter (columns=) to choose them.",
            UntrustworthyResultWarning,
            stacklevel=3,
        )
        cols = [cols[i] for i in sorted(keep)]
    table = tables.real[cols].drop_duplicates()
    n_distinct = len(table)
    # a seventh stream: the six below are the same as before the sample existed
    s_keep, s_targets, s_shadows, s_half, s_boot, s_null, s_rows = child_seeds(seed, 7)
    if max_rows is not None and n_distinct > max_rows:
        rows = np.random.default_rng(s_rows).choice(n_distinct, max_rows, replace=False)
        table = table.iloc[np.sort(rows)]
    index = table.index.to_numpy()
    table = table.reset_index(drop=True)
    n = len(table)
    if n < 2 * m and n < 20:
        raise InsufficientDataError(
            f"MDS trains {m} shadows on halves of the real table; {n} distinct records are "
            "too few. Give at least 20 records."
        )
    pool = tables.holdout[cols].reset_index(drop=True) if tables.holdout is not None else None
    keep = mds_membership(m, n, s_keep)
    targets = np.arange(n)
    if records is not None and records < n:
        targets = np.sort(np.random.default_rng(s_targets).choice(n, records, replace=False))
    encoder = TableEncoder(schema, columns=cols, numeric_missing=numeric_missing).fit(table)
    seeds = np.random.default_rng(s_shadows).integers(0, 2**31 - 1, size=(m, 1 + sets))
    ctx = _ShadowContext(
        table=table,
        keep=keep,
        targets=targets,
        encoder=encoder,
        method=shadow_method,
        params=dict(shadow_params or {}),
        pool=pool,
        sets=sets,
        seeds=seeds,
        scale=math.sqrt(len(cols)),
        levels=levels,
    )

    def assemble(distance: np.ndarray, done: int, level: float | None = None) -> MdsResult:
        """The result read from the shadows with a distance (``done`` of ``m`` ran; at
        an overfit ``level``, those that reached it)."""
        stopped = done < m
        scores = _disclosure(distance, keep[:, targets])
        ds = scores.ds
        empty = np.full(len(targets), np.nan)
        self_s = half_s = _Scores(empty, empty, empty, empty)
        if references:
            self_s, half_s = _references(ctx, distance, s_half)
        ds_self, ds_half = self_s.ds, half_s.ds
        raw = _summary(ds, quantile)
        self_max = float(np.nanmax(ds_self)) if references else float("nan")
        half_max = float(np.nanmax(ds_half)) if pool is not None and references else float("nan")
        null = _permuted_confident(distance, m, s_null, NULL_PERMUTATIONS)
        tails = (scores.confident, half_s.confident, self_s.confident)
        relative = _relative_tail(tails, null, tail)
        relative_max = _relative(raw["max"], half_max, self_max)
        # beyond the noise: the shadows establish the record's disclosure at a strict level
        # (one unseen record in a thousand is flagged by chance)
        flagged = (
            np.nan_to_num(_disclosure(distance, keep[:, targets], FLAG_LEVEL).confident, nan=0.0)
            > 0
        )

        ci = None
        if bootstrap > 0 and np.isfinite(ds).any():
            ci = _bootstrap(ds, tails, null, reading, tail, bootstrap, confidence, s_boot)
        value = relative if reading == "relative" else raw["max"]
        if not np.isfinite(value):
            ci = None  # an interval around an unavailable reading would mislead
        cut = raw["quantile"]
        table_out = pd.DataFrame(
            {
                "record": index[targets],
                "ds": ds,
                "mean_in": scores.mean_in,
                "mean_out": scores.mean_out,
                "confident": scores.confident,
                "ds_self": ds_self,
                "ds_half": ds_half,
                "targeted": np.nan_to_num(ds, nan=-1.0) >= cut if np.isfinite(cut) else False,
                "flagged": flagged,
            }
        )
        params = {
            "shadow_method": shadow_method,
            "shadow_params": ctx.params,
            "shadow_models": m,
            "shadow_sets": sets,
            "records": records,
            "n_records_evaluated": len(targets),
            "n_distinct_records": n_distinct,
            "max_rows": max_rows,
            "n_studied": n,
            "n_real": len(tables.real),
            "columns": cols,
            "columns_sampled": columns_sampled,
            "reading": reading,
            "references": references,
            "quantile": quantile,
            "tail": tail,
            "bootstrap": bootstrap,
            "confident_level": CONFIDENT_LEVEL,
            "flag_level": FLAG_LEVEL,
            "null_permutations": NULL_PERMUTATIONS,
            "confidence": confidence,
            "numeric_missing": numeric_missing,
            "seed": seed,
            "n_jobs": n_jobs,
            "backend": backend,
            "distance": "euclidean / sqrt(p)",
            "n_holdout": 0 if pool is None else len(pool),
            "n_shadows_done": done,
        }
        if level is not None:
            params["overfit_level"] = level
            params["n_shadows_reached"] = int((~np.isnan(distance).all(axis=1)).sum())
        finite = ds[np.isfinite(ds)]
        quantiles = {
            f"{q:g}": (float(np.quantile(finite, q)) if finite.size else float("nan"))
            for q in sorted({0.5, 0.9, quantile, 0.99, 1.0})
        }
        extra = {
            "raw_max": raw["max"],
            "raw_quantile": raw["quantile"],
            "raw_mean": raw["mean"],
            "quantiles": quantiles,
            "self_max": self_max,
            "half_max": half_max,
            "relative": relative,
            "relative_max": relative_max,
            "n_flagged": int(flagged.sum()),
            "reading_text": mds_reading(value, reading),
            "stopped": stopped,
        }
        bound = math.sqrt(2.0)  # one-hot mismatch in every column, divided by √p
        return MdsResult(
            name="mds",
            value=float(value),
            ci=ci,
            params=params,
            record_table=table_out,
            baseline=half_max if reading == "max" else 0.0,
            goal="lower",
            bounds=(-1.0, 1.0) if reading == "relative" else (0.0, bound),
            extra=extra,
            raw_max=raw["max"],
            raw_quantile=raw["quantile"],
            raw_mean=raw["mean"],
            self_max=self_max,
            half_max=half_max,
            relative=relative,
            relative_max=relative_max,
            stopped=stopped,
            ds=ds,
        )

    distance = np.full((len(levels), m, len(targets)), np.nan)
    done = 0
    if progress:
        progress(0.0, f"{m} shadow {shadow_method} models x {sets} table(s)")
    for i, d in map_unordered(
        _shadow_task,
        range(m),
        context=ctx,
        n_jobs=n_jobs,
        backend=backend,
        address=ray_address,
        should_stop=should_stop,
    ):
        distance[:, i] = d
        done += 1
        if progress:
            progress(done / m, f"{done}/{m} shadow models fitted and measured")
        if on_partial is not None and done < m and len(levels) == 1:
            # built only if the caller needs it (a run interrupted from outside)
            on_partial(partial(assemble, distance[0].copy(), done))
    return [assemble(distance[li], done, level) for li, level in enumerate(levels)]


def _references(ctx: _ShadowContext, distance: np.ndarray, seed: int) -> tuple[_Scores, _Scores]:
    """DS of every evaluated record under SELF (each shadow emits its own half) and HALF
    (each emits unseen real records: ``shadow_sets`` draws from the pool, of its half's
    size), over the same shadows as the measured run (those it finished)."""
    run = ~np.isnan(distance).all(axis=1)
    targets = _encode(ctx, ctx.table.iloc[ctx.targets])
    rng = np.random.default_rng(seed)
    self_d = np.full(distance.shape, np.nan)
    half_d = np.full(distance.shape, np.nan)
    for i in np.nonzero(run)[0]:
        train = ctx.table[ctx.keep[i]]
        self_d[i] = _distances(ctx, targets, train)
        if ctx.pool is not None:
            d = np.zeros(len(ctx.targets))
            for _ in range(ctx.sets):
                take = rng.choice(len(ctx.pool), len(train), replace=len(train) > len(ctx.pool))
                d += _distances(ctx, targets, ctx.pool.iloc[take])
            half_d[i] = d / ctx.sets
    keep = ctx.keep[:, ctx.targets]
    return _disclosure(self_d, keep), _disclosure(half_d, keep)


def _summary(ds: np.ndarray, quantile: float) -> dict[str, float]:
    finite = ds[np.isfinite(ds)]
    if finite.size == 0:
        return {"max": float("nan"), "quantile": float("nan"), "mean": float("nan")}
    return {
        "max": float(finite.max()),
        "quantile": float(np.quantile(finite, quantile)),
        "mean": float(finite.mean()),
    }


def tail_mean(values: np.ndarray, share: float) -> float:
    """Mean of the largest ``share`` of the finite values (at least one: the max)."""
    v = values[np.isfinite(values)]
    if v.size == 0:
        return float("nan")
    k = max(1, math.ceil(share * v.size))
    return float(np.partition(v, v.size - k)[v.size - k :].mean())


def _permuted_confident(distance: np.ndarray, m: int, seed: int, n_perm: int) -> np.ndarray:
    """The confident disclosure of every record with IN / OUT relabelled at random
    (``n_perm`` relabellings, same shape of membership): what the method's own
    variation between shadows produces with no membership in it."""
    n = distance.shape[1]
    seeds = np.random.SeedSequence(seed).generate_state(n_perm)
    return np.vstack([_disclosure(distance, mds_membership(m, n, int(s))).confident for s in seeds])


def _relative_tail(
    tails: tuple[np.ndarray, np.ndarray, np.ndarray], null: np.ndarray, tail: float
) -> float:
    """(T − T0) / (T_SELF − T0), T the tail mean of the confident disclosure and T0 the
    larger of HALF's and the method's own relabelled (null) tail mean: the floor is
    whichever noise is higher, the method's or a sample of unseen records'. NaN when
    even SELF does not rise above that floor (the shadows cannot tell members apart at
    this number of shadow models)."""
    t, t_half, t_self = (tail_mean(v, tail) for v in tails)
    t_null = float(np.mean([tail_mean(row, tail) for row in null])) if len(null) else 0.0
    floor = max(t_half, t_null) if np.isfinite(t_half) else t_null
    return _relative(t, floor, t_self)


def _relative(raw: float, half: float, self_: float) -> float:
    if not (np.isfinite(raw) and np.isfinite(half) and np.isfinite(self_)) or self_ <= half:
        return float("nan")
    return (raw - half) / (self_ - half)


def _bootstrap(
    ds: np.ndarray,
    tails: tuple[np.ndarray, np.ndarray, np.ndarray],
    null: np.ndarray,
    reading: str,
    tail: float,
    n_boot: int,
    confidence: float,
    seed: int,
) -> tuple[float, float] | None:
    """Percentile interval of the reading over records resampled with replacement (the
    three DS vectors are resampled together: they are the same records)."""
    rng = np.random.default_rng(seed)
    n = len(ds)
    out = np.empty(n_boot)
    for b in range(n_boot):
        pick = rng.integers(0, n, n)
        out[b] = (
            _relative_tail((tails[0][pick], tails[1][pick], tails[2][pick]), null[:, pick], tail)
            if reading == "relative"
            else np.nanmax(ds[pick])
        )
    out = out[np.isfinite(out)]
    if out.size == 0:
        return None
    lo, hi = percentile_interval(out, confidence=confidence)
    return float(lo), float(hi)


def mds_reading(value: float, reading: str) -> str:
    """One sentence for the headline."""
    if not np.isfinite(value):
        if reading == "relative":
            return (
                "Uninformative at this number of shadow models: the tables the method "
                "emits vary so much from one shadow to the next that even a copy of "
                "the training data would not stand out. Use more shadow models or "
                "tables, or read the raw MDS against SELF."
            )
        return "Not available: too few shadow models finished for a reading."
    if reading == "max":
        return (
            f"The most exposed record's distance to the emitted data changes by "
            f"{value:.3f} (per column, on the shared encoding) between the shadows "
            "it trained and those it did not; read it against SELF and HALF."
        )
    if value < 0.1:
        return (
            "About what a method that emits only unseen real records reads: no "
            "membership signal beyond the noise floor."
        )
    if value < 0.5:
        return (
            f"{value:.0%} of the way from HALF (emits unseen records) to SELF (copies "
            "its training data): some records' presence changes what is emitted near "
            "them."
        )
    return (
        f"{value:.0%} of the way to SELF: the method emits copies or near-copies of "
        "its training records; membership of the most exposed records is disclosed."
    )
