"""Run an engine call with a progress bar, turning any failure into a message.

The app never shows a traceback: engine input errors are shown verbatim (they say what
to fix), anything unexpected is reported briefly, and the session's data and settings
are untouched either way.

Long, stoppable work (the risk lab's sweeps and the calibration of the measures) runs
through :func:`run_stoppable`: a progress bar, a Stop button wired to the engine's
``should_stop`` through a session flag, and partial results kept for the session. A
click in the browser while a script runs interrupts that run (Streamlit reruns the
page at the next element it draws), so the rows finished so far are also mirrored into
the session as they arrive (``keep_partial``): the rerun that the Stop click starts
finds them there (:func:`stoppable_result`) and shows them as a stopped result.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import streamlit as st
from threadpoolctl import threadpool_limits

import privacy_core as pc
from privacy_core.progress import ProgressFn
from privacy_core.risk.neighbors import search_backend

from .cached import LRU, Failed, cached_evaluation, get_or_compute
from .compute import engine_backend
from .jobs import queue_message, server_slots
from .state import set_error, store_result, stored_result

T = TypeVar("T")

STOP_FLAG = "lab_stop"  # set by the Stop button, read by the running work's should_stop
LIVE = "running_partial"  # {name: (key, partial result)} while stoppable work runs


def run_cached(
    key: str, label: str, compute: Callable[[Callable[[float, str], None]], T]
) -> T | None:
    """Compute (or fetch) one evaluation with a live progress bar; None on failure.

    The one failure policy of the app's evaluations (shared with :func:`run_jobs`): a
    failure is stored as :class:`~ui.cached.Failed` under its key and its message shown,
    so a rerun shows it again instead of retrying; other sessions waiting on the same key
    get it too.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", pc.PrivacyCoreWarning)
        with st.status(label, expanded=True) as status:
            bar = st.progress(0.0, text="Starting…")

            def progress(fraction: float, message: str) -> None:
                bar.progress(min(max(float(fraction), 0.0), 1.0), text=message)

            result = get_or_compute(
                key, lambda: _in_slot(lambda: _attempt(compute, progress), progress)
            )
            failed = isinstance(result, Failed)
            status.update(
                label=f"{label} — {'failed' if failed else 'done'}",
                state="error" if failed else "complete",
                expanded=False,
            )
    if isinstance(result, Failed):
        st.error(result.message, icon=":material/warning:")
        return None
    show_warnings(list(caught))
    return result


def _in_slot(work: Callable[[], T], progress: ProgressFn) -> T:
    """``work()`` once the server has a free slot for it (ui.jobs): while it waits, the
    progress bar says where this session stands in the queue."""
    with server_slots().slot(lambda *where: progress(0.0, queue_message(*where))):
        return work()


def _attempt(compute: Callable[[ProgressFn], T], progress: ProgressFn) -> T | Failed:
    """``compute(progress)``, or a :class:`~ui.cached.Failed` with a message for the user:
    the engine's own for bad input, a short note for anything unexpected (the app never
    shows a traceback, and the session's data and settings stay as they were)."""
    try:
        return compute(progress)
    except pc.PrivacyCoreError as exc:
        return Failed(str(exc))
    except Exception as exc:  # noqa: BLE001  # the app must not crash to a traceback
        return Failed(
            f"The computation failed unexpectedly ({type(exc).__name__}: {exc}). "
            "Your data and settings are kept; try other settings or a smaller subset."
        )


# While set, measures' notes are collected here instead of drawn (the Overview fills its
# cards quietly: each note is shown on the page of its measure)
_COLLECTING: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "collected_notes", default=None
)


@contextlib.contextmanager
def collected_notes() -> Iterator[list[str]]:
    """Collect the measures' warnings of the work inside, instead of drawing them."""
    notes: list[str] = []
    token = _COLLECTING.set(notes)
    try:
        yield notes
    finally:
        _COLLECTING.reset(token)


