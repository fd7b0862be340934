"""Learn page (AppTest): every scenario renders, steps move, Reset restores the defaults.

The page runs at the quick size (``ui.learn.SIZE``): the same code path on small data.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from small_demo import no_autorun  # noqa: F401 (a fixture)
from streamlit.testing.v1 import AppTest

import ui.learn

TIMEOUT = 240
ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "learn.py")


def start(scenario: str | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.session_state[ui.learn.SIZE] = "quick"
    at.run()
    assert not at.exception, at.exception
    if scenario:
        at.segmented_control(key=ui.learn.PICKER).set_value(scenario).run()
        assert not at.exception, at.exception
    return at


def step_text(at: AppTest) -> str:
    return at.get("progress")[0].proto.text


def clean(at: AppTest) -> None:
    """Must not happen: an exception or an error box."""
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def shown(at: AppTest) -> int:
    """Charts, tables and metric cards on screen."""
    return len(at.get("plotly_chart")) + len(at.dataframe) + len(at.metric)


@pytest.mark.usefixtures("no_autorun")  # the demo's review is not what this reads
def test_learn_is_in_the_review_group_of_the_navigation():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.session_state[ui.learn.SIZE] = "quick"
    at.run()
    loaded = at.session_state["workspace"]
    at.switch_page("pages/learn.py").run()
    clean(at)
    assert at.title[0].value.startswith("Learn")
    assert step_text(at).startswith("Step 1 of 3: Turn the dependency knob")
    at.button(key="learn_next_dependency").click().run()
    clean(at)
    assert at.get("plotly_chart")
    # the scenarios use their own simulated data: the loaded (demo) workspace is untouched
    assert at.session_state["workspace"] is loaded


@pytest.mark.parametrize("scenario", list(ui.learn.SCENARIO_LABELS))
def test_every_step_of_every_scenario_renders(scenario):
    at = start(scenario)
    steps = ui.learn.STEPS[scenario]
    for i, step in enumerate(steps):
        clean(at)
        assert step_text(at) == f"Step {i + 1} of {len(steps)}: {step.title}"
        assert any(step.text == box.value for box in at.info)  # its one explanation
        assert shown(at) >= 1, f"step {i + 1} of {scenario} shows no result"
        if i < len(steps) - 1:
            at.button(key=f"learn_next_{scenario}").click().run()
    assert at.button(key=f"learn_next_{scenario}").disabled  # the last step


def test_next_and_back_move_one_step():
    at = start("leaky")
    assert at.button(key="learn_back_leaky").disabled
    at.button(key="learn_next_leaky").click().run()
    clean(at)
    assert step_text(at).startswith("Step 2 of 3")
    assert list(at.multiselect(key="learn_leaky_measures").value) == list(
        ui.learn.DEFAULTS["leaky"]["measures"]
    )
    at.button(key="learn_back_leaky").click().run()
    assert step_text(at).startswith("Step 1 of 3") and not at.exception


def test_reset_restores_the_defaults_and_the_first_step():
    at = start()
    at.button(key="learn_next_dependency").click().run()
    at_defaults = [m.value for m in at.metric]  # RAPID and accuracy at κ = 2, τ = 0.3
    at.button(key="learn_back_dependency").click().run()
    at.slider(key="learn_dependency_kappa").set_value(7.5).run()
    clean(at)
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert figure["layout"]["title"]["text"] == "Simulated population at κ = 7.5"
    at.button(key="learn_next_dependency").click().run()
    at.select_slider(key="learn_dependency_tau").set_value(0.6).run()
    assert [m.value for m in at.metric] != at_defaults
    at.button(key="learn_reset_dependency").click().run()
    clean(at)
    assert step_text(at).startswith("Step 1 of 3")
    assert at.slider(key="learn_dependency_kappa").value == ui.learn.DEFAULTS["dependency"]["kappa"]
    assert at.session_state[ui.learn.SETTINGS]["dependency"] == ui.learn.DEFAULTS["dependency"]
    # the defaults and the fixed seed give the numbers of the first visit again
    at.button(key="learn_next_dependency").click().run()
    assert at.select_slider(key="learn_dependency_tau").value == 0.3
    assert [m.value for m in at.metric] == at_defaults


def test_choices_survive_a_scenario_switch():
    at = start("similarity")
    at.select_slider(key="learn_similarity_min_leaf").set_value(20).run()
    at.segmented_control(key=ui.learn.PICKER).set_value("privacy_price").run()
    clean(at)
    at.segmented_control(key=ui.learn.PICKER).set_value("similarity").run()
    clean(at)
    assert at.select_slider(key="learn_similarity_min_leaf").value == 20
