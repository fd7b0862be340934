"""Independent tasks on local processes (joblib) or a Ray cluster, as they finish.

One place for the engine's fan-out of independent, picklable work: the membership
disclosure score's shadow models. Results come back unordered (each carries what it
needs to be placed) so that progress can move as soon as any task ends, and a stop
request cancels the tasks not started yet.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from .errors import ParameterError

T = TypeVar("T")
BACKENDS = ("local", "ray")


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def effective_jobs(n_jobs: int, n_tasks: int) -> int:
    """Workers to start: ``n_jobs`` (negative counts back from all cores, -1 = all),
    never more than there are tasks."""
    if n_jobs == 0:
        raise ParameterError(
            "`n_jobs` must be a positive number of workers or negative (-1 = all cores); got 0."
        )
    jobs = usable_cores() + 1 + n_jobs if n_jobs < 0 else n_jobs
    return max(1, min(jobs, n_tasks))


def map_unordered(
    fn: Callable[..., T],
    items: Iterable[Any],
    *,
    context: Any,
    n_jobs: int = 1,
    backend: str = "local",
    address: str | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Iterator[T]:
    """``fn(item, context)`` for every item, yielded as each finishes.

    ``backend="local"`` runs in this process (``n_jobs=1``) or in joblib's loky worker
    processes; ``backend="ray"`` submits to the cluster at ``address`` (``"local"`` starts
    one here, with object spilling to disk turned off). ``should_stop()`` is checked after
    each result; when it returns True the remaining tasks are cancelled and the iterator
    ends.
    """
    items = list(items)
    if backend not in BACKENDS:
        raise ParameterError(f"`backend` must be one of {', '.join(BACKENDS)}; got {backend!r}.")
    if backend == "ray":
        yield from _ray(fn, items, context, address, should_stop)
        return
    jobs = effective_jobs(n_jobs, max(len(items), 1))
    if jobs == 1:
        for item in items:
            if should_stop is not None and should_stop():
                return
            yield fn(item, context)
        return
    from joblib import Parallel, delayed

    # max_nbytes=None: joblib would otherwise memory-map every array over 1 MB (the user's
    # real table) to a file in /dev/shm or the temporary directory, and a killed server
    # leaves it there; the workers get a pickled copy through the pipe instead.
    results = Parallel(
        n_jobs=jobs, backend="loky", return_as="generator_unordered", max_nbytes=None
    )(delayed(fn)(item, context) for item in items)
    try:
        for out in results:
            yield out
            if should_stop is not None and should_stop():
                return
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "cancelled tasks": the point
            results.close()


def _ray(
    fn: Callable[..., T],
    items: list[Any],
    context: Any,
    address: str | None,
    should_stop: Callable[[], bool] | None,
) -> Iterator[T]:
    try:
        import ray
    except ImportError:
        raise ParameterError(
            "backend='ray' needs the ray package, which is not installed: "
            "`pip install ray`, or use backend='local'."
        ) from None
    if not address:
        raise ParameterError(
            "backend='ray' needs the cluster's `address` (e.g. "
            "'ray://head:10001', 'auto' or 'local')."
        )
    no_spill: dict[str, Any] = (
        {"_system_config": {"automatic_object_spilling_enabled": False}}
        if address == "local"
        else {}
    )
    ray.init(address=address, ignore_reinit_error=True, **no_spill)
    remote = ray.remote(fn)
    ctx_ref = ray.put(context)
    pending = [remote.remote(item, ctx_ref) for item in items]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        yield ray.get(done[0])
        if should_stop is not None and should_stop():
            for ref in pending:
                ray.cancel(ref)
            return
