"""Page tests (AppTest) of the Fidelity & utility page and the Risk–utility map."""

import json
from dataclasses import replace
from pathlib import Path

import pytest
from small_demo import small_app, small_workspace
from streamlit.testing.v1 import AppTest

import privacy_core as pc
import ui.fidelity as uif
import ui.map as uimap
from privacy_core.measures import MEASURES
from ui.workspace import Table

TIMEOUT = 300
APP = str(Path(__file__).resolve().parents[2] / "app.py")


def start(page: str) -> AppTest:
    at = small_app(APP, TIMEOUT)
    # Before the first run AppTest finds a page by its file name, which is also its
    # url_path here: the test opens the page directly, without the overview's RAPID fit.
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    return at


def metrics(at: AppTest) -> dict[str, float]:
    return {m.label: float(m.value) for m in at.metric if m.value not in ("—", "")}


def captions(at: AppTest) -> str:
    return " ".join(c.value for c in at.caption)


def headline_column(at: AppTest, label: str):
    """The captions under one headline metric."""
    for col in at.columns:
        if any(m.label == label for m in col.metric):
            return list(col.caption)
    raise AssertionError(f"no column with metric {label!r}")


def chart(at: AppTest, key: str) -> dict:
    for c in at.get("plotly_chart"):
        if c.proto.id.endswith(key):
            return json.loads(c.proto.spec)
    raise AssertionError(f"no chart {key!r}")


def workspace(at: AppTest):
    return at.session_state["workspace"]


# ------------------------------------------------------------------ fidelity page
def test_fidelity_headline_references_and_overlays():
    at = start("pages/fidelity.py")
    assert not at.error, [e.value for e in at.error]
    m = metrics(at)
    assert 0 <= m["Wasserstein distance"] <= 2
    assert 0 <= m["ML affinity (relative gap)"] < 1
    assert 0 <= m["Query error"] <= 1
    assert 0 <= m["Discriminator AUC"] <= 1
    text = captions(at)
    for label in ("ML affinity (relative gap)", "Query error", "Discriminator AUC"):
        assert any(c.value.startswith("95% CI") for c in headline_column(at, label))
    wasserstein = [c.value for c in headline_column(at, "Wasserstein distance")]
    assert any(c.startswith("No interval for one release") for c in wasserstein)
    assert text.count("References: HALF") == 4 and "HISTOGRAM" in text
    assert "lower is better" in text and "0.5 = indistinguishable" in text

    # a 2-way marginal from the worst list: three heatmaps (real, synthetic, difference)
    pair = next(v for v in option_values(at, "fid_overlay") if "|" in v)
    at.selectbox(key="fid_overlay").set_value(pair).run()
    assert not at.exception and not at.error
    spec = chart(at, "fid_overlay_chart")
    assert [t["type"] for t in spec["data"]] == ["heatmap"] * 3
    titles = [a["text"] for a in spec["layout"]["annotations"]]
    assert titles == ["real", "synthetic", "synthetic − real"]

    # 1-way marginals only: real against synthetic bars
    at.radio(key="fid_ways").set_value("1-way").run()
    assert not at.exception and not at.error
    assert all("|" not in v for v in option_values(at, "fid_overlay"))
    spec = chart(at, "fid_overlay_chart")
    assert [t["name"] for t in spec["data"]] == ["real", "synthetic"]
    assert all(t["type"] == "bar" for t in spec["data"])


def option_values(at: AppTest, key: str) -> list[str]:
    """The marginals offered ("a" or "a|b"), read back from their labels "a × b — d"."""
    return [o.split(" — ")[0].replace(" × ", "|") for o in at.selectbox(key=key).options]


def test_fidelity_treats_several_releases_as_replicates():
    at = small_app(APP, TIMEOUT)
    at.switch_page("pages/data.py")
    at.run()
    at.button(key="FormSubmitter:generate_form-Generate").click().run()
    assert not at.exception and len(workspace(at).releases) == 2
    # the demo's release and the generated one are two candidates until grouped together
    # (replicates of one generator are averaged, candidates never are)
    at.session_state["workspace"] = workspace(at).with_groups(["CART", "CART"])
    at.switch_page("pages/fidelity.py").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert not [r for r in at.radio if r.key == "candidate"]  # one candidate: no picker
    scope = at.selectbox(key="fid_scope")
    assert scope.value == uif.ALL_RELEASES and len(scope.options) == 3
    assert "Averaged over 2 releases" in captions(at)
    # with replicates the Wasserstein distance has an interval too
    assert "No interval for one release" not in captions(at)
    assert any(c.value.startswith("95% CI") for c in headline_column(at, "Wasserstein distance"))
    assert 0 <= metrics(at)["Wasserstein distance"] <= 2


