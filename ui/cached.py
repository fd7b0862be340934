"""Cached wrappers of engine calls: the only module (with state.py) that knows st.cache_*.

Cheap, pure data steps use ``st.cache_data``. Fitted evaluations (RAPID's per-record
scores and bootstrap weights) live in a small LRU held by ``st.cache_resource``: the
result objects are frozen and never mutated, so handing the same object to every rerun
is safe, and moving a threshold slider only calls ``result.at(...)``. Keys of uploaded
data carry the session's random salt, so one session never reaches another's results.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

import privacy_core as pc

from .workspace import Workspace


class LRU:
    def __init__(self, size: int):
        self.size = size
        self.data: OrderedDict[str, Any] = OrderedDict()
        self.lock = threading.Lock()
        self.pending: dict[str, list] = {}  # key -> [its lock, sessions waiting or computing]

    def get(self, key: str) -> Any:
        with self.lock:
            if key in self.data:
                self.data.move_to_end(key)
                return self.data[key]
        return None

    def put(self, key: str, value: Any) -> None:
        with self.lock:
            self.data[key] = value
            self.data.move_to_end(key)
            while len(self.data) > self.size:
                self.data.popitem(last=False)

    @contextlib.contextmanager
    def computing(self, key: str):
        """Held while ``key`` is computed: a second session asking for the same key (the
        whole class on the built-in demo) waits for the first one's result instead of
        computing it again on the same two cores."""
        with self.lock:
            entry = self.pending.setdefault(key, [threading.Lock(), 0])
            entry[1] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self.lock:
                entry[1] -= 1
                if entry[1] == 0:
                    self.pending.pop(key, None)


@st.cache_resource(show_spinner=False)
def _evaluations() -> LRU:
    return LRU(size=64)


SESSION_SALT = "session_salt"  # the session-state key of :func:`session_salt`


def session_salt() -> str:
    """A random id of this browser session, mixed into cache keys of uploaded data."""
    if SESSION_SALT not in st.session_state:
        st.session_state[SESSION_SALT] = uuid.uuid4().hex
    return st.session_state[SESSION_SALT]


def scoped_key(ws: Workspace, name: str, params: dict[str, Any]) -> str:
    """Cache key of an evaluation: data + threat model + parameters (+ session salt
    unless every table is built-in).

    The key holds the releases of ``ws`` only. Evaluate a candidate through its view
    (``ws.group_view(name)``): the key then names that release group's releases, and an
    unchanged candidate keeps its results when another one is added (issue 13, item 2).
    """
    builtin = all(t.origin in ("built-in", "generated") for t in (ws.real, *ws.releases))
    scope = "shared" if builtin and ws.dataset != "upload" else session_salt()
    return f"{scope}|{name}|{ws.key}|{sorted(params.items())!r}"


@dataclass(frozen=True)
class Failed:
    """An evaluation that raised, stored under its key like a result: a rerun shows its
    message instead of retrying silently; changed inputs make a new key and a new try."""

    message: str


def cached_evaluation(key: str) -> Any:
    """What is stored under ``key``: a result, a :class:`Failed`, or None."""
    return _evaluations().get(key)


def cached_result(key: str) -> Any:
    """The result stored under ``key``; None when there is none or it failed."""
    hit = cached_evaluation(key)
    return None if isinstance(hit, Failed) else hit


def get_or_compute(key: str, compute: Callable[[], Any]) -> Any:
    """Return the stored evaluation for ``key`` or compute and store it."""
    store = _evaluations()
    hit = store.get(key)
    if hit is not None:
        return hit
    with store.computing(key):
        hit = store.get(key)  # another session may have computed it while this one waited
        if hit is not None:
            return hit
        value = compute()
        store.put(key, value)
    return value


@st.cache_data(show_spinner=False, max_entries=8)
def builtin_tables(
    name: str, n: int | None, kappa: float, seed: int
) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    return pc.builtin_dataset(name, n=n, kappa=kappa, seed=seed)


@st.cache_data(show_spinner=False, max_entries=32)
def canonical_real(fingerprint: str, overrides: tuple, _ws: Workspace) -> pd.DataFrame:
    return pc.prepare_table(_ws.real.frame, _ws.schema)


@st.cache_data(show_spinner=False, max_entries=32)
def linkability_halves(
    fingerprint: str, qis: tuple[str, ...], _ws: Workspace
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The informative split of the quasi-identifiers (``pc.informative_split``): read by
    every measure card on every rerun of the privacy page, computed once per table."""
    a, b = pc.informative_split(_ws.real.frame, list(qis))
    return tuple(a), tuple(b)


@st.cache_data(show_spinner=False, max_entries=32)
def generate_release(
    real_key: str, _real_canonical: pd.DataFrame, method: str, params: tuple, n: int, seed: int
) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gen = pc.make_generator(method, **dict(params)).fit(_real_canonical, seed=seed)
        return gen.sample(n, seed=seed)
