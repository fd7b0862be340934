"""The house gates, run with the suite so the README's one test command checks them too:
ruff's lint rules (E, F, B, SIM, UP, I; pyproject.toml), ruff's formatting, and mypy on the
engine (``privacy_core/``). Each test fails with the tool's own report."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


@pytest.mark.parametrize(
    "command",
    [("ruff", "check", "."), ("ruff", "format", "--check", "."), ("mypy",)],
    ids=["ruff-check", "ruff-format", "mypy"],
)
def test_gate_is_clean(command):
    done = _run(*command)
    assert done.returncode == 0, f"`{' '.join(command)}` failed:\n{done.stdout}\n{done.stderr}"


def test_the_gates_read_the_projects_configuration():
    """The gates check what the project says they check (a gate with no rules passes
    anything)."""
    done = _run("ruff", "check", "--show-settings", "privacy_core/__init__.py")
    for rule in ("E501", "F401", "B905", "SIM102", "UP017", "I001"):
        assert rule.lower() in done.stdout.lower(), rule
    done = _run("mypy", "--version")
    assert done.returncode == 0
    assert 'files = ["privacy_core"]' in (ROOT / "pyproject.toml").read_text()
