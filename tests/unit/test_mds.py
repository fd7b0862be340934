"""The membership disclosure score with shadow models (issue 10; Du & Li §5,
metric-reference §1b): the membership design, the score on a hand-made distance matrix,
the calibration contract through leaky shadows, the SELF / HALF references, seeds,
parallel runs, Stop and clear errors."""

from __future__ import annotations

import itertools
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
from privacy_core.errors import InsufficientDataError, ParameterError
from privacy_core.risk.mds import disclosure_scores, mds_membership, membership_disclosure_score
from privacy_core.synth.leaky import leaky_shadow_options

QUICK = {"shadow_models": 10, "shadow_sets": 5, "records": 500, "bootstrap": 200}
# for the tests of the design, seeds, parallel runs, Stop and errors, which read no level of
# the score: a fifth of QUICK's shadows and sets (QUICK's 50 shadow tables stay for the
# readings: the calibration contract, the references and the DP generator)
SMALL = {"shadow_models": 4, "shadow_sets": 1, "records": 100, "bootstrap": 20}


@pytest.fixture(scope="module")
def health():
    real, hold, _ = pc.builtin_dataset("health", n=800, seed=4)
    return real, hold


@pytest.mark.parametrize("m", [2, 5, 10, 11])
def test_every_record_trains_exactly_half_of_the_shadows(m):
    keep = mds_membership(m, 500, seed=3)
    assert keep.shape == (m, 500)
    assert (keep.sum(axis=0) == m // 2).all()
    # the halves differ between shadows (not one split repeated)
    assert len({row.tobytes() for row in keep}) == m
    assert np.array_equal(keep, mds_membership(m, 500, seed=3))


def test_two_shadow_models_by_hand():
    """The smallest design: each record trains one of two shadows; DS is the gap between
    its distance to the tables of the shadow it trained and of the other."""
    keep = mds_membership(2, 4, seed=0)
    assert (keep.sum(axis=0) == 1).all()
    d = np.array([[0.0, 0.5, 0.2, 0.9], [0.4, 0.1, 0.2, 0.3]])
    sc = disclosure_scores(d, keep)
    mean_in = np.where(keep[0], d[0], d[1])
    mean_out = np.where(keep[0], d[1], d[0])
    assert np.allclose(sc.mean_in, mean_in) and np.allclose(sc.mean_out, mean_out)
    assert np.allclose(sc.ds, np.abs(mean_in - mean_out))
    # one shadow per side: no spread to bound the difference with, so nothing confident
    assert (sc.confident == 0).all()


def test_disclosure_score_by_hand():
    # 4 shadows x 3 records; shadows 0 and 1 trained record 0, shadows 2 and 3 record 1 ...
    keep = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1], [0, 1, 0]], dtype=bool)
    d = np.array([[0.0, 0.4, 0.1], [0.2, 0.6, 0.3], [0.5, 0.1, 0.1], [0.3, 0.3, 0.3]])
    sc = disclosure_scores(d, keep)
    ds, mean_in, mean_out = sc.ds, sc.mean_in, sc.mean_out
    # record 0: IN (0.0, 0.2) -> 0.1, OUT (0.5, 0.3) -> 0.4, DS 0.3
    assert mean_in[0] == pytest.approx(0.1) and mean_out[0] == pytest.approx(0.4)
    assert ds == pytest.approx([0.3, 0.3, 0.2])  # record 2: IN 0.1, OUT 0.3
    # a shadow that was never run (NaN row) is left out of both means
    d[3] = np.nan
    sc = disclosure_scores(d, keep)
    mean_in, mean_out = sc.mean_in, sc.mean_out
    assert mean_in[1] == pytest.approx(0.1) and mean_out[1] == pytest.approx(0.5)


@pytest.fixture(scope="module")
def leaky_curve(health):
    real, hold = health
    return {
        f: membership_disclosure_score(
            real, holdout=hold, seed=2, **QUICK, **leaky_shadow_options(f)
        )
        for f in (0.0, 0.25, 0.5, 1.0)
    }


