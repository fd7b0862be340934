"""`report` on the command line: the reviewer, role and date reach the sign-off sheet."""

import subprocess
import sys
from pathlib import Path

import pytest

import privacy_core as pc

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "privacy_core", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("report_cli")
    real = pc.simulate_health(300, seed=1)
    syn = pc.synthesize(pc.prepare_table(real, pc.infer_schema(real)), method="cart", seed=2)
    real.to_csv(d / "real.csv", index=False)
    syn.to_csv(d / "syn.csv", index=False)
    return d


def test_reviewer_role_and_date_are_signed(files):
    out = files / "review.pdf"
    proc = run("report", "--real", str(files / "real.csv"), "--synthetic",
               str(files / "syn.csv"), "--sensitive", "disease", "--metrics", "ims",
               "--decision", "release", "--reviewer", "Ana Łopez", "--role", "DPO",
               "--date", "2026-11-02", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    pdf = out.read_bytes()
    for text in (b"Ana Lopez", b"DPO", b"2026-11-02", b"Signature:",
                 b"latin capital letter l with stroke -> L"):
        assert text in pdf, text
    html_out = files / "review.html"
    proc = run("report", "--real", str(files / "real.csv"), "--synthetic",
               str(files / "syn.csv"), "--sensitive", "disease", "--metrics", "ims,dcr",
               "--reviewer", "Ana Łopez", "--out", str(html_out))
    assert proc.returncode == 0, proc.stderr
    page = html_out.read_text(encoding="utf-8")
    assert "Ana Łopez" in page and page.count('id="plotly-bundle"') == 1
    assert '<section id="similarity">' in page and 'class="figure"' in page


def test_a_malformed_date_is_refused(files):
    proc = run("report", "--real", str(files / "real.csv"), "--synthetic",
               str(files / "syn.csv"), "--sensitive", "disease", "--metrics", "ims",
               "--date", "20/11/2026", "--out", str(files / "x.pdf"))
    assert proc.returncode == 2 and "--date must be a date as YYYY-MM-DD" in proc.stderr
