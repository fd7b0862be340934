"""RAPID: the paper's worked examples, properties, the dependency experiment, variants."""

import warnings

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
from privacy_core.risk.rapid import categorical_scores, continuous_errors, rapid_from_scores

THREAT = pc.ThreatModel(["age", "education", "gender"], ["disease"])


def _release(real: pd.DataFrame, seed: int = 1, method: str = "cart", **params) -> pd.DataFrame:
    schema = pc.infer_schema(real)
    return pc.synthesize(pc.prepare_table(real, schema), method=method, seed=seed, **params)


@pytest.fixture(scope="module")
def health_k5():
    real = pc.simulate_health(600, kappa=5, seed=3)
    return real, _release(real, seed=4)


@pytest.fixture(scope="module")
def fitted(health_k5):
    real, syn = health_k5
    return pc.rapid(real, syn, threat=THREAT, n_trees=100, bootstrap=200, seed=0)


# --------------------------------------------------------------------- paper §3 examples
def test_categorical_toy_example_section_3():
    g = np.array([0.70, 0.85, 0.55])
    y = np.zeros(3, dtype=int)  # all three records are 'healthy'
    prevalence = np.array([0.60, 0.40])
    r = categorical_scores(g, y, prevalence, method="marginal", n_classes=2)
    np.testing.assert_allclose(r, [0.25, 0.625, -0.125])
    assert rapid_from_scores(r, threshold=0.3, kind="categorical") == pytest.approx(1 / 3)


def test_continuous_toy_example_section_3():
    y = np.array([50_000.0, 35_000.0, 80_000.0])
    y_hat = np.array([47_000.0, 39_000.0, 90_000.0])
    e = continuous_errors(y, y_hat, error="relative", delta=0.0, scale=1.0)
    np.testing.assert_allclose(e, [0.06, 4 / 35, 0.125])
    assert round(e[1] * 100, 1) == 11.4
    assert rapid_from_scores(e, threshold=0.10, kind="continuous") == pytest.approx(1 / 3)


def test_score_variants_by_hand():
    g = np.array([0.9, 0.5, 0.2, 0.6])
    y = np.array([0, 0, 1, 1])
    prev = np.array([0.5, 0.5])
    cond = categorical_scores(g, y, prev, method="conditional", n_classes=2)
    np.testing.assert_allclose(cond, [0.9 / 0.7, 0.5 / 0.7, 0.2 / 0.4, 0.6 / 0.4])
    nce = categorical_scores(g, y, prev, method="nce", n_classes=2)
    np.testing.assert_allclose(nce, 1 + np.log(g) / np.log(2))
    e_abs = continuous_errors(
        np.array([10.0]), np.array([12.0]), error="absolute", delta=0.01, scale=4.0
    )
    e_norm = continuous_errors(
        np.array([10.0]), np.array([12.0]), error="normalized", delta=0.01, scale=4.0
    )
    e_sym = continuous_errors(
        np.array([10.0]), np.array([12.0]), error="symmetric", delta=0.0, scale=4.0
    )
    assert (e_abs[0], e_norm[0]) == (2.0, 0.5)
    assert e_sym[0] == pytest.approx(4 / 22)


# --------------------------------------------------------------------- properties
def test_bounds_and_monotone_in_tau(fitted):
    curve = fitted.curve(np.linspace(0, 1, 21))
    for series, part in curve.groupby("series"):
        rates = part.sort_values("threshold")["rate"].to_numpy()
        assert np.all((rates >= 0) & (rates <= 1)), series
        assert np.all(np.diff(rates) <= 1e-12), f"{series} not non-increasing in tau"
    assert fitted.rate_max >= fitted.value
    assert fitted.ci[0] <= fitted.value <= fitted.ci[1]


