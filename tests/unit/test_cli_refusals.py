"""Issue 32: the command line refuses what the app refuses, before any computation.

τ of nan, inf, 2 or −0.5 once read "no risk" for a full copy; ``--n-trees 0`` silently ran
500 trees; a report into a missing folder failed after 49 s of computing. Each now exits
2 with one ``error:`` line — and, for the report, before a single table is read (the
loader is replaced by one that fails the test if called). Wrong versions caught: a range
check in the app only (the CLI computes), a check after the computation, a traceback."""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
import privacy_core.cli.commands as cli_commands
from privacy_core.cli import main


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def _on(command: str, table: str, qi: str, *extra: str) -> tuple[int, str, str]:
    """``command`` on ``table`` as both real and release, with ``disease`` sensitive."""
    return _run(command, "--real", table, "--synthetic", table, "--qi", qi,
                "--sensitive", "disease", *extra)  # fmt: skip


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 60, 200),
            "region": rng.choice(["n", "s", "e"], 200),
            "c,d": rng.choice(["x", "y"], 200),  # a column name with a comma
            "disease": rng.choice(["yes", "no"], 200),
        }
    )
    path = tmp_path_factory.mktemp("cli_refusals") / "real.csv"
    frame.to_csv(path, index=False)
    return str(path)


@pytest.fixture
def no_reading(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the inputs were read before the refusal")

    monkeypatch.setattr(cli_commands, "load_input", refuse)


@pytest.mark.parametrize("tau", ["nan", "inf", "2", "-0.5"])
def test_rapid_refuses_a_tau_outside_0_1(table, tau, no_reading):
    code, out, err = _on("rapid", table, "age,region", "--tau", tau)
    assert code == 2 and out == ""
    assert err.startswith("error: `tau` must be in [0.0, 1.0]") and err.count("\n") == 1


def test_rapid_refuses_zero_trees(table, no_reading):
    code, _, err = _on("rapid", table, "age", "--n-trees", "0")
    assert code == 2 and err.startswith("error: `n_trees` must be an integer >= 1; got 0.")


@pytest.mark.parametrize(
    "out, message",
    [
        ("/missing/dir/r.html", "the folder '/missing/dir' does not exist; create it first"),
        ("r.docx", "--out must end in .html or .pdf"),
    ],
)
def test_report_checks_its_output_before_reading_anything(table, out, message, no_reading):
    code, _, err = _on("report", table, "age", "--out", out)
    assert code == 2 and message in err and err.startswith("error:")


def test_a_column_name_with_a_comma_is_named_by_quoting_it(table):
    code, out, err = _on("rapid", table, 'age,"c,d"', "--n-trees", "20", "--json", "-")
    assert code == 0, err
    assert '"c,d"' in out or "c,d" in out


def test_an_all_constant_table_names_the_cause(tmp_path):
    path = tmp_path / "const.csv"
    pd.DataFrame({"x": [1] * 5, "y": [2] * 5, "s": ["a"] * 5}).to_csv(path, index=False)
    code, _, err = _run("rapid", "--real", str(path), "--synthetic", str(path), "--sensitive", "s")
    assert code == 2 and "is constant (one value in every row)" in err


# ----------------------------------------------------------- --weights (issue 34)
@pytest.fixture(scope="module")
def weighted(tmp_path_factory):
    """A real table with sampling weights, its bad variants, and a release without them."""
    rng = np.random.default_rng(5)
    n = 120
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 30, n),
            "region": rng.choice(["n", "s"], n),
            "disease": rng.choice(["yes", "no"], n),
            "w": rng.uniform(1, 50, n).round(1),
        }
    )
    folder = tmp_path_factory.mktemp("cli_weights")
    paths = {}
    for name, table in {
        "real": frame,
        "release": frame.drop(columns="w").sample(frac=1.0, random_state=1),
        "below_one": frame.assign(w=0.5),
        "text": frame.assign(w="many"),
        "gap": frame.assign(w=[np.nan] + [2.0] * (n - 1)),
    }.items():
        paths[name] = str(folder / f"{name}.csv")
        table.to_csv(paths[name], index=False)
    return paths


def test_weights_reach_individual_risk_and_stay_out_of_the_default_qis(weighted):
    """Wrong versions caught: --weights parsed but not put in the threat model (params
    weights None), the weight column among the default QIs, a release without it refused
    as missing a column, fidelity reading it as an attribute."""
    code, out, err = _run("privacy", "--real", weighted["real"], "--synthetic",
                          weighted["release"], "--sensitive", "disease", "--weights", "w",
                          "--metrics", "individual_risk,ims", "--json", "-")  # fmt: skip
    assert code == 0, err
    metrics = json.loads(out)["metrics"]
    # the release lacks the column and is accepted; QIs default to all but disease and w
    assert metrics["individual_risk"]["params"]["weights"] == "w"
    assert metrics["individual_risk"]["params"]["quasi_identifiers"] == ["age", "region"]
    # fidelity without a threat model still leaves the weight column out
    code, out, err = _run("fidelity", "--real", weighted["real"], "--synthetic",
                          weighted["release"], "--weights", "w", "--metrics", "wasserstein",
                          "--json", "-")  # fmt: skip
    assert code == 0, err
    marginals = json.loads(out)["metrics"]["wasserstein"]["by_marginal"]
    assert marginals and not any("w" in k.split("|") for k in marginals)


@pytest.mark.parametrize(
    "real, extra",
    [
        ("real", ("--weights", "nope")),
        ("below_one", ("--weights", "w")),
        ("text", ("--weights", "w")),
        ("gap", ("--weights", "w")),
        ("real", ("--weights", "w", "--qi", "age,w")),
        ("real", ("--weights", "w", "--qi", "age", "--sensitive", "disease,w")),
    ],
)
def test_a_bad_weight_column_exits_2_with_the_engines_message(weighted, real, extra):
    """Wrong versions caught: the CLI's own wording (it must be the engine's, which the
    app shows too), a traceback, a bad column let through to a weighted F_k."""
    argv = ["privacy", "--real", weighted[real], "--synthetic", weighted["release"],
            "--metrics", "individual_risk", *extra]  # fmt: skip
    if "--sensitive" not in extra:
        argv += ["--sensitive", "disease"]
    code, out, err = _run(*argv)
    frame = pd.read_csv(weighted[real])
    args = dict(zip(extra[::2], extra[1::2], strict=True))
    qis = args.get("--qi", "age,region").split(",")
    sensitive = args.get("--sensitive", "disease").split(",")
    with pytest.raises(pc.ThreatModelError) as engine:  # the engine's own words
        pc.ThreatModel(qis, sensitive, weights=args["--weights"]).validate_weights(frame)
    assert code == 2 and out == ""
    assert err == f"error: {engine.value}\n"
