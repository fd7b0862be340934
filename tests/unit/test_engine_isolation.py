"""The engine never sees the UI: privacy_core works with Streamlit blocked (STYLE.md §1)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import privacy_core

PACKAGE = Path(privacy_core.__file__).resolve().parent
ROOT = PACKAGE.parent
UI_MODULES = ("streamlit",)

BLOCKED_IMPORT = textwrap.dedent(
    """
    import sys
    sys.modules["streamlit"] = None  # any `import streamlit` now raises ImportError
    import privacy_core
    import privacy_core.risk
    import privacy_core.plots
    import privacy_core.cli
    from privacy_core import ThreatModel, prepare_review, simulate_health, synthesize
    real = simulate_health(60, seed=0)
    data = prepare_review(real, real, threat=ThreatModel(["age"], ["disease"]))
    synthetic = synthesize(data.real, method="histogram", seed=0)
    assert len(synthetic) == 60
    try:
        import streamlit  # noqa: F401
    except ImportError:
        pass
    else:
        raise SystemExit("streamlit was importable: the block did not work")
    loaded = sorted(m for m in sys.modules if m.split(".")[0] == "streamlit")
    print("OK", loaded)
    """
)


def test_package_imports_and_runs_with_streamlit_blocked():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", BLOCKED_IMPORT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "OK ['streamlit']", proc.stdout


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


_DYNAMIC = re.compile(r"""(import_module|__import__)\(\s*['"]streamlit""")


def test_no_module_of_the_engine_imports_streamlit():
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) >= 15, files  # the scan really covers the package
    offenders = []
    for path in files:
        tops = {name.split(".")[0] for name in _imported_modules(path)}
        if tops & set(UI_MODULES) or _DYNAMIC.search(path.read_text(encoding="utf-8")):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_the_scanner_would_see_an_import(tmp_path):
    sample = tmp_path / "page.py"
    sample.write_text("import os\nfrom streamlit.runtime import exists\n", encoding="utf-8")
    assert "streamlit.runtime" in _imported_modules(sample)
    assert _DYNAMIC.search("importlib.import_module('streamlit')")
