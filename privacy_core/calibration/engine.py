""":func:`calibrate`: the grid of a calibration run, cell by cell, here, on local
workers or on Ray.

A *cell* is one (leak level, measure, mode): the leaky release at that level, the measure
evaluated on it at every holdout ratio it varies with. Cells run one after another in this
process (with progress, streamed rows and a stop between cells) or as tasks of
:func:`privacy_core.parallel.map_unordered` on local worker processes (``n_jobs``) or a Ray
cluster (streamed rows and a stop between results); the rows are put back in the serial
run's order, so all three give the same result (but the ``seconds``).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from itertools import product
from typing import Any

import pandas as pd

from ..data import Schema, infer_schema, prepare_table
from ..errors import ParameterError
from ..evaluation import evaluate_noted
from ..experiments import RowsFn
from ..measures import get_measure, measure_names
from ..parallel import BACKENDS, effective_jobs, map_unordered
from ..progress import ProgressFn
from ..results import jsonable
from ..scheduler import as_task, thread_settings, thread_share
from ..stats import child_seeds
from ..synth.leaky import leaky_release, leaky_shadow_options
from ..threat import ThreatModel
from ..validation import check_choice, check_positive_int, check_seed
from .contract import (
    CEILING_MIN,
    FLOOR_MAX,
    FLOOR_UPPER_MAX,
    MONOTONE_SLACK,
    RATIO_GAP_MAX,
    calibration_result,
    qi_unique_share,
)
from .results import ROW_COLUMNS, CalibrationResult, calibration_key
from .tables import CalibrationTables, calibration_tables

DEFAULT_LEVELS = (0.0, 0.25, 0.5, 0.75, 1.0)
DEFAULT_RATIOS = (1.0, 2.0, 4.0)

# one cell of the grid: (index, level, measure, mode)
Cell = tuple[int, float, str, str]


def calibration_targets(measures: Sequence[str] | None = None) -> list[tuple[str, str]]:
    """(measure, mode) pairs to calibrate: every mode of each chosen privacy measure, or
    the one a ``"measure:mode"`` key names."""
    names = measure_names("privacy") if measures is None else list(measures)
    out: list[tuple[str, str]] = []
    for key in names:
        name, _, only = str(key).partition(":")
        spec = get_measure(name)
        if only:
            spec.mode_options(only)  # a specific error for an unknown mode
            out.append((name, only))
            continue
        if spec.family != "privacy":
            raise ParameterError(
                f"{spec.label} is a fidelity measure; calibration checks disclosure measures only."
            )
        out.extend((name, mode) for mode in spec.mode_names)
    return out


# ============================================================================ calibrate
def calibrate(
    real: pd.DataFrame,
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    measures: Sequence[str] | None = None,
    levels: Sequence[float] = DEFAULT_LEVELS,
    ratios: Sequence[float] = DEFAULT_RATIOS,
    options: dict[str, dict[str, Any]] | None = None,
    max_training: int | None = None,
    seed: int = 0,
    backend: str = "local",
    ray_address: str | None = None,
    n_jobs: int = 1,
    progress: ProgressFn | None = None,
    on_rows: RowsFn | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> CalibrationResult:
    """Run the leaky risk model on the measures and check the calibration contract.

    Parameters
    ----------
    real
        The real table (raw or canonical).
    threat
        The threat model every measure uses.
    holdout
        Optional further real rows; pooled with ``real`` before the split.
    schema
        Schema of ``real`` (inferred when omitted).
    measures
        Registry names of privacy measures; default every one. Every mode of a measure is
        calibrated (singling out: univariate and multivariate), or only the one a
        ``"measure:mode"`` key names.
    levels
        Leak fractions f_l in [0, 1]; the lowest is the floor, the highest the ceiling.
    ratios
        training:holdout size ratios (>= 1 means the holdout is that many times smaller).
    options
        ``{measure: {keyword: value}}`` passed to the measures, as on the Privacy page.
    max_training
        Cap on the training rows (bounds the time on large tables).
    seed
        Seed of the split, the releases and the measures.
    backend, ray_address
        ``"local"`` runs the cells here; ``"ray"`` sends each cell to the Ray cluster at
        ``ray_address`` (``"local"`` starts one). Same rows either way (but their
        ``seconds``).
    n_jobs
        Local worker processes (``backend="local"``): 1 runs the cells one after another
        in this process (the default); more, or -1 for every usable core, runs them side
        by side, each worker on its share of the threads, with the same rows.
    progress, on_rows, should_stop
        Progress callback ``(fraction, message)``; callback with each finished cell's
        rows; checked between cells: True stops with the rows finished so far.

    Returns
    -------
    CalibrationResult

    Raises
    ------
    ParameterError
        Unknown or fidelity measures, bad levels or ratios.
    InsufficientDataError
        Too few rows for the split.
    """
    seed = check_seed(seed)
    check_choice("backend", backend, BACKENDS)
    effective_jobs(n_jobs, 1)  # a specific error for n_jobs = 0 before any work
    levels = _check_grid("levels", levels, 0.0, 1.0, minimum=2)
    ratios = _check_grid("ratios", ratios, 1.0, 100.0, minimum=1)
    if max_training is not None:
        max_training = check_positive_int("max_training", max_training)
    targets = calibration_targets(measures)
    if not isinstance(threat, ThreatModel):
        raise ParameterError(f"`threat` must be a ThreatModel; got {type(threat).__name__}.")
    table, schema = _canonical_table(real, holdout, schema, threat)
    split_seed, release_seed, measure_seed = child_seeds(seed, 3)
    parts = calibration_tables(table, ratios=ratios, max_training=max_training, seed=split_seed)
    opts = _checked_options(options)

    # one cell = one (level, measure, mode); measures that take no holdout are run once
    # per level and their value holds for every ratio
    cells = [(i, lv, m, md) for i, (lv, (m, md)) in enumerate(product(levels, targets))]
    started = time.perf_counter()
    context = _cell_context(parts, schema, threat, opts, ratios, release_seed, measure_seed)
    where = {"backend": backend, "address": ray_address, "n_jobs": n_jobs}
    by_cell, stopped = _run_cells(
        cells, context, levels, where, feedback=(progress, on_rows, should_stop)
    )
    rows = [row for index in sorted(by_cell) for row in by_cell[index]]
    if progress:
        progress(1.0, "stopped" if stopped else "done")
    params = _run_params(
        parts,
        threat,
        targets=targets,
        ratios=ratios,
        opts=opts,
        max_training=max_training,
        seed=seed,
        seconds=time.perf_counter() - started,
    )
    return calibration_result(
        pd.DataFrame(rows, columns=ROW_COLUMNS),
        targets,
        levels=levels,
        ratios=ratios,
        seed=seed,
        n_real=len(table),
        params=params,
        stopped=stopped,
    )


def _check_grid(
    name: str, values: Sequence[float], low: float, high: float, *, minimum: int
) -> tuple[float, ...]:
    try:
        out = tuple(sorted(float(v) for v in values))
    except (TypeError, ValueError):
        raise ParameterError(f"`{name}` must be numbers; got {values!r}.") from None
    if len(out) < minimum or len(set(out)) != len(out):
        raise ParameterError(
            f"`{name}` needs at least {minimum} distinct value(s); got {list(values)}."
        )
    if out[0] < low or out[-1] > high:
        raise ParameterError(f"`{name}` must lie in [{low:g}, {high:g}]; got {list(out)}.")
    return out


def _canonical_table(
    real: pd.DataFrame,
    holdout: pd.DataFrame | None,
    schema: Schema | None,
    threat: ThreatModel,
) -> tuple[pd.DataFrame, Schema]:
    """The real rows (with the holdout pooled in) in canonical form, their schema (inferred
    from ``real`` when not given), checked against the threat model."""
    table = real if holdout is None else pd.concat([real, holdout], ignore_index=True)
    if schema is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schema = infer_schema(real)
    raw = table.reset_index(drop=True)
    table = prepare_table(table, schema).reset_index(drop=True)
    if threat.weights is not None and threat.weights in raw.columns:
        # the schema leaves the sampling weights out of the analysis; the measures that
        # read them (sdcMicro's F_k) take them from the training and holdout rows, so the
        # pooled rows keep them beside the canonical columns
        table[threat.weights] = raw[threat.weights].to_numpy()
    threat.validate(schema, table)
    return table, schema


def _checked_options(options: dict[str, dict[str, Any]] | None) -> dict[str, dict[str, Any]]:
    """A copy of the measures' options; an unknown measure name is an error."""
    opts = {k: dict(v) for k, v in (options or {}).items()}
    for k in opts:
        get_measure(k)
    return opts


