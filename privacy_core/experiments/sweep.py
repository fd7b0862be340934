""":func:`sweep` and :func:`outlier_sweep`: the risk-insertion experiments themselves."""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..data import Schema, infer_schema, prepare_table
from ..errors import ParameterError
from ..measures import get_measure, measure_names, split_measure_key
from ..parallel import effective_jobs
from ..progress import ProgressFn
from ..results import jsonable
from ..synth.leaky import LeakNoise
from ..threat import ThreatModel
from ..validation import (
    check_choice,
    check_in_range,
    check_positive_int,
    check_seed,
)
from .result import (
    BACKENDS,
    DEFAULT_LEVELS,
    DP_GENERATORS,
    LEVEL_NAMES,
    RISK_MODELS,
    ROW_COLUMNS,
    SPLITS,
    RowsFn,
    SweepResult,
)
from .runners import run_local, run_ray
from .tasks import Task, TaskContext, replicate_seeds


# ============================================================================ sweep
def sweep(
    real: pd.DataFrame,
    *,
    risk_model: str,
    levels: Sequence[float] | None = None,
    measures: Sequence[str] | None = None,
    replicates: int = 3,
    threat: ThreatModel,
    seed: int = 0,
    noise: LeakNoise | dict | None = None,
    schema: Schema | None = None,
    generator: str | None = None,
    generator_params: dict[str, Any] | None = None,
    overfit_params: dict[str, Any] | None = None,
    outlier_fraction: float = 0.0,
    canaries: int = 0,
    options: dict[str, dict[str, Any]] | None = None,
    n_jobs: int = -1,
    backend: str = "local",
    address: str | None = None,
    progress: ProgressFn | None = None,
    on_rows: RowsFn | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> SweepResult:
    """Run a risk-insertion experiment: releases at each level, measures on each release.

    Parameters
    ----------
    real
        All real records available (raw or canonical); each replicate splits them
        (seeded) into training, control and, for ``leaky``, a release pool (thirds) or,
        for ``overfit``, a validation set (40/40/20 %); ``dp`` uses halves.
    risk_model
        ``leaky``, ``overfit`` or ``dp``.
    levels
        f_l in [0, 1], f_o >= 1 or epsilon > 0; defaults :data:`DEFAULT_LEVELS`.
    measures
        Registry names (:func:`privacy_core.measures.measure_names`); default the fast
        privacy measures.
    replicates
        Independent repetitions (different split, release and measure seeds).
    threat
        The threat model of the measures.
    seed
        Root seed; recorded per row as the replicate's split seed.
    noise, generator, generator_params, overfit_params
        Per risk model: ``leaky``'s :class:`~privacy_core.synth.leaky.LeakNoise` on
        inserted records; ``dp``'s generator, one of :data:`DP_GENERATORS` (default
        ``dp-mst``), and its keyword arguments (e.g. ``bounds``, ``n_bins``); the keyword
        arguments of ``overfit``'s
        :class:`~privacy_core.synth.autoregressive.AutoregressiveGenerator`.
    schema
        Schema of ``real`` (inferred when omitted).
    outlier_fraction, canaries
        Share of training records removed by LOF before the release is made (0 = none);
        number of training records whose secret is randomised (0 = no canary baseline).
    options
        ``{measure: {keyword: value}}`` passed to the measures. By default the
        linkability attack links two halves of *all* columns (the paper's A1 ∪ A2 = all
        attributes), split by :func:`~privacy_core.risk.attacks.informative_split`, rather
        than two halves of the quasi-identifiers.
    n_jobs, backend
        Parallel workers (-1 = all cores, 1 = in-process); ``local`` (joblib /
        in-process) or ``ray`` (needs ``address``).
    progress, on_rows, should_stop
        ``progress(fraction, message)`` after every task (and epoch, in-process); called
        with each finished task's rows (a DataFrame) as they arrive; checked between
        tasks: True ends the sweep with the rows finished so far.

    Returns
    -------
    SweepResult

    Raises
    ------
    ParameterError
        Unknown risk model, measure, generator or backend; a level out of range.
    ThreatModelError, InsufficientDataError
        From the data checks.

    Notes
    -----
    ``risk-insertion-framework.md`` §5-6 and Appendices A, C, D.
    """
    plan = _plan_sweep(
        real,
        threat=threat,
        schema=schema,
        risk_model=risk_model,
        levels=levels,
        measures=measures,
        replicates=replicates,
        seed=seed,
        noise=noise,
        generator=generator,
        generator_params=generator_params,
        overfit_params=overfit_params,
        outlier_fraction=outlier_fraction,
        canaries=canaries,
        options=options,
        n_jobs=n_jobs,
        backend=backend,
    )
    return _run_plan(plan, address, progress, on_rows, should_stop)


def outlier_sweep(
    real: pd.DataFrame,
    *,
    fractions: Sequence[float] = (0.0, 0.01, 0.02, 0.05, 0.10),
    levels: Sequence[float] = (1.0, 1.6),
    **kwargs: Any,
) -> SweepResult:
    """The overfit risk model repeated after removing each fraction of LOF outliers.

    Rows carry ``outlier_fraction``; :meth:`SweepResult.summary` groups by it. Other
    keyword arguments go to :func:`sweep` (``risk_model`` is ``overfit``).

    Notes
    -----
    ``risk-insertion-framework.md`` §5.2.1 and Appendix C (f_o = 1 and 1.6; 1, 2, 5 and
    10 % of the records removed).
    """
    if "risk_model" in kwargs or "outlier_fraction" in kwargs:
        raise ParameterError("outlier_sweep sets risk_model and outlier_fraction itself.")
    parts = [
        sweep(real, risk_model="overfit", levels=levels, outlier_fraction=f, **kwargs)
        for f in fractions
    ]
    first = parts[0]
    rows = pd.concat([p.rows for p in parts], ignore_index=True)
    curves = {(p.params["outlier_fraction"], r): c for p in parts for r, c in p.curves.items()}
    return SweepResult(
        rows=rows,
        risk_model="overfit",
        levels=first.levels,
        measures=first.measures,
        replicates=first.replicates,
        seed=first.seed,
        params={**first.params, "outlier_fractions": list(fractions)},
        curves=curves,
        stopped=any(p.stopped for p in parts),
        n_tasks=sum(p.n_tasks for p in parts),
        n_done=sum(p.n_done for p in parts),
        n_real=first.n_real,
    )


# ============================================================================ planning
@dataclass(frozen=True, eq=False)
class _SweepPlan:
    """A checked sweep: its tasks, their shared context, and where they run."""

    ctx: TaskContext
    tasks: list[Task]
    seed: int
    replicates: int
    jobs: int
    backend: str


def _plan_sweep(
    real: pd.DataFrame,
    *,
    threat: ThreatModel,
    schema: Schema | None,
    risk_model: str,
    levels: Sequence[float] | None,
    measures: Sequence[str] | None,
    replicates: int,
    seed: int,
    noise: LeakNoise | dict | None,
    generator: str | None,
    generator_params: dict[str, Any] | None,
    overfit_params: dict[str, Any] | None,
    outlier_fraction: float,
    canaries: int,
    options: dict[str, dict[str, Any]] | None,
    n_jobs: int,
    backend: str,
) -> _SweepPlan:
    """Check every setting of :func:`sweep` (in the order its errors are reported), prepare
    the real rows and lay out the tasks."""
    risk_model = check_choice("risk_model", risk_model, RISK_MODELS)
    seed = check_seed(seed)
    replicates = check_positive_int("replicates", replicates)
    check_choice("backend", backend, BACKENDS)
    levels = _check_levels(risk_model, DEFAULT_LEVELS[risk_model] if levels is None else levels)
    measures = _check_measures(measures)
    outlier_fraction = check_in_range(
        "outlier_fraction", outlier_fraction, 0, 0.5, high_inclusive=False
    )
    canaries = check_positive_int("canaries", canaries, minimum=0)
    generator = _check_generator(risk_model, generator, noise)
    real_c, schema = _canonical_table(real, schema, threat)
    opts = _measure_options(schema, real_c, options)
    tasks = (
        [Task(r, tuple(range(len(levels)))) for r in range(replicates)]
        if risk_model == "overfit"
        else [Task(r, (i,)) for i in range(len(levels)) for r in range(replicates)]
    )
    jobs = 1 if backend == "local" and n_jobs == 1 else effective_jobs(n_jobs, len(tasks))
    ctx = TaskContext(
        real=real_c,
        schema=schema,
        threat=threat,
        risk_model=risk_model,
        levels=levels,
        measures=measures,
        options=opts,
        noise=LeakNoise.coerce(noise),
        generator=generator,
        generator_params=dict(generator_params or {}),
        overfit_params=dict(overfit_params or {}),
        outlier_fraction=outlier_fraction,
        canaries=canaries,
        replicate_seeds=replicate_seeds(seed, replicates, len(levels)),
        # One torch thread per task: the generator's matrices are too small to gain from
        # more (see synth.autoregressive.default_threads); parallelism is across tasks.
        threads=1,
    )
    if risk_model == "overfit":
        _check_overfit_params(ctx.overfit_params)
    return _SweepPlan(ctx, tasks, seed, replicates, jobs, backend)


def _check_measures(measures: Sequence[str] | None) -> tuple[str, ...]:
    """The measure keys (default: the fast privacy measures), each a registered name or
    ``name:mode`` for one of its registered modes, none repeated."""
    measures = tuple(measure_names("privacy", fast_only=True) if measures is None else measures)
    if not measures:
        raise ParameterError("Choose at least one measure (see measure_names()).")
    for m in measures:  # a name, or name:mode for one of its registered modes
        name, mode, _ = split_measure_key(m)
        if mode:
            get_measure(name).mode_options(mode)
        else:
            get_measure(name)
    if len(set(measures)) != len(measures):
        raise ParameterError(f"`measures` repeats a name: {list(measures)}.")
    return measures


def _check_generator(risk_model: str, generator: str | None, noise: Any) -> str:
    """The generator of the releases: the dp model's choice (default ``dp-mst``), or the
    leaky and overfit models' own; ``noise`` belongs to the leaky model only."""
    if risk_model != "leaky" and noise is not None:
        raise ParameterError("`noise` applies to the leaky risk model only.")
    if risk_model == "dp":
        return check_choice("generator", generator or "dp-mst", DP_GENERATORS)
    if generator is not None:
        raise ParameterError(
            "`generator` applies to the dp risk model only (the leaky and "
            "overfit models have their own)."
        )
    return "leaky" if risk_model == "leaky" else "autoregressive"


def _canonical_table(
    real: pd.DataFrame, schema: Schema | None, threat: ThreatModel
) -> tuple[pd.DataFrame, Schema]:
    """The real rows in canonical form and their schema (inferred when not given), checked
    against the threat model."""
    if not isinstance(threat, ThreatModel):
        raise ParameterError(f"`threat` must be a ThreatModel; got {type(threat).__name__}.")
    if schema is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schema = infer_schema(real)
    real_c = prepare_table(real, schema).reset_index(drop=True)
    threat.validate(schema, real_c)
    return real_c, schema


def _measure_options(
    schema: Schema, real: pd.DataFrame, options: dict[str, dict[str, Any]] | None
) -> dict[str, dict[str, Any]]:
    """The sweep's defaults (:func:`_default_options`) updated with the user's options."""
    opts = _default_options(schema, real)
    for k, v in (options or {}).items():
        get_measure(k)
        opts[k] = {**opts.get(k, {}), **v}
    return opts


# ============================================================================ running
class _Tally:
    """The rows, training curves and count of the finished tasks of a running sweep, and
    its progress messages."""

    def __init__(self, plan: _SweepPlan, progress: ProgressFn | None) -> None:
        self.ctx, self.n_tasks, self.progress = plan.ctx, len(plan.tasks), progress
        self.rows: list[dict[str, Any]] = []
        self.curves: dict[int, Any] = {}
        self.done = 0

    def epoch(self, task: Task, row: dict) -> None:
        """An in-process training run's epoch: progress within its task."""
        if self.progress is None:
            return
        top = max(self.ctx.levels)
        sub = (
            0.0
            if row["phase"] == "fit"
            else min(max((row["ratio"] - 1) / max(top - 1, 1e-9), 0.0), 1.0) * 0.9
        )
        self.progress(
            (self.done + sub) / self.n_tasks,
            f"replicate {task.replicate + 1}: {row['phase']} epoch {row['epoch']:.1f}, "
            f"validation loss / L* = {row['ratio']:.2f}",
        )

    def add(
        self, task: Task, task_rows: list[dict[str, Any]], curve: Any, on_rows: RowsFn | None
    ) -> None:
        """A finished task: keep its rows and curve, hand its rows on, say so."""
        self.done += 1
        self.rows.extend(task_rows)
        if curve is not None:
            self.curves[task.replicate] = curve
        if on_rows is not None and task_rows:
            on_rows(_frame(task_rows))
        if self.progress:
            levels_txt = ", ".join(f"{self.ctx.levels[i]:g}" for i in task.level_indices)
            self.progress(
                self.done / self.n_tasks,
                f"{self.done}/{self.n_tasks} done (replicate "
                f"{task.replicate + 1}, {LEVEL_NAMES[self.ctx.risk_model]} = "
                f"{levels_txt})",
            )


def _run_plan(
    plan: _SweepPlan,
    address: str | None,
    progress: ProgressFn | None,
    on_rows: RowsFn | None,
    should_stop: Callable[[], bool] | None,
) -> SweepResult:
    """Run the plan's tasks where it says and collect their rows into the result."""
    ctx, tasks = plan.ctx, plan.tasks
    tally = _Tally(plan, progress)
    started = time.perf_counter()
    if progress:
        progress(0.0, f"{len(tasks)} task(s) on {plan.jobs} worker(s)")
    runner = (
        run_ray(tasks, ctx, address, should_stop)
        if plan.backend == "ray"
        else run_local(tasks, ctx, plan.jobs, should_stop, tally.epoch)
    )
    for task, task_rows, curve in runner:
        tally.add(task, task_rows, curve, on_rows)
    return _sweep_result(plan, tally, seconds=time.perf_counter() - started)


def _sweep_result(plan: _SweepPlan, tally: _Tally, *, seconds: float) -> SweepResult:
    """The :class:`SweepResult` of a run: its rows in order and its settings."""
    ctx = plan.ctx
    params = {
        "risk_model": ctx.risk_model,
        "level_name": LEVEL_NAMES[ctx.risk_model],
        "generator": ctx.generator,
        "noise": ctx.noise.to_dict(),
        "outlier_fraction": ctx.outlier_fraction,
        "canaries": ctx.canaries,
        "options": jsonable(ctx.options),
        "splits": list(SPLITS[ctx.risk_model]),
        "overfit_params": ctx.overfit_params,
        "generator_params": jsonable(ctx.generator_params),
        "n_jobs": plan.jobs,
        "backend": plan.backend,
        "seconds": seconds,
    }
    return SweepResult(
        rows=_frame(tally.rows),
        risk_model=ctx.risk_model,
        levels=ctx.levels,
        measures=ctx.measures,
        replicates=plan.replicates,
        seed=plan.seed,
        params=params,
        curves=tally.curves,
        stopped=tally.done < len(plan.tasks),
        n_tasks=len(plan.tasks),
        n_done=tally.done,
        n_real=len(ctx.real),
    )


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=ROW_COLUMNS)
    if frame.empty:
        return frame
    frame = frame.sort_values(
        ["outlier_fraction", "level", "replicate", "measure"], kind="stable"
    ).reset_index(drop=True)
    frame["reached"] = frame["reached"].astype(bool)
    frame["note"] = frame["note"].fillna("")
    return frame