def test_monotone_in_epsilon_for_continuous_target(health_k5):
    real, syn = health_k5
    res = pc.rapid(
        real,
        syn,
        threat=pc.ThreatModel(["age", "education", "gender"], ["income"]),
        attackers=("xgb", "logit"),
        bootstrap=0,
        seed=0,
    )
    assert res.kind == "continuous"
    rates = [res.at(e).value for e in np.linspace(0, 0.99, 12)]
    assert np.all(np.diff(rates) >= 0)
    assert rates[0] == 0.0
    # a plotted curve may sweep the relative tolerance past 1 (only typed values are checked)
    curve = res.curve([0.5, 1.0, 2.0]).query("series == 'mean'")["rate"].to_numpy()
    assert np.all(np.diff(curve) >= 0) and curve[0] == pytest.approx(res.at(0.5).value)
    assert res.at(0.10).value == pytest.approx(np.mean(res.scores < 0.10)), (
        "headline equals the share of (record, model) flags"
    )


def test_reaggregation_equals_refit(health_k5, fitted):
    real, syn = health_k5
    direct = pc.rapid(real, syn, threat=THREAT, n_trees=100, bootstrap=200, seed=0, tau=0.55)
    moved = fitted.at(0.55)
    assert moved.value == direct.value
    assert moved.ci == direct.ci
    assert moved.params["tau"] == 0.55


def test_same_seed_same_numbers(health_k5, fitted):
    real, syn = health_k5
    again = pc.rapid(real, syn, threat=THREAT, n_trees=100, bootstrap=200, seed=0)
    np.testing.assert_array_equal(again.scores, fitted.scores)
    assert again.ci == fitted.ci


def test_row_order_does_not_change_aggregate(health_k5, fitted):
    real, syn = health_k5
    shuffled = real.sample(frac=1.0, random_state=7)
    res = pc.rapid(shuffled, syn, threat=THREAT, n_trees=100, bootstrap=0, seed=0)
    # the attackers see the same training data, so each record gets the same score
    by_index = res.records.set_index("record")["score"].sort_index()
    np.testing.assert_allclose(
        by_index.to_numpy(), fitted.records.set_index("record")["score"].sort_index().to_numpy()
    )
    assert res.value == pytest.approx(fitted.value)


def test_intervals_wilson_and_clopper_pearson(fitted):
    w = fitted.at(interval="wilson")
    cp = fitted.at(interval="clopper-pearson")
    assert w.ci == fitted.intervals["wilson"]
    assert cp.ci[0] <= w.ci[0] and cp.ci[1] >= w.ci[1]  # exact interval is wider


# --------------------------------------------------------------------- per-record views
def test_records_carry_input_index_and_predictions(health_k5):
    real, syn = health_k5
    real = real.set_axis(np.arange(len(real)) + 1000)
    res = pc.rapid(real, syn, threat=THREAT, attackers=("xgb",), bootstrap=0, seed=0)
    rec = res.records
    assert len(rec) == len(real)
    assert rec["record"].tolist() == list(real.index)
    assert (rec["true"] == real["disease"].to_numpy()).all()
    assert set(rec["prediction"]) <= set(real["disease"])
    assert rec["confidence"].between(0, 1).all()
    assert {"age", "education", "gender", "score", "at_risk", "share_flagged"} <= set(rec)
    assert rec["share_flagged"].mean() == pytest.approx(res.value)


def test_stratified_and_subgroup_views_average_to_headline(fitted):
    by_class = fitted.by_class()
    assert set(by_class["class"]) == set(fitted.classes)
    assert np.average(by_class["rate"], weights=by_class["n"]) == pytest.approx(fitted.value)
    np.testing.assert_allclose(by_class["baseline"].sum(), 1.0)
    for col in ("age", "education"):
        sub = fitted.by_subgroup(col)
        assert np.average(sub["rate"], weights=sub["n"]) == pytest.approx(fitted.value)
        assert (sub["lower"] <= sub["rate"]).all() and (sub["rate"] <= sub["upper"]).all()


def test_attribution_finds_the_driving_quasi_identifier():
    rng = np.random.default_rng(0)
    n = 800
    real = pd.DataFrame(
        {
            "region": rng.choice(["north", "south"], n),
            "colour": rng.choice(["red", "blue", "green"], n),
            "age": rng.integers(20, 70, n),
        }
    )
    # the secret is determined by region only in the north; elsewhere it is noise
    north = real["region"] == "north"
    real["secret"] = np.where(
        north, np.where(real["age"] > 45, "a", "b"), rng.choice(["a", "b"], n)
    )
    threat = pc.ThreatModel(["region", "colour", "age"], ["secret"])
    res = pc.rapid(real, real, threat=threat, attackers=("rf",), n_trees=100, bootstrap=0, seed=0)
    coef = pc.rapid_attribution(res).set_index("level")["coefficient"]
    assert coef["south vs north"] < -1.0
    assert abs(coef["red vs blue"]) < abs(coef["south vs north"])
    imp = res.importances.set_index("column")["importance"]
    assert imp["colour"] < imp["age"]


