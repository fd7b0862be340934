"""sdcMicro's classic risk measures (``privacy_core.risk.sdc``): the reference values of
sdcMicro's own tests, worked examples computed by hand, and the calibrated readings.

Wrong implementations these catch: F_k taken as f_k when weights are given (the reference
risks move), the f_k > 2 approximation swapped for the exact series or the reverse, no
correction 1/f_k where F_k = f_k, rarity counted in the training rows only, a reading
without its non-member baseline (the unseen floor rises, and the second worked example
moves: see test_mutants.py), the sensitive value ignored in the ``with_sensitive`` mode,
l-diversity counted over the real table instead of the release; for the classics read
for a release: k-anonymity that counts every reproduced rare key (no release-side k),
l-diversity that counts a homogeneous release group whatever its value, or any group
holding the value, sample uniques counted at f_k < 3, and targets or l-diversity counted
in the training rows only (each moves a hand-computed reading below)."""

import warnings

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
from privacy_core.risk.sdc import (
    distinct_l_diversity,
    frequencies,
    individual_risk,
    individual_risk_reproduced,
    k_anonymity,
    k_anonymity_summary,
    l_diversity,
    reproduced_uniques,
    row_keys,
    sample_uniques,
    sdc_reading,
)

# sdcMicro's tests/testthat/test_indivRisk.R: three key variables, eight records, weights
SDC = pd.DataFrame(
    {"A": [2, 3, 2, 2, 3, 3, 1, 2], "B": [3, 3, 3, 3, 3, 3, 4, 3], "C": [1, 3, 1, 2, 1, 1, 1, 1]}
)
SDC_W = np.array([18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51])


def test_individual_risk_reproduces_sdcmicros_own_test_values():
    fk, Fk = frequencies(row_keys(SDC, ["A", "B", "C"]), SDC_W)
    assert fk.tolist() == [3, 1, 3, 1, 2, 2, 1, 3]
    assert Fk[0] == 18 + 39 + 51
    approx = [0.01369863, 0.08579129, 0.01369863, 0.17707583]
    approx += [0.01877883, 0.01877883, 0.03931625, 0.01369863]
    exact = [0.01355297, 0.08579129, 0.01355297, 0.17707583]
    exact += [0.01877883, 0.01877883, 0.03931625, 0.01355297]
    np.testing.assert_allclose(individual_risk(fk, Fk), approx, atol=5e-9)
    np.testing.assert_allclose(individual_risk(fk, Fk, method="exact"), exact, atol=5e-9)
    np.testing.assert_allclose(individual_risk(fk, Fk, qual=2), 2 * np.array(approx), atol=1e-8)
    # no weights (survey = FALSE in sdcMicro): the sample is the population, r = 1/f_k
    fk1, Fk1 = frequencies(row_keys(SDC, ["A", "B", "C"]))
    np.testing.assert_allclose(individual_risk(fk1, Fk1), 1 / fk1)


def test_l_diversity_and_k_anonymity_as_sdcmicro_counts_them():
    # sdcMicro's tests/testthat/test_ldiversity.R, without its missing-value case
    keys = row_keys(pd.DataFrame({"g": ["a", "a", "a", "b", "b", "c", "c"]}), ["g"])
    assert distinct_l_diversity(keys, np.array([1, 0, 2, 1, 0, 0, 1])).tolist() == [
        3,
        3,
        3,
        2,
        2,
        2,
        2,
    ]
    summary = k_anonymity_summary(row_keys(SDC, ["A", "B", "C"]), 3)
    assert summary == {"records": 8, "sample_uniques": 3, "k_anonymity_violations": 5, "keys": 5}


# ----------------------------------------------------------------- a worked example
# key = (sex, region); the sensitive dx. Pooled frequencies: (F,N) 4, (M,N) 2, (M,S),
# (F,S), (M,E), (F,E) 1 each; with k = 3 the rare records are t3, t4, t5 (members) and
# h0, h1, h2 (non-members).
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
RELEASE = pd.DataFrame(
    {"sex": ["M", "M", "F", "F"], "region": ["N", "S", "N", "N"], "dx": ["a", "c", "c", "b"]}
)
THREAT = pc.ThreatModel(["sex", "region"], ["dx"])


