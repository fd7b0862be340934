"""Concurrent load: N headless browser sessions on one Streamlit server (issue 16).

Starts ``streamlit run app.py`` on loopback and drives ``--sessions`` browser sessions at
once (one Chromium, one context each, asyncio). Every session opens the app (the built-in
demo loads without a click), waits for the Overview's RAPID headline, goes to the RAPID
page, moves the τ slider ``--steps`` times, then visits Privacy metrics, Fidelity &
utility and the Overview again through the sidebar. Recorded:

- server memory over time: RSS and PSS of the server process and its children, read from
  /proc twice a second; the figures are the fresh server (no session yet), the warm
  server (one session has loaded the demo and left: imports and shared caches in
  memory), the peak under load and what is left after the sessions closed. Memory per
  active session = (peak − warm) / N; (peak − fresh) / N is printed too.
- page responses: from the navigation or click until the page's ready marker is on
  screen and the app is idle (no running icon, nothing stale); the slowest and median.
- errors: an exception box or a traceback on the page, a browser console error or page
  error, a wait that timed out.

Then the freeze check: session A starts the Risk lab sweep (the default leaky-copy sweep)
while session B, on the RAPID page, steps τ; B's step latency while A computes is
compared with B's latency before A started.

The job-limit scenario (issue 32, ``--queue MAX_JOBS``): ``--sessions`` reviewers open the
app at once, each on the built-in data drawn with their own seed (so nothing is shared
from the cache), on a server with ``PRIVACY_REVIEW_MAX_JOBS=MAX_JOBS``. Recorded: how many
were served (the Overview's verdict on screen, no error), how many were shown their place
in the queue and the highest place, and the time to each one's first result.

Usage: python bench/bench_load.py [--sessions 8] [--steps 5] [--out summary.json]
       python bench/bench_load.py --queue 2 --sessions 10
Prints a JSON summary; asserts nothing. Needs Debian's chromium at /usr/bin/chromium.
tests/e2e/test_load_browser.py runs the same functions with 2 sessions on the smallest
built-in data (``run(path=...)``), stopping the sweep once B's steps are answered
(``stop_heavy``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import statistics
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# the browser tests' own server start and Chromium flags (tests/ is not a package)
_spec = importlib.util.spec_from_file_location("e2e_conftest", ROOT / "tests/e2e/conftest.py")
_e2e = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_e2e)
CHROMIUM, CHROMIUM_FLAGS = _e2e.CHROMIUM, _e2e.CHROMIUM_FLAGS

# page in the sidebar -> text that is on screen only when that page has drawn its results
PAGES = {
    "Overview": "Verdict for ",
    "RAPID": "RAPID max (strongest attacker)",
    "Privacy metrics": "Record drill-down",
    "Fidelity & utility": "Against the references",
}
TOUR = ("RAPID", "Privacy metrics", "Fidelity & utility", "Overview")

# idle: no "Running" status widget and no element Streamlit marks stale during a rerun
IDLE_JS = """() => !document.querySelector('[data-testid="stStatusWidgetRunningIcon"]')
    && !document.querySelector('[data-stale="true"]')"""
# the page's ready marker is on screen and the app is idle
READY_JS = """(marker) => document.body.innerText.includes(marker)
    && !document.querySelector('[data-testid="stStatusWidgetRunningIcon"]')
    && !document.querySelector('[data-stale="true"]')"""
# the RAPID page's own sentence, "At τ = **0.31**, ...": proof the rerun reached the server
TAU_JS = """(tau) => [...document.querySelectorAll('[data-testid="stMarkdown"]')]
    .some(e => e.innerText.includes('At τ = ' + tau + ','))"""
BROKEN_JS = """() => document.querySelectorAll('[data-testid="stException"]').length
    + (document.body.innerText.includes('Traceback (most recent call last)') ? 1 : 0)"""


# ------------------------------------------------------------------ server


@contextlib.contextmanager
def serve(max_jobs: int | None = None):
    """``streamlit run app.py`` on a free loopback port; yields (url, pid); stops it.
    ``max_jobs``: the operator's job limit (PRIVACY_REVIEW_MAX_JOBS), else the default."""
    env = {"PRIVACY_REVIEW_MAX_JOBS": str(max_jobs)} if max_jobs else None
    with _e2e.serve_app(env=env) as (url, proc):
        yield url, proc.pid


