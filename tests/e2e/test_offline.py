"""Must not happen: the app fetching anything from a host other than its own server.

Reviews run in secure rooms without internet; a request to an outside host fails there
(the console showed ERR_NAME_NOT_RESOLVED for the favicon, once a material icon fetched
as an SVG from fonts.gstatic.com).
"""

from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

LOCAL = {"127.0.0.1", "localhost", "::1", ""}


def test_no_request_leaves_the_machine(page, app_url):
    outside: list[str] = []

    def watch(request) -> None:
        if request.url.startswith(("data:", "blob:")):
            return
        if urlparse(request.url).hostname not in LOCAL:
            outside.append(request.url)

    page.on("request", watch)
    for path in ("", "/data", "/privacy", "/lab", "/fidelity", "/map", "/report"):
        page.goto(f"{app_url}{path}")
        expect(page.locator('[data-testid="stSidebarNav"]')).to_be_visible()
        expect(page.get_by_text("Loaded review")).to_be_visible()  # app.py's sidebar ran
        page.wait_for_timeout(1500)  # late assets: icons, fonts, favicon
        expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    assert outside == [], f"requests to outside hosts: {outside}"
