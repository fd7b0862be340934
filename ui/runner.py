"""Run an engine call with a progress bar, turning any failure into a message.

The app never shows a traceback: engine input errors are shown verbatim (they say what
to fix), anything unexpected is reported briefly, and the session's data and settings
are untouched either way.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

import privacy_core as pc

from .cached import evaluate
from .state import set_error

T = TypeVar("T")


def run_cached(key: str, label: str, compute: Callable[[Callable[[float, str], None]], T]
               ) -> T | None:
    """Compute (or fetch) an evaluation with a live progress bar; None on failure."""
    caught: list[warnings.WarningMessage] = []
    try:
        with st.status(label, expanded=True) as status:
            bar = st.progress(0.0, text="Starting…")

            def progress(fraction: float, message: str) -> None:
                bar.progress(min(max(float(fraction), 0.0), 1.0), text=message)

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", pc.PrivacyCoreWarning)
                result = evaluate(key, lambda: compute(progress))
            status.update(label=f"{label} — done", state="complete", expanded=False)
    except pc.PrivacyCoreError as exc:
        st.error(str(exc), icon=":material/warning:")
        return None
    except Exception as exc:  # the app must not crash to a traceback
        st.error(f"The computation failed unexpectedly ({type(exc).__name__}: {exc}). "
                 "Your data and settings are kept; try other settings or a smaller subset.",
                 icon=":material/error:")
        return None
    show_warnings(caught)
    return result


def show_warnings(caught: list[Any]) -> None:
    seen = set()
    for w in caught:
        if issubclass(w.category, pc.PrivacyCoreWarning) and str(w.message) not in seen:
            seen.add(str(w.message))
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
        message = (f"Unexpected error ({type(exc).__name__}: {exc}). "
                   "Your data and settings are kept.")
    if control is not None:
        set_error(control, message)
    else:
        st.error(message, icon=":material/warning:")
    return None
