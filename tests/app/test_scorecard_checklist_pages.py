"""AppTest for issue 11, items 1 and 2: the scorecard on the Overview and the consensus
checklist on Review & report, with thresholds and answers kept across pages and carried
into the exports."""

import json
from pathlib import Path

import pytest
from downloads import download
from small_demo import no_cached_evaluations, small_app  # noqa: F401 (a fixture)
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")
REFERENCES_BOX = "Computing the reference points (HALF, SELF)"


def _texts(at: AppTest) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption])


def _badge(at: AppTest, family: str) -> str:
    """The level badge drawn right after a card's title."""
    values = [m.value for m in at.markdown]
    title = next(i for i, v in enumerate(values) if v.startswith(f"**{family}**"))
    return values[title + 1]


def _verdicts(at) -> list[str]:
    """The verdict lines above the cards (one per candidate)."""
    return [m.value for m in at.markdown if "**Verdict for " in m.value]


# the evaluations are shared by every session (and every test in this process): start
# from none, as a fresh server does
@pytest.mark.usefixtures("no_cached_evaluations")
def test_overview_answers_with_no_click_and_reads_against_edited_thresholds():
    at = small_app()  # the demo's data and release at 400 rows (tests/app/small_demo.py)
    at.run()  # RAPID and every quick card compute themselves on first load
    assert not at.exception, at.exception
    text = _texts(at)
    heads = [h.value for h in at.subheader]
    assert heads.index("Verdict") < heads.index("Scorecard")  # the answer above the cards
    for family in (
        "Attribute inference",
        "Identity (singling out)",
        "Linkability",
        "Membership",
        "Similarity indicators",
        "Fidelity",
        "Utility",
    ):
        assert f"**{family}**" in text
    # every quick card is filled on first load: no button to press
    for family in ("Identity (singling out)", "Linkability", "Similarity indicators", "Fidelity"):
        assert "not computed" not in _badge(at, family), family
    assert not [b for b in at.button if b.key == "overview_fill"]
    # RAPID decides on its relative reading (the demo has a holdout); the absolute is context
    assert "RAPID members minus non-members" in text and "amber line" in text
    # and its card says where the release sits between HALF and SELF, with no click
    assert any(
        "RAPID (strongest attacker, absolute) against the references:" in c.value
        and "HALF" in c.value
        for c in at.caption
    )
    (verdict,) = _verdicts(at)  # one candidate, one sentence naming what decided it
    assert "Comparable to a fresh real sample" in verdict or " on: " in verdict
    assert REFERENCES_BOX in [e.label for e in at.expander]  # computed on this visit

    # lines at 0 put any risk clipped at 0 over the red line: the card and the verdict
    # turn, and the export says the same
    at.session_state["review_thresholds"] = {"singling_out": (0.0, 0.0)}
    at.run()
    # a later run reads the computed references: no "Computing" box for them any more
    assert REFERENCES_BOX not in [e.label for e in at.expander]
    assert any("against the references:" in c.value and "HALF" in c.value for c in at.caption)
    assert "over the red line" in _badge(at, "Identity (singling out)")
    (verdict,) = _verdicts(at)
    assert ": above.**" in verdict and "Singling out (at least" in verdict
    at.switch_page("pages/report.py").run()
    assert not at.exception, at.exception
    doc = json.loads(download(at, "Download JSON record"))
    record = doc["review"]
    assert record["thresholds"]["changed"] == ["singling_out"]
    assert record["thresholds"]["lines"]["singling_out"] == {
        "amber": 0.0,
        "red": 0.0,
        "basis": "set by the reviewer",
    }
    card = next(c for c in next(iter(record["scorecards"].values())) if c["family"] == "identity")
    assert card["level"] == "red"
    (cand,) = doc["candidates"].values()
    assert cand["verdict"] == "above" and "singling_out" in cand["deciding"]
    assert cand["sentence"] in verdict


def test_review_page_walks_r1_to_r10_and_takes_the_reviewers_answers():
    at = small_app()
    at.run()
    at.switch_page("pages/report.py").run()
    assert not at.exception, at.exception
    text = _texts(at)
    for code in [f"R{i}" for i in range(1, 11)]:
        assert f"**{code}**" in text
    assert "awaiting the reviewer" in text
    assert "needs reviewer" in text  # R1 before the reviewer justifies the QIs

    at.text_area(key="review_answer_qi_justification").set_value(
        "They are in the public register"
    ).run()
    at.radio(key="review_answer_scenario").set_value("release").run()
    at.text_input(key="review_thresholds_set_by").set_value("Ethics board").run()
    assert not at.exception, at.exception
    record = json.loads(download(at, "Download JSON record"))["review"]
    items = {i["code"]: i for i in record["checklist"]["items"]}
    assert items["R1"]["status"] == "met" and "public register" in items["R1"]["evidence"]
    assert items["R10"]["status"] == "not applicable"
    assert record["thresholds"]["set_by"] == "Ethics board"
    # the answers survive a trip to another page and back
    at.switch_page("pages/overview.py").run()
    at.switch_page("pages/report.py").run()
    assert (
        at.text_area(key="review_answer_qi_justification").value
        == "They are in the public register"
    )
    html = download(at, "Download HTML report").decode()
    assert 'id="checklist"' in html and "public register" in html
