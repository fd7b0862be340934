"""The one verdict policy (privacy_core.scorecard): each reading judged from its interval,
relative readings deciding, uninformative readings never colouring, one verdict and one
sentence per candidate, and the exit status the command line takes from it.

Wrong implementations these catch: reading the point instead of the interval (a point
under the line with an interval over it, or the reverse); letting an uninformative or
context reading colour a card; RAPID's mean of attackers as its headline; an
indicator or a fidelity measure deciding the disclosure verdict."""

import pytest

from privacy_core.scorecard import (
    DEFAULT_THRESHOLDS,
    Threshold,
    candidate_verdict,
    exit_status,
    headline,
    judge,
    measure_readings,
    scorecard,
)

TH = Threshold(0.05, 0.2)


def _m(value, ci=None, **extra):
    return {"value": value, "ci": list(ci) if ci else None, "params": {}, **extra}


def _card(cards, key):
    return next(c for c in cards if c.family.key == key)


@pytest.mark.parametrize(
    "value, ci, status, level",
    [
        (0.03, (0.01, 0.04), "below", "green"),
        # the point is under the amber line but the interval reaches over it
        (0.03, (0.0, 0.12), "inconclusive", "inconclusive"),
        # the point is over the amber line but the interval reaches under it
        (0.10, (0.02, 0.18), "inconclusive", "inconclusive"),
        (0.10, (0.06, 0.15), "above", "amber"),
        (0.30, (0.21, 0.40), "above", "red"),
        # over amber for sure, perhaps over red: amber
        (0.18, (0.10, 0.26), "above", "amber"),
    ],
)
def test_a_reading_is_judged_from_its_interval(value, ci, status, level):
    r = judge("singling_out", value, ci, TH)
    assert (r.status, r.level) == (status, level)


def test_an_interval_straddling_a_line_says_what_would_narrow_it():
    r = judge("singling_out", 0.103, (0.0, 0.215), TH)
    assert r.status == "inconclusive"
    assert "across the amber line 0.05" in r.words and "more attacks" in r.words


def test_a_wide_interval_is_uninformative_and_never_colours_a_card():
    # GTCAP 0.553 [0.175, 0.736]: the red card nobody could explain
    cards = scorecard({"gtcap": _m(0.553, (0.175, 0.736)), "inference": _m(0.01, (0.0, 0.03))})
    card = _card(cards, "attribute")
    gtcap = next(r for r in card.readings if r.measure == "gtcap")
    assert gtcap.status == "uninformative" and not gtcap.decides
    assert card.level == "green" and card.headline.measure == "inference"
    # alone, it leaves the card uninformative, not red
    alone = _card(scorecard({"gtcap": _m(0.553, (0.175, 0.736))}), "attribute")
    assert alone.level == "uninformative"


def test_a_measure_registered_as_uncalibrated_is_uninformative():
    # DOMIAS 0.30 would be red on its point; F_rel -0.764 would be green: neither decides
    card = _card(
        scorecard({"domias": _m(0.30, (0.25, 0.35)), "membership": _m(-0.764, (-0.8, -0.7))}),
        "membership",
    )
    assert card.level == "uninformative"
    assert {r.status for r in card.readings} == {"uninformative"}


def test_a_measure_flagged_by_itself_is_uninformative():
    # DCR on a table with natural duplicates: the score cannot detect copies
    flagged = _m(-0.02, (-0.05, 0.01), uninformative="natural duplicates")
    (r,) = measure_readings("dcr", flagged)
    assert r.status == "uninformative" and "natural duplicates" in r.words


def test_a_failed_calibration_makes_a_measure_uninformative_here():
    cal = {"linkability": {"pass": False}}
    cards = scorecard({"linkability": _m(0.5, (0.4, 0.6))}, calibration=cal)
    assert _card(cards, "linkability").level == "uninformative"
    ok = scorecard(
        {"linkability": _m(0.5, (0.4, 0.6))}, calibration={"linkability": {"pass": True}}
    )
    assert _card(ok, "linkability").level == "red"


