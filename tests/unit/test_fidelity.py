"""Wasserstein fidelity, the fidelity suite, the baselines and their figures.

Truth tables: hand-computed total variation (1-way and product domain), a 1-D numeric case
against scipy, small 2-D cases against brute-force assignment (uniform weights on n = m
points make the optimal plan a permutation), and a missing-value case by hand.
"""

from __future__ import annotations

import itertools
import json
import warnings
from functools import lru_cache

import numpy as np
import ot
import pandas as pd
import plotly.graph_objects as go
import pytest
from scipy.stats import wasserstein_distance

import privacy_core as pc
import privacy_core.fidelity as fidelity_module
from privacy_core import infer_schema, load_adult
from privacy_core.errors import (
    ParameterError,
    SchemaMismatchError,
    UntrustworthyResultWarning,
)
from privacy_core.evaluation import evaluate
from privacy_core.fidelity import (
    FAMILIES,
    WassersteinResult,
    mixed_cost,
    ot_distance,
    total_variation,
    wasserstein_fidelity,
)
from privacy_core.plots.fidelity import (
    fidelity_family_figure,
    fidelity_pair_heatmap,
    fidelity_reference_figure,
    fidelity_worst_marginals,
    marginal_overlay,
)
from privacy_core.references import fidelity_baselines
from privacy_core.synth import synthesize


