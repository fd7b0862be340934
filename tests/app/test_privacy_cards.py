"""The text under a measure's headline (ui.privacy.card_text), the caption under
sdcMicro's counts (ui.privacy.sdc_caption) and the RAPID reference reading
(ui.evaluations.reference_reading): issue 13, items 6, 7 and 13. The Privacy page's own
AppTest (test_privacy_page.py) checks that the demo shows every sdcMicro card."""

from types import SimpleNamespace

import pandas as pd
import pytest

from privacy_core.results import MetricResult
from ui.evaluations import reference_reading
from ui.privacy import UNINFORMATIVE_WIDTH, card_text, sdc_caption, uninformative_note


def attack(value=0.032, ci=(0.0, 0.098), control=0.544):
    extra = {"attack_rate": 0.559, "control_rate": control, "baseline_rate": 0.506}
    return MetricResult(
        name="inference", value=value, ci=ci, params={}, baseline=0.506, extra=extra
    )


def test_attack_card_puts_raw_rates_together_and_explains_the_normalised_risk():
    text = card_text("inference", attack())
    assert text.interval == "95% CI 0.000 – 0.098"
    assert text.rates == (
        "Success rates: attack 0.559 · control (non-members) 0.544 · random guess 0.506"
    )
    assert text.risk_note.startswith(
        "The headline 0.032 is the normalised risk (attack − control) / (1 − control)"
    )
    assert text.baseline is None  # the raw guess rate is never set next to the risk
    assert text.uninformative is None


def test_attack_without_control_says_the_headline_is_the_raw_rate():
    res = attack(value=0.559, ci=(0.53, 0.58), control=None)
    text = card_text("inference", res)
    assert "control" not in text.rates
    assert "raw success rate" in text.risk_note


def test_non_attack_keeps_its_same_scale_baseline():
    res = MetricResult(name="ims", value=0.093, ci=(0.081, 0.107), params={}, baseline=0.0)
    text = card_text("ims", res)
    assert text.baseline == "baseline 0.000" and text.rates is None


def test_an_sdc_card_says_how_many_targets_each_side_rests_on():
    """A baseline of 0 from six holdout targets is thin evidence; the card says so (a
    card showing only "baseline 0.000" hides it)."""
    extra = {
        "p_members": 0.351,
        "n_member_targets": 1111,
        "p_non_members": 0.0,
        "n_non_member_targets": 6,
    }
    res = MetricResult(
        name="k_anonymity", value=0.351, ci=(0.05, 0.45), params={}, baseline=0.0, extra=extra
    )
    text = card_text("k_anonymity", res)
    assert text.baseline == (
        "baseline 0.000 · members' share 0.351 of 1,111 targets, baseline from 6 holdout targets"
    )


@pytest.mark.parametrize("name", ["ims", "dcr", "domias", "inference", "gtcap"])
def test_any_interval_wider_than_half_the_range_is_flagged(name):
    wide = MetricResult(name=name, value=0.4, ci=(0.1, 0.1 + UNINFORMATIVE_WIDTH + 0.01), params={})
    narrow = MetricResult(
        name=name, value=0.4, ci=(0.1, 0.1 + UNINFORMATIVE_WIDTH - 0.01), params={}
    )
    note = uninformative_note(name, wide)
    assert note.startswith("**Uninformative interval:**") and "narrow" in note
    assert uninformative_note(name, narrow) is None
    assert card_text(name, wide).uninformative == note


def test_the_width_is_read_against_the_measures_own_range():
    # membership's F_rel runs from -2 to 1: a 1.0-wide interval is a third of it
    res = MetricResult(name="membership", value=0.0, ci=(-0.5, 0.5), params={}, bounds=(-2.0, 1.0))
    assert uninformative_note("membership", res) is None
    assert uninformative_note(
        "membership",
        MetricResult(name="membership", value=0.0, ci=(-1.5, 0.5), params={}, bounds=(-2.0, 1.0)),
    )


def test_gtcap_reason_names_the_few_attributions_and_what_narrows_them():
    res = MetricResult(
        name="gtcap", value=0.639, ci=(0.0, 1.0), params={"radius": 0.1}, extra={"n_kept": 2}
    )
    object.__setattr__(
        res,
        "attributions",
        pd.DataFrame({"source": ["training"] * 3 + ["holdout"] * 2, "matches": [4, 4, 4, 6, 7]}),
    )
    note = uninformative_note("gtcap", res)
    assert "0.000 – 1.000 spans 100%" in note
    assert "only 2 synthetic record(s) pass the WEAP filter" in note
    assert "12 training and 13 holdout" in note
    assert "smaller matching radius" in note and "more training and holdout rows" in note