# ------------------------------------------------------------------ memory


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                # the name (field 2) may hold spaces: the parent is after its ')'
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def _kb(path: str, field: str) -> int:
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:  # the process ended between the listing and the read
        pass
    return 0


def memory_mb(pid: int) -> tuple[float, float, int]:
    """(RSS, PSS, processes) of ``pid`` and its descendants, in MB.

    RSS counts pages shared between a parent and its forked workers once per process;
    PSS splits them, so the sum of PSS is what the processes take together.
    """
    pids = _descendants(pid)
    rss = sum(_kb(f"/proc/{p}/status", "VmRSS:") for p in pids)
    pss = sum(_kb(f"/proc/{p}/smaps_rollup", "Pss:") for p in pids)
    return rss / 1024, pss / 1024, len(pids)


class MemorySampler:
    """Samples ``memory_mb(pid)`` every ``interval`` seconds in a thread."""

    def __init__(self, pid: int, interval: float = 0.5):
        self.pid, self.interval = pid, interval
        self.samples: list[tuple[float, float, float, int]] = []  # (t, rss, pss, n)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.t0 = time.perf_counter()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append((time.perf_counter() - self.t0, *memory_mb(self.pid)))
            self._stop.wait(self.interval)

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def peak(self, since: float = 0.0) -> tuple[float, float]:
        """Peak (RSS, PSS) in MB over the samples taken after ``since`` (sampler seconds)."""
        window = [s for s in self.samples if s[0] >= since] or self.samples
        return max(s[1] for s in window), max(s[2] for s in window)

    def now(self) -> float:
        return time.perf_counter() - self.t0


# ------------------------------------------------------------------ one session


class Session:
    """One browser context on the app, with what went wrong in it."""

    def __init__(self, name: str, context, page, timeout_ms: int):
        self.name, self.context, self.page, self.timeout = name, context, page, timeout_ms
        self.errors: list[str] = []
        self.responses: list[tuple[str, float]] = []  # (page, seconds)
        self.reached: list[str] = []
        self.steps_ms: list[float] = []
        page.on(
            "console",
            lambda m: m.type == "error" and self.errors.append(f"console error: {m.text[:300]}"),
        )
        page.on("pageerror", lambda e: self.errors.append(f"page error: {str(e)[:300]}"))

    @classmethod
    async def open(cls, browser, name: str, timeout_ms: int = 600_000) -> Session:
        context = await browser.new_context(viewport={"width": 1400, "height": 1000})
        page = await context.new_page()
        page.set_default_timeout(timeout_ms)
        return cls(name, context, page, timeout_ms)

    async def close(self) -> None:
        await self.context.close()

    async def _ready(self, label: str, t0: float) -> float:
        await self.page.wait_for_function(
            READY_JS, arg=PAGES[label], polling=100, timeout=self.timeout
        )
        seconds = time.perf_counter() - t0
        if broken := await self.page.evaluate(BROKEN_JS):
            self.errors.append(f"{label}: {broken} exception box(es) or traceback on the page")
        self.responses.append((label, seconds))
        self.reached.append(label)
        return seconds

    async def first_view(self, url: str) -> float:
        """Open the app; seconds until the demo's Overview headline is on screen."""
        t0 = time.perf_counter()
        await self.page.goto(url)
        return await self._ready("Overview", t0)

    async def go(self, label: str) -> float:
        """Through the sidebar (a page.goto would be a reload: a new Streamlit session)."""
        t0 = time.perf_counter()
        await (
            self.page.locator('[data-testid="stSidebarNav"]').get_by_text(label, exact=True).click()
        )
        return await self._ready(label, t0)

    async def tau_steps(self, steps: int) -> list[float]:
        """Press → on the τ slider ``steps`` times; ms from each press until the page
        shows the server's sentence for the new τ and the app is idle again."""
        slider = self.page.get_by_role("slider").first
        out = []
        for _ in range(steps):
            await slider.focus()
            target = f"{float(await slider.input_value()) + 0.01:.2f}"
            t0 = time.perf_counter()
            await self.page.keyboard.press("ArrowRight")
            await self.page.wait_for_function(TAU_JS, arg=target, polling=20, timeout=self.timeout)
            await self.page.wait_for_function(IDLE_JS, polling=20, timeout=self.timeout)
            out.append(1000 * (time.perf_counter() - t0))
        self.steps_ms.extend(out)
        return out

    async def tour(self, url: str, steps: int) -> None:
        """The load scenario; a failed wait ends the session and is recorded."""
        try:
            await self.first_view(url)
            await self.go("RAPID")
            await self.tau_steps(steps)
            for label in TOUR[1:]:
                await self.go(label)
        except Exception as e:  # noqa: BLE001 - recorded: the figures say what failed
            self.errors.append(f"{type(e).__name__}: {str(e).splitlines()[0][:300]}")

    def summary(self) -> dict:
        return {
            "session": self.name,
            "reached": self.reached,
            "errors": self.errors,
            "responses_s": [[p, round(s, 2)] for p, s in self.responses],
            "tau_steps_ms": [round(v) for v in self.steps_ms],
        }