def _run(fn, release=RELEASE, **kw):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # region E is unseen in training
        return fn(TRAIN, release, threat=THREAT, holdout=HOLD, seed=0, **kw)


def test_the_worked_example_by_hand():
    res = _run(reproduced_uniques)
    # members t3 (M,N) and t4 (M,S) reproduced, t5 (F,S) not: 2/3; non-members h0 (M,N)
    # reproduced, h1 (M,E) and h2 (F,E) not: 1/3. Reading (2/3 - 1/3) / (1 - 1/3) = 1/2.
    assert res.extra["p_members"] == pytest.approx(2 / 3)
    assert res.baseline == pytest.approx(1 / 3)
    assert res.value == pytest.approx(0.5)
    rec = res.records
    assert len(rec) == 6 and rec["member"].sum() == 3
    t3 = rec[rec["member"] & (rec["f_k"] == 2)].iloc[0]
    assert t3["release_count"] == 1 and t3["l_diversity_release"] == 1  # r0 alone, dx a
    # with the sensitive value: only t3's (M,N,a) is in the release: 1/3 against 0
    sens = _run(reproduced_uniques, with_sensitive=True)
    assert sens.extra["p_members"] == pytest.approx(1 / 3)
    assert sens.baseline == pytest.approx(0.0)
    assert sens.value == pytest.approx(1 / 3)
    # sdcMicro's summary of each table (training: (F,N) three times, three singletons)
    sdc = res.extra["sdc"]
    assert sdc["real"]["sample_uniques"] == 3 and sdc["real"]["k_anonymity_violations"] == 3
    assert sdc["release"]["sample_uniques"] == 2 and sdc["release"]["k_anonymity_violations"] == 4
    assert sdc["real"]["expected_reidentifications"] == pytest.approx(4.0)  # 3 x 1/3 + 3 x 1
    assert sdc["real"]["global_risk"] == pytest.approx(4 / 6)
    assert sdc["reproduced_with_l_1"] == 2  # t3 and t4: one release record each


def test_the_worked_example_risk_weighted_by_hand():
    res = _run(individual_risk_reproduced)
    # r = 1/f_k (pooled, no weights): (F,N) 1/4, (M,N) 1/2, singletons 1. Members:
    # (3/4 + 1/2 + 1) of 13/4 reproduced = 9/13; non-members: (1/2 + 1/4) of 11/4 = 3/11
    assert res.extra["p_members"] == pytest.approx(9 / 13)
    assert res.baseline == pytest.approx(3 / 11)
    assert res.value == pytest.approx((9 / 13 - 3 / 11) / (1 - 3 / 11))
    assert len(res.records) == 10  # every pooled record weighs in
    d = res.to_dict()
    assert d["estimate"] == pytest.approx(res.value)  # not clipped here


# ------------------------------------------- the classics read for a release, by hand
# The same training and holdout rows, pooled with their dx (t = training, h = holdout):
#   (F,N) t0 a, t1 b, t2 a, h3 a   f 4, distinct dx 2
#   (M,N) t3 a, h0 b               f 2, distinct dx 2
#   (M,S) t4 b                     f 1, dx 1
#   (F,S) t5 c                     f 1, dx 1
#   (M,E) h1 a                     f 1, dx 1
#   (F,E) h2 c                     f 1, dx 1
# A release with (M,N) three times, (M,S) once, (M,E) three times (all with dx b where
# it differs from h1's a) and (F,N) once:
RELEASE2 = pd.DataFrame(
    {
        "sex": ["M", "M", "M", "M", "M", "M", "M", "F"],
        "region": ["N", "N", "N", "S", "E", "E", "E", "N"],
        "dx": ["a", "a", "a", "b", "b", "b", "b", "a"],
    }
)
# The readings worked out below; test_mutants.py checks that each mutant moves its own.
WORKED = {"sample_uniques": 0.0, "k_anonymity": 1 / 3, "l_diversity": 0.5}


