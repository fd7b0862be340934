"""The command-line contract of DESIGN.md: JSON shape, exit codes, no tracebacks."""

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "privacy_core", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    real, syn1, syn2 = d / "real.csv", d / "syn1.csv", d / "syn2.parquet"
    assert run("demo-data", "--n", "400", "--kappa", "5", "--seed", "2", "--out", str(real)).returncode == 0
    for seed, out in ((1, syn1), (2, syn2)):
        proc = run("synthesize", "--method", "cart", "--real", str(real), "--seed", str(seed),
                   "--out", str(out))
        assert proc.returncode == 0, proc.stderr
    return {"real": real, "syn1": syn1, "syn2": syn2, "dir": d}


@pytest.fixture(scope="module")
def holdout(files):
    path = files["dir"] / "holdout.csv"
    assert run("demo-data", "--n", "300", "--kappa", "5", "--seed", "9", "--out",
               str(path)).returncode == 0
    return path


def test_demo_data_matches_engine(files):
    import privacy_core as pc

    written = pd.read_csv(files["real"])
    expected = pc.simulate_health(400, kappa=5, seed=2)
    pd.testing.assert_frame_equal(written, expected, check_dtype=False)


def test_synthesize_writes_parquet_with_real_columns(files):
    syn = pd.read_parquet(files["syn2"])
    assert list(syn.columns) == ["gender", "age", "education", "income", "health", "disease"]
    assert len(syn) == 400


