"""The Risk lab's Calibration view in headless Chromium: run, read, Stop, and the Privacy
page's floor/ceiling line."""

import re

import pytest
from conftest import SMALL_DATA
from playwright.sync_api import expect
from waits import app_stop

pytestmark = pytest.mark.e2e


def no_exception(page) -> None:
    """Must not happen: a Python traceback or an exception box on screen."""
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    assert "Traceback" not in page.content()


def open_view(page, url: str) -> None:
    page.goto(f"{url}/lab{SMALL_DATA}")
    expect(page.locator('[data-testid="stSidebar"]').get_by_text("500 rows").first).to_be_visible()
    expect(page.get_by_text("Risk lab — does each measure see the risk")).to_be_visible()
    page.get_by_role("radio", name="Calibration of the measures").click()
    expect(page.get_by_text("Calibration — what do 0 and 1 mean")).to_be_visible()


def settings(page, measures: tuple[str, ...], seed: int) -> None:
    """A small, fast case for the browser to wait on (issue 33: no browser test waits on a
    computation of more than a minute; the full default calibration is tested in the
    engine, tests/unit/test_calibration_contract.py, and in AppTest). The measures given
    are the cheap ones (a few seconds for all their cells): distance and singling-out
    measures calibrate every mode, contrastive encoders and the papers' 2,000-attack
    protocol among them, which took most of a minute."""
    page.get_by_text("Calibration settings").click()
    form = page.locator('[data-testid="stForm"]').filter(has_text="Apply settings")
    box = form.locator('[data-testid="stMultiSelect"]').first.locator("input")
    box.click()
    for _ in range(3 * 20):  # every default measure and mode out, one by one
        page.keyboard.press("Backspace")
    for label in measures:
        box.fill(label)
        page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    form.get_by_label("Seed").fill(str(seed))
    form.get_by_role("button", name="Apply settings").click()
    expect(page.get_by_text(re.compile(rf"· seed {seed}$"))).to_be_visible()


def test_calibration_view_runs_and_the_privacy_page_reads_it(page, app_url, artifacts):
    open_view(page, app_url)
    # enough cells that the run lasts some seconds: Stop is seen active while it runs
    settings(page, ("Identical match share", "k-anonymity violations singled out", "GTCAP"), seed=3)
    run = page.get_by_role("button", name="Run calibration")
    stop = app_stop(page)
    expect(run).to_be_enabled()
    expect(stop).to_be_disabled()  # nothing runs: Stop looks inactive
    expect(page.get_by_text("it is slow work and never starts on its own")).to_be_visible()

    run.click()
    expect(page.get_by_text("Calibrating the measures on your data")).to_be_visible()
    expect(stop).to_be_enabled()  # active while the calibration runs
    expect(page.get_by_text("Verdict per measure")).to_be_visible()
    expect(stop).to_be_disabled()
    expect(page.locator('[data-testid="stPlotlyChart"]')).to_have_count(1)
    # every panel title carries its verdict in words
    chart = page.locator('[data-testid="stPlotlyChart"]')
    expect(chart.get_by_text("Identical match share")).to_be_visible()
    expect(chart.get_by_text("✓ pass").first).to_be_visible()
    expect(page.get_by_text("Calibrated on this data", exact=True)).to_be_visible()
    no_exception(page)
    # Streamlit scrolls inside its main block: a tall window shows the whole view
    page.set_viewport_size({"width": 1400, "height": 4200})
    page.wait_for_timeout(1500)  # let plotly re-lay out to the new size
    page.screenshot(path=str(artifacts / "calibration.png"), full_page=True)
    page.set_viewport_size({"width": 1400, "height": 1000})

    # the same session's Privacy page places each card between floor and ceiling
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Privacy metrics").click()
    expect(page.get_by_text("On a full copy of your data this measure reads").first).to_be_visible()
    expect(
        page.get_by_text(
            re.compile(
                r"of the way from unseen rows to a full copy|"
                r"at or (below|above) its reading"
            )
        ).first
    ).to_be_visible()
    no_exception(page)
    page.set_viewport_size({"width": 1400, "height": 2400})
    page.wait_for_timeout(1000)
    page.screenshot(path=str(artifacts / "privacy_calibrated.png"), full_page=True)


def test_stop_keeps_the_finished_values(page, app_url, artifacts):
    open_view(page, app_url)
    # settings no run has computed yet; enough measures that Stop lands mid-run (the live
    # preview shows after 3 s, with a sixth of the values; the run takes six times as
    # long), each cheap enough that the first values come within those 3 s and the cell
    # being evaluated when Stop is clicked ends soon after
    settings(
        page,
        (
            "Identical match share",
            "Sample uniques reproduced",
            "k-anonymity violations singled out",
            "Sensitive values pinned (l-diversity)",
            "Individual risk reproduced",
            "Reproduced rare combinations",
            "GTCAP",
            "Membership disclosure (F_rel)",
        ),
        seed=7,
    )

    page.get_by_role("button", name="Run calibration").click()
    # let a few measures finish (the live preview appears after a few seconds), then stop
    expect(page.get_by_text(re.compile(r"Values so far: \d+ of \d+"))).to_be_visible()
    app_stop(page).click()
    expect(page.get_by_text("Partial results:")).to_be_visible()
    expect(page.get_by_text("Verdict per measure")).to_be_visible()
    expect(page.get_by_text("… incomplete").first).to_be_visible()
    expect(page.get_by_role("button", name="Run calibration")).to_be_enabled()
    expect(app_stop(page)).to_be_disabled()
    no_exception(page)
    page.set_viewport_size({"width": 1400, "height": 4200})
    page.wait_for_timeout(1500)
    page.screenshot(path=str(artifacts / "calibration_stopped.png"), full_page=True)
