"""The import graph keeps the layering DESIGN.md describes: no circles in the engine or the
UI glue, no Streamlit in the engine, nothing in the engine importing the command line, and
pages that use only public names.

Imports are read from the source (every ``import`` statement, also the ones inside
functions, because a lazy import hides a circle rather than removing it); only imports
under ``if TYPE_CHECKING:`` are left out, since they never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("privacy_core", "ui")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _runtime_nodes(tree: ast.AST):
    """Every node except those under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _imports(path: Path, name: str) -> list[tuple[str, list[str]]]:
    """(absolute module, imported names) of each import statement in the file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.extend((a.name, []) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out.append((module, [a.name for a in node.names]))
    return out


def _resolve(module: str) -> str | None:
    """The project module an import lands in (a submodule's package when it is not one)."""
    while module and module not in MODULES:
        module = module.rpartition(".")[0]
    return module or None


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        for module, names in _imports(path, name):
            # ``from pkg import sub`` imports the submodule, not pkg's __init__ alone
            targets = [
                f"{module}.{n}" if f"{module}.{n}" in MODULES else module for n in names
            ] or [module]
            for target in map(_resolve, targets):
                if target and target != name:
                    graph[name].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle through each strongly connected component of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan; the graph has ~100 nodes, recursion is fine
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return components


def test_the_reader_sees_every_module_and_finds_a_planted_circle():
    assert {"privacy_core", "privacy_core.cli", "privacy_core.risk.rapid", "ui.state"} <= set(
        MODULES
    )
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_circle(package):
    graph = _graph()
    circles = [c for c in _cycles(graph) if c[0].split(".")[0] == package]
    assert circles == [], f"import circles in {package}/: {circles}"


def test_the_engine_never_imports_streamlit_or_the_command_line():
    offenders = []
    graph = _graph()
    for name, path in MODULES.items():
        if not name.startswith("privacy_core"):
            continue
        offenders += [
            f"{name} imports streamlit"
            for module, _ in _imports(path, name)
            if module.split(".")[0] == "streamlit"
        ]
        in_cli = name == "privacy_core.cli" or name.startswith("privacy_core.cli.")
        if not in_cli and name != "privacy_core.__main__":
            # resolved edges: ``from .. import cli`` counts as well as ``from .cli import x``
            offenders += [
                f"{name} imports {t}"
                for t in graph[name]
                if t == "privacy_core.cli" or t.startswith("privacy_core.cli.")
            ]
    assert offenders == []


def test_pages_use_only_public_names():
    """A page imports public names and reads no private attribute of the engine or the
    UI glue (the session keys and helpers behind them belong to ``ui.state``)."""
    offenders = []
    for path in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                offenders += [
                    f"{path.name}: from {node.module} import {a.name}"
                    for a in node.names
                    if a.name.startswith("_")
                ]
            elif (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                offenders.append(f"{path.name}:{node.lineno} .{node.attr}")
    assert offenders == []


def test_only_ui_state_knows_the_session_keys_behind_kept_widgets():
    """``keep`` mirrors a widget under a private key; everyone else asks ``ui.state``."""
    files = [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "ui").glob("*.py")]
    readers = sorted(
        p.relative_to(ROOT).as_posix() for p in files if "_keep_" in p.read_text(encoding="utf-8")
    )
    assert readers == ["ui/state.py"]


def test_pages_use_the_flat_public_api():
    """Pages reach the engine through ``privacy_core`` and ``privacy_core.plots`` and only
    through names those packages list in ``__all__`` (issue 12: no engine internals in
    the pages)."""
    import privacy_core
    import privacy_core.plots

    public = {
        "privacy_core": set(privacy_core.__all__) | {"plots"},
        "privacy_core.plots": set(privacy_core.plots.__all__),
    }
    offenders = []
    for path in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]:
        aliases: dict[str, str] = {}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("privacy_core"):
                        if a.name not in public:
                            offenders.append(f"{path.name}: import {a.name}")
                        aliases[a.asname or a.name] = a.name
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "privacy_core"
            ):
                if node.module not in public:
                    offenders.append(f"{path.name}: from {node.module} import ...")
                    continue
                offenders += [
                    f"{path.name}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name not in public[node.module]
                ]
                if node.module == "privacy_core":
                    aliases.update(
                        {
                            a.asname or a.name: "privacy_core.plots"
                            for a in node.names
                            if a.name == "plots"
                        }
                    )
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                module = aliases.get(node.value.id)
                if module and node.attr not in public[module]:
                    offenders.append(f"{path.name}:{node.lineno} {node.value.id}.{node.attr}")
    assert offenders == []


MODULE_LINES_WITHOUT_REASON = 600


def test_a_large_engine_module_says_why_it_is_one_module():
    """Issue 12: no engine module above ~600 lines without a reason written at its top."""
    silent = []
    for name, path in MODULES.items():
        if not name.startswith("privacy_core"):
            continue
        text = path.read_text(encoding="utf-8")
        doc = ast.get_docstring(ast.parse(text)) or ""
        if len(text.splitlines()) > MODULE_LINES_WITHOUT_REASON and "Why one module:" not in doc:
            silent.append(f"{name} ({len(text.splitlines())} lines)")
    assert silent == []


# ------------------------------------------------------------ issue 35: a house to hand over
SOURCES = {**MODULES, "app": ROOT / "app.py"} | {
    f"pages.{p.stem}": p for p in sorted((ROOT / "pages").glob("*.py"))
}
MODULE_LINES_MAX = 800
FUNCTION_LINES_MAX = 120


def _private_imports(path: Path, name: str) -> list[str]:
    """``from X import _name`` where X is another project module (a module's private
    helpers are its own; what others need gets a public name where it lives)."""
    out = []
    for module, names in _imports(path, name):
        for imported in names:
            if not imported.startswith("_") or imported.startswith("__"):
                continue
            target = _resolve(module) or module
            if target != name and target.split(".")[0] in ("privacy_core", "ui", "pages"):
                out.append(f"{name}: from {module} import {imported}")
    return out


def test_the_private_import_reader_finds_a_planted_one(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        "from privacy_core.stats import _secret\nfrom .stats import child_seeds, _x\n"
        "from privacy_core.stats import __version__\n"
    )
    found = sorted(_private_imports(planted, "privacy_core.planted"))
    assert found == [
        "privacy_core.planted: from privacy_core.stats import _secret",
        "privacy_core.planted: from privacy_core.stats import _x",
    ]


def test_no_private_name_is_imported_across_modules():
    offenders = [o for name, path in SOURCES.items() for o in _private_imports(path, name)]
    assert offenders == []


def test_no_source_module_over_800_lines():
    long = {
        name: n
        for name, path in SOURCES.items()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES_MAX
    }
    assert long == {}


def test_no_function_over_120_lines():
    """From ``def`` (decorators excluded) to its last line, docstring included."""
    long = []
    for name, path in SOURCES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > FUNCTION_LINES_MAX:
                    long.append(f"{name}.{node.name} ({lines} lines)")
    assert long == []
