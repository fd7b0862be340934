"""Risk lab page (AppTest on pages/lab.py; the demo workspace is created by the page)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import ui.lab

TIMEOUT = 240
PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "lab.py")


def start() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    return at


def by_label(elements, prefix: str):
    for e in elements:
        if e.label.startswith(prefix):
            return e
    raise AssertionError(f"no widget labelled {prefix!r} in {[e.label for e in elements]}")


def apply(at: AppTest, model: str) -> None:
    at.button(key=f"FormSubmitter:lab_form_{model}-Apply settings").click().run()
    assert not at.exception, at.exception


def test_default_leaky_sweep_runs_without_clicks():
    at = start()
    assert not at.error
    responses = at.dataframe[0].value
    assert len(responses) == len(ui.lab.LAB_DEFAULTS["leaky"]["measures"])
    ims = responses.set_index("measure").loc["Identical match share"]
    assert ims["at lowest f_l"] == pytest.approx(0.0)
    assert ims["at highest f_l"] == pytest.approx(1.0)
    assert len(at.get("plotly_chart")) >= 3  # responses, small multiples, correlations
    summary = at.dataframe[1].value
    assert {"f_l", "measure", "mean", "ci_low", "ci_high"} <= set(summary.columns)
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["Download summary (CSV)", "Download all rows (CSV)"]
    # a rerun shows the cached sweep: no progress, same numbers
    at.run()
    assert not at.get("status") and at.dataframe[0].value.equals(responses)


def test_settings_errors_are_shown_next_to_the_form():
    at = start()
    by_label(at.multiselect, "Levels of f_l").set_value([])
    apply(at, "leaky")
    assert any("at least one level" in e.value for e in at.error)
    # the previous good settings are kept
    assert "f_l ∈ {0, 0.2, 0.4, 0.6, 0.8, 1}" in " ".join(c.value for c in at.caption)


def test_dp_model_runs_on_click_with_chosen_settings():
    at = start()
    at.segmented_control(key="lab_model").set_value("dp").run()
    assert any("Run sweep" in i.value for i in at.info)  # no autorun outside the default
    by_label(at.multiselect, "Levels of epsilon").set_value([1.0, 100.0])
    by_label(at.multiselect, "Measures").set_value(["ims", "query_error"])
    by_label(at.number_input, "Replicates").set_value(1)
    apply(at, "dp")
    at.button(key="lab_run").click().run()
    assert not at.exception and not at.error
    summary = at.dataframe[1].value
    assert set(summary["epsilon"]) == {1.0, 100.0}
    assert set(summary["measure"]) == {"ims", "query_error"}
    assert not any(t.label == "Training curve" for t in at.tabs)


def test_overfit_model_shows_the_training_curve():
    at = start()
    at.segmented_control(key="lab_model").set_value("overfit").run()
    by_label(at.multiselect, "Levels of f_o").set_value([1.0, 1.5])
    by_label(at.multiselect, "Measures").set_value(["ims", "dcr"])
    by_label(at.number_input, "Use at most").set_value(1500)
    apply(at, "overfit")
    at.button(key="lab_run").click().run()
    assert not at.exception and not at.error
    assert any(t.label == "Training curve" for t in at.tabs)
    assert any("best validation loss L*" in m.value for m in at.markdown)


def test_stop_keeps_the_finished_rows(monkeypatch):
    """Pressing Stop sets the session flag; the sweep ends after the current task.

    AppTest cannot click while a script runs, so the click is simulated where it lands:
    the page runs in this process, and the patched sweep calls the Stop button's
    ``on_click`` after the first finished task.
    """
    real_sweep = ui.lab.sweep

    def clicked_stop_after_first_task(*args, on_rows, **kwargs):
        def rows_then_click(batch):
            on_rows(batch)
            ui.lab.request_stop()  # what the Stop button's on_click does

        return real_sweep(*args, on_rows=rows_then_click, **kwargs)

    monkeypatch.setattr(ui.lab, "sweep", clicked_stop_after_first_task)
    at = start()
    by_label(at.number_input, "Seed").set_value(7)  # settings not computed before
    apply(at, "leaky")
    at.button(key="lab_run").click().run()
    assert not at.exception and not at.error
    warnings = " ".join(w.value for w in at.warning)
    assert "Stopped after" in warnings and "partial" in warnings
    assert at.session_state[ui.lab.STOP_FLAG] is True
    # the partial result is shown, and Run is offered again
    assert len(at.dataframe) >= 1
    assert not at.button(key="lab_run").disabled
