"""Waiting for a Streamlit page in the browser to finish its script run, and checking it
shows no error."""

from playwright.sync_api import expect

_IDLE_JS = """() => !document.querySelector('[data-testid="stStatusWidgetRunningIcon"]')
    && !document.querySelector('[data-stale="true"]')"""


# How often a wait looks at the page, in ms: the default, every animation frame, keeps the
# browser drawing frames for the whole of a long computation (a tenth of a core on a
# page at rest, more while the app animates its progress).
POLL_MS = 100


def idle(page) -> None:
    """Wait until the script run ends: no running icon, nothing marked stale, twice in a
    row 0.7 s apart (the running icon can lag the first elements of a new page). The icon
    is drawn only with a toolbar (.streamlit/config.toml's toolbarMode "viewer"; test_browser's
    deep-link test checks that it shows during a run)."""
    while True:
        page.wait_for_function(_IDLE_JS, timeout=300_000, polling=POLL_MS)
        page.wait_for_timeout(700)
        if page.evaluate(_IDLE_JS):
            return


def no_error(page) -> None:
    """Must not happen: a traceback, an exception box or an error message on screen."""
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    expect(page.locator('[data-testid="stAlertContentError"]')).to_have_count(0)
    assert "Traceback" not in page.content()


def app_stop(page):
    """The app's own Stop button (long measures, RAPID, calibration, MDS), in the page's
    main block: the toolbar has a Stop of its own while a script runs."""
    return page.get_by_test_id("stMainBlockContainer").get_by_role("button", name="Stop")