def worked_readings() -> dict[str, float]:
    """The three classics on the worked example (test_mutants.py reuses it)."""
    fns = {"sample_uniques": sample_uniques, "k_anonymity": k_anonymity, "l_diversity": l_diversity}
    return {name: _run(fn, RELEASE2).value for name, fn in fns.items()}


def test_sample_uniques_by_hand():
    res = _run(sample_uniques, RELEASE2)
    # uniques (f_k = 1): members t4 (M,S) reproduced, t5 (F,S) not: 1/2; non-members h1
    # (M,E) reproduced, h2 (F,E) not: 1/2. (1/2 - 1/2) / (1 - 1/2) = 0: the release
    # reproduces members' uniques no more often than unseen people's (a reading without
    # the baseline says 1/2; counted at f_k < 3 it would add t3 and h0, both reproduced).
    assert res.extra["p_members"] == pytest.approx(0.5)
    assert res.baseline == pytest.approx(0.5)
    assert res.value == pytest.approx(WORKED["sample_uniques"])
    rec = res.records
    assert (rec["f_k"] == 1).all() and len(rec) == 4
    assert rec["hit"].tolist() == [True, False, True, False]  # t4, t5, h1, h2
    assert "k" not in res.params and "weights" not in res.params  # counts, not weights


def test_k_anonymity_by_hand():
    res = _run(k_anonymity, RELEASE2)
    # violating 3-anonymity (f_k < 3): members t3 (M,N), t4 (M,S), t5 (F,S); non-members
    # h0 (M,N), h1 (M,E), h2 (F,E). Release counts: (M,N) 3, (M,S) 1, (M,E) 3. Singled
    # out (on 1 or 2 release records): members t4 only, 1/3; non-members none, 0 (h0 and
    # h1 hide among 3 release records each). Reading 1/3. Counting every reproduced
    # rare key instead: 2/3 against 2/3, reading 0.
    assert res.extra["p_members"] == pytest.approx(1 / 3)
    assert res.baseline == pytest.approx(0.0)
    assert res.value == pytest.approx(WORKED["k_anonymity"])
    rec = res.records.set_index(["member", "f_k", "release_count"])["hit"]
    assert rec.loc[(True, 2, 3)].item() is False  # t3: its key reproduced, in a crowd
    assert rec.loc[(True, 1, 1)].item() is True  # t4
    assert res.params["k"] == 3
    # with k = 4 the release's (M,N) and (M,E) triples single out too: members t3, t4
    # (2/3) against h0, h1 (2/3): reading 0
    assert _run(k_anonymity, RELEASE2, k=4).value == pytest.approx(0.0)


def test_l_diversity_by_hand():
    res = _run(l_diversity, RELEASE2)
    # not 2-diverse in the pooled real rows (one distinct dx): t4, t5, h1, h2 ((F,N) and
    # (M,N) hold two values). Pinned: t4 (M,S) b, the release's (M,S) holds b alone: hit;
    # t5 (F,S) not in the release; h1 (M,E) a, the release's (M,E) holds b alone: a
    # homogeneous group with another value discloses nothing; h2 not in the release.
    # Members 1/2, non-members 0: reading 1/2 (counting any homogeneous group: 1/2
    # against 1/2, reading 0).
    assert res.extra["p_members"] == pytest.approx(0.5)
    assert res.baseline == pytest.approx(0.0)
    assert res.value == pytest.approx(WORKED["l_diversity"])
    assert res.records["l_diversity_real"].eq(1).all()
    assert res.records["hit"].tolist() == [True, False, False, False]
    assert res.params["l"] == 2
    # l = 3: (F,N) and (M,N) (two values each) join the targets; the release's (M,N)
    # holds a alone: t3 (a) pinned, h0 (b) not; (F,N) holds a: t0, t2, h3 pinned, t1 not.
    # Members t0 t2 t3 t4 of t0-t5 = 4/6; non-members h3 of h0-h3 = 1/4: (2/3 - 1/4) / (3/4)
    three = _run(l_diversity, RELEASE2, l=3)
    assert three.value == pytest.approx((2 / 3 - 1 / 4) / (3 / 4))
    # sdcMicro's counts: distinct 2-diversity violations in each table (the training
    # rows: (M,N), (M,S), (F,S) one record each; the release: every group homogeneous)
    sdc = res.extra["sdc"]
    assert sdc["l"] == 2 and sdc["real"]["l_diversity_violations"] == 3
    assert sdc["release"]["l_diversity_violations"] == 8
    summary = pc.sdc_summary(res).set_index("count")
    assert summary.loc["violating distinct 2-diversity", "holdout"] == 4


