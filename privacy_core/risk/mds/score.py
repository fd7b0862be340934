"""The measure: :func:`membership_disclosure_score` and its overfit-level variant.

Checks the options, sets the study up (the compared columns, the distinct real records
and their seeded sample, the membership matrix, the evaluated records, the encoder and
every shadow's seeds), runs the shadows in parallel and reads one result per level
(:func:`~privacy_core.risk.mds.result.assemble`). Every random step draws from its own
child seed of ``seed``, so the same seed gives the same reading.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ...data import Schema, infer_schema
from ...encoding import TableEncoder
from ...errors import InsufficientDataError, ParameterError, UntrustworthyResultWarning
from ...inputs import ReleaseTables, prepare_release_tables
from ...parallel import BACKENDS, map_unordered
from ...progress import ProgressFn
from ...stats import child_seeds
from ...threat import ThreatModel
from ...validation import (
    check_choice,
    check_confidence,
    check_in_range,
    check_positive_int,
    check_seed,
)
from ..distance import analysis_columns
from .disclosure import CONFIDENT_LEVEL, FLAG_LEVEL, NULL_PERMUTATIONS
from .result import MdsResult, MdsStudy, assemble
from .shadows import ShadowContext, mds_membership, shadow_task

READINGS = ("relative", "max")
DEFAULT_SHADOW_MODELS = 10
DEFAULT_SHADOW_SETS = 5
DEFAULT_RECORDS = 2000
DEFAULT_MAX_ROWS = 50_000
"""Distinct real records above which the shadows study a seeded sample of this many (each
shadow trains on half of it). MDS asks how much one record moves what the *method* emits;
a record's pull shrinks as the training table grows, so reading the method on a 50,000-row
sample errs on the side of more disclosure. Ten CART shadows on 500,000-row halves of a
million-row register took 279 s (health, 6 columns), and on 50,000-row halves of the
30-column wide table still 264 s (``bench/bench_scaling.py``)."""
MAX_COLUMNS = 100
"""Columns compared at most. Every shadow fits one tree per column on the columns before
it, so the cost grows with the square of the width: at 300 rows × 2,001 columns the
default reading ran for more than 400 s without a result. A wider table is read on a
seeded sample of this many columns (``params["columns_sampled"]``, with a warning); the
calibration contract holds on any column subset (a copy still reads about 1, unseen rows
about 0)."""


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
    opts = _checked_options(a)
    tables = _release_tables(a)
    cols, columns_sampled = _compared_columns(tables.schema, a["columns"], opts.seed)
    study = _study(a, opts, tables, cols, columns_sampled, levels)
    distance, done = _run_shadows(study, a)
    return [assemble(study, distance[li], done, level) for li, level in enumerate(levels)]


@dataclass(frozen=True)
class _Options:
    """The validated options of one MDS run."""

    seed: int
    shadow_models: int
    shadow_sets: int
    records: int | None
    max_rows: int | None
    quantile: float
    tail: float
    bootstrap: int
    references: bool


def _checked_options(a: dict[str, Any]) -> _Options:
    """Every option checked before any work (a wrong one fails fast and says why)."""
    seed = check_seed(a["seed"])
    m = check_positive_int("shadow_models", a["shadow_models"], minimum=2)
    sets = check_positive_int("shadow_sets", a["shadow_sets"])
    records, max_rows = a["records"], a["max_rows"]
    if records is not None:
        records = check_positive_int("records", records, minimum=2)
    if max_rows is not None:
        max_rows = check_positive_int("max_rows", max_rows, minimum=20)
    check_choice("reading", a["reading"], READINGS)
    check_choice("backend", a["backend"], BACKENDS)
    quantile = check_in_range("quantile", a["quantile"], 0, 1)
    tail = check_in_range("tail", a["tail"], 0, 1, low_inclusive=False)
    bootstrap = check_positive_int("bootstrap", a["bootstrap"], minimum=0)
    check_confidence(a["confidence"])
    _check_holdout_needs(a["shadow_method"], a["holdout"], a["reading"])
    references = a["references"] or a["reading"] == "relative"
    return _Options(seed, m, sets, records, max_rows, quantile, tail, bootstrap, references)


def _check_holdout_needs(shadow_method: str, holdout: pd.DataFrame | None, reading: str) -> None:
    """A known shadow method, and a holdout wherever the method or the reading draws
    unseen real records from it."""
    from ...synth import GENERATORS

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


def _release_tables(a: dict[str, Any]) -> ReleaseTables:
    """The canonical real, release and holdout tables (the schema inferred quietly from
    the real table when none is given)."""
    schema, real, synthetic = a["schema"], a["real"], a["synthetic"]
    if schema is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schema = infer_schema(real)
    return prepare_release_tables(
        real,
        real if synthetic is None else synthetic,
        holdout=a["holdout"],
        schema=schema,
        min_rows=2,
    )


def _compared_columns(
    schema: Schema, columns: list[str] | None, seed: int
) -> tuple[list[str], bool]:
    """The columns compared, and whether they are a seeded sample of ``MAX_COLUMNS`` (a
    wider table, with a warning)."""
    cols = analysis_columns(schema, columns)
    columns_sampled = len(cols) > MAX_COLUMNS
    if columns_sampled:
        # its own stream: the study's seven child seeds, and every narrower table's
        # reading, unchanged
        keep = np.random.default_rng([seed, 8]).choice(len(cols), MAX_COLUMNS, replace=False)
        warnings.warn(
            f"MDS compared a seeded sample of {MAX_COLUMNS} of the {len(cols):,} columns: its "
            "shadow models fit one tree per column, so every column of a table this wide "
            "would take hours. Name the columns that matter (columns=) to choose them.",
            UntrustworthyResultWarning,
            stacklevel=4,  # past _mds and the public function: the warning names their caller
        )
        cols = [cols[i] for i in sorted(keep)]
    return cols, columns_sampled


def _study(
    a: dict[str, Any],
    opts: _Options,
    tables: ReleaseTables,
    cols: list[str],
    columns_sampled: bool,
    levels: tuple[float | None, ...],
) -> MdsStudy:
    """The studied records, the shadows' context and the params every result records."""
    table = tables.real[cols].drop_duplicates()
    n_distinct = len(table)
    # a seventh stream: the six below are the same as before the sample existed
    s_keep, s_targets, s_shadows, s_half, s_boot, s_null, s_rows = child_seeds(opts.seed, 7)
    if opts.max_rows is not None and n_distinct > opts.max_rows:
        rows = np.random.default_rng(s_rows).choice(n_distinct, opts.max_rows, replace=False)
        table = table.iloc[np.sort(rows)]
    index = table.index.to_numpy()
    table = table.reset_index(drop=True)
    ctx = _shadow_context(a, opts, tables, cols, table, levels, (s_keep, s_targets, s_shadows))
    params = {
        "shadow_method": a["shadow_method"],
        "shadow_params": ctx.params,
        "shadow_models": opts.shadow_models,
        "shadow_sets": opts.shadow_sets,
        "records": opts.records,
        "n_records_evaluated": len(ctx.targets),
        "n_distinct_records": n_distinct,
        "max_rows": opts.max_rows,
        "n_studied": len(table),
        "n_real": len(tables.real),
        "columns": cols,
        "columns_sampled": columns_sampled,
        "reading": a["reading"],
        "references": opts.references,
        "quantile": opts.quantile,
        "tail": opts.tail,
        "bootstrap": opts.bootstrap,
        "confident_level": CONFIDENT_LEVEL,
        "flag_level": FLAG_LEVEL,
        "null_permutations": NULL_PERMUTATIONS,
        "confidence": a["confidence"],
        "numeric_missing": a["numeric_missing"],
        "seed": opts.seed,
        "n_jobs": a["n_jobs"],
        "backend": a["backend"],
        "distance": "euclidean / sqrt(p)",
        "n_holdout": 0 if ctx.pool is None else len(ctx.pool),
    }
    return MdsStudy(
        ctx=ctx,
        index=index,
        reading=a["reading"],
        references=opts.references,
        quantile=opts.quantile,
        tail=opts.tail,
        bootstrap=opts.bootstrap,
        confidence=a["confidence"],
        half_seed=s_half,
        null_seed=s_null,
        boot_seed=s_boot,
        params=params,
    )


