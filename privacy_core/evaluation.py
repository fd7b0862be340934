"""One evaluation path: any registered measures on one set of inputs, through the registry.

The command line, the sweeps and calibration, the report and the app's pages all call
:func:`evaluate` (or :func:`evaluate_measures`, its dict-returning form), so a measure is
called the same way wherever its number is shown.
"""

from __future__ import annotations

import inspect
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

import pandas as pd

from . import scheduler
from .data import Schema, infer_schema
from .errors import ParameterError, PrivacyCoreError
from .measures import MEASURES, MeasureSpec, get_measure
from .progress import ProgressFn, share
from .results import MetricResult, combine_replicates
from .threat import ThreatModel
from .validation import check_seed


@dataclass(frozen=True)
class Review:
    """What one evaluation produced: the results in the order asked, the measures that
    failed with the reason (``errors="collect"`` only) and the distinct warnings raised."""

    results: Mapping[str, MetricResult]
    failures: Mapping[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    # each measure's wall and CPU seconds (CPU: every thread of the process that ran it)
    timings: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    workers: int = 1  # processes the measures ran on side by side (1: one after another)

    def __post_init__(self) -> None:
        object.__setattr__(self, "results", MappingProxyType(dict(self.results)))
        object.__setattr__(self, "failures", MappingProxyType(dict(self.failures)))
        object.__setattr__(self, "timings", MappingProxyType(dict(self.timings)))

    def __getitem__(self, name: str) -> MetricResult:
        return self.results[name]

    def __contains__(self, name: object) -> bool:
        return name in self.results


def evaluate(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    measures: Sequence[str],
    threat: ThreatModel | None = None,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    seed: int = 0,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    progress: ProgressFn | None = None,
    errors: Literal["raise", "collect"] = "raise",
    n_jobs: int = 1,
    backend: str = "local",
    ray_address: str | None = None,
) -> Review:
    """Run registered measures on the same inputs.

    Parameters
    ----------
    real, synthetic, holdout
        The real (training) table, one release or several replicates of one generator, and
        real rows the generator never saw. A measure that takes replicates itself gets
        them all; any other runs once per release and is averaged (consensus R10).
    measures
        Registry names (:data:`privacy_core.measures.MEASURES`).
    threat
        The threat model. Its sampling-weight column (``threat.weights``) reaches every
        measure whose function takes ``weights`` (sdcMicro's individual risk and
        reproduced rare combinations), and the schema every measure gets marks it, so no
        other measure reads it and a release need not have it.
    options
        Per-measure keyword options, e.g. ``{"wasserstein": {"max_rows": 2000}}``; not
        ``weights`` (declared in the threat model).
    progress
        ``progress(fraction, message)`` across all measures; a measure that reports its
        own progress reports into its share.
    errors
        ``"raise"``: the first :class:`~privacy_core.errors.PrivacyCoreError` propagates.
        ``"collect"``: a measure that fails with a
        :class:`~privacy_core.errors.PrivacyCoreError` (bad input for it, too little data)
        is left out of ``results`` and its message kept in ``failures``; the others still
        run. Any other exception is a defect and propagates either way.
    n_jobs, backend, ray_address
        Worker processes the measures run on side by side, the longest first (-1 = all
        usable cores; :mod:`privacy_core.scheduler`), or ``backend="ray"`` to send them to
        the cluster at ``ray_address``. The results are the serial run's; ``progress``
        then moves as each measure ends.

    Warns
    -----
    UserWarning
        Whatever the measures raise is passed on to the caller and also listed, once
        each, in :attr:`Review.warnings`.
    """
    if errors not in ("raise", "collect"):
        raise ParameterError(f"`errors` must be 'raise' or 'collect'; got {errors!r}.")
    seed = check_seed(seed)
    names = list(measures)
    specs = [get_measure(n) for n in names]
    # options for registered measures that are not asked for are ignored (a caller may
    # keep one set of options for every measure); an unknown name is a mistake
    unknown = [k for k in (options or {}) if k not in MEASURES]
    if unknown:
        raise ParameterError(f"`options` names unknown measures: {', '.join(map(str, unknown))}.")
    _refuse_weight_options(specs, options or {})
    schema = _analysis_schema(real, schema, threat)
    releases = [synthetic] if isinstance(synthetic, pd.DataFrame) else list(synthetic)
    context = _Context(real, releases, threat, holdout, schema, seed, dict(options or {}))
    estimate = scheduler.estimate_seconds([s.cost for s in specs], len(real))
    jobs = scheduler.workers(n_jobs, len(specs), estimate) if backend == "local" else 2
    if jobs > 1 and len(specs) > 1:
        return _side_by_side(specs, names, context, jobs, backend, ray_address, progress, errors)
    results: dict[str, MetricResult] = {}
    failures: dict[str, str] = {}
    timings: dict[str, tuple[float, float]] = {}
    error: PrivacyCoreError | None = None
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for i, spec in enumerate(_run_order(specs, names)):
                step = share(progress, i, len(specs), spec.label)
                started = time.perf_counter(), time.process_time()
                try:
                    results[spec.name] = _call(
                        spec,
                        real,
                        releases,
                        threat=threat,
                        holdout=holdout,
                        schema=schema,
                        seed=seed,
                        options=(options or {}).get(spec.name, {}),
                        progress=step,
                    )
                except PrivacyCoreError as exc:
                    if errors == "raise":
                        error = exc
                        break
                    failures[spec.name] = " ".join(str(exc).split())
                finally:
                    timings[spec.name] = (
                        time.perf_counter() - started[0],
                        time.process_time() - started[1],
                    )
    finally:
        # recorded to be listed, and passed on to the caller's own filters (also when an
        # unexpected error escapes: the warnings before it may explain it)
        _pass_on(caught)
    if error is not None:
        raise error
    if progress:
        progress(1.0, "done")
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    return _review(specs, results, failures, messages, timings, 1)


def _review(
    specs: list[MeasureSpec],
    results: dict[str, MetricResult],
    failures: dict[str, str],
    messages: list[str],
    timings: dict[str, tuple[float, float]],
    workers: int,
) -> Review:
    """The review in the order the measures were asked for (however they ran)."""
    order = list(dict.fromkeys(s.name for s in specs))
    return Review(
        results={n: results[n] for n in order if n in results},
        failures={n: failures[n] for n in order if n in failures},
        warnings=tuple(dict.fromkeys(messages)),
        timings={n: timings[n] for n in order if n in timings},
        workers=workers,
    )


@dataclass(frozen=True)
class _Context:
    """What every measure of one evaluation is given (sent once per task to a worker)."""

    real: pd.DataFrame
    releases: list[pd.DataFrame]
    threat: ThreatModel | None
    holdout: pd.DataFrame | None
    schema: Schema | None
    seed: int
    options: dict[str, Mapping[str, Any]]
    # each task's share of the scheduling process's thread counts (scheduler.thread_share)
    threads: Mapping[str, int] | None = None
    # the scheduling process's neighbour-search backend (``--ray``): a worker process or a
    # Ray task starts with the default context, so the task re-enters it
    search: tuple[str, str | None] | None = None


def _measure_task(name: str, ctx: _Context) -> scheduler.TaskOutcome:
    """One measure as a scheduled task (module level: it is pickled to the workers), in
    the scheduling process's neighbour-search backend."""
    from .risk.neighbors import search_backend

    spec = get_measure(name)
    backend, address = ctx.search or ("local", None)
    with search_backend(backend, address):
        return scheduler.run_task(
            name,
            lambda: _call(
                spec,
                ctx.real,
                ctx.releases,
                threat=ctx.threat,
                holdout=ctx.holdout,
                schema=ctx.schema,
                seed=ctx.seed,
                options=ctx.options.get(name, {}),
                progress=None,
            ),
            threads=ctx.threads,
        )


def _side_by_side(
    specs: list[MeasureSpec],
    names: list[str],
    context: _Context,
    jobs: int,
    backend: str,
    address: str | None,
    progress: ProgressFn | None,
    errors: str,
) -> Review:
    """The measures as tasks on ``jobs`` workers (the scheduler), gathered as they end."""
    from dataclasses import replace

    labels = {s.name: s.label for s in specs}
    unique = list(dict.fromkeys(s.name for s in specs))
    from .risk.neighbors import current_search_backend

    context = replace(
        context,
        threads=scheduler.thread_share(scheduler.thread_settings(), jobs),
        search=current_search_backend(),
    )
    results: dict[str, MetricResult] = {}
    failures: dict[str, str] = {}
    errors_by_name: dict[str, PrivacyCoreError] = {}
    timings: dict[str, tuple[float, float]] = {}
    warned: dict[str, tuple[tuple[str, type[Warning], str, int], ...]] = {}
    if progress:
        progress(0.0, f"{len(unique)} measures on {jobs} workers")
    outcomes = scheduler.run_measures(
        unique,
        _measure_task,
        context=context,
        cost={s.name: s.cost for s in specs},
        n_jobs=jobs,
        backend=backend,
        address=address,
    )
    for done, outcome in enumerate(outcomes, start=1):
        timings[outcome.name] = (outcome.wall_s, outcome.cpu_s)
        warned[outcome.name] = outcome.warnings
        if outcome.error is not None:
            errors_by_name[outcome.name] = outcome.error
            failures[outcome.name] = " ".join(str(outcome.error).split())
        else:
            results[outcome.name] = outcome.result
        if progress:
            progress(done / len(unique), f"{labels[outcome.name]} done")
    # re-issued in the order the serial run would raise them
    rank = {n: i for i, n in enumerate(s.name for s in _run_order(specs, names))}
    recorded = [w for n in sorted(warned, key=lambda n: rank[n]) for w in warned[n]]
    _pass_on_recorded(recorded)
    if errors == "raise" and errors_by_name:
        first = min(errors_by_name, key=lambda n: rank[n])
        raise errors_by_name[first]
    messages = [m for m, cat, _, _ in recorded if issubclass(cat, UserWarning)]
    return _review(specs, results, failures, messages, timings, jobs)


def evaluate_measures(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    names: Sequence[str],
    threat: ThreatModel | None = None,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    seed: int = 0,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    progress: ProgressFn | None = None,
) -> dict[str, MetricResult]:
    """:func:`evaluate`'s results as a dict (the first error propagates)."""
    review = evaluate(
        real,
        synthetic,
        measures=names,
        threat=threat,
        holdout=holdout,
        schema=schema,
        seed=seed,
        options=options,
        progress=progress,
    )
    return dict(review.results)


def evaluate_noted(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    *,
    name: str,
    threat: ThreatModel | None,
    holdout: pd.DataFrame | None,
    schema: Schema | None,
    seed: int,
    options: dict[str, Any] | None = None,
) -> tuple[MetricResult | None, str]:
    """One measure for an experiment that must go on when it fails: the result (None on a
    :class:`~privacy_core.errors.PrivacyCoreError`) and a note with the error and the
    distinct user warnings it raised, so a row of a sweep or a calibration says why its
    value is missing or doubtful."""
    return run_noted(
        lambda: evaluate_measures(
            real,
            synthetic,
            names=[name],
            threat=threat,
            holdout=holdout,
            schema=schema,
            seed=seed,
            options={name: dict(options or {})},
        )[name]
    )


def run_noted(call: Callable[[], Any]) -> tuple[Any, str]:
    """``call()`` for an experiment that goes on when it fails: its value (None on a
    :class:`~privacy_core.errors.PrivacyCoreError`) and a note with the error and the
    distinct user warnings raised."""
    note = ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = call()
        except PrivacyCoreError as exc:
            res = None
            note = f"error: {' '.join(str(exc).split())}"
    warned = sorted({str(w.message) for w in caught if issubclass(w.category, UserWarning)})
    if warned:
        note = "; ".join([note, *warned]) if note else "; ".join(warned)
    return res, note


def _run_order(specs: list[MeasureSpec], names: list[str]) -> list[MeasureSpec]:
    """A measure whose neighbour search serves another's runs first (``before``)."""
    order = sorted(
        range(len(specs)),
        key=lambda j: (
            min((names.index(b) - 0.5 for b in specs[j].before if b in names), default=j),
            j,
        ),
    )
    return [specs[j] for j in order]


def _call(
    spec: MeasureSpec,
    real: pd.DataFrame,
    releases: list[pd.DataFrame],
    *,
    threat: ThreatModel | None,
    holdout: pd.DataFrame | None,
    schema: Schema | None,
    seed: int,
    options: Mapping[str, Any],
    progress: ProgressFn | None,
) -> MetricResult:
    if spec.needs_holdout and holdout is None:
        raise ParameterError(
            f"{spec.label} needs a holdout (real rows the generator never saw); "
            "give one or leave this measure out."
        )
    kwargs: dict[str, Any] = {"seed": seed, "schema": schema}
    if spec.needs_threat:
        if threat is None:
            raise ParameterError(f"{spec.label} needs a threat model (QIs and sensitive).")
        kwargs["threat"] = threat
    elif threat is not None and spec.uses_threat:
        kwargs["threat"] = threat
    if holdout is not None and (spec.needs_holdout or spec.uses_holdout):
        kwargs[spec.holdout_keyword] = holdout
    if progress is not None and _accepts(spec.function, "progress"):
        kwargs["progress"] = progress
    if threat is not None and threat.weights is not None and _accepts(spec.function, "weights"):
        # the threat model declares the sampling weights once, for every measure that
        # reads them (sdcMicro's F_k); the registry has no option of its own for them
        kwargs["weights"] = threat.weights
    kwargs.update(options)
    if spec.replicates_native or len(releases) == 1:
        return spec.function(real, releases if len(releases) > 1 else releases[0], **kwargs)
    # one call per release, then mean and spread across releases (R10)
    return combine_replicates([spec.function(real, rel, **kwargs) for rel in releases])


def _analysis_schema(
    real: pd.DataFrame, schema: Schema | None, threat: ThreatModel | None
) -> Schema | None:
    """The schema every measure gets: the declared sampling-weight column marked, so that
    no measure but the sdcMicro ones reads it and a release need not have it (inferred
    here when none is given and a column is declared; as given otherwise)."""
    if threat is None or threat.weights is None:
        return schema
    if schema is None:
        if not isinstance(real, pd.DataFrame):
            return None  # each measure refuses it with its own message
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # each measure warns about its inputs itself
            schema = infer_schema(real)
    return threat.analysis_schema(schema)


def _refuse_weight_options(specs: list[MeasureSpec], options: Mapping[str, Any]) -> None:
    """Sampling weights are declared once, in the threat model, never per measure."""
    for spec in specs:
        if "weights" in (options.get(spec.name) or {}):
            raise ParameterError(
                f"`options` sets weights for {spec.name}; declare the sampling-weight "
                "column once, in the threat model (ThreatModel(..., weights=COLUMN)), so "
                "every measure that reads it uses the same one."
            )


def _accepts(function: Callable[..., Any], name: str) -> bool:
    return name in inspect.signature(function).parameters


# where re-issued warnings are remembered, as a module's __warningregistry__ is: the
# default action shows a warning once per location, as it did before it was recorded
_REGISTRY: dict[Any, Any] = {}


def _pass_on_recorded(recorded: list[tuple[str, type[Warning], str, int]]) -> None:
    """Re-issue warnings recorded in a worker (message, category, file, line)."""
    seen = set()
    for message, category, filename, lineno in recorded:
        if (message, category, filename, lineno) in seen:
            continue
        seen.add((message, category, filename, lineno))
        warnings.warn_explicit(
            message,
            category,
            filename,
            lineno,
            module=_module_of(filename),
            registry=_REGISTRY,
        )


def _pass_on(caught: list[warnings.WarningMessage]) -> None:
    """Re-issue recorded warnings to the caller's filters, as if never recorded: each
    distinct one once, with the module it came from (for module filters)."""
    seen = set()
    for w in caught:
        key = (str(w.message), w.category, w.filename, w.lineno)
        if key in seen:
            continue
        seen.add(key)
        warnings.warn_explicit(
            w.message,
            w.category,
            w.filename,
            w.lineno,
            module=_module_of(w.filename),
            registry=_REGISTRY,
        )


def _module_of(filename: str) -> str | None:
    """The dotted name of the loaded module defined in ``filename`` (None: unknown, and
    warnings then names the module after the file, as it does itself)."""
    for name, module in list(sys.modules.items()):
        if getattr(module, "__file__", None) == filename:
            return name
    return None


__all__ = ["Review", "evaluate", "evaluate_measures", "evaluate_noted", "run_noted"]