def test_synthesize_half_defaults_to_half_the_rows_without_replacement(files, tmp_path):
    out = tmp_path / "half.csv"
    proc = run("synthesize", "--method", "half", "--real", str(files["real"]), "--seed", "3",
               "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    half = pd.read_csv(out)
    real = pd.read_csv(files["real"])
    assert len(half) == len(real) // 2 == 200
    assert not half.duplicated().any() or real.duplicated().any()
    assert len(half.merge(real.drop_duplicates(), how="inner")) == len(half)  # real rows


def test_rapid_json_contract(files):
    proc = run("rapid", "--real", str(files["real"]), "--synthetic", str(files["syn1"]),
               "--synthetic", str(files["syn2"]), "--qi", "age,education,gender",
               "--sensitive", "disease", "--tau", "0.4", "--attackers", "rf,xgb",
               "--bootstrap", "100", "--n-trees", "50", "--seed", "3", "--json", "-")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["command"] == "rapid" and out["n_real"] == 400 and out["n_synthetic"] == [400, 400]
    assert out["seed"] == 3
    m = out["metrics"]["rapid"]
    assert 0 <= m["value"] <= 1 and m["ci"][0] <= m["value"] <= m["ci"][1]
    assert m["kind"] == "categorical" and m["threshold"] == 0.4 and m["params"]["tau"] == 0.4
    assert set(m["by_attacker"]) == {"rf", "xgb"}
    assert m["rate_max"] == max(v["value"] for v in m["by_attacker"].values())
    assert len(m["curve"]["thresholds"]) == len(m["curve"]["rate"]) > 10


def test_rapid_continuous_epsilon_and_error(files):
    proc = run("rapid", "--real", str(files["real"]), "--synthetic", str(files["syn1"]),
               "--qi", "age,education", "--sensitive", "income", "--epsilon", "0.2",
               "--error", "symmetric", "--attackers", "xgb", "--bootstrap", "0", "--json", "-")
    assert proc.returncode == 0, proc.stderr
    m = json.loads(proc.stdout)["metrics"]["rapid"]
    assert m["kind"] == "continuous" and m["params"]["epsilon"] == 0.2
    assert m["params"]["error"] == "symmetric"


def test_rapid_writes_json_file_and_summary(files):
    target = files["dir"] / "out.json"
    proc = run("rapid", "--real", str(files["real"]), "--synthetic", str(files["syn1"]),
               "--sensitive", "disease", "--attackers", "logit", "--bootstrap", "0",
               "--json", str(target))
    assert proc.returncode == 0
    assert "RAPID (categorical" in proc.stdout
    assert json.loads(target.read_text())["metrics"]["rapid"]["params"]["quasi_identifiers"] == [
        "gender", "age", "education", "income", "health"]


def test_privacy_json_contract(files, holdout):
    proc = run("privacy", "--real", str(files["real"]), "--synthetic", str(files["syn1"]),
               "--control", str(holdout), "--qi", "age,education,gender",
               "--sensitive", "disease", "--alpha", "5", "--n-attacks", "200",
               "--singling-out-mode", "univariate", "--seed", "4", "--json", "-")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["command"] == "privacy" and out["seed"] == 4 and out["n_synthetic"] == [400]
    m = out["metrics"]
    assert set(m) == {"ims", "dcr", "knn", "singling_out", "linkability", "inference",
                      "ml_inference", "gtcap", "domias", "membership"}
    for name, res in m.items():
        assert {"value", "ci", "params"} <= set(res), name
        assert "records" not in res  # aggregates only unless asked
    assert m["dcr"]["alpha"] == 5 and m["dcr"]["ratio"] > 0
    assert m["membership"]["f_rel"] == m["membership"]["value"]
    so = m["singling_out"]["params"]
    assert so["mode"] == "univariate" and so["n_cols"] == 1 and so["n_attacks"] == 200


def test_privacy_metric_subset_is_seeded(files):
    args = ("privacy", "--real", str(files["real"]), "--synthetic", str(files["syn1"]),
            "--sensitive", "disease", "--metrics", "singling_out,linkability",
            "--n-attacks", "100", "--json", "-")
    first, second = run(*args), run(*args)
    assert first.returncode == 0, first.stderr
    assert set(json.loads(first.stdout)["metrics"]) == {"singling_out", "linkability"}
    assert json.loads(first.stdout) == json.loads(second.stdout)


def test_fidelity_json_contract(files, holdout):
    proc = run("fidelity", "--real", str(files["real"]), "--synthetic", str(files["syn1"]),
               "--control", str(holdout), "--sensitive", "disease", "--json", "-")
    assert proc.returncode == 0, proc.stderr
    m = json.loads(proc.stdout)["metrics"]
    assert set(m) == {"wasserstein", "mla", "query_error", "discriminator"}
    w = m["wasserstein"]
    assert {"one_way", "two_way", "by_marginal"} <= set(w)
    assert "age" in w["by_marginal"] and "gender|age" in w["by_marginal"]


def test_report_writes_aggregates_only_by_default(files, holdout):
    target = files["dir"] / "report.html"
    proc = run("report", "--real", str(files["real"]), "--synthetic", str(files["syn1"]),
               "--control", str(holdout), "--sensitive", "disease",
               "--metrics", "ims,singling_out", "--decision", "release with changes",
               "--out", str(target))
    assert proc.returncode == 0, proc.stderr
    html = target.read_text()
    assert "release with changes" in html and "<b>Singling out</b>" in html
    assert "Indicator, not a disclosure measure" in html  # IMS (consensus R3)
    assert "per-record table" not in html
    # per-record tables only on explicit request
    proc = run("report", "--real", str(files["real"]), "--synthetic", str(files["syn1"]),
               "--sensitive", "disease", "--metrics", "ims", "--include-records",
               "--out", str(target))
    assert proc.returncode == 0, proc.stderr
    assert "ims: per-record table" in target.read_text()
    # a .pdf target gets the printable sign-off sheet
    pdf = files["dir"] / "report.pdf"
    proc = run("report", "--real", str(files["real"]), "--synthetic", str(files["syn1"]),
               "--sensitive", "disease", "--metrics", "ims", "--decision", "release",
               "--out", str(pdf))
    assert proc.returncode == 0, proc.stderr
    assert pdf.read_bytes().startswith(b"%PDF-") and b"Decision: release" in pdf.read_bytes()


@pytest.mark.parametrize("args, fragment", [
    (["rapid", "--real", "missing.csv", "--sensitive", "x"], "File not found"),
    (["rapid", "--real", "{real}", "--synthetic", "{syn1}", "--qi", "age,nope",
      "--sensitive", "disease"], "'nope' is not in the real table"),
    (["rapid", "--real", "{real}", "--synthetic", "{syn1}", "--qi", "age",
      "--sensitive", "age"], "cannot be both"),
    (["rapid", "--real", "{real}", "--sensitive", "disease"], "--synthetic is required"),
    (["rapid", "--real", "{real}", "--synthetic", "{syn1}", "--sensitive", "disease",
      "--attackers", "svm"], "Unknown attacker"),
    (["synthesize", "--method", "gan", "--real", "{real}", "--out", "x.csv"], "Unknown generator"),
    (["rapid", "--bogus"], "unrecognized arguments"),
    (["rapid", "--real", "{real}", "--synthetic", "{syn1}", "--qi", "age,education",
      "--sensitive", "income", "--epsilon", "10", "--attackers", "logit", "--bootstrap", "0"],
     "ε is a proportion: 0.10 means 10 %; got 10"),
])
def test_bad_input_exits_2_with_one_error_line(files, args, fragment):
    args = [a.format(**{k: str(v) for k, v in files.items()}) for a in args]
    proc = run(*args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    first = proc.stderr.strip().splitlines()[0]
    assert first.startswith("error:") and fragment in first, proc.stderr


def test_mismatched_synthetic_file(files):
    bad = files["dir"] / "bad.csv"
    pd.read_csv(files["syn1"]).drop(columns=["age"]).to_csv(bad, index=False)
    proc = run("rapid", "--real", str(files["real"]), "--synthetic", str(bad),
               "--sensitive", "disease")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: The synthetic table does not match") and "'age'" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def calibration_files(tmp_path_factory):
    """Issue #9's reproduction: 3,000 training rows, an exact copy, unseen rows of the same
    population, and holdouts of 3,000 (1:1) and 1,500 (2:1) rows."""
    d = tmp_path_factory.mktemp("calib")
    path = d / "all.csv"
    assert run("demo-data", "--n", "9000", "--kappa", "1", "--seed", "3", "--out",
               str(path)).returncode == 0
    frame = pd.read_csv(path)
    files = {}
    for name, part in {"train": frame.iloc[:3000], "unseen": frame.iloc[3000:6000],
                       "hold1": frame.iloc[6000:9000], "hold2": frame.iloc[6000:7500],
                       "copy": frame.iloc[:3000].sample(frac=1, random_state=0)}.items():
        files[name] = d / f"{name}.csv"
        part.to_csv(files[name], index=False)
    return files


@pytest.mark.parametrize("holdout", ["hold1", "hold2"])
def test_privacy_reads_a_copy_as_a_copy_and_unseen_rows_as_nothing(calibration_files, holdout):
    f = calibration_files
    metrics = "ims,dcr,singling_out,inference,linkability"
    for release, mode in (("copy", "multivariate"), ("copy", "univariate"),
                          ("unseen", "multivariate"), ("unseen", "univariate")):
        proc = run("privacy", "--real", str(f["train"]), "--synthetic", str(f[release]),
                   "--control", str(f[holdout]), "--sensitive", "disease", "--metrics",
                   metrics, "--singling-out-mode", mode, "--seed", "1", "--json", "-")
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)["metrics"]
        for name, m in out.items():
            if release == "copy":
                assert m["value"] >= 0.9, (holdout, mode, name, m["value"])
            else:
                assert m["value"] <= 0.1 and m["ci"][0] <= 1e-9, (holdout, mode, name, m)


def test_calibrate_json_contract(calibration_files):
    proc = run("calibrate", "--real", str(calibration_files["train"]), "--sensitive",
               "disease", "--metrics", "ims,singling_out,linkability", "--levels", "0,0.5,1",
               "--ratios", "1,2", "--seed", "4", "--json", "-")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["command"] == "calibrate" and out["n_real"] == 3000 and out["seed"] == 4
    assert {r["metric"] for r in out["rows"]} == {"ims", "singling_out", "linkability"}
    assert len(out["rows"]) == 4 * 3 * 2  # (ims, so:uni, so:multi, link) x levels x ratios
    assert set(out["rows"][0]) >= {"metric", "mode", "ratio", "level", "value", "ci"}
    assert set(out["summary"]) == {"ims", "singling_out:univariate",
                                   "singling_out:multivariate", "linkability"}
    for s in out["summary"].values():
        assert set(s) >= {"floor", "ceiling", "slope", "monotone", "ratio_gap",
                          "documented_ceiling", "pass"}
        assert s["pass"] is True and s["ceiling"] >= 0.9


@pytest.mark.parametrize(("args", "message"), [
    (["--levels", "0,x"], "--levels must be comma-separated numbers"),
    (["--ratios", "0.5,1"], "ratios"),
    (["--metrics", "wasserstein"], "fidelity measure"),
    (["--metrics", "nope"], "Unknown measure"),
])
def test_calibrate_bad_options_exit_2(calibration_files, args, message):
    proc = run("calibrate", "--real", str(calibration_files["train"]), "--sensitive",
               "disease", *args)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error:") and message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_report_with_calibration(files, holdout, tmp_path):
    out = tmp_path / "review.html"
    proc = run("report", "--real", str(files["real"]), "--synthetic", str(files["syn1"]),
               "--control", str(holdout), "--sensitive", "disease", "--metrics",
               "ims,singling_out", "--calibrate", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    html = out.read_text(encoding="utf-8")
    assert "Calibration" in html and "Singling out (univariate)" in html
    plain = tmp_path / "plain.html"
    assert run("report", "--real", str(files["real"]), "--synthetic", str(files["syn1"]),
               "--sensitive", "disease", "--metrics", "ims", "--out",
               str(plain)).returncode == 0
    assert "Singling out (univariate)" not in plain.read_text(encoding="utf-8")


def test_rapid_help_states_the_unit_of_epsilon():
    proc = run("rapid", "--help")
    assert proc.returncode == 0
    assert "0.10 means within 10 %" in " ".join(proc.stdout.split())
