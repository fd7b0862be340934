"""The demo at 400 rows, for the page tests that need a computed review, not the first start.

The first start opens the demo at 2,000 rows: its RAPID fit (500 trees of three attackers,
bootstrapped) is most of a page test's time, and every test process pays it again whenever
the evaluation cache has moved on. A test of a page's workflow, exports or messages reads
the same widgets, figures and files on the demo's data, threat model and CART release at
400 rows, computed in a fifth of the time. The first start itself keeps its own tests
(tests/app/test_app.py, tests/e2e/test_browser.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from ui.demo import DEMO, builtin_workspace
from ui.workspace import Workspace

APP = str(Path(__file__).resolve().parents[2] / "app.py")
ROWS = 400


def small_workspace() -> Workspace:
    """The demo's data, threat model and CART release (its seeds) at :data:`ROWS` rows."""
    return builtin_workspace(DEMO["name"], n=ROWS, kappa=DEMO["kappa"], seed=DEMO["seed"])


def small_app(script: str = APP, timeout: float = 600) -> AppTest:
    """An AppTest of ``script`` whose session opens on :func:`small_workspace` (in place of
    the first start's demo); not yet run."""
    at = AppTest.from_file(script, default_timeout=timeout)
    at.session_state["workspace"] = small_workspace()
    return at


@pytest.fixture
def no_cached_evaluations():
    """The test starts with no cached resource, as a fresh server does (its first load
    computes RAPID and the quick cards); afterwards the evaluations this process had are
    put back. Every test in a process shares the cache, so clearing it for good made the
    tests after this one on the same worker compute the first start's 2,000-row demo
    again (about 20 s each)."""
    from ui.cached import _evaluations

    saved = list(_evaluations().data.items())
    st.cache_resource.clear()
    yield
    store = _evaluations()
    for key, value in saved:
        if store.get(key) is None:
            store.put(key, value)


def turn_off_autorun(patch: pytest.MonkeyPatch, *, rapid: bool = True, quick: bool = True):
    """The pages compute RAPID (``rapid``) or the quick cards (``quick``) only on a click,
    for as long as ``patch`` holds."""
    import ui.evaluations
    import ui.scorecard

    if rapid:
        patch.setattr(ui.evaluations, "rapid_should_autorun", lambda *a, **k: False)
    if quick:
        patch.setattr(ui.scorecard, "quick_should_autorun", lambda *a, **k: False)


@pytest.fixture
def no_autorun(monkeypatch):
    """The pages compute nothing without a click: for a test of what a session restores
    or refuses (its address, workspace and messages), not of a result. Opening a shared
    link on the Overview otherwise computes that link's review (RAPID and the quick
    cards, about 10 s at 500 rows), which no assertion of such a test reads."""
    turn_off_autorun(monkeypatch)
