"""The consensus checklist (R1-R10) and the scorecard: logic on metric records, and both
carried by every export of a review."""

import json
import warnings

import pytest

import privacy_core as pc
from privacy_core.checklist import RECOMMENDATIONS, consensus_checklist
from privacy_core.scorecard import DEFAULT_THRESHOLDS, Threshold, read_value, scorecard


def _m(value, ci=None, **params):
    return {"value": value, "ci": list(ci) if ci else None, "params": params}


def _review(metrics, *, qis=("age", "sex"), n_real=1000, releases=("r1",), n_candidates=1):
    cands = [
        {
            "name": f"c{i}",
            "releases": list(releases),
            "n_releases": len(releases),
            "metrics": metrics,
        }
        for i in range(n_candidates)
    ]
    return {
        "provenance": {"real": {"rows": n_real}},
        "threat": {"quasi_identifiers": list(qis), "sensitive": ["disease"]},
        "candidates": cands,
    }


# ---------------------------------------------------------------- scorecard


@pytest.mark.parametrize(
    "value, level", [(0.04, "green"), (0.05, "amber"), (0.19, "amber"), (0.2, "red"), (0.9, "red")]
)
def test_reading_levels_follow_the_lines(value, level):
    r = read_value("singling_out", value, None, Threshold(0.05, 0.2))
    assert r.level == level
    assert {"green": "under the amber line", "amber": "over the amber line", "red": "red line"}[
        level
    ] in r.words


def test_discriminator_is_read_as_distance_from_one_half():
    # AUC 0.5 is ideal: 0.45 and 0.55 are both green, 0.2 and 0.8 both red
    th = DEFAULT_THRESHOLDS["discriminator"]
    assert read_value("discriminator", 0.55, None, th).level == "green"
    assert read_value("discriminator", 0.45, None, th).level == "green"
    assert read_value("discriminator", 0.8, None, th).level == "red"
    assert read_value("discriminator", 0.2, None, th).level == "red"
    assert "distance from 0.5" in read_value("discriminator", 0.8, None, th).words


def test_card_takes_the_worst_reading_and_names_it():
    cards = {
        c.family.key: c
        for c in scorecard({"dcr": _m(0.01), "ims": _m(0.5), "wasserstein": _m(0.01)})
    }
    sim = cards["similarity"]
    assert sim.level == "red" and sim.headline.measure == "ims"
    assert "Identical match share" in sim.words and sim.family.indicator
    assert cards["fidelity"].level == "green"
    assert cards["membership"].level == "none" and "Not computed" in cards["membership"].words


def test_r8_relative_high_but_absolute_low_is_not_red():
    rapid = {**_m(0.1, (0.08, 0.12)), "difference": {"value": 0.3, "ci": [0.25, 0.35]}}
    card = next(c for c in scorecard({"rapid": rapid}) if c.family.key == "attribute")
    assert card.level == "amber" and "R8" in card.note
    both = {**_m(0.6), "difference": {"value": 0.3, "ci": [0.25, 0.35]}}
    card = next(c for c in scorecard({"rapid": both}) if c.family.key == "attribute")
    assert card.level == "red"
    # the population's pattern: high absolute, nothing beyond non-members: the relative
    # reading decides (R7, R8) and the absolute one is context
    pattern = {**_m(0.6), "difference": {"value": 0.0, "ci": [-0.02, 0.02]}}
    card = next(c for c in scorecard({"rapid": pattern}) if c.family.key == "attribute")
    assert card.level == "green" and "relative reading" in card.note
    assert [r.role for r in card.readings] == ["decides", "context"]
    # without a control the absolute reading cannot decide: listed, never colouring
    alone = next(c for c in scorecard({"rapid": _m(0.6)}) if c.family.key == "attribute")
    assert alone.level == "uninformative" and "holdout" in alone.note


def test_user_thresholds_change_the_reading():
    metrics = {"linkability": _m(0.1)}
    assert next(c for c in scorecard(metrics) if c.family.key == "linkability").level == "amber"
    strict = scorecard(metrics, thresholds={"linkability": Threshold(0.01, 0.05, "me")})
    assert next(c for c in strict if c.family.key == "linkability").level == "red"
    with pytest.raises(pc.ParameterError, match="amber <= red"):
        Threshold(0.3, 0.1)


# ---------------------------------------------------------------- checklist


def test_every_recommendation_has_one_item():
    cl = consensus_checklist(_review({}))
    assert [i.code for i in cl.items] == list(RECOMMENDATIONS)
    assert sum(cl.counts().values()) == 10


def test_r1_needs_the_reviewer_then_is_met():
    assert consensus_checklist(_review({})).item("R1").status == "needs reviewer"
    cl = consensus_checklist(_review({}), answers={"qi_justification": "census linkage"})
    assert cl.item("R1").status == "met" and "census linkage" in cl.item("R1").evidence
    assert consensus_checklist(_review({}, qis=())).item("R1").status == "not met"


def test_r2_reads_subsets_from_the_parameters():
    full = _review({"singling_out": _m(0.1, n_training_evaluated=1000)})
    assert consensus_checklist(full).item("R2").status == "met"
    part = _review({"linkability": _m(0.1, n_targets=300)})
    item = consensus_checklist(part).item("R2")
    assert item.status == "not met" and "300 of 1,000" in item.evidence
    assert consensus_checklist(_review({"ims": _m(0.0)})).item("R2").status == "not met"


