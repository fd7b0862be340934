"""Built-in data: the RAPID paper's simulation (Appendix A) and UCI Adult."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.integrate import quad
from scipy.stats import norm, truncnorm
from sklearn.metrics import mutual_info_score

from privacy_core import (
    DataLoadError,
    ParameterError,
    builtin_dataset,
    load_adult,
    simulate_health,
    simulate_health_probabilities,
)
from privacy_core.datasets import (
    ADULT_COLUMNS,
    ADULT_DEFAULT_THREAT,
    HEALTH_COLUMNS,
    HEALTH_DEFAULT_THREAT,
    _simulate_health,
)


# --------------------------------------------------------------------- simulation
def test_same_seed_same_table_other_seed_other_table():
    a = simulate_health(200, kappa=2.0, seed=5)
    pd.testing.assert_frame_equal(a, simulate_health(200, kappa=2.0, seed=5))
    b = simulate_health(200, kappa=2.0, seed=6)
    assert not a["income"].equals(b["income"])
    assert not a["disease"].equals(b["disease"])


def test_columns_types_and_ranges(make_health):
    d = make_health(2000, 1.0, 0)
    assert tuple(d.columns) == HEALTH_COLUMNS
    assert len(d) == 2000
    assert d["age"].dtype == np.int64
    assert d["age"].between(18, 85).all()
    assert ((d["health"] > 0) & (d["health"] < 100)).all()
    assert (d["income"] > 0).all()
    assert set(d["gender"]) == {"female", "male"}
    assert set(d["education"]) == {"low", "medium", "high"}
    assert set(d["disease"]) == {"healthy", "diabetic", "hypertensive"}
    assert d.notna().all().all()


def test_age_follows_the_truncated_normal():
    d = simulate_health(4000, kappa=1.0, seed=1)
    a, b = (18 - 45) / 12, (85 - 45) / 12
    mean, sd = truncnorm.mean(a, b, loc=45, scale=12), truncnorm.std(a, b, loc=45, scale=12)
    assert abs(d["age"].mean() - mean) < 4 * sd / np.sqrt(4000)
    assert abs(d["age"].std() - sd) < 0.5


def test_marginals_without_dependence():
    # At kappa = 0 the latent variables are pure N(0, 1) noise, so the marginals are known
    # exactly: education cut at -0.3 and 0.7, income exp(10 + N(0,1)), health 100 sigmoid,
    # gender 50/50, disease from the intercepts alone.
    n = 6000
    d = simulate_health(n, kappa=0.0, seed=2)
    tol = 4 * np.sqrt(0.25 / n)  # four standard errors of a share at worst
    shares = d["education"].value_counts(normalize=True)
    assert shares["low"] == pytest.approx(norm.cdf(-0.3), abs=tol)
    assert shares["medium"] == pytest.approx(norm.cdf(0.7) - norm.cdf(-0.3), abs=tol)
    assert shares["high"] == pytest.approx(1 - norm.cdf(0.7), abs=tol)
    assert (d["gender"] == "male").mean() == pytest.approx(0.5, abs=tol)
    assert (np.log(d["income"]) > 10).mean() == pytest.approx(0.5, abs=tol)
    assert (d["health"] > 50).mean() == pytest.approx(0.5, abs=tol)
    denom = 1 + np.exp(-1.5) + np.exp(-1.3)
    disease = d["disease"].value_counts(normalize=True)
    assert disease["healthy"] == pytest.approx(1 / denom, abs=tol)
    assert disease["diabetic"] == pytest.approx(np.exp(-1.5) / denom, abs=tol)
    assert disease["hypertensive"] == pytest.approx(np.exp(-1.3) / denom, abs=tol)


def _age_disease(kappa: float) -> tuple[float, float]:
    d = simulate_health(2000, kappa=kappa, seed=0)
    quartile = pd.qcut(d["age"], 4, labels=False, duplicates="drop")
    healthy_oldest = float((d.loc[quartile == quartile.max(), "disease"] == "healthy").mean())
    return healthy_oldest, float(mutual_info_score(quartile, d["disease"]))


def test_dependence_rises_with_kappa():
    healthy, info = zip(*(_age_disease(k) for k in (0, 1, 5, 10)), strict=True)
    # The oldest are less and less often healthy; age tells more and more about disease.
    assert all(a > b for a, b in zip(healthy, healthy[1:], strict=False))
    assert all(a < b for a, b in zip(info, info[1:], strict=False))
    assert info[0] < 0.01 and info[3] > 0.3
    assert healthy[0] > 0.6 and healthy[3] < 0.05


def test_health_falls_with_age_when_dependent():
    d = simulate_health(2000, kappa=5.0, seed=0)
    assert np.corrcoef(d["age"], d["health"])[0, 1] < -0.3
    d0 = simulate_health(2000, kappa=0.0, seed=0)
    assert abs(np.corrcoef(d0["age"], d0["health"])[0, 1]) < 0.1


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"n": 0}, "n"), ({"n": 2.5}, "n"), ({"kappa": -1.0}, "kappa"), ({"seed": -1}, "seed")],
)
def test_simulation_rejects_bad_arguments(kwargs, name):
    args = {"n": 10, **kwargs}
    with pytest.raises(ParameterError, match=f"`{name}`"):
        simulate_health(args.pop("n"), **args)


# --------------------------------------------------------------------- UCI Adult
@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return load_adult()


def test_adult_shape_and_labels(adult):
    assert adult.shape == (48_842, 15)
    assert tuple(adult.columns) == ADULT_COLUMNS
    assert set(adult["income"]) == {"<=50K", ">50K"}  # no trailing dots from adult.test
    assert (adult["income"] == ">50K").sum() == 11_687


def test_adult_cells_are_clean(adult):
    assert adult["workclass"].isna().sum() > 0  # "?" is missing
    assert "State-gov" in set(adult["workclass"].dropna())  # no leading space
    assert not adult["occupation"].dropna().str.startswith(" ").any()
    assert pd.api.types.is_integer_dtype(adult["age"])
    assert adult["age"].between(17, 90).all()


# --------------------------------------------------------------------- splits
def test_builtin_health_split():
    train, holdout, threat = builtin_dataset("health", n=150, kappa=2.0, seed=4)
    assert len(train) == len(holdout) == 150
    pd.testing.assert_frame_equal(train, simulate_health(150, kappa=2.0, seed=4))
    assert not train["income"].isin(holdout["income"]).all()  # an independent draw
    assert threat == HEALTH_DEFAULT_THREAT
    assert set(threat["quasi_identifiers"]) | set(threat["sensitive"]) <= set(train.columns)


def test_builtin_adult_split_covers_every_row(adult):
    train, holdout, threat = builtin_dataset("adult", seed=0)
    assert (len(train), len(holdout)) == (39_073, 9_769)
    both = pd.concat([train, holdout], ignore_index=True)
    cols = list(ADULT_COLUMNS)
    pd.testing.assert_frame_equal(
        both.sort_values(cols).reset_index(drop=True),
        adult.sort_values(cols).reset_index(drop=True),
    )
    assert threat == ADULT_DEFAULT_THREAT


def test_builtin_adult_subsample_is_seeded():
    train, holdout, _ = builtin_dataset("adult", n=400, seed=1)
    assert (len(train), len(holdout)) == (400, 100)
    again, _, _ = builtin_dataset("adult", n=400, seed=1)
    other, _, _ = builtin_dataset("adult", n=400, seed=2)
    pd.testing.assert_frame_equal(train, again)
    assert not train["fnlwgt"].equals(other["fnlwgt"])


def test_builtin_unknown_name():
    with pytest.raises(DataLoadError, match="'census'.*'health' or 'adult'"):
        builtin_dataset("census")


def test_the_released_qi_oracle_reads_only_what_the_release_shows():
    """The Bayes oracle of an attacker who sees the released columns (age in whole years):
    equal to the continuous-age oracle where age does not matter (κ 0); knowing less, less
    sure for κ > 0 (its expected accuracy, the mean top probability, is lower; the oracle
    on the continuous age, the earlier and wrong one for this purpose, fails that); and
    equal to an independent quadrature of the logit over the ages that round to the
    recorded year (a plug-in at the whole year differs by up to 0.009 at κ 20)."""
    n, seed = 5000, 8101
    for kappa in (0.0, 5.0, 20.0):
        cont = simulate_health_probabilities(n, kappa=kappa, seed=seed)
        rel = simulate_health_probabilities(n, kappa=kappa, seed=seed, released=True)
        assert rel.shape == (n, 3) and np.allclose(rel.sum(axis=1), 1)
        if kappa == 0:
            assert np.allclose(rel, cont)
        else:
            assert rel.max(axis=1).mean() < cont.max(axis=1).mean()
    table, _, parts = _simulate_health(n, 20.0, seed)
    rel = simulate_health_probabilities(n, kappa=20.0, seed=seed, released=True)
    mu, sd, lo, hi = 45.0, 12.0, 18.0, 85.0
    for i in range(0, n, 250):
        year = float(table["age"].iloc[i])

        def p_diabetic(age: float, i: int = i) -> float:
            t = (age - parts["age_mean"]) / parts["age_sd"]
            e_d = -1.5 + 20 * (0.8 * t - 0.3 * parts["log_i_t"][i] - 0.2 * parts["edu"][i])
            e_h = -1.3 + 20 * (1.0 * t - 0.2 * parts["log_i_t"][i] - 0.1 * parts["edu"][i])
            return float(np.exp(e_d) / (1 + np.exp(e_d) + np.exp(e_h))) * norm.pdf(age, mu, sd)

        a, b = max(year - 0.5, lo), min(year + 0.5, hi)
        expected = quad(p_diabetic, a, b)[0] / (norm.cdf(b, mu, sd) - norm.cdf(a, mu, sd))
        assert rel[i, 0] == pytest.approx(expected, abs=2e-4), (i, year)