def _cell_context(
    parts: CalibrationTables,
    schema: Schema,
    threat: ThreatModel,
    opts: dict[str, dict[str, Any]],
    ratios: Sequence[float],
    release_seed: int,
    measure_seed: int,
) -> dict[str, Any]:
    """What every cell shares (sent once to the workers); ``releases`` caches the leaky
    release of each level (:func:`_release_for`)."""
    return {
        "parts": parts,
        "releases": {},
        "schema": schema,
        "threat": threat,
        "opts": opts,
        "ratios": ratios,
        "release_seed": release_seed,
        "measure_seed": measure_seed,
    }


def _run_params(
    parts: CalibrationTables,
    threat: ThreatModel,
    *,
    targets: Sequence[tuple[str, str]],
    ratios: Sequence[float],
    opts: dict[str, dict[str, Any]],
    max_training: int | None,
    seed: int,
    seconds: float,
) -> dict[str, Any]:
    """The settings of a run (``CalibrationResult.params``), the contract's lines among them."""
    return {
        "measures": [calibration_key(m, md) for m, md in targets],
        "n_training": len(parts.training),
        "n_pool": len(parts.pool),
        "n_holdout": {f"{r:g}": len(parts.holdout(r)) for r in ratios},
        "options": jsonable(opts),
        "max_training": max_training,
        "seed": seed,
        "qi_unique_share": qi_unique_share(parts.training, threat),
        "seconds": seconds,
        "contract": {
            "floor_max": FLOOR_MAX,
            "floor_upper_max": FLOOR_UPPER_MAX,
            "ceiling_min": CEILING_MIN,
            "ratio_gap_max": RATIO_GAP_MAX,
            "monotone_slack": MONOTONE_SLACK,
        },
    }


