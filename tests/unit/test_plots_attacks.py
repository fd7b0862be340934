"""Attack figures keep raw success rates and the normalised risk on separate scales
(issue 13, item 6)."""

import warnings

import pytest

import privacy_core as pc
from privacy_core.errors import UntrustworthyResultWarning
from privacy_core.plots import attack_rates_figure, linkability_neighbors_figure
from privacy_core.results import combine_replicates
from privacy_core.risk.attacks import distance_inference, linkability

THREAT = pc.ThreatModel(["age", "education", "gender", "income", "health"], ["disease"])


@pytest.fixture(scope="module")
def tables():
    return pc.simulate_health(400, seed=21), pc.simulate_health(400, seed=22)


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UntrustworthyResultWarning)
        return fn(*args, **kwargs)


def test_linkability_curve_draws_rates_and_risk_on_separate_axes(tables):
    train, control = tables
    lk = quiet(
        linkability,
        train,
        train.copy(),
        threat=THREAT,
        holdout=control,
        aux_cols=(["age", "education", "income"], ["gender", "health", "disease"]),
        n_attacks=100,
        n_neighbors=3,
        seed=0,
    )
    fig = linkability_neighbors_figure(lk)
    risk = next(t for t in fig.data if t.name.startswith("Normalised risk"))
    rates = [
        t
        for t in fig.data
        if t.name
        in (
            "Attack on training records (members)",
            "Same attack on control records (non-members)",
            "Random guess",
        )
    ]
    assert len(rates) == 3
    assert {t.yaxis for t in rates} == {"y"} and risk.yaxis == "y2"
    assert fig.layout.yaxis.title.text == "Success rate"
    assert fig.layout.yaxis2.title.text == "Normalised risk"


def test_rate_bars_name_the_normalised_risk_only_in_the_hover(tables):
    train, control = tables
    inf = quiet(
        distance_inference,
        train,
        train.copy(),
        threat=THREAT,
        holdout=control,
        n_attacks=100,
        seed=0,
    )
    fig = attack_rates_figure([inf])
    bars = fig.data[0]
    assert bars.y[0] == pytest.approx(inf.extra["attack_rate"])  # a raw rate, not the risk
    assert bars.customdata[0][3] == pytest.approx(inf.value)
    assert "normalised risk" in bars.hovertemplate


def test_combined_releases_keep_the_raw_rates(tables):
    train, control = tables
    runs = [
        quiet(
            distance_inference,
            train,
            train.sample(frac=1.0, random_state=s),
            threat=THREAT,
            holdout=control,
            n_attacks=100,
            seed=s,
        )
        for s in (0, 1)
    ]
    both = combine_replicates(runs)
    for key in ("attack_rate", "control_rate", "baseline_rate"):
        assert both.extra[key] == pytest.approx(sum(r.extra[key] for r in runs) / 2)
