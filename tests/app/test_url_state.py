"""Settings in the address (issue 13, item 9): a reload or a shared link restores them."""

from pathlib import Path

import pytest
from small_demo import no_autorun  # noqa: F401 (a fixture)
from streamlit.testing.v1 import AppTest

TIMEOUT = 240
APP = str(Path(__file__).resolve().parents[2] / "app.py")


def opened_with(**params: str) -> AppTest:
    """A new session (as after F5 or a shared link) opened on an address with ``params``."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def address(at: AppTest) -> dict[str, str]:
    return {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}


@pytest.mark.usefixtures("no_autorun")
def test_the_address_describes_the_review_and_a_new_session_restores_it():
    first = opened_with()
    url = address(first)
    assert url["data"] == "health" and url["n"] == "2000" and url["s"] == "disease"
    assert url["qi"].split(",") == list(first.session_state["workspace"].quasi_identifiers)

    # a shared link to another size, seed, κ and threat model
    # (the smallest offered size: every session opened on it computes its review)
    at = opened_with(data="health", n="500", kappa="5.0", seed="3", qi="age,gender", s="disease")
    ws = at.session_state["workspace"]
    assert dict(ws.dataset_params) == {"kappa": 5.0, "n": 500, "seed": 3}
    assert len(ws.real.frame) == 500
    assert ws.quasi_identifiers == ("age", "gender") and ws.sensitive == ("disease",)
    assert not at.warning


def test_a_page_setting_comes_back_from_the_address_and_bad_values_are_ignored():
    at = opened_with(rapid_tau_marginal="0.45")
    at.switch_page("pages/rapid.py")
    at.run()
    assert not at.exception, at.exception
    tau = [s for s in at.slider if s.key == "rapid_tau_marginal"]
    assert tau and tau[0].value == 0.45

    # out of the slider's range, or not a number: the widget keeps its default
    for bad in ("7", "abc"):
        at = opened_with(rapid_tau_marginal=bad)
        at.switch_page("pages/rapid.py")
        at.run()
        assert not at.exception, at.exception
        tau = [s for s in at.slider if s.key == "rapid_tau_marginal"]
        assert tau[0].value == 0.3


def test_moving_a_setting_writes_it_to_the_address():
    at = opened_with()
    at.switch_page("pages/rapid.py")
    at.run()
    tau = [s for s in at.slider if s.key == "rapid_tau_marginal"][0]
    tau.set_value(0.52).run()
    assert not at.exception, at.exception
    assert address(at)["rapid_tau_marginal"] == "0.52"


@pytest.mark.usefixtures("no_autorun")
def test_a_link_made_on_uploaded_files_says_they_are_gone_and_shows_the_demo():
    at = opened_with(data="upload", qi="a,b", s="c")
    assert any("never stored" in w.value for w in at.warning)
    ws = at.session_state["workspace"]
    assert ws.dataset == "health"  # the demo, with its own threat model
    assert ws.sensitive == ("disease",)


@pytest.mark.usefixtures("no_autorun")
def test_a_threat_model_naming_unknown_columns_is_refused_with_a_reason():
    at = opened_with(data="health", n="500", kappa="1.0", seed="0", qi="nope,age", s="disease")
    ws = at.session_state["workspace"]
    assert len(ws.real.frame) == 500
    assert "nope" not in ws.quasi_identifiers
    assert any("names columns this table does not have" in w.value for w in at.warning)


@pytest.mark.usefixtures("no_autorun")
def test_dataset_settings_outside_the_offered_ones_fall_back_to_the_demo():
    at = opened_with(data="health", n="123", kappa="1.0", seed="0")
    assert len(at.session_state["workspace"].real.frame) == 2000
    assert any("not offered" in w.value for w in at.warning)


@pytest.mark.usefixtures("no_autorun")
def test_the_sampling_weight_column_round_trips_through_the_address():
    """Issue 34. Wrong versions caught: the column left out of the address (a reload
    loses it), a stale ``w`` kept after the column is taken off, an address naming a
    column that is not a sampling weight accepted."""
    at = opened_with(data="health", n="500", kappa="1.0", seed="0", qi="age,gender",
                     s="disease", w="health")  # fmt: skip
    ws = at.session_state["workspace"]
    assert ws.weights == "health" and ws.threat.weights == "health"
    assert ws.quasi_identifiers == ("age", "gender") and not at.warning
    url = address(at)
    assert url["w"] == "health"
    # the same address in a new session (F5, a shared link) gives the same workspace
    again = opened_with(**url)
    assert again.session_state["workspace"].key == ws.key

    # taken off on the data page: the address forgets it
    at.switch_page("pages/data.py")
    at.run()
    box = next(s for s in at.selectbox if s.label == "Sampling-weight column (optional)")
    box.select_index(0)  # "none"
    at.button(key="FormSubmitter:threat_form-Apply threat model").click().run()
    assert not at.exception, at.exception
    assert at.session_state["workspace"].weights is None
    at.switch_page("app.py")
    at.run()
    assert "w" not in address(at)

    # text is not a sampling weight: the dataset's own threat model, with the reason
    bad = opened_with(data="health", n="500", kappa="1.0", seed="0", qi="age", s="disease",
                      w="education")  # fmt: skip
    assert bad.session_state["workspace"].weights is None
    assert any("must hold sampling weights" in w.value for w in bad.warning)
