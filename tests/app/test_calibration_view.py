"""The Risk lab's Calibration view and its reading on the Privacy and Review pages (AppTest
through app.py's navigation, on the demo workspace)."""

from __future__ import annotations

from pathlib import Path

import pytest
from small_demo import small_app
from streamlit.testing.v1 import AppTest

import ui.calibration

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SMALL = {
    "measures": ["ims", "singling_out", "linkability"],
    "levels": [0.0, 1.0],
    "ratios": [1.0, 2.0],
    "max_training": 200,
}


def start(page: str) -> AppTest:
    at = small_app(APP, 300)
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    return at


def by_label(elements, prefix: str):
    for e in elements:
        if e.label.startswith(prefix):
            return e
    raise AssertionError(f"no widget labelled {prefix!r} in {[e.label for e in elements]}")


def open_calibration_view() -> AppTest:
    at = start("pages/lab.py")
    at.segmented_control(key="lab_model").set_value("calibration").run()
    assert not at.exception, at.exception
    return at


def apply_small(at: AppTest, seed: int = 0) -> None:
    by_label(at.multiselect, "Measures").set_value(SMALL["measures"])
    by_label(at.multiselect, "Leak fractions").set_value(SMALL["levels"])
    by_label(at.multiselect, "Training:holdout").set_value(SMALL["ratios"])
    by_label(at.number_input, "Use at most").set_value(SMALL["max_training"])
    at.number_input(key="cal_seed_input").set_value(seed)
    at.button(key="FormSubmitter:cal_form-Apply settings").click().run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])


def cards(at: AppTest) -> dict[str, list[str]]:
    """Each measure card's texts (captions and badges), by the card's metric label."""
    out = {}
    for block in at.main.children.values():
        for column in getattr(block, "children", {}).values():
            for card in getattr(column, "children", {}).values():
                metrics = card.get("metric") if hasattr(card, "get") else []
                if len(metrics) == 1:
                    texts = [c.value for c in card.get("caption")]
                    texts += [m.value for m in card.get("markdown")]
                    out[metrics[0].label] = texts
    return out


def test_privacy_page_links_to_the_calibration_view_when_none_ran():
    at = start("pages/privacy.py")
    captions = " ".join(c.value for c in at.caption)
    assert "Calibrate the measures in the Risk lab" in captions
    assert "On a full copy of your data" not in captions
    at.button(key="privacy_open_calibration").click().run()
    assert not at.exception, at.exception
    # the button lands on the Calibration view, which never starts on its own
    assert at.session_state["lab_model"] == "calibration"
    assert any("Run calibration" in i.value for i in at.info)
    assert not at.get("status")
    assert at.button(key="cal_stop_idle").disabled


def test_small_calibration_then_the_privacy_and_review_pages_read_it():
    at = open_calibration_view()
    assert any("Run calibration" in i.value for i in at.info)
    assert not at.get("plotly_chart")
    apply_small(at)
    assert "f_l ∈ {0, 1} · ratios 1:1, 2:1 · 3 measure(s)" in " ".join(c.value for c in at.caption)
    at.button(key="cal_run").click().run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])

    table = at.dataframe[0].value
    assert list(table["measure"]) == [
        "Identical match share",
        "Singling out (univariate)",
        "Singling out (multivariate)",
        "Singling out (paper)",
        "Singling out (contrastive)",
        "Linkability",
        "Linkability (contrastive)",
    ]
    assert set(table["status"]) <= {"✓ pass", "✗ uncalibrated on this data"}
    ims = table.set_index("measure").loc["Identical match share"]
    assert ims["status"] == "✓ pass" and ims["ceiling"] == pytest.approx(1.0)
    failed = table[table["status"].str.startswith("✗")]
    assert (failed["reasons"].str.len() > 0).all()
    for row in failed.itertuples():  # a visible badge and the reason, never a bare number
        assert any(
            "uncalibrated on this data" in m.value and row.measure in m.value for m in at.markdown
        )
    (figure,) = at.get("plotly_chart")
    assert figure.proto.spec  # the small multiples were sent
    assert at.button(key="cal_stop_idle").disabled  # Stop looks inactive once done

    # ---------------------------------------------------------------- Privacy page
    at.switch_page("pages/privacy.py")
    at.run()
    assert not at.exception, at.exception
    by_card = cards(at)
    result = ui.calibration.latest_calibration(at.session_state["workspace"])
    assert result is not None
    ims_texts = " ".join(by_card["Identical match share"])
    assert (
        "On a full copy of your data this measure reads 1.00; on unseen real rows 0.00" in ims_texts
    )
    assert (
        "of the way from unseen rows to a full copy" in ims_texts
        or "at or below" in ims_texts
        or "at or above" in ims_texts
    )
    # the singling-out card reads the summary of the mode the page uses (multivariate)
    multi = result.summary("singling_out", "multivariate")
    so_texts = " ".join(by_card["Singling out"])
    assert f"reads {multi.ceiling:.2f}; on unseen real rows {multi.floor:.2f}" in so_texts
    for label, texts in by_card.items():
        key = {
            "Identical match share": "ims",
            "Singling out": "singling_out:multivariate",
            "Linkability": "linkability",
        }.get(label)
        if key is None:  # a measure the small run did not calibrate: no line
            assert not any("On a full copy" in t for t in texts), label
            continue
        summary = next(s for s in result.summaries if s.key == key)
        badge = any("uncalibrated on this data" in t for t in texts)
        assert badge == (not summary.passed), (label, texts)
        if badge:
            assert any(t.startswith("**Why:**") and summary.reasons[0] in t for t in texts)

    # ---------------------------------------------------------------- Review page
    at.switch_page("pages/report.py")
    at.run()
    assert not at.exception, at.exception
    assert any(s.value == "Calibration of the measures on this data" for s in at.subheader)


def test_stop_keeps_the_finished_values(monkeypatch):
    """Stop during a calibration keeps the finished rows; unfinished measures read as
    incomplete (the click is simulated where it lands, as in the lab's sweep test)."""
    real_calibrate = ui.calibration.calibrate

    def clicked_stop_after_first_cell(*args, on_rows, **kwargs):
        def rows_then_click(batch):
            on_rows(batch)
            ui.calibration.request_stop()  # what the Stop button's on_click does

        return real_calibrate(*args, on_rows=rows_then_click, **kwargs)

    monkeypatch.setattr(ui.calibration, "calibrate", clicked_stop_after_first_cell)
    at = open_calibration_view()
    apply_small(at, seed=11)  # settings not computed before
    at.button(key="cal_run").click().run()
    assert not at.exception and not at.error
    warnings = " ".join(w.value for w in at.warning)
    assert "Stopped after" in warnings and "partial" in warnings
    table = at.dataframe[0].value
    assert len(table) >= 1
    assert table["status"].str.startswith("…").any()
    assert not at.button(key="cal_run").disabled  # Run is offered again
