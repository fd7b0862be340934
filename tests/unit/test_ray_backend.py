"""The Ray backend on a real (local) Ray instance gives the local backend's numbers: the
risk lab's sweep rows and the membership disclosure score's shadow models."""

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest

import privacy_core as pc
from privacy_core.experiments import sweep


@pytest.fixture(scope="module")
def ray_cluster():
    """One local Ray instance for the module, left at its end: each start costs its own
    processes' start-up (and its workers' imports of the engine), and joining a running
    one is what a second call with the same address does."""
    from privacy_core.parallel import shutdown_ray

    yield "local"
    shutdown_ray()


def test_ray_backend_matches_local_backend(ray_cluster):
    real = pc.simulate_health(800, kappa=1, seed=0)
    threat = pc.ThreatModel(["age", "education", "gender"], ["disease"])
    kwargs = dict(
        risk_model="leaky", levels=[0.0, 1.0], measures=["ims"], replicates=2, threat=threat, seed=3
    )
    hold = pc.simulate_health(400, kappa=1, seed=1)
    mds_kw = dict(holdout=hold, shadow_models=4, shadow_sets=1, records=200, bootstrap=50, seed=2)
    on_ray = sweep(real, backend="ray", address=ray_cluster, **kwargs).rows
    mds_ray = pc.membership_disclosure_score(real, backend="ray", ray_address=ray_cluster, **mds_kw)
    mds_local = pc.membership_disclosure_score(real, **mds_kw)
    assert np.array_equal(mds_ray.ds, mds_local.ds) and mds_ray.value == mds_local.value
    local = sweep(real, backend="local", **kwargs).rows
    key = ["level", "replicate", "measure"]
    a = on_ray.sort_values(key).reset_index(drop=True)
    b = local.sort_values(key).reset_index(drop=True)
    assert len(a) == 4
    assert (a["value"].round(12) == b["value"].round(12)).all()
    assert a.loc[a["level"] == 1.0, "value"].min() == 1.0  # every training record copied


def _cli_json(out: Path, *args: str) -> dict:
    """``python -m privacy_core ARGS --json OUT`` in this process; the JSON it wrote."""
    from privacy_core.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main([*args, "--json", str(out)])
    assert code == 0
    return json.loads(out.read_text())


def test_ray_backend_gives_rapid_and_calibration_the_local_numbers(
    ray_cluster, tmp_path, monkeypatch
):
    """Issue 14: RAPID's attacker fits (per release and attacker) and the calibration
    cells run as Ray tasks; the per-record scores and the rows are the local run's, from
    the engine and from the CLI's ``--ray``."""
    real = pc.simulate_health(600, kappa=1, seed=0)
    releases = [pc.simulate_health(600, kappa=1, seed=s) for s in (5, 6)]
    threat = pc.ThreatModel(["age", "education", "gender"], ["disease"])
    rapid_kw = dict(threat=threat, attackers=("rf", "xgb", "logit"), n_trees=30, seed=4)
    cal_kw = dict(
        threat=threat, measures=["ims", "gtcap"], levels=(0.0, 1.0), ratios=(1, 2), seed=1
    )
    paths = [tmp_path / f"{name}.csv" for name in ("real", "syn1", "syn2")]
    for path, frame in zip(paths, [real, *releases], strict=True):
        frame.to_csv(path, index=False)
    cli = ["rapid", "--real", str(paths[0]), "--synthetic", str(paths[1])]
    cli += ["--synthetic", str(paths[2]), "--qi", "age,education,gender"]
    cli += ["--sensitive", "disease", "--n-trees", "30", "--bootstrap", "100"]
    # neighbour searches of any size go out, in blocks of about 40 query rows
    from privacy_core.risk import neighbors

    monkeypatch.setattr(neighbors, "RAY_MIN_PAIRS", 1)
    monkeypatch.setattr(neighbors, "RAY_TASK_PAIRS", 40 * 600)
    rng = np.random.default_rng(0)
    q, r = rng.integers(0, 3, (250, 5)).astype(float), rng.integers(0, 3, (600, 5)).astype(float)
    searches = [(q, r, 3, "euclidean", False), (r, r, 4, "l1", True), (r, r, 2, "euclidean", True)]
    privacy = ["privacy", "--real", str(paths[0]), "--synthetic", str(paths[1])]
    privacy += ["--qi", "age,education,gender", "--sensitive", "disease"]
    privacy += ["--metrics", "dcr,knn"]
    r_ray = pc.rapid(real, releases, backend="ray", ray_address=ray_cluster, **rapid_kw)
    c_ray = pc.calibrate(real, backend="ray", ray_address=ray_cluster, **cal_kw)
    cli_ray = _cli_json(tmp_path / "ray.json", *cli, "--ray", ray_cluster)
    with neighbors.search_backend("ray", ray_cluster):
        nn_ray = [
            neighbors._dispatch(a, b, k, m, ex, neighbors._DEFAULT_BLOCK)
            for a, b, k, m, ex in searches
        ]
    neighbors.clear_neighbor_cache()
    privacy_ray = _cli_json(tmp_path / "p_ray.json", *privacy, "--ray", ray_cluster)
    neighbors.clear_neighbor_cache()
    privacy_local = _cli_json(tmp_path / "p_local.json", *privacy)
    for name in ("dcr", "knn"):
        a, b = privacy_ray["metrics"][name], privacy_local["metrics"][name]
        assert (a["value"], a["ci"]) == (b["value"], b["ci"]), name
    for (a, b, k, m, ex), (d, i) in zip(searches, nn_ray, strict=True):
        d0, i0 = neighbors._search(a, b, k, m, ex, neighbors._DEFAULT_BLOCK)
        assert np.array_equal(i, i0) and np.array_equal(d, d0), (m, ex)
        if ex:  # no row is its own neighbour, also across the block boundaries
            assert not (i == np.arange(len(a))[:, None]).any()
    cli_local = _cli_json(tmp_path / "local.json", *cli)
    assert cli_ray["metrics"]["rapid"]["params"]["n_replicates"] == 2
    for key in ("value", "ci", "by_attacker"):
        assert cli_ray["metrics"]["rapid"][key] == cli_local["metrics"]["rapid"][key]
    r_local = pc.rapid(real, releases, **rapid_kw)
    # 2 releases x 3 attackers, each fit placed where the local run puts it
    assert np.allclose(r_ray.g, r_local.g, rtol=0, atol=1e-12)
    assert np.array_equal(r_ray.pred_code, r_local.pred_code)
    assert (r_ray.value, r_ray.ci) == (r_local.value, r_local.ci)
    assert r_ray.importances.equals(r_local.importances)
    c_local = pc.calibrate(real, **cal_kw)
    cols = [c for c in c_local.rows.columns if c != "seconds"]
    assert len(c_ray.rows) == len(c_local.rows) == 2 * 3 * 2  # levels, targets, ratios
    assert c_ray.rows[cols].equals(c_local.rows[cols])
    assert [s.passed for s in c_ray.summaries] == [s.passed for s in c_local.summaries]


def test_an_unreachable_ray_address_fails_fast_with_a_clear_message():
    """Ray waits for minutes on a host:port nobody answers at; the engine says so in
    seconds (the app shows the same message)."""
    import time

    from privacy_core.parallel import map_unordered, shutdown_ray

    shutdown_ray()  # not joined to the module's local instance (one process, one cluster)
    t0 = time.perf_counter()
    with pytest.raises(pc.ComputeBackendError, match="Could not reach the Ray cluster"):
        list(map_unordered(abs, [1], context=None, backend="ray", address="127.0.0.1:1"))
    assert time.perf_counter() - t0 < 10
