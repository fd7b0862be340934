"""F5 and shared links in a real browser (issue 13, item 9): settings come back."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def test_reload_keeps_the_dataset_and_the_threshold(page, app_url, artifacts):
    page.goto(f"{app_url}/data")
    form = page.locator('[data-testid="stForm"]').filter(has_text="Load dataset with a CART")
    rows = form.get_by_role("slider").nth(1)  # κ, then training rows
    rows.focus()
    # 2,000 -> 1,000 -> 500: the smallest size, whose RAPID fit the other tests share
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    form.get_by_role("button", name="Load dataset with a CART release").click()
    expect(
        page.get_by_text("Loaded Simulated health microdata (training): 500 rows")
    ).to_be_visible()
    assert "n=500" in page.url

    page.get_by_role("link", name="RAPID").click()
    tau = page.get_by_role("slider").first
    expect(tau).to_be_visible()
    expect(page.get_by_text(re.compile(r"At τ = 0\.30,"))).to_be_visible()
    tau.focus()
    for _ in range(5):  # 0.30 -> 0.35, one step at a time: each step reruns the panel
        before = float(tau.input_value())
        page.keyboard.press("ArrowRight")
        expect(page.get_by_text(re.compile(rf"At τ = {before + 0.01:.2f},"))).to_be_visible()
        tau = page.get_by_role("slider").first
        tau.focus()
    page.wait_for_function("() => location.search.includes('rapid_tau_marginal=0.35')")

    page.reload()  # F5: a new session, the same address
    expect(page.get_by_text(re.compile(r"At τ = 0\.35,"))).to_be_visible()
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text(re.compile(r"— 500 rows × "))).to_be_visible()
    page.screenshot(path=str(artifacts / "reload_restored.png"), full_page=True)


def test_upload_page_says_before_it_happens_that_a_reload_drops_files(page, app_url):
    page.goto(f"{app_url}/data")
    page.get_by_role("tab", name="Upload your files").click()
    expect(
        page.get_by_text("reloading the page, opening a shared link or closing the tab drops them")
    ).to_be_visible()
