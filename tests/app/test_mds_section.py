"""AppTest for the Privacy page's membership disclosure score section (issue 10)."""

import json
from pathlib import Path

from downloads import download
from small_demo import small_app

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_mds_runs_from_the_form_and_joins_the_drill_down():
    at = small_app(APP, 300)
    at.run()
    at.switch_page("pages/privacy.py")
    at.run()
    assert not at.exception, at.exception
    assert any(s.value == "Membership disclosure score (shadow models)" for s in at.subheader)
    # never starts on its own: it fits shadow generators
    assert not any(m.label.startswith("MDS") for m in at.metric)
    models = next(s for s in at.slider if s.label == "Shadow models m")
    models.set_value(4)
    sets = next(s for s in at.slider if s.label == "Tables per shadow model")
    sets.set_value(1)
    records = next(n for n in at.number_input if n.label == "Records scored")
    records.set_value(300)
    at.button(key="FormSubmitter:mds_form-Run MDS").click().run()
    assert not at.exception, at.exception
    assert not [e.value for e in at.error]
    labels = {m.label: m.value for m in at.metric}
    relative = float(labels["MDS, relative (0 = HALF, 1 = SELF)"])
    raw = float(labels["MDS (paper: max over records)"])
    assert raw > 0 and -1 <= relative <= 1
    assert any(c.value.startswith("SELF ") for c in at.caption)
    # the settings are kept on the workspace, and the result survives a rerun
    mds_settings = dict(at.session_state["workspace"].settings)["mds"]
    assert mds_settings["shadow_models"] == 4 and mds_settings["records"] == 300
    at.run()
    assert float({m.label: m.value for m in at.metric}["MDS (paper: max over records)"]) == raw
    # the drill-down now has a column of MDS flags (DS above HALF's max)
    assert any("mds" in d.value.columns for d in at.dataframe)
    # with one candidate, the review's exports carry it (aggregates, its shadow set-up)
    at.switch_page("pages/report.py").run()
    assert not at.exception, at.exception
    doc = json.loads(download(at, "Download JSON record"))["review"]
    assert json.dumps(doc["metrics"]).count('"shadow_models": 4') >= 1


def test_map_scores_a_candidate_through_its_own_method():
    import privacy_core as pc
    from ui.map import (
        Candidate,
        shadow_options,
    )

    cart = Candidate("gen:cart", "CART leaf 5", "generated", "cart", (("min_leaf", 5),))
    assert shadow_options(cart) == {"shadow_method": "cart", "shadow_params": {"min_leaf": 5}}
    leaky = Candidate("gen:leaky", "leaky", "generated", "leaky", (("leak_fraction", 0.5),))
    assert shadow_options(leaky)["shadow_params"] == {"leak_fraction": 0.5}
    # HALF emits real records it never saw: leaky shadows that leak nothing
    half = Candidate("gen:half", "HALF", "half", "half")
    assert shadow_options(half) == pc.leaky_shadow_options(0.0)
    loaded = Candidate("ws0", "my release.csv", "workspace", index=0)
    try:
        shadow_options(loaded)
    except pc.ParameterError as exc:
        assert "does not say how it was made" in str(exc)
    else:
        raise AssertionError("a loaded release has no method to retrain")
