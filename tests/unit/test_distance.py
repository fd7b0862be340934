"""IMS, DCR and the k-NN indicator: hand-computed cases, leaky extremes, contracts."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st
from sklearn.metrics import roc_auc_score

import privacy_core as pc
from privacy_core.errors import ParameterError, PrivacyCoreError, UntrustworthyResultWarning
from privacy_core.risk.distance import (
    DcrResult,
    KnnResult,
    dcr,
    dcr_knn,
    identical_match_share,
    identical_rows,
)
from privacy_core.risk.neighbors import exact_match_mask, nearest_neighbors
from privacy_core.stats import (
    bootstrap_auc,
    bootstrap_percentile,
    bootstrap_share_below,
    weighted_auc,
)

THREAT = pc.ThreatModel(["age", "education", "gender"], ["disease"])
TOY_THREAT = pc.ThreatModel(["x"], ["y"])


def _toy(xs, ys=None) -> pd.DataFrame:
    xs = np.asarray(xs, dtype=float)
    ys = ys if ys is not None else ["a" if i % 2 == 0 else "b" for i in range(len(xs))]
    return pd.DataFrame({"x": xs, "y": ys})


@pytest.fixture(scope="module")
def health():
    train = pc.simulate_health(500, seed=11)
    holdout = pc.simulate_health(500, seed=12)
    fresh = pc.simulate_health(500, seed=13)
    return train, holdout, fresh


# --------------------------------------------------------------------- neighbours
def test_distance_of_a_table_to_itself_is_exactly_zero(rng):
    x = rng.random((300, 9)).astype(np.float32)
    d, i = nearest_neighbors(x, x)
    assert np.all(d == 0.0)
    np.testing.assert_array_equal(i[:, 0], np.arange(300))


def test_near_duplicates_below_the_expansion_resolution_are_ranked_exactly():
    # one-hot parts make |q|^2 large, so a 1.5e-8 numeric difference vanishes in
    # |r|^2 - 2 q.r; the row itself must still be found at distance exactly 0
    x = np.zeros((10, 4))
    x[:, 2] = 1.0
    x[8, 1] = 1.0
    x[9, 1] = 1.49e-8
    d, i = nearest_neighbors(x, x)
    assert np.all(d == 0.0) and i[9, 0] == 9
    d, i = nearest_neighbors(x, x, k=3)
    np.testing.assert_array_equal(i[9], [9, 0, 1])
    np.testing.assert_allclose(d[9], [0.0, 1.49e-8, 1.49e-8])


@pytest.mark.parametrize("metric", ["euclidean", "l1"])
@pytest.mark.parametrize("k", [1, 5, 40])
def test_neighbours_match_brute_force_with_ties_broken_by_lower_index(metric, k):
    from scipy.spatial.distance import cdist

    r = np.random.default_rng(k)
    q = r.integers(0, 3, (120, 4)).astype(float)  # small integer grid: many exact ties
    ref = r.integers(0, 3, (150, 4)).astype(float)
    full = cdist(q, ref, "euclidean" if metric == "euclidean" else "cityblock")
    d, i = nearest_neighbors(q, ref, k=k, metric=metric, max_block=2000)
    np.testing.assert_array_equal(i, np.argsort(full, axis=1, kind="stable")[:, :k])
    np.testing.assert_allclose(d, np.sort(full, axis=1)[:, :k], atol=1e-12)
    full_self = cdist(q, q, "euclidean" if metric == "euclidean" else "cityblock")
    np.fill_diagonal(full_self, np.inf)
    d, i = nearest_neighbors(q, q, k=k, metric=metric, exclude_self=True, max_block=2000)
    np.testing.assert_array_equal(i, np.argsort(full_self, axis=1, kind="stable")[:, :k])


@pytest.mark.parametrize("k", [1, 3])
def test_l1_on_one_hot_categories_matches_brute_force(k):
    """The mixed attacker space (range-scaled numerics, one-hot categories weighted 1/2):
    the indicator columns' L1 comes from one matrix product (issue 14); distances and
    neighbours (ties by lower index, many of them) equal scipy's cityblock."""
    from scipy.spatial.distance import cdist

    r = np.random.default_rng(k)

    def table(n: int) -> np.ndarray:
        levels = (3, 5, 2, 7)
        onehot = [np.eye(m)[r.integers(0, m, n)] * 0.5 for m in levels]
        onehot[1][r.random(n) < 0.1] = 0.0  # a missing category: no indicator set
        numeric = r.integers(0, 4, (n, 2)) / 3.0
        return np.hstack([numeric[:, :1], *onehot, numeric[:, 1:]])

    q, ref = table(150), table(400)
    full = cdist(q, ref, "cityblock")
    d, i = nearest_neighbors(q, ref, k=k, metric="l1", max_block=5000)
    np.testing.assert_array_equal(i, np.argsort(full, axis=1, kind="stable")[:, :k])
    np.testing.assert_allclose(d, np.sort(full, axis=1)[:, :k], atol=1e-12)


