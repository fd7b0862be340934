"""The DP risk model: accounting, the MST-style generator, the sweep, SmartNoise."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
from privacy_core.errors import ParameterError
from privacy_core.experiments import sweep
from privacy_core.synth.dp import DPMarginalGenerator, SmartNoiseGenerator, zcdp_rho


@pytest.fixture(scope="module")
def data() -> tuple[pd.DataFrame, pc.Schema]:
    frame = pc.simulate_health(1500, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = pc.infer_schema(frame)
    return pc.prepare_table(frame, schema), schema


def _marginal_tvd(real: pd.DataFrame, syn: pd.DataFrame, schema: pc.Schema) -> float:
    """Mean total variation distance of one-way marginals (numerics in 10 real deciles)."""
    out = []
    for col in real.columns:
        if schema[col].is_numeric:
            edges = np.unique(np.quantile(real[col], np.linspace(0, 1, 11)))
            a = np.histogram(np.clip(real[col], edges[0], edges[-1]), edges)[0]
            b = np.histogram(np.clip(syn[col], edges[0], edges[-1]), edges)[0]
        else:
            levels = sorted(set(real[col]) | set(syn[col]))
            a = real[col].value_counts().reindex(levels, fill_value=0).to_numpy()
            b = syn[col].value_counts().reindex(levels, fill_value=0).to_numpy()
        out.append(0.5 * np.abs(a / a.sum() - b / b.sum()).sum())
    return float(np.mean(out))


@pytest.mark.parametrize("epsilon,delta", [(1.0, 1e-9), (10.0, 1e-6), (100.0, 1e-9)])
def test_zcdp_conversion_meets_the_requested_budget(epsilon, delta):
    rho = zcdp_rho(epsilon, delta)
    # Bun & Steinke Prop. 1.3: rho-zCDP => (rho + 2 sqrt(rho ln 1/delta), delta)-DP
    assert rho + 2 * math.sqrt(rho * math.log(1 / delta)) == pytest.approx(epsilon)
    assert zcdp_rho(2 * epsilon, delta) > rho


def test_noise_scales_follow_the_budget_split(data):
    real, _ = data
    gen = DPMarginalGenerator(1.0, delta=1e-9).fit(real, seed=0)
    rho = zcdp_rho(1.0, 1e-9)
    d = real.shape[1]
    # rho/3 each for d one-way measurements, d-1 selections, d-1 two-way measurements
    assert gen.sigmas_["one_way"] == pytest.approx(math.sqrt(d / (2 * rho / 3)))
    assert gen.sigmas_["two_way"] == pytest.approx(math.sqrt((d - 1) / (2 * rho / 3)))
    assert gen.sigmas_["exp_mech_epsilon"] == pytest.approx(math.sqrt(8 * rho / 3 / (d - 1)))
    total = (
        d / (2 * gen.sigmas_["one_way"] ** 2)
        + gen.sigmas_["exp_mech_epsilon"] ** 2 / 8 * (d - 1)
        + (d - 1) / (2 * gen.sigmas_["two_way"] ** 2)
    )
    assert total == pytest.approx(rho)
    assert len(gen.edges_) == d - 1  # a spanning tree
    nodes = {i for e in gen.edges_ for i in e}
    assert nodes == set(range(d))


def test_generator_is_seeded_and_canonical(data):
    real, _ = data
    gen = DPMarginalGenerator(5.0).fit(real, seed=3)
    a, b = gen.sample(400, seed=1), gen.sample(400, seed=1)
    pd.testing.assert_frame_equal(a, b)
    other = DPMarginalGenerator(5.0).fit(real, seed=4).sample(400, seed=1)
    assert not a.equals(other)
    assert list(a.columns) == list(real.columns)
    assert np.all(a["age"] == np.round(a["age"]))  # integer column stays whole
    assert set(a["disease"]) <= set(real["disease"])
    p = gen.params()
    assert p["domain"] == "data" and set(p["data_bounded_columns"]) == {"age", "income", "health"}


def test_public_bounds_are_used_and_clamp(data):
    real, _ = data
    gen = DPMarginalGenerator(50.0, bounds={"age": (30, 50)}, structure="independent")
    out = gen.fit(real, seed=0).sample(500, seed=0)
    assert out["age"].between(30, 50).all()
    assert "age" not in gen.params()["data_bounded_columns"]
    with pytest.raises(ParameterError, match="low < high"):
        DPMarginalGenerator(1.0, bounds={"age": (5, 5)})
    with pytest.raises(ParameterError, match="unknown column"):
        DPMarginalGenerator(1.0, bounds={"weight": (0, 1)}).fit(real, seed=0)
    with pytest.raises(ParameterError, match="epsilon"):
        DPMarginalGenerator(0.0)


def test_utility_worsens_as_epsilon_falls(data):
    real, schema = data
    tvd = {}
    for eps in (0.05, 1.0, 100.0):
        tvd[eps] = np.mean(
            [
                _marginal_tvd(
                    real,
                    DPMarginalGenerator(eps).fit(real, seed=s).sample(len(real), seed=s),
                    schema,
                )
                for s in range(3)
            ]
        )
    assert tvd[0.05] > tvd[1.0] > tvd[100.0]
    assert tvd[100.0] < 0.05


def test_dp_sweep_records_epsilon_and_generator():
    real = pc.simulate_health(1200, seed=5)
    threat = pc.ThreatModel(["age", "education", "gender"], ["disease"])
    result = sweep(
        real,
        risk_model="dp",
        levels=(0.1, 1.0, 100.0),
        measures=["ims", "query_error"],
        replicates=2,
        threat=threat,
        n_jobs=1,
    )
    rows = result.rows
    assert set(rows["generator"]) == {"dp-mst"}
    assert (rows["epsilon"] == rows["level"]).all()
    assert rows["f_l"].isna().all() and rows["f_o"].isna().all()
    err = result.summary().query("measure == 'query_error'").set_index("level")["mean"]
    assert err[0.1] > err[1.0] > err[100.0]
    assert result.rows.query("measure == 'ims'")["value"].max() < 0.05
    with pytest.raises(ParameterError, match="generator"):
        sweep(real, risk_model="dp", generator="pategan", measures=["ims"], threat=threat)


def test_smartnoise_mst_runs_beside_pandas_3(data):
    """requirements-dp.txt installs OpenDP SmartNoise with --no-deps; MST must run here."""
    real, _ = data
    small = real[["gender", "age", "disease"]].iloc[:300]
    gen = SmartNoiseGenerator(5.0, method="mst", n_bins=8).fit(small, seed=0)
    out = gen.sample(200, seed=0)
    assert list(out.columns) == ["gender", "age", "disease"] and len(out) == 200
    assert set(out["disease"]) <= set(small["disease"])
    assert out["age"].between(small["age"].min(), small["age"].max()).all()
    assert gen.params()["reproducible"] is False
    with pytest.raises(ParameterError, match="AIM is limited"):
        SmartNoiseGenerator(1.0, method="aim", max_rows=100).fit(small, seed=0)
