"""Tests of the tests: deliberate mutants of the core formulas, each of which a paper or
calibration check must fail, and the unmutated code, which the same check passes.

A check that no plausible wrong implementation fails is not a check (issue 31). Each
mutant below is patched into the engine for one test only:

- no control baseline in the attack risk (risk = the attack's raw success rate);
- no normalisation (risk = attack - control, not divided by 1 - control);
- no size correction in singling out (the reference table's dilution left in);
- a uniform RAPID baseline (b = 1/K instead of the class prevalence, §2.3);
- a HALF that returns its own training rows (a partial copy, issue 31 finding 6);
- the relative MDS anchored at 0 instead of HALF (raw / SELF);
- reproduced rare combinations without their non-member baseline (the members' share);
- sdcMicro's classics read for a release, each against its hand-computed worked example
  (tests/unit/test_sdc_classics.py): sample uniques without the non-member baseline,
  k-anonymity without the release-side k (every reproduced rare key counted), and
  l-diversity that does not require the release's group to hold the record's own value;
  and their interval resampling a side of few or unanimous key groups (three unreproduced
  holdout targets read as a chance rate known to be 0).

- a linkability without its control (the raw link rate read as the risk);
- a DCR without its holdout reference (real-to-real distances from a split of the
  training rows, whatever holdout is given);
- a CART attacker not pruned as rpart prunes (the grown tree, or scikit-learn's Gini
  cost-complexity pruning at the same number of leaves), against R's rpart's leaves.
- a RAPID oracle that reads the continuous age, or the logit at the whole year, instead
  of the released age (whole years) averaged over the ages that round to it.

The last two need their own set-ups: with one nearest neighbour unseen rows link almost
no one, so a missing control cannot show (with 50 neighbours chance links are common);
and on six mixed columns at alpha 2 the split's half-size reference moves the floor by
only 0.01 (on two continuous columns at alpha 20, by 0.13).
"""

from __future__ import annotations

import dataclasses
import importlib
import warnings

import numpy as np
import pandas as pd
import pytest

import privacy_core.risk.attacks.common as attack_common
import privacy_core.risk.attacks.linkage as linkage_module
import privacy_core.risk.distance.closest_record as dcr_module
import privacy_core.risk.mds.disclosure as mds_disclosure
import privacy_core.risk.mds.shadows as mds_shadows
import privacy_core.risk.sdc.pool as sdc_pool
import privacy_core.risk.sdc.reproduction as sdc_module
from privacy_core.calibration import calibrate
from privacy_core.datasets import simulate_health
from privacy_core.risk.distance.space import split_real
from privacy_core.risk.mds import membership_disclosure_score
from privacy_core.risk.rapid import categorical_scores, rapid
from privacy_core.synth import make_generator, synthesize
from privacy_core.threat import ThreatModel

# the module whose categorical_scores RAPID's fit and re-aggregation look up
rapid_module = importlib.import_module("privacy_core.risk.rapid.scores")
SEED = 11  # not a seed any figure or band was tuned on


@pytest.fixture(scope="module")
def health():
    real = simulate_health(3000, kappa=1, seed=SEED)
    return real, ThreatModel([c for c in real.columns if c != "disease"], ["disease"])


def _calibrated(health, key: str, options: dict | None = None) -> str:
    """The calibration gate's verdict for one measure and mode on the health table."""
    real, threat = health
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cal = calibrate(
            real,
            threat=threat,
            measures=[key],
            levels=(0.0, 0.5, 1.0),
            ratios=(1.0, 4.0),
            options=options,
            seed=SEED,
        )
    (summary,) = cal.summaries
    return summary.verdict


