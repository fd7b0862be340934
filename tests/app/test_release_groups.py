"""AppTest for issue 13, items 2 and 3: release groups.

Item 2: adding a release from the map keeps every result already computed for the loaded
release (RAPID, fidelity, privacy measures) and says what the new one still needs.
Item 3: two different candidates are shown side by side on Review & report, never as one
value averaged over both; replicates of one generator stay one candidate (R10).
"""

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from small_demo import small_app, small_workspace
from streamlit.testing.v1 import AppTest

import privacy_core as pc
from ui.workspace import Table

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 400


def start(page: str) -> AppTest:
    at = small_app(APP, TIMEOUT)
    at.run()
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def goto(at: AppTest, page: str) -> AppTest:
    at.switch_page(page).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def review_table(at: AppTest) -> pd.DataFrame:
    """The side-by-side table of the Review page, indexed by measure."""
    frame = next(
        d.value
        for d in at.dataframe
        if "measure" in d.value.columns and "better" in d.value.columns
    )
    return frame.set_index("measure")


def workspace(at: AppTest):
    return at.session_state["workspace"]


def test_adding_a_release_from_the_map_keeps_results_and_shows_two_candidates():
    at = start("pages/privacy.py")
    # RAPID ran on the overview (first start); now a privacy measure and the fidelity page
    at.multiselect(key="privacy_fast").set_value(["ims", "gtcap"]).run()
    slow = next(b for b in at.button if b.label.startswith("Run slower measures"))
    slow.click().run()
    assert not at.exception
    goto(at, "pages/fidelity.py")
    goto(at, "pages/report.py")
    before = review_table(at)
    (demo,) = [c for c in before.columns if c not in ("better",)]
    for measure in ("RAPID attribute inference", "GTCAP", "Wasserstein distance"):
        assert measure in before.index, list(before.index)
        assert before.loc[measure, demo] != "not computed"

    # the map: pick a generated candidate and add it (the button's own callback)
    goto(at, "pages/map.py")
    options = at.selectbox(key="map_selected").options
    cart = next(o for o in options if "CART leaf 20" in o)
    at.selectbox(key="map_selected").set_value(cart).run()
    at.button(key="map_add_btn").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ws = workspace(at)
    assert len(ws.releases) == 2 and len(ws.release_groups()) == 2
    notice = " ".join(s.value for s in at.success)
    assert "candidate of its own" in notice and "kept" in notice

    # Review & report: the old results are still there, the new candidate beside them
    goto(at, "pages/report.py")
    assert not any("Nothing computed yet" in i.value for i in at.info)
    after = review_table(at)
    new = next(c for c in after.columns if "CART leaf 20" in c)
    assert after.loc[before.index, demo].tolist() == before[demo].tolist()
    assert (after[new] == "not computed").all()
    warning = " ".join(w.value for w in at.warning)
    assert "CART leaf 20" in warning and "not computed yet" in warning

    # computing them fills the new column; each candidate keeps its own values
    next(b for b in at.button if b.label.startswith("Compute for CART leaf 20")).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    done = review_table(at)
    assert not (done[new] == "not computed").any(), done[new].to_dict()
    assert done.loc[before.index, demo].tolist() == before[demo].tolist()
    assert done.loc["RAPID attribute inference", new] != done.loc["RAPID attribute inference", demo]
    # nothing averaged across candidates: no "replicates" reading in either column
    assert not done.map(lambda v: "replicates" in str(v)).any().any()


def test_replicates_generated_together_are_one_candidate_and_can_be_regrouped():
    at = start("pages/data.py")
    at.selectbox[0].set_value("histogram")
    at.number_input[3].set_value(2)  # replicates
    at.button(key="FormSubmitter:generate_form-Generate").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    groups = workspace(at).release_groups()
    assert list(groups) == ["CART release (seed 0)", "HISTOGRAM"]
    assert [t.name for t in groups["HISTOGRAM"]] == ["HISTOGRAM (seed 1)", "HISTOGRAM (seed 2)"]

    # Review: the replicates are averaged (mean ± sd over 2), the demo release beside them
    goto(at, "pages/report.py")
    at.button(key="report_compute_0").click().run()  # RAPID for the histogram group
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = review_table(at)
    hist = next(c for c in table.columns if c.startswith("HISTOGRAM"))
    assert hist == "HISTOGRAM (2 replicates)"
    cell = table.loc["RAPID attribute inference", hist]
    assert cell.startswith("mean ") and "sd over 2 replicates" in cell
    assert "replicates" not in table.loc["RAPID attribute inference", "CART release (seed 0)"]

    # the group-name control: one histogram release joins the demo's group
    goto(at, "pages/data.py")
    boxes = [t for t in at.text_input if t.key.startswith("group_")]
    assert [b.value for b in boxes] == ["CART release (seed 0)", "HISTOGRAM", "HISTOGRAM"]
    boxes[2].set_value("CART release (seed 0)")
    at.button(key="FormSubmitter:groups_form-Apply groups").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    groups = workspace(at).release_groups()
    assert [len(v) for v in groups.values()] == [2, 1]
    # a blank name makes the release its own candidate again
    boxes = [t for t in at.text_input if t.key.startswith("group_")]
    boxes[2].set_value("")
    at.button(key="FormSubmitter:groups_form-Apply groups").click().run()
    assert list(workspace(at).release_groups()) == [
        "CART release (seed 0)",
        "HISTOGRAM",
        "HISTOGRAM (seed 2)",
    ]


