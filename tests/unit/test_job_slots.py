"""The server's job limit (issue 32, ui/jobs.py): never more than the limit at once, first
come first served, every waiter told its place, a waiter that leaves frees its place, and
nested heavy work in one thread counted once (a limit of 1 must not deadlock on it).

Wrong implementations these catch: a plain semaphore (no order, no place to report), a
queue that keeps a departed waiter (everyone behind it waits forever), a re-entrant call
that takes a second slot (deadlock at limit 1)."""

from __future__ import annotations

import threading
import time

import pytest

from ui.jobs import JobSlots, ordinal, queue_message


def test_at_most_the_limit_run_and_waiters_go_in_arrival_order():
    slots = JobSlots(2, hold_s=0.01)
    running, peak, order, places = [0], [0], [], {}
    lock = threading.Lock()
    gate = threading.Event()

    def job(i: int) -> None:
        def on_wait(place, now_running, limit):
            places.setdefault(i, []).append(place)
            assert limit == 2 and now_running <= 2

        with slots.slot(on_wait, poll=0.05):
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
                order.append(i)
            gate.wait(5)
            with lock:
                running[0] -= 1

    threads = []
    for i in range(6):
        t = threading.Thread(target=job, args=(i,))
        t.start()
        threads.append(t)
        time.sleep(0.05)  # arrive in order 0, 1, 2, ...
    time.sleep(0.2)
    assert slots.snapshot() == (2, 4)
    assert places[2][0] == 1 and places[5][0] == 4  # each waiter was told its place
    gate.set()
    for t in threads:
        t.join(10)
    assert peak[0] == 2
    assert order == list(range(6))
    assert places[5][-1] < places[5][0]  # and told again as it moved up
    assert slots.snapshot() == (0, 0)


def test_a_waiter_that_leaves_frees_its_place():
    slots = JobSlots(1, hold_s=0.01)
    hold = threading.Event()
    leave = RuntimeError("page left")

    def holder():
        with slots.slot():
            hold.wait(5)

    t = threading.Thread(target=holder)
    t.start()
    time.sleep(0.05)
    calls = []

    def on_wait(place, running, limit):
        calls.append(place)
        if len(calls) == 2:
            raise leave  # Streamlit stops a left page's script at its next call

    with pytest.raises(RuntimeError, match="page left"), slots.slot(on_wait, poll=0.02):
        pass
    assert slots.snapshot() == (1, 0)
    hold.set()
    t.join(5)
    with slots.slot():  # the next comer is not stuck behind the departed one
        assert slots.snapshot() == (1, 0)


def test_nested_work_in_one_thread_takes_one_slot():
    slots = JobSlots(1)
    with slots.slot(), slots.slot():
        assert slots.snapshot() == (1, 0)
    assert slots.snapshot() == (0, 0)


def test_the_queue_message_names_the_place():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
        "101st",
    ]
    assert queue_message(2, 3, 3) == (
        "Waiting for a free slot: you are 2nd in the queue (3 of at most 3 computations "
        "running on this server)."
    )


def test_a_runs_next_computation_goes_before_later_arrivals():
    """The Overview asks for a slot per measure: without the reservation, ten sessions
    advance in turn and all finish at the end (bench_load measured 176-194 s for all)."""
    slots = JobSlots(1, hold_s=0.5)
    order: list[str] = []
    first_done = threading.Event()
    release = threading.Event()

    def early_run():
        with slots.slot():
            order.append("early 1")
            release.wait(5)
        first_done.set()
        with slots.slot():  # the same run's next computation, at once
            order.append("early 2")

    def late_arrival():
        with slots.slot(poll=0.02):
            order.append("late")

    a = threading.Thread(target=early_run)
    a.start()
    time.sleep(0.05)
    b = threading.Thread(target=late_arrival)
    b.start()
    time.sleep(0.1)  # the late session is waiting
    release.set()
    a.join(10)
    b.join(10)
    assert order == ["early 1", "early 2", "late"]


def test_a_run_with_many_computations_lets_others_in_after_max_reuses():
    slots = JobSlots(1, hold_s=5.0, max_reuses=3)
    order: list[str] = []
    started = threading.Event()

    def busy_run():
        for i in range(6):
            with slots.slot(poll=0.02):
                order.append(f"busy {i}")
                started.set()
                time.sleep(0.05)

    def other():
        started.wait(5)
        with slots.slot(poll=0.02):
            order.append("other")

    threads = [threading.Thread(target=busy_run), threading.Thread(target=other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    # the first slot, then 3 on reservations; the other session goes before the rest
    assert order.index("other") == 4, order


def test_a_slow_progress_callback_does_not_hold_up_the_queue():
    slots = JobSlots(2, hold_s=0.01)
    entered = threading.Event()
    release = threading.Event()

    def hold():
        with slots.slot():
            entered.set()
            release.wait(5)

    holders = [threading.Thread(target=hold) for _ in range(2)]
    for t in holders:
        t.start()
    entered.wait(5)
    time.sleep(0.05)

    def slow_wait(place, running, limit):
        time.sleep(0.5)  # a slow page while waiting

    waiter = threading.Thread(target=lambda: slots.slot(slow_wait, poll=0.05).__enter__())
    waiter.start()
    time.sleep(0.1)
    t0 = time.perf_counter()
    release.set()  # the holders release while the waiter's callback runs
    for t in holders:
        t.join(5)
    assert time.perf_counter() - t0 < 0.4  # releasing did not wait for the callback
    waiter.join(5)
