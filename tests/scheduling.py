"""How a parallel run (``python -m pytest -n auto``) shares the tests among its workers.

Two rules, both about the suite's wall time on a few cores:

* **A module's tests run on one worker** (but those of :data:`SPREAD_MODULES`), so that a
  module-scoped fixture (a whole calibration, a load test's browser sessions, a fitted
  encoder) is computed once, not once per worker. pytest-xdist's own ``--dist loadgroup``
  did this through a suffix on each test's node id, which pytest 9.2 no longer lets a
  plugin set (``Node.nodeid`` is now read from a structured id): every module was spread
  test by test, and the calibration contract's module calibration ran on both workers.
  :class:`ModuleScheduling` groups by the module path itself, through xdist's documented
  ``pytest_xdist_make_scheduler`` hook.
* **The longest modules start first** (longest-processing-time-first): the tests are
  ordered by their module's measured seconds (:data:`SECONDS_FILE`, refreshed with
  ``python tests/scheduling.py JUNIT.xml`` from a run's ``--junitxml``), so that no long
  module starts last while the other workers sit idle. A module the file does not know
  yet counts as a middling one. The order within a module is kept.

A serial run (no ``-n``) is not reordered: it runs in pytest's own order.
"""

from __future__ import annotations

import json
import statistics
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path

# Modules whose tests are independent cases of one expensive computation each (a whole
# calibration per case): spread over the workers test by test.
SPREAD_MODULES = frozenset({"test_calibration_seeds.py"})
SECONDS_FILE = Path(__file__).with_name("module_seconds.json")


def module_of(nodeid: str) -> str:
    """``tests/unit/test_x.py::test_y[z]`` -> ``tests/unit/test_x.py``."""
    return nodeid.split("::", 1)[0]


def scope_of(nodeid: str) -> str:
    """The unit one worker runs whole: the test's module, or the test itself in a module
    of :data:`SPREAD_MODULES`."""
    module = module_of(nodeid)
    return nodeid if Path(module).name in SPREAD_MODULES else module


def _measured() -> dict[str, float]:
    try:
        return {str(k): float(v) for k, v in json.loads(SECONDS_FILE.read_text()).items()}
    except (OSError, ValueError):
        return {}


def longest_first(nodeids: list[str]) -> list[int]:
    """The positions of ``nodeids`` reordered so that the scopes expected to take longest
    come first; the order within a scope is kept, and the result is the same on every
    worker (xdist checks that all workers collected the same list)."""
    measured = _measured()
    default = statistics.median(measured.values()) if measured else 1.0
    scopes: dict[str, list[int]] = defaultdict(list)
    for i, nodeid in enumerate(nodeids):
        scopes[scope_of(nodeid)].append(i)
    # a module's scopes: 1, or one per test of a spread module (each its share of the module)
    shares = Counter(module_of(s) for s in scopes)

    def cost(scope: str) -> float:
        module = module_of(scope)
        return measured.get(module, default) / shares[module]

    # sorted() is stable: scopes of equal cost keep their collection order
    order = sorted(scopes, key=lambda s: -cost(s))
    return [i for scope in order for i in scopes[scope]]


def reorder(items: list) -> None:
    """Put pytest's collected ``items`` in :func:`longest_first` order, in place."""
    items[:] = [items[i] for i in longest_first([item.nodeid for item in items])]


def make_scheduler(config, log):
    """For ``-n`` (xdist's default ``load``) and ``--dist loadgroup``: xdist's load
    scheduling by scope, the scope being :func:`scope_of`, in the
    collection's order (which :func:`longest_first` set): xdist's own reordering, by the
    number of tests in a scope, would start a module of many quick tests before a long one."""
    from xdist.scheduler import LoadScopeScheduling

    if config.getvalue("dist") not in ("load", "loadgroup"):
        return None  # another mode asked for by name (each, loadfile, ...): xdist's own
    config.option.loadscopereorder = False

    class ModuleScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

    return ModuleScheduling(config, log)


def seconds_from_junit(path: Path) -> dict[str, float]:
    """Each module's summed test seconds in a ``--junitxml`` report."""
    totals: dict[str, float] = defaultdict(float)
    for case in ET.parse(path).iter("testcase"):
        # classname is ``tests.unit.test_x`` (or ``tests.unit.test_x.TestClass``)
        parts = case.get("classname", "").split(".")
        while parts and not parts[-1].startswith("test_"):
            parts.pop()
        if parts:
            totals["/".join(parts) + ".py"] += float(case.get("time", 0))
    return {k: round(v, 1) for k, v in sorted(totals.items())}


if __name__ == "__main__":  # python tests/scheduling.py JUNIT.xml
    SECONDS_FILE.write_text(json.dumps(seconds_from_junit(Path(sys.argv[1])), indent=1) + "\n")
    print(f"wrote {SECONDS_FILE}")
