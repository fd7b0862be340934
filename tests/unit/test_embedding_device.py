"""Where the contrastive encoder trains: ``device`` auto | cpu | cuda, recorded in params.

The CPU path is what CI runs. The GPU path runs where torch sees a GPU and is skipped,
with its reason, where it does not: a GPU sums in another order, so its encoder is not
bit-for-bit the CPU's, and the test bounds how far the isolation ranking may move."""

import numpy as np
import pytest
import torch
from test_cli import run

import privacy_core as pc
from privacy_core.datasets import simulate_health
from privacy_core.embedding import ContrastiveEncoder, resolve_device
from privacy_core.review import measure_options

GPU = torch.cuda.is_available()
QIS = ["gender", "age", "education"]


def _fit(device: str, real):
    schema = pc.infer_schema(real)
    params = {"max_epochs": 5, "hidden": 64, "device": device}
    return ContrastiveEncoder(schema, params=params).fit(pc.prepare_table(real, schema), seed=3)


def test_auto_is_the_gpu_when_torch_sees_one_and_the_params_say_which():
    assert resolve_device("auto") == ("cuda" if GPU else "cpu")
    assert resolve_device("cpu") == "cpu"
    enc = _fit("auto", simulate_health(300, seed=1))
    assert enc.describe()["device"] == ("cuda" if GPU else "cpu")
    assert _fit("cpu", simulate_health(300, seed=1)).describe()["device"] == "cpu"


def test_a_measure_records_the_device_its_encoder_used():
    real = simulate_health(400, seed=2)
    syn = pc.synthesize(real, method="cart", seed=3)
    opts = measure_options(len(real), device="cpu")["singling_out_outliers"]
    res = pc.evaluate(
        real,
        syn,
        measures=["singling_out_outliers"],
        threat=pc.ThreatModel(QIS, ["disease"]),
        seed=1,
        options={"singling_out_outliers": {**opts, "n_attacks": 50}},
    )["singling_out_outliers"]
    assert res.params["embedding"]["device"] == "cpu"


def test_an_unknown_device_and_a_missing_gpu_are_refused_the_same_everywhere(tmp_path):
    with pytest.raises(pc.ParameterError, match="device must be one of auto, cpu, cuda"):
        measure_options(100, device="tpu")
    real = simulate_health(200, seed=4)
    real.to_csv(tmp_path / "r.csv", index=False)
    args = ["privacy", "--real", str(tmp_path / "r.csv"), "--synthetic", str(tmp_path / "r.csv")]
    args += ["--qi", ",".join(QIS), "--sensitive", "disease", "--metrics", "ims"]
    bogus = run(*args, "--device", "tpu")
    assert bogus.returncode == 2 and "invalid choice" in bogus.stderr
    if GPU:
        assert run(*args, "--device", "cuda").returncode == 0
    else:
        with pytest.raises(pc.ParameterError, match="torch sees no GPU"):
            measure_options(100, device="cuda")
        out = run(*args, "--device", "cuda")
        assert out.returncode == 2 and "torch sees no GPU" in out.stderr
        assert "Traceback" not in out.stderr


@pytest.mark.skipif(not GPU, reason="torch sees no GPU on this machine: the CPU path is tested")
def test_the_gpu_encoder_ranks_isolation_as_the_cpu_encoder_does():
    from scipy.stats import spearmanr

    real = simulate_health(2000, seed=5)
    syn = pc.synthesize(real, method="cart", seed=6)
    schema = pc.infer_schema(real)
    cpu, gpu = _fit("cpu", real), _fit("cuda", real)
    table = pc.prepare_table(syn, schema)

    def isolation(enc):
        z = enc.transform(table)
        d = 1 - z @ z.T
        np.fill_diagonal(d, np.inf)
        return np.sort(d, axis=1)[:, :5].mean(axis=1)

    # the same training on another adder order: the ranking the attack reads agrees
    assert spearmanr(isolation(cpu), isolation(gpu)).statistic >= 0.9
