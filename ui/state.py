"""Session state: the one place that knows the keys of ``st.session_state``.

The workspace (loaded tables, schema overrides, threat model) is an immutable value. A
page builds a *new* workspace from the current one and a user action, validates it
with the engine, and only then replaces the stored one: a bad upload or a wrong column
choice shows an error next to its control and leaves the previous good state intact.
"""

from __future__ import annotations

import sys
import uuid
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitAPIException

import privacy_core as pc

from . import url_state

WORKSPACE = "workspace"
ERRORS = "control_errors"
NOTICES = "control_notices"
NOTES = "control_notes"  # (control, workspace key, notes) of the last commit
SESSION_SALT = "session_salt"
RESULTS = "session_results"
# Set by app.py once its navigation has run in this session; a page run without it was
# opened by a deep link on a fresh server, where Streamlit runs ``pages/`` files directly.
NAVIGATION_RAN = "navigation_ran"
DEEP_LINK = "deep_link"
URL_NOTICE = "url"  # what a reload or a shared link could not restore


@dataclass(frozen=True)
class Table:
    """A loaded table with its name, origin and content fingerprint.

    ``group`` names the release group (candidate) a synthetic release belongs to: releases
    of one group are replicates of one generator configuration, averaged with mean and
    spread (consensus R10); different groups are candidates shown side by side. Empty: the
    release is a candidate of its own (named after the release).
    """

    name: str
    frame: pd.DataFrame
    origin: str  # "built-in", "upload" or "generated"
    fingerprint: str
    group: str = ""

    @classmethod
    def make(cls, name: str, frame: pd.DataFrame, origin: str, group: str = "") -> Table:
        return cls(name=name, frame=frame, origin=origin, fingerprint=pc.fingerprint(frame),
                   group=group)

    @property
    def candidate(self) -> str:
        """The name of the release group this table belongs to."""
        return self.group or self.name