def _rapid_uses_prevalence(_: object = None) -> bool:
    """RAPID's marginal gain is (g - b_k) / (1 - b_k) with b_k the class's share of the
    real records (§2.3), recomputed here by hand from the result's own g."""
    real = simulate_health(600, kappa=5, seed=SEED)
    release = synthesize(real, method="cart", seed=SEED)
    threat = ThreatModel(["age", "education", "gender"], ["disease"])
    res = rapid(real, release, threat=threat, attackers=("rf",), n_trees=50, bootstrap=0, seed=1)
    shares = pd.Series(np.asarray(res.classes, dtype=object)[res.y_true]).value_counts(
        normalize=True
    )
    b = np.array([shares[res.classes[k]] for k in res.y_true])[:, None, None]
    expected = (res.g - b) / (1 - b)
    return bool(np.allclose(res.scores, expected))


def _worked_example(scores=categorical_scores) -> bool:
    """The paper's worked example (§2.3): g = 0.70, 0.85, 0.55 with b = 0.60 give
    r = 0.25, 0.625, -0.125 and RAPID(0.3) = 1/3."""
    g = np.array([0.70, 0.85, 0.55])
    r = scores(g, np.zeros(3, dtype=int), np.array([0.6, 0.4]), method="marginal", n_classes=2)
    return bool(np.allclose(r, [0.25, 0.625, -0.125]) and np.isclose((r > 0.3).mean(), 1 / 3))


def _mds_half_and_self() -> bool:
    """The systematic-assessment paper's ends: HALF (a method that emits unseen real
    records) reads about 0, SELF (a copy) about 1."""
    real = simulate_health(1200, seed=SEED)
    hold = simulate_health(1200, seed=SEED + 1)
    opts = {"shadow_models": 8, "shadow_sets": 3, "records": 300, "bootstrap": 100}
    half = membership_disclosure_score(real, holdout=hold, shadow_method="half", seed=2, **opts)
    copy = membership_disclosure_score(real, holdout=hold, shadow_method="self", seed=2, **opts)
    # HALF is consistent with 0: its interval reaches 0 (to 0.01), its estimate is small
    lo, hi = half.ci
    return abs(half.value) <= 0.05 and lo <= 0.01 and hi >= -0.01 and copy.value >= 0.9


# --------------------------------------------------------------- the unmutated code passes
@pytest.mark.parametrize("key", ["inference:default", "singling_out:univariate"])
def test_the_correct_attacks_pass_the_calibration_gate(health, key):
    assert _calibrated(health, key) == "pass"


def test_the_correct_formulas_pass_the_paper_checks():
    assert _rapid_uses_prevalence() and _worked_example() and _mds_half_and_self()


# --------------------------------------------------------------- every mutant is caught
def test_no_control_baseline_in_the_attack_risk_fails_calibration(health, monkeypatch):
    monkeypatch.setattr(attack_common, "control_baseline_risk", lambda ra, rc: ra)
    assert _calibrated(health, "inference:default") == "fail"  # floor = raw success ~0.55


def test_no_normalisation_of_the_attack_risk_fails_calibration(health, monkeypatch):
    monkeypatch.setattr(attack_common, "control_baseline_risk", lambda ra, rc: ra - rc)
    assert _calibrated(health, "inference:default") == "fail"  # ceiling = 1 - control


def test_no_size_correction_in_singling_out_does_not_pass_calibration(health, monkeypatch):
    monkeypatch.setattr(attack_common, "undilute", lambda risk, rho: risk)
    # the reading moves with the training:holdout ratio (0.29 at 4:1)
    assert _calibrated(health, "singling_out:univariate") != "pass"


def test_a_uniform_rapid_baseline_fails_the_paper_checks(monkeypatch):
    original = rapid_module.categorical_scores

    def uniform(g, y_codes, prevalence, *, method, n_classes):
        flat = np.full_like(prevalence, 1 / len(prevalence), dtype=float)
        return original(g, y_codes, flat, method=method, n_classes=n_classes)

    monkeypatch.setattr(rapid_module, "categorical_scores", uniform)
    assert not _rapid_uses_prevalence()
    # the worked example through the same mutant
    assert not _worked_example(uniform)


