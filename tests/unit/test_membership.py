"""Membership attacks: F_naive / F_rel and Hamming distances by hand, DOMIAS, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import privacy_core as pc
from privacy_core.errors import InsufficientDataError, ParameterError, UntrustworthyResultWarning
from privacy_core.risk.membership import (
    DomiasResult,
    MembershipResult,
    attack_sizes,
    domias,
    f_naive,
    f_relative,
    membership_disclosure,
)

ALL_BUT_DISEASE = pc.ThreatModel(
    ["gender", "age", "education", "income", "health"], ["disease"], sampling_fraction=0.3
)
TOY = pc.ThreatModel(["g", "a"], ["y"], sampling_fraction=0.5)

# release range of a: 0..100, so with 4 bins: [0, 25), [25, 50), [50, 75), [75, 100]
TOY_SYN = pd.DataFrame({"g": ["m", "f", "m"], "a": [0.0, 60.0, 100.0], "y": ["p", "q", "p"]})
TOY_TRAIN = pd.DataFrame(
    {
        "g": ["m", "f", "f", "m", "x"],
        "a": [5.0, 55.0, 10.0, 130.0, 40.0],
        "y": ["p", "q", "p", "q", "p"],
    }
)
TOY_HOLD = pd.DataFrame({"g": ["m", "f", "f"], "a": [30.0, 70.0, 99.0], "y": ["p", "p", "q"]})


@pytest.fixture(scope="module")
def health():
    return (
        pc.simulate_health(600, seed=31),
        pc.simulate_health(600, seed=32),
        pc.simulate_health(600, seed=33),
    )


# --------------------------------------------------------------------- F_naive and F_rel
@pytest.mark.parametrize(
    ("t", "beta", "expected"),
    [
        (0.3, 1.0, 0.6 / 1.3),
        (0.5, 1.0, 2 / 3),
        (1.0, 1.0, 1.0),
        (0.01, 1.0, 0.02 / 1.01),
        (0.3, 0.5, 1.25 * 0.3 / (0.25 * 0.3 + 1)),
        (0.3, 2.0, 5 * 0.3 / (4 * 0.3 + 1)),
    ],
)
def test_f_naive_by_hand(t, beta, expected):
    assert f_naive(t, beta) == pytest.approx(expected)


def test_f_relative_by_hand():
    assert f_relative(0.8, 0.5) == pytest.approx((0.8 - 2 / 3) / (1 / 3))
    assert f_relative(f_naive(0.2), 0.2) == pytest.approx(0.0)
    assert f_relative(1.0, 0.2) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("t", "n_t", "n_h", "size", "expected"),
    [
        (0.3, 1000, 600, None, (257, 600)),
        (0.9, 100, 600, None, (100, 11)),
        (0.3, 1000, 600, 50, (15, 35)),
        (0.5, 5, 3, None, (3, 3)),
    ],
)
def test_attack_set_sizes_by_hand(t, n_t, n_h, size, expected):
    assert attack_sizes(t, n_t, n_h, size) == expected


# --------------------------------------------------------------------- partition attack by hand
def test_hamming_distances_and_auroc_by_hand():
    res = membership_disclosure(TOY_TRAIN, TOY_SYN, threat=TOY, holdout=TOY_HOLD, n_bins=4)
    recs = res.records
    # training: (m, bin 0), (f, 2), (f, 0), (m, 3: above the range), (x, 1)
    assert recs.loc[recs["member"], "distance"].tolist() == [0, 0, 1, 0, 2]
    # holdout: (m, 1), (f, 2), (f, 3)
    assert recs.loc[~recs["member"], "distance"].tolist() == [1, 0, 1]
    assert res.auroc == pytest.approx(8.5 / 15)
    assert recs["predicted_member"].tolist() == [True, True, False, True, False, False, True, False]
    assert res.params["attack_members"] == 3 and res.params["attack_non_members"] == 3
    assert res.extra["recall"] == pytest.approx(0.6, abs=0.03)  # share of members at d = 0
    # a threshold that calls everyone a member is exactly the naive attacker
    everyone = res.at(h=2)
    assert everyone.value == pytest.approx(0.0) and everyone.ci == pytest.approx((0.0, 0.0))
    assert everyone.extra["f1"] == pytest.approx(f_naive(0.5))
    assert res.name == "membership" and res.goal == "lower"


def test_perfect_separation_gives_f_rel_one():
    syn = TOY_TRAIN.iloc[[0, 1, 3]]
    # release = training: codes (m, 0), (f, 1), (m, 3) on bins of [5, 130]; the holdout
    # rows (m, 1) and (f, 3) are one category away from every synthetic row
    hold = pd.DataFrame({"g": ["m", "f"], "a": [60.0, 120.0], "y": ["p", "q"]})
    train = TOY_TRAIN.iloc[[0, 1, 3]]
    threat = pc.ThreatModel(["g", "a"], ["y"], sampling_fraction=0.4)
    res = membership_disclosure(train, syn, threat=threat, holdout=hold, n_bins=4)
    assert res.value == pytest.approx(1.0) and res.ci == pytest.approx((1.0, 1.0))
    assert res.extra["f_rel"] == res.value and res.f_rel == res.value
    assert res.auroc == 1.0
    assert res.bounds[1] == 1.0 and res.bounds[0] == pytest.approx(
        -f_naive(res.extra["attack_prevalence"]) / (1 - f_naive(res.extra["attack_prevalence"]))
    )


def test_curve_and_reaggregation_match_refit(health):
    train, holdout, _fresh = health
    base = membership_disclosure(
        train, train.copy(), threat=ALL_BUT_DISEASE, holdout=holdout, seed=2, n_repeats=200
    )
    direct = membership_disclosure(
        train, train.copy(), threat=ALL_BUT_DISEASE, holdout=holdout, seed=2, n_repeats=200, h=1
    )
    moved = base.at(h=1)
    assert moved.value == direct.value and moved.ci == direct.ci
    curve = base.curve()
    assert curve["h"].tolist() == list(range(6))
    assert curve.loc[5, "value"] == pytest.approx(0.0)  # h = #QIs: everyone a member


def test_leaky_and_unseen_release(health):
    train, holdout, fresh = health
    leak = membership_disclosure(train, train.copy(), threat=ALL_BUT_DISEASE, holdout=holdout)
    unseen = membership_disclosure(train, fresh, threat=ALL_BUT_DISEASE, holdout=holdout)
    assert isinstance(leak, MembershipResult)
    assert leak.value > 0.2 and leak.auroc > 0.7
    assert unseen.value < 0.1 and abs(unseen.auroc - 0.5) < 0.1
    assert leak.ci[0] <= leak.value <= leak.ci[1]
    assert leak.params["sampling_fraction"] == 0.3
    assert leak.params["sampling_fraction_source"] == "threat model"


def test_unknown_sampling_fraction_is_assumed_with_a_warning(health):
    train, holdout, fresh = health
    threat = pc.ThreatModel(["age", "education", "gender"], ["disease"])
    with pytest.warns(UntrustworthyResultWarning, match="sampling fraction"):
        res = membership_disclosure(train, fresh, threat=threat, holdout=holdout)
    assert res.params["sampling_fraction"] == pytest.approx(0.5)
    assert res.params["sampling_fraction_source"].startswith("assumed")
    explicit = membership_disclosure(
        train, fresh, threat=threat, holdout=holdout, sampling_fraction=0.2
    )
    assert explicit.params["sampling_fraction"] == 0.2
    assert explicit.extra["f_naive"] == pytest.approx(f_naive(0.2), abs=0.01)


def test_fallback_warning_says_why_it_is_arbitrary(health):
    train, holdout, fresh = health
    threat = pc.ThreatModel(["age", "education", "gender"], ["disease"])
    with pytest.warns(UntrustworthyResultWarning) as caught:
        membership_disclosure(train, fresh, threat=threat, holdout=holdout.iloc[:200])
    text = " ".join(str(w.message) for w in caught)
    # t = 600 / 800: the split of the real rows, named as such and called arbitrary
    assert "t = 0.75" in text and "split" in text and "arbitrary" in text
    assert "--sampling-fraction" in text


def test_scenario_b_scales_the_member_prevalence(health):
    train, holdout, _fresh = health
    a = membership_disclosure(train, train.copy(), threat=ALL_BUT_DISEASE, holdout=holdout)
    with pytest.warns(UntrustworthyResultWarning, match="stands in for every non-member"):
        b = membership_disclosure(
            train,
            train.copy(),
            threat=ALL_BUT_DISEASE,
            holdout=holdout,
            scenario="b",
            population_share=0.2,
        )
    assert a.params["scenario"] == "A" and a.params["population_share"] is None
    assert a.params["member_prevalence"] == pytest.approx(0.3)
    assert b.params["scenario"] == "B" and b.params["population_share"] == 0.2
    assert b.params["sampling_fraction"] == 0.3
    assert b.params["member_prevalence"] == pytest.approx(0.06)
    assert b.extra["scenario"] == "B" and b.extra["member_prevalence"] == pytest.approx(0.06)
    # all 600 holdout rows as non-members, 0.06 / 0.94 as many members
    assert (b.params["attack_non_members"], b.params["attack_members"]) == (600, 38)
    assert b.extra["f_naive"] == pytest.approx(f_naive(38 / 638))
    assert b.extra["f_naive"] < a.extra["f_naive"]
    # the same distances: only the prevalence, hence precision and F_naive, differ
    assert b.auroc == a.auroc and b.extra["recall"] == pytest.approx(a.extra["recall"], abs=0.02)
    assert b.extra["precision"] < a.extra["precision"]
    # the threat model declares the scenario too; an argument overrides it
    declared = pc.ThreatModel(
        list(ALL_BUT_DISEASE.quasi_identifiers),
        ["disease"],
        sampling_fraction=0.3,
        membership_scenario="B",
        population_share=0.2,
    )
    with pytest.warns(UntrustworthyResultWarning):
        via_threat = membership_disclosure(train, train.copy(), threat=declared, holdout=holdout)
    assert via_threat.value == b.value and via_threat.params == b.params
    back_to_a = membership_disclosure(
        train, train.copy(), threat=declared, holdout=holdout, scenario="A"
    )
    assert back_to_a.value == a.value and back_to_a.params["scenario"] == "A"


def test_scenario_bad_input(health):
    train, holdout, fresh = health
    with pytest.raises(ParameterError, match="population_share"):
        membership_disclosure(train, fresh, threat=ALL_BUT_DISEASE, holdout=holdout, scenario="B")
    with pytest.raises(ParameterError, match="scenario must be 'A'"):
        membership_disclosure(train, fresh, threat=ALL_BUT_DISEASE, holdout=holdout, scenario="C")
    for share in (0, 1.2):
        with pytest.raises(ParameterError, match="population_share"):
            membership_disclosure(
                train,
                fresh,
                threat=ALL_BUT_DISEASE,
                holdout=holdout,
                scenario="B",
                population_share=share,
            )


def test_same_seed_same_result_and_row_order(health):
    train, holdout, fresh = health
    a = membership_disclosure(train, fresh, threat=ALL_BUT_DISEASE, holdout=holdout, seed=7)
    b = membership_disclosure(train, fresh, threat=ALL_BUT_DISEASE, holdout=holdout, seed=7)
    assert a.value == b.value and a.ci == b.ci
    perm = np.random.default_rng(1).permutation(600)
    c = membership_disclosure(
        train.iloc[perm],
        fresh.iloc[perm],
        threat=ALL_BUT_DISEASE,
        holdout=holdout.iloc[perm],
        seed=7,
    )
    assert c.value == a.value and c.auroc == a.auroc


def test_membership_bad_input(health):
    train, holdout, fresh = health
    with pytest.raises(ParameterError, match="holdout"):
        membership_disclosure(train, fresh, threat=ALL_BUT_DISEASE)
    with pytest.raises(ParameterError, match="sampling_fraction"):
        membership_disclosure(
            train, fresh, threat=ALL_BUT_DISEASE, holdout=holdout, sampling_fraction=1.0
        )
    with pytest.raises(ParameterError, match="member"):
        membership_disclosure(
            train, fresh, threat=ALL_BUT_DISEASE, holdout=holdout.iloc[:50], sampling_fraction=0.001
        )
    for kwargs in ({"h": -1}, {"beta": 0}, {"n_bins": 0}, {"n_repeats": 0}, {"attack_size": 1}):
        with pytest.raises(ParameterError):
            membership_disclosure(train, fresh, threat=ALL_BUT_DISEASE, holdout=holdout, **kwargs)


# --------------------------------------------------------------------- DOMIAS
def test_domias_value_is_normalised_auc_of_the_records(health):
    train, holdout, _fresh = health
    res = domias(train, train.copy(), threat=ALL_BUT_DISEASE, holdout=holdout, seed=0)
    assert isinstance(res, DomiasResult) and res.name == "domias"
    recs = res.records
    auc = roc_auc_score(recs["member"], recs["score"])
    assert res.auc == pytest.approx(auc) and res.extra["auc"] == pytest.approx(auc)
    assert res.value == pytest.approx(2 * auc - 1)  # unclipped (framework Table 2)
    assert res.bounds == (-1.0, 1.0) and res.goal == "lower"
    np.testing.assert_allclose(recs["score"], recs["log_p_synthetic"] - recs["log_p_reference"])
    # members = all training rows; the holdout splits into non-members and the reference
    assert (recs["source"] == "training").sum() == 600
    assert res.params["n_non_members"] + res.params["n_reference"] == 600
    assert res.params["n_reference"] == 300
    assert set(recs.loc[~recs["member"], "record"]) <= set(holdout.index)
    assert res.params["kde_dimensions"] < res.params["encoded_dimensions"]  # one-hot removed


def test_domias_leaky_release_beats_unseen_release(health):
    train, holdout, fresh = health
    leak = domias(train, train.copy(), threat=ALL_BUT_DISEASE, holdout=holdout, bootstrap=300)
    unseen = domias(train, fresh, threat=ALL_BUT_DISEASE, holdout=holdout, bootstrap=300)
    assert leak.value > 0.15
    assert unseen.value < 0.15
    assert leak.ci[0] > unseen.ci[1] - 0.05
    assert -1.0 <= unseen.ci[0] <= unseen.ci[1] <= 1.0
    assert unseen.ci[0] < 0 < leak.ci[0]  # no clipping at 0: a chance-level interval spans it
    assert leak.extra["reading"].startswith("above 0")
    assert unseen.extra["reading"].startswith("indistinguishable from 0")


def test_domias_reports_below_chance_attacks_unclipped(health):
    # A release made of the holdout puts the synthetic density at the non-members: the
    # ratio ranks them above the members, AUC < 0.5. max(0, 2 AUC - 1) used to report 0.
    train, holdout, _ = health
    res = domias(
        train, holdout.copy(), threat=ALL_BUT_DISEASE, holdout=holdout, bootstrap=200, seed=0
    )
    assert res.auc < 0.45
    assert res.value == pytest.approx(2 * res.auc - 1) and res.value < -0.1
    lo, hi = res.ci
    assert -1.0 <= lo <= res.value <= hi < 0  # the bootstrap interval is unclipped too
    assert res.extra["reading"] == (
        "below 0: the attack ranks non-members above members — no membership signal"
    )


def test_domias_survives_a_degenerate_release(health):
    train, holdout, _ = health
    flat = train.assign(income=float(train["income"].median()), gender="female")
    res = domias(train, flat, threat=ALL_BUT_DISEASE, holdout=holdout, bootstrap=50)
    assert np.isfinite(res.value) and np.all(np.isfinite(res.records["score"]))
    full = domias(train, train.copy(), threat=ALL_BUT_DISEASE, holdout=holdout, bootstrap=0)
    assert res.params["kde_dimensions"] < full.params["kde_dimensions"]


def test_domias_seed_subsampling_and_bad_input(health):
    train, holdout, fresh = health
    a = domias(train, fresh, threat=ALL_BUT_DISEASE, holdout=holdout, seed=3, bootstrap=50)
    b = domias(train, fresh, threat=ALL_BUT_DISEASE, holdout=holdout, seed=3, bootstrap=50)
    assert a.value == b.value and a.ci == b.ci and a.params["seed"] == 3
    small = domias(train, fresh, threat=ALL_BUT_DISEASE, holdout=holdout, max_rows=100, bootstrap=0)
    assert small.params["n_members"] == 100 and small.params["n_synthetic_used"] == 100
    assert small.ci is None
    with pytest.raises(ParameterError, match="holdout"):
        domias(train, fresh, threat=ALL_BUT_DISEASE)
    for kwargs in (
        {"reference_fraction": 0.0},
        {"reference_fraction": 1.0},
        {"max_rows": 5},
        {"bootstrap": -1},
        {"columns": ["nope"]},
    ):
        with pytest.raises(ParameterError):
            domias(train, fresh, threat=ALL_BUT_DISEASE, holdout=holdout, **kwargs)
    with pytest.raises(InsufficientDataError):
        domias(
            train, fresh, threat=ALL_BUT_DISEASE, holdout=holdout.iloc[:4], reference_fraction=0.2
        )
