"""Where the tasks run: in this process, on joblib's processes, or on a Ray cluster."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from ..parallel import map_unordered
from .tasks import Task, TaskContext, run_task


# ============================================================================ runners
def run_local(
    tasks: list[Task],
    ctx: TaskContext,
    jobs: int,
    should_stop: Callable[[], bool] | None,
    on_epoch: Callable[[Task, dict], None] | None,
) -> Iterator[tuple]:
    """The tasks in this process (``jobs == 1``: with ``on_epoch`` and ``should_stop``
    reaching into a training run) or on joblib's processes; yields each task's result."""
    if jobs == 1:  # in process: the overfit model reports its epochs and can stop mid-fit
        for task in tasks:
            if should_stop is not None and should_stop():
                return
            yield run_task(
                task,
                ctx,
                on_epoch=None if on_epoch is None else partial(on_epoch, task),
                should_stop=should_stop,
            )
        return
    yield from map_unordered(run_task, tasks, context=ctx, n_jobs=jobs, should_stop=should_stop)


def run_ray(
    tasks: list[Task], ctx: TaskContext, address: str | None, should_stop: Callable[[], bool] | None
) -> Iterator[tuple]:
    """The tasks on the Ray cluster at ``address``; yields each task's result as it ends."""
    # The context (the real table) goes into the object store; a Ray started here
    # ("local") gets spilling to disk turned off (privacy_core.parallel). A cluster joined by
    # address keeps its own setting: start its head with
    # --system-config='{"automatic_object_spilling_enabled": false}'. The app never takes
    # this path (the lab runs backend="local").
    yield from map_unordered(
        run_task, tasks, context=ctx, backend="ray", address=address, should_stop=should_stop
    )