def test_a_half_that_returns_its_own_training_rows_fails(monkeypatch):
    def own_rows(i, ctx, train):
        # the `half` generator: half of the rows it is fitted on (a partial copy)
        gen = make_generator("half").fit(train, seed=int(ctx.seeds[i, 0]))
        targets = mds_shadows.encode_rows(ctx, ctx.table.iloc[ctx.targets])
        d = sum(
            mds_shadows.nearest_distances(
                ctx, targets, gen.sample(len(train), seed=int(ctx.seeds[i, 1 + j]))
            )
            for j in range(ctx.sets)
        )
        return np.broadcast_to(d / ctx.sets, (len(ctx.levels), len(ctx.targets))).copy()

    monkeypatch.setattr(mds_shadows, "_half_shadow", own_rows)
    assert not _mds_half_and_self()


def test_the_relative_mds_anchored_at_zero_fails(monkeypatch):
    monkeypatch.setattr(
        mds_disclosure, "_relative", lambda raw, half, self_: raw / self_ if self_ > 0 else np.nan
    )
    assert not _mds_half_and_self()


WIDE_LINKS = {"linkability": {"n_neighbors": 50}}


def test_a_linkability_without_its_control_fails_calibration(health, monkeypatch):
    """With 50 neighbours per half, unseen rows link by chance (raw rate ~0.93); the
    control's rate takes that out (floor 0.0), its absence does not (floor 0.93)."""
    assert _calibrated(health, "linkability:default", WIDE_LINKS) == "pass"
    original = linkage_module.summarise_attack

    def without_control(shell, attack, **kwargs):
        bare = dataclasses.replace(shell, n_control_success=None, n_control_attacks=0)
        return original(bare, attack, **kwargs)

    monkeypatch.setattr(linkage_module, "summarise_attack", without_control)
    assert _calibrated(health, "linkability:default", WIDE_LINKS) == "fail"


@pytest.fixture(scope="module")
def two_continuous(health):
    """Two continuous columns and the secret: few dimensions, where a reference half the
    size of the training table is visibly farther away (by 2^(1/d))."""
    real, _ = health
    table = real[["income", "health", "disease"]]
    return table, ThreatModel(["income", "health"], ["disease"])


def test_a_dcr_without_its_holdout_reference_fails_calibration(two_continuous, monkeypatch):
    options = {"dcr": {"alpha": 20.0}}
    assert _calibrated(two_continuous, "dcr:default", options) == "pass"

    def split_always(setup, params):  # the holdout ignored: one half of T against the other
        T = setup.encoded["real"]
        query, reference = split_real(len(T), setup.split_seed)
        return dcr_module._RealToReal(T[query], T[reference], holdout=False)

    monkeypatch.setattr(dcr_module, "_real_reference", split_always)
    assert _calibrated(two_continuous, "dcr:default", options) == "fail"  # floor ~0.13


@pytest.fixture(scope="module")
def adult_keys():
    """Adult with categorical-like keys: rare combinations recur in unseen rows by chance
    (on the health table's continuous keys they never do, and no baseline is needed)."""
    from privacy_core.datasets import load_adult

    real = load_adult().sample(4000, random_state=SEED).reset_index(drop=True)
    return real, ThreatModel(["age", "sex", "race", "marital-status", "education"], ["income"])


def test_reproduced_rare_combinations_without_their_baseline_fail_calibration(
    adult_keys, monkeypatch
):
    assert _calibrated(adult_keys, "reproduced_uniques:default") == "pass"
    monkeypatch.setattr(sdc_module, "relative_reading", lambda pm, po: pm)
    assert _calibrated(adult_keys, "reproduced_uniques:default") == "fail"


