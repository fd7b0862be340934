"""Glue for the review history: the database address of this session, saving the current
review on request, and reading stored ones back.

The store is opened for each action and closed after it (a SQLite engine opens in
milliseconds), so a locked or moved database is reported when it matters and never holds
a file open between clicks. Only ``privacy_core.history`` touches the database.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

import privacy_core as pc

from .state import keep_shared, mirror, remembered

DB_URL = "history_db_url"
LAST_SAVED = "history_last_saved"
ALTERNATIVES = "review_alternatives"  # considered alternatives (what-if), aggregates only


def db_url_input() -> str:
    """The database address, kept across pages (SQLite file by default)."""
    keep_shared(DB_URL, pc.history.DEFAULT_URL)
    url = st.text_input(
        "Review database (SQLAlchemy URL)",
        key=DB_URL,
        on_change=mirror,
        args=(DB_URL,),
        help="SQLite by default: a file of aggregates only (no real record), created on "
        "the first save. A team can point this at a shared database, e.g. "
        "postgresql+psycopg://user@host/reviews (its driver must be installed).",
    )
    return url.strip()


def current_url() -> str:
    return str(remembered(DB_URL, pc.history.DEFAULT_URL)).strip()


@dataclass(frozen=True)
class SaveOutcome:
    review_id: int
    location: str
    reproduces: str  # the comparison with earlier reviews of the same inputs, in words


def save_review(report: pc.ReviewReport, url: str) -> SaveOutcome:
    """Store ``report`` (its per-record tables are dropped by the store; its considered
    alternatives are in it); say whether an earlier review of the same inputs reproduces."""
    with pc.ReviewStore(url) as store:
        earlier = store.same_inputs(report)
        review_id = store.save(report)
        words = ""
        if earlier:
            cmp = store.compare(earlier[-1], review_id)
            words = f"Same inputs as review {earlier[-1]}: {cmp.summary()}"
        outcome = SaveOutcome(review_id, store.location, words)
    st.session_state[LAST_SAVED] = outcome
    return outcome


SAVE_REQUESTS = "history_save_requests"  # Save review clicks, counted by the callback
SAVES_DONE = "history_saves_done"  # of which saved (or failed with a message)


def request_save() -> None:
    """on_click of *Save review*: count the click (the save follows in the page's run)."""
    st.session_state[SAVE_REQUESTS] = int(st.session_state.get(SAVE_REQUESTS, 0)) + 1


def save_pending(report: pc.ReviewReport, url: str) -> None:
    """Save once per click not saved yet, with the report of this run (the reviewer's
    latest notes and answers); a failure is attached to the button and ends the batch."""
    from .runner import guarded
    from .state import clear_error

    requested = int(st.session_state.get(SAVE_REQUESTS, 0))
    done = int(st.session_state.get(SAVES_DONE, 0))
    if requested <= done:
        return
    clear_error("history_save")
    st.session_state.pop(LAST_SAVED, None)
    for _ in range(requested - done):
        saved = guarded(lambda: save_review(report, url), control="history_save")
        if saved is None:
            break
        st.session_state[SAVES_DONE] = int(st.session_state.get(SAVES_DONE, 0)) + 1
    st.session_state[SAVES_DONE] = requested  # a failed click is not retried on its own


def list_reviews(url: str) -> list[pc.ReviewSummary]:
    with pc.ReviewStore(url, create=False) as store:
        return store.list()


def get_review(url: str, review_id: int) -> dict[str, Any]:
    with pc.ReviewStore(url, create=False) as store:
        return store.get(review_id)


def compare(url: str, a: int, b: int) -> pc.ReviewComparison:
    with pc.ReviewStore(url, create=False) as store:
        return store.compare(a, b)