@dataclass(frozen=True)
class Workspace:
    """Everything the user has loaded and chosen; replaced whole on every change."""

    real: Table
    releases: tuple[Table, ...]
    holdout: Table | None
    quasi_identifiers: tuple[str, ...]
    sensitive: tuple[str, ...]
    overrides: tuple[tuple[str, str], ...] = ()
    dataset: str = "health"  # "health", "adult" or "upload"
    dataset_params: tuple[tuple[str, Any], ...] = ()
    settings: tuple[tuple[str, Any], ...] = field(default=())

    # ---------------------------------------------------------------- derived views
    @property
    def schema(self) -> pc.Schema:
        return _schema(self.real.fingerprint, self.real.frame, self.overrides)

    @property
    def threat(self) -> pc.ThreatModel:
        return pc.ThreatModel(self.quasi_identifiers, self.sensitive)

    @property
    def key(self) -> str:
        """Identifies the data + schema + threat model (for cache keys).

        The releases enter by content only, not by group name: a result is keyed by the
        releases it was computed on (a :meth:`group_view` holds one candidate's), so it
        survives other candidates coming and going and a renamed group.
        """
        parts = [self.real.fingerprint, *(t.fingerprint for t in self.releases),
                 self.holdout.fingerprint if self.holdout else "-", repr(self.overrides),
                 repr(self.quasi_identifiers), repr(self.sensitive)]
        return "|".join(parts)

    # ----------------------------------------------------------- release groups
    def release_groups(self) -> dict[str, tuple[Table, ...]]:
        """The candidates: group name -> its releases, in the order first loaded."""
        groups: dict[str, list[Table]] = {}
        for t in self.releases:
            groups.setdefault(t.candidate, []).append(t)
        return {name: tuple(tables) for name, tables in groups.items()}

    def group_view(self, name: str) -> Workspace:
        """This workspace with the releases of one candidate only.

        Every cache key derives from :attr:`key`, which holds the releases' content and not
        their group names: a result computed on a candidate is found again under its view
        after other candidates are added or removed, or after a group is renamed.
        """
        groups = self.release_groups()
        if name not in groups:
            raise pc.ParameterError(f"No release group {name!r}; the groups are "
                                      f"{list(groups)}.")
        return replace(self, releases=groups[name])

    def candidate_views(self) -> dict[str, Workspace]:
        """Group name -> :meth:`group_view`, one per candidate."""
        return {name: replace(self, releases=tables)
                for name, tables in self.release_groups().items()}

    def with_groups(self, groups: list[str] | tuple[str, ...]) -> Workspace:
        """The releases regrouped: ``groups[i]`` is release i's group name (blank: its own
        candidate). Content and keys stay the same; only the grouping changes."""
        if len(groups) != len(self.releases):
            raise pc.ParameterError(f"Give one group name per release: {len(self.releases)} "
                                      f"releases, {len(groups)} names received.")
        return replace(self, releases=tuple(
            replace(t, group=str(g).strip()) for t, g in zip(self.releases, groups,
                                                              strict=True)))

    def setting(self, name: str, default: Any = None) -> Any:
        return dict(self.settings).get(name, default)

    def with_settings(self, **values: Any) -> Workspace:
        merged = {**dict(self.settings), **values}
        return replace(self, settings=tuple(sorted(merged.items())))

    def validate(self) -> list[str]:
        """Raise the engine's error if the workspace is not usable as a whole.

        Returns the notes worth showing the user: one message naming the categories of
        the releases and the holdout that the real table never holds (accepted, each as
        a category of its own; see ``privacy_core.UnseenCategoryWarning``).
        """
        schema = self.schema
        unseen: dict[str, dict[str, tuple[str, ...]]] = {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", pc.UnseenCategoryWarning)
            real_c = pc.prepare_table(self.real.frame, schema)
            self.threat.validate(schema, real_c)
            for t in self.releases:
                pc.conform_table(t.frame, schema, table=f"synthetic {t.name!r}")
            if self.holdout is not None:
                pc.conform_table(self.holdout.frame, schema,
                                 table=f"holdout {self.holdout.name!r}")
        for w in caught:
            if isinstance(w.message, pc.UnseenCategoryWarning):
                unseen.update(w.message.unseen)
        # one note for all tables rather than one per table
        return [pc.unseen_message(unseen)] if unseen else []


def _schema(fingerprint: str, frame: pd.DataFrame, overrides: tuple[tuple[str, str], ...]
            ) -> pc.Schema:
    return _schema_cached(fingerprint, frame, overrides)


@st.cache_data(show_spinner=False, max_entries=32)
def _schema_cached(fingerprint: str, _frame: pd.DataFrame,
                   overrides: tuple[tuple[str, str], ...]) -> pc.Schema:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pc.infer_schema(_frame, dict(overrides))


# -------------------------------------------------------------------- accessors
def session_salt() -> str:
    """A random id of this browser session, mixed into cache keys of uploaded data."""
    if SESSION_SALT not in st.session_state:
        st.session_state[SESSION_SALT] = uuid.uuid4().hex
    return st.session_state[SESSION_SALT]


def get_workspace() -> Workspace | None:
    return st.session_state.get(WORKSPACE)


def require_workspace() -> Workspace:
    _through_navigation()
    ws = get_workspace()
    if ws is None:
        from .demo import builtin_workspace, load_default_workspace

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
    """The ``pages/<name>.py`` file whose run called us (Streamlit sets its ``__file__``)."""
    frame = sys._getframe(1)
    while frame is not None:
        path = Path(frame.f_globals.get("__file__") or "")
        if path.parent.name == "pages" and path.suffix == ".py":
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


def keep(key: str, default: Any) -> None:
    """Give widget ``key`` its remembered value before it is drawn.

    Streamlit forgets a widget's state on runs where the widget is not drawn (e.g. on
    another page); this mirror keeps the user's choice across page switches.
    """
    if key not in st.session_state:
        if f"_keep_{key}" in st.session_state:
            st.session_state[key] = st.session_state[f"_keep_{key}"]
        else:  # first draw in this session: a reload or a shared link may carry it
            from_url = url_state.setting_from_url(key)
            st.session_state[key] = default if from_url is None else from_url
    st.session_state[f"_keep_{key}"] = st.session_state[key]


def keep_shared(key: str, default: Any) -> None:
    """Like :func:`keep`, for a widget drawn on several pages under one key.

    Each page's widget is a different widget to Streamlit, which gives it its default
    instead of the value the other page's widget left; setting the value through the
    Session State API before drawing hands it over. Pair with ``on_change=mirror``.
    """
    st.session_state[key] = st.session_state.get(f"_keep_{key}",
                                                 st.session_state.get(key, default))
    st.session_state[f"_keep_{key}"] = st.session_state[key]


def mirror(key: str) -> None:
    """on_change callback of a :func:`keep_shared` widget (not put in the address)."""
    st.session_state[f"_keep_{key}"] = st.session_state[key]


def remember(key: str) -> None:
    """on_change callback: mirror the widget's new value (and put it in the address)."""
    st.session_state[f"_keep_{key}"] = st.session_state[key]
    url_state.write_setting(key, st.session_state[key])


def remembered(key: str, default: Any) -> Any:
    """A widget's remembered value (see :func:`keep`), even on a page that does not draw it."""
    return st.session_state.get(key, st.session_state.get(f"_keep_{key}", default))


def set_widget(key: str, value: Any) -> None:
    """Set a widget's value from a callback (before the widget is drawn again)."""
    st.session_state[key] = value
    st.session_state[f"_keep_{key}"] = value
    url_state.write_setting(key, value)


def default_threat(schema: pc.Schema, max_qis: int = 6, real: pd.DataFrame | None = None
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