def test_calibrated_on_unseen_rows_and_on_a_copy(leaky_curve):
    zero, copy = leaky_curve[0.0], leaky_curve[1.0]
    # shadows that emit only unseen real rows read like HALF: about 0, interval reaching 0
    assert abs(zero.value) <= 0.1 and zero.ci[0] <= 0 <= zero.ci[1], zero.ci
    # shadows that emit their whole training half are SELF: exactly 1
    assert copy.value == pytest.approx(1.0) and copy.raw_max == pytest.approx(copy.self_max)
    assert (copy.records["mean_in"] == 0).all()
    # flags: beyond the noise floor, most records of a copy and almost none of unseen rows
    assert zero.extra["n_flagged"] <= 0.01 * len(zero.records)
    assert copy.extra["n_flagged"] >= 0.5 * len(copy.records)
    assert copy.extra["n_flagged"] == int(copy.records["flagged"].sum())


def test_rises_with_the_leak_fraction(leaky_curve):
    values = [leaky_curve[f].value for f in (0.0, 0.25, 0.5, 1.0)]
    assert all(b > a for a, b in itertools.pairwise(values)), values
    # roughly proportional: half the training rows copied reads about half-way
    assert 0.25 <= leaky_curve[0.5].value <= 0.75


def test_references_and_generators(health):
    real, hold = health
    self_ = membership_disclosure_score(real, holdout=hold, shadow_method="self", **QUICK)
    hist = membership_disclosure_score(real, holdout=hold, shadow_method="histogram", **QUICK)
    cart = membership_disclosure_score(real, holdout=hold, shadow_method="cart", **QUICK)
    assert self_.value == pytest.approx(1.0)
    # independent columns: nothing of one record survives (a method whose own noise is
    # below HALF's reads under 0: no signal beyond the noise floor)
    assert hist.value <= 0.1
    # CART's leaves (min 5 rows) keep some of each record: between the references
    assert hist.value < cart.value < self_.value
    # the references do not depend on the shadow method (same splits, same seeds)
    assert cart.self_max == pytest.approx(hist.self_max)
    assert cart.half_max == pytest.approx(hist.half_max)


def test_result_object_and_json(health):
    real, hold = health
    opts = {**SMALL, "records": 500}
    res = membership_disclosure_score(real, holdout=hold, **opts, seed=9)
    rec = res.records
    assert len(rec) == 500 and rec["record"].isin(real.index).all()
    assert {"ds", "mean_in", "mean_out", "ds_self", "ds_half", "targeted"} <= set(rec)
    assert np.allclose(rec["ds"], np.abs(rec["mean_in"] - rec["mean_out"]))
    assert res.raw_max == pytest.approx(rec["ds"].max())
    assert rec["targeted"].mean() == pytest.approx(0.05, abs=0.01)
    assert res.ci[0] <= res.value <= res.ci[1]
    assert res.params["shadow_models"] == SMALL["shadow_models"] and res.params["seed"] == 9
    doc = json.loads(json.dumps(res.to_dict()))
    assert set(doc["quantiles"]) >= {"0.5", "0.95", "1"}
    assert doc["quantiles"]["1"] == pytest.approx(res.raw_max)
    raw = membership_disclosure_score(real, holdout=hold, **opts, seed=9, reading="max")
    assert raw.value == pytest.approx(res.raw_max) and raw.relative == pytest.approx(res.value)


def test_same_seed_same_numbers_in_parallel(health):
    real, hold = health
    one = membership_disclosure_score(real, holdout=hold, **SMALL, seed=5)
    two = membership_disclosure_score(real, holdout=hold, **SMALL, seed=5, n_jobs=2)
    assert np.array_equal(one.ds, two.ds) and one.value == two.value
    other = membership_disclosure_score(real, holdout=hold, **SMALL, seed=6)
    assert not np.array_equal(one.ds, other.ds)


