"""Pin a pytest-xdist worker to its own core(s), on import (tests/conftest.py imports this
first, before numpy loads its BLAS, which sizes its thread pool when it loads).
"""

import os


# ----------------------------------------------------------------------- parallel workers
# A parallel run (`python -m pytest -n auto`) has one worker per usable core
# (tests/conftest.py's pytest_xdist_auto_num_workers; two per core was measured slower:
# 27 min against 22 on this machine's two cores, each worker computing the demo and
# running its own browser and server). Each worker is pinned before any test runs:
# the engine sizes its pools, BLAS and torch threads from the process's affinity
# (privacy_core.parallel), and so do the servers, command lines and browsers a test
# starts, so the workers never ask for more threads than there are cores. Results do not
# depend on it: the same inputs and seed give the same numbers, serial or parallel.
def _pin_this_worker() -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if not worker.startswith("gw") or count < 2 or not hasattr(os, "sched_setaffinity"):
        return
    cores = sorted(os.sched_getaffinity(0))
    index = int(worker[2:])
    if len(cores) >= count:  # at least a core per worker: every count-th core
        os.sched_setaffinity(0, cores[index % count :: count])
    else:  # more workers than cores: worker i shares core i mod cores with the others
        os.sched_setaffinity(0, {cores[index % len(cores)]})


def workers_per_machine() -> int:
    """``-n auto``: one worker per core this process may use (os.cpu_count() counts the
    machine's, which a container or ``taskset`` may not grant)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


_pin_this_worker()
