"""The membership disclosure score in headless Chromium (issue 10): Run MDS fits the
shadow models with a progress bar, Stop ends the run after the shadow being fitted and the
section reads the score from the shadows finished, and a full run then replaces it. On the
built-in data at its smallest size: each shadow model is fitted on its rows."""

import re

import pytest
from conftest import SMALL_DATA
from playwright.sync_api import expect
from waits import app_stop, idle

pytestmark = pytest.mark.e2e


def test_run_stop_and_rerun_from_the_privacy_page(page, app_url, artifacts):
    page.goto(f"{app_url}/privacy{SMALL_DATA}")
    expect(page.get_by_text("Membership disclosure score (shadow models)")).to_be_visible()
    idle(page)
    form = page.locator('[data-testid="stForm"]').filter(has_text="Shadow models m")
    # many shadow models: Stop lands while they are being fitted
    slider = form.get_by_role("slider").first
    slider.focus()
    for _ in range(15):
        page.keyboard.press("ArrowRight")  # 10 -> 40 in steps of 2
    expect(slider).to_have_value("40")
    form.get_by_role("button", name="Run MDS").click()
    # a few shadows first, so that the partial reading has records both IN and OUT
    expect(page.get_by_text(re.compile(r"([4-9]|\d\d)/40 shadow models fitted"))).to_be_visible()
    app_stop(page).click()
    # the click ends the run; the section reads the score from the shadows finished
    expect(page.get_by_text(re.compile(r"Partial: \d+ of 40 shadow models"))).to_be_visible()
    expect(page.get_by_text("MDS, relative (0 = HALF, 1 = SELF)")).to_be_visible()
    assert page.locator('[data-testid="stException"]').count() == 0
    idle(page)
    page.screenshot(path=str(artifacts / "mds_stopped.png"), full_page=False)

    # back to the default and run to the end: the partial reading gives way to the full one
    slider.focus()
    for _ in range(15):
        page.keyboard.press("ArrowLeft")
    expect(slider).to_have_value("10")
    form.get_by_role("button", name="Run MDS").click()
    expect(page.get_by_text("Membership disclosure score done")).to_be_visible()
    expect(page.get_by_text(re.compile(r"Partial: "))).to_have_count(0)
    expect(page.get_by_text(re.compile(r"^10 shadow cart models × 5 table"))).to_be_visible()
    assert page.locator('[data-testid="stException"]').count() == 0
    idle(page)
    page.get_by_text("The most exposed records").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "mds_section.png"), full_page=False)