def test_exact_match_mask_treats_signed_zero_as_equal():
    q = np.array([[-0.0, 1.0], [2.0, 3.0]])
    r = np.array([[0.0, 1.0]])
    np.testing.assert_array_equal(exact_match_mask(q, r), [True, False])


# --------------------------------------------------------------------- IMS
def test_ims_hand_computed_with_missing_and_signed_zero():
    train = pd.DataFrame(
        {"x": [0.0, 1.5, np.nan, 3.25, 4.5, 5.75], "y": ["a", "b", "a", "b", "a", "b"]}
    )
    syn = pd.DataFrame({"x": [-0.0, np.nan, 9.5, 1.5], "y": ["a", "a", "a", "a"]})
    hold = pd.DataFrame({"x": [3.25, 7.0, 8.0, 1.0], "y": ["b", "a", "a", "b"]})
    res = identical_match_share(train, syn, threat=TOY_THREAT, holdout=hold)
    # rows 0 (-0.0 == 0.0) and 1 (missing == missing) copy training rows 0 and 2
    assert res.value == pytest.approx(0.5)
    assert res.ci == pytest.approx(pc.stats.wilson_interval(2, 4))
    assert res.baseline == pytest.approx(0.25)
    recs = res.records
    assert recs["match"].tolist() == [True, True, False, False]
    assert recs["real_record"].tolist() == [0, 2, -1, -1]
    assert res.name == "ims" and res.goal == "lower" and res.bounds == (0.0, 1.0)


def test_identical_rows_verifies_values_not_only_hashes():
    a = pd.DataFrame({"x": [1.0, 2.0], "y": ["p", "q"]})
    b = pd.DataFrame({"x": [2.0, 1.0000001], "y": ["q", "p"]})
    flags, pos = identical_rows(a, b)
    assert flags.tolist() == [False, True] and pos.tolist() == [-1, 0]


def test_ims_leaky_extremes(health):
    train, holdout, fresh = health
    copy = identical_match_share(train, train.copy(), threat=THREAT, holdout=holdout)
    assert copy.value == 1.0 and copy.baseline == 0.0
    unseen = identical_match_share(train, fresh, threat=THREAT, holdout=holdout)
    assert unseen.value == 0.0


# --------------------------------------------------------------------- DCR by hand
TOY_TRAIN = _toy(np.arange(11))  # x = 0..10, scaled by the real range 10
TOY_HOLD = _toy([0.1, 0.2, 0.3, 0.4, 0.5])  # RRD = 0.01 .. 0.05
TOY_SYN = _toy([0.0, 3.01, 5.5, 7.15])  # SRD = 0, 0.001, 0.05, 0.015


@pytest.mark.parametrize(
    ("alpha", "threshold", "share", "score", "ratio"),
    [
        (50.0, 0.03, 0.75, (0.75 - 0.5) / 0.5, 1.5),
        (25.0, 0.02, 0.75, (0.75 - 0.25) / 0.75, 3.0),
        (10.0, 0.014, 0.5, (0.5 - 0.1) / 0.9, 5.0),
        (5.0, 0.012, 0.5, (0.5 - 0.05) / 0.95, 10.0),
    ],
)
def test_dcr_score_formula_by_hand(alpha, threshold, share, score, ratio):
    res = dcr(
        TOY_TRAIN,
        TOY_SYN,
        threat=TOY_THREAT,
        holdout=TOY_HOLD,
        columns=["x"],
        alpha=alpha,
        bootstrap=0,
    )
    np.testing.assert_allclose(res.srd, [0.0, 0.001, 0.05, 0.015], atol=1e-7)
    np.testing.assert_allclose(res.rrd, [0.01, 0.02, 0.03, 0.04, 0.05], atol=1e-7)
    assert res.threshold == pytest.approx(threshold, abs=1e-7)
    assert res.share_below == pytest.approx(share)
    assert res.value == pytest.approx(score)
    assert res.extra["ratio"] == pytest.approx(ratio)
    assert res.extra["alpha"] == alpha
    assert res.records["real_record"].tolist() == [0, 3, 5, 7]  # 5.5: tie -> lower index
    assert res.records["at_risk"].sum() == round(share * 4)


