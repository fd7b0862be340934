"""``review``: the whole review from one TOML file, its JSON, its exit status, and the same
numbers as the ``privacy``, ``rapid`` and ``fidelity`` commands for the same inputs and
seed (one evaluation path, one options table, one headline per measure)."""

import json
import time
from pathlib import Path

import pytest
from test_cli import run  # the in-process runner of the CLI contract tests

from privacy_core.datasets import simulate_health
from privacy_core.review import measure_options
from privacy_core.synth import synthesize

QIS = ["gender", "age", "education"]
PRIVACY = ["ims", "dcr", "singling_out", "linkability", "inference", "membership"]
FIDELITY = ["query_error", "discriminator"]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("review")
    train = simulate_health(400, seed=11)
    simulate_health(150, seed=12).to_csv(d / "hold.csv", index=False)
    train.to_csv(d / "train.csv", index=False)
    synthesize(train, method="cart", seed=13).to_csv(d / "cart.csv", index=False)
    train.to_csv(d / "copy.csv", index=False)  # a release that is the training data
    return d


def _config(d: Path, releases, *, measures=None, lines=None, extra="") -> Path:
    text = 'seed = 3\n[data]\nreal = "train.csv"\ncontrol = "hold.csv"\n'
    for path, group in releases:
        text += f'[[release]]\npath = "{path}"\ngroup = "{group}"\n'
    text += f'[threat]\nquasi_identifiers = {json.dumps(QIS)}\nsensitive = ["disease"]\n'
    if lines:
        text += "[thresholds.lines]\n" + "".join(f"{m} = {list(v)}\n" for m, v in lines.items())
    if measures:
        text += f"[measures]\nprivacy = {json.dumps(measures)}\n"
    text += extra
    path = d / f"review-{abs(hash(text))}.toml"
    path.write_text(text)
    return path


def _review(cfg: Path, *more: str):
    out = run("review", "--config", str(cfg), "--json", "-", *more)
    return out, (json.loads(out.stdout) if out.stdout.strip() else None)


def test_review_numbers_equal_the_privacy_rapid_and_fidelity_commands(files):
    cfg = _config(
        files,
        [("cart.csv", "CART")],
        measures=["rapid", *PRIVACY],
        extra=(f"\nfidelity = {json.dumps(FIDELITY)}\n"),
    )
    out, doc = _review(cfg)
    assert out.returncode in (0, 3, 4), out.stderr
    review = doc["candidates"]["CART"]["metrics"]
    shared = [
        "--real",
        str(files / "train.csv"),
        "--synthetic",
        str(files / "cart.csv"),
        "--control",
        str(files / "hold.csv"),
        "--qi",
        ",".join(QIS),
        "--sensitive",
        "disease",
        "--seed",
        "3",
        "--json",
        "-",
    ]
    privacy = json.loads(run("privacy", *shared, "--metrics", ",".join(PRIVACY)).stdout)
    fidelity = json.loads(run("fidelity", *shared, "--metrics", ",".join(FIDELITY)).stdout)
    rapid = json.loads(run("rapid", *shared).stdout)["metrics"]["rapid"]
    for name in PRIVACY:
        assert (review[name]["value"], review[name]["ci"]) == (
            privacy["metrics"][name]["value"],
            privacy["metrics"][name]["ci"],
        ), name
    for name in FIDELITY:
        assert review[name]["value"] == fidelity["metrics"][name]["value"], name
    # RAPID: the same headline (strongest attacker) and the same relative reading
    assert review["rapid"]["headline"] == rapid["headline"]
    assert review["rapid"]["difference"] == rapid["difference"]
    assert review["rapid"]["params"]["bootstrap"] == rapid["params"]["bootstrap"] == 500


def test_review_json_holds_a_verdict_per_candidate(files, tmp_path):
    cfg = _config(
        files, [("cart.csv", "CART"), ("copy.csv", "COPY")], measures=["singling_out", "inference"]
    )
    html = tmp_path / "r.html"
    out, doc = _review(cfg, "--out", str(html))
    assert set(doc["candidates"]) == {"CART", "COPY"}
    for c in doc["candidates"].values():
        assert c["verdict"] in ("below", "above", "inconclusive") and c["sentence"]
    # a full copy of the training rows is above a line, on the measures that decided it
    copy = doc["candidates"]["COPY"]
    assert copy["verdict"] == "above" and copy["deciding"]
    assert out.returncode == doc["exit_status"] == 3
    assert doc["metrics"] == {}  # several candidates are never merged
    assert doc["thresholds"]["lines"]["singling_out"] == {
        "amber": 0.05,
        "red": 0.2,
        "basis": "product default",
    }
    page = html.read_text()
    assert "COPY: above." in page and copy["sentence"].split(":")[0] in page


def test_review_exit_status_below_and_inconclusive(files):
    # generous lines, one candidate that never saw the data: below (exit 0)
    calm = _config(
        files,
        [("cart.csv", "CART")],
        measures=["singling_out"],
        lines={"singling_out": (0.95, 0.99)},
    )
    out, doc = _review(calm)
    assert doc["candidates"]["CART"]["verdict"] == "below" and out.returncode == 0
    # an amber line inside every interval that starts at 0: inconclusive (exit 4)
    tight = _config(
        files,
        [("cart.csv", "CART")],
        measures=["singling_out"],
        lines={"singling_out": (1e-6, 0.99)},
    )
    out, doc = _review(tight)
    assert doc["candidates"]["CART"]["verdict"] == "inconclusive" and out.returncode == 4


