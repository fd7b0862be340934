"""The calibration contract (DESIGN.md) over the whole registry.

Every registered disclosure measure, in every mode, is run by :func:`calibrate` on the
leaky risk model's reference releases at small n. A calibrated measure must read near 0
on unseen real rows, near 1 (or its documented ceiling) on a full copy, rise with the
leak and hardly move when the holdout shrinks from 1:1 to 4:1. A measure registered as
not calibrated must say why and still respond to the leak; so no measure can join the
registry without either passing or stating its limit.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from privacy_core.calibration import (
    CEILING_MIN,
    FLOOR_MAX,
    FLOOR_UPPER_MAX,
    RATIO_GAP_MAX,
    calibrate,
    calibration_targets,
    summarise,
)
from privacy_core.datasets import simulate_health
from privacy_core.errors import InsufficientDataError, ParameterError
from privacy_core.measures import MEASURES, get_measure
from privacy_core.threat import ThreatModel

TARGETS = calibration_targets()


@pytest.fixture(scope="module")
def health_calibration():
    real = simulate_health(4500, kappa=1, seed=3)
    # the risk-insertion experiments' worst case: the attacker knows every other column
    threat = ThreatModel([c for c in real.columns if c != "disease"], ["disease"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return calibrate(
            real,
            threat=threat,
            levels=(0.0, 0.5, 1.0),
            ratios=(1.0, 4.0),
            options={"rapid": {"bootstrap": 50, "n_trees": 100}},
            seed=1,
        )


def test_every_privacy_measure_and_mode_is_calibrated():
    names = {m for m, _ in TARGETS}
    assert names == {n for n, s in MEASURES.items() if s.family == "privacy"}
    assert ("singling_out", "univariate") in TARGETS
    assert ("singling_out", "multivariate") in TARGETS
    assert ("singling_out", "paper") in TARGETS


# (measure, mode) whose size-ratio check this table cannot decide: the 4:1 holdout is
# small, and their readings' intervals are too wide (about ±0.2) to see a 0.1 gap. The gate
# reports them as inconclusive, never as a pass; every other part of the contract holds.
RATIO_UNDECIDED_HERE = {
    ("singling_out", "contrastive"): "few isolated targets in the embedding at 4:1",
    ("singling_out_outliers", "default"): "few isolated targets in the embedding at 4:1",
}


@pytest.mark.parametrize(("metric", "mode"), TARGETS, ids=[f"{m}:{d}" for m, d in TARGETS])
def test_calibration_contract(health_calibration, metric, mode):
    """The gate of DESIGN.md's contract, part by part: the floor small in its estimate and
    its upper bound, the ceiling, monotone, the response within the measure's band, and
    the size-ratio gap at most 0.1 (judged with intervals that can see it)."""
    spec = get_measure(metric)
    s = health_calibration.summary(metric, mode)
    assert s is not None, "every target gets a summary"
    assert math.isfinite(s.floor) and math.isfinite(s.ceiling)
    if spec.calibrated:
        need = CEILING_MIN if spec.documented_ceiling is None else spec.documented_ceiling
        assert s.floor <= FLOOR_MAX and s.floor_upper <= FLOOR_UPPER_MAX, s
        assert s.ceiling >= need, s
        assert s.monotone, s
        assert not s.response_gap > s.response_band, s  # NaN: a flat response, no interior
        if (metric, mode) in RATIO_UNDECIDED_HERE and s.ratio_gap > RATIO_GAP_MAX:
            assert s.verdict == "inconclusive" and not s.passed, s
            assert all("more rows or attacks needed" in r for r in s.reasons), s
        else:
            assert s.ratio_gap <= RATIO_GAP_MAX, s
            assert s.verdict == "pass" and s.passed and not s.reasons, s
        if spec.documented_ceiling is not None:
            # a capped measure says why, in the registry (shown in the app) and the summary
            assert spec.calibration_note and s.note == spec.calibration_note
    else:
        # a measure that cannot meet the contract states its limit and still responds
        assert spec.calibration_note, f"{metric} fails the contract without saying why"
        assert s.note == spec.calibration_note
        assert s.monotone and s.ceiling > s.floor + 0.05, s
        assert not s.passed  # the gate does not let it through either


def test_full_copy_and_unseen_rows_at_both_ratios(health_calibration):
    """The issue's acceptance figures: >= 0.9 on a copy, <= 0.1 with an interval reaching
    0 on unseen rows, for IMS, DCR, singling out (both modes), inference and linkability."""
    rows = health_calibration.rows
    for metric, mode in [
        ("ims", "default"),
        ("dcr", "default"),
        ("inference", "default"),
        ("linkability", "default"),
        ("singling_out", "univariate"),
        ("singling_out", "multivariate"),
        ("singling_out", "paper"),
    ]:
        g = rows[(rows["metric"] == metric) & (rows["mode"] == mode)]
        for r in g.itertuples():
            if r.level == 1.0:
                assert r.value >= 0.9, (metric, mode, r)
            if r.level == 0.0:
                assert r.value <= 0.1 and r.ci_low <= 1e-9, (metric, mode, r)


def test_singling_out_mixture_is_linear_and_size_stable(health_calibration):
    """The old default (equal-size subsamples) read 0.22 on a full copy at 4:1."""
    rows = health_calibration.rows
    g = rows[(rows["metric"] == "singling_out") & (rows["mode"] == "univariate")]
    piv = g.pivot_table(index="ratio", columns="level", values="value")
    assert piv.loc[4.0, 1.0] >= 0.95
    assert abs(piv.loc[4.0, 0.5] - piv.loc[1.0, 0.5]) <= RATIO_GAP_MAX
    assert abs(piv.loc[1.0, 0.5] - 0.5) <= 0.15  # about f_l half-way


def test_same_seed_same_rows_one_after_another_or_side_by_side():
    """The same seed gives the same rows, in this process or with the cells on two worker
    processes (each on its share of the threads). Wrong versions caught: a per-cell
    seed, rows in the order the cells end, a leaky release drawn again in each worker
    with another seed. (That a measure reads the same on any thread count is
    tests/unit/test_thread_invariance.py's.)"""
    real = simulate_health(900, kappa=1, seed=5)
    threat = ThreatModel(["gender", "age", "education", "income"], ["disease"])
    kw = dict(
        threat=threat,
        measures=["ims", "singling_out", "domias"],
        levels=(0, 1),
        ratios=(1, 2),
        seed=7,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = calibrate(real, **kw), calibrate(real, n_jobs=2, **kw)
    cols = ["metric", "mode", "ratio", "level", "value", "ci_low", "ci_high"]
    assert a.rows[cols].equals(b.rows[cols])
    assert b.params["seed"] == 7 and len(b.rows) == len(a.rows) > 0
    with pytest.raises(ParameterError, match="n_jobs"):
        calibrate(real, n_jobs=0, **kw)


def test_summary_flags_a_measure_that_misreads_a_copy(health_calibration):
    """summarise() must fail a measure whose ceiling is low or that falls: feed it
    doctored rows."""
    rows = health_calibration.rows.copy()
    sel = (rows["metric"] == "ims") & (rows["level"] == 1.0)
    rows.loc[sel, "value"] = 0.3
    s = summarise(rows, "ims", "default")
    assert not s.passed and any("full copy" in r for r in s.reasons)
    assert not s.monotone
    rows = health_calibration.rows.copy()
    sel = (rows["metric"] == "ims") & (rows["ratio"] == 4.0) & (rows["level"] == 0.5)
    rows.loc[sel, "value"] = rows.loc[sel, "value"] + 0.3
    s = summarise(rows, "ims", "default")
    # IMS intervals are narrow, so the whole gap is beyond noise
    assert not s.passed and s.ratio_gap == pytest.approx(0.3, abs=1e-9)
    assert s.ratio_gap_beyond_noise > RATIO_GAP_MAX


def test_bad_options_raise_named_errors():
    real = simulate_health(900, kappa=1, seed=5)
    threat = ThreatModel(["gender", "age"], ["disease"])
    with pytest.raises(ParameterError, match="fidelity measure"):
        calibrate(real, threat=threat, measures=["wasserstein"])
    with pytest.raises(ParameterError, match="levels"):
        calibrate(real, threat=threat, measures=["ims"], levels=(0.5,))
    with pytest.raises(ParameterError, match="ratios"):
        calibrate(real, threat=threat, measures=["ims"], ratios=(0.5, 1))
    with pytest.raises(InsufficientDataError, match="training rows"):
        calibrate(real.iloc[:40], threat=threat, measures=["ims"])


def test_stop_keeps_finished_rows():
    real = simulate_health(900, kappa=1, seed=5)
    threat = ThreatModel(["gender", "age", "education", "income"], ["disease"])
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 2

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = calibrate(
            real,
            threat=threat,
            measures=["ims", "dcr"],
            levels=(0, 0.5, 1),
            ratios=(1,),
            seed=0,
            should_stop=stop,
        )
    assert res.stopped and len(res.rows) == 2
    assert np.isfinite(res.rows["value"]).all()
