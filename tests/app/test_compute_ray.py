"""The Data page's compute setting (issue 14): a bad Ray address gets a clear message at
once and changes nothing; a good one sends RAPID's attacker fits to the cluster, and the
RAPID page then shows the numbers of a local run. Both sessions work on the demo's data and
release at 400 rows (the first start's 2,000 rows made each of the three RAPID runs, the
overview's, the cluster's and the local one, five times the work)."""

import importlib
from pathlib import Path

import pytest
from small_demo import no_cached_evaluations, small_app, turn_off_autorun  # noqa: F401
from streamlit.testing.v1 import AppTest

# the module whose map_unordered RAPID's fit calls
rapid_module = importlib.import_module("privacy_core.risk.rapid.fit")

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def page(name: str) -> AppTest:
    at = small_app(APP, 300)
    at.run()
    at.switch_page(name).run()
    assert not at.exception, at.exception
    return at


def connect(at: AppTest, address: str) -> None:
    next(t for t in at.text_input if t.label == "Ray cluster address").input(address)
    at.button(key="FormSubmitter:compute_form-Connect").click().run()
    assert not at.exception, at.exception


def headline(at: AppTest) -> tuple[str, str]:
    m = next(m for m in at.metric if m.label.startswith("RAPID max"))
    mean = next(m for m in at.metric if m.label.startswith("RAPID (mean"))
    return m.value, mean.value


@pytest.fixture
def no_quick_cards(monkeypatch):
    """No quick cards on the Overview, which this test never reads (each new session's
    first page would otherwise compute them). ``no_cached_evaluations`` (on the test)
    starts it with no cached fits, each RAPID page below having to fit, and puts the
    worker's cached evaluations back afterwards."""
    turn_off_autorun(monkeypatch, rapid=False)


@pytest.mark.usefixtures("no_cached_evaluations")
def test_a_ray_cluster_runs_the_rapid_fits_with_the_local_numbers(no_quick_cards, monkeypatch):
    from privacy_core.parallel import shutdown_ray

    calls = []
    real_map = rapid_module.map_unordered

    def counting(*args, **kwargs):
        calls.append(kwargs.get("backend"))
        return real_map(*args, **kwargs)

    monkeypatch.setattr(rapid_module, "map_unordered", counting)
    with monkeypatch.context() as m:  # the Data page first: nothing to fit yet
        turn_off_autorun(m, quick=False)
        at = page("pages/data.py")
    assert any(h.value == "6. Where the heavy work runs" for h in at.header)
    rows = len(at.session_state["workspace"].real.frame)

    connect(at, "127.0.0.1:1")  # nobody listens there
    assert any("Could not reach the Ray cluster at '127.0.0.1:1'" in e.value for e in at.error)
    assert len(at.session_state["workspace"].real.frame) == rows  # nothing lost
    assert "compute_ray_address" not in at.session_state

    try:
        connect(at, "local")
        assert any("runs on the Ray cluster at `local`" in s.value for s in at.success)
        calls.clear()
        at.switch_page("pages/rapid.py").run()
        assert not at.exception, at.exception
        on_ray = headline(at)
        assert calls and set(calls) == {"ray"}  # the fits (and HALF / SELF) went to Ray
    finally:
        shutdown_ray()
    at.switch_page("pages/data.py").run()
    at.button(key="compute_local").click().run()  # the way back
    assert "compute_ray_address" not in at.session_state
    from ui.cached import _evaluations

    _evaluations.clear()
    calls.clear()
    local = page("pages/rapid.py")  # a new session runs here
    assert set(calls) <= {"local"}
    assert headline(local) == on_ray