def test_the_classics_flag_the_training_records_they_count_as_disclosed():
    flags = pc.record_flags(
        {"k_anonymity": _run(k_anonymity, RELEASE2), "l_diversity": _run(l_diversity, RELEASE2)},
        TRAIN.index,
    )
    # t4 alone in both; never a holdout record (its labels 0-3 overlap the training's)
    assert flags.index[flags["k_anonymity"]].tolist() == [4]
    assert flags.index[flags["l_diversity"]].tolist() == [4]


@pytest.mark.filterwarnings("ignore::privacy_core.UnseenCategoryWarning")
def test_the_classics_refuse_bad_options_and_say_when_nothing_is_a_target():
    for bad in (1, 0, 2.5, "3", True):
        with pytest.raises(pc.ParameterError, match="`k` must be an integer >= 2"):
            k_anonymity(TRAIN, RELEASE2, threat=THREAT, k=bad)
        with pytest.raises(pc.ParameterError, match="`l` must be an integer >= 2"):
            l_diversity(TRAIN, RELEASE2, threat=THREAT, l=bad)
    with pytest.raises(pc.ParameterError, match="Unknown sdcMicro measure 'uniques'"):
        sdc_reading("uniques", TRAIN, RELEASE2, threat=THREAT, holdout=None, schema=None)
    pairs = pd.DataFrame({"sex": ["F", "M"] * 6, "dx": ["a", "a", "b", "b"] * 3})
    sex = pc.ThreatModel(["sex"], ["dx"])
    with pytest.raises(
        pc.InsufficientDataError, match=r"sample unique on the quasi-identifiers \(sex\)"
    ):
        sample_uniques(pairs, pairs, threat=sex)
    with pytest.raises(pc.InsufficientDataError, match="3-anonymous"):
        k_anonymity(pairs, pairs, threat=sex)
    with pytest.raises(pc.InsufficientDataError, match="at least 2 distinct values of dx"):
        l_diversity(pairs, pairs, threat=sex)


def test_the_interval_resamples_key_groups_not_records():
    """A hit depends on the key (and value), so a key group's records are one draw: with
    every real record doubled (the same groups, the same outcomes, twice as heavy) the
    l-diversity reading and its interval stay as they were. A bootstrap over records
    would take the copies for independent evidence and narrow the interval."""
    real = pc.simulate_health(600, kappa=1, seed=4)
    hold = pc.simulate_health(600, kappa=1, seed=5)
    release = pc.simulate_health(600, kappa=1, seed=6)
    threat = pc.ThreatModel(["gender", "age", "education"], ["disease"])
    once = l_diversity(real, release, threat=threat, holdout=hold, seed=2)
    twice = l_diversity(
        pd.concat([real, real], ignore_index=True),
        release,
        threat=threat,
        holdout=pd.concat([hold, hold], ignore_index=True),
        seed=2,
    )
    assert once.value == pytest.approx(twice.value)
    assert once.ci == pytest.approx(twice.ci)
    assert once.ci[1] - once.ci[0] > 0.05  # a real interval, not a degenerate one


