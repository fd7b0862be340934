"""AppTest for issue 13, item 14: the exported review document and sign-off sheet.

The Review & report page takes the reviewer's name, role and date (kept across page
switches like the decision) and its downloads carry them; on the demo with every page
computed the HTML holds each page's key figure with plotly.js embedded once. The demo's
data, threat model and release at 400 rows (tests/app/small_demo.py).
"""

import datetime as dt
import json
import re
from pathlib import Path

from downloads import download
from small_demo import small_app
from streamlit.testing.v1 import AppTest

import privacy_core as pc

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 600


def start(page: str) -> AppTest:
    at = small_app(APP, TIMEOUT)  # the demo's review at 400 rows
    at.run()
    return goto(at, page)


def goto(at: AppTest, page: str) -> AppTest:
    at.switch_page(page).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def test_reviewer_name_role_and_date_are_kept_and_signed_in_every_export(monkeypatch):
    # the documents are rendered when a button is clicked, never on a run of the page:
    # typing the name, role and date below reruns the page four times
    rendered = []
    for name in ("render_pdf", "render_html"):
        real = getattr(pc, name)
        monkeypatch.setattr(
            pc, name, lambda *a, _real=real, _name=name: rendered.append(_name) or _real(*a)
        )
    at = start("pages/report.py")  # RAPID ran on the overview at the first start
    assert at.date_input(key="report_date").value == dt.date.today()
    assert at.text_input(key="report_reviewer").value == ""
    assert any("signature block will be left blank" in c.value for c in at.caption)
    at.text_input(key="report_reviewer").set_value("Zoë <b>Łukasz</b>").run()
    at.text_input(key="report_role").set_value("privacy officer").run()
    at.date_input(key="report_date").set_value(dt.date(2026, 11, 20)).run()
    at.radio(key="report_decision").set_value("do not release").run()
    assert not at.exception
    assert rendered == []
    exports = [b for b in at.get("download_button") if b.label.startswith("Download ")]
    assert len(exports) == 3 and all(b.proto.deferred_file_id for b in exports)

    record = json.loads(download(at, "Download JSON record"))["review"]
    assert record["sign_off"] == {
        "reviewer": "Zoë <b>Łukasz</b>",
        "role": "privacy officer",
        "date": "2026-11-20",
    }
    assert record["decision"] == "do not release"
    pdf = download(at, "Download PDF sign-off sheet")
    for text in (
        "Zoë <b>Lukasz</b>".encode("latin-1"),
        b"privacy officer",
        b"2026-11-20",
        b"Signature:",
        b"Decision: do not release",
    ):
        assert text in pdf, text
    page = download(at, "Download HTML report").decode()
    assert "Zoë &lt;b&gt;Łukasz&lt;/b&gt;" in page and "<b>Łukasz</b>" not in page
    assert rendered == ["render_pdf", "render_html"]  # once each, on its click

    # kept across a page switch, like the decision
    goto(at, "pages/rapid.py")
    goto(at, "pages/report.py")
    assert at.text_input(key="report_reviewer").value == "Zoë <b>Łukasz</b>"
    assert at.text_input(key="report_role").value == "privacy officer"
    assert at.date_input(key="report_date").value == dt.date(2026, 11, 20)


def test_demo_with_every_page_computed_exports_a_light_complete_document():
    at = start("pages/rapid.py")
    refs = [b for b in at.button if b.key == "rapid_references_btn"]
    if refs:  # not run on its own on this machine: the reviewer's click
        refs[0].click().run()
    goto(at, "pages/privacy.py")
    goto(at, "pages/fidelity.py")
    goto(at, "pages/map.py")
    compute = [b for b in at.button if b.label.startswith("Compute the map")]
    if compute:
        compute[0].click().run()
    goto(at, "pages/report.py")
    page = download(at, "Download HTML report").decode()

    sections = re.findall(r'<section id="([\w-]+)">', page)
    assert sections[0] == "summary" and sections[-1] == "provenance"
    assert {"inference", "attacks", "similarity", "fidelity", "map"} <= set(sections)
    figures = re.findall(
        r'<script type="application/json" id="fig\d+-data">(.*?)</script>', page, re.S
    )
    assert len(figures) >= 5  # RAPID, attacks, DCR, fidelity against references, the map
    assert page.count('id="plotly-bundle"') == 1 and not re.search(r"https?://", page)
    # RAPID is read against the data's own references (HALF / SELF)
    summary = page[page.index('<section id="summary">') : page.index('<section id="inference">')]
    assert "SELF (a copy of the real data)" in summary, summary[:3000]
    assert "HALF&#39;s interval" in summary  # escaped by the template (&#39; is ')
    # aggregates only: no drill-down by default, and the figures ship no raw values
    assert 'id="drill-down"' not in page
    assert all(len(f) < 60_000 for f in figures)
    bundle = page[page.index('id="plotly-bundle"') :]
    assert len(page) - bundle.index("</script>") < 400_000
    assert len(page.encode()) < 2_500_000  # measured 2.01 MB, of which plotly.js 1.96 MB


def _page_rapid(at: AppTest) -> tuple[float, float]:
    """(RAPID mean, RAPID max) as the RAPID page's metric cards show them."""
    cards = {m.label.split(" — ")[0]: m.value for m in at.metric if m.label.startswith("RAPID")}
    cards = {k: float(v) for k, v in cards.items()}
    return cards["RAPID (mean of attackers)"], cards["RAPID max (strongest attacker)"]


def test_the_report_shows_the_rapid_figure_of_the_page_for_every_scoring_method():
    """Issue 12: the report re-aggregates RAPID with the page's score and threshold, so a
    reviewer who picks the conditional or NCE score exports the number on screen."""
    at = start("pages/rapid.py")
    seen = set()
    for method, tau in (("marginal", 0.4), ("conditional", 1.2), ("nce", 0.2)):
        goto(at, "pages/rapid.py")
        at.selectbox(key="rapid_method").set_value(method).run()
        at.slider(key=f"rapid_tau_{method}").set_value(tau).run()
        assert not at.exception
        mean, strongest = _page_rapid(at)
        goto(at, "pages/report.py")
        record = json.loads(download(at, "Download JSON record"))["review"]
        rapid = record["candidates"][0]["metrics"]["rapid"]
        assert rapid["params"]["method"] == method
        assert rapid["params"]["tau"] == tau
        assert round(rapid["value"], 3) == mean
        assert round(rapid["rate_max"], 3) == strongest
        seen.add(round(rapid["value"], 3))
    assert len(seen) == 3  # three scores, three different figures: the test can fail
