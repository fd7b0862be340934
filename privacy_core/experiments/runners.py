"""Where the tasks run: in this process, on joblib's processes, or on a Ray cluster."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from ..parallel import map_unordered
from .tasks import _Context, _run_task, _Task


# ============================================================================ runners
def _run_local(
    tasks: list[_Task],
    ctx: _Context,
    jobs: int,
    should_stop: Callable[[], bool] | None,
    on_epoch: Callable[[_Task, dict], None] | None,
) -> Iterator[tuple]:
    if jobs == 1:  # in process: the overfit model reports its epochs and can stop mid-fit
        for task in tasks:
            if should_stop is not None and should_stop():
                return
            yield _run_task(
                task,
                ctx,
                on_epoch=None if on_epoch is None else partial(on_epoch, task),
                should_stop=should_stop,
            )
        return
    yield from map_unordered(_run_task, tasks, context=ctx, n_jobs=jobs, should_stop=should_stop)


def _run_ray(
    tasks: list[_Task], ctx: _Context, address: str | None, should_stop: Callable[[], bool] | None
) -> Iterator[tuple]:
    # The context (the real table) goes into the object store; a Ray started here
    # ("local") gets spilling to disk turned off (privacy_core.parallel). A cluster joined by
    # address keeps its own setting: start its head with
    # --system-config='{"automatic_object_spilling_enabled": false}'. The app never takes
    # this path (the lab runs backend="local").
    yield from map_unordered(
        _run_task, tasks, context=ctx, backend="ray", address=address, should_stop=should_stop
    )