def test_r3_similarity_alone_is_not_met():
    assert consensus_checklist(_review({"dcr": _m(0.1)})).item("R3").status == "not met"
    both = _review({"dcr": _m(0.1), "rapid": _m(0.2, n_real=1000)})
    assert consensus_checklist(both).item("R3").status == "met"
    assert consensus_checklist(_review({"rapid": _m(0.2)})).item("R3").status == "not applicable"


def test_r4_r5_membership():
    none = consensus_checklist(_review({"rapid": _m(0.2)}))
    assert none.item("R4").status == none.item("R5").status == "not applicable"
    m = _review({"membership": _m(0.1, member_prevalence=0.5, attack_members=1000)})
    assert consensus_checklist(m).item("R4").status == "needs reviewer"
    assert consensus_checklist(m, answers={"same_population": "yes"}).item("R4").status == "met"
    assert consensus_checklist(m, answers={"same_population": "no"}).item("R4").status == "not met"
    assert consensus_checklist(m).item("R5").status == "met"
    auc = consensus_checklist(_review({"domias": _m(0.1, n_members=1000)}))
    assert auc.item("R5").status == "not applicable"


def test_r7_r8_need_a_non_member_baseline_and_thresholds():
    no_control = consensus_checklist(_review({"rapid": _m(0.3, n_real=1000)}))
    assert no_control.item("R6").status == "met"
    assert no_control.item("R7").status == no_control.item("R8").status == "not met"
    gap = {**_m(0.3, n_real=1000), "difference": {"value": 0.02, "ci": [0.0, 0.04]}}
    cl = consensus_checklist(_review({"rapid": gap}))
    assert cl.item("R7").status == "met" and "+0.020" in cl.item("R7").evidence
    assert cl.item("R8").status == "needs reviewer"
    signed = consensus_checklist(
        _review({"rapid": gap}), thresholds={"set_by": "the data access committee"}
    )
    assert signed.item("R8").status == "met" and "committee" in signed.item("R8").evidence
    controlled = consensus_checklist(_review({"inference": _m(0.1, control=True, n_targets=1000)}))
    assert controlled.item("R7").status == "met"


def test_r10_replicates_or_the_reviewers_scenario():
    one = _review({"rapid": _m(0.2)})
    assert consensus_checklist(one).item("R10").status == "needs reviewer"
    assert (
        consensus_checklist(one, answers={"scenario": "release"}).item("R10").status
        == "not applicable"
    )
    assert consensus_checklist(one, answers={"scenario": "model"}).item("R10").status == "not met"
    reps = _review({"rapid": _m(0.2)}, releases=("a", "b", "c"))
    assert consensus_checklist(reps).item("R10").status == "met"


# ---------------------------------------------------------------- in every export


@pytest.fixture(scope="module")
def review_report():
    real = pc.simulate_health(500, seed=3)
    holdout = pc.simulate_health(300, seed=4)
    from privacy_core.synth import synthesize

    syn = synthesize(real, method="cart", seed=2)
    threat = pc.ThreatModel(
        quasi_identifiers=["gender", "age", "education", "income"], sensitive=["disease"]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = pc.evaluate_measures(
            real,
            [syn],
            names=["rapid", "ims", "dcr", "inference"],
            threat=threat,
            holdout=holdout,
            seed=0,
            options={"rapid": {"bootstrap": 30, "attackers": ["logit"]}},
        )
        return pc.build_report(
            real=real,
            synthetic=[syn],
            results=results,
            threat=threat,
            schema=pc.infer_schema(real),
            holdout=holdout,
            answers={"qi_justification": "Voter roll <script>", "scenario": "release"},
            thresholds={"rapid": Threshold(0.1, 0.25, "set by the board")},
            thresholds_set_by="Data board",
        )


def test_report_json_carries_checklist_scorecard_and_thresholds(review_report):
    d = json.loads(review_report.to_json())
    assert [i["code"] for i in d["checklist"]["items"]] == list(RECOMMENDATIONS)
    r1 = d["checklist"]["items"][0]
    assert r1["status"] == "met" and "Voter roll" in r1["evidence"]
    assert d["checklist"]["answers"]["scenario"] == "release"
    assert d["thresholds"]["set_by"] == "Data board" and d["thresholds"]["changed"] == ["rapid"]
    cards = {c["family"]: c for c in next(iter(d["scorecards"].values()))}
    # the reviewer's line is on the absolute RAPID (context beside the relative reading)
    absolute = next(r for r in cards["attribute"]["readings"] if r["role"] == "context")
    assert absolute["red"] == 0.25
    assert cards["similarity"]["indicator"] is True
    # R8 is met: RAPID ran without a control, but the inference attack had its control
    items = {i["code"]: i for i in d["checklist"]["items"]}
    assert items["R7"]["status"] == "met" and items["R8"]["status"] == "met"


def test_html_and_pdf_show_checklist_and_scorecard(review_report):
    html = pc.render_html(review_report)
    assert 'id="checklist"' in html and 'id="scorecard"' in html
    assert (
        "Voter roll &lt;script&gt;" in html
        and "<script>" not in html.split("<body>")[1].split('<script id="plotly-bundle"')[0]
    )
    assert "Thresholds set by: Data board" in html
    pdf = pc.render_pdf(review_report).decode("latin-1")
    # text in uncompressed content streams; parentheses are escaped inside PDF strings
    assert r"Consensus checklist \(R1-R10\)" in pdf and "(Scorecard)" in pdf
    assert "R1 Quasi-identifiers" in pdf