# --------------------------------------------------------------------- paper §5 experiments
def test_rapid_rises_with_dependency_strength():
    rates = []
    for kappa in (0.0, 2.0, 10.0):
        real = pc.simulate_health(1000, kappa=kappa, seed=11)
        res = pc.rapid(
            real,
            _release(real, seed=12),
            threat=THREAT,
            attackers=("rf",),
            n_trees=200,
            bootstrap=0,
            seed=0,
        )
        rates.append(res.value)
    assert rates[0] < rates[1] < rates[2], rates


# The paper's Table 1 and Fig. 5 are reproduced in test_rapid_paper.py (with the paper's
# set-up, every non-sensitive attribute a quasi-identifier, and its number of simulations).


def test_copy_release_is_riskier_than_independent_marginals(health_k5):
    real, _ = health_k5
    copy = pc.rapid(
        real,
        _release(real, method="self"),
        threat=THREAT,
        attackers=("rf",),
        n_trees=100,
        bootstrap=0,
        seed=0,
    )
    hist = pc.rapid(
        real,
        _release(real, method="histogram"),
        threat=THREAT,
        attackers=("rf",),
        n_trees=100,
        bootstrap=0,
        seed=0,
    )
    assert copy.value > hist.value + 0.3
    # independent marginals carry no information about the secret: the paper's threshold
    # rule finds the histogram release's RAPID inside its permutation null at tau = 0.3
    # (where the copy is far outside it)
    cal_hist = pc.rapid_null_calibration(hist, n_permutations=99, seed=0)
    cal_copy = pc.rapid_null_calibration(copy, n_permutations=99, seed=0)
    i = int(np.flatnonzero(np.isclose(cal_hist.thresholds, 0.3))[0])
    assert cal_hist.observed[i] <= cal_hist.null_quantile()[i]
    assert cal_copy.observed[i] > cal_copy.null_quantile()[i] + 0.2


# --------------------------------------------------------------------- replicates, CV, calibration
def test_replicates_are_averaged_and_spread_reported(health_k5):
    real, _ = health_k5
    releases = [_release(real, seed=s) for s in (21, 22, 23)]
    res = pc.rapid(real, releases, threat=THREAT, attackers=("xgb", "logit"), bootstrap=100, seed=0)
    assert res.replicate_rates.shape == (2, 3)
    assert res.value == pytest.approx(res.replicate_rates.mean())
    out = res.to_dict()
    assert len(out["replicates"]["rates"]) == 3 and out["replicates"]["sd"] >= 0


def test_pooled_scores_rule_is_kept_as_an_option():
    """The earlier rule: the 95% quantile of pooled per-record null scores (refits with y
    permuted in the release); at it a release that leaks nothing flags 5% of records."""
    real = pc.simulate_health(600, kappa=10, seed=5)
    syn = _release(real, seed=6)
    cal = pc.rapid_permutation_threshold(
        real, syn, threat=THREAT, rule="pooled-scores", n_permutations=3, n_trees=100, seed=0
    )
    assert cal.rule == "pooled-scores" and cal.params["n_permutations"] == 3
    assert cal.null_rate(cal.suggested_threshold) <= 0.05 + 1e-9
    observed = pc.rapid(
        real, syn, threat=THREAT, attackers=("rf",), n_trees=100, bootstrap=0, seed=0
    ).at(cal.suggested_threshold)
    assert observed.value > 0.3
    assert (
        pc.rapid_permutation_threshold(
            real, syn, threat=THREAT, rule="pooled-scores", n_trees=20
        ).params["n_permutations"]
        == 5
    )


