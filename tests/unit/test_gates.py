"""The house gates: ruff's lint rules (E, F, B, SIM, UP, I and mccabe complexity at most 15;
pyproject.toml), ruff's formatting, and mypy on the engine, the UI glue, the pages and the
entry point. They run *before* the tests in the README's test command (and so in CI,
which runs that command verbatim): a formatting slip stops the run in seconds, not after
the whole suite (issue 35). These tests check that arrangement and the gates' settings,
so that a gate cannot quietly check less than it says."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GATES = ("ruff check .", "ruff format --check .", "mypy")


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def readme_test_command() -> str:
    """The second command of the README (the first starts the app)."""
    blocks = re.findall(r"```bash\n(.*?)\n```", (ROOT / "README.md").read_text(), re.S)
    return blocks[1].strip()


def test_the_readme_test_command_runs_every_gate_before_the_tests():
    command = readme_test_command()
    steps = [s.strip() for s in command.split("&&")]
    pytest_at = next(i for i, s in enumerate(steps) if s.startswith("python -m pytest"))
    for gate in GATES:
        assert gate in steps[:pytest_at], f"{gate!r} must run before the tests: {command}"
    # joined by &&: the first failing gate stops the command
    assert "||" not in command and ";" not in command


def test_ci_runs_the_readme_test_command_verbatim():
    assert readme_test_command() in (ROOT / ".ci" / "run").read_text()


def test_the_gates_read_the_projects_configuration():
    """The gates check what the project says they check (a gate with no rules passes
    anything; a complexity rule with no limit set reads ruff's default of 10)."""
    done = _run("ruff", "check", "--show-settings", "privacy_core/__init__.py")
    for rule in ("E501", "F401", "B905", "SIM102", "UP017", "I001", "C901"):
        assert rule.lower() in done.stdout.lower(), rule
    assert re.search(r"max_complexity\s*=\s*15", done.stdout), "mccabe limit is not 15"
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert set(config["tool"]["mypy"]["files"]) == {"privacy_core", "ui", "pages", "app.py"}
    assert _run("mypy", "--version").returncode == 0


def test_the_complexity_gate_catches_a_complex_function(tmp_path):
    """ruff, with the project's settings, rejects a function above the limit (16 branches)."""
    body = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(16))
    planted = tmp_path / "planted.py"
    planted.write_text(f"def f(x):\n{body}\n    return -1\n")
    done = _run("ruff", "check", "--config", str(ROOT / "pyproject.toml"), str(planted))
    assert done.returncode != 0 and "C901" in done.stdout, done.stdout
