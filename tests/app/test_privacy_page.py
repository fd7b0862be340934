"""AppTest for the Privacy metrics page: cards, live alpha, drill-down, agreement, errors."""

from pathlib import Path

import pytest
from small_demo import small_app
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def start() -> AppTest:
    at = small_app(APP, 300)
    at.run()
    at.switch_page("pages/privacy.py")
    at.run()
    assert not at.exception, at.exception
    return at


def metric(at: AppTest, label: str) -> float:
    return float(next(m for m in at.metric if m.label == label).value)


def test_cards_drill_down_and_agreement():
    at = start()
    labels = {m.label for m in at.metric}
    for expected in (
        "Identical match share",
        "DCR (SRD vs RRD)",
        "Singling out",
        "Linkability",
        "Distance-based inference",
        "ML inference",
        "Membership disclosure (F_rel)",
        "Reproduced rare combinations",
        "Individual risk reproduced",
        "Sample uniques reproduced",
        "k-anonymity violations singled out",
        "Sensitive values pinned (l-diversity)",
    ):
        assert expected in labels
    assert not at.error
    captions = " ".join(c.value for c in at.caption)
    assert "Indicator (not a disclosure measure)" in captions and "95% CI" in captions
    # sdcMicro's counts of the real table, the release and the holdout under the new cards
    sdc = [e for e in at.expander if e.label == "sdcMicro's counts on the quasi-identifiers"]
    assert len(sdc) == 5  # the five sdcMicro measures' cards
    table = sdc[0].dataframe[0].value.set_index("count")
    assert list(table.columns) == ["real", "release", "holdout"]
    assert (table.loc["sample uniques"] <= table.loc["records"]).all()
    assert "global risk" in " ".join(c.value for c in sdc[0].caption)
    # the drill-down lists flagged records and compares the chosen one with the release
    record_box = at.selectbox(key="privacy_record")
    assert len(record_box.options) > 1
    record_box.set_value(record_box.options[1]).run()
    assert not at.exception
    assert any(m.value.startswith("**Flagged by:**") for m in at.markdown)
    assert any(s.value == "Agreement between measures" for s in at.subheader)


def test_alpha_slider_reaggregates_dcr_only():
    at = start()
    before = metric(at, "DCR (SRD vs RRD)")
    ims = metric(at, "Identical match share")
    at.slider(key="privacy_alpha").set_value(10.0).run()
    assert not at.exception
    assert metric(at, "DCR (SRD vs RRD)") != before
    assert metric(at, "Identical match share") == ims


def test_overlapping_linkability_columns_are_refused():
    at = start()
    form_selects = [m for m in at.multiselect if m.label.startswith("Linkability")]
    form_selects[0].set_value(["age", "education"])
    form_selects[1].set_value(["age"])
    at.button(key="FormSubmitter:privacy_form-Apply").click().run()
    assert not at.exception
    assert any("disjoint" in e.value for e in at.error)
    assert at.session_state["workspace"].setting("privacy") is None


def test_univariate_singling_out_from_the_settings_form():
    at = start()
    captions = " ".join(c.value for c in at.caption)
    assert "multivariate, 3 columns, " in captions
    multivariate = metric(at, "Singling out")
    mode = next(s for s in at.selectbox if s.label == "Singling out: predicates")
    mode.set_value("univariate")
    at.button(key="FormSubmitter:privacy_form-Apply").click().run()
    assert not at.exception and not at.error
    assert at.session_state["workspace"].setting("privacy")["so_mode"] == "univariate"
    captions = " ".join(c.value for c in at.caption)
    assert "univariate, one column, " in captions
    # computed anew, not read from the multivariate cache; CART draws continuous values from
    # training rows, so a value seen once in the release often isolates its training owner
    assert metric(at, "Singling out") > multivariate + 0.2


def test_paper_protocol_from_the_settings_form():
    """The headline says which configuration the maximum came from, and every
    configuration's value is listed."""
    at = start()
    mode = next(s for s in at.selectbox if s.label == "Singling out: predicates")
    mode.set_value("paper")
    at.button(key="FormSubmitter:privacy_form-Apply").click().run()
    assert not at.exception and not at.error
    captions = " ".join(c.value for c in at.caption)
    assert "paper protocol: max over univariate and 3–" in captions
    table = next(e for e in at.expander if e.label.startswith("Every configuration"))
    frame = table.dataframe[0].value
    assert frame["configuration"].iloc[0] == "univariate" and len(frame) >= 2
    reported = frame[frame["reported"]]
    assert len(reported) == 1
    # the headline is the highest configuration's risk
    assert metric(at, "Singling out") == pytest.approx(frame["risk"].max(), abs=1e-3)
    assert reported["configuration"].iloc[0] in captions


def test_stored_predicate_width_is_clamped_after_columns_are_excluded():
    from dataclasses import replace

    at = start()
    ws = at.session_state["workspace"]
    stored = ws.with_settings(
        privacy={"so_mode": "multivariate", "so_cols": len(ws.schema.included)}
    )
    # a later type change on the data page excludes a column
    at.session_state["workspace"] = replace(stored, overrides=(("income", "exclude"),))
    at.run()
    assert not at.exception, at.exception
    width = next(n for n in at.number_input if n.label.startswith("Singling out: columns"))
    assert width.value == len(at.session_state["workspace"].schema.included)
