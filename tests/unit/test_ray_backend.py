"""The risk lab's Ray backend on a real (local) Ray instance gives the local backend's rows."""

import privacy_core as pc
from privacy_core.experiments import sweep


def test_ray_backend_matches_local_backend():
    import ray

    real = pc.simulate_health(800, kappa=1, seed=0)
    threat = pc.ThreatModel(["age", "education", "gender"], ["disease"])
    kwargs = dict(risk_model="leaky", levels=[0.0, 1.0], measures=["ims"], replicates=2,
                  threat=threat, seed=3)
    try:
        on_ray = sweep(real, backend="ray", address="local", **kwargs).rows
    finally:
        ray.shutdown()
    local = sweep(real, backend="local", **kwargs).rows
    key = ["level", "replicate", "measure"]
    a = on_ray.sort_values(key).reset_index(drop=True)
    b = local.sort_values(key).reset_index(drop=True)
    assert len(a) == 4
    assert (a["value"].round(12) == b["value"].round(12)).all()
    assert a.loc[a["level"] == 1.0, "value"].min() == 1.0  # every training record copied
