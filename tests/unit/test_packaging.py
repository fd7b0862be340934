"""The package installs from pyproject.toml, the one list of its dependencies.

A wrong packaging caught here: a module the engine imports that pyproject.toml does not
declare (``pip install .`` then gives a broken ``privacy-review``: SQLAlchemy was
missing), a template left out of the package data (the report fails after install), an
entry point that names a function that is not there, and an install that only works from
the checkout (the review below runs from another folder)."""

from __future__ import annotations

import ast
import importlib.metadata as md
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
# imported only inside a function, behind an ImportError that names what to install: the
# Ray backend (the "ray" extra) and the DP generators (requirements-dp.txt, --no-deps)
OPTIONAL = {"ray": "ray", "snsynth": "requirements-dp.txt"}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _engine_imports() -> set[str]:
    found = set()
    for path in (ROOT / "privacy_core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names) - {"privacy_core", "__future__"}


def test_every_module_the_engine_imports_is_a_declared_dependency():
    declared = {_name(r) for r in PYPROJECT["project"]["dependencies"]}
    extras = PYPROJECT["project"]["optional-dependencies"]
    distributions = md.packages_distributions()
    undeclared = []
    for module in sorted(_engine_imports()):
        if module in OPTIONAL:
            where = OPTIONAL[module]
            assert where in extras or (ROOT / where).exists(), module
            continue
        names = {d.lower().replace("_", "-") for d in distributions.get(module, [])}
        if not names & declared:
            undeclared.append(f"{module} ({', '.join(sorted(names)) or 'not installed'})")
    assert undeclared == []
    # the app's own dependency is the "app" extra, not the engine's (it never imports it)
    assert "streamlit" not in declared and any("streamlit" in r for r in extras["app"])


def test_the_requirements_files_install_from_pyproject():
    for name, extras in (("requirements.txt", "app"), ("requirements-dev.txt", "app,test,docs")):
        lines = [
            line.strip()
            for line in (ROOT / name).read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")
        ]
        assert lines == [f"-e .[{extras}]"], name


def test_a_fresh_environment_installs_the_package_and_runs_a_review(tmp_path):
    """``pip install`` of the built wheel into a new virtual environment (the dependencies
    seen from this one, so nothing is downloaded), then ``privacy-review --help`` and one
    review, run from a folder outside the checkout."""
    # the wheel is built from a copy (the checkout stays clean) by this environment's
    # setuptools, then installed into the new environment without its dependencies
    import shutil

    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "privacy_core", src / "privacy_core", ignore=shutil.ignore_patterns("__pycache__")
    )
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "dist"),
            str(src),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    env_dir = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    python = env_dir / "bin" / "python"
    # the dependencies from this environment: its site-packages as a plain path after the
    # new environment's own (a path line, so this environment's editable install of the
    # checkout is not picked up)
    import sysconfig

    own = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(own, "outer_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    work = tmp_path / "work"
    work.mkdir()
    where = subprocess.run(
        [str(python), "-c", "import privacy_core; print(privacy_core.__file__)"],
        cwd=work,
        capture_output=True,
        text=True,
    )
    assert str(env_dir) in where.stdout, where  # the installed copy, not the checkout
    cli = env_dir / "bin" / "privacy-review"
    assert subprocess.run([str(cli), "--help"], capture_output=True).returncode == 0
    # the review's inputs are written here (what `demo-data` and `synthesize` would write):
    # each command of the installed package pays its start-up (torch, scikit-learn), and
    # those two catch nothing the review does not (its imports, templates, entry point)
    import privacy_core as pc

    real = pc.simulate_health(400, seed=1)
    real.to_csv(work / "real.csv", index=False)
    pc.simulate_health(200, seed=2).to_csv(work / "hold.csv", index=False)
    pc.synthesize(real, method="cart", seed=3).to_csv(work / "syn.csv", index=False)
    (work / "review.toml").write_text(
        'seed = 0\n[data]\nreal = "real.csv"\ncontrol = "hold.csv"\n'
        '[[release]]\npath = "syn.csv"\ngroup = "CART"\n'
        '[threat]\nquasi_identifiers = ["age", "education", "gender"]\nsensitive = ["disease"]\n'
        '[measures]\nprivacy = ["ims", "dcr", "reproduced_uniques"]\n'
    )
    out = subprocess.run(
        [str(cli), "review", "--config", "review.toml", "--out", "r.html", "--json", "-"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode in (0, 3, 4), out.stderr[-3000:]
    doc = json.loads(out.stdout)
    assert doc["candidates"]["CART"]["verdict"] in ("below", "above", "inconclusive")
    assert "<html" in (work / "r.html").read_text(encoding="utf-8").lower()