# ------------------------------------------------------------------ scenarios


async def launch(playwright):
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"Chromium not found at {CHROMIUM}: install Debian's `chromium`.")
    return await playwright.chromium.launch(
        executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True
    )


async def warm_up(browser, url: str) -> dict:
    """One session loads the demo and leaves: the imports and shared caches are in memory
    afterwards, as on a server that has been up for a while."""
    s = await Session.open(browser, "warm-up")
    seconds = await s.first_view(url)
    await s.close()
    return {"first_view_s": round(seconds, 2), "errors": s.errors}


async def load_phase(browser, url: str, n: int, steps: int) -> list[Session]:
    """``n`` sessions doing the tour at once."""
    sessions = [await Session.open(browser, f"s{i}") for i in range(n)]
    await asyncio.gather(*(s.tour(url, steps) for s in sessions))
    return sessions


async def freeze_check(
    browser, url: str, steps: int, heavy_timeout_s: float = 600, stop_heavy: bool = False
) -> dict:
    """Session B's τ steps before and while session A runs the Risk lab sweep.
    ``stop_heavy``: A presses Stop once B's steps are answered, instead of waiting for the
    sweep's end (the test's way: what it checks is decided by then)."""
    a, b = await Session.open(browser, "A (heavy)"), await Session.open(browser, "B (slider)")
    out: dict = {"heavy": "Risk lab: default leaky-copy sweep"}
    try:
        await asyncio.gather(a.first_view(url), b.first_view(url))
        await b.go("RAPID")
        await b.tau_steps(1)  # the first step after a page change draws more: not timed
        idle = await b.tau_steps(steps)
        await (
            a.page.locator('[data-testid="stSidebarNav"]')
            .get_by_text("Risk lab", exact=True)
            .click()
        )
        run = a.page.get_by_role("button", name="Run the sweep")
        await run.wait_for()
        t0 = time.perf_counter()
        await run.click()
        # the Stop button is enabled only while the sweep runs
        stop = a.page.get_by_test_id("stMainBlockContainer").get_by_role("button", name="Stop")
        await stop.and_(a.page.locator("button:enabled")).wait_for(timeout=120_000)
        started = time.perf_counter() - t0
        busy = await b.tau_steps(steps)
        # proof the steps overlapped the computation: the sweep was still running after them
        still_running = await stop.and_(a.page.locator("button:enabled")).count() > 0
        if stop_heavy:
            # the Stop button goes when the sweep has ended (with its finished rows, if any)
            await stop.click()
            await stop.wait_for(state="detached", timeout=1000 * heavy_timeout_s)
            await a.page.wait_for_function(IDLE_JS, polling=250, timeout=1000 * heavy_timeout_s)
        else:
            await a.page.wait_for_function(
                """() => [...document.querySelectorAll('button')]
                    .some(e => e.innerText.includes('Run the sweep') && e.disabled)""",
                polling=250,
                timeout=1000 * heavy_timeout_s,
            )
        heavy_s = time.perf_counter() - t0
        if broken := await a.page.evaluate(BROKEN_JS):
            a.errors.append(f"Risk lab: {broken} exception box(es) or traceback")
        out.update(
            {
                "idle_step_ms": [round(v) for v in idle],
                "busy_step_ms": [round(v) for v in busy],
                "idle_median_ms": round(statistics.median(idle)),
                "busy_median_ms": round(statistics.median(busy)),
                "busy_max_ms": round(max(busy)),
                "ratio_median": round(statistics.median(busy) / statistics.median(idle), 2),
                "heavy_started_after_s": round(started, 1),
                "heavy_total_s": round(heavy_s, 1),
                "heavy_still_running_after_steps": still_running,
            }
        )
    except Exception as e:  # noqa: BLE001 - recorded below
        out["failure"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"
    out["errors"] = {"A": a.errors, "B": b.errors}
    await a.close()
    await b.close()
    return out


QUEUE_JS = """() => {
    const m = document.body.innerText.match(/you are (\\d+)(st|nd|rd|th) in the queue/);
    return m ? parseInt(m[1]) : 0;
}"""


async def queue_session(browser, url: str, seed: int, timeout_ms: int = 900_000) -> dict:
    """One reviewer with work of their own: the built-in health data drawn with ``seed``
    (a link a colleague could share), so no two sessions share a cached result. Polls the
    page for the queue message while it waits for the Overview's verdict."""
    s = await Session.open(browser, f"seed {seed}", timeout_ms)
    places: list[int] = []
    done = asyncio.Event()

    async def watch() -> None:
        while not done.is_set():
            try:
                if place := await s.page.evaluate(QUEUE_JS):
                    places.append(int(place))
            except Exception:  # noqa: BLE001 - the page is navigating: look again
                pass
            await asyncio.sleep(0.25)

    watcher = asyncio.create_task(watch())
    t0 = time.perf_counter()
    try:
        await s.page.goto(f"{url}/?data=health&n=2000&kappa=1&seed={seed}")
        seconds = await s._ready("Overview", t0)
    except Exception as e:  # noqa: BLE001 - recorded: the figures say what failed
        s.errors.append(f"{type(e).__name__}: {str(e).splitlines()[0][:300]}")
        seconds = None
    done.set()
    await watcher
    await s.close()
    return {
        "session": s.name,
        "served": seconds is not None and not s.errors,
        "first_result_s": round(seconds, 1) if seconds is not None else None,
        "queue_places_seen": sorted(set(places), reverse=True),
        "errors": s.errors,
    }


async def queue_run(sessions: int, max_jobs: int) -> dict:
    """``sessions`` reviewers at once, each with their own data, on a server that runs at
    most ``max_jobs`` heavy computations: everyone served, and the waiting told their place."""
    from playwright.async_api import async_playwright

    with serve(max_jobs) as (url, pid), MemorySampler(pid) as mem:
        async with async_playwright() as p:
            browser = await launch(p)
            await warm_up(browser, url)  # imports in memory, as on a server that is up
            t0 = time.perf_counter()
            got = await asyncio.gather(
                *(queue_session(browser, url, 100 + i) for i in range(sessions))
            )
            wall = time.perf_counter() - t0
            await browser.close()
        peak_rss, _ = mem.peak()
    firsts = [g["first_result_s"] for g in got if g["first_result_s"] is not None]
    return {
        "sessions": sessions,
        "max_jobs": max_jobs,
        "cpus": os.cpu_count(),
        "wall_s": round(wall, 1),
        "served": sum(g["served"] for g in got),
        "shown_a_queue_place": sum(bool(g["queue_places_seen"]) for g in got),
        "highest_place_seen": max((max(g["queue_places_seen"] or [0]) for g in got), default=0),
        "first_result_s": {
            "min": min(firsts, default=None),
            "median": round(statistics.median(firsts), 1) if firsts else None,
            "max": max(firsts, default=None),
        },
        "peak_rss_mb": round(peak_rss),
        "per_session": got,
    }


def _loadavg() -> list[float]:
    return [round(v, 2) for v in os.getloadavg()]


async def run(
    sessions: int,
    steps: int,
    freeze: bool = True,
    settle_s: float = 10.0,
    stop_heavy: bool = False,
    path: str = "",
) -> dict:
    """The whole benchmark on a fresh server; the JSON summary. ``stop_heavy``: see
    :func:`freeze_check`; ``path``: what every session opens, after the server's address
    (e.g. ``/?data=health&n=500``: the built-in data at another size)."""
    from playwright.async_api import async_playwright

    summary: dict = {
        "sessions": sessions,
        "tau_steps_per_session": steps,
        "cpus": os.cpu_count(),
        "loadavg_start": _loadavg(),
    }
    with serve() as (server, pid), MemorySampler(pid) as mem:
        url = server + path
        await asyncio.sleep(2)
        fresh = memory_mb(pid)
        async with async_playwright() as p:
            browser = await launch(p)
            summary["warm_up"] = await warm_up(browser, url)
            await asyncio.sleep(settle_s)  # the warm-up session's state is released
            warm = memory_mb(pid)
            t_load = mem.now()
            t0 = time.perf_counter()
            done = await load_phase(browser, url, sessions, steps)
            wall = time.perf_counter() - t0
            peak_rss, peak_pss = mem.peak(since=t_load)
            for s in done:
                await s.close()
            await asyncio.sleep(settle_s)
            after = memory_mb(pid)
            if freeze:
                summary["freeze_check"] = await freeze_check(
                    browser, url, steps, stop_heavy=stop_heavy
                )
            await browser.close()
        summary["memory_samples"] = len(mem.samples)

    responses = [sec for s in done for _, sec in s.responses]
    by_page: dict[str, list[float]] = {}
    for s in done:
        for label, sec in s.responses:
            by_page.setdefault(label, []).append(sec)
    steps_ms = [v for s in done for v in s.steps_ms]
    slowest = max(((sec, s.name, label) for s in done for label, sec in s.responses), default=None)
    summary.update(
        {
            "load_wall_s": round(wall, 1),
            "memory_mb": {
                "fresh_rss": round(fresh[0]),
                "warm_rss": round(warm[0]),
                "peak_rss": round(peak_rss),
                "after_close_rss": round(after[0]),
                "fresh_pss": round(fresh[1]),
                "warm_pss": round(warm[1]),
                "peak_pss": round(peak_pss),
                "after_close_pss": round(after[1]),
                "processes_at_peak_window": max(s[3] for s in mem.samples),
                "per_session_rss_from_warm": round((peak_rss - warm[0]) / sessions),
                "per_session_pss_from_warm": round((peak_pss - warm[1]) / sessions),
                "per_session_rss_from_fresh": round((peak_rss - fresh[0]) / sessions),
            },
            "page_response_s": {
                "count": len(responses),
                "median": round(statistics.median(responses), 2) if responses else None,
                "slowest": round(slowest[0], 2) if slowest else None,
                "slowest_where": f"{slowest[1]} {slowest[2]}" if slowest else None,
                "median_by_page": {k: round(statistics.median(v), 2) for k, v in by_page.items()},
                "max_by_page": {k: round(max(v), 2) for k, v in by_page.items()},
            },
            "tau_step_ms_under_load": {
                "median": round(statistics.median(steps_ms)) if steps_ms else None,
                "max": round(max(steps_ms)) if steps_ms else None,
            },
            "errors": {s.name: s.errors for s in done if s.errors},
            "sessions_reaching_every_page": sum(set(PAGES) <= set(s.reached) for s in done),
            "per_session": [s.summary() for s in done],
            "loadavg_end": _loadavg(),
        }
    )
    return summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--steps", type=int, default=5, help="τ steps per session")
    ap.add_argument("--no-freeze-check", action="store_true")
    ap.add_argument("--out", default="", help="also write the JSON summary here")
    ap.add_argument(
        "--queue",
        type=int,
        default=0,
        metavar="MAX_JOBS",
        help="instead: the job-limit scenario (--sessions reviewers, each with their own "
        "data, on a server running at most MAX_JOBS heavy computations)",
    )
    args = ap.parse_args()
    if args.queue:
        summary = asyncio.run(queue_run(args.sessions, args.queue))
    else:
        summary = asyncio.run(run(args.sessions, args.steps, freeze=not args.no_freeze_check))
    text = json.dumps(summary, indent=1, ensure_ascii=False)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