def test_the_relative_reading_decides_over_the_absolute_one():
    # RAPID high in absolute terms, nothing beyond non-members: below, with context
    rapid = {
        **_m(0.55, (0.5, 0.6)),
        "headline": {"value": 0.6, "ci": [0.55, 0.65]},
        "difference": {"value": 0.0, "ci": [-0.02, 0.02]},
    }
    v = candidate_verdict({"rapid": rapid})
    assert v.verdict == "below" and v.deciding == ("rapid",)
    # and the other way round: low absolute, members far easier than non-members
    leaky = {**rapid, "difference": {"value": 0.3, "ci": [0.25, 0.35]}}
    assert candidate_verdict({"rapid": leaky}).verdict == "above"


def test_identical_matches_are_read_beyond_their_holdout_baseline():
    # unseen real rows on a register with natural duplicates: IMS 0.151, baseline 0.150
    ims = _m(0.151, (0.145, 0.157), baseline=0.150)
    rel, absolute = measure_readings("ims", ims)
    assert rel.status == "below" and absolute.role == "context"
    assert _card(scorecard({"ims": ims}), "similarity").level == "green"


def test_rapid_headline_is_the_strongest_attacker_not_the_mean():
    rapid = {**_m(0.534, (0.51, 0.55)), "headline": {"value": 0.594, "ci": [0.572, 0.616]}}
    h = headline("rapid", rapid)
    assert (h.value, h.ci) == (0.594, (0.572, 0.616))
    assert headline("singling_out", _m(0.1, (0.0, 0.2), risk_unclipped=-0.03)).estimate == -0.03


def test_indicators_and_fidelity_never_decide_the_verdict():
    metrics = {
        "ims": _m(0.9, (0.85, 0.95)),
        "discriminator": _m(0.95, (0.94, 0.96)),
        "singling_out": _m(0.01, (0.0, 0.03)),
    }
    cards = scorecard(metrics)
    assert _card(cards, "similarity").level == "red" and _card(cards, "fidelity").level == "red"
    v = candidate_verdict(metrics)
    assert v.verdict == "below" and v.deciding == ("singling_out",)
    assert "fresh real sample" in v.sentence


def test_the_candidate_sentence_names_what_decided_it():
    metrics = {
        "singling_out": _m(0.30, (0.22, 0.38)),
        "linkability": _m(0.03, (0.0, 0.12)),
        "domias": _m(0.4, (0.3, 0.5)),
    }
    v = candidate_verdict(metrics)
    assert v.verdict == "above" and v.deciding == ("singling_out",)
    assert "Singling out (at least 0.220, over the red line 0.2)" in v.sentence
    assert "Inconclusive on: Linkability" in v.sentence
    assert "DOMIAS" in v.sentence and v.uninformative == ("DOMIAS",)
    unsure = candidate_verdict({"linkability": _m(0.03, (0.0, 0.12))})
    assert unsure.verdict == "inconclusive" and unsure.deciding == ("linkability",)
    assert candidate_verdict({}).verdict == "inconclusive"


def test_exit_status_follows_the_verdicts():
    below = candidate_verdict({"singling_out": _m(0.01, (0.0, 0.03))})
    unsure = candidate_verdict({"singling_out": _m(0.03, (0.0, 0.12))})
    above = candidate_verdict({"singling_out": _m(0.5, (0.4, 0.6))})
    assert exit_status([below]) == 0
    assert exit_status([below, unsure]) == 4
    assert exit_status([unsure, above, below]) == 3


def test_target_measures_read_their_distance_from_the_target():
    th = DEFAULT_THRESHOLDS["discriminator"]
    # AUC 0.45 [0.38, 0.52]: the distance's interval is [0, 0.12] (0.5 is inside)
    r = judge("discriminator", 0.45, (0.38, 0.52), th)
    assert r.status == "inconclusive"
    assert judge("discriminator", 0.50, (0.47, 0.53), th).status == "below"
    assert judge("discriminator", 0.20, (0.15, 0.25), th).level == "red"


