"""Built-in generators: one contract, and what each baseline is meant to be."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ks_2samp

from privacy_core import (
    GENERATORS,
    MISSING,
    InsufficientDataError,
    ParameterError,
    conform_table,
    infer_schema,
    make_generator,
    prepare_table,
    synthesize,
)
from privacy_core.synth import CartGenerator, HalfGenerator, half_split

METHODS = sorted(GENERATORS)


def _row_keys(frame: pd.DataFrame) -> np.ndarray:
    return pd.util.hash_pandas_object(frame, index=False).to_numpy()


def _copied_share(synthetic: pd.DataFrame, real: pd.DataFrame) -> float:
    """Share of synthetic rows identical to some real row."""
    return float(np.isin(_row_keys(synthetic), _row_keys(real)).mean())


def test_registry():
    assert METHODS == [
        "autoregressive",
        "cart",
        "dp-independent",
        "dp-mst",
        "half",
        "histogram",
        "leaky",
        "self",
    ]


@pytest.mark.parametrize("method", METHODS)
def test_contract(method, health_canonical, health_schema):
    out = synthesize(health_canonical, method=method, n=123, seed=3)
    assert list(out.columns) == list(health_canonical.columns)
    assert len(out) == 123
    pd.testing.assert_index_equal(out.index, pd.RangeIndex(123))
    for col in health_schema.numeric:
        assert out[col].dtype == np.float64
    for col in health_schema.categorical:
        assert out[col].dtype == object
        assert all(isinstance(v, str) for v in out[col])
    # A release from a built-in generator always passes the review's schema check.
    pd.testing.assert_frame_equal(conform_table(out, health_schema), out)


@pytest.mark.parametrize("method", METHODS)
def test_seeded(method, health_canonical):
    a = synthesize(health_canonical, method=method, n=150, seed=11)
    pd.testing.assert_frame_equal(a, synthesize(health_canonical, method=method, n=150, seed=11))
    b = synthesize(health_canonical, method=method, n=150, seed=12)
    assert not a.equals(b)


@pytest.mark.parametrize("method", METHODS)
def test_fit_once_sample_many(method, health_canonical):
    gen = make_generator(method).fit(health_canonical, seed=0)
    first = gen.sample(80, seed=1)
    gen.sample(200, seed=2)
    pd.testing.assert_frame_equal(gen.sample(80, seed=1), first)
    assert gen.params()["method"] == method


@pytest.mark.parametrize("method", METHODS)
def test_row_order_of_the_input_does_not_matter_for_fitting(method, health_canonical):
    shuffled = health_canonical.sample(frac=1.0, random_state=0)
    out = synthesize(shuffled, method=method, n=50, seed=0)
    assert len(out) == 50 and list(out.columns) == list(health_canonical.columns)


def test_self_returns_the_real_data(health_canonical):
    out = synthesize(health_canonical, method="self", seed=5)
    pd.testing.assert_frame_equal(out, health_canonical.reset_index(drop=True))
    assert (
        _copied_share(synthesize(health_canonical, method="self", n=40, seed=5), health_canonical)
        == 1.0
    )


def test_half_defaults_to_its_half_without_replacement(health_canonical):
    # Du & Li §7.2: HALF is one of two equal halves, each real row once.
    out = synthesize(health_canonical, method="half", seed=4)
    assert len(out) == len(health_canonical) // 2
    assert len(np.unique(_row_keys(out))) == len(out)
    reference, release = half_split(health_canonical, seed=4)
    pd.testing.assert_frame_equal(out, release)
    # the two halves are disjoint and together the whole table
    real_keys = _row_keys(health_canonical.reset_index(drop=True))
    assert not np.isin(_row_keys(reference), _row_keys(release)).any()
    assert sorted(np.r_[_row_keys(reference), _row_keys(release)]) == sorted(real_keys)
    # more rows than the half can only repeat rows
    assert len(synthesize(health_canonical, method="half", n=200, seed=4)) == 200
    assert make_generator("cart").fit(health_canonical, seed=0).default_size() == len(
        health_canonical
    )


def test_half_draws_from_one_half_only(health_canonical):
    gen = HalfGenerator().fit(health_canonical, seed=4)
    half_index = np.setdiff1d(np.arange(len(health_canonical)), gen.other_half_index_)
    assert len(half_index) == 150 and len(gen.other_half_index_) == 150
    out = gen.sample(150, seed=0)
    keys = _row_keys(health_canonical.reset_index(drop=True))
    positions = {k: i for i, k in enumerate(keys)}
    rows = np.array([positions[k] for k in _row_keys(out)])  # KeyError if not a real row
    assert np.isin(rows, half_index).all()
    assert len(np.unique(rows)) == 150  # the whole half, each row once
    # Another seed picks another half.
    other = HalfGenerator().fit(health_canonical, seed=5)
    assert not np.array_equal(other.other_half_index_, gen.other_half_index_)


def test_histogram_breaks_dependence_but_keeps_marginals(make_health):
    raw = make_health(2000, 5.0, 0)
    real = prepare_table(raw, infer_schema(raw))
    out = synthesize(real, method="histogram", seed=0)
    assert np.corrcoef(real["age"], real["health"])[0, 1] < -0.3
    assert abs(np.corrcoef(out["age"], out["health"])[0, 1]) < 0.06
    crosstab = pd.crosstab(out["education"], out["disease"], normalize=True)
    independent = np.outer(crosstab.sum(axis=1), crosstab.sum(axis=0))
    assert np.abs(crosstab.to_numpy() - independent).max() < 0.02
    for col in ("age", "income", "health"):
        assert ks_2samp(real[col], out[col]).statistic < 0.06
    for col in ("gender", "education", "disease"):
        shares = real[col].value_counts(normalize=True)
        drawn = out[col].value_counts(normalize=True).reindex(shares.index, fill_value=0)
        assert np.abs(shares - drawn).max() < 0.03


def test_histogram_keeps_integers_integral(health_canonical):
    out = synthesize(health_canonical, method="histogram", seed=0)
    assert np.array_equal(out["age"], np.round(out["age"]))
    assert out["age"].between(health_canonical["age"].min(), health_canonical["age"].max()).all()


def test_cart_leaf_size_controls_copying(health_canonical):
    def share(min_leaf: int) -> float:
        return np.mean(
            [
                _copied_share(
                    synthesize(health_canonical, method="cart", seed=s, min_leaf=min_leaf),
                    health_canonical,
                )
                for s in range(3)
            ]
        )

    tiny, default, large = share(1), share(5), share(50)
    assert tiny > 0.9  # one donor per leaf: records are copied whole
    assert tiny > default >= large
    assert large < 0.05


def test_cart_values_come_from_real_donors(health_canonical):
    out = synthesize(health_canonical, method="cart", n=500, seed=2, min_leaf=10)
    for col in health_canonical.columns:
        assert set(out[col]) <= set(health_canonical[col]), col


def test_cart_keeps_dependence(make_health):
    raw = make_health(1000, 5.0, 0)
    real = prepare_table(raw, infer_schema(raw))
    out = synthesize(real, method="cart", seed=0)
    assert np.corrcoef(out["age"], out["health"])[0, 1] < -0.3


def test_missing_values_survive(health_real):
    rng = np.random.default_rng(0)
    raw = health_real.copy()
    raw.loc[rng.random(len(raw)) < 0.2, "education"] = None
    raw.loc[rng.random(len(raw)) < 0.2, "income"] = np.nan
    real = prepare_table(raw, infer_schema(raw))
    for method in METHODS:
        out = synthesize(real, method=method, seed=1)
        assert 0.08 < (out["education"] == MISSING).mean() < 0.35, method
        assert 0.08 < out["income"].isna().mean() < 0.35, method
        assert out["education"].isna().sum() == 0, method


@pytest.mark.parametrize("method", METHODS)
def test_column_missing_everywhere_in_a_training_split(method):
    real = pd.DataFrame({"c": list("xyxyxyxyxy"), "gap": [np.nan] * 10, "v": np.arange(10.0)})
    out = synthesize(real, method=method, n=6, seed=0)
    assert out["gap"].isna().all() and len(out) == 6


def test_cart_parameters():
    assert CartGenerator(min_leaf=7).params() == {
        "method": "cart",
        "min_leaf": 7,
        "max_depth": None,
    }
    with pytest.raises(ParameterError, match="min_leaf"):
        CartGenerator(min_leaf=0)


def test_generator_errors(health_canonical):
    with pytest.raises(ParameterError, match="'gan'.*cart"):
        make_generator("gan")
    with pytest.raises(InsufficientDataError, match="at least 2 real rows"):
        make_generator("cart").fit(health_canonical.head(1))
    with pytest.raises(RuntimeError, match="before fit"):
        make_generator("histogram").sample(10)
    gen = make_generator("histogram").fit(health_canonical)
    with pytest.raises(ParameterError, match="`n`"):
        gen.sample(0)
    with pytest.raises(ParameterError, match="`seed`"):
        gen.sample(10, seed=-3)