# ============================================================================ runners
def _run_cells(
    cells: list[Cell], context: dict[str, Any], levels: Sequence[float], where: dict[str, Any], *,
    feedback: tuple[ProgressFn | None, RowsFn | None, Callable[[], bool] | None],
) -> tuple[dict[int, list[dict[str, Any]]], bool]:  # fmt: skip
    """The cells here, one after another (one local job), or as tasks on local workers
    or the Ray cluster (``where``: ``backend``, ``address``, ``n_jobs``); ``feedback``:
    calibrate's ``progress``, ``on_rows`` and ``should_stop``."""
    if where["backend"] == "local":
        jobs = effective_jobs(where["n_jobs"], len(cells))
        if jobs == 1:
            return _run_here(cells, context, *feedback)
        where = {**where, "n_jobs": jobs}
    return _run_as_tasks(cells, context, levels, where, *feedback)


def _run_here(
    cells: list[Cell],
    context: dict[str, Any],
    progress: ProgressFn | None,
    on_rows: RowsFn | None,
    should_stop: Callable[[], bool] | None,
) -> tuple[dict[int, list[dict[str, Any]]], bool]:
    """The cells one after another in this process, with progress before each
    evaluation; returns the rows by cell index and whether the run was stopped."""
    total = sum(len(context["ratios"]) if _varies_with_holdout(m) else 1 for _, _, m, _ in cells)
    done = 0

    def tick(message: str) -> None:
        nonlocal done
        if progress:
            progress(done / total, message)
        done += 1

    by_cell: dict[int, list[dict[str, Any]]] = {}
    for cell in cells:
        if should_stop is not None and should_stop():
            return by_cell, True
        _, by_cell[cell[0]] = _cell_task(cell, context, tick=tick)
        if on_rows is not None:
            on_rows(pd.DataFrame(by_cell[cell[0]], columns=ROW_COLUMNS))
    return by_cell, False


def _run_as_tasks(
    cells: list[Cell],
    context: dict[str, Any],
    levels: Sequence[float],
    where: dict[str, Any],
    progress: ProgressFn | None,
    on_rows: RowsFn | None,
    should_stop: Callable[[], bool] | None,
) -> tuple[dict[int, list[dict[str, Any]]], bool]:
    """Every cell a task, on the Ray cluster or on local worker processes (``where``:
    ``backend``, ``address``, ``n_jobs``), with every level's leaky release made here
    once; returns the rows by cell index and whether the run ended early."""
    for level in levels:
        _release_for(level, context)
    if progress:
        on = "the Ray cluster" if where["backend"] == "ray" else f"{where['n_jobs']} workers"
        progress(0.0, f"{len(cells)} calibration cells on {on}")
    if where["backend"] == "local":
        # each worker's share of the threads; a cell's own fan-out stays in its worker
        context = {**context, "threads": thread_share(thread_settings(), where["n_jobs"])}
    by_cell: dict[int, list[dict[str, Any]]] = {}
    for index, cell_rows in map_unordered(
        _pooled_cell_task if where["backend"] == "local" else _cell_task,
        cells,
        context=context,
        backend=where["backend"],
        address=where["address"],
        n_jobs=where["n_jobs"],
        should_stop=should_stop,
    ):
        by_cell[index] = cell_rows
        if progress:
            progress(len(by_cell) / len(cells), f"{len(by_cell)} of {len(cells)} cells done")
        if on_rows is not None:
            on_rows(pd.DataFrame(cell_rows, columns=ROW_COLUMNS))
    return by_cell, len(by_cell) < len(cells)


