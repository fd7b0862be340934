"""The Learn page in headless Chromium: open it, run a step, see its chart, no error."""

import pytest
from playwright.sync_api import expect
from waits import idle, no_error

pytestmark = pytest.mark.e2e


def test_learn_runs_a_step_of_the_dependency_scenario(page, app_url, artifacts):
    page.goto(f"{app_url}/learn")
    expect(page.get_by_role("heading", name="Learn — guided scenarios")).to_be_visible()
    expect(page.get_by_text("Step 1 of 3: Turn the dependency knob")).to_be_visible()
    charts = page.locator('[data-testid="stPlotlyChart"]')
    expect(charts).to_have_count(1)  # the simulated population at the default κ

    page.get_by_role("button", name="Next", exact=True).click()
    expect(page.get_by_text("Step 2 of 3: Attack a release at this κ")).to_be_visible()
    # the step fits the attacker on a fresh release, then shows its number and curve
    expect(page.get_by_text("RAPID (share of records at risk)")).to_be_visible()
    expect(charts).to_have_count(1)
    expect(charts.first.get_by_text("RAPID against the threshold at κ = 2")).to_be_visible()
    expect(page.get_by_role("button", name="Back", exact=True)).to_be_enabled()
    no_error(page)
    page.wait_for_timeout(1000)  # let plotly finish drawing before the picture
    page.screenshot(path=str(artifacts / "learn.png"), full_page=True)


# Each further scenario: what every step must show (a chart, a metric or a table), so a
# lecturer can run it start to finish; then Reset returns to the first step.
SCENARIO_STEPS = {
    "leaky": (
        "(b) The leaky release",
        [
            ("Leak a share of the training records", "chart"),
            ("Turn f_l from 0 to 1", "chart"),
            ("Who sees the leak — and who does not", "table"),
        ],
    ),
    "similarity": (
        "(c) Similarity is not disclosure",
        [
            ("Release A: no copies, strong patterns", "metric"),
            ("Release B: copies of a few rare people", "table"),
            ("Side by side", "chart"),
        ],
    ),
    "privacy_price": (
        "(d) The price of privacy",
        [
            ("Pick a budget ε", "chart"),
            ("ε against risk and fidelity", "chart"),
            ("The price on the map", "chart"),
        ],
    ),
}
SHOWS = {
    "chart": '[data-testid="stPlotlyChart"]',
    "metric": '[data-testid="stMetric"]',
    "table": '[data-testid="stDataFrame"]',
}


@pytest.mark.parametrize("scenario", list(SCENARIO_STEPS))
def test_learn_scenario_runs_every_step_and_resets(page, app_url, artifacts, scenario):
    label, steps = SCENARIO_STEPS[scenario]
    page.goto(f"{app_url}/learn")
    expect(page.get_by_role("heading", name="Learn — guided scenarios")).to_be_visible()
    page.get_by_text(label, exact=True).first.click()  # a segmented-control option
    expect(page.get_by_role("heading", name=label)).to_be_visible()
    for i, (title, shows) in enumerate(steps):
        if i:
            page.get_by_role("button", name="Next", exact=True).click()
        expect(page.get_by_text(f"Step {i + 1} of {len(steps)}: {title}")).to_be_visible()
        idle(page)  # the first visit runs the scenario (a few seconds at the workshop size)
        expect(page.locator(SHOWS[shows]).first).to_be_visible()
        no_error(page)
        if i == len(steps) - 1:
            expect(page.get_by_role("button", name="Next", exact=True)).to_be_disabled()
            page.wait_for_timeout(1000)  # let plotly finish drawing before the picture
            page.screenshot(path=str(artifacts / f"learn_{scenario}.png"), full_page=True)
    page.get_by_role("button", name="Reset", exact=True).click()
    expect(page.get_by_text(f"Step 1 of {len(steps)}: {steps[0][0]}")).to_be_visible()
    expect(page.get_by_role("button", name="Back", exact=True)).to_be_disabled()
    no_error(page)
