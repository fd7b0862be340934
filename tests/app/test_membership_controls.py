"""Membership prevalence (consensus R4, R5, Figure 3) and GTCAP's attribution option in the
app: the Data page's controls for t, the scenario, h and beta reach the membership card,
and an unset t is named as an arbitrary fallback on both pages."""

from pathlib import Path

import pytest
from small_demo import small_app
from streamlit.testing.v1 import AppTest

from ui.privacy import _options, privacy_params

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def data_page() -> AppTest:
    at = small_app(APP, 300)
    at.run()
    at.switch_page("pages/data.py")
    at.run()
    assert not at.exception, at.exception
    return at


def texts(at: AppTest) -> str:
    return " ".join(
        [w.value for w in at.warning]
        + [c.value for c in at.caption]
        + [m.value for m in at.markdown]
    )


def membership_card(at: AppTest) -> str:
    """The membership card's captions and badges (a badge is markdown)."""
    for block in at.main.children.values():
        for column in getattr(block, "children", {}).values():
            for card in getattr(column, "children", {}).values():
                metrics = card.get("metric") if hasattr(card, "get") else []
                if len(metrics) == 1 and metrics[0].label == "Membership disclosure (F_rel)":
                    return " ".join(
                        [c.value for c in card.get("caption")]
                        + [m.value for m in card.get("markdown")]
                    )
    raise AssertionError("no membership card")


def test_unset_t_is_flagged_as_arbitrary_on_both_pages():
    at = data_page()
    assert "share of the population that is in the training data" in texts(at)
    warning = " ".join(w.value for w in at.warning)
    assert "t is not set" in warning and "arbitrary" in warning
    assert "how the real rows were split" in warning
    at.switch_page("pages/privacy.py")
    at.run()
    assert not at.exception, at.exception
    card = membership_card(at)
    assert "t is a fallback, not a fact" in card and "Scenario A: t = " in card
    assert "arbitrary prevalence" in card  # the badge


def test_membership_controls_reach_the_result():
    at = data_page()
    at.checkbox(key="mem_known").check()
    at.number_input(key="mem_t").set_value(0.05)
    at.radio(key="mem_scenario").set_value("B")
    at.number_input(key="mem_share").set_value(0.2)
    at.number_input(key="mem_h").set_value(1)
    at.number_input(key="mem_beta").set_value(0.5)
    at.button(key="FormSubmitter:membership_form-Apply membership settings").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ws = at.session_state["workspace"]
    assert ws.setting("membership") == {
        "mem_t": 0.05,
        "mem_h": 1,
        "mem_beta": 0.5,
        "mem_scenario": "B",
        "mem_share": 0.2,
    }
    assert not any("t is not set" in w.value for w in at.warning)
    assert "1.00% of the attacker's targets are members" in texts(at)
    opts = _options("membership", privacy_params(ws))
    assert opts == {
        "sampling_fraction": 0.05,
        "h": 1,
        "beta": 0.5,
        "scenario": "B",
        "population_share": 0.2,
    }

    at.switch_page("pages/privacy.py")
    at.run()
    assert not at.exception, at.exception
    card = membership_card(at)
    assert "Scenario B: t = 0.05 × population share 0.2" in card
    assert "h = 1 · β = 0.5" in card and "t is a fallback" not in card
    assert "arbitrary prevalence" not in card


def test_scenario_a_ignores_the_share_and_unticking_restores_the_fallback():
    at = data_page()
    at.checkbox(key="mem_known").check()
    at.number_input(key="mem_t").set_value(0.3)
    at.button(key="FormSubmitter:membership_form-Apply membership settings").click().run()
    ws = at.session_state["workspace"]
    assert ws.setting("membership")["mem_scenario"] == "A"
    assert ws.setting("membership")["mem_share"] is None
    assert "30.00% of the attacker's targets are members" in texts(at)
    at.checkbox(key="mem_known").uncheck()
    at.button(key="FormSubmitter:membership_form-Apply membership settings").click().run()
    assert at.session_state["workspace"].setting("membership")["mem_t"] is None
    assert any("t is not set" in w.value for w in at.warning)


@pytest.mark.parametrize("weighting", ["box_per_record", "triangular"])
def test_gtcap_attribution_option_from_the_settings_form(weighting):
    at = small_app(APP, 300)
    at.run()
    at.switch_page("pages/privacy.py")
    at.run()
    box = next(s for s in at.selectbox if s.label == "GTCAP: attributions")
    assert box.value == "box_pooled"
    assert "mean per synthetic record (eq. 7)" in box.options  # shown formatted
    box.set_value(weighting)
    at.button(key="FormSubmitter:privacy_form-Apply").click().run()
    assert not at.exception and not at.error
    ws = at.session_state["workspace"]
    assert ws.setting("privacy")["gtcap_weighting"] == weighting
    assert _options("gtcap", privacy_params(ws))["weighting"] == weighting