def _scaled(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    both = np.concatenate([x, y])
    lo, hi = both.min(), both.max()
    return (x - lo) / (hi - lo), (y - lo) / (hi - lo)


def _brute_force_assignment(cost: np.ndarray) -> float:
    """Minimum mean cost over all permutations (optimal OT with n = m uniform points)."""
    n = cost.shape[0]
    return min(cost[np.arange(n), list(p)].mean() for p in itertools.permutations(range(n)))


# ============================================================================ truth tables
def test_categorical_tvd_matches_hand_computation():
    real = pd.DataFrame({"c": ["a", "a", "b", "c"], "x": [1.0, 2.0, 3.0, 4.0]})
    syn = pd.DataFrame({"c": ["a", "b", "b", "b"], "x": [1.0, 2.0, 3.0, 4.0]})
    res = wasserstein_fidelity(real, syn)
    # p = (.5, .25, .25), q = (.25, .75, 0): TVD = (.25 + .5 + .25) / 2
    assert res.extra["by_marginal"]["c"] == pytest.approx(0.5)
    assert total_variation(np.array([2, 1, 1]), np.array([1, 3, 0])) == pytest.approx(0.5)


def test_categorical_pair_tvd_over_product_domain():
    real = pd.DataFrame({"a": ["u", "u", "v", "v"], "b": ["p", "q", "p", "q"]})
    syn = pd.DataFrame({"a": ["u", "u", "v", "v"], "b": ["p", "p", "q", "q"]})
    res = wasserstein_fidelity(real, syn)
    # both 1-way marginals agree; joint: real has each cell 1/4, synthetic (u,p) 1/2,
    # (v,q) 1/2: TVD = (1/4 + 1/4 + 1/4 + 1/4) / 2
    assert res.extra["by_marginal"]["a"] == 0.0
    assert res.extra["by_marginal"]["b"] == 0.0
    assert res.extra["by_marginal"]["a|b"] == pytest.approx(0.5)
    assert res.extra["families"] == {"cat": 0.0, "cat-cat": pytest.approx(0.5)}
    assert res.value == pytest.approx(0.25)  # mean of the two family means


def test_one_dimensional_numeric_equals_scipy(rng):
    x = rng.normal(size=200)
    y = rng.normal(0.3, 1.4, size=150)
    real = pd.DataFrame({"x": x, "c": rng.choice(list("ab"), size=200)})
    syn = pd.DataFrame({"x": y, "c": rng.choice(list("ab"), size=150)})
    res = wasserstein_fidelity(real, syn)
    xs, ys = _scaled(x, y)
    assert res.extra["by_marginal"]["x"] == pytest.approx(wasserstein_distance(xs, ys), abs=1e-12)
    # the network simplex path agrees with the closed form in one dimension
    assert ot_distance(xs[:, None], ys[:, None], ["num"]) == pytest.approx(
        wasserstein_distance(xs, ys), abs=1e-9
    )


def test_numeric_pair_equals_brute_force_assignment(rng):
    real = pd.DataFrame({"x": rng.random(6), "y": rng.random(6) * 10})
    syn = pd.DataFrame({"x": rng.random(6) ** 2, "y": rng.random(6) * 12})
    res = wasserstein_fidelity(real, syn)
    xr, xs = _scaled(real["x"].to_numpy(), syn["x"].to_numpy())
    yr, ys = _scaled(real["y"].to_numpy(), syn["y"].to_numpy())
    cost = np.abs(xr[:, None] - xs[None, :]) + np.abs(yr[:, None] - ys[None, :])
    assert res.extra["by_marginal"]["x|y"] == pytest.approx(
        _brute_force_assignment(cost), abs=1e-12
    )
    assert res.records.set_index("marginal").loc["x|y", "family"] == "num-num"


def test_mixed_pair_equals_brute_force_assignment(rng):
    real = pd.DataFrame({"c": list("aabbcc"), "x": rng.random(6)})
    syn = pd.DataFrame({"c": list("abbbca"), "x": rng.random(6) + 0.2})
    res = wasserstein_fidelity(real, syn)
    xr, xs = _scaled(real["x"].to_numpy(), syn["x"].to_numpy())
    cr, cs = real["c"].to_numpy(), syn["c"].to_numpy()
    cost = (cr[:, None] != cs[None, :]) + np.abs(xr[:, None] - xs[None, :])
    assert res.extra["by_marginal"]["c|x"] == pytest.approx(
        _brute_force_assignment(cost), abs=1e-12
    )
    assert res.records.set_index("marginal").loc["c|x", "family"] == "cat-num"


def test_collapsing_duplicates_is_exact(rng):
    # few distinct points with many repeats: the weighted problem equals the full one
    real = np.column_stack([rng.integers(0, 3, 80), rng.integers(0, 4, 80) / 3])
    syn = np.column_stack([rng.integers(0, 3, 60), rng.integers(0, 4, 60) / 3])
    full = ot.emd2(
        np.full(80, 1 / 80),
        np.full(60, 1 / 60),
        mixed_cost(real, syn, ["cat", "num"]),
        numItermax=10**7,
    )
    assert ot_distance(real, syn, ["cat", "num"]) == pytest.approx(full, abs=1e-12)


def test_missing_numeric_value_costs_one_to_any_value():
    real = pd.DataFrame({"x": [0.0, 1.0, np.nan, np.nan], "c": list("abab")})
    syn = pd.DataFrame({"x": [0.0, 1.0, 1.0, np.nan], "c": list("abab")})
    res = wasserstein_fidelity(real, syn)
    # real: 0 (1/4), 1 (1/4), missing (1/2); synthetic: 0 (1/4), 1 (1/2), missing (1/4):
    # a quarter of the mass moves from "missing" to 1 at cost 1
    assert res.extra["by_marginal"]["x"] == pytest.approx(0.25, abs=1e-12)
    cost = mixed_cost(np.array([[0.5], [-1.0]]), np.array([[0.2], [-1.0]]), ["num"])
    np.testing.assert_allclose(cost, [[0.3, 1.0], [1.0, 0.0]])


def test_constant_numeric_column_scales_to_zero():
    real = pd.DataFrame({"x": [3.0, 3.0, 3.0], "c": list("abc")})
    syn = pd.DataFrame({"x": [3.0, 3.0], "c": list("ab")})
    schema = infer_schema(pd.DataFrame({"x": [3.0, 4.0, 3.0], "c": list("abc")}))
    res = wasserstein_fidelity(real, syn, schema=schema)
    assert res.extra["by_marginal"]["x"] == 0.0


# ============================================================================ invariants
def test_identical_tables_give_zero_everywhere(health_real):
    for max_rows in (None, 100):  # with and without the subsample
        res = wasserstein_fidelity(health_real, health_real.copy(), max_rows=max_rows)
        assert res.value == 0.0
        assert all(v == 0.0 for v in res.extra["by_marginal"].values())
        assert set(res.extra["families"]) == set(FAMILIES)
        assert res.extra["mean_all"] == 0.0


def test_symmetric_in_real_and_synthetic(health_canonical):
    release = synthesize(health_canonical, method="cart", n=250, seed=3)
    for max_rows in (None, 120):
        ab = wasserstein_fidelity(health_canonical, release, max_rows=max_rows, seed=4)
        ba = wasserstein_fidelity(release, health_canonical, max_rows=max_rows, seed=4)
        assert ab.value == pytest.approx(ba.value, abs=1e-12)
        np.testing.assert_allclose(ab.records["distance"], ba.records["distance"], atol=1e-12)


def test_seed_reproduces_and_is_used(health_canonical, health_synthetic):
    a = wasserstein_fidelity(health_canonical, health_synthetic, max_rows=100, seed=7)
    b = wasserstein_fidelity(health_canonical, health_synthetic, max_rows=100, seed=7)
    c = wasserstein_fidelity(health_canonical, health_synthetic, max_rows=100, seed=8)
    pd.testing.assert_frame_equal(a.records, b.records)
    assert a.value == b.value
    assert a.value != c.value  # another subsample
    assert a.params["seed"] == 7
    assert a.params["subsample_rows"] == {"real": 100, "synthetic": [100]}
    subsampled = a.records[~a.records["all_rows"]]
    # only marginals solved by the network simplex use the subsample
    assert set(subsampled["family"]) == {"num-num", "cat-num"}
    assert (subsampled["n_real"] == 100).all()
    assert (a.records.loc[a.records["ways"] == 1, "n_real"] == 300).all()


def test_result_shape_and_json_contract(health_canonical, health_synthetic):
    res = wasserstein_fidelity(health_canonical, health_synthetic)
    assert isinstance(res, WassersteinResult)
    assert res.name == "wasserstein" and res.goal == "lower" and res.ci is None
    assert res.bounds == (0.0, 2.0)
    n_cols = 6
    assert len(res.records) == n_cols + n_cols * (n_cols - 1) // 2
    assert res.params["n_marginals"] == 21
    fam = res.extra["families"]
    assert res.value == pytest.approx(np.mean(list(fam.values())))
    assert res.extra["mean_all"] == pytest.approx(res.records["distance"].mean())
    assert res.extra["one_way"] == pytest.approx(
        res.records.loc[res.records["ways"] == 1, "distance"].mean()
    )
    assert set(res.extra["by_marginal"]) == set(res.records["marginal"])
    out = json.loads(json.dumps(res.to_dict()))
    for key in ("value", "ci", "params", "one_way", "two_way", "by_marginal"):
        assert key in out
    assert "age|income" in out["by_marginal"]


def test_replicates_give_mean_and_interval(health_canonical):
    releases = [synthesize(health_canonical, method="cart", seed=s) for s in (1, 2, 3)]
    res = wasserstein_fidelity(health_canonical, releases)
    singles = [wasserstein_fidelity(health_canonical, r).value for r in releases]
    assert res.value == pytest.approx(np.mean(singles))
    assert res.extra["replicate_values"] == pytest.approx(singles)
    lo, hi = res.ci
    assert lo < res.value < hi
    assert res.records["sd"].notna().all()


def test_pair_matrix_and_worst(health_canonical, health_synthetic):
    res = wasserstein_fidelity(health_canonical, health_synthetic)
    mat = res.pair_matrix()
    assert list(mat.index) == list(health_canonical.columns)
    np.testing.assert_allclose(mat.to_numpy(), mat.to_numpy().T, equal_nan=True)
    assert np.isnan(np.diag(mat.to_numpy())).all()
    assert mat.loc["age", "income"] == res.extra["by_marginal"]["age|income"]
    worst = res.worst(4, ways=2)
    assert len(worst) == 4 and (worst["ways"] == 2).all()
    assert worst["distance"].is_monotonic_decreasing
    assert worst["distance"].iloc[0] == res.records.loc[res.records["ways"] == 2, "distance"].max()


def test_solver_that_stops_early_warns(monkeypatch, rng):
    monkeypatch.setattr(fidelity_module, "_NUM_ITER_MAX", 3)
    real = rng.random((60, 2))
    syn = rng.random((60, 2)) ** 2
    with pytest.warns(UntrustworthyResultWarning, match="did not converge"):
        ot_distance(real, syn, ["num", "num"])


def test_columns_option_restricts_marginals(health_canonical, health_synthetic):
    res = wasserstein_fidelity(health_canonical, health_synthetic, columns=["age", "disease"])
    assert sorted(res.extra["by_marginal"]) == ["age", "age|disease", "disease"]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"columns": ["nope"]}, "columns"),
        ({"max_rows": 1}, "max_rows"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_options_raise(health_canonical, health_synthetic, kwargs, match):
    with pytest.raises(ParameterError, match=match):
        wasserstein_fidelity(health_canonical, health_synthetic, **kwargs)


def test_mismatched_release_raises(health_real):
    bad = health_real.drop(columns=["age"])
    with pytest.raises(SchemaMismatchError, match="age"):
        wasserstein_fidelity(health_real, bad)


# ============================================================================ baselines
@lru_cache(maxsize=1)
def _adult_sample() -> pd.DataFrame:
    adult = load_adult()
    rows = np.random.default_rng(0).choice(len(adult), size=3000, replace=False)
    return adult.iloc[np.sort(rows)].reset_index(drop=True)


def test_half_beats_histogram_on_simulated_health(make_health):
    real = make_health(2000, 1.0, 0)
    base = fidelity_baselines(real, metrics=["wasserstein"], seed=0)
    half, hist = base["half"]["wasserstein"], base["histogram"]["wasserstein"]
    assert half.value < hist.value
    assert half.extra["two_way"] < hist.extra["two_way"]
    assert half.params["n_real"] == half.params["n_synthetic"][0] == 1000
    assert hist.params["n_real"] == hist.params["n_synthetic"][0] == 1000


def test_half_beats_histogram_on_adult():
    base = fidelity_baselines(
        _adult_sample(), metrics=["wasserstein"], options={"wasserstein": {"max_rows": 600}}, seed=1
    )
    half, hist = base["half"]["wasserstein"], base["histogram"]["wasserstein"]
    assert half.params["n_marginals"] == 120  # 15 one-way + all 105 pairs
    assert half.value < hist.value
    assert half.extra["families"]["cat-cat"] < hist.extra["families"]["cat-cat"]


def test_systematic_assessment_order_half_cart_histogram():
    """The systematic assessment's order of methods (HALF < CART < HISTOGRAM in
    Wasserstein distance to the population), reproduced as docs/papers.md's commands do:
    each table against an independent draw of the population."""
    real = pc.simulate_health(2000, kappa=1, seed=0)
    draw = pc.simulate_health(2000, kappa=1, seed=1000003)
    canon = pc.prepare_table(real, pc.infer_schema(real))
    tables = {
        "half": real,
        "cart": pc.synthesize(canon, method="cart", min_leaf=5, seed=0),
        "histogram": pc.synthesize(canon, method="histogram", seed=0),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = {k: wasserstein_fidelity(draw, t, seed=0).value for k, t in tables.items()}
    assert w["half"] < w["cart"] < w["histogram"], w
    # docs/papers.md's figures (0.0174 < 0.0253 < 0.0319)
    assert w == pytest.approx({"half": 0.0174, "cart": 0.0253, "histogram": 0.0319}, abs=5e-4)


# ============================================================================ the suite
@pytest.mark.filterwarnings("ignore::privacy_core.errors.UntrustworthyResultWarning")
def test_the_fidelity_suite_runs_through_evaluate(health_real, health_synthetic, health_holdout):
    without = evaluate(
        health_real,
        health_synthetic,
        measures=["wasserstein", "query_error", "discriminator"],
        options={"query_error": {"n_queries": 50}, "discriminator": {"bootstrap": 20}},
    )
    assert list(without.results) == ["wasserstein", "query_error", "discriminator"]
    assert not without.failures
    with_mla = evaluate(
        health_real,
        health_synthetic,
        measures=["wasserstein", "mla"],
        holdout=health_holdout,
        options={"mla": {"target": "disease"}},
    )
    assert list(with_mla.results) == ["wasserstein", "mla"]
    assert with_mla["mla"].params["target"] == "disease"
    assert with_mla["wasserstein"].value == pytest.approx(without["wasserstein"].value)


def test_evaluate_progress_is_monotone_and_reaches_into_the_measures(health_real, health_synthetic):
    calls: list[tuple[float, str]] = []
    evaluate(
        health_real,
        health_synthetic,
        measures=["wasserstein", "query_error"],
        options={"query_error": {"n_queries": 20}},
        progress=lambda f, m: calls.append((f, m)),
    )
    fractions = [f for f, _ in calls]
    assert fractions == sorted(fractions)
    assert fractions[0] >= 0 and fractions[-1] == 1.0
    assert any(m.startswith("Query error") for _, m in calls)
    # the Wasserstein computation reports its own steps inside its share
    inner = [f for f, m in calls if m.startswith("Wasserstein distance: ")]
    assert inner and max(inner) <= 0.5


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"measures": ["mla"]}, "holdout"),
        ({"measures": ["fid"]}, "Unknown measure"),
        ({"measures": ["wasserstein"], "options": {"nope": {}}}, "options"),
        ({"measures": ["wasserstein"], "errors": "ignore"}, "errors"),
    ],
)
def test_evaluate_bad_requests(health_real, health_synthetic, kwargs, match):
    with pytest.raises(ParameterError, match=match):
        evaluate(health_real, health_synthetic, **kwargs)