# ------------------------------------------------- measures that cannot tell on this data
def _register(n: int, seed: int):
    """A census-like table: few demographic values, many people sharing all of them."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "sex": rng.choice(["f", "m"], n),
            "age_band": rng.choice(["0-17", "18-39", "40-64", "65+"], n),
            "region": rng.choice(list("ABCD"), n),
            "tenure": rng.choice(["own", "rent"], n),
            "income": rng.choice(["low", "mid", "high"], n),
        }
    )


def test_dcr_says_in_its_json_when_natural_duplicates_blind_it():
    from privacy_core.risk.distance import dcr
    from privacy_core.threat import ThreatModel

    real, hold = _register(800, 1), _register(400, 2)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        threat = ThreatModel(["sex", "age_band", "region", "tenure"], ["income"])
        copy = dcr(real, real.copy(), threat=threat, holdout=hold).to_dict()
    assert "natural duplicates" in copy["uninformative"]
    card = next(c for c in scorecard({"dcr": copy}) if c.family.key == "similarity")
    assert card.level == "uninformative"


def test_linkability_says_when_even_a_copy_could_not_link_anyone():
    import warnings

    from privacy_core.datasets import simulate_health
    from privacy_core.risk.attacks import linkability
    from privacy_core.threat import ThreatModel

    real, hold = simulate_health(800, seed=1), simulate_health(400, seed=2)
    few = ThreatModel(["age", "education", "gender"], ["disease"])
    every = ThreatModel(["age", "education", "gender", "income", "health"], ["disease"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        blind = linkability(real, real, threat=few, holdout=hold)
        sighted = linkability(real, real, threat=every, holdout=hold)
    # the copy's own reading agrees with the ceiling computed from the table alone
    assert blind.extra["copy_ceiling"] < 0.01 and blind.value < 0.05
    assert "uninformative" in blind.to_dict()
    assert sighted.extra["copy_ceiling"] > 0.9 and sighted.value > 0.9
    assert "uninformative" not in sighted.to_dict()


def test_a_failed_calibration_is_read_in_the_mode_the_result_was_computed_in():
    # singling out has no default mode: its summaries are keyed by mode
    metric = _m(0.5, (0.4, 0.6))
    metric["params"] = {"mode": "multivariate", "space": "shared"}
    failed = {"singling_out:multivariate": {"pass": False, "verdict": "fail"}}
    other = {"singling_out:univariate": {"pass": False, "verdict": "fail"}}
    assert _card(scorecard({"singling_out": metric}, calibration=failed), "identity").level == (
        "uninformative"
    )
    assert _card(scorecard({"singling_out": metric}, calibration=other), "identity").level == "red"


def test_every_registered_measure_has_lines_to_be_judged_against():
    # a measure without a default threshold made `review` fail with a KeyError when it
    # was asked for (singling_out_outliers did)
    from privacy_core.measures import MEASURES
    from privacy_core.scorecard import DEFAULT_THRESHOLDS

    assert set(MEASURES) <= set(DEFAULT_THRESHOLDS)


def test_a_discriminator_below_chance_says_why_on_its_card():
    # an AUC of 0.368 is as far from 0.5 as 0.632, but it means near-copies (memorisation)
    from privacy_core.scorecard import scorecard

    def fidelity(auc):
        cards = scorecard({"discriminator": {"value": auc, "ci": [auc - 0.02, auc + 0.02]}})
        return next(c for c in cards if c.family.key == "fidelity")

    below = fidelity(0.368)
    assert "below 0.5" in below.note and "memorisation" in below.note
    assert "memorisation" not in fidelity(0.632).note
    assert "memorisation" not in fidelity(0.49).note  # within the green line: no alarm
