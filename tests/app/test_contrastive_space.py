"""AppTest: the Privacy page's distance measures in the contrastive embedding (issue 10).

On the demo's data and release at 400 rows (the first start's 2,000 rows made the encoder's
training and every measure of the page five times the work)."""

from pathlib import Path

from small_demo import small_app

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_switching_to_the_contrastive_space_recomputes_the_distance_cards():
    at = small_app(APP, 300)
    at.run()
    at.switch_page("pages/privacy.py")
    at.run()
    assert not at.exception, at.exception
    shared = {m.label: m.value for m in at.metric}
    space = next(s for s in at.selectbox if s.label.startswith("Distance space"))
    assert space.value == "shared"
    space.set_value("contrastive")
    at.button(key="FormSubmitter:privacy_form-Apply").click().run()
    assert not at.exception, at.exception
    assert not [e.value for e in at.error]
    assert at.session_state["workspace"].setting("privacy")["space"] == "contrastive"
    captions = " ".join(c.value for c in at.caption)
    assert "Distances in the contrastive embedding." in captions
    # singling out builds its predicates around the release's isolated records (SO + CL)
    assert "Predicates around the release's most isolated records" in captions
    embedded = {m.label: m.value for m in at.metric}
    # the distance measures were recomputed in the embedding; the others are untouched
    assert embedded["Identical match share"] == shared["Identical match share"]
    assert "DCR (SRD vs RRD)" in embedded and "Distance-based inference" in embedded
    # the drill-down draws the embedding seen from above, with the flagged records
    assert any(
        m.value == "**Where the records sit in the contrastive embedding**" for m in at.markdown
    )
    assert any("red rings are real records" in c.value for c in at.caption)
    # the shared space's results are still cached: switching back is instant and equal
    space = next(s for s in at.selectbox if s.label.startswith("Distance space"))
    space.set_value("shared")
    at.button(key="FormSubmitter:privacy_form-Apply").click().run()
    assert {m.label: m.value for m in at.metric}["DCR (SRD vs RRD)"] == shared["DCR (SRD vs RRD)"]
