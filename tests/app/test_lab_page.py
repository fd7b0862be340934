"""Risk lab page (AppTest on pages/lab.py), on the demo's data and release at 400 rows (the
demo workspace the page would create has 2,000: every sweep's releases and measures on a
fifth of the rows)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from small_demo import small_app
from streamlit.testing.v1 import AppTest

import ui.lab

TIMEOUT = 240
PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "lab.py")


def start() -> AppTest:
    at = small_app(PAGE, TIMEOUT)
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


def chart(at: AppTest, key: str) -> dict:
    for c in at.get("plotly_chart"):
        if c.proto.id.endswith(key):
            return json.loads(c.proto.spec)
    raise AssertionError(f"no chart {key!r}")


def stop_buttons(at: AppTest) -> list:
    return [b for b in at.button if str(b.key).startswith("lab_stop")]


def legend_names(figure: dict) -> list[str]:
    return [t["name"] for t in figure["data"] if t.get("mode") == "lines+markers"]


def test_first_visit_runs_nothing_and_offers_the_run_button():
    at = start()
    assert not at.error
    assert not at.get("status") and not at.get("plotly_chart") and not at.dataframe
    assert any("Run the sweep" in i.value for i in at.info)
    run = at.button(key="lab_run")
    assert run.label == "Run the sweep" and not run.disabled
    # the estimate is shown before anything runs, and nothing can be stopped
    assert any("Estimated time" in c.value for c in at.caption)
    assert any(m.value.startswith("**Setup**") for m in at.markdown)
    assert all(b.disabled for b in stop_buttons(at))
    plan = ui.lab.sweep_plan(at.session_state["workspace"], "leaky", ui.lab.LAB_DEFAULTS["leaky"])
    assert plan["releases"] == 12 and 0 < plan["seconds"] < 120
    at.run()  # a rerun does not start it either
    assert not at.get("status") and not at.dataframe


def test_run_button_runs_the_default_leaky_sweep():
    at = start()
    at.button(key="lab_run").click().run()
    assert not at.exception and not at.error
    assert all(b.disabled for b in stop_buttons(at))  # idle again: Stop inactive
    # already computed for these settings: Run is inactive at once, and after a rerun
    assert all(b.disabled for b in at.button if str(b.key).startswith("lab_run"))
    responses = at.dataframe[0].value
    assert len(responses) == len(ui.lab.LAB_DEFAULTS["leaky"]["measures"])
    ims = responses.set_index("measure").loc["Identical match share"]
    assert ims["at lowest f_l"] == pytest.approx(0.0)
    assert ims["at highest f_l"] == pytest.approx(1.0)
    assert len(at.get("plotly_chart")) >= 3  # responses, small multiples, correlations
    assert sorted(legend_names(chart(at, "lab_responses"))) == sorted(responses["measure"])
    summary = at.dataframe[1].value
    assert {"f_l", "group", "measure", "mean", "ci_low", "ci_high"} <= set(summary.columns)
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["Download summary (CSV)", "Download all rows (CSV)"]
    # a rerun shows the cached sweep: no progress, same numbers
    at.run()
    assert not at.get("status") and at.dataframe[0].value.equals(responses)
    assert at.button(key="lab_run").disabled and not stop_buttons(at)


def test_tables_use_the_legend_labels_with_canaries_and_utility():
    at = start()
    by_label(at.multiselect, "Levels of f_l").set_value([0.0, 1.0])
    by_label(at.multiselect, "Measures").set_value(["ims", "inference", "query_error"])
    by_label(at.number_input, "Replicates").set_value(1)
    by_label(at.number_input, "Canary records").set_value(50)
    apply(at, "leaky")
    at.button(key="lab_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    figure = chart(at, "lab_responses")
    legend = legend_names(figure)
    table = at.dataframe[0].value
    assert list(table["measure"]) == legend  # same labels, same (panel) order
    assert "Distance-based inference (canary records)" in legend
    summary = at.dataframe[1].value
    assert set(summary["measure"]) == set(legend) and "key" not in summary.columns
    for frame in (table, summary):
        assert not frame["measure"].str.contains("@").any()
    # utility has its own panel, not titled as risk; the gap to f_l is not shown for it
    titles = {a["text"] for a in figure["layout"]["annotations"]}
    assert {"Attribute inference", "Similarity indicators", "Utility & fidelity"} <= titles
    row = table.set_index("measure").loc["Query error"]
    assert row["group"] == "Utility & fidelity" and row.isna()["max |value − f_l|"]


def test_settings_errors_are_shown_next_to_the_form():
    at = start()
    by_label(at.multiselect, "Levels of f_l").set_value([])
    apply(at, "leaky")
    assert any("at least one level" in e.value for e in at.error)
    # the previous good settings are kept
    assert "f_l ∈ {0, 0.2, 0.4, 0.6, 0.8, 1}" in " ".join(m.value for m in at.markdown)


def test_dp_model_runs_on_click_with_chosen_settings():
    at = start()
    at.segmented_control(key="lab_model").set_value("dp").run()
    assert any("Run the sweep" in i.value for i in at.info) and not at.dataframe
    by_label(at.multiselect, "Levels of epsilon").set_value([1.0, 100.0])
    by_label(at.multiselect, "Measures").set_value(["ims", "query_error"])
    by_label(at.number_input, "Replicates").set_value(1)
    apply(at, "dp")
    at.button(key="lab_run").click().run()
    assert not at.exception and not at.error
    summary = at.dataframe[1].value
    assert set(summary["epsilon"]) == {1.0, 100.0}
    assert set(summary["measure"]) == {"Identical match share", "Query error"}
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
    # the partial result is shown, Run is offered again and Stop is inactive
    assert len(at.dataframe) >= 1
    assert not at.button(key="lab_run").disabled
    assert all(b.disabled for b in stop_buttons(at))


def test_distance_space_both_sweeps_each_distance_measure_in_both_spaces():
    """The lab's "Distance space" choice (issue 10): "both" runs each measure that has a
    contrastive mode twice, as separate lines; a measure without one runs once; the
    form shows the choice again after Apply."""
    at = start()
    by_label(at.multiselect, "Levels of f_l").set_value([0.0, 1.0])
    by_label(at.multiselect, "Measures").set_value(["ims", "dcr"])
    by_label(at.number_input, "Replicates").set_value(1)
    by_label(at.selectbox, "Distance space").set_value("both")
    apply(at, "leaky")
    assert by_label(at.selectbox, "Distance space").value == "both"
    assert by_label(at.multiselect, "Measures").value == ["ims", "dcr"]
    at.button(key="lab_run").click().run()
    assert not at.exception and not at.error
    responses = at.dataframe[0].value.set_index("measure")
    assert set(responses.index) == {
        "Identical match share",
        "DCR (SRD vs RRD)",
        "DCR (SRD vs RRD) (contrastive)",
    }
    for m in ("DCR (SRD vs RRD)", "DCR (SRD vs RRD) (contrastive)"):
        assert responses.loc[m, "at highest f_l"] > responses.loc[m, "at lowest f_l"] + 0.5


def test_space_keys_round_trip():
    assert ui.lab.with_space(["ims", "dcr", "singling_out"], "contrastive") == (
        "ims",
        "dcr:contrastive",
        "singling_out:contrastive",
    )
    assert ui.lab.with_space(["dcr"], "both") == ("dcr", "dcr:contrastive")
    assert ui.lab.with_space(["dcr:contrastive", "ims"], "shared") == ("dcr", "ims")
    for space in ui.lab.LAB_SPACES:
        keys = ui.lab.with_space(["ims", "dcr", "inference"], space)
        assert ui.lab.space_of(keys) == (["ims", "dcr", "inference"], space)
