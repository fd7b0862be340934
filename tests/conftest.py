"""Shared fixtures: small simulated tables, their schema and canonical form, a threat model.

Everything here is cheap (a few hundred rows, milliseconds) and returns fresh objects, so
a test may modify what it receives without affecting another test. Tables come from the
RAPID paper's simulation (``privacy_core.datasets.simulate_health``).
"""

from __future__ import annotations

# first: pins this xdist worker to its core(s) before numpy loads its BLAS
import worker_cores  # isort: skip

import os
import sys
import warnings
from collections.abc import Callable, Iterator
from functools import lru_cache

import numpy as np
import pandas as pd
import pytest
import scheduling

from privacy_core import (
    Schema,
    SchemaWarning,
    ThreatModel,
    infer_schema,
    prepare_table,
    simulate_health,
    synthesize,
)

HEALTH_QUASI_IDENTIFIERS = ("age", "education", "gender")
HEALTH_SENSITIVE = ("disease",)
HEALTH_NUMERIC = ("age", "income", "health")
HEALTH_CATEGORICAL = ("gender", "education", "disease")


@lru_cache(maxsize=32)
def _health(n: int, kappa: float, seed: int) -> pd.DataFrame:
    return simulate_health(n, kappa=kappa, seed=seed)


@pytest.fixture
def make_health() -> Callable[..., pd.DataFrame]:
    """Factory ``make_health(n=300, kappa=1.0, seed=0)``: a fresh simulated health table."""

    def make(n: int = 300, kappa: float = 1.0, seed: int = 0) -> pd.DataFrame:
        return _health(n, float(kappa), seed).copy()

    return make


@pytest.fixture
def health_real(make_health) -> pd.DataFrame:
    """300 simulated records (kappa 1, seed 0), raw as a user would load them."""
    return make_health(300, 1.0, 0)


@pytest.fixture
def health_holdout(make_health) -> pd.DataFrame:
    """300 further records from the same population (seed 1): never seen by a generator."""
    return make_health(300, 1.0, 1)


@pytest.fixture
def health_schema(health_real) -> Schema:
    """The inferred schema of :func:`health_real` (3 numeric, 3 categorical columns)."""
    with warnings.catch_warnings():
        # The health table has no ID-like or constant column: nothing is excluded.
        warnings.simplefilter("error", SchemaWarning)
        return infer_schema(health_real)


@pytest.fixture
def health_canonical(health_real, health_schema) -> pd.DataFrame:
    """:func:`health_real` in canonical form (float64 numerics, string categories)."""
    return prepare_table(health_real, health_schema)


@pytest.fixture
def health_threat() -> ThreatModel:
    """The paper's threat model: age, education and gender known; disease secret."""
    return ThreatModel(HEALTH_QUASI_IDENTIFIERS, HEALTH_SENSITIVE)


@pytest.fixture
def health_synthetic(health_canonical) -> pd.DataFrame:
    """A CART release of :func:`health_canonical` (same size, seed 0)."""
    return synthesize(health_canonical, method="cart", seed=0)


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded generator for test data (never the global one)."""
    return np.random.default_rng(12345)


# ----------------------------------------------------------------------------- databases
@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The SQLAlchemy URL of a PostgreSQL server's admin database for this test session:
    the one ``.ci/run`` started (``PRIVACY_REVIEW_TEST_PG_URL``), else a throwaway cluster
    started here and stopped at the end. No PostgreSQL is a failure, not a skip: the
    history must work on the server a team deploys it with."""
    import os
    import tempfile

    import pg_cluster

    url = os.environ.get(pg_cluster.ENV_URL)
    if url:
        yield url
        return
    # not under pytest's tmp folders: those are private to root, and the server runs as
    # the postgres user, which must reach its socket folder
    folder = tempfile.mkdtemp(prefix="privacy-review-pg-")
    try:
        url = pg_cluster.start(folder)
    except (RuntimeError, OSError) as exc:
        pytest.fail(f"{pg_cluster.INSTALL_HINT} ({exc})")
    try:
        yield url
    finally:
        pg_cluster.stop(folder)


@pytest.fixture(params=["sqlite", "postgresql"])
def history_url(request, tmp_path) -> Iterator[str]:
    """A fresh, empty review database on each backend: a SQLite file, or a new database
    on the session's PostgreSQL server (dropped afterwards)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'reviews.db'}"
        return
    import uuid

    import sqlalchemy as sa

    admin_url = request.getfixturevalue("postgres_server")
    name = f"reviews_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = sa.engine.make_url(admin_url).set(database=name)
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture(scope="session")
def _test_history_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("history")


# Streamlit's script runner installs each page it runs as sys.modules["__main__"] (with
# the page's __file__) and never puts the real one back. A process started with "spawn"
# re-runs __main__'s file first, so after an AppTest of the Risk lab a test's spawned
# writer ran pages/lab.py and died (NoSessionContext) before writing anything.
_MAIN_MODULE = sys.modules["__main__"]


@pytest.fixture(autouse=True)
def _the_real_main_module():
    """Every test starts with the interpreter's own ``__main__``, whatever ran before."""
    sys.modules["__main__"] = _MAIN_MODULE


@pytest.fixture(autouse=True)
def _no_write_to_the_users_history(monkeypatch, _test_history_folder, request):
    """The app's default history is the user's own data folder: a test that does not name
    one (an AppTest saving a review) writes to a throwaway file instead."""
    import os

    if "PRIVACY_REVIEW_DB" not in os.environ:
        name = request.node.nodeid.replace("/", "_").replace(":", "_")[-80:]
        monkeypatch.setenv("PRIVACY_REVIEW_DB", f"sqlite:///{_test_history_folder / name}.db")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` starts one worker per usable core (see tests/worker_cores.py)."""
    return worker_cores.workers_per_machine()


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """A module's tests on one worker, the longest modules first (tests/scheduling.py)."""
    return scheduling.make_scheduler(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):  # the same order on every worker
        scheduling.reorder(items)
