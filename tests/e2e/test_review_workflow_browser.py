"""Issue 11, done-when: in a real browser, from the built-in data to a stored, exported
review with a filled checklist and a decision; a mitigated release as a second candidate;
a second review that History compares with the first. Screenshots at each stop. On the
built-in data at its smallest size: the mitigated release and its review are computed in
the test, and the workflow, not the data, is under test."""

from pathlib import Path

import pytest
from conftest import SMALL_DATA
from playwright.sync_api import expect
from waits import idle, no_error

pytestmark = pytest.mark.e2e


def test_demo_to_stored_review_then_mitigated_second_review_in_history(
    page, app_url, artifacts, tmp_path
):
    # 1. the overview's scorecard, straight from the address
    page.goto(f"{app_url}/{SMALL_DATA}")
    expect(page.get_by_role("heading", name="Scorecard")).to_be_visible()
    expect(page.get_by_text("Attribute inference", exact=True)).to_be_visible()
    idle(page)
    no_error(page)
    page.screenshot(path=str(artifacts / "workflow_1_scorecard.png"), full_page=True)

    # 2. review & report: answer the checklist, decide, save, export
    page.get_by_role("link", name="Review & report").click()
    expect(page.get_by_role("heading", name="Consensus checklist (R1–R10)")).to_be_visible()
    idle(page)
    page.get_by_role("textbox", name="R1 · Why these quasi-identifiers").fill(
        "Age, education and gender are in the public register (data controller, 2026-11)"
    )
    page.get_by_role("textbox", name="R1 · Why these quasi-identifiers").press("Control+Enter")
    idle(page)
    page.get_by_role("radiogroup", name="R10").get_by_text("these dataset(s)", exact=True).click()
    idle(page)
    page.get_by_role("radiogroup", name="Decision").get_by_text(
        "release with changes", exact=True
    ).click()
    idle(page)
    page.get_by_role("textbox", name="Reviewer name").fill("Ada Reviewer")
    page.get_by_role("textbox", name="Reviewer name").press("Enter")
    idle(page)
    expect(page.get_by_text("public register").first).to_be_visible()
    # no page lets a user name a database: the server's history (its operator's setting)
    expect(page.get_by_role("textbox", name="Review database (SQLAlchemy URL)")).to_have_count(0)
    page.get_by_role("button", name="Save review").click()
    expect(page.get_by_text("Saved as review #1")).to_be_visible()
    with page.expect_download() as download:
        page.get_by_role("button", name="Download HTML report").click()
    html = Path(download.value.path()).read_text(encoding="utf-8")
    assert 'id="checklist"' in html and "public register" in html
    assert "Decision: <b>release with changes</b>" in html
    no_error(page)
    page.screenshot(path=str(artifacts / "workflow_2_checklist_saved.png"), full_page=True)

    # 3. what-if: regenerate with large CART leaves, record it, add it as a candidate
    page.get_by_role("link", name="What-if").click()
    expect(page.get_by_role("heading", name="What-if mitigation")).to_be_visible()
    idle(page)
    page.get_by_text("Regenerate the release with another knob").click()
    idle(page)
    page.get_by_role("button", name="Try it").click()
    expect(page.locator('[data-testid="stPlotlyChart"]')).to_have_count(1)
    idle(page)
    page.get_by_role("button", name="Record as a considered alternative").click()
    idle(page)
    page.get_by_role("button", name="Add the mitigated release as a new candidate").click()
    expect(page.get_by_text("as a candidate of its own")).to_be_visible()
    no_error(page)
    page.screenshot(path=str(artifacts / "workflow_3_whatif.png"), full_page=True)

    # 4. a second review with both candidates; the session remembers the answers
    page.get_by_role("link", name="Review & report").click()
    expect(page.get_by_role("heading", name="Consensus checklist (R1–R10)")).to_be_visible()
    idle(page)
    for button in page.get_by_role("button", name="Compute for").all():
        button.click()
        idle(page)
    page.get_by_role("button", name="Save review").click()
    expect(page.get_by_text("Saved as review #2")).to_be_visible()
    no_error(page)

    # 5. history: both listed; compare says what moved and what changed
    page.get_by_role("link", name="Open the history").click()
    expect(page.get_by_role("heading", name="Review history")).to_be_visible()
    idle(page)
    page.get_by_role("tab", name="Compare two").click()
    expect(page.get_by_text("the synthetic data changed").first).to_be_visible()
    no_error(page)
    page.screenshot(path=str(artifacts / "workflow_4_history_compare.png"), full_page=True)
