"""The parallel run's scheduling (tests/scheduling.py): a module's tests on one worker, the
longest modules first.

Wrong versions caught: grouping through xdist's ``loadgroup`` suffix on the node id, which
pytest 9.2 ignores (every module spread test by test, a module fixture computed on each
worker: the calibration contract's calibration ran twice); xdist's reordering by the
number of tests in a scope left on (a module of many quick tests started before a long
one, and the long ones ran last); a reordering that shuffles the tests within a module.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import scheduling

pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parents[1]


def test_a_module_is_one_scope_but_the_spread_modules_test_by_test():
    assert scheduling.scope_of("tests/unit/test_x.py::test_a[1]") == "tests/unit/test_x.py"
    assert scheduling.scope_of("tests/unit/test_x.py::TestC::test_b") == "tests/unit/test_x.py"
    seeds = "tests/unit/test_calibration_seeds.py::test_no_fail[adult-8111]"
    assert scheduling.scope_of(seeds) == seeds


def test_longest_modules_first_and_the_order_within_a_module_kept(tmp_path, monkeypatch):
    seconds = tmp_path / "module_seconds.json"
    seconds.write_text(json.dumps({"tests/a.py": 1.0, "tests/b.py": 50.0, "tests/c.py": 9.0}))
    monkeypatch.setattr(scheduling, "SECONDS_FILE", seconds)
    ids = [
        "tests/a.py::t1",
        "tests/b.py::t1",
        "tests/a.py::t2",
        "tests/new.py::t1",  # not measured yet: counts as the median module (9 s)
        "tests/b.py::t2",
        "tests/c.py::t1",
    ]
    order = [ids[i] for i in scheduling.longest_first(ids)]
    assert order == [
        "tests/b.py::t1",
        "tests/b.py::t2",
        "tests/new.py::t1",  # ties keep the collection order: new.py came before c.py
        "tests/c.py::t1",
        "tests/a.py::t1",
        "tests/a.py::t2",
    ]


def test_a_dist_mode_asked_for_by_name_keeps_xdists_own_scheduler():
    class Config:
        def __init__(self, dist):
            self.dist = dist
            self.option = type("Option", (), {"loadscopereorder": True})()

        def getvalue(self, name):
            return self.dist

    assert scheduling.make_scheduler(Config("each"), None) is None
    assert scheduling.make_scheduler(Config("loadfile"), None) is None


def test_the_measured_seconds_name_modules_that_exist():
    """A renamed or deleted module leaves a stale entry: refresh the file
    (``python tests/scheduling.py JUNIT.xml``)."""
    measured = json.loads(scheduling.SECONDS_FILE.read_text())
    root = TESTS.parent
    assert measured and all((root / m).is_file() for m in measured), [
        m for m in measured if not (root / m).is_file()
    ]


def test_a_modules_tests_run_on_one_worker_and_the_longest_start_first(pytester):
    """Through xdist itself: two workers, three modules. Each module's tests report one
    worker; the module measured shortest starts last although it has the most tests."""
    pytester.makeconftest(
        f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
import scheduling
from pathlib import Path
scheduling.SECONDS_FILE = Path("seconds.json")

def pytest_xdist_make_scheduler(config, log):
    return scheduling.make_scheduler(config, log)

def pytest_collection_modifyitems(config, items):
    scheduling.reorder(items)
"""
    )
    (pytester.path / "seconds.json").write_text(
        json.dumps({"test_short.py": 1.0, "test_mid.py": 50.0, "test_long.py": 100.0})
    )
    body = """
import os, pytest, time
@pytest.mark.parametrize("i", range({n}))
def test_where(i):
    with open("ran.txt", "a") as f:
        f.write(f"{{__name__}} {{i}} {{os.environ['PYTEST_XDIST_WORKER']}} {{time.time()}}\\n")
    time.sleep({pause})
"""
    pytester.makepyfile(
        test_short=body.format(n=6, pause=0.05),
        test_mid=body.format(n=2, pause=0.5),
        test_long=body.format(n=2, pause=0.5),
    )
    result = pytester.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=10)
    rows = [line.split() for line in (pytester.path / "ran.txt").read_text().splitlines()]
    modules = ("test_short", "test_mid", "test_long")
    workers = {m: {w for mod, _, w, _ in rows if mod == m} for m in modules}
    assert all(len(w) == 1 for w in workers.values()), workers
    first = {m: min(float(t) for mod, _, _, t in rows if mod == m) for m in modules}
    assert first["test_short"] > max(first["test_mid"], first["test_long"]), first


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