def _check_levels(risk_model: str, levels: Sequence[float]) -> tuple[float, ...]:
    try:
        values = [float(v) for v in levels]
    except (TypeError, ValueError):
        raise ParameterError(f"`levels` must be numbers; got {levels!r}.") from None
    if not values:
        raise ParameterError("`levels` must hold at least one level.")
    name = LEVEL_NAMES[risk_model]
    for v in values:
        if risk_model == "leaky":
            check_in_range(f"level {name}", v, 0, 1)
        elif risk_model == "overfit":
            check_in_range(f"level {name}", v, 1, 100)
        else:
            check_in_range(f"level {name}", v, 0, math.inf, low_inclusive=False)
    if len(set(values)) != len(values):
        raise ParameterError(f"`levels` repeats a value: {values}.")
    return tuple(sorted(values))


def _check_overfit_params(params: dict[str, Any]) -> None:
    from ..synth.autoregressive import AutoregressiveGenerator

    forbidden = {"overfit_levels", "threads"} & set(params)
    if forbidden:
        raise ParameterError(
            f"`overfit_params` cannot set {sorted(forbidden)}: the sweep sets them."
        )
    try:
        AutoregressiveGenerator(**params)
    except TypeError as exc:
        raise ParameterError(f"Unknown overfit_params: {exc}.") from None


def _default_options(schema: Schema, real: pd.DataFrame) -> dict[str, dict[str, Any]]:
    from ..risk.attacks import informative_split

    cols = list(schema.included)
    if len(cols) >= 2:  # two halves of all columns that each identify as much as they can
        return {"linkability": {"aux_cols": informative_split(real, cols)}}
    return {}