@pytest.mark.filterwarnings("ignore::privacy_core.UnseenCategoryWarning")
def test_a_copy_reads_one_and_unseen_rows_read_near_zero_with_the_estimate_kept():
    adult = pc.load_adult().sample(4000, random_state=7).reset_index(drop=True)
    train, hold = adult.iloc[:2000], adult.iloc[2000:3000]
    fresh = adult.iloc[3000:]
    threat = pc.ThreatModel(["age", "sex", "race", "marital-status", "education"], ["income"])
    for fn in (
        reproduced_uniques,
        individual_risk_reproduced,
        sample_uniques,
        k_anonymity,
        l_diversity,
    ):
        copy = fn(train, train, threat=threat, holdout=hold, seed=1)
        assert copy.value == pytest.approx(1.0) and copy.ci[0] > 0.9
        unseen = fn(train, fresh, threat=threat, holdout=hold, seed=1)
        assert unseen.value <= 0.1 and unseen.ci[1] <= 0.2
        assert unseen.to_dict()["estimate"] == unseen.extra["risk_unclipped"]
        # without a holdout the members' share stands alone and cannot decide
        alone = fn(train, fresh, threat=threat, seed=1)
        assert alone.baseline is None and "no holdout" in alone.extra["uninformative"]
        assert alone.value > unseen.value  # chance reproduction left in


@pytest.mark.filterwarnings("ignore::privacy_core.UnseenCategoryWarning")
def test_weights_and_bad_inputs_give_specific_errors():
    real = TRAIN.assign(w=[10.0, 12, 8, 30, 50, 40])
    hold = HOLD.assign(w=[20.0, 25, 30, 9])
    release = RELEASE.assign(w=1.0)
    threat = THREAT
    res = reproduced_uniques(real, release, threat=threat, holdout=hold, weights="w")
    # the weights reach F_k: the rare records' estimated population frequencies
    t4 = res.records[res.records["member"] & (res.records["f_k"] == 1)]
    assert set(t4["F_k"]) == {50.0, 40.0}
    with pytest.raises(pc.ParameterError, match="not in the real table"):
        reproduced_uniques(real, release, threat=threat, holdout=hold, weights="nope")
    with pytest.raises(pc.ParameterError, match="at least 1"):
        reproduced_uniques(
            real.assign(w=0.5), release, threat=threat, holdout=hold.assign(w=0.5), weights="w"
        )
    with pytest.raises(pc.ParameterError, match="also a quasi-identifier"):
        reproduced_uniques(real, release, threat=pc.ThreatModel(["sex", "w"], ["dx"]), weights="w")
    common = pd.DataFrame({"sex": ["F", "M"] * 6, "dx": ["a", "b", "c"] * 4})
    with pytest.raises(pc.InsufficientDataError, match="no rare"):
        reproduced_uniques(common, common, threat=pc.ThreatModel(["sex"], ["dx"]))
    with pytest.raises(pc.ParameterError, match="method"):
        individual_risk(np.ones(2), np.ones(2), method="guess")


def test_the_exact_method_stays_a_probability_for_large_frequencies():
    # the series cancels for large f (sdcMicro's own code overflows there): the exact
    # method falls back to the approximation it approaches, and every risk is in [0, 1]
    fk = np.array([3.0, 30.0, 120.0, 300.0])
    Fk = fk / np.array([0.5, 0.7, 0.2, 0.05])
    exact = individual_risk(fk, Fk, method="exact")
    approx = individual_risk(fk, Fk)
    assert np.all((exact >= 0) & (exact <= 1))
    np.testing.assert_allclose(exact[1:], approx[1:])
    assert abs(exact[0] - approx[0]) < 0.05  # close, not equal, where the series is used


