"""Pin a pytest-xdist worker to its own core(s), on import (tests/conftest.py imports this
first, before numpy loads its BLAS, which sizes its thread pool when it loads).
"""

import os


# ----------------------------------------------------------------------- parallel workers
# A parallel run (`python -m pytest -n auto --dist loadgroup`) has one worker per core.
# Each worker is pinned to its own core(s) before any test runs: the engine sizes its
# pools, BLAS and torch threads from the process's affinity (privacy_core.parallel), and
# so do the servers, command lines and browsers a test starts, so two workers never ask
# for four cores' worth of threads on a two-core machine. Results do not depend on it:
# the same inputs and seed give the same numbers, serial or parallel.
def _pin_this_worker() -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if not worker.startswith("gw") or count < 2 or not hasattr(os, "sched_setaffinity"):
        return
    cores = sorted(os.sched_getaffinity(0))
    index = int(worker[2:])
    if len(cores) >= count:
        os.sched_setaffinity(0, cores[index % count :: count])


_pin_this_worker()