def test_stop_keeps_the_shadows_done(health):
    real, hold = health
    seen = []
    opts = {**SMALL, "shadow_models": 6}  # Stop after 3 of them
    res = membership_disclosure_score(
        real,
        holdout=hold,
        **opts,
        progress=lambda f, msg: seen.append(f),
        should_stop=lambda: len(seen) >= 4,
    )
    assert res.stopped and res.params["n_shadows_done"] == 3
    assert math.isfinite(res.raw_max)
    # a run cut off from outside keeps what on_partial was handed last
    kept = []
    full = membership_disclosure_score(real, holdout=hold, **opts, on_partial=kept.append)
    assert len(kept) == opts["shadow_models"] - 1 and not full.stopped
    partial = kept[2]()
    assert partial.stopped and partial.params["n_shadows_done"] == 3


def test_registry_and_generic_evaluation(health):
    real, hold = health
    spec = pc.MEASURES["mds"]
    assert spec.evaluates == "generator" and spec.needs_holdout and not spec.needs_threat
    out = pc.evaluate_measures(real, real, names=["mds"], holdout=hold, options={"mds": SMALL})
    assert out["mds"].name == "mds" and math.isfinite(out["mds"].value)


def test_clear_errors(health):
    real, hold = health
    with pytest.raises(ParameterError, match="relative MDS reading needs a holdout"):
        membership_disclosure_score(real)
    with pytest.raises(ParameterError, match="Leaky shadows"):
        membership_disclosure_score(real, reading="max", **leaky_shadow_options(0.5))
    with pytest.raises(ParameterError, match="shadow_models"):
        membership_disclosure_score(real, holdout=hold, shadow_models=1)
    with pytest.raises(ParameterError, match="shadow_method"):
        membership_disclosure_score(real, holdout=hold, shadow_method="gan")
    with pytest.raises(InsufficientDataError, match="too few"):
        membership_disclosure_score(real.head(8), holdout=hold)
    bad = hold.drop(columns=["age"])
    with pytest.raises(pc.PrivacyCoreError):
        membership_disclosure_score(real, holdout=bad)
    # without a holdout the paper's raw reading still works, read against SELF
    raw = membership_disclosure_score(real, reading="max", **SMALL)
    assert math.isfinite(raw.value) and math.isnan(raw.half_max) and raw.self_max > 0


def test_a_noisy_dp_generator_is_not_read_as_disclosure(health):
    """DP-MST at epsilon 0.1 emits tables that differ wildly from shadow to shadow; the
    paper's |IN - OUT| then looks larger than a copy's by chance (relative max above 1).
    The relative reading compares the method with its own relabelled shadows and says it
    cannot tell members apart rather than reporting a risk."""
    real, hold = health
    res = membership_disclosure_score(
        real, holdout=hold, shadow_method="dp-mst", shadow_params={"epsilon": 0.1}, **QUICK
    )
    assert res.relative_max > 0.5  # the raw reading is fooled by the noise
    assert not res.value > 0.1
    if math.isnan(res.value):
        assert res.ci is None and res.extra["reading_text"].startswith("Uninformative")
    loose = membership_disclosure_score(
        real, holdout=hold, shadow_method="dp-mst", shadow_params={"epsilon": 10.0}, **QUICK
    )
    assert abs(loose.value) <= 0.1