def test_cache_keys_follow_a_candidates_releases_not_its_neighbours_or_name():
    ws = small_workspace()
    (demo,) = ws.releases
    other = Table.make(
        "HISTOGRAM (seed 1)", ws.real.frame.sample(frac=1.0, random_state=1), "generated"
    )
    added = replace(ws, releases=(demo, other))
    assert added.key != ws.key  # a pooled key would change: the old results would be lost
    assert added.group_view(demo.name).key == ws.key  # the candidate's key does not
    assert list(added.candidate_views()) == [demo.name, other.name]
    # renaming or joining groups changes the grouping, never the content keys
    joined = added.with_groups(["CART", "CART"])
    assert list(joined.release_groups()) == ["CART"] and joined.key == added.key
    assert joined.group_view("CART").key == added.key
    alone = joined.with_groups(["", " "])
    assert list(alone.release_groups()) == [demo.name, other.name]
    with pytest.raises(pc.ParameterError, match="one group name per release"):
        added.with_groups(["x"])
    with pytest.raises(pc.ParameterError, match="No release group"):
        added.group_view("nope")


def two_candidates() -> AppTest:
    """The demo plus a second candidate (a HISTOGRAM release: far less risky than CART)."""
    at = small_app(APP, TIMEOUT)
    at.run()
    ws = workspace(at)
    real_c = pc.prepare_table(ws.real.frame, ws.schema)
    hist = pc.synthesize(real_c, method="histogram", seed=1)
    other = Table.make("HISTOGRAM release", hist, "generated", group="HISTOGRAM")
    at.session_state["workspace"] = replace(ws, releases=ws.releases + (other,))
    at.run()
    return at


def test_analysis_pages_evaluate_one_candidate_at_a_time_and_list_them_side_by_side():
    at = two_candidates()
    full = workspace(at)
    goto(at, "pages/rapid.py")
    picker = at.radio(key="candidate")
    assert picker.options == list(full.release_groups())
    first = next(m for m in at.metric if m.label.startswith("RAPID max"))
    picker.set_value("HISTOGRAM").run()
    assert not at.exception
    second = next(m for m in at.metric if m.label.startswith("RAPID max"))
    # each candidate on its own release: independent columns disclose far less than CART
    assert float(second.value) < float(first.value)
    side = next(d.value for d in at.dataframe if "candidate" in d.value.columns)
    assert list(side["candidate"]) == list(full.release_groups())
    # both computed by now, never pooled; text cells that never read "None"
    assert "None" not in side.astype(str).to_numpy().ravel().tolist()
    headline = side["RAPID max (headline)"].astype(float)
    assert headline.iloc[1] == pytest.approx(float(second.value), abs=1e-3)
    # the choice is shared by the fidelity page, and settings keep both candidates
    goto(at, "pages/fidelity.py")
    assert at.radio(key="candidate").value == "HISTOGRAM"
    goto(at, "pages/privacy.py")
    assert at.radio(key="candidate").value == "HISTOGRAM"
    assert len(workspace(at).releases) == 2


def test_the_sidebar_names_each_candidate_as_the_pickers_do():
    def script():
        from dataclasses import replace

        import privacy_core as pc
        from ui.demo import load_default_workspace
        from ui.widgets import sidebar_summary
        from ui.workspace import Table

        ws = load_default_workspace()
        hist = pc.synthesize(pc.prepare_table(ws.real.frame, ws.schema), method="histogram")
        other = Table.make("HISTOGRAM release (seed 1)", hist, "generated", group="HISTOGRAM")
        sidebar_summary(replace(ws, releases=ws.releases + (other,)))

    at = AppTest.from_function(script, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    sidebar = [m.value for m in at.sidebar.markdown]
    listed = [m[2:].rsplit(" (", 1)[0] for m in sidebar if m.startswith("- ")]
    # one label per candidate everywhere: the group name the pickers show, not the
    # release's own name ("HISTOGRAM release (seed 1)")
    assert listed == ["CART release (seed 0)", "HISTOGRAM"]
    assert any(m.startswith("**Candidates (2)**") for m in sidebar)