def test_null_rapid_rule_is_the_default_and_recomputes_rapid(fitted):
    """The paper's rule (§2.5): the null distribution of RAPID itself. Observed is the
    headline (max over attackers) at every grid tau; each null row is the same headline
    with the real labels permuted against the fixed predictions."""
    from privacy_core.risk.rapid import categorical_scores

    cal = pc.rapid_null_calibration(fitted, n_permutations=40, seed=3)
    grid = cal.thresholds
    np.testing.assert_allclose(grid, np.round(np.arange(1, 20) * 0.05, 4))
    np.testing.assert_allclose(cal.observed, [fitted.at(t).rate_max for t in grid])
    assert cal.null_rates.shape == (40, len(grid))
    # recompute the first permutation by hand
    y_perm = fitted.y_true[np.random.default_rng(3).permutation(len(fitted.y_true))]
    g = fitted.proba[np.arange(len(y_perm)), :, :, y_perm]
    scores = categorical_scores(
        g.astype(float), y_perm, fitted.prevalence, method="marginal", n_classes=len(fitted.classes)
    )
    by_hand = [(scores > t).mean(axis=(0, 2)).max() for t in grid]
    np.testing.assert_allclose(cal.null_rates[0], by_hand)
    # the suggestion: the largest tau whose observed RAPID is above the null's 95th percentile
    upper = np.quantile(cal.null_rates, 0.95, axis=0)
    assert cal.suggested_threshold == grid[cal.observed > upper].max()
    assert cal.null_rate(cal.suggested_threshold) == pytest.approx(
        upper[grid == cal.suggested_threshold][0]
    )
    band = cal.band()
    assert (band["null_lower"] <= band["null_median"]).all()
    assert (band["null_median"] <= band["null_upper"]).all()
    assert cal.to_dict()["rule"] == "null-rapid"
    assert cal.params["permuted"].startswith("real records")


def test_null_rapid_rule_refits_by_default_and_separates_signal_from_noise():
    """The engine entry point's default: y permuted in the release, attackers refitted
    (20 times). A leaking release is above the null; independent marginals are not, where
    shuffling the real labels against fixed predictions finds spurious significance."""
    real = pc.simulate_health(1000, kappa=1, seed=3)
    threat = pc.ThreatModel([c for c in real.columns if c != "disease"], ["disease"])
    copy = pc.rapid_permutation_threshold(real, real, threat=threat, n_trees=30, seed=0)
    assert copy.rule == "null-rapid" and copy.params["n_permutations"] == 20
    assert copy.params["permuted"].startswith("sensitive values in the release")
    assert copy.band()["significant"].all() and copy.suggested_threshold == 0.95
    hist = _release(real, method="histogram")
    refit = pc.rapid_permutation_threshold(real, hist, threat=threat, n_trees=30, seed=0)
    labels = pc.rapid_permutation_threshold(
        real, hist, threat=threat, n_trees=30, seed=0, permute="labels"
    )
    assert labels.params["n_permutations"] == 199 and labels.params["permuted"].startswith("real")
    assert refit.band()["significant"].sum() <= 2


def test_calibration_refits_use_the_forests_encoding():
    """The calibration's observed curve is the fit it calibrates: with the forest on factor
    codes (the paper preset), every refit uses codes too, and the params say so."""
    real = pc.simulate_health(600, kappa=5, seed=3)
    threat = pc.ThreatModel([c for c in real.columns if c != "disease"], ["disease"])
    syn = _release(real)
    fit = pc.rapid(
        real, syn, threat=threat, n_trees=8, bootstrap=0, forest_encoding="codes", seed=0
    )
    cal = pc.rapid_permutation_threshold(
        real,
        syn,
        threat=threat,
        attackers=("rf",),
        n_trees=8,
        forest_encoding="codes",
        seed=0,
    )
    assert cal.params["forest_encoding"] == "codes"
    at = np.flatnonzero(np.isclose(cal.thresholds, 0.3))
    assert at.size == 1
    assert cal.observed[at[0]] == pytest.approx(fit.by_attacker["rf"]["value"])
    onehot = pc.rapid_permutation_threshold(
        real, syn, threat=threat, attackers=("rf",), n_trees=8, seed=0
    )
    assert not np.allclose(onehot.observed, cal.observed)