def _shadow_context(
    a: dict[str, Any],
    opts: _Options,
    tables: ReleaseTables,
    cols: list[str],
    table: pd.DataFrame,
    levels: tuple[float | None, ...],
    seeds: tuple[int, int, int],
) -> ShadowContext:
    """The membership matrix, the evaluated records, the encoder fitted on the studied
    records and every shadow's seeds (``seeds``: the streams of the three draws)."""
    s_keep, s_targets, s_shadows = seeds
    m, sets, records, n = opts.shadow_models, opts.shadow_sets, opts.records, len(table)
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
    encoder = TableEncoder(tables.schema, columns=cols, numeric_missing=a["numeric_missing"])
    return ShadowContext(
        table=table,
        keep=keep,
        targets=targets,
        encoder=encoder.fit(table),
        method=a["shadow_method"],
        params=dict(a["shadow_params"] or {}),
        pool=pool,
        sets=sets,
        seeds=np.random.default_rng(s_shadows).integers(0, 2**31 - 1, size=(m, 1 + sets)),
        scale=math.sqrt(len(cols)),
        levels=levels,
    )


def _run_shadows(study: MdsStudy, a: dict[str, Any]) -> tuple[np.ndarray, int]:
    """Every shadow's distances per level, shape (levels, m, targets), and how many ran
    (fewer when ``should_stop`` ended the run); reports progress and partial results."""
    ctx, progress, on_partial = study.ctx, a["progress"], a["on_partial"]
    m, levels = len(ctx.keep), ctx.levels
    distance = np.full((len(levels), m, len(ctx.targets)), np.nan)
    done = 0
    if progress:
        progress(0.0, f"{m} shadow {ctx.method} models x {ctx.sets} table(s)")
    for i, d in map_unordered(
        shadow_task,
        range(m),
        context=ctx,
        n_jobs=a["n_jobs"],
        backend=a["backend"],
        address=a["ray_address"],
        should_stop=a["should_stop"],
    ):
        distance[:, i] = d
        done += 1
        if progress:
            progress(done / m, f"{done}/{m} shadow models fitted and measured")
        if on_partial is not None and done < m and len(levels) == 1:
            # built only if the caller needs it (a run interrupted from outside)
            on_partial(partial(assemble, study, distance[0].copy(), done))
    return distance, done
