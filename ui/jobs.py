"""A server-wide limit on heavy computations, first come first served.

One Streamlit server runs every session's scripts in threads of one process. Without a
limit, ten reviewers pressing *Compute* at once start ten fits on two cores and each waits
ten times as long (issue 32 measured a 74 s wait for a first result under eight sessions).
With the limit, at most ``max_jobs`` (the operator's setting, ``ui.deployment``; one per
core by default) heavy computations run at once; the others wait in arrival order and
their progress bar says where they stand ("2nd in the queue"). A cache hit, or a session
waiting for the same result another session is computing, takes no slot.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator

import streamlit as st

from .deployment import settings

WaitFn = Callable[[int, int, int], None]  # (place in the queue from 1, running, limit)


class JobSlots:
    """At most ``limit`` holders at once; the rest wait in first-come order.

    ``on_wait(place, running, limit)`` is called while waiting, at first and every ``poll``
    seconds or wake-up, so that a page can say where it stands. A thread that already
    holds a slot passes straight through (nested heavy work is one job).

    A page's run asks for one slot per computation (the Overview: RAPID, then each
    measure). Queued at the back each time, ten sessions would advance in turn and all
    finish together at the end (bench_load measured 176–194 s for every one of ten); so a
    released slot stays reserved for its thread for ``hold_s`` seconds, and that thread's
    next computation takes it at once: the run that started first finishes first.
    """

    def __init__(self, limit: int, hold_s: float = 0.5, max_reuses: int = 10) -> None:
        self.limit = int(limit)
        self.hold_s = float(hold_s)
        self._cond = threading.Condition()
        self._running = 0
        self._queue: deque[int] = deque()
        self._tickets = itertools.count()
        # thread ident -> (reservation's expiry, computations it ran in a row on
        # reservations): a page with many (the map's cells) goes back to the queue after
        # max_reuses, so that others get a turn
        self._reserved: dict[int, tuple[float, int]] = {}
        self.max_reuses = int(max_reuses)
        self._held = threading.local()

    def snapshot(self) -> tuple[int, int]:
        """(running, waiting) right now."""
        with self._cond:
            return self._running, len(self._queue)

    def _busy(self, now: float) -> int:
        """Slots taken: running, plus reservations not expired (expired ones dropped)."""
        self._reserved = {t: r for t, r in self._reserved.items() if r[0] > now}
        return self._running + len(self._reserved)

    @contextlib.contextmanager
    def slot(self, on_wait: WaitFn | None = None, poll: float = 1.0) -> Iterator[None]:
        if getattr(self._held, "depth", 0):
            self._held.depth += 1
            try:
                yield
            finally:
                self._held.depth -= 1
            return
        me = threading.get_ident()
        with self._cond:
            until, reuses = self._reserved.pop(me, (-math.inf, 0))
            if until > time.monotonic() and reuses < self.max_reuses:
                self._running += 1  # this run's next computation: its reserved slot
                self._held.reuses = reuses + 1
            else:
                self._cond.notify_all()  # a dropped reservation frees a slot for others
                self._wait_in_queue(on_wait, poll)
                self._held.reuses = 0
        self._held.depth = 1
        try:
            yield
        finally:
            self._held.depth = 0
            with self._cond:
                self._running -= 1
                self._reserved[me] = (time.monotonic() + self.hold_s, self._held.reuses)
                self._cond.notify_all()

    def _wait_in_queue(self, on_wait: WaitFn | None, poll: float) -> None:
        """Join the queue and return holding a slot (called with the lock held)."""
        ticket = next(self._tickets)
        self._queue.append(ticket)
        try:
            while True:
                now = time.monotonic()
                if self._busy(now) < self.limit and self._queue[0] == ticket:
                    break
                if on_wait is not None:
                    # also each poll: a page that was left stops here (Streamlit
                    # interrupts a script at its next call). Called without the lock: a
                    # slow page must not hold up every other session's queue.
                    place, running = self._queue.index(ticket) + 1, self._running
                    self._cond.release()
                    try:
                        on_wait(place, running, self.limit)
                    finally:
                        self._cond.acquire()
                    now = time.monotonic()
                    if self._busy(now) < self.limit and self._queue[0] == ticket:
                        break
                expiry = min((r[0] for r in self._reserved.values()), default=now + poll)
                self._cond.wait(timeout=max(0.01, min(poll, expiry - now)))
        except BaseException:
            # the waiting page was left (Streamlit stops its script): leave the queue
            self._queue.remove(ticket)
            self._cond.notify_all()
            raise
        self._queue.popleft()
        self._running += 1
        self._cond.notify_all()  # the next in line may find another free slot


@st.cache_resource(show_spinner=False)
def _server_slots(limit: int) -> JobSlots:
    return JobSlots(limit)


def server_slots() -> JobSlots:
    """The server's one queue (per configured limit: a changed setting is a new queue)."""
    return _server_slots(settings().max_jobs)


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def queue_message(place: int, running: int, limit: int) -> str:
    return (
        f"Waiting for a free slot: you are {ordinal(place)} in the queue "
        f"({running} of at most {limit} computations running on this server)."
    )
