"""The Ray backend on a real (local) Ray instance gives the local backend's numbers: the
risk lab's sweep rows and the membership disclosure score's shadow models."""

import numpy as np

import privacy_core as pc
from privacy_core.experiments import sweep


def test_ray_backend_matches_local_backend():
    import ray

    real = pc.simulate_health(800, kappa=1, seed=0)
    threat = pc.ThreatModel(["age", "education", "gender"], ["disease"])
    kwargs = dict(
        risk_model="leaky", levels=[0.0, 1.0], measures=["ims"], replicates=2, threat=threat, seed=3
    )
    hold = pc.simulate_health(400, kappa=1, seed=1)
    mds_kw = dict(holdout=hold, shadow_models=4, shadow_sets=1, records=200, bootstrap=50, seed=2)
    try:
        on_ray = sweep(real, backend="ray", address="local", **kwargs).rows
        mds_ray = pc.membership_disclosure_score(real, backend="ray", ray_address="local", **mds_kw)
    finally:
        ray.shutdown()
    mds_local = pc.membership_disclosure_score(real, **mds_kw)
    assert np.array_equal(mds_ray.ds, mds_local.ds) and mds_ray.value == mds_local.value
    local = sweep(real, backend="local", **kwargs).rows
    key = ["level", "replicate", "measure"]
    a = on_ray.sort_values(key).reset_index(drop=True)
    b = local.sort_values(key).reset_index(drop=True)
    assert len(a) == 4
    assert (a["value"].round(12) == b["value"].round(12)).all()
    assert a.loc[a["level"] == 1.0, "value"].min() == 1.0  # every training record copied