def test_null_rapid_rule_continuous_and_too_few_permutations(health_k5, fitted):
    real, syn = health_k5
    res = pc.rapid(
        real,
        syn,
        threat=pc.ThreatModel(["age", "education", "gender"], ["income"]),
        attackers=("logit",),
        bootstrap=0,
        seed=0,
    )
    cal = pc.rapid_null_calibration(res, n_permutations=25, seed=0)
    np.testing.assert_allclose(cal.thresholds[:3], [0.01, 0.03, 0.05])
    np.testing.assert_allclose(cal.observed, [res.at(t).rate_max for t in cal.thresholds])
    assert np.all(np.diff(cal.null_quantile(0.5)) >= 0), "null RAPID rises with epsilon"
    with pytest.raises(pc.ParameterError, match="n_permutations"):
        pc.rapid_null_calibration(fitted, n_permutations=19)
    with pytest.raises(pc.ParameterError, match="rule"):
        pc.rapid_permutation_threshold(real, syn, threat=THREAT, rule="pooled")


def test_cart_attacker_and_accuracy_next_to_rapid(fitted, health_k5):
    """CART joins the suite (paper Table 1); each attacker's accuracy on the real records
    is reported next to its RAPID (Table 1, Fig. 5a), and the headline is the max (§2.5)."""
    assert fitted.attackers == ("rf", "xgb", "logit")  # CART is opt-in
    with_cart = pc.rapid(
        *health_k5, threat=THREAT, attackers=("rf", "cart"), n_trees=50, bootstrap=0, seed=0
    )
    assert with_cart.by_attacker["cart"]["accuracy"] == pytest.approx(
        float((with_cart.pred_code[:, 1, 0] == with_cart.y_true).mean())
    )
    out = fitted.to_dict()
    for j, a in enumerate(fitted.attackers):
        acc = float((fitted.pred_code[:, j, 0] == fitted.y_true).mean())
        assert fitted.by_attacker[a]["accuracy"] == pytest.approx(acc)
        assert out["by_attacker"][a]["accuracy"] == pytest.approx(acc)
        # tau > 0.5 flags only records whose true class is the argmax: RAPID <= accuracy
        assert fitted.at(0.6).by_attacker[a]["value"] <= acc + 1e-12
    assert out["headline"] == {
        "aggregate": "max",
        "attacker": fitted.strongest_attacker,
        "value": fitted.rate_max,
        "ci": list(fitted.ci_max),
    }
    # rpart's defaults: no leaf below 7 rows, so a copy is not memorised record by record
    real, _ = health_k5
    copy = pc.rapid(
        real, _release(real, method="self"), threat=THREAT, attackers=("cart",), bootstrap=0, seed=0
    )
    hist = pc.rapid(
        real,
        _release(real, method="histogram"),
        threat=THREAT,
        attackers=("cart",),
        bootstrap=0,
        seed=0,
    )
    assert copy.value > hist.value + 0.3
    assert copy.by_attacker["cart"]["accuracy"] < 1.0


def test_continuous_target_reports_r2(health_k5):
    real, syn = health_k5
    res = pc.rapid(
        real,
        syn,
        threat=pc.ThreatModel(["age", "education", "gender"], ["income"]),
        attackers=("cart", "logit"),
        bootstrap=0,
        seed=0,
    )
    y = res.y_true
    for j, a in enumerate(res.attackers):
        r2 = 1 - ((y - res.y_hat[:, j, 0]) ** 2).sum() / ((y - y.mean()) ** 2).sum()
        assert res.by_attacker[a]["r2"] == pytest.approx(r2)
        assert res.by_attacker[a].get("accuracy") is None


def test_synthesizer_cv():
    real = pc.simulate_health(500, kappa=5, seed=9)
    cv = pc.rapid_synthesizer_cv(real, threat=THREAT, k=3, n_trees=100, seed=0)
    assert len(cv.records) == 3
    assert cv.records["n_test"].sum() == 500
    assert cv.ci[0] <= cv.value <= cv.ci[1]
    assert 0 <= cv.value <= 1
    # the classes are stratified: every fold has every class
    assert cv.params["stratified"] is True


