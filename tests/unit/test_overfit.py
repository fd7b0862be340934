"""The overfitting risk model: tokens, training curve, checkpoints at f_o · L*, response."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
from privacy_core.errors import ParameterError
from privacy_core.experiments import sweep
from privacy_core.synth.autoregressive import AutoregressiveGenerator, _Tokenizer


@pytest.fixture(scope="module")
def data() -> tuple[pd.DataFrame, pd.DataFrame, pc.Schema]:
    frame = pc.simulate_health(900, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = pc.infer_schema(frame)
    real = pc.prepare_table(frame, schema)
    return real.iloc[:600], real.iloc[600:], schema


@pytest.fixture(scope="module")
def overfit(data) -> AutoregressiveGenerator:
    train, valid, _ = data
    calls: list[dict] = []
    # twice the default overfitting learning rate: the levels are reached in half the
    # evaluations (97 instead of 189 here; each checkpoint still within 0.6 % of its
    # target ratio), and the overfitting phase is most of this fixture's time
    gen = AutoregressiveGenerator(
        overfit_levels=(1.2, 1.5, 2.0), max_overfit_epochs=80, overfit_lr=4e-3
    )
    gen.fit(train, validation=valid, seed=0, on_epoch=calls.append)
    gen.calls_ = calls  # type: ignore[attr-defined]
    return gen


def test_tokens_round_trip_training_values(data):
    train, _, schema = data
    tok = _Tokenizer(schema, max_levels=128, fine_size=32, n_bins=32, exact_values=True)
    tok.fit(train)
    kinds = {c.name: c.kind for c in tok.codecs}
    assert kinds == {
        "gender": "cat",
        "age": "exact",
        "education": "cat",
        "income": "two",
        "health": "two",
        "disease": "cat",
    }
    back = tok.decode(tok.encode(train), np.random.default_rng(0))
    pd.testing.assert_frame_equal(
        back.reset_index(drop=True).astype(train.dtypes.to_dict()),
        train.reset_index(drop=True),
        check_dtype=False,
    )


def test_binned_tokens_decode_inside_their_bin(data):
    train, _, schema = data
    tok = _Tokenizer(schema, max_levels=128, fine_size=32, n_bins=8, exact_values=False)
    tok.fit(train)
    codes = tok.encode(train)
    back = tok.decode(codes, np.random.default_rng(0))
    edges = next(c for c in tok.codecs if c.name == "income").values
    b = codes[:, 3]  # gender, age, education, income
    x = back["income"].to_numpy()
    assert np.all((x >= edges[b]) & (x <= edges[b + 1]))
    assert not np.isin(x, train["income"].to_numpy()).all()  # drawn, not copied


def test_checkpoints_hit_their_target_ratios(overfit):
    curve = overfit.curve
    assert curve.checkpoint(1.0).reached and curve.checkpoint(1.0).ratio == pytest.approx(1.0)
    for f in (1.2, 1.5, 2.0):
        c = curve.checkpoint(f)
        assert c.reached
        assert f <= c.ratio <= 1.05 * f, (f, c.ratio)
    epochs = [curve.checkpoint(f).epoch for f in (1.0, 1.2, 1.5, 2.0)]
    assert epochs == sorted(epochs) and len(set(epochs)) == 4
    assert curve.unreached == []
    with pytest.raises(ParameterError, match="No checkpoint"):
        overfit.sample(10, level=1.3)


def test_a_level_beyond_the_budget_is_reported_not_faked(data):
    train, valid, _ = data
    gen = AutoregressiveGenerator(
        overfit_levels=(50.0,), max_overfit_epochs=2, hidden=32, max_epochs=10
    )
    gen.fit(train, validation=valid, seed=0)
    far = gen.curve.checkpoint(50.0)
    assert not far.reached and far.val_loss is None and np.isnan(far.ratio)
    assert gen.curve.unreached == [50.0]
    # 2 epochs x 10 steps (600 rows / batches of 64), an evaluation every 10 // 4 = 2 steps
    assert gen.curve.history["phase"].eq("overfit").sum() == 10
    with pytest.raises(ParameterError, match="not reached"):
        gen.sample(10, level=50.0)


def test_training_curve_is_recorded_and_reported(overfit):
    h = overfit.curve.history
    assert list(h.columns) == ["epoch", "phase", "train_loss", "val_loss", "ratio"]
    assert set(h["phase"]) == {"fit", "overfit"}
    assert len(overfit.calls_) == len(h)  # one callback per evaluation
    fit = h[h["phase"] == "fit"]
    assert fit["val_loss"].min() == pytest.approx(overfit.curve.best_loss)
    over = h[h["phase"] == "overfit"]
    # without regularisation the model memorises: training loss falls, validation rises
    assert over["train_loss"].iloc[-1] < fit["train_loss"].min()
    assert over["val_loss"].iloc[-1] > 1.9 * overfit.curve.best_loss


def test_sampling_is_seeded_and_canonical(overfit, data):
    train, _, _ = data
    a = overfit.sample(300, seed=5, level=2.0)
    b = overfit.sample(300, seed=5, level=2.0)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(overfit.sample(300, seed=6, level=2.0))
    assert list(a.columns) == list(train.columns)
    assert a["income"].dtype == np.float64 and a["gender"].dtype == object
    assert set(a["education"]) <= set(train["education"])


def test_same_seed_same_training(data):
    train, valid, _ = data
    # a short fit phase (the default's is up to 200 epochs): the same seed must give the
    # same curve whatever its length
    kw = {"overfit_levels": (1.05,), "max_overfit_epochs": 5, "hidden": 64, "max_epochs": 10}
    g1 = AutoregressiveGenerator(**kw).fit(train, validation=valid, seed=1)
    g2 = AutoregressiveGenerator(**kw).fit(train, validation=valid, seed=1)
    g3 = AutoregressiveGenerator(**kw).fit(train, validation=valid, seed=2)
    pd.testing.assert_frame_equal(g1.curve.history, g2.curve.history)
    assert not g1.curve.history["val_loss"].equals(g3.curve.history["val_loss"])
    pd.testing.assert_frame_equal(g1.sample(50, seed=0), g2.sample(50, seed=0))


def test_bad_parameters_raise():
    with pytest.raises(ParameterError, match="overfit level"):
        AutoregressiveGenerator(overfit_levels=(0.5,))
    with pytest.raises(ParameterError, match="dropout"):
        AutoregressiveGenerator(dropout=1.0)


def test_overfitting_raises_dcr_and_ims_on_demo_data():
    train, hold, threat = pc.builtin_dataset("health", n=750)
    real = pd.concat([train, hold], ignore_index=True)
    result = sweep(
        real,
        risk_model="overfit",
        levels=(1.0, 2.0),
        measures=["ims", "dcr"],
        replicates=1,
        threat=pc.ThreatModel(**threat),
        seed=0,
        n_jobs=1,
    )
    v = result.rows.set_index(["measure", "level"])["value"]
    assert v[("dcr", 2.0)] > v[("dcr", 1.0)] + 0.2
    assert v[("ims", 2.0)] > v[("ims", 1.0)] + 0.2
    assert result.rows["reached"].all()
    ratios = result.rows.drop_duplicates("level").set_index("level")["achieved_ratio"]
    assert ratios[1.0] == pytest.approx(1.0) and 2.0 <= ratios[2.0] <= 2.1
    assert set(result.curves) == {0}


def test_unreached_levels_are_rows_with_no_value():
    real = pc.simulate_health(600, seed=1)
    threat = pc.ThreatModel(["age", "gender"], ["disease"])
    result = sweep(
        real,
        risk_model="overfit",
        levels=(1.0, 30.0),
        measures=["ims"],
        replicates=1,
        threat=threat,
        n_jobs=1,
        overfit_params={"max_overfit_epochs": 2, "hidden": 32},
    )
    row = result.rows.set_index("level").loc[30.0]
    assert not row["reached"] and np.isnan(row["value"]) and "unreached" in row["note"]
    assert result.rows.set_index("level").loc[1.0, "reached"]
    assert result.summary().set_index("level").loc[30.0, "reached"] == 0.0