def test_dcr_k_neighbourhood_mean_by_hand():
    res = dcr(
        TOY_TRAIN, TOY_SYN, threat=TOY_THREAT, holdout=TOY_HOLD, columns=["x"], k=3, bootstrap=0
    )
    # 0.0 -> 0, 1, 2; 3.01 -> 3, 4, 2; 5.5 -> 5, 6, 4; 7.15 -> 7, 8, 6 (in tenths)
    np.testing.assert_allclose(res.srd, [0.3 / 3, 0.201 / 3, 0.25 / 3, 0.215 / 3], atol=1e-6)
    # holdout x in (0, 1): neighbours 0, 1, 2 -> (x + (1 - x) + (2 - x)) / 30
    np.testing.assert_allclose(res.rrd, (3 - np.array([0.1, 0.2, 0.3, 0.4, 0.5])) / 30, atol=1e-6)


def test_dcr_gower_distance_by_hand():
    train = pd.DataFrame({"x": [0.0, 10.0, 4.0], "y": ["a", "b", "a"]})
    syn = pd.DataFrame({"x": [5.0], "y": ["b"]})
    hold = pd.DataFrame({"x": [9.0, 1.0], "y": ["b", "b"]})
    res = dcr(train, syn, threat=TOY_THREAT, holdout=hold, metric="gower", bootstrap=0)
    # to (4, a): (0.1 + 1) / 2 = 0.55; to (10, b): (0.5 + 0) / 2 = 0.25 -> nearest (10, b)
    assert res.srd[0] == pytest.approx(0.25, abs=1e-6)
    assert res.records["real_record"].tolist() == [1]
    # (9, b) -> (10, b): 0.05; (1, b) -> (0, a): (0.1 + 1) / 2 = 0.55, (10, b): 0.45
    np.testing.assert_allclose(res.rrd, [0.05, 0.45], atol=1e-6)
    euclid = dcr(train, syn, threat=TOY_THREAT, holdout=hold, bootstrap=0)
    assert euclid.srd[0] == pytest.approx(0.5, abs=1e-6)  # one-hot: sqrt(0.1^2 + 2) > 0.5


def test_dcr_ratio_variant_by_hand():
    train = _toy([0.0, 1.0, 3.0])
    syn = _toy([0.5])
    hold = _toy([2.9])
    res = dcr(
        train, syn, threat=TOY_THREAT, holdout=hold, columns=["x"], variant="ratio", bootstrap=0
    )
    np.testing.assert_allclose(res.srd, [0.5, 0.5, 1.25], atol=1e-6)
    np.testing.assert_allclose(res.rrd, [2.9, 1.9, 0.05], atol=1e-6)
    recs = res.records
    assert recs["record"].tolist() == [0, 1, 2]
    assert recs["synthetic_record"].tolist() == [0, 0, 0]
    assert recs["real_neighbor"].tolist() == [1, 0, 1]
    np.testing.assert_allclose(res.dcr_synthetic, [0.5 / 3], atol=1e-6)  # plain DCR kept too


# --------------------------------------------------------------------- DCR on simulated data
def test_dcr_leaky_extremes(health):
    train, holdout, fresh = health
    copy = dcr(train, train.copy(), threat=THREAT, holdout=holdout, seed=0)
    assert copy.value == pytest.approx(1.0)
    assert copy.ci == pytest.approx((1.0, 1.0))
    assert np.all(copy.dcr_synthetic == 0.0)
    unseen = dcr(train, fresh, threat=THREAT, holdout=holdout, seed=0)
    assert abs(unseen.value) < 0.1
    assert unseen.ci[0] <= 0.02
    for metric in ("gower",):
        assert dcr(
            train, train.copy(), threat=THREAT, holdout=holdout, metric=metric, bootstrap=0
        ).value == pytest.approx(1.0)
        assert (
            abs(dcr(train, fresh, threat=THREAT, holdout=holdout, metric=metric, bootstrap=0).value)
            < 0.1
        )
    ratio = dcr(train, train.copy(), threat=THREAT, holdout=holdout, variant="ratio", bootstrap=0)
    assert ratio.value == pytest.approx(1.0)