def test_synthesizer_cv_refuses_too_small_classes():
    real = pc.simulate_health(200, kappa=1, seed=0)
    real.loc[real.index[:2], "disease"] = "rare"
    with pytest.raises(pc.InsufficientDataError, match="rare"):
        pc.rapid_synthesizer_cv(real, threat=THREAT, k=5, n_trees=20)


# --------------------------------------------------------------------- edge cases and errors
def test_class_absent_from_release_gets_zero_probability(health_k5):
    real, syn = health_k5
    syn = syn[syn["disease"] != "diabetic"]
    res = pc.rapid(real, syn, threat=THREAT, attackers=("xgb", "rf"), n_trees=50, bootstrap=0)
    diabetic = res.y_true == res.classes.index("diabetic")
    assert np.all(res.g[diabetic] == 0)


def test_single_class_release_warns(health_k5):
    real, syn = health_k5
    syn = syn.assign(disease="healthy")
    with pytest.warns(pc.UntrustworthyResultWarning, match="single class"):
        pc.rapid(real, syn, threat=THREAT, attackers=("xgb",), bootstrap=0)


def test_missing_continuous_target_records_are_excluded(health_k5):
    real, syn = health_k5
    real = real.copy()
    real.loc[real.index[:7], "income"] = np.nan
    res = pc.rapid(
        real,
        syn,
        threat=pc.ThreatModel(["age", "gender"], ["income"]),
        attackers=("xgb",),
        bootstrap=0,
    )
    assert res.params["excluded_targets_missing_value"] == 7
    assert len(res.records) == len(real) - 7


def test_missing_numeric_quasi_identifier_strategy(health_k5):
    real, syn = health_k5
    real = real.copy()
    real.loc[real.index[:5], "age"] = np.nan
    res = pc.rapid(real, syn, threat=THREAT, attackers=("xgb",), bootstrap=0)
    assert res.params["imputed_missing"] == {"age": 5}
    assert res.params["numeric_missing"] == "median"
    with pytest.raises(pc.MissingValueError, match="age"):
        pc.rapid(real, syn, threat=THREAT, attackers=("xgb",), bootstrap=0, numeric_missing="error")


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"attackers": ("svm",)}, pc.ParameterError),
        ({"method": "bayes"}, pc.ParameterError),
        ({"error": "squared"}, pc.ParameterError),
        ({"bootstrap": -1}, pc.ParameterError),
        ({"seed": -3}, pc.ParameterError),
    ],
)
def test_bad_parameters_raise_documented_errors(health_k5, kwargs, error):
    real, syn = health_k5
    with pytest.raises(error):
        pc.rapid(real, syn, threat=THREAT, **kwargs)


INCOME = pc.ThreatModel(["age", "education", "gender"], ["income"])


@pytest.mark.parametrize("error", ["relative", "symmetric"])
def test_epsilon_is_a_proportion_not_a_percentage(health_k5, error):
    # The paper writes ε = 10 %; typed as 10 it flagged every record (RAPID = 1.000).
    real, syn = health_k5
    with pytest.raises(pc.ParameterError, match=r"ε is a proportion: 0.10 means 10 %; got 10\b"):
        pc.rapid(
            real, syn, threat=INCOME, attackers=("logit",), bootstrap=0, epsilon=10, error=error
        )
    with pytest.raises(pc.ParameterError, match="proportion"):
        pc.rapid(
            real, syn, threat=INCOME, attackers=("logit",), bootstrap=0, epsilon=1.0, error=error
        )
    with pytest.raises(pc.ParameterError, match="proportion"):
        pc.rapid_synthesizer_cv(real, threat=INCOME, k=2, epsilon=10, error=error)


def test_epsilon_in_units_of_y_may_exceed_one(health_k5):
    real, syn = health_k5
    res = pc.rapid(
        real,
        syn,
        threat=INCOME,
        attackers=("logit",),
        bootstrap=0,
        epsilon=5000.0,
        error="absolute",
    )
    assert res.threshold == 5000.0 and 0 < res.value <= 1
    with pytest.raises(pc.ParameterError, match="epsilon"):
        pc.rapid(real, syn, threat=INCOME, attackers=("logit",), bootstrap=0, epsilon=0.0)
    relative = res.at(0.1, error="relative")
    with pytest.raises(pc.ParameterError, match="0.10 means 10 %; got 10"):
        relative.at(10)
    assert relative.at(0.0).value == 0.0  # a slider resting at 0 is fine