def test_evaluate_collects_failures_and_goes_on(health_real, health_synthetic):
    """errors="collect": a measure that cannot run is reported, the others still run."""
    review = evaluate(
        health_real,
        health_synthetic,
        measures=["mla", "query_error"],
        options={"query_error": {"n_queries": 20}},
        errors="collect",
    )
    assert list(review.results) == ["query_error"]
    assert list(review.failures) == ["mla"] and "holdout" in review.failures["mla"]
    with pytest.raises(TypeError):
        review.results["mla"] = review["query_error"]  # the review is read-only


def test_fidelity_baselines_choose_their_measures(health_real, health_holdout):
    base = fidelity_baselines(
        health_real,
        holdout=health_holdout,
        target="disease",
        metrics="query_error,mla",
        options={"mla": {"bootstrap": 20}},
    )
    assert list(base) == ["half", "histogram"]
    assert all(list(r) == ["query_error", "mla"] for r in base.values())
    assert base["half"]["mla"].params["target"] == "disease"
    with pytest.raises(ParameterError, match="Unknown fidelity metric"):
        fidelity_baselines(health_real, metrics=["fid"])
    with pytest.raises(ParameterError, match="options"):
        fidelity_baselines(health_real, options={"nope": {}})


# ============================================================================ figures
def test_figures_from_a_result(health_canonical, health_synthetic):
    res = wasserstein_fidelity(health_canonical, health_synthetic)
    heat = fidelity_pair_heatmap(res)
    assert isinstance(heat, go.Figure)
    assert np.asarray(heat.data[0].z).shape == (6, 6)
    bars = fidelity_worst_marginals(res, 5)
    assert sum(len(t.x) for t in bars.data) == 5
    assert {t.name for t in bars.data} <= {
        "categorical",
        "numeric",
        "categorical pair",
        "numeric pair",
        "mixed pair",
    }
    fam = fidelity_family_figure(res)
    assert len([t for t in fam.data if t.type == "box"]) == len(res.extra["families"])


