"""The Learn page in headless Chromium: open it, run a step, see its chart, no error."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def no_error(page) -> None:
    """Must not happen: a traceback, an exception box or an error message on screen."""
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    expect(page.locator('[data-testid="stAlertContentError"]')).to_have_count(0)
    assert "Traceback" not in page.content()


def test_learn_runs_a_step_of_the_dependency_scenario(page, app_url, artifacts):
    page.goto(f"{app_url}/learn")
    expect(page.get_by_role("heading", name="Learn — guided scenarios")).to_be_visible()
    expect(page.get_by_text("Step 1 of 3: Turn the dependency knob")).to_be_visible()
    charts = page.locator('[data-testid="stPlotlyChart"]')
    expect(charts).to_have_count(1)  # the simulated population at the default κ

    page.get_by_role("button", name="Next").click()
    expect(page.get_by_text("Step 2 of 3: Attack a release at this κ")).to_be_visible()
    # the step fits the attacker on a fresh release, then shows its number and curve
    expect(page.get_by_text("RAPID (share of records at risk)")).to_be_visible()
    expect(charts).to_have_count(1)
    expect(charts.first.get_by_text("RAPID against the threshold at κ = 2")).to_be_visible()
    expect(page.get_by_role("button", name="Back")).to_be_enabled()
    no_error(page)
    page.wait_for_timeout(1000)  # let plotly finish drawing before the picture
    page.screenshot(path=str(artifacts / "learn.png"), full_page=True)
