"""The command-line contract of DESIGN.md: JSON shape, exit codes, no tracebacks."""

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from privacy_core.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]


def run_subprocess(*args: str) -> subprocess.CompletedProcess:
    """The real entry point, ``python -m privacy_core``, in a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "privacy_core", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def run(*args: str) -> subprocess.CompletedProcess:
    """``main(args)`` in this process, with its exit status and output as a subprocess
    would give them: the same contract at a fraction of the cost (no interpreter and
    import start-up per call). An exception that escapes ``main`` fails the test, as a
    traceback would."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli_main(list(args))
        except SystemExit as exc:  # argparse's --help and usage errors
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return subprocess.CompletedProcess(
        ["privacy_core", *args], code, out.getvalue(), err.getvalue()
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    real, syn1, syn2 = d / "real.csv", d / "syn1.csv", d / "syn2.parquet"
    # main() in-process: the real entry point, `python -m privacy_core` in a process of its
    # own (5 s of start-up each), is run by test_entry_point_reports_bad_input_in_one_line...
    # and, installed, by tests/unit/test_packaging.py
    proc = run("demo-data", "--n", "400", "--kappa", "5", "--seed", "2", "--out", str(real))
    assert proc.returncode == 0, proc.stderr
    for seed, out in ((1, syn1), (2, syn2)):
        proc = run(
            "synthesize",
            "--method",
            "cart",
            "--real",
            str(real),
            "--seed",
            str(seed),
            "--out",
            str(out),
        )
        assert proc.returncode == 0, proc.stderr
    return {"real": real, "syn1": syn1, "syn2": syn2, "dir": d}


@pytest.fixture(scope="module")
def holdout(files):
    path = files["dir"] / "holdout.csv"
    assert (
        run("demo-data", "--n", "300", "--kappa", "5", "--seed", "9", "--out", str(path)).returncode
        == 0
    )
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
    proc = run(
        "synthesize",
        "--method",
        "half",
        "--real",
        str(files["real"]),
        "--seed",
        "3",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    half = pd.read_csv(out)
    real = pd.read_csv(files["real"])
    assert len(half) == len(real) // 2 == 200
    assert not half.duplicated().any() or real.duplicated().any()
    assert len(half.merge(real.drop_duplicates(), how="inner")) == len(half)  # real rows


def test_rapid_json_contract(files):
    proc = run(
        "rapid",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--synthetic",
        str(files["syn2"]),
        "--qi",
        "age,education,gender",
        "--sensitive",
        "disease",
        "--tau",
        "0.4",
        "--attackers",
        "rf,xgb",
        "--bootstrap",
        "100",
        "--n-trees",
        "50",
        "--seed",
        "3",
        "--json",
        "-",
    )
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


def test_rapid_preset_paper_and_calibration(files):
    """--preset paper: every non-sensitive column a QI, disease sensitive, rf/xgb/cart,
    tau 0.3; each attacker's accuracy and the headline (max) in the JSON; --calibrate
    runs the paper's null-RAPID threshold rule."""
    proc = run(
        "rapid",
        "--preset",
        "paper",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        # few trees and the fewest permutations the rule accepts: the test reads the
        # preset's set-up and the calibration's shape, not its numbers
        "--n-trees",
        "10",
        "--bootstrap",
        "0",
        "--calibrate",
        "--permutations",
        "20",
        "--json",
        "-",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    m = out["metrics"]["rapid"]
    assert m["params"]["quasi_identifiers"] == ["gender", "age", "education", "income", "health"]
    assert m["params"]["sensitive"] == "disease" and m["threshold"] == 0.3
    assert set(m["by_attacker"]) == {"rf", "xgb", "cart"}
    assert all(0 < v["accuracy"] <= 1 for v in m["by_attacker"].values())
    assert m["headline"]["aggregate"] == "max" and m["headline"]["value"] == m["rate_max"]
    cal = out["calibration"]
    assert cal["rule"] == "null-rapid" and cal["params"]["n_permutations"] == 20
    assert cal["params"]["permuted"].startswith("sensitive values in the release")
    assert cal["params"]["attackers"] == ["rf", "xgb", "cart"]
    assert len(cal["curve"]["threshold"]) == len(cal["curve"]["null_upper"]) == 19


def test_rapid_preset_paper_runs_the_simulation_study():
    proc = run(
        "rapid",
        "--preset",
        "paper",
        "--kappa",
        "0,10",
        "--simulations",
        "2",
        "--attackers",
        "cart",
        "--taus",
        "0.3,0.7",
        "--json",
        "-",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    rows = out["study"]
    assert {(r["kappa"], r["tau"]) for r in rows} == {
        (0.0, 0.3),
        (0.0, 0.7),
        (10.0, 0.3),
        (10.0, 0.7),
    }
    assert all(r["attacker"] == "cart" and r["n_sims"] == 2 for r in rows)
    low = next(r for r in rows if r["kappa"] == 0.0 and r["tau"] == 0.3)
    high = next(r for r in rows if r["kappa"] == 10.0 and r["tau"] == 0.3)
    assert high["rapid"] > low["rapid"] + 0.5 and high["oracle_rapid"] > 0.8


def test_rapid_continuous_epsilon_and_error(files):
    proc = run(
        "rapid",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--qi",
        "age,education",
        "--sensitive",
        "income",
        "--epsilon",
        "0.2",
        "--error",
        "symmetric",
        "--attackers",
        "xgb",
        "--bootstrap",
        "0",
        "--json",
        "-",
    )
    assert proc.returncode == 0, proc.stderr
    m = json.loads(proc.stdout)["metrics"]["rapid"]
    assert m["kind"] == "continuous" and m["params"]["epsilon"] == 0.2
    assert m["params"]["error"] == "symmetric"


def test_rapid_writes_json_file_and_summary(files):
    target = files["dir"] / "out.json"
    proc = run(
        "rapid",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--sensitive",
        "disease",
        "--attackers",
        "logit",
        "--bootstrap",
        "0",
        "--json",
        str(target),
    )
    assert proc.returncode == 0
    assert "RAPID (categorical" in proc.stdout
    assert json.loads(target.read_text())["metrics"]["rapid"]["params"]["quasi_identifiers"] == [
        "gender",
        "age",
        "education",
        "income",
        "health",
    ]


def test_privacy_json_contract(files, holdout):
    proc = run(
        "privacy",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--control",
        str(holdout),
        "--qi",
        "age,education,gender",
        "--sensitive",
        "disease",
        "--alpha",
        "5",
        "--n-attacks",
        "200",
        "--singling-out-mode",
        "univariate",
        "--seed",
        "4",
        "--json",
        "-",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["command"] == "privacy" and out["seed"] == 4 and out["n_synthetic"] == [400]
    m = out["metrics"]
    assert set(m) == {
        "ims",
        "dcr",
        "knn",
        "singling_out",
        "linkability",
        "inference",
        "ml_inference",
        "gtcap",
        "domias",
        "membership",
        "mds",
        "singling_out_outliers",
        "reproduced_uniques",
        "individual_risk",
        "sample_uniques",
        "k_anonymity",
        "l_diversity",
    }
    for name, res in m.items():
        assert {"value", "ci", "params"} <= set(res), name
        assert "records" not in res  # aggregates only unless asked
    assert m["dcr"]["alpha"] == 5 and m["dcr"]["ratio"] > 0
    assert m["membership"]["f_rel"] == m["membership"]["value"]
    so = m["singling_out"]["params"]
    assert so["mode"] == "univariate" and so["n_cols"] == 1 and so["n_attacks"] == 200
    # the membership disclosure score: quantiles of DS (DESIGN.md) and its shadow set-up
    assert set(m["mds"]["quantiles"]) >= {"0.5", "0.95", "1"}
    assert m["mds"]["params"]["shadow_method"] == "cart"
    assert m["mds"]["params"]["shadow_models"] == 10


def test_privacy_space_contrastive_and_mds_options(files, holdout):
    proc = run(
        "privacy",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--control",
        str(holdout),
        "--sensitive",
        "disease",
        "--metrics",
        "dcr,linkability,mds",
        "--space",
        "contrastive",
        "--shadow-models",
        "4",
        "--shadow-sets",
        "1",
        "--mds-records",
        "100",
        "--mds-reading",
        "max",
        "--json",
        "-",
    )
    assert proc.returncode == 0, proc.stderr
    m = json.loads(proc.stdout)["metrics"]
    for name in ("dcr", "linkability"):
        assert m[name]["params"]["space"] == "contrastive"
        assert m[name]["params"]["embedding"]["dimension"] == 5  # 6 columns
    p = m["mds"]["params"]
    assert p["shadow_models"] == 4 and p["records"] == 100 and p["reading"] == "max"
    assert m["mds"]["value"] == m["mds"]["raw_max"]
    bad = run(
        "privacy",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--sensitive",
        "disease",
        "--space",
        "learned",
    )
    assert bad.returncode == 2 and "--space" in bad.stderr


def test_privacy_metric_subset_is_seeded(files):
    args = (
        "privacy",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--sensitive",
        "disease",
        "--metrics",
        "singling_out,linkability",
        "--n-attacks",
        "100",
        "--json",
        "-",
    )
    first, second = run(*args), run(*args)
    assert first.returncode == 0, first.stderr
    assert set(json.loads(first.stdout)["metrics"]) == {"singling_out", "linkability"}
    assert json.loads(first.stdout) == json.loads(second.stdout)


def test_privacy_reads_sdcmicros_classics_by_name(files, holdout):
    """The names DESIGN.md promises: each answers with its value, interval and params
    (``k`` or ``l``), read members against non-members; a registry that lacked one exits 2
    with "Unknown measure"."""
    proc = run(
        "privacy",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--control",
        str(holdout),
        "--qi",
        "gender,age,education",
        "--sensitive",
        "disease",
        "--metrics",
        "sample_uniques,k_anonymity,l_diversity",
        "--json",
        "-",
    )
    assert proc.returncode == 0, proc.stderr
    m = json.loads(proc.stdout)["metrics"]
    assert set(m) == {"sample_uniques", "k_anonymity", "l_diversity"}
    for res in m.values():
        assert {"value", "ci", "params", "sdc"} <= set(res)
        assert 0 <= res["ci"][0] <= res["value"] <= res["ci"][1] <= 1
        assert res["params"]["reading"] == "members against non-members"
        assert res["params"]["quasi_identifiers"] == ["gender", "age", "education"]
    assert m["k_anonymity"]["params"]["k"] == 3 and m["l_diversity"]["params"]["l"] == 2
    assert "l_diversity_violations" in m["l_diversity"]["sdc"]["real"]


def test_fidelity_json_contract(files, holdout):
    proc = run(
        "fidelity",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--control",
        str(holdout),
        "--sensitive",
        "disease",
        "--json",
        "-",
    )
    assert proc.returncode == 0, proc.stderr
    m = json.loads(proc.stdout)["metrics"]
    assert set(m) == {"wasserstein", "mla", "query_error", "discriminator"}
    w = m["wasserstein"]
    assert {"one_way", "two_way", "by_marginal"} <= set(w)
    assert "age" in w["by_marginal"] and "gender|age" in w["by_marginal"]


def test_report_writes_aggregates_only_by_default(files, holdout):
    target = files["dir"] / "report.html"
    proc = run(
        "report",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--control",
        str(holdout),
        "--sensitive",
        "disease",
        "--metrics",
        "ims,singling_out",
        "--decision",
        "release with changes",
        "--out",
        str(target),
    )
    assert proc.returncode == 0, proc.stderr
    html = target.read_text()
    assert "release with changes" in html and "<b>Singling out</b>" in html
    assert "Indicator, not a disclosure measure" in html  # IMS (consensus R3)
    assert "per-record table" not in html
    # per-record tables only on explicit request
    proc = run(
        "report",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--sensitive",
        "disease",
        "--metrics",
        "ims",
        "--include-records",
        "--out",
        str(target),
    )
    assert proc.returncode == 0, proc.stderr
    assert "ims: per-record table" in target.read_text()
    # a .pdf target gets the printable sign-off sheet
    pdf = files["dir"] / "report.pdf"
    proc = run(
        "report",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--sensitive",
        "disease",
        "--metrics",
        "ims",
        "--decision",
        "release",
        "--out",
        str(pdf),
    )
    assert proc.returncode == 0, proc.stderr
    assert pdf.read_bytes().startswith(b"%PDF-") and b"Decision: release" in pdf.read_bytes()


def _membership_run(files, holdout, *extra):
    return run(
        "privacy",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--control",
        str(holdout),
        "--qi",
        "age,education,gender",
        "--sensitive",
        "disease",
        "--seed",
        "2",
        "--json",
        "-",
        *extra,
    )


def test_membership_prevalence_flags_reach_the_result(files, holdout):
    proc = _membership_run(
        files,
        holdout,
        "--metrics",
        "membership,gtcap",
        "--sampling-fraction",
        "0.1",
        "--h",
        "1",
        "--beta",
        "0.5",
        "--scenario",
        "b",
        "--population-share",
        "0.5",
        "--gtcap-weighting",
        "box_per_record",
    )
    assert proc.returncode == 0, proc.stderr
    m = json.loads(proc.stdout)["metrics"]
    p = m["membership"]["params"]
    assert (p["sampling_fraction"], p["sampling_fraction_source"]) == (0.1, "threat model")
    assert (p["h"], p["beta"], p["scenario"], p["population_share"]) == (1, 0.5, "B", 0.5)
    assert p["member_prevalence"] == pytest.approx(0.05)
    # 300 holdout rows as non-members and 0.05 / 0.95 as many members
    assert (p["attack_non_members"], p["attack_members"]) == (300, 16)
    assert m["gtcap"]["params"]["weighting"] == "box_per_record"
    assert "falls back" not in proc.stderr and "Scenario B" in proc.stderr


def test_membership_without_t_says_the_fallback_is_arbitrary(files, holdout):
    proc = _membership_run(files, holdout, "--metrics", "membership")
    assert proc.returncode == 0, proc.stderr
    p = json.loads(proc.stdout)["metrics"]["membership"]["params"]
    assert p["sampling_fraction_source"].startswith("assumed")
    assert p["sampling_fraction"] == pytest.approx(400 / 700) and p["scenario"] == "A"
    notes = " ".join(proc.stderr.split())
    assert notes.startswith("warning:") and "was not given" in notes
    assert "arbitrary" in notes and "how the real rows were split" in notes
    assert "--sampling-fraction" in notes
    # measures other than membership need no t: no note
    quiet = _membership_run(files, holdout, "--metrics", "ims")
    assert quiet.returncode == 0 and "sampling" not in quiet.stderr


def test_gtcap_sphere_is_accepted_with_a_deprecation_warning(files, holdout):
    old = _membership_run(files, holdout, "--metrics", "gtcap", "--gtcap-weighting", "sphere")
    assert old.returncode == 0, old.stderr
    assert "deprecated" in old.stderr and "box_pooled" in old.stderr
    new = _membership_run(files, holdout, "--metrics", "gtcap")
    old_m, new_m = (json.loads(p.stdout)["metrics"]["gtcap"] for p in (old, new))
    assert old_m["params"]["weighting"] == new_m["params"]["weighting"] == "box_pooled"
    assert old_m["value"] == new_m["value"]


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--scenario", "B"], "population share"),
        (["--sampling-fraction", "1.5"], "sampling fraction must be in (0, 1]"),
        (["--scenario", "B", "--population-share", "0"], "population share must be in (0, 1]"),
        (["--scenario", "C"], "invalid choice"),
        (["--gtcap-weighting", "ball"], "invalid choice"),
    ],
)
def test_membership_flags_bad_input_exit_2(files, holdout, extra, fragment):
    proc = _membership_run(files, holdout, "--metrics", "membership", *extra)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    first = proc.stderr.strip().splitlines()[0]
    assert first.startswith("error:") and fragment in first, proc.stderr


def test_calibrate_and_report_take_the_membership_flags(files, holdout, tmp_path):
    proc = run(
        "calibrate",
        "--real",
        str(files["real"]),
        "--control",
        str(holdout),
        "--sensitive",
        "disease",
        "--qi",
        "age,education,gender",
        "--metrics",
        "membership",
        "--levels",
        "0,1",
        "--ratios",
        "1",
        "--sampling-fraction",
        "0.3",
        "--h",
        "1",
        "--beta",
        "2",
        "--json",
        "-",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["params"]["options"]["membership"] == {"h": 1, "beta": 2.0}
    assert "falls back" not in proc.stderr
    unset = run(
        "calibrate",
        "--real",
        str(files["real"]),
        "--control",
        str(holdout),
        "--sensitive",
        "disease",
        "--metrics",
        "membership",
        "--levels",
        "0,1",
        "--ratios",
        "1",
        "--json",
        "-",
    )
    assert unset.returncode == 0, unset.stderr
    assert "no --sampling-fraction given" in unset.stderr and "arbitrary" in unset.stderr
    report = tmp_path / "r.html"
    proc = run(
        "report",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--control",
        str(holdout),
        "--sensitive",
        "disease",
        "--metrics",
        "membership",
        "--scenario",
        "B",
        "--population-share",
        "0.5",
        "--sampling-fraction",
        "0.2",
        "--out",
        str(report),
        "--json",
        "-",
    )
    assert proc.returncode == 0, proc.stderr
    p = json.loads(proc.stdout)["metrics"]["membership"]["params"]
    assert p["scenario"] == "B" and p["member_prevalence"] == pytest.approx(0.1)


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["rapid", "--real", "missing.csv", "--sensitive", "x"], "File not found"),
        (
            [
                "rapid",
                "--real",
                "{real}",
                "--synthetic",
                "{syn1}",
                "--qi",
                "age,nope",
                "--sensitive",
                "disease",
            ],
            "'nope' is not in the real table",
        ),
        (
            [
                "rapid",
                "--real",
                "{real}",
                "--synthetic",
                "{syn1}",
                "--qi",
                "age",
                "--sensitive",
                "age",
            ],
            "cannot be both",
        ),
        (["rapid", "--real", "{real}", "--sensitive", "disease"], "--synthetic is required"),
        (
            [
                "rapid",
                "--real",
                "{real}",
                "--synthetic",
                "{syn1}",
                "--sensitive",
                "disease",
                "--attackers",
                "svm",
            ],
            "Unknown attacker",
        ),
        (
            ["synthesize", "--method", "gan", "--real", "{real}", "--out", "x.csv"],
            "Unknown generator",
        ),
        (["rapid", "--bogus"], "unrecognized arguments"),
        (
            [
                "rapid",
                "--real",
                "{real}",
                "--synthetic",
                "{syn1}",
                "--qi",
                "age,education",
                "--sensitive",
                "income",
                "--epsilon",
                "10",
                "--attackers",
                "logit",
                "--bootstrap",
                "0",
            ],
            "ε is a proportion: 0.10 means 10 %; got 10",
        ),
    ],
)
def test_bad_input_exits_2_with_one_error_line(files, args, fragment):
    args = [a.format(**{k: str(v) for k, v in files.items()}) for a in args]
    proc = run(*args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    first = proc.stderr.strip().splitlines()[0]
    assert first.startswith("error:") and fragment in first, proc.stderr


def test_entry_point_reports_bad_input_in_one_line_without_traceback():
    proc = run_subprocess("rapid", "--real", "missing.csv", "--sensitive", "x")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error:") and "File not found" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_mismatched_synthetic_file(files):
    bad = files["dir"] / "bad.csv"
    pd.read_csv(files["syn1"]).drop(columns=["age"]).to_csv(bad, index=False)
    proc = run(
        "rapid", "--real", str(files["real"]), "--synthetic", str(bad), "--sensitive", "disease"
    )
    assert proc.returncode == 2
    assert (
        proc.stderr.startswith("error: The synthetic table does not match")
        and "'age'" in proc.stderr
    )
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def calibration_files(tmp_path_factory):
    """Issue #9's reproduction: 3,000 training rows, an exact copy, unseen rows of the same
    population, and holdouts of 3,000 (1:1) and 1,500 (2:1) rows."""
    d = tmp_path_factory.mktemp("calib")
    path = d / "all.csv"
    assert (
        run(
            "demo-data", "--n", "9000", "--kappa", "1", "--seed", "3", "--out", str(path)
        ).returncode
        == 0
    )
    frame = pd.read_csv(path)
    files = {}
    for name, part in {
        "train": frame.iloc[:3000],
        "unseen": frame.iloc[3000:6000],
        "hold1": frame.iloc[6000:9000],
        "hold2": frame.iloc[6000:7500],
        "copy": frame.iloc[:3000].sample(frac=1, random_state=0),
    }.items():
        files[name] = d / f"{name}.csv"
        part.to_csv(files[name], index=False)
    return files


@pytest.mark.parametrize("holdout", ["hold1", "hold2"])
def test_privacy_reads_a_copy_as_a_copy_and_unseen_rows_as_nothing(calibration_files, holdout):
    f = calibration_files
    # the singling-out mode reaches singling out only: the other measures run once per
    # release (not once per mode), singling out once per mode
    others, single = "ims,dcr,inference,linkability", "singling_out"
    for release, mode, metrics in (
        ("copy", "multivariate", others),
        ("copy", "multivariate", single),
        ("copy", "univariate", single),
        ("copy", "paper", single),
        ("unseen", "multivariate", others),
        ("unseen", "multivariate", single),
        ("unseen", "univariate", single),
        ("unseen", "paper", single),
    ):
        proc = run(
            "privacy",
            "--real",
            str(f["train"]),
            "--synthetic",
            str(f[release]),
            "--control",
            str(f[holdout]),
            "--sensitive",
            "disease",
            "--metrics",
            metrics,
            "--singling-out-mode",
            mode,
            "--seed",
            "1",
            "--json",
            "-",
        )
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)["metrics"]
        if mode == "paper":  # every configuration is in the JSON, the reported one named
            so = out["singling_out"]
            assert so["configurations"][0]["label"] == "univariate"
            assert so["params"]["n_attacks"] == 2000
            assert sum(c["reported"] for c in so["configurations"]) == 1
        for name, m in out.items():
            if release == "copy":
                assert m["value"] >= 0.9, (holdout, mode, name, m["value"])
            elif name == "singling_out" and mode == "paper":
                # the maximum over 5 configurations: 0.067 [0.009, 0.138] at 1:1 here (its
                # 3-column predicates are exhausted, so the interval misses the data's own
                # variation; 1 draw in 10 excludes 0, framework_repro.md)
                assert m["value"] <= 0.1, (holdout, mode, name, m)
            else:
                assert m["value"] <= 0.1 and m["ci"][0] <= 1e-9, (holdout, mode, name, m)


def test_privacy_summary_names_the_singling_out_configuration(calibration_files):
    f = calibration_files
    for mode, text in (
        ("multivariate", "singling_out: multivariate, 3 columns, 500 attacks"),
        ("paper", "paper protocol: max over univariate and 3–6 columns = "),
    ):
        proc = run(
            "privacy",
            "--real",
            str(f["train"]),
            "--synthetic",
            str(f["copy"]),
            "--control",
            str(f["hold1"]),
            "--sensitive",
            "disease",
            "--metrics",
            "singling_out",
            "--singling-out-mode",
            mode,
            "--seed",
            "1",
        )
        assert proc.returncode == 0, proc.stderr
        assert text.split(": ", 1)[1] in proc.stdout, proc.stdout


def test_calibrate_json_contract(calibration_files):
    proc = run(
        "calibrate",
        "--real",
        str(calibration_files["train"]),
        "--sensitive",
        "disease",
        # a measure's name calibrates each of its modes (linkability: shared and
        # contrastive), "measure:mode" only that one: singling out's paper protocol and
        # contrastive modes, 11 of the 20 s of CPU this took, are calibrated by
        # tests/unit/test_calibration_contract.py
        "--metrics",
        "ims,singling_out:univariate,singling_out:multivariate,linkability",
        "--levels",
        "0,0.5,1",
        "--ratios",
        "1,2",
        "--seed",
        "4",
        "--json",
        "-",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["command"] == "calibrate" and out["n_real"] == 3000 and out["seed"] == 4
    assert {r["metric"] for r in out["rows"]} == {"ims", "singling_out", "linkability"}
    # (ims, so:uni, so:multi, link, link:contrastive) x levels x ratios
    assert len(out["rows"]) == 5 * 3 * 2
    assert set(out["rows"][0]) >= {"metric", "mode", "ratio", "level", "value", "ci"}
    assert set(out["summary"]) == {
        "ims",
        "singling_out:univariate",
        "singling_out:multivariate",
        "linkability",
        "linkability:contrastive",
    }
    for s in out["summary"].values():
        assert set(s) >= {
            "floor",
            "ceiling",
            "slope",
            "monotone",
            "ratio_gap",
            "documented_ceiling",
            "pass",
        }
        assert s["pass"] is True and s["ceiling"] >= 0.9


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--levels", "0,x"], "--levels must be comma-separated numbers"),
        (["--ratios", "0.5,1"], "ratios"),
        (["--metrics", "wasserstein"], "fidelity measure"),
        (["--metrics", "nope"], "Unknown measure"),
    ],
)
def test_calibrate_bad_options_exit_2(calibration_files, args, message):
    proc = run(
        "calibrate", "--real", str(calibration_files["train"]), "--sensitive", "disease", *args
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("error:") and message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_report_with_calibration(files, holdout, tmp_path):
    out = tmp_path / "review.html"
    proc = run(
        "report",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--control",
        str(holdout),
        "--sensitive",
        "disease",
        # a measure with two modes, each a row of the calibration table: reproduced rare
        # combinations (calibrated in 3 s of CPU; singling out's four modes, the paper's
        # protocol and the contrastive encoder among them, took 25 s)
        "--metrics",
        "ims,reproduced_uniques",
        "--calibrate",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    html = out.read_text(encoding="utf-8")
    mode_row = "Reproduced rare combinations (with_sensitive)"
    assert "Calibration" in html and mode_row in html
    plain = tmp_path / "plain.html"
    assert (
        run(
            "report",
            "--real",
            str(files["real"]),
            "--synthetic",
            str(files["syn1"]),
            "--sensitive",
            "disease",
            "--metrics",
            "ims",
            "--out",
            str(plain),
        ).returncode
        == 0
    )
    assert mode_row not in plain.read_text(encoding="utf-8")


def test_rapid_help_states_the_unit_of_epsilon():
    proc = run("rapid", "--help")
    assert proc.returncode == 0
    assert "0.10 means within 10 %" in " ".join(proc.stdout.split())


# ---------------------------------------------------------------- report sign-off
def test_report_reviewer_role_and_date_are_signed(files):
    """The reviewer, role and date reach the sign-off sheet and the HTML report."""
    out = files["dir"] / "review.pdf"
    common = (
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--sensitive",
        "disease",
    )
    proc = run(
        "report",
        *common,
        "--metrics",
        "ims",
        "--decision",
        "release",
        "--reviewer",
        "Ana Łopez",
        "--role",
        "DPO",
        "--date",
        "2026-11-02",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    pdf = out.read_bytes()
    for text in (
        b"Ana Lopez",
        b"DPO",
        b"2026-11-02",
        b"Signature:",
        b"latin capital letter l with stroke -> L",
    ):
        assert text in pdf, text
    html_out = files["dir"] / "review.html"
    proc = run(
        "report", *common, "--metrics", "ims,dcr", "--reviewer", "Ana Łopez", "--out", str(html_out)
    )
    assert proc.returncode == 0, proc.stderr
    page = html_out.read_text(encoding="utf-8")
    assert "Ana Łopez" in page and page.count('id="plotly-bundle"') == 1
    assert '<section id="similarity">' in page and 'class="figure"' in page


def test_report_refuses_a_malformed_date(files):
    proc = run(
        "report",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--sensitive",
        "disease",
        "--metrics",
        "ims",
        "--date",
        "20/11/2026",
        "--out",
        str(files["dir"] / "x.pdf"),
    )
    assert proc.returncode == 2 and "--date must be a date as YYYY-MM-DD" in proc.stderr


def test_default_quasi_identifiers_leave_out_id_like_and_constant_columns(files, capsys):
    """Without --qi every other column is a quasi-identifier, except those the schema
    excludes (a row ID, a constant): the command runs and says which it left out."""
    from privacy_core.cli import main

    d = files["dir"]
    for name in ("real", "syn1"):
        frame = pd.read_csv(files[name])
        frame.insert(0, "row_id", range(len(frame)))
        frame["batch"] = "b1"
        frame.to_csv(d / f"{name}_with_id.csv", index=False)
    code = main(
        [
            "rapid",
            "--real",
            str(d / "real_with_id.csv"),
            "--synthetic",
            str(d / "syn1_with_id.csv"),
            "--sensitive",
            "disease",
            "--attackers",
            "logit",
            "--bootstrap",
            "0",
            "--json",
            "-",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    qis = json.loads(out)["metrics"]["rapid"]["params"]["quasi_identifiers"]
    assert "row_id" not in qis and "batch" not in qis and "age" in qis
    assert "row_id" in err and "batch" in err and "excluded" in err


def test_report_json_record_carries_the_checklist_with_the_reviewers_answers(
    files, holdout, tmp_path
):
    out = tmp_path / "review.html"
    proc = run(
        "report",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--control",
        str(holdout),
        "--sensitive",
        "disease",
        "--metrics",
        "ims,inference",
        "--out",
        str(out),
        "--qi-justification",
        "in the voter roll",
        "--review-of",
        "release",
        "--thresholds-set-by",
        "the board",
    )
    assert proc.returncode == 0, proc.stderr
    html = out.read_text(encoding="utf-8")
    assert 'id="checklist"' in html and "in the voter roll" in html
    assert "Thresholds set by: the board" in html
    bad = run(
        "report",
        "--real",
        str(files["real"]),
        "--synthetic",
        str(files["syn1"]),
        "--sensitive",
        "disease",
        "--out",
        str(out),
        "--review-of",
        "maybe",
    )
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