def test_marginal_overlays(health_real, health_synthetic):
    num = marginal_overlay(health_real, health_synthetic, "income", bins=20)
    assert [t.name for t in num.data] == ["real", "synthetic"]
    assert sum(num.data[0].y) == pytest.approx(1.0)
    cat = marginal_overlay(health_real, health_synthetic, "disease")
    assert set(cat.data[0].x) == {"healthy", "diabetic", "hypertensive"}
    pair = marginal_overlay(health_real, health_synthetic, ["age", "disease"], bins=10)
    assert [t.type for t in pair.data] == ["heatmap"] * 3
    assert np.asarray(pair.data[0].z).sum() == pytest.approx(1.0)
    with pytest.raises(ParameterError):
        marginal_overlay(health_real, health_synthetic, ["age", "income", "health"])


def test_reference_figure_draws_baselines(health_canonical, health_synthetic):
    release = {"wasserstein": wasserstein_fidelity(health_canonical, health_synthetic)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UntrustworthyResultWarning)
        base = fidelity_baselines(health_canonical, metrics=["wasserstein"])
    fig = fidelity_reference_figure({"cart": release, **base})
    names = [t.name for t in fig.data]
    assert names[0] == "cart"
    assert any(n.startswith("HALF") for n in names) and any(
        n.startswith("HISTOGRAM") for n in names
    )