def rapid_like(value, ci=None):
    """A result whose headline (strongest attacker) is ``value``; the mean differs on
    purpose, so a reading of the mean would fail the assertions below."""
    return SimpleNamespace(rate_max=value, ci_max=ci, value=value - 0.2, ci=None)


def test_reference_reading_within_below_and_above_half():
    half, copy = rapid_like(0.377, (0.359, 0.395)), rapid_like(0.374, (0.357, 0.393))
    below = reference_reading(rapid_like(0.341), half, copy)
    assert (
        below.startswith("**This release discloses no more than a fresh real sample would**")
        and "below HALF's interval" in below
    )
    within = reference_reading(rapid_like(0.38), half, copy)
    assert "no more than a fresh real sample" in within and "within HALF's interval" in within
    above = reference_reading(rapid_like(0.5), half, rapid_like(0.7, (0.68, 0.72)))
    assert above.startswith("**This release discloses more than a fresh real sample would**")
    assert "0.123 above HALF (0.105 above the upper end" in above
    assert "38% of the way from a fresh sample to a copy" in above


@pytest.mark.filterwarnings("ignore::privacy_core.UnseenCategoryWarning")
def test_sdc_caption_counts_what_each_classic_found_disclosed_members_beside_holdout():
    """On the worked example of tests/unit/test_sdc_classics.py (its tables, copied):
    k-anonymity singles out t4 of the three rare training records and none of the three
    holdout ones; l-diversity pins t4 of two and none of two. A caption that counted
    reproductions (not hits) would say 2 of 3 and 2 of 3 holdout ones."""
    import privacy_core as pc

    train = pd.DataFrame({"sex": list("FFFMMF"), "region": list("NNNNSS"), "dx": list("abaabc")})
    hold = pd.DataFrame({"sex": list("MMFF"), "region": list("NEEN"), "dx": list("baca")})
    release = pd.DataFrame(
        {"sex": list("MMMMMMMF"), "region": list("NNNSEEEN"), "dx": list("aaabbbba")}
    )
    threat = pc.ThreatModel(["sex", "region"], ["dx"])

    k_res = pc.k_anonymity(train, release, threat=threat, holdout=hold)
    text = sdc_caption("k_anonymity", k_res)
    assert "1 of the 3 training records violating 3-anonymity are singled out" in text
    assert "0 of the 3 holdout ones" in text and text.startswith("The real table's global")
    l_res = pc.l_diversity(train, release, threat=threat, holdout=hold)
    assert "1 of the 2 training records in key groups that are not 2-diverse" in sdc_caption(
        "l_diversity", l_res
    )
    # the two older measures keep their counts of reproduced rare keys
    old = sdc_caption("reproduced_uniques", pc.reproduced_uniques(train, release, threat=threat))
    assert "rare training records' keys" in old and "holdout" not in old


def test_each_measures_card_is_handed_over_as_soon_as_it_ends(monkeypatch):
    """The Privacy page shows a measure's card when its computation ends, before the next
    starts (issue 33): run_measures hands each result to ``on_result`` between the
    computations. Catches results handed over only after the whole loop (the page would
    stay blank until every measure had ended)."""
    import ui.privacy as privacy
    from ui.demo import builtin_workspace

    ws = builtin_workspace("health", n=300, kappa=1.0, seed=0)
    events: list[str] = []

    def run_now(key, label, compute):
        events.append(f"start {label}")
        return compute(lambda *_: None)

    monkeypatch.setattr(privacy, "run_cached", run_now)
    monkeypatch.setattr(privacy, "cached_result", lambda key: None)
    params = {**privacy.privacy_params(ws), "seed": 0}
    names = ["ims", "dcr"]
    out = privacy.run_measures(ws, names, params, on_result=lambda n, r: events.append(f"done {n}"))
    labels = [privacy.MEASURES[n].label for n in names]
    assert events == [f"start {labels[0]}", "done ims", f"start {labels[1]}", "done dcr"]
    assert set(out) == set(names)
