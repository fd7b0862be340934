"""Issue 13, items 2 and 3 in headless Chromium: add a release from the map, then Review &
report keeps the loaded release's results and shows the two candidates side by side (page
and PDF), never one value averaged over both. On the built-in data at its smallest size:
the map's candidates and the added candidate's review are computed in the test, and the
workflow, not the data, is under test."""

import os
import re
from pathlib import Path

import pytest
from conftest import SMALL_DATA
from playwright.sync_api import expect
from waits import idle

pytestmark = pytest.mark.e2e

# the Overview's attribute card once RAPID is computed (relative with a holdout)
RAPID_CARD = re.compile(r"RAPID (members minus non-members|\(strongest attacker, absolute\))")

SHOT = Path(
    os.environ.get("RELEASE_GROUPS_SHOT", Path(__file__).parent / "artifacts" / "candidates.png")
)


def no_exception(page) -> None:
    """Must not happen: a Python traceback or an exception box on screen."""
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    assert "Traceback" not in page.content()


def nav(page, title: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()


def test_added_release_keeps_results_and_candidates_are_side_by_side(page, app_url, artifacts):
    page.goto(f"{app_url}/{SMALL_DATA}")
    expect(page.get_by_text(RAPID_CARD).first).to_be_visible()
    nav(page, "Fidelity & utility")
    expect(page.get_by_text("Against the references").first).to_be_visible()
    nav(page, "Review & report")
    expect(page.get_by_role("button", name="Download PDF sign-off sheet")).to_be_visible()
    no_exception(page)

    # the map: choose a generated candidate and add it
    nav(page, "Risk–utility map")
    expect(page.locator('[data-testid="stPlotlyChart"]').first).to_be_visible()
    idle(page)
    combo = page.get_by_role("combobox", name="Candidate")
    combo.click()
    combo.fill("CART leaf 20")
    page.keyboard.press("Enter")
    expect(page.get_by_text("CART leaf 20 (seed 1)", exact=True).first).to_be_visible()
    page.get_by_role("button", name="Add to the workspace's releases").click()
    expect(page.get_by_text("as a candidate of its own").first).to_be_visible()

    nav(page, "Review & report")
    expect(page.get_by_text("2 candidates side by side").first).to_be_visible()
    expect(page.get_by_text("Nothing computed yet")).to_have_count(0)  # must not happen
    expect(page.get_by_text("not computed yet").first).to_be_visible()
    # glide grids draw on a canvas; their accessible cells carry the text
    expect(page.locator('[role="gridcell"]').filter(has_text="not computed").first).to_be_attached()
    page.get_by_role("button", name="Compute for CART leaf 20 (seed 1)").click()
    expect(page.get_by_role("button", name="Compute for CART leaf 20 (seed 1)")).to_have_count(0)
    expect(page.get_by_role("button", name="Download PDF sign-off sheet")).to_be_visible()
    idle(page)
    expect(page.locator('[role="gridcell"]').filter(has_text="not computed")).to_have_count(0)
    no_exception(page)

    # the PDF sign-off sheet: one column per candidate
    with page.expect_download() as dl:
        page.get_by_role("button", name="Download PDF sign-off sheet").click()
    pdf = Path(dl.value.path()).read_bytes()
    assert b"2 candidates side by side" in pdf
    assert b"CART release \\(seed 0\\) \\(1 release\\)" in pdf
    assert b"CART leaf 20 \\(seed 1\\) \\(1 release\\)" in pdf

    idle(page)  # the download's rerun: no faded (stale) elements in the picture
    page.set_viewport_size({"width": 1400, "height": 1300})
    page.wait_for_timeout(1500)
    SHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOT), full_page=True)
    page.screenshot(path=str(artifacts / "candidates.png"), full_page=True)