def test_wide_tables_score_a_seeded_sample_of_pairs_and_the_interval_says_so():
    """Issue 32: the pairs grow with the square of the columns, so above ``max_pairs`` a
    seeded sample is scored. Wrong versions caught: scoring every pair anyway (the count),
    an interval that ignores the sampling (None for one release), a sample that moves with
    nothing but the seed, a sampled estimate far from the full one."""
    rng = np.random.default_rng(21)
    cols = [f"x{i}" for i in range(30)]
    real = pd.DataFrame(rng.normal(size=(120, 30)), columns=cols)
    syn = real + rng.normal(scale=np.linspace(0.05, 1.5, 30), size=(120, 30))
    full = pc.wasserstein_fidelity(real, syn, max_pairs=None)
    part = pc.wasserstein_fidelity(real, syn, max_pairs=120, seed=4)
    assert full.params["n_pairs_scored"] == full.params["n_pairs_total"] == 435
    assert full.ci is None and full.params["pair_sampling"] == "every pair"
    assert part.params["n_pairs_scored"] == 120 and part.params["n_pairs_total"] == 435
    assert (part.records["ways"] == 2).sum() == 120 and (part.records["ways"] == 1).sum() == 30
    assert "120 of 435 column pairs" in part.params["pair_sampling"]
    lo, hi = part.ci
    assert lo < part.value < hi and lo <= full.value <= hi
    again = pc.wasserstein_fidelity(real, syn, max_pairs=120, seed=4)
    assert again.value == part.value  # the same seed scores the same pairs
    other = pc.wasserstein_fidelity(real, syn, max_pairs=120, seed=5)
    assert set(other.records["marginal"]) != set(part.records["marginal"])
    with pytest.raises(pc.ParameterError, match="max_pairs"):
        pc.wasserstein_fidelity(real, syn, max_pairs=0)


def test_the_pair_sample_keeps_every_family_the_table_has():
    """2,000 numeric columns and one categorical: the cat-num family is 2,000 of 2,001,000
    pairs, so a simple random sample of 1,000 misses it about one time in three and the
    mean of family means changes meaning with the seed. The stratified sample keeps it."""
    from privacy_core.fidelity import MIN_PAIRS_PER_FAMILY, sample_pairs

    cols = [f"n{i}" for i in range(2000)] + ["group"]
    kinds = {c: "num" for c in cols} | {"group": "cat"}
    first, second = np.triu_indices(len(cols), 1)
    for seed in range(5):
        pick = sample_pairs(cols, kinds, 1000, seed)
        assert len(pick) == 1000 and len(set(pick)) == 1000
        with_group = (second[pick] == 2000).sum()
        assert MIN_PAIRS_PER_FAMILY <= with_group <= MIN_PAIRS_PER_FAMILY + 1
    names = ["a", "b", "c"] + [f"n{i}" for i in range(40)]
    small = sample_pairs(names, {c: "cat" if len(c) == 1 else "num" for c in names}, 200, 0)
    assert len(small) == 200  # every cat-cat pair (3) and the rest by family size