def test_without_a_holdout_ml_affinity_and_holdout_measures_step_aside():
    at = small_app(APP, TIMEOUT)
    at.switch_page("pages/data.py")
    at.run()
    at.session_state["workspace"] = replace(workspace(at), holdout=None)
    at.switch_page("pages/fidelity.py").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "ML affinity (relative gap)" not in metrics(at)
    assert any(
        "Load a holdout" in c
        for c in (c.value for c in headline_column(at, "ML affinity (relative gap)"))
    )
    assert 0 <= metrics(at)["Wasserstein distance"] <= 2
    # the map offers only the risk measures that need no holdout, and no ML affinity
    at.switch_page("pages/map.py")
    at.session_state["map_risk"] = "ims"
    at.session_state["map_utility"] = "query_error"
    at.run()
    assert not at.exception
    risk_options = at.selectbox(key="map_risk").options
    needs_holdout = [
        m.label for m in MEASURES.values() if m.family == "privacy" and m.needs_holdout
    ]
    assert needs_holdout and not set(needs_holdout) & set(risk_options)
    # IMS is offered, but as what it is: a similarity indicator (consensus R3)
    assert "Identical match share — similarity indicator" in risk_options
    assert (
        "similarity indicator (not a disclosure measure)"
        in map_spec(at)["layout"]["xaxis"]["title"]["text"]
    )
    assert "ML affinity (relative gap)" not in at.selectbox(key="map_utility").options
    assert len(points(map_spec(at))) >= 6


# ------------------------------------------------------------------ map page
def map_spec(at: AppTest) -> dict:
    return chart(at, "map_chart")


def points(spec: dict) -> dict[str, str]:
    """{candidate id: kind} of the points drawn."""
    return {
        c[0]: t["meta"]["kind"]
        for t in spec["data"]
        if t["meta"]["kind"] != "selected"
        for c in t["customdata"]
    }


def test_map_computes_candidates_and_shows_details(monkeypatch):
    calls: list[str] = []
    original = uimap.evaluate_measures

    def counting(*args, **kwargs):
        calls.extend(kwargs["names"])
        return original(*args, **kwargs)

    monkeypatch.setattr(uimap, "evaluate_measures", counting)
    at = start("pages/map.py")
    assert not at.error, [e.value for e in at.error]
    drawn = points(map_spec(at))
    kinds = list(drawn.values())
    assert kinds.count("workspace") + kinds.count("generated") >= 3
    assert {"half", "histogram", "self"} <= set(kinds)
    assert not any("failed" in e.label for e in at.expander)
    for trace in map_spec(at)["data"]:
        assert all(isinstance(v, float) for v in trace["x"] + trace["y"])

    # the details panel of a generated candidate (a click on the chart sets this box)
    cart20 = next(i for i in drawn if i.startswith("gen:cart:min_leaf=20"))
    at.selectbox(key="map_selected").set_value(cart20).run()
    assert not at.exception
    assert any(md.value == "#### CART leaf 20 (seed 1)" for md in at.markdown)
    m = metrics(at)
    assert 0 <= m["RAPID attribute inference"] <= 1 and m["Wasserstein distance"] >= 0
    assert any(d.value.shape[0] == 2 for d in at.dataframe)  # risk and utility rows
    ring = [t for t in map_spec(at)["data"] if t["meta"]["kind"] == "selected"]
    assert ring and ring[0]["customdata"] == [[cart20]]

    # add it to the workspace: a new release, still selected, its cells not recomputed
    n_before = len(workspace(at).releases)
    calls.clear()
    at.button(key="map_add_btn").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    releases = workspace(at).releases
    assert len(releases) == n_before + 1 and releases[-1].name == "CART leaf 20 (seed 1)"
    assert any("Added CART leaf 20" in s.value for s in at.success)
    selected = at.selectbox(key="map_selected").value
    assert selected.startswith("ws") and points(map_spec(at))[selected] == "workspace"
    assert not any(i.startswith("gen:cart:min_leaf=20") for i in points(map_spec(at)))
    assert calls == [], "the added release's point must reuse its computed cells"


