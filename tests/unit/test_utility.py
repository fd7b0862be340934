"""Machine-learning affinity, query error, the discriminator and their figures."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from sklearn.metrics import f1_score

import privacy_core as pc
from privacy_core import simulate_health
from privacy_core.errors import (
    ColumnNotFoundError,
    ParameterError,
    UntrustworthyResultWarning,
)
from privacy_core.fidelity import wasserstein_fidelity
from privacy_core.plots.fidelity import (
    discriminator_importance,
    query_error_figure,
    utility_by_evaluator,
)
from privacy_core.stats import bootstrap_weights
from privacy_core.synth import synthesize
from privacy_core.utility import (
    discriminator,
    ml_affinity,
    prepare_release_tables,
    query_error,
    weighted_f1_from_confusion,
)
from privacy_core.utility.detection import grouped_split
from privacy_core.utility.evaluators import relative_gap, score_bootstrap
from privacy_core.utility.queries import query_answers

FAST = ("linear", "tree", "xgb")


# ============================================================================ scores
def test_weighted_f1_matches_sklearn(rng):
    for k in (2, 3, 5):
        y = rng.integers(0, k, 300)
        pred = np.where(rng.random(300) < 0.6, y, rng.integers(0, k, 300))
        pred[pred == k - 1] = 0  # a class never predicted: its F1 is 0
        conf = np.zeros((k, k))
        np.add.at(conf, (y, pred), 1)
        expected = f1_score(y, pred, average="weighted", zero_division=0)
        assert weighted_f1_from_confusion(conf) == pytest.approx(expected, abs=1e-12)


def test_bootstrap_scores_equal_scores_of_materialised_resamples(rng):
    y = rng.integers(0, 3, 120)
    pred = np.where(rng.random(120) < 0.7, y, rng.integers(0, 3, 120))
    w = bootstrap_weights(120, 4, seed=5)
    f1 = score_bootstrap(y, pred, w, classification=True, n_classes=3)
    yr = rng.normal(size=120)
    pr = yr + rng.normal(scale=0.5, size=120)
    rmse = score_bootstrap(yr, pr, w, classification=False, n_classes=0)
    for b in range(4):
        idx = np.repeat(np.arange(120), w[b].astype(int))
        assert f1[b] == pytest.approx(f1_score(y[idx], pred[idx], average="weighted"), abs=1e-6)
        assert rmse[b] == pytest.approx(np.sqrt(np.mean((yr[idx] - pr[idx]) ** 2)), rel=1e-5)


def test_relative_gap_guards_a_zero_real_score():
    gap = relative_gap(np.array([0.8, 0.0, 0.0]), np.array([0.6, 0.0, 0.3]))
    assert gap[0] == pytest.approx(0.25)
    assert gap[1] == 0.0
    assert np.isnan(gap[2])


# ============================================================================ MLA
def test_mla_of_a_copy_is_zero(health_canonical, health_holdout):
    res = ml_affinity(
        health_canonical,
        health_canonical.copy(),
        holdout=health_holdout,
        target="disease",
        evaluators=FAST,
        bootstrap=50,
    )
    assert res.value == 0.0
    assert (res.records["gap"] == 0).all()
    assert res.ci == (0.0, 0.0)


def test_mla_histogram_release_loses_utility(make_health):
    real, hold = make_health(800, 2.0, 0), make_health(800, 2.0, 1)
    hist = synthesize(real, method="histogram", seed=0)
    res = ml_affinity(
        real, hist, holdout=hold, target="disease", evaluators=FAST, bootstrap=100, seed=3
    )
    assert res.name == "mla" and res.goal == "lower"
    assert res.value > 0.1
    lo, hi = res.ci
    assert lo <= res.value <= hi
    table = res.records
    assert list(table["evaluator"]) == list(FAST)
    np.testing.assert_allclose(
        table["gap"], np.abs(table["score_real"] - table["score_synthetic"]) / table["score_real"]
    )
    # F1: positive relative loss = the release-trained model is worse
    assert (table["relative_loss"] > 0).all()
    assert res.extra["score"] == "f1_weighted" and res.params["task"] == "classification"
    assert set(res.extra["by_evaluator"]) == set(FAST)
    json.dumps(res.to_dict())


def test_mla_regression_uses_rmse_and_its_direction(make_health):
    real, hold = make_health(500, 2.0, 0), make_health(500, 2.0, 1)
    hist = synthesize(real, method="histogram", seed=0)
    res = ml_affinity(
        real, hist, holdout=hold, target="health", evaluators=("linear", "tree"), bootstrap=0
    )
    assert res.extra["score"] == "rmse" and res.ci is None
    table = res.records
    # RMSE: the release-trained model is worse when its RMSE is higher
    np.testing.assert_allclose(
        table["relative_loss"],
        (table["score_synthetic"] - table["score_real"]) / table["score_real"],
    )
    assert (table["score_synthetic"] > table["score_real"]).all()
    raw = ml_affinity(
        real,
        hist,
        holdout=hold,
        target="health",
        evaluators=("linear",),
        bootstrap=0,
        target_transform="none",
    )
    assert raw.params["target_transform"] == "none"
    assert raw.records["score_real"].iloc[0] != table["score_real"].iloc[0]


def test_mla_single_class_release_predicts_that_class(health_canonical, health_holdout):
    one = health_canonical.copy()
    one["disease"] = "healthy"
    with pytest.warns(UntrustworthyResultWarning, match="single class"):
        res = ml_affinity(
            health_canonical,
            one,
            holdout=health_holdout,
            target="disease",
            evaluators=("tree",),
            bootstrap=0,
        )
    share = (health_holdout["disease"] == "healthy").mean()
    assert res.records["score_synthetic"].iloc[0] == pytest.approx(
        f1_score(
            health_holdout["disease"],
            ["healthy"] * len(health_holdout),
            average="weighted",
            zero_division=0,
        )
    )
    assert 0 < share < 1


def test_mla_takes_the_target_from_the_threat_model(
    health_canonical, health_synthetic, health_holdout, health_threat
):
    res = ml_affinity(
        health_canonical,
        health_synthetic,
        holdout=health_holdout,
        threat=health_threat,
        evaluators=("tree",),
        bootstrap=0,
    )
    assert res.params["target"] == "disease"


def test_mla_seed_reproduces(health_canonical, health_synthetic, health_holdout):
    kw = {
        "holdout": health_holdout,
        "target": "disease",
        "evaluators": ("tree", "xgb"),
        "bootstrap": 30,
        "seed": 4,
    }
    a = ml_affinity(health_canonical, health_synthetic, **kw)
    b = ml_affinity(health_canonical, health_synthetic, **kw)
    assert a.value == b.value and a.ci == b.ci
    pd.testing.assert_frame_equal(a.records, b.records)


def test_mla_caps_long_releases_at_the_real_size(health_canonical, health_holdout):
    long = synthesize(health_canonical, method="cart", n=900, seed=1)
    res = ml_affinity(
        health_canonical,
        long,
        holdout=health_holdout,
        target="disease",
        evaluators=("tree",),
        bootstrap=0,
    )
    assert res.params["n_synthetic_used"] == [300]


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"holdout": None, "target": "disease"}, ParameterError, "holdout"),
        ({"target": None}, ParameterError, "target"),
        ({"target": "nope"}, ColumnNotFoundError, "target"),
        ({"target": "disease", "evaluators": ("svm",)}, ParameterError, "evaluator"),
        ({"target": "disease", "target_transform": "log"}, ParameterError, "target_transform"),
    ],
)
def test_mla_bad_input(health_canonical, health_synthetic, health_holdout, kwargs, error, match):
    kw = {"holdout": health_holdout, **kwargs}
    with pytest.raises(error, match=match):
        ml_affinity(health_canonical, health_synthetic, **kw)


# ============================================================================ query error
def test_query_answers_match_brute_force(rng):
    X = rng.integers(0, 5, (40, 3)).astype(float)
    X[rng.random((40, 3)) < 0.1] = np.nan
    cols = np.array([[0, 2], [1, 0], [2, 1]])
    lo = rng.uniform(0, 3, (3, 2))
    hi = lo + rng.uniform(0, 2, (3, 2))
    got = query_answers(X, cols, lo, hi)
    for q in range(3):
        ok = np.ones(40, dtype=bool)
        for j in range(2):
            x = X[:, cols[q, j]]
            ok &= (x >= lo[q, j]) & (x <= hi[q, j])  # NaN meets no condition
        assert got[q] == pytest.approx(ok.mean())


def test_query_error_of_identical_tables_is_zero(health_real):
    res = query_error(health_real, health_real.copy(), n_queries=200, seed=2)
    assert res.value == 0.0
    assert (res.records["error"] == 0).all()
    assert res.ci == (0.0, 0.0)


def test_query_error_hand_computed_point_queries():
    real = pd.DataFrame({"c": ["a", "a", "b", "b"], "d": ["x", "x", "x", "y"]})
    syn = pd.DataFrame({"c": ["a", "a", "a", "b"], "d": ["x", "x", "x", "y"]})
    res = query_error(real, syn, n_queries=50, ways=(1,), seed=0)
    # c = a: |1/2 - 3/4|; c = b: |1/2 - 1/4|; any query on d: 0
    table = res.records
    np.testing.assert_allclose(table.loc[table["columns"] == "c", "error"], 0.25)
    np.testing.assert_allclose(table.loc[table["columns"] == "d", "error"], 0.0)
    assert res.value == pytest.approx(table["error"].mean())
    assert set(table["condition"]) <= {"c = a", "c = b", "d = x", "d = y"}


def test_query_error_structure_and_seed(health_real, health_synthetic):
    a = query_error(health_real, health_synthetic, n_queries=150, seed=9)
    b = query_error(health_real, health_synthetic, n_queries=150, seed=9)
    c = query_error(health_real, health_synthetic, n_queries=150, seed=10)
    pd.testing.assert_frame_equal(a.records, b.records)
    assert not a.records["condition"].equals(c.records["condition"])
    table = a.records
    assert len(table) == 450 and sorted(table["k"].unique()) == [1, 2, 3]
    by_way = table.groupby("k")["error"].mean()
    assert a.extra["by_way"] == pytest.approx(by_way.to_dict())
    assert a.value == pytest.approx(by_way.mean())
    lo, hi = a.ci
    assert lo <= a.value <= hi
    # every query names k distinct columns
    assert (table["columns"].str.split(", ").map(lambda c: len(set(c))) == table["k"]).all()
    assert ((table["real"] >= 0) & (table["real"] <= 1)).all()


def test_query_error_skips_orders_above_the_column_count():
    real = pd.DataFrame({"c": list("abab"), "x": [1.0, 2.0, 3.0, 4.0]})
    res = query_error(real, real, n_queries=10, ways=(1, 2, 3))
    assert res.params["ways"] == [1, 2]
    with pytest.raises(ParameterError, match="ways"):
        query_error(real, real, n_queries=10, ways=(3, 4))


# ============================================================================ discriminator
def test_grouped_split_keeps_identical_rows_together(rng):
    X = rng.integers(0, 4, (200, 2)).astype(float)
    tr, te = grouped_split(X, 0.3, seed=1)
    assert len(np.intersect1d(tr, te)) == 0 and len(tr) + len(te) == 200
    train_rows = {tuple(r) for r in X[tr]}
    assert not any(tuple(r) in train_rows for r in X[te])


def test_discriminator_on_same_population_is_near_half():
    a, b = simulate_health(1500, seed=11), simulate_health(1500, seed=12)
    res = discriminator(a, b, bootstrap=200, seed=0)
    assert 0.42 < res.value < 0.58
    assert res.ci[0] < 0.5 < res.ci[1]
    assert res.baseline == 0.5 and res.bounds == (0.0, 1.0)


def test_discriminator_self_is_half_and_histogram_is_clearly_above(health_canonical):
    self_res = discriminator(
        health_canonical, synthesize(health_canonical, method="self"), bootstrap=100
    )
    assert self_res.value == 0.5  # every test record has an identical twin: all ties
    assert self_res.extra["advantage"] == 0.0
    hist = synthesize(health_canonical, method="histogram", seed=0)
    hist_res = discriminator(health_canonical, hist, bootstrap=100)
    assert hist_res.value > 0.65 and hist_res.ci[0] > 0.55
    assert hist_res.extra["advantage"] == pytest.approx(2 * hist_res.value - 1)
    assert 0.5 < hist_res.extra["accuracy"] <= 1


def test_discriminator_records_importance_and_seed(health_canonical):
    hist = synthesize(health_canonical, method="histogram", seed=2)
    a = discriminator(health_canonical, hist, bootstrap=50, seed=3)
    b = discriminator(health_canonical, hist, bootstrap=50, seed=3)
    assert a.value == b.value and a.ci == b.ci
    rec = a.records
    assert set(rec["source"]) == {"real", "synthetic"}
    assert rec["p_real"].between(0, 1).all()
    assert (rec["record"] >= 0).all() and (rec["record"] < 300).all()
    imp = a.extra["importance"]
    assert set(imp) == set(health_canonical.columns)
    assert sum(imp.values()) == pytest.approx(1.0)
    json.dumps(a.to_dict())


def test_discriminator_warns_below_chance_on_a_copying_release(make_health):
    real = make_health(1000, 1.0, 0)
    cart = synthesize(real, method="cart", seed=1)
    with pytest.warns(UntrustworthyResultWarning, match="below 0.5"):
        res = discriminator(real, cart, bootstrap=200)
    assert res.extra["below_chance"] is True
    assert res.extra["advantage"] == 0.0


def test_discriminator_missing_indicators(health_canonical):
    holes = health_canonical.copy()
    holes.loc[holes.index[:150], "income"] = np.nan  # half the release lacks income
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UntrustworthyResultWarning)
        res = discriminator(health_canonical, holes, bootstrap=50)
    assert res.params["missing_indicators"] == ["income"]
    assert res.value > 0.6  # missingness alone gives the release away


def test_replicates_are_averaged(health_canonical, health_holdout):
    releases = [synthesize(health_canonical, method="histogram", seed=s) for s in (1, 2)]
    mla = ml_affinity(
        health_canonical,
        releases,
        holdout=health_holdout,
        target="disease",
        evaluators=("tree",),
        bootstrap=0,
    )
    assert list(mla.records["replicate"]) == [0, 1]
    assert mla.value == pytest.approx(mla.records["gap"].mean())
    qe = query_error(health_canonical, releases, n_queries=30, bootstrap=0)
    singles = [query_error(health_canonical, r, n_queries=30, bootstrap=0) for r in releases]
    np.testing.assert_allclose(
        qe.records["synthetic"], np.mean([s.records["synthetic"] for s in singles], axis=0)
    )
    disc = discriminator(health_canonical, releases, bootstrap=20)
    assert disc.params["n_replicates"] == 2 and len(disc.extra["by_replicate"]) == 2
    assert disc.value == pytest.approx(np.mean([r["auc"] for r in disc.extra["by_replicate"]]))
    assert set(disc.records["replicate"]) == {0, 1}


# ============================================================================ inputs
def test_prepared_tables_are_not_converted_again(health_real, health_synthetic):
    first = prepare_release_tables(health_real, health_synthetic)
    second = prepare_release_tables(first.real, list(first.synthetic), schema=first.schema)
    assert second.synthetic[0] is first.synthetic[0]  # already canonical: used as is
    pd.testing.assert_frame_equal(second.real, first.real)


@pytest.mark.filterwarnings("ignore::privacy_core.errors.UntrustworthyResultWarning")
def test_registry_calls_every_fidelity_measure(
    health_real, health_synthetic, health_holdout, health_threat
):
    from privacy_core.evaluation import evaluate_measures
    from privacy_core.measures import measure_names

    names = measure_names("fidelity")
    assert names == ["wasserstein", "mla", "query_error", "discriminator"]
    out = evaluate_measures(
        health_real,
        health_synthetic,
        names=names,
        threat=health_threat,
        holdout=health_holdout,
        options={
            "mla": {"evaluators": ("tree",), "bootstrap": 0},
            "query_error": {"n_queries": 30},
            "discriminator": {"bootstrap": 20},
        },
    )
    assert list(out) == names
    assert out["mla"].params["target"] == "disease"
    # the threat model changes nothing for the threat-free measures
    plain = wasserstein_fidelity(health_real, health_synthetic)
    assert out["wasserstein"].value == plain.value


# ============================================================================ figures
def test_utility_figures(health_canonical, health_synthetic, health_holdout):
    mla = ml_affinity(
        health_canonical,
        health_synthetic,
        holdout=health_holdout,
        target="disease",
        evaluators=("tree", "xgb"),
        bootstrap=20,
    )
    fig = utility_by_evaluator(mla)
    assert isinstance(fig, go.Figure)
    assert [t.name for t in fig.data] == ["trained on real", "trained on synthetic"]
    assert len(fig.data[0].x) == 2
    qe = query_error(health_canonical, health_synthetic, n_queries=40)
    assert len(query_error_figure(qe).data) == 3
    hist = synthesize(health_canonical, method="histogram", seed=0)
    disc = discriminator(health_canonical, hist, bootstrap=20)
    bars = discriminator_importance(disc, k=4)
    assert len(bars.data[0].y) == 4


def test_discriminator_on_nearly_one_repeated_row_reads_one_half_or_says_why():
    """Found by the fuzz test (tests/property/test_fuzz_inputs.py): identical rows stay on
    one side of the split, so a table of nearly one repeated row left only real records in
    training and xgboost raised "Invalid classes inferred". With one class to learn from,
    the discriminator predicts the training share for all (AUC 0.5, nothing told apart);
    a held-out split with one class is an InsufficientDataError, never a crash."""
    real = pd.DataFrame({"age": [0.0] * 25, "date": [0.0] * 25})
    real.loc[2, "date"], real.loc[17, "age"] = 0.5, 1.0
    syn = pd.DataFrame({"age": [0.0] * 12, "date": [0.0] * 12})
    for seed in range(4):
        try:
            res = discriminator(real, [syn, syn], seed=seed, bootstrap=50)
        except pc.InsufficientDataError as exc:
            assert "too few distinct rows" in str(exc)
            continue
        assert 0.0 <= res.value <= 1.0 and np.isfinite(res.value)
