"""GTCAP: hand-computed box (pooled, per-record) and triangular cases, leaky extremes,
calibration of the box options, the deprecated name, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
from privacy_core.calibration import CEILING_MIN, FLOOR_MAX, calibrate
from privacy_core.errors import ParameterError, UntrustworthyResultWarning
from privacy_core.risk.cap import GtcapResult, gtcap

KEYS_THREAT = pc.ThreatModel(["g", "a"], ["y"])
ALL_BUT_DISEASE = pc.ThreatModel(["gender", "age", "education", "income", "health"], ["disease"])

# a spans 0..100 in the training data, so the radius 0.1 is 10 units of a
TRAIN = pd.DataFrame(
    {
        "g": ["m", "m", "m", "f", "f", "m", "m"],
        "a": [10.0, 15.0, 50.0, 12.0, 100.0, 0.0, 13.0],
        "y": ["yes", "yes", "no", "no", "yes", "no", "no"],
    }
)
SYN = pd.DataFrame(
    {
        "g": ["m", "m", "m", "m", "f"],
        "a": [12.0, 14.0, 55.0, 57.0, 95.0],
        "y": ["yes", "yes", "no", "yes", "yes"],
    }
)
HOLD = pd.DataFrame(
    {
        "g": ["m", "m", "f", "m"],
        "a": [11.0, 16.0, 97.0, 56.0],
        "y": ["no", "yes", "yes", "no"],
    }
)


def test_box_pooled_by_hand():
    res = gtcap(TRAIN, SYN, threat=KEYS_THREAT, holdout=HOLD, bootstrap=0)
    recs = res.records
    # WEAP: s0 and s1 match each other (both yes), s2 / s3 disagree, s4 is alone
    assert recs["kept"].tolist() == [True, True, False, False, True]
    assert recs["weap"].tolist() == [1.0, 1.0, 0.5, 0.5, 1.0]
    # s0 (m, 12) and s1 (m, 14) match t0, t1 (yes) and t6 (no); s4 (f, 95) matches t4
    assert recs["matches_train"].tolist()[:2] == [3, 3]
    assert recs["correct_train"].tolist()[:2] == [2, 2]
    assert (recs.loc[4, "matches_train"], recs.loc[4, "correct_train"]) == (1, 1)
    assert res.g_train == pytest.approx(5 / 7)
    # holdout: s0, s1 match h0 (no) and h1 (yes); s4 matches h2 (yes)
    assert res.g_holdout == pytest.approx(3 / 5)
    assert res.value == pytest.approx((5 / 7 - 3 / 5) / (1 - 3 / 5))
    assert res.n_kept == 3 and res.extra["n_kept"] == 3
    assert res.name == "gtcap" and res.goal == "lower" and res.bounds == (0.0, 1.0)


def test_box_per_record_is_the_mean_of_eq7_tcaps_by_hand():
    res = gtcap(
        TRAIN, SYN, threat=KEYS_THREAT, holdout=HOLD, weighting="box_per_record", bootstrap=0
    )
    recs = res.records
    # the same box matching and WEAP filter as box_pooled: s0, s1 and s4 are kept
    assert recs["kept"].tolist() == [True, True, False, False, True]
    # per-record TCAP (eq. 7) on T: s0 2/3, s1 2/3, s4 1/1; G_T is their mean, where the
    # pooled G_T is 5/7 (s0 and s1 weigh three real records each, s4 one)
    assert recs["score_train"].tolist()[:2] == pytest.approx([2 / 3, 2 / 3])
    assert recs.loc[4, "score_train"] == pytest.approx(1.0)
    assert res.g_train == pytest.approx(7 / 9)
    # on H: s0 1/2, s1 1/2, s4 1/1
    assert res.g_holdout == pytest.approx(2 / 3)
    assert res.value == pytest.approx((7 / 9 - 2 / 3) / (1 - 2 / 3))
    assert res.params["weighting"] == "box_per_record"
    assert "eq. 7" in res.params["aggregation"]
    assert res.attributions.empty  # per real record only for the pooled form


def test_box_per_record_skips_records_without_a_match_and_has_an_interval():
    # a kept synthetic record with no training match has no TCAP on T (0/0): it is left
    # out of G_T rather than counted as 0
    syn = pd.concat([SYN, pd.DataFrame({"g": ["f"], "a": [50.0], "y": ["no"]})], ignore_index=True)
    res = gtcap(
        TRAIN,
        syn,
        threat=KEYS_THREAT,
        holdout=HOLD,
        weighting="box_per_record",
        bootstrap=300,
        seed=2,
    )
    assert res.records.loc[5, "kept"] and res.records.loc[5, "matches_train"] == 0
    assert np.isnan(res.records.loc[5, "score_train"])
    assert res.g_train == pytest.approx(7 / 9)
    lo, hi = res.ci
    assert 0.0 <= lo <= res.value <= hi <= 1.0 and hi > lo
    assert "kept synthetic records" in res.params["interval"]


def test_sphere_is_the_deprecated_name_of_box_pooled():
    with pytest.warns(DeprecationWarning, match="box_pooled"):
        old = gtcap(TRAIN, SYN, threat=KEYS_THREAT, holdout=HOLD, weighting="sphere", bootstrap=0)
    new = gtcap(TRAIN, SYN, threat=KEYS_THREAT, holdout=HOLD, weighting="box_pooled", bootstrap=0)
    assert old.params["weighting"] == "box_pooled" and old.value == new.value
    assert gtcap(TRAIN, SYN, threat=KEYS_THREAT, holdout=HOLD, bootstrap=0).value == new.value


@pytest.mark.parametrize("weighting", ["box_pooled", "box_per_record"])
def test_box_options_read_a_copy_as_one_and_are_not_passed_by_the_gate(weighting):
    """A full copy reads 1 and unseen real rows about 0 (floor interval reaching 0), at
    training:holdout ratios 1:1 and 4:1; but the floor's interval is too wide for the
    calibration gate, which never passes it (GTCAP is registered as not calibrated)."""
    real = pc.simulate_health(4500, kappa=1, seed=3)
    threat = pc.ThreatModel([c for c in real.columns if c != "disease"], ["disease"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the leaky releases' expected notes
        cal = calibrate(
            real,
            threat=threat,
            measures=["gtcap"],
            levels=(0.0, 0.5, 1.0),
            ratios=(1.0, 4.0),
            options={"gtcap": {"weighting": weighting}},
            seed=1,
        )
    s = cal.summary("gtcap")
    assert s.ceiling >= CEILING_MIN and s.ceiling == pytest.approx(1.0)
    assert s.floor <= FLOOR_MAX or s.floor_ci[0] <= 0
    assert s.monotone and not s.passed and s.verdict in ("inconclusive", "fail"), s
    assert not pc.MEASURES["gtcap"].calibrated
    rows = cal.rows
    assert (rows.loc[rows["level"] == 1.0, "value"] > 0.99).all()
    assert (rows.loc[rows["level"] == 0.0, "ci_low"] <= 0.01).all()


def test_triangular_reference_weights_by_hand():
    res = gtcap(TRAIN, SYN, threat=KEYS_THREAT, holdout=HOLD, weighting="triangular", bootstrap=0)
    # step 1 compares categorical keys only: the m class mixes yes / no, f holds s4 only
    assert res.records["kept"].tolist() == [False, False, False, False, True]
    # s4 on T: t3 (f, 12) weight 0, t4 (f, 100) weight 1 - 0.05/0.1 = 0.5 with the same
    # target: score = 0.5 * 0.5 / 0.5; on H: h2 (f, 97) weight 0.8 -> 0.8 * 0.8 / 0.8
    assert res.g_train == pytest.approx(0.5, abs=1e-5)
    assert res.g_holdout == pytest.approx(0.8, abs=1e-5)
    assert res.raw_risk == pytest.approx((0.5 - 0.8) / 0.2, abs=1e-4)
    assert res.value == 0.0  # clipped: the control does better than the training side


def test_without_categorical_keys_records_are_still_kept():
    # the reference code keeps nothing (and reports 0) when no key is categorical
    threat = pc.ThreatModel(["a"], ["y"])
    res = gtcap(TRAIN, SYN, threat=threat, holdout=HOLD, bootstrap=0)
    assert res.n_kept == 3
    # s0, s1 now also match t3 (f, 12, no): 2 correct of 4 each, s4: 1 of 1
    assert res.g_train == pytest.approx(5 / 9)
    assert res.g_holdout == pytest.approx(3 / 5)
    numeric_target = pc.ThreatModel(["a"], ["z"])
    syn = SYN.assign(z=[1.0, 1.0, 1.0, 1.0, 1.0])
    train = TRAIN.assign(z=np.linspace(0, 10, 7))
    hold = HOLD.assign(z=[1.0, 2.0, 3.0, 4.0])
    tri = gtcap(
        train, syn, threat=numeric_target, holdout=hold, weighting="triangular", bootstrap=0
    )
    assert tri.n_kept > 0 and np.isfinite(tri.g_train)


def test_leaky_extremes_on_simulated_data():
    train = pc.simulate_health(600, seed=21)
    holdout = pc.simulate_health(600, seed=22)
    fresh = pc.simulate_health(600, seed=23)
    for weighting in ("box_pooled", "box_per_record"):
        leak = gtcap(
            train,
            train.copy(),
            threat=ALL_BUT_DISEASE,
            holdout=holdout,
            bootstrap=200,
            weighting=weighting,
        )
        assert leak.value == pytest.approx(1.0) and leak.g_train == pytest.approx(1.0)
        assert leak.ci[0] > 0.9
        unseen = gtcap(
            train,
            fresh,
            threat=ALL_BUT_DISEASE,
            holdout=holdout,
            bootstrap=200,
            weighting=weighting,
        )
        assert unseen.value <= 0.2
        assert unseen.ci[0] <= 0.05
        assert isinstance(unseen, GtcapResult)


def test_same_seed_same_result_and_row_order():
    a = gtcap(TRAIN, SYN, threat=KEYS_THREAT, holdout=HOLD, seed=4)
    b = gtcap(TRAIN, SYN, threat=KEYS_THREAT, holdout=HOLD, seed=4)
    assert a.value == b.value and a.ci == b.ci and a.params["seed"] == 4
    order = [3, 0, 4, 2, 1]
    c = gtcap(
        TRAIN.iloc[::-1], SYN.iloc[order], threat=KEYS_THREAT, holdout=HOLD.iloc[::-1], seed=4
    )
    assert c.value == pytest.approx(a.value)
    # the records follow the shuffled release but keep its index labels
    assert c.records["record"].tolist() == order
    by_label = c.records.set_index("record").sort_index()
    assert by_label["kept"].tolist() == a.records["kept"].tolist()


def test_duplicates_are_counted_once():
    syn = pd.concat([SYN, SYN.iloc[[0, 0]]], ignore_index=True)
    res = gtcap(TRAIN, syn, threat=KEYS_THREAT, holdout=HOLD, bootstrap=0)
    assert len(res.records) == 5 and res.records["copies"].tolist() == [3, 1, 1, 1, 1]
    assert res.value == pytest.approx((5 / 7 - 3 / 5) / (1 - 3 / 5))


def test_nothing_kept_warns_and_reports_zero():
    syn = SYN.assign(
        a=[12.0, 13.0, 14.0, 15.0, 95.0],
        y=["yes", "no", "yes", "no", "yes"],
        g=["m", "m", "m", "m", "m"],
    )
    syn.loc[4, "a"] = 13.5
    with pytest.warns(UntrustworthyResultWarning, match="WEAP"):
        res = gtcap(TRAIN, syn, threat=KEYS_THREAT, holdout=HOLD, bootstrap=10)
    assert res.value == 0.0 and res.n_kept == 0


def test_bad_input_raises_documented_errors():
    with pytest.raises(ParameterError, match="holdout"):
        gtcap(TRAIN, SYN, threat=KEYS_THREAT)
    for kwargs in (
        {"radius": 0},
        {"radius": -0.1},
        {"weighting": "box"},
        {"bootstrap": -5},
        {"confidence": 0},
    ):
        with pytest.raises(ParameterError):
            gtcap(TRAIN, SYN, threat=KEYS_THREAT, holdout=HOLD, **kwargs)
    with pytest.raises(ParameterError, match="one synthetic release"):
        gtcap(TRAIN, [SYN, SYN], threat=KEYS_THREAT, holdout=HOLD)


def test_missing_numeric_matches_missing_only():
    train = TRAIN.assign(a=[10.0, np.nan, 50.0, 12.0, 100.0, 0.0, 13.0])
    syn = SYN.assign(a=[np.nan, 14.0, 55.0, 57.0, 95.0])
    hold = HOLD.assign(a=[np.nan, 16.0, 97.0, 56.0])
    res = gtcap(train, syn, threat=KEYS_THREAT, holdout=hold, bootstrap=0)
    recs = res.records
    # s0 (m, missing, yes) matches only t1 (m, missing, yes) in T and h0 (no) in H
    assert recs.loc[0, "kept"]
    assert (recs.loc[0, "matches_train"], recs.loc[0, "correct_train"]) == (1, 1)
    assert (recs.loc[0, "matches_holdout"], recs.loc[0, "correct_holdout"]) == (1, 0)
    # s1 (m, 14) no longer matches t1 or s0
    assert (recs.loc[1, "matches_train"], recs.loc[1, "correct_train"]) == (2, 1)


def test_per_real_record_attributions_add_up_to_g():
    res = gtcap(TRAIN, SYN, threat=KEYS_THREAT, holdout=HOLD, bootstrap=0)
    att = res.attributions
    assert len(att) == len(TRAIN) + len(HOLD)
    train = att[att["source"] == "training"]
    # t0, t1 (yes) and t6 (no) are each matched by the kept s0 and s1; t4 by s4
    assert train["matches"].tolist() == [2, 2, 0, 0, 1, 0, 2]
    assert train["correct"].tolist() == [2, 2, 0, 0, 1, 0, 0]
    assert train["correct"].sum() / train["matches"].sum() == pytest.approx(res.g_train)
    hold = att[att["source"] == "holdout"]
    assert hold["correct"].sum() / hold["matches"].sum() == pytest.approx(res.g_holdout)


def _frames(rng: np.random.Generator, n: int, grid: bool, numeric_target: bool):
    """Two GTCAP frames with a few key classes, keys on a 0.05 grid (differences of exactly
    the radius 0.1, or a float's width from it) or continuous, and missing positions."""
    from privacy_core.risk.cap.frames import Frame

    def one(m: int) -> Frame:
        keys = rng.integers(0, 21, (m, 3)) * 0.05 if grid else rng.random((m, 3))
        keys[rng.random(m) < 0.02, 1] = -1e9  # a missing numeric's position
        target = rng.integers(0, 21, m) * 0.05 if numeric_target else None
        return Frame(
            group=rng.integers(0, 3, m),
            keys=keys,
            target_code=None if numeric_target else rng.integers(0, 4, m),
            target_value=target,
        )

    return one(n), one(n + 37)


@pytest.mark.parametrize("numeric_target", [False, True])
@pytest.mark.parametrize("grid", [True, False])
def test_tree_counts_equal_the_broadcast_counts_exactly(monkeypatch, grid, numeric_target):
    """box_sums counts the large classes with k-d trees; the counts must equal the
    broadcast's exactly, ties at the radius included (the grid puts key differences at
    0.1 and a float's width from it). Catches a tree that counts "<= radius" (the grid's
    ties then match) and a categorical target matched across codes."""
    from privacy_core.risk.cap import pair_sums as ps

    rng = np.random.default_rng(11 if grid else 12)
    U, X = _frames(rng, 900, grid, numeric_target)
    brute = ps.pair_sums(U, X, ps.box_kernel(0.1))
    monkeypatch.setattr(ps, "TREE_MIN_PAIRS", 0)  # every class through the trees
    tree = ps.box_sums(U, X, 0.1)
    assert np.array_equal(tree["den"], brute["den"])
    assert np.array_equal(tree["num"], brute["num"])
    assert brute["den"].sum() > brute["num"].sum() > 0  # matches, not all sharing the target


def test_gtcap_reads_the_same_through_the_trees(monkeypatch):
    """The whole measure, broadcast against trees: the same value, interval and table."""
    from privacy_core.risk.cap import pair_sums as ps

    real = pc.simulate_health(600, kappa=1, seed=21)
    hold = pc.simulate_health(600, kappa=1, seed=22)
    syn = pc.synthesize(real, method="cart", seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = gtcap(real, syn, threat=ALL_BUT_DISEASE, holdout=hold, seed=2)
        monkeypatch.setattr(ps, "TREE_MIN_PAIRS", 0)
        b = gtcap(real, syn, threat=ALL_BUT_DISEASE, holdout=hold, seed=2)
    assert (a.value, a.ci, a.raw_risk, a.n_kept) == (b.value, b.ci, b.raw_risk, b.n_kept)
    pd.testing.assert_frame_equal(a.records, b.records)


def test_a_release_above_max_queries_is_attacked_on_a_seeded_sample():
    """Above ``max_queries`` distinct synthetic records, a seeded sample is attacked, each
    read against the whole release and the whole real tables: the sampled records' WEAP
    and matches equal the full run's for the same records (catches a WEAP or a match
    count read against the sample only), the interval resamples the attacked records and
    says so, a copy still reads 1, and at or below the cap nothing changes."""
    real = pc.simulate_health(700, kappa=1, seed=31)
    hold = pc.simulate_health(700, kappa=1, seed=32)
    syn = pc.synthesize(real, method="cart", seed=4)
    kw = dict(threat=ALL_BUT_DISEASE, holdout=hold, seed=5, bootstrap=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = gtcap(real, syn, max_queries=0, **kw)
        same = gtcap(real, syn, **kw)  # the default cap is far above 700 records
        part = gtcap(real, syn, max_queries=150, **kw)
        again = gtcap(real, syn, max_queries=150, **kw)
        copy = gtcap(real, real, max_queries=150, **kw)
    assert (same.value, same.ci) == (full.value, full.ci)
    assert full.params["n_queries"] == full.params["n_distinct_synthetic"] > 150
    assert part.params["n_queries"] == len(part.records) == 150
    assert "sample of attacked records" in part.params["interval"]
    assert (part.value, part.ci) == (again.value, again.ci)  # seeded
    cols = ["weap", "kept", "matches_train", "correct_train", "matches_holdout"]
    on_full = full.records.set_index("record").loc[part.records["record"], cols]
    pd.testing.assert_frame_equal(on_full.reset_index(drop=True), part.records[cols])
    assert copy.value == pytest.approx(1.0) and copy.ci[0] > 0.9