def test_mismatched_release_lists_problems(health_k5):
    real, syn = health_k5
    bad = syn.drop(columns=["age"]).assign(extra=1)
    with pytest.raises(pc.SchemaMismatchError) as info:
        pc.rapid(real, bad, threat=THREAT)
    assert len(info.value.problems) == 2


def test_too_few_rows(health_k5):
    real, syn = health_k5
    with pytest.raises(pc.InsufficientDataError):
        pc.rapid(real, syn.head(5), threat=THREAT)


def test_json_shape(fitted):
    out = fitted.to_dict()
    for key in ("value", "ci", "params", "kind", "threshold", "rate_max", "by_attacker", "curve"):
        assert key in out
    assert set(out["by_attacker"]) == {"rf", "xgb", "logit"}
    assert len(out["curve"]["thresholds"]) == len(out["curve"]["rate"])
    assert "records" not in out
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(fitted.to_dict(include_records=True)["records"]) == 600


def test_threshold_bootstrap_index_equals_full_weight_product():
    from privacy_core.risk.rapid import ThresholdBootstrap
    from privacy_core.stats import bootstrap_weights

    rng = np.random.default_rng(0)
    n = 1500
    weights = bootstrap_weights(n, 120, seed=1)
    scores = rng.random((n, 3))
    scores[7, 1] = np.nan  # a conditional score can be undefined
    scores[:50, 2] = 0.5  # ties at a threshold
    index = ThresholdBootstrap.build(np.ascontiguousarray(weights.T), scores, block=64)
    for t in (0.0, 0.1, 0.5, 0.77, 1.0):
        np.testing.assert_allclose(
            index.rates(t, above=True), weights @ (scores > t).astype(np.float32) / n, rtol=1e-6
        )
        np.testing.assert_allclose(
            index.rates(t, above=False), weights @ (scores < t).astype(np.float32) / n, rtol=1e-6
        )


# --------------------------------------------------------------------- records at risk
@pytest.mark.parametrize("tau", [0.3, 0.53])
def test_records_at_risk_are_the_strongest_attackers(fitted, tau):
    """One definition (paper §2.5, RAPID_max): the per-record table's at-risk records are
    the strongest attacker's, so their count is rate_max * n (one release)."""
    r = fitted.at(tau)
    rec = r.records
    n = len(rec)
    strongest = max(r.by_attacker, key=lambda a: r.by_attacker[a]["value"])
    assert r.strongest_attacker == strongest
    assert r.n_at_risk == int(rec["at_risk"].sum()) == round(r.rate_max * n)
    np.testing.assert_array_equal(rec["score"], rec[f"score_{strongest}"])
    # every score variant: the same single count
    for method in ("nce", "conditional"):
        m = fitted.at(method=method)
        assert m.n_at_risk == int(m.records["at_risk"].sum()) == round(m.rate_max * n)


def test_records_at_risk_with_several_releases_come_from_one_attacker(health_k5):
    real, syn = health_k5
    res = pc.rapid(
        real, [syn, _release(real, seed=9)], threat=THREAT, n_trees=50, bootstrap=0, seed=0
    )
    rec = res.records
    j = res.attackers.index(res.strongest_attacker)
    expected = res.scores[:, j, :].mean(axis=1) > res.threshold
    np.testing.assert_array_equal(rec["at_risk"].to_numpy(), expected)
    assert res.n_at_risk == int(expected.sum())


