"""Must not happen: the app fetching anything from a host other than its own server, or
asking its own server for something it does not have (a 404).

Reviews run in secure rooms without internet; a request to an outside host fails there
(the console showed ERR_NAME_NOT_RESOLVED for the favicon, once a material icon fetched
as an SVG from fonts.gstatic.com).

Issue 34's "two 'Failed to load resource: 404' on each fresh load" are Streamlit's own
(1.67): loading any page but the Overview from its address, the frontend first tries the
page's path as the server's base path (``/<page>/_stcore/health`` and
``/<page>/_stcore/host-config``), gets 404 and falls back to ``/`` (streamlit/streamlit
issue 7074, open; ``getPossibleBaseUris`` in the frontend's UriUtil says why it tries
both). The app cannot serve or avoid those two; every other 404 is ours and fails here.
"""

from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

LOCAL = {"127.0.0.1", "localhost", "::1", ""}


def _base_path_probes(path: str) -> set[str]:
    """The two addresses Streamlit's frontend tries first on a fresh load of ``path``."""
    return {f"{path}/_stcore/health", f"{path}/_stcore/host-config"} if path else set()


def test_no_request_leaves_the_machine_and_none_is_missing(page, app_url):
    outside: list[str] = []
    missing: dict[str, list[str]] = {}
    loading = {"path": ""}

    def watch(request) -> None:
        if request.url.startswith(("data:", "blob:")):
            return
        if urlparse(request.url).hostname not in LOCAL:
            outside.append(request.url)

    def not_found(response) -> None:
        if response.status == 404:
            missing.setdefault(loading["path"], []).append(urlparse(response.url).path)

    page.on("request", watch)
    page.on("response", not_found)
    paths = ("", "/data", "/privacy", "/lab", "/fidelity", "/map", "/report", "/glossary")
    for path in paths:
        loading["path"] = path
        page.goto(f"{app_url}{path}")  # a fresh load, as a reload or a shared link does
        expect(page.locator('[data-testid="stSidebarNav"]')).to_be_visible()
        expect(page.get_by_text("Loaded review")).to_be_visible()  # app.py's sidebar ran
        page.wait_for_timeout(1500)  # late assets: icons, fonts, favicon
        expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    assert outside == [], f"requests to outside hosts: {outside}"
    # the Overview loads without one; a page's address, with Streamlit's two probes only
    assert "" not in missing, missing.get("")
    ours = {p: [u for u in urls if u not in _base_path_probes(p)] for p, urls in missing.items()}
    assert not any(ours.values()), f"404s of the app's own: {ours}"