def test_dcr_reaggregation_equals_recompute(health):
    train, holdout, fresh = health
    base = dcr(train, fresh, threat=THREAT, holdout=holdout, seed=3)
    direct = dcr(train, fresh, threat=THREAT, holdout=holdout, alpha=7.5, seed=3)
    moved = base.at(alpha=7.5)
    assert moved.value == direct.value and moved.ci == direct.ci
    assert moved.extra["alpha"] == 7.5 and moved.params["alpha"] == 7.5
    assert moved.bounds == pytest.approx((-0.075 / 0.925, 1.0))
    assert base.value != moved.value  # the stored result itself is unchanged
    curve = base.curve([1, 2, 5])
    assert curve["alpha"].tolist() == [1, 2, 5]
    assert curve.loc[1, "value"] == base.value


def test_dcr_without_holdout_splits_and_warns(health):
    train, _, fresh = health
    with pytest.warns(UntrustworthyResultWarning, match="holdout"):
        res = dcr(train, fresh, threat=THREAT, seed=5)
    assert res.params["rrd_source"] == "split"
    assert res.params["n_split_query"] == 250 and res.params["n_split_reference"] == 250
    assert len(res.rrd) == 250 and len(res.srd) == 500
    with pytest.warns(UntrustworthyResultWarning):
        again = dcr(train, fresh, threat=THREAT, seed=5)
    assert again.value == res.value and again.params["split_seed"] == res.params["split_seed"]


def test_dcr_same_seed_same_result_and_row_order(health):
    train, holdout, fresh = health
    a = dcr(train, fresh, threat=THREAT, holdout=holdout, seed=9)
    b = dcr(train, fresh, threat=THREAT, holdout=holdout, seed=9)
    assert a.value == b.value and a.ci == b.ci and a.params["seed"] == 9
    perm = np.random.default_rng(0).permutation
    c = dcr(
        train.iloc[perm(500)],
        fresh.iloc[perm(500)],
        threat=THREAT,
        holdout=holdout.iloc[perm(500)],
        seed=9,
    )
    assert c.value == pytest.approx(a.value) and c.ci == pytest.approx(a.ci)
    # records keep the input's index labels
    shuffled = c.records.set_index("record").sort_index()
    np.testing.assert_allclose(shuffled["srd"], a.records.set_index("record")["srd"])


def test_dcr_records_carry_input_index(health):
    train, holdout, fresh = health
    syn = fresh.set_axis(np.arange(1000, 1500))
    res = dcr(train, syn, threat=THREAT, holdout=holdout, bootstrap=0)
    recs = res.records
    assert len(recs) == 500 and recs["record"].min() == 1000
    assert set(recs["real_record"]) <= set(train.index)
    d = res.to_dict()
    assert set(d) >= {"value", "ci", "params", "ratio", "alpha"}
    assert "records" not in d and "records" in res.to_dict(include_records=True)


def test_dcr_warns_when_holdout_copies_make_threshold_zero():
    train = _toy(np.arange(20) * 1.5)
    hold = _toy(np.arange(20) * 1.5)  # every holdout record copies a training record
    with pytest.warns(UntrustworthyResultWarning, match="cannot detect copies"):
        res = dcr(train, train.copy(), threat=TOY_THREAT, holdout=hold, bootstrap=0)
    assert res.threshold == 0.0 and res.value == pytest.approx(-0.02 / 0.98)


# --------------------------------------------------------------------- k-NN indicator
def test_knn_scores_per_k_match_dcr(health):
    train, holdout, _fresh = health
    knn = dcr_knn(train, train.copy(), threat=THREAT, holdout=holdout, k_max=3, seed=1)
    assert isinstance(knn, KnnResult) and knn.name == "knn"
    assert knn.by_k["k"].tolist() == [1, 2, 3]
    for k in (1, 3):
        single = dcr(train, train.copy(), threat=THREAT, holdout=holdout, k=k, bootstrap=0)
        assert knn.by_k.loc[k - 1, "value"] == pytest.approx(single.value)
    assert knn.value == knn.by_k["value"].max() and knn.best_k == 1
    assert list(knn.to_dict()["by_k"]) == ["1", "2", "3"]
    assert knn.at(alpha=10).extra["alpha"] == 10