def test_overfit_levels_share_one_training_run_per_shadow():
    """MDS under the risk-insertion framework's overfit model (``mds_overfit_levels``):
    each autoregressive shadow is trained once and read at every level's checkpoint; a
    level some shadows never reached is read from those that did, one none reached is
    NaN, and the level is in the params. (That MDS rises with f_o is measured by
    ``bench/bench_mds.py --overfit``.)"""
    from privacy_core.risk.mds import mds_overfit_levels

    real = pc.simulate_health(800, kappa=1, seed=3)
    train, hold = real.iloc[:400], real.iloc[400:]
    # a few epochs are enough: f_o = 1 is the optimum, which every run has, and 50 is
    # never reached (30 + 30 epochs cost 11 s of CPU for nothing more)
    small = {"max_overfit_epochs": 8, "hidden": 32, "max_epochs": 8}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mds_overfit_levels(
            train,
            (1.0, 50.0),
            holdout=hold,
            shadow_models=4,
            shadow_sets=1,
            records=200,
            shadow_params=small,
            seed=0,
        )
    assert list(res) == [1.0, 50.0]
    best, never = res[1.0], res[50.0]
    assert best.params["overfit_level"] == 1.0 and best.params["n_shadows_reached"] == 4
    assert np.isfinite(best.raw_max) and len(best.records) == 200
    assert best.params["shadow_method"] == "autoregressive"
    assert never.params["n_shadows_reached"] == 0 and np.isnan(never.value)
    with pytest.raises(ParameterError, match="autoregressive"):
        mds_overfit_levels(train, (1.0,), holdout=hold, shadow_method="cart")
    with pytest.raises(ParameterError, match="overfit level"):
        mds_overfit_levels(train, (0.5,), holdout=hold)


def test_a_table_above_max_rows_is_studied_on_a_seeded_sample(health):
    real, hold = health
    small = {**SMALL, "records": 200, "bootstrap": 0}
    full = membership_disclosure_score(real, holdout=hold, **small, seed=3)
    # at or above the table's size the cap changes nothing: the same shadows, the same DS
    same = membership_disclosure_score(real, holdout=hold, **small, seed=3, max_rows=len(real))
    assert np.array_equal(full.ds, same.ds) and full.value == same.value
    assert full.params["n_studied"] == full.params["n_distinct_records"] == len(real)
    sampled = membership_disclosure_score(real, holdout=hold, **small, seed=3, max_rows=400)
    assert sampled.params["n_studied"] == 400 and sampled.params["max_rows"] == 400
    assert sampled.params["n_distinct_records"] == len(real)
    assert sampled.records["record"].isin(real.index).all() and len(sampled.records) == 200
    again = membership_disclosure_score(real, holdout=hold, **small, seed=3, max_rows=400)
    assert np.array_equal(sampled.ds, again.ds, equal_nan=True)
    with pytest.raises(ParameterError, match="max_rows"):
        membership_disclosure_score(real, holdout=hold, **small, max_rows=5)


def test_a_wide_table_is_read_on_a_seeded_sample_of_columns():
    """Issue 32: every shadow fits a tree per column, so 2,001 columns ran for more than
    400 s. Above MAX_COLUMNS a seeded sample is compared, said in a warning and the
    parameters; a narrower table is read exactly as before (no column stream consumed).
    Wrong versions caught: no bound (this test would take minutes), a silent sample, a
    sample that changes a narrow table's reading."""
    import privacy_core.risk.mds as mds_module

    rng = np.random.default_rng(5)
    cols = [f"x{i}" for i in range(mds_module.MAX_COLUMNS + 30)]
    real = pd.DataFrame(rng.normal(size=(60, len(cols))).round(1), columns=cols)
    hold = pd.DataFrame(rng.normal(size=(60, len(cols))).round(1), columns=cols)
    kwargs = dict(holdout=hold, shadow_models=4, shadow_sets=1, records=30,
                  shadow_method="histogram", bootstrap=20, seed=3)  # fmt: skip
    with pytest.warns(pc.UntrustworthyResultWarning, match=r"seeded sample of 100 of the 130"):
        wide = membership_disclosure_score(real, **kwargs)
    assert wide.params["columns_sampled"] and len(wide.params["columns"]) == 100
    with pytest.warns(pc.UntrustworthyResultWarning):
        again = membership_disclosure_score(real, **kwargs)
    assert again.params["columns"] == wide.params["columns"]
    assert np.isfinite(wide.value) and again.value == wide.value
    narrow = cols[:20]
    with warnings.catch_warnings():
        warnings.simplefilter("error", pc.UntrustworthyResultWarning)
        few = membership_disclosure_score(real[narrow], **{**kwargs, "holdout": hold[narrow]})
    assert not few.params["columns_sampled"] and few.params["columns"] == narrow
