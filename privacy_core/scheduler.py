"""The measures of one review side by side: one task per measure, the longest first.

Given the loaded data, the measures of a review are independent: each takes the same
tables, threat model and seed and computes its own result. :func:`run_measures` runs
them as tasks on local worker processes (joblib's loky, through
:func:`privacy_core.parallel.map_unordered`) or on a Ray cluster, and hands each result
back as it ends.

Why processes and not threads: the measures are partly pure Python (predicate search,
pandas grouping) and hold the GIL; threads would serialise them.

Why each task gets a share of the threads: a task on the scheduling process's thread
counts (BLAS, OpenMP, torch) shares the cores with as many threads as the serial run
uses, so ``w`` workers ask for ``w`` times the cores (on 16 cores, distance inference took
332 CPU seconds in 54 wall seconds against 20 s alone, s38). A task gets
``max(1, count // w)`` of each (:func:`thread_share`), and its own fan-out (RAPID's
attackers, MDS's shadows) stays in its worker.

Why the results are still the serial run's, bit for bit: a task gets exactly the arguments
the serial call gets (the same seed, not a per-task seed), and no measure's numbers
depend on its thread counts. Where a sum's order follows the thread count, the measure
fixes it itself: ML affinity and 1-D Wasserstein reduce on one BLAS thread
(:func:`privacy_core.parallel.one_blas_thread`; on Adult, one thread read ML affinity
0.0086 and two read 0.0088), xgboost runs on one thread, and the contrastive encoder on
its own recorded torch threads. ``tests/unit/test_thread_invariance.py`` runs every
measure on one and on two BLAS threads and compares the JSON;
``tests/unit/test_scheduler.py`` compares a scheduled and a serial review;
``bench/bench_review_adult.py`` prints whether the two agree on Adult.

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


def run_task(
    name: str, call: Callable[[], Any], threads: Mapping[str, int] | None = None
) -> TaskOutcome:
    """``call()`` timed, its warnings recorded and a PrivacyCoreError kept (any other
    exception is a defect and propagates); with ``threads`` (the task's
    :func:`thread_share` of the scheduling process's :func:`thread_settings`) the numeric
    libraries run with those thread counts, and the call's own fan-out stays in this
    process."""
    wall, cpu = time.perf_counter(), time.process_time()
    error: PrivacyCoreError | None = None
    result = None
    with (
        warnings.catch_warnings(record=True) as caught,
        as_task(threads),
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
def as_task(threads: Mapping[str, int] | None) -> Iterator[None]:
    """Run the block as a side-by-side task: with these thread counts per library (its
    share, :func:`thread_share`) and its own fan-out kept in this process
    (:func:`privacy_core.parallel.one_worker`); None leaves everything as it is."""
    if threads is None:
        yield
        return
    from threadpoolctl import threadpool_limits

    from .synth.autoregressive import torch_threads

    native = {k: v for k, v in threads.items() if k != "torch"}
    with (
        threadpool_limits(limits=native or None),
        torch_threads(threads.get("torch")),
        parallel.one_worker(),
    ):
        yield


def thread_share(threads: Mapping[str, int], n_workers: int) -> dict[str, int]:
    """Each library's thread count divided among ``n_workers`` side-by-side tasks (at
    least one each), so that together they ask for the cores the counts describe."""
    share = max(1, int(n_workers))
    return {api: max(1, int(n) // share) for api, n in threads.items()}


def thread_settings() -> dict[str, int]:
    """This process's thread counts per numeric library (BLAS, OpenMP; torch's intra-op
    threads when torch is loaded): what its side-by-side tasks share (:func:`thread_share`)."""
    import sys

    from threadpoolctl import threadpool_info

    out: dict[str, int] = {}
    for info in threadpool_info():
        api = str(info["user_api"])
        out[api] = max(out.get(api, 0), int(info["num_threads"]))
    if "torch" in sys.modules:
        out["torch"] = int(sys.modules["torch"].get_num_threads())
    return out


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
    "as_task",
    "thread_settings",
    "thread_share",
    "workers",
]