@pytest.mark.parametrize("method", ["conditional", "nce"])
def test_variant_reaggregation_equals_a_direct_fit(health_k5, fitted, method):
    """Re-aggregating a marginal fit under another score (cached scores, cached sorted
    bootstrap index) gives exactly what a fit with that score gives, at every step of a
    slider sweep, in either direction and after switching back."""
    real, syn = health_k5
    direct = pc.rapid(real, syn, threat=THREAT, n_trees=100, bootstrap=200, seed=0, method=method)
    for tau in (0.2, 0.6, 0.35, direct.threshold):
        a, b = fitted.at(tau, method=method), direct.at(tau)
        assert a.value == b.value and a.rate_max == b.rate_max
        assert a.ci == b.ci and a.ci_max == b.ci_max and a.intervals == b.intervals
        assert a.by_attacker == b.by_attacker
        again = a.at(tau + 0.01)  # a step from the variant result itself
        assert again.value == direct.at(tau + 0.01).value
    back = fitted.at(0.3, method=method).at(0.3, method="marginal")
    assert back.value == fitted.at(0.3).value and back.ci == fitted.at(0.3).ci


@pytest.mark.parametrize("only", [True, False])
def test_records_top_is_the_head_of_the_sorted_per_record_table(fitted, only):
    """What the page lists (the k riskiest rows, built for those rows alone) is exactly
    the head of the full per-record table filtered and sorted by score."""
    for tau in (0.1, 0.45):
        r = fitted.at(tau)
        rec = r.records
        full = (
            (rec[rec["at_risk"]] if only else rec)
            .sort_values("score", ascending=False, kind="stable")
            .head(25)
            .reset_index(drop=True)
        )
        top = r.records_top(25, only_at_risk=only)
        pd.testing.assert_frame_equal(top, full)
    high = fitted.at(0.9)
    assert len(high.records_top(high.n_at_risk + 10)) == high.n_at_risk
    assert len(high.records_top(high.n_at_risk + 10, only_at_risk=False)) == high.n_at_risk + 10


def test_poisson_bootstrap_index_matches_direct_weighted_rates():
    """Large tables keep one-byte Poisson weights (drawn once per fit): the sorted index
    gives each replicate's weighted share of records above / below any threshold."""
    from privacy_core.risk.rapid import ThresholdBootstrap
    from privacy_core.stats import poisson_bootstrap_weights

    n, n_boot = 3000, 40
    w = poisson_bootstrap_weights(n, n_boot, seed=5)
    assert w.dtype == np.uint8 and w.shape == (n, n_boot)
    np.testing.assert_array_equal(w, poisson_bootstrap_weights(n, n_boot, seed=5))
    assert abs(w.mean() - 1) < 0.02 and abs(w.var() - 1) < 0.05
    scores = np.random.default_rng(1).random((n, 2))
    scores[:7, 1] = np.nan
    index = ThresholdBootstrap.build(w, scores, block=64)
    wf = w.astype(float)
    for t in (0.0, 0.33, 0.9):
        above = (wf.T @ (scores > t)) / wf.sum(axis=0)[:, None]
        np.testing.assert_allclose(index.rates(t, above=True), above, rtol=1e-12)


def test_poisson_bootstrap_interval_agrees_with_the_multinomial_one(health_k5, monkeypatch):
    """Above the stored-multinomial limit the fit switches to the Poisson bootstrap (said
    in its parameters); its intervals agree with the multinomial ones within Monte Carlo
    error, and re-aggregation keeps using the weights drawn at fit time."""
    import importlib

    rapid_mod = importlib.import_module("privacy_core.risk.rapid.bootstrap")

    real, syn = health_k5
    kw = dict(threat=THREAT, attackers=("rf",), n_trees=50, bootstrap=400, seed=0)
    multi = pc.rapid(real, syn, **kw)
    monkeypatch.setattr(rapid_mod, "_MAX_STORED_WEIGHTS", 0)
    pois = pc.rapid(real, syn, **kw)
    assert multi.params["bootstrap_scheme"] == "multinomial"
    assert pois.params["bootstrap_scheme"] == "poisson" and pois.boot_weights.dtype == np.uint8
    for tau in (0.2, 0.5):
        a, b = multi.at(tau), pois.at(tau)
        assert a.value == b.value
        width = a.ci[1] - a.ci[0]
        assert abs(a.ci[0] - b.ci[0]) < 0.15 * width and abs(a.ci[1] - b.ci[1]) < 0.15 * width
        assert b.ci[0] < b.value < b.ci[1]
        assert b.at(tau).ci == b.ci  # the same weights at every step