def test_map_axis_change_computes_only_the_new_column(monkeypatch):
    calls: list[str] = []
    original = uimap.evaluate_measures

    def counting(*args, **kwargs):
        calls.extend(kwargs["names"])
        return original(*args, **kwargs)

    monkeypatch.setattr(uimap, "evaluate_measures", counting)
    at = start("pages/map.py")
    n_points = len(points(map_spec(at)))
    calls.clear()
    at.selectbox(key="map_utility").set_value("query_error").run()
    assert not at.exception and not at.error
    assert calls == ["query_error"] * n_points
    assert "Query error" in map_spec(at)["layout"]["yaxis"]["title"]["text"]
    calls.clear()
    at.selectbox(key="map_utility").set_value("wasserstein").run()
    at.selectbox(key="map_risk").set_value("rapid").run()
    assert calls == [], "switching back must reuse the kept cells"
    # the choice survives a trip to another page
    at.selectbox(key="map_utility").set_value("query_error").run()
    at.switch_page("pages/fidelity.py").run()
    at.switch_page("pages/map.py").run()
    assert at.selectbox(key="map_utility").value == "query_error"


def test_map_axes_follow_goals_and_keep_similarity_off_the_default_risk_axes():
    at = start("pages/map.py")
    assert not at.error, [e.value for e in at.error]
    box = at.selectbox(key="map_risk")
    indicators = {MEASURES[n].label for n in MEASURES if MEASURES[n].indicator}
    # the default and the next two options are disclosure measures, indicators come last
    assert box.value == "rapid"
    assert not any(o.startswith(tuple(indicators)) for o in box.options[:3])
    first_indicator = min(i for i, o in enumerate(box.options) if o.startswith(tuple(indicators)))
    assert all(o.endswith("similarity indicator") for o in box.options[first_indicator:])
    title = map_spec(at)["layout"]["xaxis"]["title"]["text"]
    assert "lower is better" in title and "similarity" not in title

    # picking DCR: the axis says it is no disclosure measure, and so does the page
    at.selectbox(key="map_risk").set_value("dcr").run()
    assert not at.exception and not at.error
    assert (
        "similarity indicator (not a disclosure measure)"
        in map_spec(at)["layout"]["xaxis"]["title"]["text"]
    )
    assert any("not a disclosure measure" in w.value for w in at.warning)
    # and so does the details panel of a candidate
    loaded = next(i for i, kind in points(map_spec(at)).items() if kind == "workspace")
    at.selectbox(key="map_selected").set_value(loaded).run()
    assert not at.exception
    details = next(d.value for d in at.dataframe if "family" in d.value.columns)
    dcr_row = details[details["measure"] == MEASURES["dcr"].label]
    assert list(dcr_row["family"]) == ["similarity indicator"]

    # the discriminator's AUC is best at 0.5: no "better ↙" on that axis
    at.selectbox(key="map_risk").set_value("rapid").run()
    at.selectbox(key="map_utility").set_value("discriminator").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    layout = map_spec(at)["layout"]
    (hint,) = [a for a in layout["annotations"] if a.get("name") == "better"]
    assert "↙" not in hint["text"] and "0.5" in hint["text"]
    assert "0.5" in layout["yaxis"]["title"]["text"]
    assert "lower is better" not in layout["yaxis"]["title"]["text"]
    assert any(sh["y0"] == 0.5 == sh["y1"] for sh in layout["shapes"])
    # one label per point, each point once
    drawn = points(map_spec(at))
    labels = [a["name"] for a in layout["annotations"] if a.get("name") in drawn]
    assert sorted(labels) == sorted(drawn)


def test_map_lists_a_loaded_release_once_whatever_its_name():
    # The demo's release is CART leaf 5 at seed 0: at the map's seed 0 the generated
    # candidate is the same table. It is drawn once, as the loaded release.
    at = small_app(APP, TIMEOUT)
    at.switch_page("pages/data.py")
    at.run()
    ws = workspace(at)
    at.session_state["workspace"] = ws.with_settings(
        map={**uimap.MAP_DEFAULTS, "cart_leaves": (5, 100), "references": ("half",), "seed": 0}
    )
    at.switch_page("pages/map.py").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    drawn = points(map_spec(at))
    assert not any(i.startswith("gen:cart:min_leaf=5:") for i in drawn)
    assert any(i.startswith("gen:cart:min_leaf=100:") for i in drawn)
    assert list(drawn.values()).count("workspace") == len(ws.releases)
    options = at.selectbox(key="map_selected").options
    assert len(options) == len(set(options)) == len(drawn)

    # a candidate added under another name (a release group, say) is still one point
    leaf100 = next(i for i in drawn if i.startswith("gen:cart:min_leaf=100:"))
    cand = next(
        c
        for c in uimap.map_candidates(workspace(at), uimap.map_params(workspace(at)))
        if c.id == leaf100
    )
    frame = uimap.candidate_frame(workspace(at), cand, 0)
    at.session_state["workspace"] = replace(
        workspace(at),
        releases=workspace(at).releases + (Table.make("my renamed release", frame, "upload"),),
    )
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    drawn = points(map_spec(at))
    assert leaf100 not in drawn
    assert list(drawn.values()).count("workspace") == len(ws.releases) + 1


