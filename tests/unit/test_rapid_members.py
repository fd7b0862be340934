"""RAPID on members and non-members (consensus R7): the same fitted attackers score the
training records and holdout records the generator never saw; the difference is what the
release itself discloses beyond the population's patterns."""

import json

import numpy as np
import pytest

import privacy_core as pc
from privacy_core.cli import main

THREAT = pc.ThreatModel(["age", "education", "gender", "income", "health"], ["disease"])
KW = dict(threat=THREAT, attackers=("rf", "xgb"), n_trees=60, bootstrap=200, seed=0)


@pytest.fixture(scope="module")
def population():
    pop = pc.simulate_health(4500, kappa=5, seed=11)
    return pop.iloc[:1500], pop.iloc[1500:3000], pop.iloc[3000:]  # train, holdout, fresh


def test_a_copy_of_the_members_reads_near_one_and_an_unseen_sample_near_zero(population):
    """Calibration contract: the relative difference is ≈ 1 for a full copy of the
    members, ≈ 0 (interval covering 0) for a release drawn from the same population that
    never saw them, and in between for a CART release of the members."""
    train, hold, fresh = population
    copy = pc.rapid(train, train, control=hold, **KW).members_vs_non_members()
    unseen = pc.rapid(train, fresh, control=hold, **KW).members_vs_non_members()
    cart_rel = pc.synthesize(pc.prepare_table(train, pc.infer_schema(train)), method="cart", seed=1)
    cart = pc.rapid(train, cart_rel, control=hold, **KW).members_vs_non_members()
    assert copy["relative"]["value"] > 0.85 and copy["difference"]["ci"][0] > 0.1
    lo, hi = unseen["relative"]["ci"]
    assert lo < 0 < hi and abs(unseen["relative"]["value"]) < 0.12
    assert unseen["difference"]["ci"][0] < 0 < unseen["difference"]["ci"][1]
    assert unseen["relative"]["value"] < cart["relative"]["value"] < copy["relative"]["value"]


def test_members_are_the_plain_rapid_and_non_members_the_same_attackers_on_the_holdout(population):
    train, hold, fresh = population
    with_control = pc.rapid(train, fresh, control=hold, **KW)
    plain = pc.rapid(train, fresh, **KW)
    # adding a control changes nothing about the members' figures
    assert with_control.value == plain.value and with_control.ci == plain.ci
    assert with_control.rate_max == plain.rate_max
    # the control is RAPID of the holdout's records under the members' fits and baseline
    ctrl = with_control.control
    assert len(ctrl.y_true) == len(hold) and ctrl.params["role"].startswith("non-members")
    np.testing.assert_array_equal(ctrl.prevalence, with_control.prevalence)
    gap = with_control.members_vs_non_members()
    a = gap["attacker"]
    assert a == with_control.strongest_attacker
    assert gap["members"]["value"] == with_control.by_attacker[a]["value"]
    assert gap["non_members"]["value"] == ctrl.by_attacker[a]["value"]
    assert gap["difference"]["value"] == pytest.approx(
        gap["members"]["value"] - gap["non_members"]["value"]
    )
    # re-aggregation moves both record sets to the new threshold and score
    moved = with_control.at(0.6, method="nce")
    assert moved.control.threshold == 0.6 and moved.control.params["method"] == "nce"
    again = pc.rapid(train, fresh, control=hold, **{**KW}, tau=0.6, method="nce")
    assert moved.control.value == again.control.value
    assert (
        moved.members_vs_non_members()["difference"] == again.members_vs_non_members()["difference"]
    )
    # without a bootstrap, Newcombe's interval for two independent proportions
    nb = pc.rapid(train, fresh, control=hold, **{**KW, "bootstrap": 0})
    d = nb.members_vs_non_members()["difference"]
    assert d["interval"] == "newcombe" and d["ci"][0] < d["value"] < d["ci"][1]


def test_newcombe_interval_matches_the_published_example():
    """Newcombe (1998), Table II example (a): 56/70 vs 48/80, method 10 gives
    0.0524 to 0.3339."""
    from privacy_core.stats import newcombe_difference_interval

    lo, hi = newcombe_difference_interval(56, 70, 48, 80)
    assert lo == pytest.approx(0.0524, abs=5e-4) and hi == pytest.approx(0.3339, abs=5e-4)


def test_unscorable_holdout_records_are_counted_and_too_few_is_a_clear_error(population):
    train, hold, fresh = population
    odd = hold.copy()
    odd.loc[odd.index[:5], "disease"] = "unknown-class"
    res = pc.rapid(train, fresh, control=odd, **{**KW, "bootstrap": 0})
    assert res.control.params["excluded_holdout_unscorable"] == 5
    assert len(res.control.y_true) == len(hold) - 5
    with pytest.raises(pc.InsufficientDataError, match="holdout table has 8 row"):
        pc.rapid(train, fresh, control=hold.iloc[:8], **KW)
    # 12 rows, 5 of a class the real data never hold: 7 can be scored
    with pytest.raises(pc.InsufficientDataError, match="Only 7 holdout record"):
        pc.rapid(train, fresh, control=odd.iloc[:12], **KW)


def test_cli_rapid_control_adds_members_non_members_and_difference(tmp_path, population, capsys):
    train, hold, fresh = population
    paths = {}
    for name, frame in (("real", train), ("syn", train), ("hold", hold)):
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    out = tmp_path / "r.json"
    code = main(
        [
            "rapid",
            "--real",
            str(paths["real"]),
            "--synthetic",
            str(paths["syn"]),
            "--control",
            str(paths["hold"]),
            "--sensitive",
            "disease",
            "--attackers",
            "xgb",
            "--bootstrap",
            "100",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    rapid = json.loads(out.read_text())["metrics"]["rapid"]
    for key in ("members", "non_members", "difference"):
        assert set(rapid[key]) >= {"value", "ci"}
    assert rapid["difference"]["value"] == pytest.approx(
        rapid["members"]["value"] - rapid["non_members"]["value"]
    )
    assert rapid["members_vs_non_members"]["relative"]["value"] > 0.8  # a copy
    assert "non-members" in capsys.readouterr().out