def show_warnings(caught: list[Any]) -> None:
    collecting = _COLLECTING.get()
    seen = set()
    for w in caught:
        # The data page shows the unseen-category note when the tables are loaded; every
        # measure re-reads the tables, and repeating it under each would bury the
        # measures' own warnings.
        if issubclass(w.category, pc.UnseenCategoryWarning):
            continue
        if issubclass(w.category, pc.PrivacyCoreWarning) and str(w.message) not in seen:
            seen.add(str(w.message))
            if collecting is not None:
                collecting.append(str(w.message))
            else:
                st.warning(str(w.message))


def guarded(fn: Callable[[], T], *, control: str | None = None) -> T | None:
    """Call ``fn``; on failure show the error instead of raising.

    With ``control`` the message is attached to that control (shown by its error slot,
    surviving the rerun that follows an action); without, it is shown in place.
    """
    try:
        return fn()
    except pc.PrivacyCoreError as exc:
        message = str(exc)
    except Exception as exc:
        message = (
            f"Unexpected error ({type(exc).__name__}: {exc}). Your data and settings are kept."
        )
    if control is not None:
        set_error(control, message)
    else:
        st.error(message, icon=":material/warning:")
    return None


# ------------------------------------------------------------------ stoppable work
def request_stop() -> None:
    """on_click of a Stop button: the running work ends after its current step."""
    st.session_state[STOP_FLAG] = True


def stop_requested() -> bool:
    return bool(st.session_state.get(STOP_FLAG))


class _Stopped(Exception):
    def __init__(self, result: Any):
        super().__init__("stopped")
        self.result = result


def stoppable_result(name: str, key: str) -> Any:
    """The finished result of ``key`` (shared cache), else this session's partial one.

    A partial result is either one that ended through ``should_stop`` or the rows that a
    run interrupted by a click had mirrored with ``keep_partial`` (that run never
    returned); the latter is kept from now on like the former. ``keep_partial`` may be
    given a zero-argument function that builds the partial result: it is called here,
    once, only when the run was interrupted.
    """
    hit = cached_evaluation(key)
    if hit is not None:
        return hit
    hit = stored_result(name, key)
    if hit is not None:
        return hit
    live = st.session_state.get(LIVE, {})
    if name in live and live[name][0] == key:
        _, partial = live.pop(name)
        if callable(partial):
            partial = partial()
        store_result(name, key, partial)
        return partial
    return None


def run_stoppable(
    name: str,
    key: str,
    label: str,
    compute: Callable[[ProgressFn, Callable[[], bool], Callable[[Any], None]], T],
    *,
    done_label: str,
    stopped_message: Callable[[T], str],
    failure_hint: str,
    live_slot: Any = None,
    area: Any = None,
) -> T | None:
    """Run stoppable work with progress; keep what it finished if it is stopped.

    ``compute(progress, should_stop, keep_partial)`` calls the engine: ``progress`` moves
    the bar, ``should_stop`` is the engine's stop check (True once Stop was clicked) and
    ``keep_partial(result)`` mirrors the partial result so far into the session (or a
    function that builds it). ``area`` is the container that holds the progress (default:
    where the page is being drawn). A
    finished result is stored in the shared evaluation cache under ``key``; a result with
    ``stopped`` set is kept for this session only (under ``name``), so a later run with
    the same settings computes everything. Returns None on failure (the error is shown).
    """
    st.session_state[STOP_FLAG] = False
    live = st.session_state.setdefault(LIVE, {})
    live.pop(name, None)

    def keep_partial(partial: Any) -> None:
        st.session_state.setdefault(LIVE, {})[name] = (key, partial)

    def finished(result: T) -> T:
        if getattr(result, "stopped", False):
            raise _Stopped(result)
        return result

    caught: list[warnings.WarningMessage] = []
    try:
        with (area if area is not None else st).status(label, expanded=True) as status:
            bar = status.progress(0.0, text="Starting…")

            def progress(fraction: float, message: str) -> None:
                bar.progress(min(max(float(fraction), 0.0), 1.0), text=message)

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", pc.PrivacyCoreWarning)
                result = get_or_compute(
                    key,
                    lambda: _in_slot(
                        lambda: finished(compute(progress, stop_requested, keep_partial)),
                        progress,
                    ),
                )
            status.update(label=done_label, state="complete", expanded=False)
    except _Stopped as stopped:
        st.session_state.get(LIVE, {}).pop(name, None)
        store_result(name, key, stopped.result)
        if live_slot is not None:
            live_slot.empty()
        st.warning(stopped_message(stopped.result), icon=":material/stop_circle:")
        return stopped.result
    except pc.PrivacyCoreError as exc:
        st.session_state.get(LIVE, {}).pop(name, None)
        if live_slot is not None:
            live_slot.empty()
        st.error(str(exc), icon=":material/warning:")
        return None
    except Exception as exc:  # noqa: BLE001 -- the app must not crash to a traceback
        st.session_state.get(LIVE, {}).pop(name, None)
        if live_slot is not None:
            live_slot.empty()
        st.error(
            f"The computation failed unexpectedly ({type(exc).__name__}: {exc}). "
            f"Your data and settings are kept; {failure_hint}",
            icon=":material/error:",
        )
        return None
    st.session_state.get(LIVE, {}).pop(name, None)
    if live_slot is not None:
        live_slot.empty()
    show_warnings(caught)
    return result


