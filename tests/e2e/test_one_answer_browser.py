"""One release, one answer, in a real browser: the Overview answers on first load, and a τ
moved on the RAPID page is the τ of the Overview and of the HTML, PDF and JSON exports,
with the same headline, interval and count of records at risk.

Wrong implementations these catch: an export reading RAPID's mean of attackers while the
page shows the strongest attacker; an Overview or report still at τ = 0.30 after the page
moved it; an Overview that waits for a click before it says anything."""

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect
from waits import idle

pytestmark = pytest.mark.e2e

VERDICT = re.compile(r"Verdict for .+: (below|above|inconclusive)\.")


def _no_error(page) -> None:
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    assert "Traceback" not in page.content()


def _nav(page, name: str, heading: str) -> None:
    """Another page in the same session (a sidebar link, not a reload)."""
    page.locator('[data-testid="stSidebarNav"]').get_by_text(name, exact=True).click()
    expect(page.get_by_role("heading", name=heading).first).to_be_visible()
    idle(page)


def _metric(page, label: str) -> str:
    box = page.locator('[data-testid="stMetric"]').filter(has_text=label).first
    return box.locator('[data-testid="stMetricValue"]').inner_text()


def _download(page, button: str) -> bytes:
    with page.expect_download(timeout=300_000) as dl:
        page.get_by_role("button", name=button).first.click()
    return Path(dl.value.path()).read_bytes()


def test_overview_answers_on_first_load(page, app_url, artifacts):
    page.goto(app_url)
    expect(page.get_by_role("heading", name="Verdict")).to_be_visible()
    expect(page.get_by_role("heading", name="Scorecard")).to_be_visible()
    idle(page)
    # one verdict sentence for the demo's one candidate, above the cards, with no click
    expect(page.get_by_text(VERDICT)).to_have_count(1)
    # every quick card is filled: no button offers to compute missing quick measures
    expect(page.get_by_role("button", name=re.compile("Compute the quick measures"))).to_have_count(
        0
    )
    for family in ("Identity (singling out)", "Linkability", "Similarity indicators", "Fidelity"):
        expect(page.get_by_text(family, exact=True).first).to_be_visible()
    _no_error(page)
    page.screenshot(path=str(artifacts / "one_answer_overview.png"), full_page=True)


def test_tau_moved_on_the_rapid_page_is_the_tau_of_the_overview_and_every_export(
    page, app_url, artifacts
):
    page.goto(f"{app_url}/rapid")
    expect(page.get_by_text("RAPID max (strongest attacker)").first).to_be_visible()
    idle(page)
    slider = page.get_by_role("slider").first
    slider.focus()
    for _ in range(26):  # τ 0.30 -> 0.56 in 0.01 steps
        page.keyboard.press("ArrowRight")
    expect(page.get_by_text("At τ = 0.56,")).to_be_visible()
    idle(page)
    head = float(_metric(page, "RAPID max (strongest attacker)"))
    box = page.locator('[data-testid="stMetric"]').filter(has_text="RAPID max").first
    caption = page.get_by_text(re.compile(r"^95% CI \d\.\d{3} – \d\.\d{3} · ")).first
    lo, hi = (float(x) for x in re.findall(r"\d\.\d{3}", caption.inner_text())[:2])
    n_risk, n_all = (
        int(x.replace(",", "")) for x in _metric(page, "Records at risk").split(" of ")
    )
    assert box.is_visible() and lo <= head <= hi
    # the page's HALF and SELF references at this τ (the same statistic: strongest attacker)
    refs = page.get_by_text(re.compile(r"HALF, a fresh real sample used as a release, reads"))
    text = refs.first.inner_text()
    half = float(re.search(r"used as a release, reads (\d\.\d{3})", text).group(1))
    copy = float(re.search(r"a copy of the real data, reads (\d\.\d{3})", text).group(1))
    page.screenshot(path=str(artifacts / "one_answer_rapid_tau.png"), full_page=True)

    # the Overview reads the same RAPID (absolute, as context beside the relative reading)
    _nav(page, "Overview", "Synthetic data privacy review")
    expect(
        page.get_by_text(re.compile(rf"RAPID \(strongest attacker, absolute\) {head:.3f}")).first
    ).to_be_visible()
    _no_error(page)
    page.screenshot(path=str(artifacts / "one_answer_overview_tau.png"), full_page=True)

    # the exports: the same τ, headline, interval and count
    _nav(page, "Review & report", "Review & report")
    doc = json.loads(_download(page, "Download JSON record"))
    ((name, cand),) = doc["candidates"].items()
    rapid = cand["metrics"]["rapid"]
    assert rapid["params"]["tau"] == pytest.approx(0.56)
    assert round(rapid["headline"]["value"], 3) == head
    assert [round(x, 3) for x in rapid["headline"]["ci"]] == [lo, hi]
    assert round(rapid["headline"]["value"] * n_all) == n_risk
    assert doc["review"]["candidates"][0]["verdict"] == cand["verdict"]
    references = doc["review"]["references"]["rapid"]
    assert round(references["half"]["value"], 3) == half
    assert round(references["self"]["value"], 3) == copy
    html = _download(page, "Download HTML report").decode("utf-8")
    pdf = _download(page, "Download PDF sign-off sheet")
    shown = f"{rapid['headline']['value']:.4f}"
    assert shown in html and shown.encode() in pdf
    assert cand["sentence"].split(" (")[0] in html
    assert f"Verdict for {name}: {cand['verdict']}.".encode() in pdf.replace(b"\\(", b"(").replace(
        b"\\)", b")"
    )
    _no_error(page)