@pytest.mark.filterwarnings("ignore::privacy_core.UnseenCategoryWarning")
def test_record_ids_stay_integers_and_a_missing_baseline_is_said():
    alone = reproduced_uniques(TRAIN, RELEASE, threat=THREAT)
    assert alone.records["record"].dtype.kind == "i"
    # a holdout whose records all share one common key: no non-member is a target
    common = pd.DataFrame({"sex": ["F"] * 4, "region": ["N"] * 4, "dx": ["a"] * 4})
    res = reproduced_uniques(TRAIN, RELEASE, threat=THREAT, holdout=common)
    assert res.baseline is None and "no holdout record is a target" in res.extra["uninformative"]


def test_a_schema_error_survives_the_trip_to_a_worker_and_back():
    import pickle

    err = pc.SchemaMismatchError(["column 'a' is missing", "column 'b' has another type"])
    back = pickle.loads(pickle.dumps(err))
    assert str(back) == str(err) and back.problems == err.problems


def _rare_key_tables(members: int, members_reproduced: int, holdout: int, holdout_reproduced=0):
    """Training and holdout rows: a common key (20 and 10 records, never a target) and
    ``members`` and ``holdout`` records of unique keys (every one a rare target); a release
    reproducing the first ``members_reproduced`` training keys and the first
    ``holdout_reproduced`` holdout keys."""

    def rows(ids):  # key id i -> (ward, bed), unique for i < 400; id 0 is the common key
        return pd.DataFrame(
            {
                "ward": [f"w{i % 20}" for i in ids],
                "bed": [f"b{(i % 20 + i // 20) % 20}" for i in ids],
                "dx": ["a" if i % 2 else "b" for i in ids],
            }
        )

    train = rows([0] * 20 + list(range(1, 1 + members)))
    hold = rows([0] * 10 + list(range(200, 200 + holdout)))
    release = pd.concat(
        [train.iloc[20 : 20 + members_reproduced], hold.iloc[10 : 10 + holdout_reproduced]],
        ignore_index=True,
    )
    return train, hold, release


def _few(members, reproduced, holdout, held=0):
    train, hold, release = _rare_key_tables(members, reproduced, holdout, held)
    threat = pc.ThreatModel(["ward", "bed"], ["dx"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # holdout keys the small trainings never saw
        return reproduced_uniques(train, release, threat=threat, holdout=hold, seed=5)


def test_a_side_with_few_or_unanimous_key_groups_keeps_its_uncertainty():
    """s36's H1. A holdout of three rare records, none reproduced, cannot pin the chance
    rate: resampling three misses gives 0 every time, and the reading's interval was the
    members' alone, (0.35, 0.65) here, confidently over the amber line. That side is now
    drawn from its Jeffreys posterior, so the interval reaches down to 0. Against 200
    holdout records the same share of 0 is well measured and the reading decides. A copy
    of three rare members (every one reproduced) is as weak evidence of a share of 1.
    Mutant (test_mutants.py): the percentile bootstrap alone fails the first and third."""
    few = _few(40, 20, 3)
    assert few.value == pytest.approx(0.5)
    assert few.ci[0] <= 0.05 and few.ci[1] >= 0.5, few.ci
    many = _few(40, 20, 200)
    assert many.value == pytest.approx(0.5)
    assert many.ci[0] > 0.3 and many.ci[1] < 0.7, many.ci
    copy_of_three = _few(3, 3, 200)
    assert copy_of_three.value == pytest.approx(1.0)
    assert copy_of_three.ci[0] < 0.9, copy_of_three.ci
    # two holdout targets, one reproduced: three possible resampled shares, 1 of them an
    # undefined reading; the posterior keeps the interval wide
    two = _few(40, 30, 2, 1)
    assert two.ci[0] <= 0.05, two.ci
    # the interval holds the reading: a copy's 1 is in it (the posterior's draws stay
    # below 1), and a reading that cannot be computed has no interval
    assert copy_of_three.ci[1] == 1.0 and many.ci[0] <= many.value <= many.ci[1]
    every_holdout_target = _few(40, 20, 3, 3)
    assert np.isnan(every_holdout_target.value) and np.isnan(every_holdout_target.ci).all()
    assert "every holdout target" in every_holdout_target.extra["uninformative"]
