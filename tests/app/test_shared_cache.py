"""Sessions asking for the same evaluation at the same time (a class on the built-in
demo) compute it once: the others wait for its result. Different keys never wait for
each other, and a failed computation leaves the key free for the next session."""

import threading
import time

import pytest

import ui.cached as cached


@pytest.fixture()
def store(monkeypatch):
    lru = cached.LRU(size=8)
    monkeypatch.setattr(cached, "_evaluations", lambda: lru)
    return lru


def test_concurrent_sessions_compute_a_shared_key_once(store):
    calls = []

    def compute():
        calls.append(threading.get_ident())
        time.sleep(0.3)
        return {"value": 42}

    results = []
    threads = [
        threading.Thread(target=lambda: results.append(cached.get_or_compute("k", compute)))
        for _ in range(6)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(results) == 6
    assert all(r is results[0] for r in results)
    assert store.pending == {}


def test_different_keys_do_not_wait_for_each_other(store):
    started = threading.Event()
    release = threading.Event()

    def slow():
        started.set()
        release.wait(5)
        return "slow"

    t = threading.Thread(target=lambda: cached.get_or_compute("a", slow))
    t.start()
    assert started.wait(5)
    t0 = time.perf_counter()
    assert cached.get_or_compute("b", lambda: "fast") == "fast"
    assert time.perf_counter() - t0 < 1.0  # not blocked behind "a"
    release.set()
    t.join()


def test_a_failed_computation_leaves_the_key_to_the_next_session(store):
    def boom():
        raise RuntimeError("bad step")

    with pytest.raises(RuntimeError):
        cached.get_or_compute("k", boom)
    assert store.pending == {} and cached.get_or_compute("k", lambda: 7) == 7


def test_one_failure_policy_a_failed_evaluation_is_kept_and_shown_not_retried(store):
    """run_cached (RAPID, the privacy measures) and run_jobs (fidelity, the map) treat a
    failure alike: stored as Failed under its key, its message shown, not recomputed on the
    next rerun; readers of results see nothing computed."""
    import privacy_core as pc
    import ui.runner as runner

    calls = []

    def compute(progress):
        calls.append(1)
        raise pc.InsufficientDataError("too few rows for this measure")

    assert runner.run_cached("bad", "A measure", compute) is None
    assert runner.run_cached("bad", "A measure", compute) is None  # a rerun
    assert len(calls) == 1
    assert isinstance(cached.cached_evaluation("bad"), cached.Failed)
    assert cached.cached_evaluation("bad").message == "too few rows for this measure"
    assert cached.cached_result("bad") is None

    def boom(progress):
        raise RuntimeError("disk on fire")

    runner.run_jobs("Jobs", [runner.Job("job", "A job", boom, runner.put_evaluation)])
    failed = cached.cached_evaluation("job")
    assert isinstance(failed, cached.Failed) and "failed unexpectedly" in failed.message