# ============================================================================ one cell
def _release_for(level: float, context: dict[str, Any]) -> pd.DataFrame:
    """The leaky release at ``level``, made once per run (cached in ``context``)."""
    releases = context["releases"]
    if level not in releases:
        parts = context["parts"]
        releases[level] = leaky_release(
            parts.training,
            parts.pool,
            leak_fraction=level,
            schema=context["schema"],
            seed=context["release_seed"],
        ).release
    return releases[level]


def _cell_task(
    cell: Cell,
    context: dict[str, Any],
    tick: Callable[[str], None] | None = None,
) -> tuple[int, list[dict[str, Any]]]:
    """One calibration cell, (level, measure, mode) at every holdout ratio it varies
    with: a task of :func:`privacy_core.parallel.map_unordered`. ``tick(message)`` is
    called before each evaluation (the local run's progress)."""
    index, level, metric, mode = cell
    parts, ratios = context["parts"], context["ratios"]
    release = _release_for(level, context)
    spec = get_measure(metric)
    kwargs = {**context["opts"].get(metric, {}), **spec.mode_options(mode)}
    by_generator = getattr(spec, "evaluates", "release") == "generator"
    if by_generator:  # the shadow generators leak f_l of their own training rows
        kwargs.update(leaky_shadow_options(level))
    run_ratios = ratios if spec.varies_with_holdout else ratios[:1]
    cell_rows = []
    for ratio in run_ratios:
        # a measure of the generator draws its unseen rows from the release pool, the
        # same rows that fill the leaky releases; it has no holdout to vary
        hold = parts.pool if by_generator else parts.holdout(ratio)
        if tick is not None:
            tick(
                f"{spec.label}{'' if mode == 'default' else f' ({mode})'}: f_l = {level:g}, "
                f"ratio {ratio:g}:1"
            )
        t0 = time.perf_counter()
        value, lo, hi, note = _evaluate(
            parts.training,
            release,
            hold,
            metric,
            kwargs,
            context["threat"],
            context["schema"],
            context["measure_seed"],
        )
        seconds = time.perf_counter() - t0
        for r in ratios if len(run_ratios) == 1 else (ratio,):
            cell_rows.append(
                {
                    "metric": metric,
                    "mode": mode,
                    "ratio": float(r),
                    "level": float(level),
                    "value": value,
                    "ci_low": lo,
                    "ci_high": hi,
                    "n_training": len(parts.training),
                    "n_holdout": len(parts.holdout(r)) if len(run_ratios) > 1 else 0,
                    "n_release": len(release),
                    "seconds": seconds,
                    "note": note,
                }
            )
    return index, cell_rows


def _pooled_cell_task(cell: Cell, context: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    """:func:`_cell_task` in a local worker process, on the worker's share of the
    threads, with the cell's own fan-out (MDS's shadows, RAPID's attackers) kept in the
    worker. A cell's numbers do not depend on its thread counts (the measures that
    reduce through BLAS do it on one thread), so these are the serial run's rows."""
    with as_task(context.get("threads")):
        return _cell_task(cell, context)


def _varies_with_holdout(metric: str) -> bool:
    return get_measure(metric).varies_with_holdout


def _evaluate(
    training: pd.DataFrame,
    release: pd.DataFrame,
    holdout: pd.DataFrame,
    metric: str,
    kwargs: dict[str, Any],
    threat: ThreatModel,
    schema: Schema,
    seed: int,
) -> tuple[float, float, float, str]:
    res, note = evaluate_noted(
        training,
        release,
        name=metric,
        threat=threat,
        holdout=holdout,
        schema=schema,
        seed=seed,
        options=kwargs,
    )
    if res is None:
        return math.nan, math.nan, math.nan, note
    lo, hi = res.ci if res.ci is not None else (math.nan, math.nan)
    return float(res.value), float(lo), float(hi), note


__all__ = ["DEFAULT_LEVELS", "DEFAULT_RATIOS", "calibrate", "calibration_targets"]
