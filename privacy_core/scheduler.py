"""The measures of one review side by side: one task per measure, the longest first.

Given the loaded data, the measures of a review are independent: each takes the same
tables, threat model and seed and computes its own result. :func:`run_measures` runs
them as tasks on local worker processes (joblib's loky, through
:func:`privacy_core.parallel.map_unordered`) or on a Ray cluster, and hands each result
back as it ends.

Why processes and not threads: the measures are partly pure Python (predicate search,
pandas grouping) and hold the GIL; threads would serialise them.

Why the results are the serial run's, bit for bit: a task gets exactly the arguments the
serial call gets (the same seed, not a per-task seed), the numeric libraries' results do
not depend on how many BLAS / OpenMP threads run them here, and the one network that
would (the contrastive encoder) fixes its own thread count (``ContrastiveParams.threads``).
``tests/unit/test_scheduler.py`` compares the JSON of a scheduled and a serial review.

Why each task gets a share of the cores: two workers on two cores, each letting BLAS,
OpenMP (xgboost) and torch start a thread per core, would run four busy threads on two
cores and slow every fit down (``ui.runner.JOB_OPENMP_THREADS`` measured 5-50 times on
RAPID's xgboost). A task runs with ``cores // workers`` threads (at least one).

Why the longest first: with more tasks than workers, a long task started last finishes
alone while the other workers idle. The registry's ``cost`` (seconds on Adult, 2 cores)
orders them.
"""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import parallel
from .errors import PrivacyCoreError


@dataclass(frozen=True)
class TaskOutcome:
    """What one measure's task hands back: its result or its error (a
    :class:`~privacy_core.errors.PrivacyCoreError`), the warnings it raised, and its wall
    and CPU seconds (CPU: every thread of the process that ran it)."""

    name: str
    result: Any
    error: PrivacyCoreError | None
    warnings: tuple[tuple[str, type[Warning], str, int], ...]
    wall_s: float
    cpu_s: float


def run_task(name: str, call: Callable[[], Any], threads: int | None = None) -> TaskOutcome:
    """``call()`` timed, its warnings recorded and a PrivacyCoreError kept (any other
    exception is a defect and propagates); with ``threads`` numeric libraries are limited
    to that many threads for the call."""
    wall, cpu = time.perf_counter(), time.process_time()
    error: PrivacyCoreError | None = None
    result = None
    with (
        warnings.catch_warnings(record=True) as caught,
        _thread_limit(threads),
        parallel.one_worker() if threads is not None else contextlib.nullcontext(),
    ):
        warnings.simplefilter("always")
        try:
            result = call()
        except PrivacyCoreError as exc:
            error = exc
    recorded = tuple((str(w.message), w.category, w.filename, w.lineno) for w in caught)
    return TaskOutcome(
        name, result, error, recorded, time.perf_counter() - wall, time.process_time() - cpu
    )


@contextlib.contextmanager
def _thread_limit(threads: int | None) -> Iterator[None]:
    if threads is None:
        yield
        return
    from threadpoolctl import threadpool_limits

    from .synth.autoregressive import torch_threads

    with threadpool_limits(limits=threads), torch_threads(threads):
        yield


# Costs are seconds on Adult's training rows; a smaller table costs about its share.
COST_ROWS = 39_073
# Below this estimate, "all cores" (a negative n_jobs) runs the measures here, one after
# another: starting the workers and importing the engine in each (torch, scikit-learn,
# xgboost) takes 3-6 s on two cores, more than side by side saves on a small table.
POOL_MIN_SECONDS = 10.0


def estimate_seconds(costs: Sequence[float], n_rows: int) -> float:
    """The serial run's rough seconds: the registry's costs scaled to ``n_rows``."""
    return float(sum(costs)) * n_rows / COST_ROWS


def workers(n_jobs: int, n_tasks: int, estimate_s: float | None = None) -> int:
    """Worker processes for ``n_tasks`` measures (1: run here, one after another).

    A negative ``n_jobs`` (every usable core, counted back) runs here when the work is
    estimated under :data:`POOL_MIN_SECONDS`; a positive one is taken as asked."""
    if n_jobs < 0 and estimate_s is not None and estimate_s < POOL_MIN_SECONDS:
        return parallel.effective_jobs(1, n_tasks)  # validates, and 1
    return parallel.effective_jobs(n_jobs, n_tasks)


def threads_per_task(jobs: int) -> int:
    """Each worker's share of the usable cores (at least one thread)."""
    return max(1, parallel.usable_cores() // max(jobs, 1))


def longest_first(names: Sequence[str], cost: Mapping[str, float]) -> list[str]:
    """``names`` by decreasing cost (ties keep their order)."""
    return sorted(names, key=lambda n: -float(cost.get(n, 1.0)))


def run_measures(
    names: Sequence[str],
    task: Callable[[str, Any], TaskOutcome],
    *,
    context: Any,
    cost: Mapping[str, float],
    n_jobs: int,
    backend: str = "local",
    address: str | None = None,
) -> Iterator[TaskOutcome]:
    """``task(name, context)`` for every measure, yielded as each ends.

    ``task`` must be a module-level function (it is pickled to the workers) that calls
    :func:`run_task` with ``threads`` (``context`` carries it). With one worker the tasks
    run here in ``names``' order.
    """
    order = longest_first(names, cost)
    yield from parallel.map_unordered(
        task,
        order,
        context=context,
        n_jobs=workers(n_jobs, len(order)) if backend == "local" else n_jobs,
        backend=backend,
        address=address,
    )


__all__ = [
    "COST_ROWS",
    "POOL_MIN_SECONDS",
    "TaskOutcome",
    "estimate_seconds",
    "longest_first",
    "run_measures",
    "run_task",
    "threads_per_task",
    "workers",
]
