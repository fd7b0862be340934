"""The τ slider on an uploaded table in a real browser (issue 13, item 5).

Uses the benchmark's own steps (bench/bench_slider_browser.py) at a size that keeps the
suite quick, checks that every step reaches the page (the server's sentence names the new
τ) and writes the measured step times to the artifacts. Speed targets are read from the
benchmark at 50,000 rows, not asserted here (timings depend on the machine's load).
"""

import importlib.util
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "bench_slider", ROOT / "bench/bench_slider_browser.py"
)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_each_tau_step_repaints_the_uploaded_review(page, app_url, artifacts, tmp_path):
    # the shared server (no start of its own): the step times are recorded, not asserted
    rows = 2000
    real_path, syn_path = bench.write_tables(rows, tmp_path)
    first = bench.load(page, app_url, real_path, syn_path, rows)
    times = bench.step_times(page, 5)  # each waits for the server's "At τ = x," sentence
    assert len(times) == 5 and all(shown <= idle for shown, idle in times)
    sidebar = page.locator('[data-testid="stSidebar"]')
    assert sidebar.get_by_text(f"{rows:,} rows").count() >= 1  # still the upload
    (artifacts / "slider_steps.json").write_text(
        json.dumps(
            {
                "rows": rows,
                "first_view_s": first,
                "steps_ms": [[round(1000 * a), round(1000 * b)] for a, b in times],
            },
            indent=1,
        )
    )
