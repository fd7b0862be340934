"""A large upload in a real browser (issue 14, app): the files load with a progress
status, RAPID and the privacy measures do not start on their own, and their runs can be
stopped; the page then says so, keeps what had finished, offers the computation again
and keeps the uploaded data.

Both tests upload the same tables (written once) to one server of their own (their large
caches stay out of the shared server's memory); each upload is a session of its own."""

import time

import pytest
from conftest import serve_app
from playwright.sync_api import expect
from waits import app_stop, idle

import privacy_core as pc

pytestmark = pytest.mark.e2e


ROWS = 70_000  # above the pages' auto-run limit (60,000 record × release cells)


@pytest.fixture(scope="module")
def large_tables(tmp_path_factory):
    """A simulated table of ROWS rows and a HISTOGRAM release of it, as CSV files."""
    folder = tmp_path_factory.mktemp("large")
    real = pc.simulate_health(ROWS, kappa=1.0, seed=0)
    syn = pc.synthesize(pc.prepare_table(real, pc.infer_schema(real)), method="histogram", seed=1)
    paths = [folder / "real.csv", folder / "syn.csv"]
    real.to_csv(paths[0], index=False)
    syn.to_csv(paths[1], index=False)
    return paths


@pytest.fixture(scope="module")
def large_app_url():
    with serve_app() as (url, _):
        yield url


def upload_large_tables(page, url: str, paths) -> None:
    """Upload the large table and its release; wait until the sidebar shows them."""
    page.set_default_timeout(240_000)
    page.goto(f"{url}/data")
    page.get_by_role("tab", name="Upload your files").click()
    inputs = page.locator("input[type=file]")
    inputs.first.wait_for(state="attached")
    inputs.nth(0).set_input_files(str(paths[0]))
    inputs.nth(1).set_input_files(str(paths[1]))
    for path in paths:
        page.get_by_text(path.name, exact=True).first.wait_for()
    page.get_by_role("button", name="Use these files").click()
    page.get_by_text("Loaded.").first.wait_for()
    page.locator('[data-testid="stSidebar"]').get_by_text(f"{ROWS:,} rows").first.wait_for()


def fewer_trees_no_bootstrap(page) -> None:
    """RAPID's attack settings: 50 forest trees and Wilson intervals (no bootstrap). The
    fit the test stops still takes seconds (Stop lands in it), and the run it completes
    afterwards takes a third of the default's time (500 trees, bootstrap replicates)."""
    page.get_by_text("Attack settings (refits the attackers)").click()
    page.get_by_role("spinbutton", name="Random-forest trees").fill("50")
    page.get_by_role("spinbutton", name="Bootstrap replicates").fill("0")
    page.get_by_role("button", name="Apply and refit").click()
    idle(page)


def test_rapid_fitting_on_a_large_upload_can_be_stopped(
    page, large_app_url, large_tables, artifacts
):
    rows = ROWS
    upload_large_tables(page, large_app_url, large_tables)
    sidebar = page.locator('[data-testid="stSidebar"]')

    page.locator('[data-testid="stSidebarNav"]').get_by_text("RAPID", exact=True).click()
    compute = page.get_by_role("button", name="Compute RAPID")
    compute.wait_for()
    fewer_trees_no_bootstrap(page)
    compute.click()
    stop = app_stop(page)
    stop.wait_for()
    expect(page.get_by_text("Fitting").first).to_be_visible()
    t0 = time.perf_counter()
    stop.click()
    expect(page.get_by_text("Stopped: RAPID was not computed").first).to_be_visible()
    waited = time.perf_counter() - t0
    expect(page.get_by_role("button", name="Compute RAPID")).to_be_visible()
    expect(page.locator('[data-testid="stMetric"]')).to_have_count(0)  # no result shown
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    assert sidebar.get_by_text(f"{rows:,} rows").count() >= 1  # the upload is kept
    page.screenshot(path=str(artifacts / "rapid_stopped.png"), full_page=True)
    # the click ends the run after the attacker being fitted, not after every fit
    assert waited < 120, f"Stop took {waited:.0f} s"
    # a new click computes from scratch (the stopped run left no lock or half result)
    page.get_by_role("button", name="Compute RAPID").click()
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="RAPID max")
    expect(metric.first).to_be_visible(timeout=600_000)
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)


def test_privacy_measures_on_a_large_upload_can_be_stopped(
    page, large_app_url, large_tables, artifacts
):
    upload_large_tables(page, large_app_url, large_tables)
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Privacy metrics", exact=True).click()
    run = page.get_by_role("button", name="Run fast measures")
    run.wait_for()
    run.click()
    stop = app_stop(page)
    stop.wait_for()
    # each measure has a status box of its own, labelled "… — done" when it finishes
    page.get_by_text(" — done").first.wait_for()
    t0 = time.perf_counter()
    stop.click()
    expect(page.get_by_text("Stopped. Not computed:").first).to_be_visible()
    waited = time.perf_counter() - t0
    expect(
        page.get_by_text("The measures finished before the click are kept").first
    ).to_be_visible()
    # what finished is shown, and the rest can still be computed
    expect(page.get_by_role("heading", name="Results")).to_be_visible()
    expect(page.get_by_role("button", name="Run fast measures")).to_be_visible()
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    sidebar = page.locator('[data-testid="stSidebar"]')
    assert sidebar.get_by_text(f"{ROWS:,} rows").count() >= 1  # the upload is kept
    page.screenshot(path=str(artifacts / "privacy_stopped.png"), full_page=True)
    assert waited < 120, f"Stop took {waited:.0f} s"