# ----------------------------------------------------------------------------- issue 32
def test_a_linkability_split_whose_codes_collide_fails_the_definition_check():
    """Mutant of linkability's linear split: a column's codes added to the half's codes
    (instead of paired with them), so two different value combinations can share a code.
    tests/unit/test_linkability_split.py compares the split with the literal definition;
    on its tables the mutant chooses another split."""
    from test_linkability_split import _plain_split

    def added_codes_split(real, columns):
        cols = list(columns)
        order = sorted(cols, key=lambda c: (-real[c].nunique(dropna=False), cols.index(c)))
        halves, codes = ([], []), [np.zeros(len(real), np.int64), np.zeros(len(real), np.int64)]

        def share(h):
            return float((np.bincount(codes[h])[codes[h]] == 1).mean()) if halves[h] else -1.0

        for c in order:
            pick = 0 if (share(0), len(halves[0])) <= (share(1), len(halves[1])) else 1
            halves[pick].append(c)
            codes[pick] = pd.factorize(codes[pick] + pd.factorize(real[c])[0])[0]
        return [c for c in cols if c in halves[0]], [c for c in cols if c in halves[1]]

    differs = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        n, k = int(rng.integers(5, 400)), int(rng.integers(2, 14))
        frame = pd.DataFrame(
            {f"q{j}": rng.choice([f"v{i}" for i in range(int(rng.integers(1, 12)))], n)
             for j in range(k)}
        )  # fmt: skip
        cols = list(frame.columns)
        differs += added_codes_split(frame, cols) != _plain_split(frame, cols)
    assert differs >= 1


def test_an_unstratified_pair_sample_fails_the_family_check():
    """Mutant of Wasserstein's pair budget: a simple random sample of pairs. With 2,000
    numeric columns and one categorical, it drops the cat-num family on some seeds, which
    tests/unit/test_fidelity.py's family check refuses."""
    from privacy_core.fidelity import MIN_PAIRS_PER_FAMILY

    n_cols, budget = 2001, 1000
    first, second = np.triu_indices(n_cols, 1)
    counts = [
        int((second[np.random.default_rng([seed, 2]).choice(len(first), budget, replace=False)]
             == n_cols - 1).sum())
        for seed in range(5)
    ]  # fmt: skip
    assert any(c < MIN_PAIRS_PER_FAMILY for c in counts)


# --------------------------------------------------------------- the CART attacker, rpart
def test_a_cart_not_pruned_as_rpart_fails_rparts_leaves():
    """tests/unit/test_rpart.py compares our leaves with R's rpart's. Two plausible wrong
    prunings give other leaves on some of its 16 trees: none (the grown tree) on all 16,
    and scikit-learn's Gini pruning cut to the same number of leaves on 7."""
    from sklearn.tree import DecisionTreeClassifier
    from test_rpart import _partition, _reference_table, _rpart_cases  # tests/unit on sys.path

    from privacy_core.risk.rpart import RpartClassifier

    grown_differs = gini_differs = 0
    for seed, cp, rpart_leaf in _rpart_cases():
        X, y = _reference_table(seed)
        ours = RpartClassifier(cp=cp).fit(X, y)
        assert _partition(ours.representative_[ours.tree.apply(X)]) == _partition(rpart_leaf)
        grown_differs += _partition(ours.tree.apply(X)) != _partition(rpart_leaf)
        sizes = {"min_samples_split": 20, "min_samples_leaf": 7, "max_depth": 30}
        path = DecisionTreeClassifier(random_state=0, **sizes).cost_complexity_pruning_path(X, y)
        for alpha in path.ccp_alphas:  # the least Gini pruning down to our leaf count
            gini = DecisionTreeClassifier(random_state=0, ccp_alpha=alpha, **sizes).fit(X, y)
            if gini.get_n_leaves() <= ours.n_leaves_:
                break
        gini_differs += _partition(gini.apply(X)) != _partition(rpart_leaf)
    assert grown_differs == 16 and gini_differs >= 5, (grown_differs, gini_differs)


