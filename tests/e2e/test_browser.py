"""End to end in headless Chromium: first start, the tau slider, no crash."""

import re
from urllib.parse import urlsplit

import pytest
from conftest import SMALL_DATA
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

# the Overview's attribute card once RAPID is computed (relative with a holdout)
RAPID_CARD = re.compile(r"RAPID (members minus non-members|\(strongest attacker, absolute\))")


def metric_value(page, label: str) -> float:
    metric = page.locator('[data-testid="stMetric"]').filter(has_text=label).first
    text = metric.locator('[data-testid="stMetricValue"]').inner_text()
    return float(text.replace(",", ""))


def no_exception(page) -> None:
    """Must not happen: a Python traceback or an exception box on screen."""
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    assert "Traceback" not in page.content()


def test_deep_link_on_a_fresh_server_keeps_the_navigation(page, fresh_app_url, artifacts):
    # the first request a new server sees is a link straight to a page
    page.goto(f"{fresh_app_url}/privacy")
    # the page computes its measures on the demo: Streamlit's running indicator shows
    # meanwhile (a toolbar mode that hides it leaves users, and waits.idle, blind to a run)
    expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_be_visible()
    expect(page.get_by_role("heading", name="Privacy metrics").first).to_be_visible()
    expect(page.get_by_text("Loaded review").first).to_be_visible()  # app.py's sidebar
    nav = page.locator('[data-testid="stSidebarNav"]')
    expect(nav.get_by_text("Privacy metrics")).to_be_visible()
    expect(nav.get_by_text("privacy", exact=True)).to_have_count(0)  # no automatic page list
    # the path stays the page's; the query carries the settings (a reload restores them)
    url = urlsplit(page.url)
    assert url.path.rstrip("/").endswith("/privacy") and "data=health" in url.query
    no_exception(page)
    page.screenshot(path=str(artifacts / "deep_link.png"))


def test_first_start_then_move_tau(page, app_url, artifacts):
    page.goto(app_url)
    expect(page.get_by_text(RAPID_CARD).first).to_be_visible()
    expect(page.get_by_text("Simulated health microdata (training)").first).to_be_visible()
    no_exception(page)
    page.screenshot(path=str(artifacts / "overview.png"), full_page=True)

    page.goto(f"{app_url}/rapid")
    expect(page.get_by_text("RAPID max (strongest attacker)").first).to_be_visible()
    before = metric_value(page, "RAPID (mean of attackers)")
    slider = page.get_by_role("slider").first
    slider.focus()
    for _ in range(30):  # tau 0.30 -> 0.60 in 0.01 steps
        page.keyboard.press("ArrowRight")
    # the server's own sentence for the last step (the curve keeps no slider mark: it is
    # the same figure at every step, so the browser does not redraw it)
    expect(page.get_by_text("At τ = 0.60,")).to_be_visible()
    page.wait_for_function(
        """(before) => {
            const m = [...document.querySelectorAll('[data-testid="stMetric"]')]
              .find(e => e.innerText.includes('RAPID (mean of attackers)'));
            if (!m) return false;
            const v = parseFloat(m.querySelector('[data-testid="stMetricValue"]').innerText);
            return v !== before;
        }""",
        arg=before,
    )
    after = metric_value(page, "RAPID (mean of attackers)")
    assert after < before
    no_exception(page)
    page.screenshot(path=str(artifacts / "rapid.png"), full_page=True)


def test_data_page_bad_threat_model_shows_error(page, app_url, artifacts):
    page.goto(f"{app_url}/data")
    expect(page.get_by_text("4. Threat model")).to_be_visible()
    form = page.locator('[data-testid="stForm"]').filter(has_text="Apply threat model")
    sensitive = form.locator('[data-testid="stMultiSelect"]').nth(1)
    sensitive.locator("input").click()
    sensitive.locator("input").fill("age")
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    form.get_by_role("button", name="Apply threat model").click()
    expect(page.get_by_text("cannot be both a quasi-identifier and sensitive")).to_be_visible()
    no_exception(page)
    page.screenshot(path=str(artifacts / "data_error.png"), full_page=True)


def test_privacy_drill_down(page, app_url, artifacts):
    # the built-in data at its smallest size: the page's measures are computed for it
    page.goto(f"{app_url}/privacy{SMALL_DATA}")
    expect(page.get_by_text("Record drill-down")).to_be_visible()
    expect(page.get_by_text("Identical match share").first).to_be_visible()
    expect(page.get_by_text("Flagged by:").first).to_be_visible()
    # pick another record from the flagged list and see the comparison update
    combo = page.get_by_role("combobox", name="Record")
    first_choice = combo.input_value()
    assert "flags" in first_choice
    combo.click()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(combo).not_to_have_value(first_choice)
    expect(page.get_by_text("Flagged by:").first).to_be_visible()
    # glide grids draw cells on a canvas; their accessible cells carry the text
    expect(page.locator('[role="gridcell"]').filter(has_text="synthetic #").first).to_be_attached()
    expect(page.get_by_text("Agreement between measures").first).to_be_visible()
    no_exception(page)
    page.screenshot(path=str(artifacts / "privacy.png"), full_page=True)
