"""The review report: JSON record, HTML export and PDF sign-off sheet."""

import json
import warnings

import pytest

import privacy_core as pc
from privacy_core.measures import evaluate_measures

THREAT = pc.ThreatModel(["age", "education", "gender"], ["disease"])


@pytest.fixture(scope="module")
def review():
    train, hold = pc.simulate_health(600, seed=1), pc.simulate_health(400, seed=2)
    schema = pc.infer_schema(train)
    syn = pc.synthesize(pc.prepare_table(train, schema), method="cart", seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = evaluate_measures(train, [syn], names=["ims", "singling_out"], threat=THREAT,
                                    holdout=hold)

    def build(**kwargs):
        return pc.build_report(
            real=train, synthetic=[syn], results=results, threat=THREAT, schema=schema,
            holdout=hold, names={"real": "train.csv", "synthetic": ["cart.csv"],
                                 "holdout": "hold.csv"}, **kwargs)
    return build, results


def test_json_record_holds_aggregates_only_by_default(review):
    build, results = review
    report = build(decision="release", notes="ok")
    d = json.loads(report.to_json())
    assert d["decision"] == "release" and "records" not in d
    assert d["metrics"]["ims"]["value"] == pytest.approx(results["ims"].value)
    assert d["provenance"]["real"]["rows"] == 600 and len(d["provenance"]["real"]["fingerprint"]) == 16
    assert "records" in json.loads(build(include_records=True).to_json())
    assert build(decision="not a decision").decision == "undecided"


def test_pdf_sign_off_sheet(review):
    build, results = review
    report = build(decision="release with changes",
                   notes="Generalise age to 5-year bands – κ ≥ 2 checked.")
    pdf = pc.render_pdf(report)
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    # PDF strings escape parentheses
    for text in (b"Decision: release with changes", rb"Identical match share \(indicator\)",
                 b"Singling out", b"train.csv", b"kappa >= 2",
                 f"{results['singling_out'].value:.4f}".encode()):
        assert text in pdf, text
    # the same report gives the same bytes (creation date from the report, not the clock)
    assert pc.render_pdf(report) == pdf
    # per-record tables never enter the PDF, even when the report carries them
    with_records = pc.render_pdf(build(include_records=True))
    assert b"HTML and JSON exports only" in with_records
    some_record = str(results["singling_out"].records["guess"].iloc[0]).encode("latin-1")
    assert some_record not in with_records


@pytest.fixture(scope="module")
def calibration():
    real = pc.simulate_health(600, seed=4)
    return pc.calibrate(real, threat=THREAT, measures=["ims", "linkability"], levels=(0, 1),
                        ratios=(1, 2), max_training=150)


def test_calibration_table_enters_json_html_and_pdf_when_given(review, calibration):
    build, _ = review
    plain = build()
    assert "calibration" not in plain.to_dict()
    html_plain = pc.render_html(plain)
    assert "Calibration of the measures" not in html_plain
    assert b"Calibration of the measures" not in pc.render_pdf(plain)

    report = build(calibration=calibration)
    d = json.loads(report.to_json())
    cal = d["calibration"]
    assert set(cal["summary"]) == {"ims", "linkability"}
    ims = cal["summary"]["ims"]
    assert ims["label"] == "Identical match share" and ims["pass"] is True
    assert ims["floor"] == pytest.approx(calibration.summary("ims").floor)
    assert ims["ceiling"] == pytest.approx(calibration.summary("ims").ceiling)
    assert cal["levels"] == [0.0, 1.0] and cal["ratios"] == [1.0, 2.0]
    # aggregates only: values per measure, mode, ratio and level, no record
    assert {tuple(sorted(r)) for r in cal["rows"]} == {
        ("ci", "level", "metric", "mode", "ratio", "value")}
    assert "records" not in d

    html_text = pc.render_html(report)
    assert "Calibration of the measures on this data" in html_text
    assert "Identical match share" in html_text and "✓ pass" in html_text
    link = calibration.summary("linkability")
    if not link.passed:  # an uncalibrated measure shows the words and its reason
        assert "✗ uncalibrated on this data" in html_text
        assert pc.report.html.escape(link.reasons[0]) in html_text
    pdf = pc.render_pdf(report)
    assert b"Calibration of the measures on this data" in pdf
    assert f"{calibration.summary('ims').ceiling:.4f}".encode() in pdf


def test_calibration_rows_of_a_stopped_run_mark_unfinished_measures(review, calibration):
    from dataclasses import replace

    build, _ = review
    rows = calibration.rows
    partial = replace(calibration, rows=rows[~((rows["metric"] == "linkability")
                                               & (rows["level"] == 1.0))], stopped=True)
    d = build(calibration=partial).to_dict()
    status = {r["key"]: r["status"] for r in pc.report.calibration_rows(d)}
    assert status["ims"] == "pass"
    assert status["linkability"] == "incomplete (stopped)"


def test_rapid_tolerance_unit_is_stated_in_html_and_pdf():
    # The RAPID paper writes ε as a percentage; the report must say that 0.15 is 15 %.
    real = pc.simulate_health(300, seed=1)
    schema = pc.infer_schema(real)
    syn = pc.synthesize(pc.prepare_table(real, schema), method="cart", seed=3)
    threat = pc.ThreatModel(["age", "education", "gender"], ["income"])
    res = pc.rapid(real, syn, threat=threat, attackers=("logit",), bootstrap=0, epsilon=0.15)
    report = pc.build_report(real=real, synthetic=[syn], results={"rapid": res}, threat=threat,
                             schema=schema)
    note = "ε = 0.15 is a proportion, not a percentage"
    assert note in pc.render_html(report) and "below 15%" in pc.render_html(report)
    assert note.replace("ε", "epsilon").encode() in pc.render_pdf(report)