# --------------------------------------------------------- the oracle of the released QIs
def test_an_oracle_on_the_continuous_age_or_a_plug_in_fails_the_released_qi_check(
    monkeypatch,
):
    """tests/unit/test_datasets.py checks the released-QI oracle against a quadrature over
    the ages that round to the recorded year. Two plausible wrong oracles fail it: the
    continuous age's probabilities (what the paper study used before), and the logit
    evaluated at the whole year (a plug-in)."""
    from test_datasets import test_the_released_qi_oracle_reads_only_what_the_release_shows

    import privacy_core.datasets as datasets_module

    def continuous(table, parts, kappa):  # the probabilities the data were drawn with
        return datasets_module._simulate_health(len(table), kappa, SEED_OF_CHECK)[1]

    def plug_in(table, parts, kappa):
        age_t = (table["age"].to_numpy(dtype=float) - parts["age_mean"]) / parts["age_sd"]
        return datasets_module._disease_probabilities(age_t, parts["log_i_t"], parts["edu"], kappa)

    test_the_released_qi_oracle_reads_only_what_the_release_shows()  # the correct one passes
    for wrong in (continuous, plug_in):
        monkeypatch.setattr(datasets_module, "_released_age_probabilities", wrong)
        with pytest.raises(AssertionError):
            test_the_released_qi_oracle_reads_only_what_the_release_shows()
        monkeypatch.undo()


SEED_OF_CHECK = 8101  # the seed test_datasets' oracle check draws its tables with


# ------------------------------------------------ sdcMicro's classics read for a release
def _classics_match_the_worked_example() -> dict[str, bool]:
    """Each classic's reading on the worked example against the value computed by hand."""
    from test_sdc_classics import WORKED, worked_readings  # tests/unit on sys.path

    got = worked_readings()
    return {name: bool(np.isclose(got[name], WORKED[name])) for name in WORKED}


def test_the_correct_classics_match_their_worked_example():
    assert all(_classics_match_the_worked_example().values())


def test_sample_uniques_without_their_baseline_fail_the_worked_example(monkeypatch):
    # members' uniques reproduced 1/2, non-members' 1/2: 0 with the baseline, 1/2 without
    monkeypatch.setattr(sdc_module, "relative_reading", lambda pm, po: pm)
    assert not _classics_match_the_worked_example()["sample_uniques"]


def test_k_anonymity_without_the_release_side_k_fails_the_worked_example(monkeypatch):
    def any_reproduction(pool, opts):  # a rare key reproduced counts, in a crowd or not
        return pool.rare, np.ones(len(pool.member)), pool.reproduced

    rule = dataclasses.replace(sdc_pool.SDC_MEASURES["k_anonymity"], select=any_reproduction)
    monkeypatch.setitem(sdc_pool.SDC_MEASURES, "k_anonymity", rule)
    assert not _classics_match_the_worked_example()["k_anonymity"]  # 0, not 1/3


def test_l_diversity_not_requiring_the_value_fails_the_worked_example(monkeypatch):
    def any_homogeneous_group(pool, opts):  # h1's (M,E) holds b alone: counted for a
        hit = pool.reproduced & (pool.l_release < opts.l)
        return pool.l_real < opts.l, np.ones(len(pool.member)), hit

    rule = dataclasses.replace(sdc_pool.SDC_MEASURES["l_diversity"], select=any_homogeneous_group)
    monkeypatch.setitem(sdc_pool.SDC_MEASURES, "l_diversity", rule)
    assert not _classics_match_the_worked_example()["l_diversity"]  # 0, not 1/2


def test_an_interval_that_resamples_a_few_or_unanimous_side_fails_the_small_side_check(
    monkeypatch,
):
    """The percentile bootstrap alone (no posterior draws for a side of few or unanimous
    key groups): three unreproduced holdout targets pin the chance rate at 0 in every
    replicate, and a copy of three rare members pins the members' share at 1. The check
    in test_sdc_classics.py passes on the correct code (test_sdc_classics runs it)."""
    from test_sdc_classics import test_a_side_with_few_or_unanimous_key_groups_keeps_its_uncertainty

    monkeypatch.setattr(sdc_module, "drawn_from_posterior", lambda n_groups, share: False)
    with pytest.raises(AssertionError):
        test_a_side_with_few_or_unanimous_key_groups_keeps_its_uncertainty()
