"""The review report: JSON record, HTML export and PDF sign-off sheet."""

import html
import json
import warnings

import numpy as np
import pytest

import privacy_core as pc
from privacy_core.evaluation import evaluate_measures

THREAT = pc.ThreatModel(["age", "education", "gender"], ["disease"])


@pytest.fixture(scope="module")
def review():
    train, hold = pc.simulate_health(600, seed=1), pc.simulate_health(400, seed=2)
    schema = pc.infer_schema(train)
    syn = pc.synthesize(pc.prepare_table(train, schema), method="cart", seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = evaluate_measures(
            train, [syn], names=["ims", "singling_out"], threat=THREAT, holdout=hold
        )

    def build(**kwargs):
        return pc.build_report(
            real=train,
            synthetic=[syn],
            results=results,
            threat=THREAT,
            schema=schema,
            holdout=hold,
            names={"real": "train.csv", "synthetic": ["cart.csv"], "holdout": "hold.csv"},
            **kwargs,
        )

    return build, results


def test_json_record_holds_aggregates_only_by_default(review):
    build, results = review
    report = build(decision="release", notes="ok")
    d = json.loads(report.to_json())
    assert d["decision"] == "release" and "records" not in d
    assert d["metrics"]["ims"]["value"] == pytest.approx(results["ims"].value)
    assert (
        d["provenance"]["real"]["rows"] == 600 and len(d["provenance"]["real"]["fingerprint"]) == 16
    )
    assert "records" in json.loads(build(include_records=True).to_json())
    assert build(decision="not a decision").decision == "undecided"


def test_pdf_sign_off_sheet(review):
    build, results = review
    report = build(
        decision="release with changes", notes="Generalise age to 5-year bands – κ ≥ 2 checked."
    )
    pdf = pc.render_pdf(report)
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    # PDF strings escape parentheses
    for text in (
        b"Decision: release with changes",
        rb"Identical match share \(indicator\)",
        b"Singling out",
        b"train.csv",
        b"kappa >= 2",
        f"{results['singling_out'].value:.4f}".encode(),
    ):
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
    return pc.calibrate(
        real,
        threat=THREAT,
        measures=["ims", "linkability"],
        levels=(0, 1),
        ratios=(1, 2),
        max_training=150,
    )


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
    assert set(cal["summary"]) == {"ims", "linkability", "linkability:contrastive"}
    ims = cal["summary"]["ims"]
    assert ims["label"] == "Identical match share" and ims["pass"] is True
    assert ims["floor"] == pytest.approx(calibration.summary("ims").floor)
    assert ims["ceiling"] == pytest.approx(calibration.summary("ims").ceiling)
    assert cal["levels"] == [0.0, 1.0] and cal["ratios"] == [1.0, 2.0]
    # aggregates only: values per measure, mode, ratio and level, no record
    assert {tuple(sorted(r)) for r in cal["rows"]} == {
        ("ci", "level", "metric", "mode", "ratio", "value")
    }
    assert "records" not in d

    html_text = pc.render_html(report)
    assert "Calibration of the measures on this data" in html_text
    assert "Identical match share" in html_text and "✓ pass" in html_text
    link = calibration.summary("linkability")
    if not link.passed:  # an uncalibrated measure shows the words and its reason
        assert "✗ uncalibrated on this data" in html_text
        assert html.escape(link.reasons[0]) in html_text
    pdf = pc.render_pdf(report)
    assert b"Calibration of the measures on this data" in pdf
    assert f"{calibration.summary('ims').ceiling:.4f}".encode() in pdf


def test_calibration_rows_of_a_stopped_run_mark_unfinished_measures(review, calibration):
    from dataclasses import replace

    build, _ = review
    rows = calibration.rows
    partial = replace(
        calibration,
        rows=rows[~((rows["metric"] == "linkability") & (rows["level"] == 1.0))],
        stopped=True,
    )
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
    report = pc.build_report(
        real=real, synthetic=[syn], results={"rapid": res}, threat=threat, schema=schema
    )
    note = "ε = 0.15 is a proportion, not a percentage"
    assert note in pc.render_html(report) and "below 15%" in pc.render_html(report)
    assert note.replace("ε", "epsilon").encode() in pc.render_pdf(report)


# ------------------------------------------------------------------ release groups
@pytest.fixture(scope="module")
def candidates():
    """Two candidates: CART at two leaf sizes (replicates at seeds 3 and 4) and a
    histogram release. Measures run per group, as the app does."""
    train, hold = pc.simulate_health(500, seed=1), pc.simulate_health(300, seed=2)
    schema = pc.infer_schema(train)
    real_c = pc.prepare_table(train, schema)
    cart = [pc.synthesize(real_c, method="cart", seed=s) for s in (3, 4)]
    hist = pc.synthesize(real_c, method="histogram", seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res_cart = evaluate_measures(
            train, cart, names=["ims", "linkability"], threat=THREAT, holdout=hold, seed=0
        )
        res_hist = evaluate_measures(
            train, [hist], names=["ims"], threat=THREAT, holdout=hold, seed=0
        )
    groups = [
        pc.report.ReleaseGroup("CART", ("cart s3", "cart s4"), res_cart),
        pc.report.ReleaseGroup("HISTOGRAM", ("hist",), res_hist),
    ]
    report = pc.build_report(
        real=train,
        synthetic=[*cart, hist],
        groups=groups,
        threat=THREAT,
        schema=schema,
        names={"real": "train.csv", "synthetic": ["cart s3", "cart s4", "hist"]},
    )
    return report, res_cart, res_hist


def test_candidates_are_side_by_side_and_replicates_averaged_within_a_group(candidates):
    report, res_cart, res_hist = candidates
    d = json.loads(report.to_json())
    # several candidates: no single "metrics" block that would hide which one it is
    assert "metrics" not in d and report.metrics == {}
    assert [c["name"] for c in d["candidates"]] == ["CART", "HISTOGRAM"]
    assert [c["n_releases"] for c in d["candidates"]] == [2, 1]
    assert [s["group"] for s in d["provenance"]["synthetic"]] == ["CART", "CART", "HISTOGRAM"]
    cart, hist = d["candidates"]
    assert cart["metrics"]["ims"]["value"] == pytest.approx(res_cart["ims"].value)
    assert hist["metrics"]["ims"]["value"] == pytest.approx(res_hist["ims"].value)
    assert cart["metrics"]["ims"]["params"]["n_releases"] == 2
    assert "n_releases" not in hist["metrics"]["ims"]["params"]

    rows = {r["key"]: r for r in pc.report.candidate_table(d)}
    assert list(rows) == ["ims", "linkability"]
    cell = rows["ims"]["cells"]["CART"]
    reps = res_cart["ims"].extra["replicates"]
    assert cell["replicates"] == pytest.approx(reps)
    assert cell["sd"] == pytest.approx(float(np.std(reps, ddof=1)))
    assert cell["value"] == pytest.approx(np.mean(reps))
    assert rows["ims"]["cells"]["HISTOGRAM"]["sd"] is None
    # a measure run for one candidate only is "not computed" for the other, not borrowed
    assert rows["linkability"]["cells"]["HISTOGRAM"] is None
    assert pc.report.format_cell(None) == "not computed"
    assert pc.report.format_cell(cell).startswith(f"mean {np.mean(reps):.4f} ± ")
    assert cell["targets"] == ""  # not a members-against-non-members share


def test_an_sdc_cell_says_how_many_targets_each_side_rests_on():
    """The report's cell of an sdcMicro classic names the targets behind each share, as
    the Privacy page's card does (a baseline of 0 from six holdout records is thin)."""
    metric = {
        "value": 0.351,
        "ci": [0.05, 0.45],
        "baseline": 0.0,
        "p_members": 0.351,
        "n_member_targets": 111,
        "p_non_members": 0.0,
        "n_non_member_targets": 6,
    }
    d = {"candidates": [{"name": "CART", "metrics": {"k_anonymity": metric}}]}
    (row,) = pc.report.candidate_table(d)
    cell = row["cells"]["CART"]
    assert cell["targets"] == "members' share 0.351 of 111 targets, baseline from 6 holdout targets"
    assert pc.report.format_cell(cell).endswith("; baseline 0.0000; " + cell["targets"])


def test_candidates_side_by_side_in_html_and_pdf(candidates):
    report, res_cart, res_hist = candidates
    page = pc.render_html(report)
    assert "<th>CART<br><small>2 replicates of one generator (mean ± sd)</small></th>" in page
    assert "<th>HISTOGRAM<br><small>1 release</small></th>" in page
    assert "2 candidates side by side" in page and "not computed" in page
    ims_row = page[page.index("<code>ims</code>") :].split("</tr>")[0]
    assert f"{res_cart['ims'].value:.4f}" in ims_row
    assert f"{res_hist['ims'].value:.4f}" in ims_row
    pdf = pc.render_pdf(report)
    for text in (
        b"2 candidates side by side",
        b"CART \\(2 replicates of one generator",
        b"HISTOGRAM \\(1 release\\)",
        b"not computed",
        f"{res_hist['ims'].value:.4f}".encode(),
        b"CART: ims",
        b"HISTOGRAM: ims",
    ):
        assert text in pdf, text


def test_one_candidate_keeps_the_metrics_block(review):
    build, results = review
    d = build().to_dict()
    assert d["metrics"].keys() == results.keys()
    assert [c["name"] for c in d["candidates"]] == ["cart.csv"]
    assert d["provenance"]["synthetic"][0]["group"] == "cart.csv"


@pytest.mark.parametrize(
    "groups, message",
    [
        ([("A", ("a",)), ("A", ("b",))], "distinct"),
        ([("A", ("a", "b")), ("B", ("b",))], "more than one group"),
        ([("A", ("a",))], "in no group"),
        ([("A", ("a", "b", "zzz"))], "not among the synthetic inputs"),
    ],
)
def test_bad_groups_are_refused_with_a_specific_error(review, groups, message):
    frame = pc.simulate_health(50, seed=1)
    with pytest.raises(pc.ParameterError, match=message):
        pc.build_report(
            real=frame,
            synthetic=[frame, frame],
            threat=THREAT,
            schema=pc.infer_schema(frame),
            names={"synthetic": ["a", "b"]},
            groups=[pc.report.ReleaseGroup(n, r, {}) for n, r in groups],
        )
    with pytest.raises(pc.ParameterError, match="either results"):
        pc.build_report(real=frame, synthetic=[frame], threat=THREAT, schema=pc.infer_schema(frame))
    with pytest.raises(pc.ParameterError, match="at least one release"):
        pc.report.ReleaseGroup("empty", ())


def test_replicate_spread_reads_rapid_and_wasserstein():
    real = pc.simulate_health(300, seed=1)
    schema = pc.infer_schema(real)
    real_c = pc.prepare_table(real, schema)
    syn = [pc.synthesize(real_c, method="cart", seed=s) for s in (3, 4, 5)]
    threat = pc.ThreatModel(["age", "education", "gender"], ["disease"])
    rapid = pc.rapid(real, syn, threat=threat, attackers=("logit",), bootstrap=0)
    values, sd = pc.report.replicate_spread(rapid.to_dict())
    assert len(values) == 3 and sd == pytest.approx(np.std(values, ddof=1))
    assert np.mean(values) == pytest.approx(rapid.value)
    wd = pc.wasserstein_fidelity(real_c, syn, schema=schema, seed=0)
    values, sd = pc.report.replicate_spread(wd.to_dict())
    assert len(values) == 3 and np.mean(values) == pytest.approx(wd.value)
    one = pc.rapid(real, syn[0], threat=threat, attackers=("logit",), bootstrap=0)
    assert pc.report.replicate_spread(one.to_dict()) == ([], None)


# ------------------------------------------------------------------ review document (item 14)
import re  # noqa: E402

import pandas as pd  # noqa: E402
import plotly.graph_objects as go  # noqa: E402

import privacy_core.plots as plots  # noqa: E402

EVIL = "<script>alert(1)</script>"


def _ref(name, value, lo, hi):
    return pc.MetricResult(name=name, value=value, ci=(lo, hi), params={})


@pytest.fixture(scope="module")
def session():
    """A computed session in small: two candidates (one named with a script tag), privacy
    and fidelity measures, HALF / SELF references, a calibration, each family's figure."""
    train, hold = pc.simulate_health(500, seed=1), pc.simulate_health(300, seed=2)
    train, hold = (t.rename(columns={"income": EVIL}) for t in (train, hold))
    schema = pc.infer_schema(train)
    real_c = pc.prepare_table(train, schema)
    cart, hist = (pc.synthesize(real_c, method=m, seed=3) for m in ("cart", "histogram"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = {
            name: evaluate_measures(
                train,
                [syn],
                names=["ims", "dcr", "singling_out"],
                threat=THREAT,
                holdout=hold,
                seed=0,
            )
            for name, syn in (("cart", cart), ("hist", hist))
        }
        for name, syn in (("cart", cart), ("hist", hist)):
            res[name]["rapid"] = pc.rapid(
                train, syn, threat=THREAT, attackers=("logit",), bootstrap=0
            )
            res[name]["wasserstein"] = pc.wasserstein_fidelity(real_c, [syn], schema=schema, seed=0)
    evil_name = f"CART {EVIL}"
    groups = [
        pc.report.ReleaseGroup(evil_name, ("cart",), res["cart"]),
        pc.report.ReleaseGroup("HISTOGRAM", ("hist",), res["hist"]),
    ]
    rapid_cart = res["cart"]["rapid"].value
    references = {
        "rapid": {
            "half": _ref("rapid", rapid_cart - 0.2, rapid_cart - 0.25, rapid_cart - 0.15),
            "self": _ref("rapid", rapid_cart + 0.2, rapid_cart + 0.15, rapid_cart + 0.25),
        }
    }
    calibration = pc.calibrate(
        train, threat=THREAT, measures=["ims"], levels=(0, 1), ratios=(1,), max_training=120
    )
    Fig = pc.report.ReportFigure
    figures = []
    for g in groups:
        r = g.results
        figures += [
            Fig(
                "inference",
                "RAPID against the threshold",
                plots.rapid_threshold_curve(r["rapid"]),
                g.name,
            ),
            Fig(
                "attacks", "Attack success", plots.attack_rates_figure([r["singling_out"]]), g.name
            ),
            Fig(
                "similarity",
                "Distance to the closest record",
                plots.dcr_histogram(r["dcr"]),
                g.name,
            ),
        ]
    figures += [
        Fig(
            "fidelity",
            "Fidelity against the references",
            plots.fidelity_reference_figure(
                {g.name: {"wasserstein": g.results["wasserstein"]} for g in groups}
            ),
        ),
        Fig("calibration", "Calibration", plots.calibration_figure(calibration)),
    ]

    def build(**kwargs):
        base = dict(
            real=train,
            synthetic=[cart, hist],
            groups=groups,
            threat=THREAT,
            schema=schema,
            holdout=hold,
            names={"real": "train.csv", "synthetic": ["cart", "hist"]},
            references=references,
            calibration=calibration,
            decision="release",
            reviewer="Zoë Łukasz-Nowak 日本",
            role="privacy officer",
            review_date="2026-11-23",
            notes=f"Checked {EVIL} & co.",
        )
        return pc.build_report(**{**base, **kwargs})

    return build, figures, res


def test_html_is_one_light_self_contained_document(session):
    build, figures, _ = session
    page = pc.render_html(build(), figures)
    # plotly.js once, compressed; nothing loaded from any host
    assert page.count('id="plotly-bundle"') == 1
    assert page.count("DecompressionStream") == 1
    assert "cdn.plot.ly" not in page and not re.search(r"https?://", page)
    assert not re.search(r"<(script|link|img|iframe)[^>]*\s(src|href)=", page, re.I)
    # every figure is drawn from its own small JSON block
    blocks = re.findall(
        r'<script type="application/json" id="(fig\d+)-data">(.*?)</script>', page, re.S
    )
    assert len(blocks) == len(figures)
    for _, spec in blocks:
        data = json.loads(spec)
        assert "template" not in data["layout"]
        assert all(t.get("type") != "histogram" for t in data["data"])  # binned into bars
        assert len(spec) < 60_000
    bundle = page[page.index('id="plotly-bundle"') :]
    bundle = bundle[: bundle.index("</script>")]
    assert len(page) - len(bundle) < 400_000  # everything but plotly.js: light
    assert len(page) < 2_500_000  # plotly.js alone is 4.8 MB uncompressed


def test_html_has_every_section_and_reads_candidates_against_the_references(session):
    build, figures, res = session
    page = pc.render_html(build(), figures)
    toc = page[page.index('<nav class="toc">') : page.index("</nav>")]
    for sid in (
        "summary",
        "inference",
        "attacks",
        "similarity",
        "fidelity",
        "calibration",
        "provenance",
    ):
        assert f'href="#{sid}"' in toc and f'<section id="{sid}">' in page, sid
    assert "drill-down" not in page  # aggregates only by default
    summary = page[page.index('<section id="summary">') : page.index('<section id="inference">')]
    assert "Decision: <b>release</b>" in summary and "privacy officer" in summary
    assert "Zoë Łukasz-Nowak 日本" in summary and "2026-11-23" in summary
    # the two candidates side by side with their reading against HALF and SELF
    assert "<th>HISTOGRAM<br><small>1 release</small></th>" in summary
    assert "HALF (a fresh real sample)" in summary and "SELF (a copy of the real data)" in summary
    assert "of the way from HALF to SELF" in summary  # rapid_cart is half-way by design
    assert "Indicator, not a disclosure measure" in page
    # figures sit in their family's section, once per candidate
    inference = page[page.index('<section id="inference">') : page.index('<section id="attacks">')]
    assert inference.count('class="figure"') == 2 and "HISTOGRAM" in inference
    # drill-down only when per-record tables were asked for, and a few rows only
    with_records = pc.render_html(build(include_records=True), figures)
    drill = with_records[with_records.index('<section id="drill-down">') :]
    drill = drill[: drill.index("</section>")]
    assert "real records" in drill
    first = re.search(
        r"<h3>(.*?): per-record table <small>\((\d[\d,]*) records, 5 shown\)"
        r"</small></h3>(.*?)</table>",
        drill,
        re.S,
    )
    assert first and int(first.group(2).replace(",", "")) > 5
    assert first.group(3).count("<tr>") <= 6  # header + 5 example rows


def test_reference_reading_places_a_value_between_half_and_self():
    refs = {"half": {"value": 0.2, "ci": [0.15, 0.25]}, "self": {"value": 0.6, "ci": None}}
    assert pc.report.reference_reading(0.22, refs).startswith("within HALF's interval")
    assert "50% of the way from HALF to SELF" in pc.report.reference_reading(0.4, refs)
    assert "beyond SELF" in pc.report.reference_reading(0.9, refs)
    assert "below HALF" in pc.report.reference_reading(0.1, refs)
    assert pc.report.reference_reading(0.4, None) == ""


def test_every_user_string_is_escaped(session):
    build, figures, _ = session
    page = pc.render_html(build(include_records=True), figures)
    # no script element but ours: the bundle, the loader and the figures' JSON
    tags = re.findall(r"<script[^>]*>", page)
    allowed = {'<script id="plotly-bundle" type="application/octet-stream">', "<script>"}
    assert all(
        t in allowed or t.startswith('<script type="application/json" id="fig') for t in tags
    ), tags
    assert page.count("<script>") == 1
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # column, release, notes
    # inside the figures' JSON no "<" survives (a name cannot close the script element)
    for spec in re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', page, re.S):
        assert "<" not in spec
    assert EVIL in json.dumps(json.loads(build().to_json()))  # the JSON keeps names as typed


def test_slim_figure_bins_histograms_and_thins_long_lines():
    rng = np.random.default_rng(0)
    values = rng.normal(size=10_000)
    fig = go.Figure(
        [
            go.Histogram(x=values, nbinsx=40, name="a"),
            go.Scatter(x=np.arange(5000), y=np.sin(np.arange(5000)), mode="lines"),
        ]
    )
    slim = pc.report.slim_figure(fig)
    bars, line = slim["data"]
    assert bars["type"] == "bar" and len(bars["x"]) == 40 and sum(bars["y"]) == 10_000
    assert len(line["x"]) <= pc.report.MAX_POINTS
    assert line["x"][0] == 0 and line["x"][-1] == 4999
    assert len(json.dumps(slim)) < len(fig.to_json()) / 10


def test_pdf_is_a_sign_off_sheet_with_key_figures(session):
    build, _, res = session
    report = build()
    pdf = pc.render_pdf(report)
    layout = pc.report.pdf_layout(report)
    for text in (
        b"sign-off sheet",
        b"Decision: release",
        b"Reviewer name:",
        b"privacy officer",
        b"2026-11-23",
        b"Signature:",
        b"Key figures",
        b"Data provenance",
        b"HALF ",
        b"SELF ",
        f"{res['cart']['rapid'].value:.3f}".encode(),
        f"{res['hist']['rapid'].value:.3f}".encode(),
    ):
        assert text in pdf, text
    # the charts are drawn: one filled dot (four Bezier arcs, then "f") per candidate and
    # measure computed
    cells = [
        cell
        for row in pc.report.candidate_table(report.to_dict())
        for cell in row["cells"].values()
        if cell is not None
    ]
    assert len(cells) == 10 and pdf.count(b" c f\n") == len(cells)
    # Unicode: Latin-1 kept, other letters transliterated or coded, and the sheet says so
    assert "Zoë".encode("latin-1") in pdf and b"Lukasz-Nowak" in pdf
    assert b"[U+65E5]" in pdf and b"latin capital letter l with stroke -> L" in pdf
    assert b"Characters outside this sheet's Latin-1 font were replaced" in pdf
    # no nearly empty last page
    assert layout["pages"] == pdf.count(b"/Type /Page\n")
    assert layout["pages"] <= 4
    assert layout["pages"] == 1 or layout["last_page_used_mm"] >= pc.report.LAST_PAGE_MIN_MM


def test_pdf_without_a_reviewer_leaves_the_signature_block_blank(review):
    build, _ = review
    report = build()
    assert report.review_date == pd.Timestamp.now(tz="UTC").date().isoformat()
    pdf = pc.render_pdf(report)
    assert rb"\(not given\)" in pdf and b"Signature:" in pdf  # PDF strings escape ()
    assert b"Characters outside" not in pdf  # nothing to replace, nothing listed
    d = json.loads(report.to_json())
    assert d["sign_off"] == {"reviewer": "", "role": "", "date": report.review_date}


def test_candidate_table_reads_each_measure_by_its_goal():
    """The discriminator's AUC is best at 0.5, not low: the report says so in words."""
    d = {
        "candidates": [
            {
                "name": "c",
                "n_releases": 1,
                "metrics": {
                    "discriminator": {"value": 0.62, "ci": [0.6, 0.64], "goal": "lower"},
                    "dcr": {"value": 0.1, "ci": [0.05, 0.15], "goal": "lower"},
                },
            }
        ]
    }
    goals = {r["key"]: r["goal"] for r in pc.report.candidate_table(d)}
    assert goals == {"discriminator": "0.5 is best (indistinguishable)", "dcr": "lower is better"}