# ------------------------------------------------------------------ candidates
@pytest.fixture(scope="module")
def demo_ws():
    return small_workspace()


def test_candidates_loaded_first_references_last_and_deduplicated(demo_ws):
    params = {**uimap.MAP_DEFAULTS, "cart_leaves": (5, 20), "leaky_levels": (0.5,)}
    cands = uimap.map_candidates(demo_ws, params)
    assert [c.kind for c in cands] == [
        "workspace",
        "generated",
        "generated",
        "generated",
        "half",
        "histogram",
        "self",
    ]
    assert len({c.id for c in cands}) == len(cands)
    assert [c.label for c in cands[1:4]] == [
        "CART leaf 5 (seed 1)",
        "CART leaf 20 (seed 1)",
        "LEAKY f_l=0.5 (seed 1)",
    ]
    assert cands[-1].label == "SELF (real copy)"
    # a generated release already loaded (same name) is shown once, as the loaded one
    frame = uimap.candidate_frame(demo_ws, cands[1], 1)
    ws2 = replace(
        demo_ws,
        releases=demo_ws.releases + (Table.make("CART leaf 5 (seed 1)", frame, "generated"),),
    )
    labels = [c.label for c in uimap.map_candidates(ws2, params)]
    assert labels.count("CART leaf 5 (seed 1)") == 1
    assert uimap.map_candidates(ws2, params)[1].kind == "workspace"
    # without loaded releases only the generated ones and the references remain
    none = uimap.map_candidates(demo_ws, {**params, "workspace": False})
    assert "workspace" not in {c.kind for c in none}


def test_leaky_candidate_copies_the_stated_share_of_training_rows(demo_ws):
    params = {
        **uimap.MAP_DEFAULTS,
        "cart_leaves": (),
        "leaky_levels": (0.25,),
        "references": (),
        "workspace": False,
    }
    (leaky,) = uimap.map_candidates(demo_ws, params)
    frame = uimap.candidate_frame(demo_ws, leaky, 1)
    real = pc.prepare_table(demo_ws.real.frame, demo_ws.schema)
    holdout = pc.conform_table(demo_ws.holdout.frame, demo_ws.schema)
    key = list(real.columns)
    copied = frame.merge(real.drop_duplicates(), on=key, how="inner")
    from_holdout = frame.merge(holdout.drop_duplicates(), on=key, how="inner")
    assert len(frame) == min(len(real), len(holdout))
    assert len(copied) == round(0.25 * len(frame))
    assert len(from_holdout) == len(frame) - len(copied)
    # without a holdout there is nothing to fill the release with: no leaky candidate
    assert uimap.map_candidates(replace(demo_ws, holdout=None), params) == []


def test_map_half_is_compared_with_the_other_half(demo_ws):
    # The map's HALF reads what the fidelity page's HALF reads (two disjoint halves), not
    # the half against the full table that contains it (about half the distance).
    from privacy_core.references import fidelity_baselines

    seed = 1
    params = {**uimap.MAP_DEFAULTS, "cart_leaves": (), "references": ("half",), "workspace": False}
    (half,) = uimap.map_candidates(demo_ws, params)
    cell = uimap._compute_cell(demo_ws, half, "wasserstein", seed, lambda *a: None)
    real = pc.prepare_table(demo_ws.real.frame, demo_ws.schema)
    page = fidelity_baselines(real, schema=demo_ws.schema, metrics=["wasserstein"], seed=seed)[
        "half"
    ]["wasserstein"]
    contained = pc.wasserstein_fidelity(
        real, uimap.candidate_frame(demo_ws, half, seed), schema=demo_ws.schema, seed=seed
    )
    assert cell.params["n_real"] == len(real) // 2 + len(real) % 2
    assert cell.value == pytest.approx(page.value, rel=0.05)
    assert cell.value > 1.4 * contained.value  # the old map read this one


def test_generated_candidates_have_the_promised_sizes(demo_ws):
    params = {**uimap.MAP_DEFAULTS, "cart_leaves": (100,)}
    n = len(demo_ws.real.frame)
    sizes = {
        c.kind: len(uimap.candidate_frame(demo_ws, c, 1))
        for c in uimap.map_candidates(demo_ws, params)
    }
    assert sizes == {"workspace": n, "generated": n, "half": n // 2, "histogram": n, "self": n}
