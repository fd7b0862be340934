"""The exported HTML report opens offline in a browser and draws every figure.

Reviews run in secure rooms without internet (see test_offline.py for the app): the report
file must load nothing from any host — plotly.js is embedded once, compressed — and a
script tag in a column or release name must stay text.
"""

import warnings

import pytest

import privacy_core as pc
import privacy_core.plots as plots
from privacy_core.evaluation import evaluate_measures

pytestmark = pytest.mark.e2e

EVIL = "<script>alert('x')</script>"


@pytest.fixture(scope="module")
def report_file(tmp_path_factory):
    real = pc.simulate_health(400, seed=1).rename(columns={"income": EVIL})
    hold = pc.simulate_health(300, seed=2).rename(columns={"income": EVIL})
    schema = pc.infer_schema(real)
    syn = pc.synthesize(pc.prepare_table(real, schema), method="cart", seed=3)
    threat = pc.ThreatModel(["age", "education", "gender"], ["disease"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = evaluate_measures(
            real, [syn], names=["dcr", "singling_out"], threat=threat, holdout=hold, seed=0
        )
        results["rapid"] = pc.rapid(real, syn, threat=threat, attackers=("logit",), bootstrap=0)
    Fig = pc.report.ReportFigure
    figures = [
        Fig("inference", "RAPID", plots.rapid_threshold_curve(results["rapid"])),
        Fig("attacks", "Attacks", plots.attack_rates_figure([results["singling_out"]])),
        Fig("similarity", "DCR", plots.dcr_histogram(results["dcr"])),
    ]
    report = pc.build_report(
        real=real,
        synthetic=[syn],
        results=results,
        threat=threat,
        schema=schema,
        holdout=hold,
        reviewer=EVIL,
        names={"real": "real.csv", "synthetic": [f"cart {EVIL}"]},
    )
    path = tmp_path_factory.mktemp("report") / "review.html"
    path.write_text(pc.render_html(report, figures), encoding="utf-8")
    return path, len(figures)


def test_report_opens_offline_and_draws_every_figure(page, report_file, artifacts):
    path, n_figures = report_file
    outside, dialogs, errors = [], [], []
    page.on(
        "request",
        lambda r: None if r.url.startswith(("file:", "data:", "blob:")) else outside.append(r.url),
    )
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_function(
        f"document.querySelectorAll('div.figure .main-svg').length >= {n_figures}", timeout=60_000
    )
    page.wait_for_timeout(1000)
    assert outside == [], f"requests to outside hosts: {outside}"
    assert dialogs == [] and errors == [], (dialogs, errors)
    # each figure drawn once, from the one embedded plotly.js
    assert page.locator("div.figure").count() == n_figures
    assert page.evaluate("typeof Plotly.newPlot") == "function"
    assert page.get_by_text(EVIL).first.is_visible()  # the name shown as text
    page.screenshot(path=str(artifacts / "report_offline.png"), full_page=False)
