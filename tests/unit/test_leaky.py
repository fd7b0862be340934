"""The leaky risk model: split, release composition, noise, generator contract, response."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
from privacy_core.errors import InsufficientDataError, ParameterError
from privacy_core.experiments import LEAKY_TOLERANCE, leaky_within, sweep
from privacy_core.synth.leaky import (
    LeakNoise,
    LeakyGenerator,
    leaky_release,
    leaky_sets,
    leaky_split,
)


@pytest.fixture(scope="module")
def canonical() -> tuple[pd.DataFrame, pc.Schema]:
    frame = pc.simulate_health(900, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = pc.infer_schema(frame)
    return pc.prepare_table(frame, schema), schema


def _keys(frame: pd.DataFrame) -> set:
    return set(map(tuple, frame.astype(str).to_numpy()))


def test_split_is_disjoint_and_covers_everything(canonical):
    real, _ = canonical
    parts = leaky_split(real, seed=3)
    idx = [set(p.index) for p in (parts.training, parts.control, parts.pool)]
    assert sum(map(len, idx)) == len(real)
    assert not (idx[0] & idx[1]) and not (idx[0] & idx[2]) and not (idx[1] & idx[2])
    assert len(parts.training) == len(parts.control) == len(parts.pool) == 300
    again = leaky_split(real, seed=3)
    assert again.training.index.equals(parts.training.index)
    assert not leaky_split(real, seed=4).training.index.equals(parts.training.index)


@pytest.mark.parametrize("f_l", [0.0, 0.3, 0.5, 1.0])
def test_release_holds_exactly_the_leak_fraction_of_training_records(canonical, f_l):
    real, schema = canonical
    parts = leaky_split(real, seed=0)
    rel = leaky_release(parts.training, parts.pool, leak_fraction=f_l, schema=schema, seed=1)
    n = len(parts.training)
    assert len(rel.release) == n
    assert rel.n_leaked == round(f_l * n)
    leaked = rel.source == "training"
    # the leaked rows are exact copies of distinct training records, the rest pool rows
    assert len(set(rel.origin[leaked])) == rel.n_leaked
    assert set(rel.origin[leaked]) <= set(parts.training.index)
    assert set(rel.origin[~leaked]) <= set(parts.pool.index)
    pd.testing.assert_frame_equal(
        rel.release[leaked].reset_index(drop=True),
        parts.training.loc[rel.origin[leaked]].reset_index(drop=True),
    )
    if f_l == 1.0:  # the whole training set, shuffled
        assert _keys(rel.release) == _keys(parts.training)
    if f_l == 0.0:
        assert not (_keys(rel.release) & _keys(parts.training))


def test_leaky_sets_returns_training_control_release(canonical):
    real, _ = canonical
    training, control, release = leaky_sets(real, leak_fraction=0.4, seed=5)
    assert len(training) == len(control) == len(release) == 300
    assert not set(training.index) & set(control.index)
    assert len(_keys(release) & _keys(training)) == 120
    again = leaky_sets(real, leak_fraction=0.4, seed=5)[2]
    pd.testing.assert_frame_equal(release, again)


def test_noise_changes_only_the_inserted_records_on_its_scale(canonical):
    real, schema = canonical
    parts = leaky_split(real, seed=0)
    noise = LeakNoise(sigma=0.05, lam=2.0, p=0.5)
    rel = leaky_release(
        parts.training, parts.pool, leak_fraction=0.5, noise=noise, schema=schema, seed=2
    )
    leaked = rel.source == "training"
    orig = parts.training.loc[rel.origin[leaked]].reset_index(drop=True)
    noisy = rel.release[leaked].reset_index(drop=True)
    # float column: Gaussian with SD = sigma x training range
    span = np.ptp(parts.training["income"].to_numpy())
    sd = float((noisy["income"] - orig["income"]).std())
    assert 0.8 * 0.05 * span < sd < 1.2 * 0.05 * span
    # integer column: whole-number shifts ±Poisson(lam): mean 0, variance lam + lam^2 = 6
    shift = (noisy["age"] - orig["age"]).to_numpy()
    assert np.all(shift == np.round(shift))
    assert abs(shift.mean()) < 0.6 and 4.5 < shift.var() < 7.5
    # categorical: about half flipped, always to another level
    flipped = (noisy["education"] != orig["education"]).mean()
    assert 0.4 < flipped < 0.6
    # pool rows untouched
    pool_rows = rel.release[~leaked].reset_index(drop=True)
    pd.testing.assert_frame_equal(
        pool_rows, parts.pool.loc[rel.origin[~leaked]].reset_index(drop=True)
    )


def test_noise_and_leak_fraction_are_validated(canonical):
    real, _ = canonical
    parts = leaky_split(real, seed=0)
    with pytest.raises(ParameterError, match="leak_fraction"):
        leaky_release(parts.training, parts.pool, leak_fraction=1.5)
    with pytest.raises(ParameterError, match="noise.p"):
        LeakNoise(p=2.0)
    with pytest.raises(ParameterError, match="unknown"):
        LeakNoise.coerce({"sigma": 0.1, "rho": 1})
    with pytest.raises(InsufficientDataError, match="pool"):
        leaky_release(parts.training, parts.pool.iloc[:10], leak_fraction=0.0)
    with pytest.raises(ParameterError, match="at least the training share"):
        leaky_split(real, fractions=(0.5, 0.3, 0.2))


def test_leaky_generator_contract(canonical):
    real, _ = canonical
    pool = real.iloc[450:]
    gen = LeakyGenerator(leak_fraction=0.5, pool=pool).fit(real.iloc[:450], seed=0)
    a, b = gen.sample(200, seed=7), gen.sample(200, seed=7)
    pd.testing.assert_frame_equal(a, b)
    assert list(a.columns) == list(real.columns) and len(a) == 200
    assert len(_keys(a) & _keys(real.iloc[:450])) == 100
    # without a pool: half of the data is the leaked-from training half
    gen2 = LeakyGenerator(leak_fraction=1.0).fit(real, seed=1)
    out = gen2.sample(len(gen2.training_index_), seed=0)
    assert _keys(out) == _keys(real.loc[gen2.training_index_])
    assert not set(gen2.training_index_) & set(gen2.pool_index_)


@pytest.fixture(scope="module")
def demo_sweeps():
    """The leaky model on the health demo (1,000 training rows) with the framework's worst
    case (the attacker knows every other column): every measure once, multivariate
    singling out in a second sweep with the same seeds."""
    train, hold, _ = pc.builtin_dataset("health", n=1500)
    real = pd.concat([train, hold], ignore_index=True)
    threat = pc.ThreatModel([c for c in real.columns if c != "disease"], ["disease"])
    kw = dict(
        risk_model="leaky", levels=(0.0, 0.5, 1.0), replicates=2, threat=threat, seed=0, n_jobs=1
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        linear = sweep(
            real,
            measures=["ims", "dcr", "singling_out", "inference", "ml_inference", "linkability"],
            options={"singling_out": {"mode": "univariate"}},
            **kw,
        )
        convex = sweep(real, measures=["singling_out"], **kw)
    return linear, convex


def test_each_measure_reads_the_leak_fraction_within_its_tolerance(demo_sweeps):
    """Every measure, one by one, within its LEAKY_TOLERANCE band of f_l at every level
    (0 on unseen rows, 1 on a copy: a measure without its control baseline reads the raw
    attack success, 0.05-0.6 here, at f_l = 0 and fails).

    Why DCR can track f_l: its score is (p - a) / (1 - a) with p the share of synthetic
    records closer to training than the alpha-th real-to-real percentile and a = alpha /
    100. Copied records have distance 0 (below the percentile), pool records fall below
    it with probability a, so p = f_l + (1 - f_l) a and the score is f_l.
    """
    for result in demo_sweeps:
        summary = result.summary()
        for measure, g in summary.groupby("measure"):
            band = LEAKY_TOLERANCE[result.tolerance_key(measure)]
            ok = leaky_within(g["level"].to_numpy(), g["mean"].to_numpy(), band)
            assert ok.all(), (
                result.tolerance_key(measure),
                band,
                dict(zip(g["level"], g["mean"].round(3), strict=True)),
            )
        resp = result.responses().set_index("measure")
        assert resp["within_tolerance"].all()
        assert resp["rank_correlation"].to_numpy() == pytest.approx(1.0)
    linear, convex = demo_sweeps
    resp = linear.responses().set_index("measure")
    assert resp.loc["ims", "max_gap_to_ideal"] <= 0.05
    # the documented convexity of multivariate singling out: below the line half-way
    mid = convex.summary().set_index("level")["mean"]
    assert mid[0.5] < 0.5 - 0.05 and mid[1.0] >= 0.95


def test_tolerance_band_rejects_a_measure_without_its_control_baseline():
    """The band fails a raw success rate (no control subtraction) at f_l = 0, a reading of
    0.5 on a copy, and a convex curve for a measure documented as linear."""
    levels = np.array([0.0, 0.5, 1.0])
    linear = LEAKY_TOLERANCE["inference"]
    assert leaky_within(levels, np.array([0.0, 0.48, 0.99]), linear).all()
    assert not leaky_within(levels, np.array([0.3, 0.6, 1.0]), linear)[0]
    assert not leaky_within(levels, np.array([0.0, 0.3, 0.5]), linear)[2]
    assert not leaky_within(levels, np.array([0.0, 0.3, 1.0]), linear)[1]
    assert leaky_within(
        levels, np.array([0.0, 0.3, 1.0]), LEAKY_TOLERANCE["singling_out:multivariate"]
    ).all()