# --------------------------------------------------------------------- bad input
@pytest.mark.parametrize("alpha", [0, 100, -1, 150, "two"])
def test_alpha_outside_open_interval_raises(health, alpha):
    train, holdout, fresh = health
    with pytest.raises(ParameterError, match="alpha"):
        dcr(train, fresh, threat=THREAT, holdout=holdout, alpha=alpha)
    with pytest.raises(ParameterError, match="alpha"):
        dcr_knn(train, fresh, threat=THREAT, holdout=holdout, alpha=alpha)


def test_alpha_outside_range_raises_on_reaggregation(health):
    train, holdout, fresh = health
    res = dcr(train, fresh, threat=THREAT, holdout=holdout, bootstrap=0)
    with pytest.raises(ParameterError, match="alpha"):
        res.at(alpha=0)


def test_k_too_large_raises():
    with pytest.raises(ParameterError, match="`k` must be at most 11"):
        dcr(TOY_TRAIN, TOY_SYN, threat=TOY_THREAT, holdout=TOY_HOLD, k=12)
    with pytest.raises(ParameterError, match="`k` must be at most 4"):
        dcr(TOY_TRAIN, TOY_SYN, threat=TOY_THREAT, holdout=TOY_HOLD, k=5, variant="ratio")
    with pytest.raises(ParameterError, match="`k_max` must be at most 11"):
        dcr_knn(TOY_TRAIN, TOY_SYN, threat=TOY_THREAT, holdout=TOY_HOLD, k_max=12)
    with pytest.raises(ParameterError, match="`k`"):
        dcr(TOY_TRAIN, TOY_SYN, threat=TOY_THREAT, holdout=TOY_HOLD, k=0)


def test_other_bad_parameters_raise_documented_errors(health):
    train, holdout, fresh = health
    cases = [
        {"metric": "cosine"},
        {"variant": "rank"},
        {"bootstrap": -1},
        {"columns": ["nope"]},
        {"columns": []},
        {"confidence": 1.0},
    ]
    for kwargs in cases:
        with pytest.raises(ParameterError):
            dcr(train, fresh, threat=THREAT, holdout=holdout, **kwargs)
    with pytest.raises(ParameterError, match="one synthetic release"):
        dcr(train, [fresh, fresh], threat=THREAT, holdout=holdout)
    with pytest.raises(ParameterError, match="one synthetic release"):
        identical_match_share(train, [fresh, fresh], threat=THREAT)
    with pytest.raises(PrivacyCoreError):
        identical_match_share(train, fresh.drop(columns="age"), threat=THREAT)


# --------------------------------------------------------------------- shared statistics
@pytest.mark.parametrize("n", [5, 400])
def test_bootstrap_percentile_matches_brute_force(n):
    x = np.random.default_rng(1).gamma(2.0, size=n)
    for q in (0.0, 2.0, 50.0, 97.5, 100.0):
        fast = bootstrap_percentile(x, q, n_boot=3000, seed=2)
        r = np.random.default_rng(3)
        slow = np.array([np.percentile(x[r.integers(0, n, n)], q) for _ in range(3000)])
        # the bootstrap distribution is discrete: round so that float noise between the
        # two interpolation codes does not split its atoms
        assert st.ks_2samp(fast.round(9), slow.round(9)).pvalue > 0.001
        assert fast.mean() == pytest.approx(slow.mean(), rel=0.03)
    np.testing.assert_array_equal(
        bootstrap_percentile(x, 2, n_boot=50, seed=4), bootstrap_percentile(x, 2, n_boot=50, seed=4)
    )


def test_bootstrap_share_below_matches_brute_force():
    x = np.random.default_rng(5).random(300)
    t = np.full(4000, 0.1)
    fast = bootstrap_share_below(x, t, seed=6)
    r = np.random.default_rng(7)
    slow = np.array([(x[r.integers(0, 300, 300)] < 0.1).mean() for _ in range(4000)])
    assert fast.mean() == pytest.approx(slow.mean(), abs=0.003)
    assert fast.std() == pytest.approx(slow.std(), rel=0.1)


