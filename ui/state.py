"""Session state: the one place that knows the keys of ``st.session_state``.

The workspace (loaded tables, schema overrides, threat model) is an immutable value. A
page builds a *new* workspace from the current one and a user action, validates it
with the engine, and only then replaces the stored one: a bad upload or a wrong column
choice shows an error next to its control and leaves the previous good state intact.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import urlparse

import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitAPIException

import privacy_core as pc

from . import url_state
from .demo import builtin_workspace, load_default_workspace
from .workspace import Workspace

WORKSPACE = "workspace"
ERRORS = "control_errors"
NOTICES = "control_notices"
NOTES = "control_notes"  # (control, workspace key, notes) of the last commit
RESULTS = "session_results"
# Set by app.py once its navigation has run in this session; a page run without it was
# opened by a deep link on a fresh server, where Streamlit runs ``pages/`` files directly.
NAVIGATION_RAN = "navigation_ran"
DEEP_LINK = "deep_link"
URL_NOTICE = "url"  # what a reload or a shared link could not restore
PAGES_DIR = Path(__file__).resolve().parent.parent / "pages"


# -------------------------------------------------------------------- accessors
def get_workspace() -> Workspace | None:
    return st.session_state.get(WORKSPACE)


def require_workspace() -> Workspace:
    _through_navigation()
    ws = get_workspace()
    if ws is None:
        # a reload or a shared link: rebuild what the address describes (never data)
        ws, notice = url_state.workspace_from_url(builtin_workspace)
        if notice:
            set_notice(URL_NOTICE, notice)
        if ws is None:
            ws = load_default_workspace()
        st.session_state[WORKSPACE] = ws
    return ws


def _through_navigation() -> None:
    """Send a page that runs outside app.py's navigation back through it.

    On a freshly started server, Streamlit serves a deep link such as ``/privacy`` by
    running ``pages/privacy.py`` on its own (the ``pages/`` folder turns on its legacy
    page discovery until app.py has declared ``st.navigation`` once): no sidebar, no
    demo, the automatic page list. The page then remembers where the user wanted to go
    and switches to app.py, which declares the navigation and switches on to that page.
    """
    if st.session_state.get(NAVIGATION_RAN):
        return
    st.session_state[DEEP_LINK] = _running_page()
    try:
        st.switch_page("app.py")
    except StreamlitAPIException:  # the page itself is the entry point: render it alone
        st.session_state.pop(DEEP_LINK, None)


def _running_page() -> str | None:
    """The ``pages/<name>.py`` file a fresh server ran on its own, or None.

    In a browser, the address names it (``st.context.url``, Streamlit's public API; the
    legacy discovery serves ``/<name>`` from ``pages/<name>.py`` and app.py gives every
    page its file's stem as ``url_path``). Without a browser (AppTest, a bare run) there
    is no address, and Streamlit offers no public way to ask which page is running: the
    calling page's own ``__file__`` is read from the stack instead. The browser test
    ``test_deep_link_on_a_fresh_server_keeps_the_navigation`` covers the first path, the
    page AppTests the second.
    """
    url = st.context.url
    if url:
        name = urlparse(url).path.rstrip("/").rpartition("/")[2]
        return f"pages/{name}.py" if name and (PAGES_DIR / f"{name}.py").is_file() else None
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        path = Path(frame.f_globals.get("__file__") or "")
        if path.parent.resolve() == PAGES_DIR and path.suffix == ".py":
            return f"pages/{path.name}"
        frame = frame.f_back
    return None


def commit(ws: Workspace, *, control: str | None = None) -> bool:
    """Validate ``ws`` and store it; on failure keep the old one and show the error.

    The validation's notes (e.g. categories never seen in the real data) are attached to
    the control, shown by its slot for as long as this workspace is the current one.
    """
    try:
        notes = ws.validate()
    except pc.PrivacyCoreError as exc:
        set_error(control or "workspace", str(exc))
        return False
    st.session_state[WORKSPACE] = ws
    clear_error(control or "workspace")
    st.session_state[NOTES] = (control or "workspace", ws.key, notes)
    return True


def get_notes(control: str) -> list[str]:
    """The notes of the commit made through ``control``, while its workspace is current."""
    stored = st.session_state.get(NOTES)
    ws = get_workspace()
    if not stored or ws is None or stored[0] != control or stored[1] != ws.key:
        return []
    return list(stored[2])


def set_error(control: str, message: str) -> None:
    st.session_state.setdefault(ERRORS, {})[control] = message


def clear_error(control: str) -> None:
    st.session_state.setdefault(ERRORS, {}).pop(control, None)


def get_error(control: str) -> str | None:
    return st.session_state.get(ERRORS, {}).get(control)


def set_notice(control: str, message: str) -> None:
    st.session_state.setdefault(NOTICES, {})[control] = message


def pop_notice(control: str) -> str | None:
    return st.session_state.setdefault(NOTICES, {}).pop(control, None)


def store_result(name: str, key: str, value: Any) -> None:
    """Keep a result computed on demand (button) for this session and workspace key."""
    st.session_state.setdefault(RESULTS, {})[name] = (key, value)


def stored_result(name: str, key: str) -> Any:
    entry = st.session_state.get(RESULTS, {}).get(name)
    return entry[1] if entry and entry[0] == key else None


def _kept_key(key: str) -> str:
    """Where :func:`keep` mirrors widget ``key`` (Streamlit drops the widget's own key on
    runs that do not draw it)."""
    return f"_keep_{key}"


def kept(key: str, default: Any = None) -> Any:
    """The value :func:`keep` last mirrored for widget ``key`` (not the widget's own state)."""
    return st.session_state.get(_kept_key(key), default)


def sync_url(ws: Workspace) -> None:
    """Write the workspace and the remembered settings to the address (see
    :func:`ui.url_state.sync`)."""
    url_state.sync(ws, {key: kept(key) for key in url_state.SETTINGS})


def keep(key: str, default: Any) -> None:
    """Give widget ``key`` its remembered value before it is drawn.

    Streamlit forgets a widget's state on runs where the widget is not drawn (e.g. on
    another page); this mirror keeps the user's choice across page switches.
    """
    if key not in st.session_state:
        if _kept_key(key) in st.session_state:
            st.session_state[key] = st.session_state[_kept_key(key)]
        else:  # first draw in this session: a reload or a shared link may carry it
            from_url = url_state.setting_from_url(key)
            st.session_state[key] = default if from_url is None else from_url
    st.session_state[_kept_key(key)] = st.session_state[key]


def keep_shared(key: str, default: Any) -> None:
    """Like :func:`keep`, for a widget drawn on several pages under one key.

    Each page's widget is a different widget to Streamlit, which gives it its default
    instead of the value the other page's widget left; setting the value through the
    Session State API before drawing hands it over. Pair with ``on_change=mirror``.
    """
    st.session_state[key] = st.session_state.get(_kept_key(key), st.session_state.get(key, default))
    st.session_state[_kept_key(key)] = st.session_state[key]


def mirror(key: str) -> None:
    """on_change callback of a :func:`keep_shared` widget (not put in the address)."""
    st.session_state[_kept_key(key)] = st.session_state[key]


def remember(key: str) -> None:
    """on_change callback: mirror the widget's new value (and put it in the address)."""
    st.session_state[_kept_key(key)] = st.session_state[key]
    url_state.write_setting(key, st.session_state[key])


def remembered(key: str, default: Any) -> Any:
    """A widget's remembered value (see :func:`keep`), even on a page that does not draw it."""
    return st.session_state.get(key, st.session_state.get(_kept_key(key), default))


def set_widget(key: str, value: Any) -> None:
    """Set a widget's value from a callback (before the widget is drawn again)."""
    st.session_state[key] = value
    st.session_state[_kept_key(key)] = value
    url_state.write_setting(key, value)


def default_threat(
    schema: pc.Schema, max_qis: int = 6, real: pd.DataFrame | None = None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A starting threat model for an uploaded table, for the user to adjust: the last
    categorical column with two or more classes as sensitive (else the last column); as
    quasi-identifiers, the engine's suggestion when ``real`` is given, else the first other
    columns."""
    sensitive = schema.included[-1]
    for col in reversed(schema.included):
        spec = schema[col]
        if spec.is_categorical and len([c for c in spec.categories if c != pc.MISSING]) >= 2:
            sensitive = col
            break
    if real is not None:
        # demographic, coarse columns rather than every other column: continuous ones such
        # as income make every record unique and saturate singling out (issue 13, item 8)
        return pc.suggest_quasi_identifiers(real, schema, sensitive).columns, (sensitive,)
    qis = tuple(c for c in schema.included if c != sensitive)[:max_qis]
    return qis, (sensitive,)
