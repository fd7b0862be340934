"""The teaching scenarios at tiny sizes: the numbers move the way the papers say."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
from privacy_core import scenarios as sc
from privacy_core.plots import scenarios as plots

TINY_RAPID = {"releases": 1, "bootstrap": 30, "n_trees": 30}


@pytest.fixture(scope="module")
def dependency() -> sc.DependencyScenario:
    return sc.dependency_scenario(kappas=(0.0, 10.0), n=300, seed=3, **TINY_RAPID)


@pytest.fixture(scope="module")
def leaky() -> sc.LeakyScenario:
    return sc.leaky_scenario(
        levels=(0.0, 0.5, 1.0), n=300, measures=("ims", "dcr", "rapid", "query_error"), seed=1
    )


@pytest.fixture(scope="module")
def similarity() -> sc.SimilarityScenario:
    return sc.similarity_scenario(n=300, copies=15, seed=2)


@pytest.fixture(scope="module")
def price() -> sc.PrivacyPriceScenario:
    return sc.privacy_price_scenario(
        levels=(0.1, 100.0), n=800, measures=("rapid", "query_error"), seed=0
    )


# ------------------------------------------------------------------ (a) dependency
def test_rapid_rises_with_kappa_with_intervals(dependency):
    points = dependency.points.set_index("kappa")
    assert points.loc[10.0, "rapid"] > points.loc[0.0, "rapid"] + 0.25
    assert points.loc[10.0, "accuracy"] > points.loc[0.0, "accuracy"]
    for _, row in points.iterrows():
        assert row["ci_low"] <= row["rapid"] <= row["ci_high"]
    assert dependency.params["kappas"] == [0.0, 10.0] and dependency.seed == 3


def test_a_stricter_tau_flags_fewer_records_without_refitting(dependency):
    loose, strict = dependency.at(10.0, 0.1), dependency.at(10.0, 0.9)
    assert strict["rapid"] <= loose["rapid"]
    assert dependency.at(10.0)["rapid"] == pytest.approx(
        dependency.points.set_index("kappa").loc[10.0, "rapid"]
    )
    with pytest.raises(pc.ParameterError, match="kappa=5"):
        dependency.at(5.0)


def test_dependency_options_are_checked():
    with pytest.raises(pc.ParameterError, match="tau"):
        sc.dependency_scenario(kappas=(1.0,), n=100, tau=0.33)
    with pytest.raises(pc.ParameterError, match="kappa"):
        sc.dependency_scenario(kappas=(-1.0,), n=100)
    with pytest.raises(pc.ParameterError, match="at least one"):
        sc.dependency_scenario(kappas=(), n=100)


def test_population_shows_age_driving_disease_only_at_high_kappa():
    def healthy_gap(kappa: float) -> float:
        shares = sc.dependency_population(kappa=kappa, n=2000, seed=0).shares
        healthy = shares[shares["disease"] == "healthy"].set_index("age_band")["share"]
        return float(healthy.iloc[0] - healthy.iloc[-1])  # youngest minus oldest band

    shares = sc.dependency_population(kappa=3.0, n=500, seed=0).shares
    assert np.allclose(shares.groupby("age_band", observed=True)["share"].sum(), 1.0)
    assert healthy_gap(10.0) > 0.5
    assert abs(healthy_gap(0.0)) < 0.15


# ----------------------------------------------------------------------- (b) leaky
def test_leak_sensitive_measures_rise_with_f_l_and_fidelity_does_not(leaky):
    for f_l in leaky.levels:
        ims = leaky.at(f_l).set_index("measure").loc["ims", "value"]
        assert ims == pytest.approx(f_l, abs=0.05)
    resp = leaky.responses(min_rise=0.2).set_index("measure")
    assert resp.loc["ims", "sees_leak"] and resp.loc["dcr", "sees_leak"]
    assert resp.loc["rapid", "at_highest"] > resp.loc["rapid", "at_lowest"]
    # a release of real rows loses no fidelity: query error cannot see the leak
    assert not resp.loc["query_error", "sees_leak"]
    assert resp.loc["query_error", "rise"] <= 0.02


def test_leaky_at_unknown_level_and_measure_are_errors(leaky):
    with pytest.raises(pc.ParameterError, match="f_l = 0.3"):
        leaky.at(0.3)
    with pytest.raises(pc.ParameterError, match="Unknown measure"):
        sc.leaky_scenario(levels=(0.0,), n=100, measures=("nope",))


def test_same_seed_same_numbers_other_seed_other_numbers():
    def values(seed: int) -> pd.Series:
        res = sc.leaky_scenario(levels=(0.5,), n=150, measures=("ims", "dcr"), seed=seed)
        return res.at(0.5)["value"]

    pd.testing.assert_series_equal(values(4), values(4))
    a = sc.similarity_scenario(n=150, copies=10, seed=4).table
    b = sc.similarity_scenario(n=150, copies=10, seed=4).table
    pd.testing.assert_frame_equal(a, b)
    c = sc.similarity_scenario(n=150, copies=10, seed=5).table
    assert not np.allclose(a["value"], c["value"])


# ------------------------------------------------------------------ (c) similarity
def test_copies_release_is_similar_patterns_release_infers(similarity):
    value = similarity.value
    # release B holds exactly 15 copies among 300 rows; release A copies (almost) nobody
    assert value("copies", "ims") == pytest.approx(15 / 300, abs=0.01)
    assert value("patterns", "ims") <= 0.01
    assert value("copies", "dcr") > value("patterns", "dcr")
    # ... yet RAPID ranks them the other way round
    assert value("patterns", "rapid") > value("copies", "rapid") + 0.3
    assert len(similarity.copied) == 15
    members = similarity.members.set_index("release")
    assert members.loc["patterns", "difference"] == pytest.approx(
        members.loc["patterns", "members"] - members.loc["patterns", "non_members"]
    )
    # most of A's inference risk is the population's: non-members are predicted as well
    assert members.loc["patterns", "non_members"] > 0.5


def test_similarity_refuses_a_release_of_mostly_copies():
    with pytest.raises(pc.ParameterError, match="copies"):
        sc.similarity_scenario(n=100, copies=60)


# ------------------------------------------------------------- (d) privacy price
def test_risk_falls_and_fidelity_loss_grows_as_epsilon_falls(price):
    low, high = (price.at(e).set_index("measure")["value"] for e in (0.1, 100.0))
    assert low["rapid"] < high["rapid"]
    assert low["query_error"] > high["query_error"]
    risk, utility = price.map_results(risk="rapid", utility="query_error")
    assert list(risk) == ["ε = 0.1", "ε = 100"] == list(utility)
    assert risk["ε = 100"].value == pytest.approx(high["rapid"])
    with pytest.raises(pc.ParameterError, match="dcr"):
        price.map_results(risk="dcr", utility="query_error")


# ------------------------------------------------------------------------ figures
def test_figures_are_built_from_the_results(dependency, leaky, similarity, price):
    fig = plots.dependency_curve_figure(dependency, highlight=10.0)
    rapid_line = next(t for t in fig.data if t.name and t.name.startswith("RAPID ("))
    assert list(rapid_line.x) == [0.0, 10.0]
    assert plots.rapid_tau_figure(dependency, kappa=0.0, tau=0.3).data
    snap = plots.measure_snapshot_figure(leaky.at(1.0), level=1.0, level_name="f_l", ideal=True)
    assert len(snap.data[0].y) == 4
    relative = plots.similarity_figure(similarity, reading="relative")
    assert "RAPID: members − non-members" in list(relative.data[0].x)
    with pytest.raises(pc.ParameterError):
        plots.similarity_figure(similarity, reading="both")
    assert plots.privacy_price_map(price).data
    assert plots.leaky_response_figure(leaky, ["ims"]).data