def test_weighted_auc_equals_sklearn_with_ties_and_bootstrap_centres():
    r = np.random.default_rng(8)
    s = r.integers(0, 15, 250).astype(float)
    y = r.random(250) < 0.3
    _, inv = np.unique(s, return_inverse=True)
    pos = np.bincount(inv[y], minlength=inv.max() + 1)
    neg = np.bincount(inv[~y], minlength=inv.max() + 1)
    assert weighted_auc(pos, neg) == pytest.approx(roc_auc_score(y, s))
    boot = bootstrap_auc(s, y, n_boot=2000, seed=9)
    assert boot.mean() == pytest.approx(roc_auc_score(y, s), abs=0.01)
    assert 0.02 < boot.std() < 0.08


def test_results_are_frozen(health):
    train, holdout, fresh = health
    res = dcr(train, fresh, threat=THREAT, holdout=holdout, bootstrap=0)
    assert isinstance(res, DcrResult)
    with pytest.raises(AttributeError):
        res.value = 0.0  # type: ignore[misc]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a clean run with a holdout warns about nothing
        dcr(train, fresh, threat=THREAT, holdout=holdout, bootstrap=10)


# --------------------------------------------------------------------- figures
def test_dcr_histogram_and_knn_curve(health):
    from privacy_core.plots.privacy_distance import dcr_histogram, knn_curve

    train, holdout, fresh = health
    res = dcr(train, fresh, threat=THREAT, holdout=holdout, bootstrap=0)
    fig = dcr_histogram(res, bins=30)
    assert [t.name for t in fig.data] == ["SRD (synthetic)", "RRD (holdout)"]
    assert all(len(t.y) == 30 for t in fig.data)
    assert sum(fig.data[0].y) == pytest.approx(100.0)
    assert fig.layout.shapes[0].x0 == pytest.approx(res.threshold)  # the alpha line
    moved = dcr_histogram(res.at(alpha=10))
    assert moved.layout.shapes[0].x0 == pytest.approx(res.at(alpha=10).threshold)
    plain = dcr_histogram(res, which="plain")
    assert sum(plain.data[1].y) == pytest.approx(100.0)
    with pytest.raises(ParameterError):
        dcr_histogram(res, which="both")
    knn = dcr_knn(train, fresh, threat=THREAT, holdout=holdout, k_max=3, bootstrap=20)
    curve = knn_curve(knn)
    assert list(curve.data[0].x) == [1, 2, 3]
    np.testing.assert_allclose(curve.data[0].y, knn.by_k["value"])


def test_knn_and_dcr_share_one_neighbour_search(monkeypatch):
    """Issue 14: asked together, k-NN DCR runs first and DCR reads its neighbours from
    the search cache (the first k of a sorted search); the numbers are those of DCR
    alone and the results keep the order asked for."""
    import privacy_core.risk.neighbors as nb
    from privacy_core.evaluation import evaluate_measures

    real, hold, _ = pc.builtin_dataset("health", n=4000, seed=0)
    syn = pc.synthesize(pc.prepare_table(real, pc.infer_schema(real)), method="cart", seed=1)
    threat = pc.ThreatModel(["age", "gender", "education"], ["disease"])
    monkeypatch.setattr(nb, "_CACHE_MIN_PAIRS", 1)
    nb.clear_neighbor_cache()
    alone = evaluate_measures(real, syn, names=["dcr"], threat=threat, holdout=hold)["dcr"]
    nb.clear_neighbor_cache()
    calls = []
    search = nb._search
    monkeypatch.setattr(nb, "_search", lambda *a: calls.append(a[2]) or search(*a))
    both = evaluate_measures(real, syn, names=["dcr", "knn"], threat=threat, holdout=hold)
    assert list(both) == ["dcr", "knn"]
    assert both["dcr"].value == alone.value and both["dcr"].ci == alone.ci
    searched_by_both = list(calls)
    nb.clear_neighbor_cache()
    calls.clear()
    evaluate_measures(real, syn, names=["knn"], threat=threat, holdout=hold)
    # DCR searched nothing of its own: k-NN's searches (k_max = 5) served it
    assert searched_by_both == calls and set(calls) == {5}
    nb.clear_neighbor_cache()
