"""Independent tasks on local processes (joblib) or a Ray cluster, as they finish.

One place for the engine's fan-out of independent, picklable work: RAPID's attacker fits,
the calibration cells, the membership disclosure score's shadow models and the risk lab's
sweep cells. Results come back unordered (each carries what it needs to be placed) so
that progress can move as soon as any task ends, and a stop request cancels the tasks
not started yet.

Every call into Ray runs on one thread of its own: a Ray driver belongs to the thread
that started it, and a call from another thread after that one has ended kills the
process (Streamlit runs each rerun of a page on a new thread).
"""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from .errors import ComputeBackendError, ParameterError

T = TypeVar("T")
BACKENDS = ("local", "ray")
_connected: str | None = None  # the Ray address this process joined
_RAY_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ray-driver")
_POLL_S = 0.5  # how often a Ray map looks for a stop request while tasks run
# set while a worker runs one of the scheduler's tasks (privacy_core.scheduler): a
# measure's own fan-out (RAPID's attackers, MDS's shadow models) then runs in that worker,
# not in workers of the worker, which would oversubscribe the cores the tasks share
_one_worker = False
_blas_lock = threading.Lock()
_blas_depth = 0  # blocks of :func:`one_blas_thread` running in this process
_blas_limit: Any = None  # their threadpoolctl limit, restored when the last one ends


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Within the block, BLAS runs on one thread, whatever this process or its machine has.

    OpenBLAS splits a dot product (and the reductions of a logistic regression's fit)
    across its threads and adds the partial sums in an order that follows their number:
    on Adult, ML affinity read 0.0086 on one thread and 0.0088 on two, and DOMIAS's AUC
    differed in its seventh digit. A measure whose reductions go through BLAS runs them
    here, so that its numbers are the same on a laptop, a 16-core
    server and a scheduler's task that gets a share of the cores
    (``tests/unit/test_thread_invariance.py``)."""
    global _blas_depth, _blas_limit
    from threadpoolctl import threadpool_limits

    # the limit is the process's (BLAS has one pool), and a server runs several sessions'
    # measures on threads at once: the first block in sets it, the last one out restores
    # it, so that interleaved blocks never leave the process on one thread
    with _blas_lock:
        if _blas_depth == 0:
            _blas_limit = threadpool_limits(limits=1, user_api="blas")
        _blas_depth += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_depth -= 1
            if _blas_depth == 0 and _blas_limit is not None:
                _blas_limit.restore_original_limits()
                _blas_limit = None


@contextlib.contextmanager
def one_worker() -> Iterator[None]:
    """Within the block, :func:`effective_jobs` is 1: local fan-out runs in this process."""
    global _one_worker
    before, _one_worker = _one_worker, True
    try:
        yield
    finally:
        _one_worker = before


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
    if _one_worker:
        return 1
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
    )(delayed(_in_worker)(fn, item, context) for item in items)
    try:
        for out in results:
            yield out
            if should_stop is not None and should_stop():
                return
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "cancelled tasks": the point
            results.close()


def _in_worker(fn: Callable[..., T], item: Any, context: Any) -> T:
    """``fn(item, context)`` in a local worker process, whose OpenMP threads (torch's, for
    the contrastive encoder) wait passively: the workers share the cores, and OpenMP's
    default busy-waiting at every parallel region's end burns the core another worker
    needs. On two cores, the encoder beside a busy worker took 38.5 s (46 CPU s) busy-
    waiting and 18.6 s (17 CPU s) waiting passively. Only a library loaded after this
    reads it (torch loads on the encoder's first use); the numbers do not change, only
    how idle threads wait. A policy the user set is kept."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    return fn(item, context)


def _reachable(address: str, timeout: float = 3.0) -> None:
    """Fail fast on a ``host:port`` nobody answers at: Ray itself waits for minutes."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "/" in host:
        return  # "local", "auto", ray://… (Ray's own client checks those)
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ComputeBackendError(
            f"Could not reach the Ray cluster at {address!r} ({exc.strerror or exc}). Check "
            "the address (the head node's host:port, 'auto' on a cluster node, or 'local'), "
            "or leave it empty to run here."
        ) from None


def connect_ray(address: str) -> None:
    """Join (or, for ``"local"``, start) the Ray cluster at ``address``; a
    :class:`ComputeBackendError` that says what went wrong if that fails."""
    _RAY_THREAD.submit(_connect, address).result()


def shutdown_ray() -> None:
    """Leave the Ray cluster (and stop a ``"local"`` instance), from the Ray thread."""

    def leave() -> None:
        global _connected
        import ray

        ray.shutdown()
        _connected = None

    _RAY_THREAD.submit(leave).result()


def _connect(address: str) -> None:
    try:
        import ray
    except ImportError:
        raise ComputeBackendError(
            "backend='ray' needs the ray package, which is not installed: "
            "`pip install ray`, or use backend='local'."
        ) from None
    global _connected
    if ray.is_initialized():
        if _connected not in (None, address):
            raise ComputeBackendError(
                f"This process is already connected to the Ray cluster at {_connected!r}; "
                f"one process uses one cluster. Restart it to use {address!r}."
            )
        return
    _reachable(address)
    no_spill: dict[str, Any] = (
        {"_system_config": {"automatic_object_spilling_enabled": False}}
        if address == "local"
        else {}
    )
    try:
        ray.init(address=address, ignore_reinit_error=True, **no_spill)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise ComputeBackendError(
            f"Could not connect to the Ray cluster at {address!r}: {exc}"
        ) from None
    _connected = address


def _ray(
    fn: Callable[..., T],
    items: list[Any],
    context: Any,
    address: str | None,
    should_stop: Callable[[], bool] | None,
) -> Iterator[T]:
    if not address:
        raise ParameterError(
            "backend='ray' needs the cluster's `address` (e.g. "
            "'ray://head:10001', 'auto' or 'local')."
        )
    results: queue.Queue[tuple[str, Any]] = queue.Queue()
    stop = threading.Event()

    def drive() -> None:  # on the Ray thread
        try:
            _connect(address)
            import ray

            remote = ray.remote(fn)
            ctx_ref = ray.put(context)
            pending = [remote.remote(item, ctx_ref) for item in items]
            while pending and not stop.is_set():
                done, pending = ray.wait(pending, num_returns=1, timeout=_POLL_S)
                for ref in done:
                    results.put(("result", ray.get(ref)))
            for ref in pending:
                ray.cancel(ref)
        except BaseException as exc:  # noqa: BLE001  # re-raised in the caller's thread
            results.put(("error", exc))
        finally:
            results.put(("end", None))

    _RAY_THREAD.submit(drive)
    try:
        while True:
            kind, value = results.get()
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value
            if should_stop is not None and should_stop():
                return
    finally:
        stop.set()  # also when the caller abandons the iterator
