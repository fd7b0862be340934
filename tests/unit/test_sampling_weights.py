"""The sampling-weight column (issue 34): declared once, in the threat model, it reaches
sdcMicro's measures through ``evaluate()`` and stays out of every other measure.

Wrong implementations these catch, test by test: ``evaluate()`` not passing the declared
column to the measures that take ``weights`` (individual risk reads the unweighted 9/13
instead of the hand-computed weighted value); the weight column left in the schema (it
becomes a default quasi-identifier, enters DCR's columns and Wasserstein's marginals, a
release without it is refused as missing a column, and a release whose weights differ
moves DCR); a check that lets text, values below 1, infinities or missing values
through, or that gives the threat model and the measure different messages for the same
bad column; a holdout without weights reported as "not in the real table"; a
per-measure ``weights`` option competing with the threat model's; the TOML config
ignoring ``[threat] weights``; the review record, the report and the history losing the
declared column, or the history's inputs key moving for reviews stored before it existed.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
from privacy_core.evaluation import evaluate
from privacy_core.history import inputs_key
from privacy_core.review import ReviewConfig, parse_review_config, run_review
from privacy_core.risk.sdc import individual_risk_reproduced, reproduced_uniques
from privacy_core.sampling_weights import check_weight_column, mark_weight_column

# The worked example of tests/unit/test_sdc_classics.py: key (sex, region), sensitive dx.
# Pooled frequencies: (F,N) 4, (M,N) 2, (M,S), (F,S), (M,E), (F,E) 1 each.
TRAIN = pd.DataFrame(
    {
        "sex": ["F", "F", "F", "M", "M", "F"],
        "region": ["N", "N", "N", "N", "S", "S"],
        "dx": ["a", "b", "a", "a", "b", "c"],
    }
)
HOLD = pd.DataFrame(
    {"sex": ["M", "M", "F", "F"], "region": ["N", "E", "E", "N"], "dx": ["b", "a", "c", "a"]}
)
RELEASE = pd.DataFrame(  # no weight column: releases usually lack it
    {"sex": ["M", "M", "F", "F"], "region": ["N", "S", "N", "N"], "dx": ["a", "c", "c", "b"]}
)
WEIGHTED = pc.ThreatModel(["sex", "region"], ["dx"], weights="w")
WEIGHTED_OFF = pc.ThreatModel(["sex", "region"], ["dx"])


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # region E is unseen in training
        yield


def test_declared_weights_reach_individual_risk_through_evaluate_by_hand():
    # every record stands for 2 people: F_k = 2 f_k, p = f_k / F_k = 1/2 for every key,
    # so sdcMicro's approximation gives r = p/(1-p) log(1/p) = log 2 for f = 1,
    # 1 - log 2 for f = 2 and p / (f - (1 - p)) = 1/7 for f = 4 (unweighted: 1/f_k)
    review = evaluate(
        TRAIN.assign(w=2.0),
        RELEASE,
        measures=["individual_risk", "reproduced_uniques"],
        threat=WEIGHTED,
        holdout=HOLD.assign(w=2.0),
    )
    res = review["individual_risk"]
    assert res.params["weights"] == "w"
    ln2 = math.log(2)
    # members (F,N) x3, (M,N), (M,S), (F,S); reproduced: (F,N), (M,N), (M,S)
    p_members = (3 / 7 + (1 - ln2) + ln2) / (3 / 7 + (1 - ln2) + 2 * ln2)
    # non-members (M,N), (M,E), (F,E), (F,N); reproduced: (M,N), (F,N)
    p_non = ((1 - ln2) + 1 / 7) / ((1 - ln2) + 2 * ln2 + 1 / 7)
    assert res.extra["p_members"] == pytest.approx(p_members)
    assert res.baseline == pytest.approx(p_non)
    assert res.value == pytest.approx((p_members - p_non) / (1 - p_non))
    # unweighted, the same inputs read (9/13 - 3/11) / (1 - 3/11): the weights moved it
    plain = evaluate(
        TRAIN, RELEASE, measures=["individual_risk"], threat=WEIGHTED_OFF, holdout=HOLD
    )
    unweighted = (9 / 13 - 3 / 11) / (1 - 3 / 11)
    assert plain["individual_risk"].value == pytest.approx(unweighted)
    assert plain["individual_risk"].params["weights"] is None
    assert abs(res.value - unweighted) > 0.005
    # reproduced_uniques takes them too: its F_k is the sum of the weights, 2 f_k
    rec = review["reproduced_uniques"].records
    assert review["reproduced_uniques"].params["weights"] == "w"
    np.testing.assert_allclose(rec["F_k"], 2 * rec["f_k"])


def _survey(n: int = 120, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(20, 70, n),
            "sex": rng.choice(["F", "M"], n),
            "income": rng.normal(30_000, 8_000, n).round(2),
            "dx": rng.choice(["a", "b", "c"], n),
            "w": rng.uniform(1, 400, n).round(1),
        }
    )


def test_the_weight_column_stays_out_of_every_other_measure_and_releases_may_lack_it():
    real, hold = _survey(seed=1), _survey(seed=2)
    release = _survey(seed=3).drop(columns="w")
    threat = pc.ThreatModel(["age", "sex"], ["dx"], weights="w")
    names = ["dcr", "ims", "wasserstein", "individual_risk"]
    without = evaluate(real, release, measures=names, threat=threat, holdout=hold)
    assert "w" not in without["dcr"].params["columns"]
    assert not any("w" in key.split("|") for key in without["wasserstein"].extra["by_marginal"])
    # a release that has the column, with weights unrelated to the real ones: every
    # measure but the weighted one reads exactly what it read without the column
    with_w = evaluate(
        real,
        release.assign(w=np.linspace(1, 1e6, len(release))),
        measures=names,
        threat=threat,
        holdout=hold,
    )
    for name in ("dcr", "ims", "wasserstein"):
        assert with_w[name].value == without[name].value, name
    # unmarked (no weights declared) the same column is an attribute and moves DCR
    plain = pc.ThreatModel(["age", "sex"], ["dx"])
    moved = evaluate(
        real,
        release.assign(w=np.linspace(1, 1e6, len(release))),
        measures=["dcr"],
        threat=plain,
        holdout=hold,
    )
    assert "w" in moved["dcr"].params["columns"]


def test_the_weight_column_is_marked_excluded_and_never_a_suggested_qi():
    real = _survey()
    schema = mark_weight_column(pc.infer_schema(real), "w")
    spec = schema["w"]
    assert spec.kind == "weight" and not spec.included and spec.note == "sampling weight"
    assert "w" not in schema.included and schema.weight == "w"
    assert mark_weight_column(schema, "w") is schema  # marked once
    with pytest.raises(pc.SchemaError, match="'w' is the sampling weight already"):
        schema.with_weight("income")
    suggestion = pc.suggest_quasi_identifiers(real, schema, "dx")
    assert "w" not in suggestion.columns and suggestion["w"].category == "excluded"
    assert "sampling weight" in suggestion.reason("w")
    # the review's schema as the measures see it marks it too
    data = pc.prepare_review(real, real.drop(columns="w"), threat=pc.ThreatModel(
        ["age"], ["dx"], weights="w"))  # fmt: skip
    assert data.schema.weight == "w" and "w" not in data.real.columns


BAD_WEIGHTS = {
    "missing": (lambda f: f.drop(columns="w"), "is not in the real table"),
    "text": (lambda f: f.assign(w=["many"] * len(f)), "must hold sampling weights"),
    "below one": (lambda f: f.assign(w=0.5), "must hold sampling weights"),
    "missing value": (lambda f: f.assign(w=[np.nan] + [2.0] * (len(f) - 1)), "none missing"),
    "infinite": (lambda f: f.assign(w=[np.inf] + [2.0] * (len(f) - 1)), "none missing"),
}


@pytest.mark.parametrize("case", list(BAD_WEIGHTS))
def test_each_bad_weight_column_is_refused_with_the_same_message_everywhere(case):
    damage, words = BAD_WEIGHTS[case]
    real = damage(TRAIN.assign(w=2.0))
    with pytest.raises(pc.ThreatModelError, match=words) as engine:
        WEIGHTED.validate_weights(real)
    message = str(engine.value)
    # the one check, wherever it runs: the review's inputs, evaluate(), the measure's own
    # check when it is called directly with weights= (a ParameterError there)
    with pytest.raises(pc.ThreatModelError) as prepared:
        pc.prepare_review(real, RELEASE, threat=WEIGHTED)
    with pytest.raises(pc.ThreatModelError) as evaluated:
        evaluate(real, RELEASE, measures=["ims", "individual_risk"], threat=WEIGHTED)
    # undeclared, the column is an attribute of the schema: the release must match it
    release = RELEASE.assign(w=1.0) if "w" in real.columns else RELEASE
    with pytest.raises(pc.ParameterError) as direct:
        individual_risk_reproduced(real, release, threat=WEIGHTED_OFF, weights="w")
    assert str(prepared.value) == str(evaluated.value) == str(direct.value) == message
    with pytest.raises(pc.ParameterError) as own:
        check_weight_column(real, "w", error=pc.ParameterError)
    assert str(own.value) == message


def test_a_weight_column_that_is_a_qi_or_sensitive_is_refused_when_declared():
    with pytest.raises(pc.ThreatModelError) as qi:
        pc.ThreatModel(["sex", "w"], ["dx"], weights="w")
    with pytest.raises(pc.ParameterError) as direct:
        reproduced_uniques(
            TRAIN.assign(w=[10.0, 12, 8, 30, 50, 40]),
            RELEASE.assign(w=1.0),
            threat=pc.ThreatModel(["sex", "w"], ["dx"]),
            weights="w",
        )
    assert "also a quasi-identifier" in str(qi.value) and str(qi.value) == str(direct.value)
    with pytest.raises(pc.ThreatModelError, match="'w' is also sensitive"):
        pc.ThreatModel(["sex"], ["dx", "w"], weights="w")
    for bad in ("", 3, ["w"]):
        with pytest.raises(pc.ThreatModelError, match="one column name"):
            pc.ThreatModel(["sex"], ["dx"], weights=bad)  # type: ignore[arg-type]


def test_a_holdout_without_weights_is_named_as_the_holdout():
    with pytest.raises(pc.ThreatModelError, match="not in the holdout table"):
        evaluate(TRAIN.assign(w=2.0), RELEASE, measures=["ims"], threat=WEIGHTED, holdout=HOLD)
    with pytest.raises(pc.ThreatModelError, match="the holdout table's are not"):
        WEIGHTED.validate_weights(TRAIN.assign(w=2.0), HOLD.assign(w=0.0))


def test_weights_are_declared_in_the_threat_model_not_as_a_measure_option():
    with pytest.raises(pc.ParameterError, match="declare the sampling-weight column once"):
        evaluate(
            TRAIN.assign(w=2.0),
            RELEASE,
            measures=["individual_risk"],
            threat=WEIGHTED_OFF,
            options={"individual_risk": {"weights": "w"}},
        )


def test_the_threat_model_records_the_column():
    assert WEIGHTED.to_dict()["weights"] == "w"
    assert WEIGHTED_OFF.to_dict()["weights"] is None
    assert WEIGHTED.columns == ["sex", "region", "dx"]  # not an attacker's column


def _config(tmp_path, threat_extra: str) -> ReviewConfig:
    TRAIN.assign(w=2.0).to_csv(tmp_path / "real.csv", index=False)
    HOLD.assign(w=2.0).to_csv(tmp_path / "hold.csv", index=False)
    RELEASE.to_csv(tmp_path / "syn.csv", index=False)
    text = (
        '[data]\nreal = "real.csv"\ncontrol = "hold.csv"\n'
        '[[release]]\npath = "syn.csv"\ngroup = "CART"\n'
        '[threat]\nquasi_identifiers = ["sex", "region"]\nsensitive = ["dx"]\n'
        f"{threat_extra}\n"
        '[measures]\nprivacy = ["individual_risk", "ims"]\n'
    )
    (tmp_path / "review.toml").write_text(text)
    return pc.load_review_config(tmp_path / "review.toml")


def test_the_review_config_declares_weights_and_the_record_keeps_them(tmp_path):
    config = _config(tmp_path, 'weights = "w"')
    assert config.weights == "w"
    report = run_review(config)
    d = report.to_dict()
    assert d["threat"]["weights"] == "w"
    risk = d["candidates"][0]["metrics"]["individual_risk"]
    assert risk["params"]["weights"] == "w"
    # the evaluate() path gives the same number as the config's
    direct = evaluate(
        TRAIN.assign(w=2.0),
        RELEASE,
        measures=["individual_risk"],
        threat=WEIGHTED,
        holdout=HOLD.assign(w=2.0),
    )
    assert risk["value"] == pytest.approx(direct["individual_risk"].value)
    assert [c for c in d["schema"]["columns"] if c["name"] == "w"][0]["kind"] == "weight"
    html = pc.render_html(report)
    assert "Sampling weights: w" in html
    # the history's inputs key: a declared column changes it, an undeclared one reads as
    # a review stored before the column existed
    unweighted = run_review(_config(tmp_path, "")).to_dict()
    assert unweighted["threat"]["weights"] is None
    old = {
        **unweighted,
        "threat": {k: v for k, v in unweighted["threat"].items() if k != "weights"},
    }
    assert inputs_key(old) == inputs_key(unweighted) != inputs_key(d)


@pytest.mark.parametrize("value", ["3", '""', '["w"]'])
def test_the_review_config_refuses_a_weights_entry_that_is_not_a_column_name(tmp_path, value):
    with pytest.raises(pc.ParameterError, match=r"\[threat\] weights must be the name"):
        _config(tmp_path, f"weights = {value}")


def test_an_unknown_threat_key_is_still_an_error(tmp_path):
    with pytest.raises(pc.ParameterError, match="unknown key"):
        _config(tmp_path, 'weight = "w"')
    config = parse_review_config(
        {
            "data": {"real": "r.csv"},
            "release": [{"path": "s.csv"}],
            "threat": {"quasi_identifiers": ["a"], "sensitive": ["b"]},
        },
        base=tmp_path,
    )
    assert config.weights is None


def test_canonical_tables_of_the_marked_schema_refuse_only_the_weighted_measures():
    # an experiment's or a calibration's splits are canonical tables of the marked schema
    # (no weight column): every other measure runs on them; the weighted one says why not
    real = TRAIN.assign(w=2.0)
    schema = WEIGHTED.analysis_schema(pc.infer_schema(real))
    real_c = pc.prepare_table(real, schema)
    assert "w" not in real_c.columns
    review = evaluate(
        real_c,
        RELEASE,
        measures=["ims", "individual_risk"],
        threat=WEIGHTED,
        schema=schema,
        errors="collect",
    )
    assert "ims" in review.results
    assert review.failures["individual_risk"].startswith("The weight column 'w' is not in")


def test_a_calibration_on_the_apps_marked_schema_reads_the_weighted_measures():
    """The Risk lab calibrates with the workspace's schema, which leaves the weight column
    out of the analysis: the pooled real rows keep it beside the canonical columns, so
    the weighted measures get their weights in every cell (catches a calibration whose
    individual-risk cells all fail with "the weight column is not in the real table")."""
    real = pd.concat([_survey(600, 1), _survey(600, 2)], ignore_index=True)
    threat = pc.ThreatModel(["age", "sex"], ["dx"], weights="w")
    schema = threat.analysis_schema(pc.infer_schema(real))
    result = pc.calibrate(
        real.iloc[:900],
        holdout=real.iloc[900:],
        threat=threat,
        schema=schema,
        measures=["individual_risk"],
        levels=(0.0, 1.0),
        ratios=(1.0,),
        seed=3,
    )
    rows = result.rows
    assert len(rows) and rows["value"].notna().all()
    assert rows.loc[rows["level"] == 1.0, "value"].min() > 0.9  # a copy reads about 1