@pytest.mark.parametrize(
    "extra, message",
    [
        ("\n[typo]\nx = 1\n", "unknown key"),
        ("\n[thresholds]\ntau = 2\n", "`tau` must be in"),
        ("\n[thresholds]\nalpha = 100\n", "`alpha` must be in"),
        ("\n[thresholds.lines]\nsingling_out = [0.3, 0.1]\n", "amber <= red"),
    ],
)
def test_review_refuses_bad_configs_with_exit_2(files, extra, message):
    cfg = _config(files, [("cart.csv", "CART")], extra=extra)
    out, _ = _review(cfg)
    assert out.returncode == 2 and out.stderr.startswith("error:") and message in out.stderr
    assert "Traceback" not in out.stderr


def test_review_refuses_a_missing_file_and_a_bad_out_before_computing(files, tmp_path):
    missing = _config(files, [("nope.csv", "X")])
    out, _ = _review(missing)
    assert out.returncode == 2 and "nope.csv" in out.stderr
    cfg = _config(files, [("cart.csv", "CART")])
    start = time.perf_counter()
    out, _ = _review(cfg, "--out", str(tmp_path / "no" / "such" / "r.html"))
    assert out.returncode == 2 and "does not exist" in out.stderr
    out, _ = _review(cfg, "--out", str(tmp_path / "r.docx"))
    assert out.returncode == 2 and ".html or .pdf" in out.stderr
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize("tau", ["nan", "inf", "2", "-0.5"])
def test_rapid_refuses_a_tau_outside_its_range(files, tau):
    out = run(
        "rapid",
        "--real",
        str(files / "train.csv"),
        "--synthetic",
        str(files / "copy.csv"),
        "--qi",
        ",".join(QIS),
        "--sensitive",
        "disease",
        "--tau",
        tau,
    )
    assert out.returncode == 2 and out.stderr.startswith("error:") and "tau" in out.stderr


def test_rapid_refuses_zero_trees(files):
    out = run(
        "rapid",
        "--real",
        str(files / "train.csv"),
        "--synthetic",
        str(files / "cart.csv"),
        "--qi",
        ",".join(QIS),
        "--sensitive",
        "disease",
        "--n-trees",
        "0",
    )
    assert out.returncode == 2 and "n_trees" in out.stderr


def test_report_checks_its_output_path_before_computing(files, tmp_path):
    args = [
        "--real",
        str(files / "train.csv"),
        "--synthetic",
        str(files / "cart.csv"),
        "--qi",
        ",".join(QIS),
        "--sensitive",
        "disease",
    ]
    start = time.perf_counter()
    out = run("report", *args, "--out", str(tmp_path / "missing" / "r.html"))
    assert out.returncode == 2 and "does not exist" in out.stderr
    out = run("report", *args, "--out", str(tmp_path / "r.docx"))
    assert out.returncode == 2 and ".html or .pdf" in out.stderr
    assert time.perf_counter() - start < 1.0


def test_one_options_table_sets_attack_sizes_from_the_rows():
    small, large = measure_options(2_000), measure_options(80_000)
    # 500 random predicates (the papers' protocol: 2,000 per configuration), never one per
    # record: that saturates and reads a full copy as 0.23
    assert small["singling_out"]["n_attacks"] == "auto" == large["singling_out"]["n_attacks"]
    assert measure_options(2_000, n_attacks=300)["singling_out"]["n_attacks"] == 300
    assert small["inference"]["n_attacks"] is None and large["inference"]["n_attacks"] == 500
    with pytest.raises(ValueError, match="alpha"):
        measure_options(100, alpha=0)


def test_fidelity_refuses_an_unknown_sensitive_column_even_without_a_control(files):
    out = run(
        "fidelity",
        "--real",
        str(files / "train.csv"),
        "--synthetic",
        str(files / "cart.csv"),
        "--sensitive",
        "nope",
    )
    assert out.returncode == 2 and "--sensitive" in out.stderr and "'nope'" in out.stderr


def test_a_column_name_with_a_comma_can_be_named_quoted(tmp_path):
    frame = simulate_health(300, seed=5).rename(columns={"age": "age, in years"})
    frame.to_csv(tmp_path / "r.csv", index=False)
    out = run(
        "privacy",
        "--real",
        str(tmp_path / "r.csv"),
        "--synthetic",
        str(tmp_path / "r.csv"),
        "--qi",
        '"age, in years",gender',
        "--sensitive",
        "disease",
        "--metrics",
        "ims",
        "--json",
        "-",
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["metrics"]["ims"]["value"] == 1.0


def test_a_table_of_constant_columns_is_refused_with_its_cause(tmp_path):
    frame = simulate_health(50, seed=5).assign(gender="x", age=1, education="y", income=2, health=3)
    frame.to_csv(tmp_path / "c.csv", index=False)
    out = run(
        "privacy",
        "--real",
        str(tmp_path / "c.csv"),
        "--synthetic",
        str(tmp_path / "c.csv"),
        "--sensitive",
        "disease",
    )
    assert out.returncode == 2 and "constant" in out.stderr


@pytest.mark.parametrize("command", ["privacy", "fidelity", "report"])
def test_the_command_line_defaults_are_the_engines_options(command):
    """The flags' defaults give the engine's option table (the app's pages use it too)."""
    from privacy_core.cli import build_parser
    from privacy_core.cli.commands import measure_options_from_args

    argv = [command, "--real", "r.csv", "--synthetic", "s.csv", "--sensitive", "disease"]
    if command == "report":
        argv += ["--out", "r.html"]
    cli = measure_options_from_args(build_parser().parse_args(argv), 2_000)
    engine = measure_options(2_000)
    for name in (
        "dcr",
        "knn",
        "singling_out",
        "linkability",
        "inference",
        "ml_inference",
        "gtcap",
        "wasserstein",
        "mla",
        "query_error",
        "discriminator",
    ):
        assert cli[name] == engine[name], name
