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
