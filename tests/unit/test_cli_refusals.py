"""Issue 32: the command line refuses what the app refuses, before any computation.

τ of nan, inf, 2 or −0.5 once read "no risk" for a full copy; ``--n-trees 0`` silently ran
500 trees; a report into a missing folder failed after 49 s of computing. Each now exits
2 with one ``error:`` line — and, for the report, before a single table is read (the
loader is replaced by one that fails the test if called). Wrong versions caught: a range
check in the app only (the CLI computes), a check after the computation, a traceback."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pandas as pd
import pytest

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