# ---------------------------------------------------------------- evaluation jobs
JOB_OPENMP_THREADS = 1
"""OpenMP threads (xgboost, parts of scikit-learn) per evaluation. Many small fits: on a
busy two-core host, two spinning OpenMP threads per fit made RAPID's xgboost attacker
5-50 times slower than one thread (0.15 s against 0.7-40 s on the demo data)."""


@dataclass(frozen=True)
class Job:
    key: str
    label: str
    compute: Callable[[ProgressFn], Any]
    store: Callable[[str, Any], None]


def run_jobs(label: str, jobs: Sequence[Job]) -> list[str]:
    """Run evaluations under one status box and progress bar; return the engine's notes.

    A job that fails is stored as :class:`~ui.cached.Failed` (its message shown by the
    caller; the same policy as :func:`run_cached`) and the others still run: one measure
    that cannot be computed on one release must not blank the whole page.
    """
    notes: list[str] = []
    if not jobs:
        return notes
    n = len(jobs)
    with st.status(label, expanded=True) as status:
        bar = st.progress(0.0, text="Starting…")
        for i, job in enumerate(jobs):

            def progress(fraction: float, message: str, i: int = i, job: Job = job) -> None:
                done = (i + min(max(float(fraction), 0.0), 1.0)) / n
                text = f"({i + 1}/{n}) {job.label}"
                if message and message not in job.label:
                    text += f" — {message}"
                bar.progress(min(done, 1.0), text=text)

            progress(0.0, "starting")
            with (
                warnings.catch_warnings(record=True) as caught,
                threadpool_limits(limits=JOB_OPENMP_THREADS, user_api="openmp"),
                search_backend(**engine_backend()),  # the Data page's compute setting
            ):
                warnings.simplefilter("always", pc.PrivacyCoreWarning)
                value = _in_slot(functools.partial(_attempt, job.compute, progress), progress)
            job.store(job.key, value)
            seen = [str(w.message) for w in caught if issubclass(w.category, pc.PrivacyCoreWarning)]
            # always written, so a recomputed evaluation does not keep stale notes
            small_store().put(f"{job.key}|notes", tuple(dict.fromkeys(seen)))
            notes.extend(f"{job.label}: {m}" for m in seen)
        bar.progress(1.0, text="Done")
        status.update(label=f"{label} — done", state="complete", expanded=False)
    return list(dict.fromkeys(notes))


def put_evaluation(key: str, value: Any) -> None:
    """Store ``value`` under ``key`` in the shared evaluation cache (a :class:`Job`'s
    ``store`` for results kept there as they are)."""
    get_or_compute(key, lambda: value)


@st.cache_resource(show_spinner=False)
def small_store() -> LRU:
    """Small values only: the map's slimmed cells and the engine's notes per evaluation
    (a few hundred bytes each), so they do not take slots of the shared result store."""
    return LRU(size=2048)


def notes_of(key: str) -> tuple[str, ...]:
    """The engine's warnings recorded when the evaluation under ``key`` was computed."""
    return small_store().get(f"{key}|notes") or ()
