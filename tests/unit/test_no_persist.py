"""Nothing at rest, by reading the code (issue 16): the fast half of the browser test
tests/e2e/test_promises_browser.py, which searches the disk after a real review.

Streamlit caches stay in memory unless a cache is declared with ``persist=``; the app's
config turns on no persistence; the app's code writes no file; the engine's parallel
paths do not dump the user's table to disk (joblib's memory-mapping, Ray's spilling).
"""

import ast
import inspect
import tomllib
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parents[2]
APP_FILES = sorted([ROOT / "app.py", *(ROOT / "ui").glob("*.py"), *(ROOT / "pages").glob("*.py")])

# calls that put bytes on disk; the app hands data to the browser (download buttons) only
WRITERS = {
    "open",
    "to_csv",
    "to_parquet",
    "to_pickle",
    "to_excel",
    "to_json",
    "to_feather",
    "write_bytes",
    "write_text",
    "save",
    "savez",
    "dump",
    "savefig",
    "write_image",
    "NamedTemporaryFile",
    "TemporaryFile",
    "mkstemp",
    "mkdtemp",
    "TemporaryDirectory",
}


def _calls(path: Path):
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            yield name, node


def test_every_streamlit_cache_is_in_memory():
    caches = []
    for path in APP_FILES:
        for name, call in _calls(path):
            if name.startswith("cache"):  # st.cache_data, st.cache_resource, legacy st.cache
                caches.append(f"{path.name}:{call.lineno}")
                keywords = {k.arg for k in call.keywords}
                assert "persist" not in keywords, f"{path.name}:{call.lineno} persists a cache"
                assert None not in keywords, f"{path.name}:{call.lineno}: **kwargs hide options"
    # the app does cache (ui/cached.py, ui/state.py, ui/fidelity.py): the scan saw them
    assert len(caches) >= 8, caches
    # and a cache declared without persist= stays in memory in this Streamlit
    assert inspect.signature(st.cache_data.__call__).parameters["persist"].default is None


def test_the_config_keeps_nothing_on_the_server():
    text = (ROOT / ".streamlit" / "config.toml").read_text()
    config = tomllib.loads(text)

    def keys(table, prefix=""):
        for k, v in table.items():
            yield from keys(v, f"{prefix}{k}.") if isinstance(v, dict) else [(prefix + k, v)]

    found = dict(keys(config))
    assert found, "config.toml parsed to nothing"
    assert not [k for k, v in found.items() if "persist" in f"{k}={v}".lower()]
    # no folder of files served from the server's disk, XSRF kept on (issue 16's premises)
    assert found.get("server.enableStaticServing", False) is False
    assert found.get("server.enableXsrfProtection") is True
    assert not (ROOT / ".streamlit" / "secrets.toml").exists()


def test_the_app_code_writes_no_file():
    writes = [
        f"{path.relative_to(ROOT)}:{call.lineno} {name}()"
        for path in APP_FILES
        for name, call in _calls(path)
        # to_csv()/to_json() without a path return text for a download button
        if name in WRITERS
        and not (
            name in ("to_csv", "to_json")
            and not call.args
            and not any(k.arg in ("path_or_buf", "path") for k in call.keywords)
        )
    ]
    # the one write the app makes: a review the user saves on request into the review
    # database, aggregates only (privacy_core.history drops per-record tables; tested in
    # tests/unit/test_history.py and tests/app/test_history_page.py)
    allowed = {"ui/history.py save()"}
    writes = [w for w in writes if f"{w.split(':')[0]} {w.split(' ')[1]}" not in allowed]
    assert not writes, "the app writes files: " + ", ".join(writes)
    saves = [
        f"{path.relative_to(ROOT)}"
        for path in APP_FILES
        for name, _ in _calls(path)
        if name == "save"
    ]
    assert saves == ["ui/history.py"], saves  # and nowhere else


def test_the_app_reaches_ray_only_when_the_user_asks_and_joblib_does_not_dump_the_table():
    # Ray is opt-in (issue 14): the only address the app passes on is the one the user
    # typed into the Data page's form (ui/compute.py), kept in the session and never read
    # from the page's address, so a shared link cannot send someone's records to a cluster
    for path in APP_FILES:
        tree = ast.parse(path.read_text())
        imports = [
            a.name
            for n in ast.walk(tree)
            if isinstance(n, (ast.Import, ast.ImportFrom))
            for a in n.names
        ] + [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [m for m in imports if m.split(".")[0] == "ray"], path
        for _, call in _calls(path):
            for k in call.keywords:
                if k.arg in ("backend", "address", "ray_address"):
                    assert not isinstance(k.value, ast.Constant) or k.value.value == "local", (
                        f"{path.name}:{call.lineno} hard-codes {k.arg}={k.value.value!r}"
                    )
                if k.arg in ("address", "ray_address"):
                    func = getattr(k.value, "func", None)
                    assert getattr(func, "id", None) == "ray_address", (
                        f"{path.name}:{call.lineno} joins a cluster the user did not name"
                    )
    compute = (ROOT / "ui" / "compute.py").read_text()
    assert "query_params" not in compute and "url_state" not in compute
    assert "keep(" not in compute and "remember" not in compute  # not mirrored to the URL
    # joblib memory-maps arrays over max_nbytes into /dev/shm or /tmp for its workers:
    # the engine's one Parallel (the sweeps' and MDS's fan-out) must turn that off
    engine = ROOT / "privacy_core" / "parallel.py"
    parallels = [call for name, call in _calls(engine) if name == "Parallel"]
    assert parallels
    for call in parallels:
        nbytes = {k.arg: k.value for k in call.keywords}.get("max_nbytes")
        assert isinstance(nbytes, ast.Constant) and nbytes.value is None, (
            f"parallel.py:{call.lineno}: Parallel without max_nbytes=None dumps the "
            "user's table to disk"
        )
    # ... and no other engine module starts joblib workers of its own
    for path in sorted((ROOT / "privacy_core").rglob("*.py")):
        if path.name != "parallel.py":
            assert "Parallel(" not in path.read_text(), path
    # a Ray started by the engine itself ("local") runs with object spilling off
    source = engine.read_text()
    assert '"automatic_object_spilling_enabled": False' in source
