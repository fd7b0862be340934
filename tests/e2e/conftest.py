"""A real Streamlit server and a real headless Chromium (Debian's), per test session."""

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

# The first page view fits the demo's attackers: give assertions time to see it appear.
expect.set_options(timeout=180_000)

ROOT = Path(__file__).resolve().parents[2]
# The built-in health data at its smallest offered size (500 training rows; the address a
# colleague would share, ui/url_state.py): for a test that needs the app's pages and
# workflow, not the first-start demo (2,000 rows). Its review is computed in about a
# third of the demo's time, and every session that opens it shares that computation.
SMALL_DATA = "?data=health&n=500&kappa=1.0&seed=0"
ARTIFACTS = ROOT / "tests" / "e2e" / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve_app(app: str | Path = "app.py", *, env: dict[str, str] | None = None, args=(), port=None):
    """``streamlit run app`` on a free loopback port; yields (url, process); stops it.
    ``env`` adds environment variables (the operator's settings, ui/deployment.py) and
    ``args`` Streamlit options; ``port`` a fixed port (a sign-in redirect names it), else a
    free one. Also used by bench/ (the slider and load benchmarks).

    Unless ``env`` names one, the server's review history is a file in a fresh temporary
    folder: a test server never writes to the user's own history."""
    port = port or free_port()
    history = tempfile.TemporaryDirectory()  # noqa: SIM115 (removed in the finally)
    server_env = {
        **os.environ,
        "PRIVACY_REVIEW_DB": f"sqlite:///{Path(history.name) / 'reviews.db'}",
        **(env or {}),
    }
    # the server's output goes to a temporary file, not a pipe: nobody reads a pipe while
    # the tests run, and a full pipe buffer (64 KB of log lines) blocks the server
    log = tempfile.TemporaryFile()  # noqa: SIM115 (closed in the finally, after the server)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(app),
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
            *args,
        ],
        cwd=ROOT,
        env=server_env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    log.seek(0)
                    raise RuntimeError(
                        "streamlit did not start:\n" + log.read().decode()[-3000:]
                    ) from None
                time.sleep(0.5)
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        history.cleanup()


def _serve():
    """Start ``streamlit run app.py`` on a free port; yield its URL; stop it."""
    with serve_app() as (url, _):
        yield url


@pytest.fixture(scope="session")
def app_url(browser):
    """The tests' shared server, visited once so that its navigation is declared: on a
    fresh server the first deep link runs its page on its own, and ui/state.py's detour
    through app.py drops the link's query, so ``/lab?data=health&n=500`` would open the
    2,000-row demo instead (the detour itself is what
    ``test_deep_link_on_a_fresh_server_keeps_the_navigation`` checks, on a server of its
    own). The glossary computes nothing."""
    for url in _serve():
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{url}/glossary")
        # app.py's sidebar, not the page list: the page alone shows Streamlit's own list
        expect(page.get_by_text("Loaded review")).to_be_visible()
        context.close()
        yield url


@pytest.fixture()
def fresh_app_url():
    """A server no session has visited yet (deep links behave differently there)."""
    yield from _serve()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise RuntimeError(
            f"Chromium not found at {CHROMIUM}: install Debian's `chromium` package."
        )
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        yield b
        b.close()


@pytest.fixture()
def page(browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(180_000)
    yield pg
    context.close()


@pytest.fixture()
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
