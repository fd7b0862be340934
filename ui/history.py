"""Glue for the review history: saving the current review on request, reading stored ones
back and sharing them, always in the server's history (``ui.deployment``) and as the
signed-in reviewer (``ui.identity``): no page lets a user name a database.

The store is opened for each action and closed after it (a SQLite engine opens in
milliseconds), so a locked or moved database is reported when it matters and never holds
a file open between clicks. Only ``privacy_core.history`` touches the database.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import streamlit as st

import privacy_core as pc

from .deployment import settings
from .identity import current_reviewer

LAST_SAVED = "history_last_saved"
ALTERNATIVES = "review_alternatives"  # considered alternatives (what-if), aggregates only


TEAM_HISTORY = "the team's review history"


@contextmanager
def _shown_to_users(signed_in: bool) -> Iterator[None]:
    """A signed-in reviewer of a shared server is not told where its database is: the
    file path or address in a history message becomes "the team's review history"."""
    try:
        yield
    except pc.HistoryError as exc:
        if not signed_in:
            raise
        where = pc.history.location_of(settings().history_url)
        raise pc.HistoryError(str(exc).replace(where, TEAM_HISTORY)) from None


@contextmanager
def open_store(*, create: bool = True) -> Iterator[pc.ReviewStore]:
    """The server's review history (the operator's setting, never a page's input), seen
    as the signed-in reviewer, or as the single local user (their own reviews only)."""
    deployment = settings()
    reviewer = current_reviewer()
    with _shown_to_users(reviewer is not None):
        store = pc.ReviewStore(
            deployment.history_url,
            create=create,
            reviewer=reviewer,
            team_visible=deployment.team_visible,
            local_only=reviewer is None,
        )
        try:
            yield store
        finally:
            store.close()


def where_saved(store: pc.ReviewStore) -> str:
    """Where the history is, in words a user may read: a signed-in user of a shared
    server is not shown the server's file paths or database address."""
    return TEAM_HISTORY if store.reviewer is not None else store.location


@dataclass(frozen=True)
class SaveOutcome:
    review_id: int
    location: str
    reproduces: str  # the comparison with earlier reviews of the same inputs, in words


def save_review(report: pc.ReviewReport) -> SaveOutcome:
    """Store ``report`` (its per-record tables are dropped by the store; its considered
    alternatives are in it); say whether an earlier review of the same inputs reproduces."""
    with open_store() as store:
        earlier = store.same_inputs(report)
        review_id = store.save(report)
        words = ""
        if earlier:
            cmp = store.compare(earlier[-1], review_id)
            words = f"Same inputs as review {earlier[-1]}: {cmp.summary()}"
        outcome = SaveOutcome(review_id, where_saved(store), words)
    st.session_state[LAST_SAVED] = outcome
    return outcome


SAVE_REQUESTS = "history_save_requests"  # Save review clicks, counted by the callback
SAVES_DONE = "history_saves_done"  # of which saved (or failed with a message)


def request_save() -> None:
    """on_click of *Save review*: count the click (the save follows in the page's run)."""
    st.session_state[SAVE_REQUESTS] = int(st.session_state.get(SAVE_REQUESTS, 0)) + 1


def save_pending(report: pc.ReviewReport) -> None:
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
        saved = guarded(lambda: save_review(report), control="history_save")
        if saved is None:
            break
        st.session_state[SAVES_DONE] = int(st.session_state.get(SAVES_DONE, 0)) + 1
    st.session_state[SAVES_DONE] = requested  # a failed click is not retried on its own


def history_exists() -> bool:
    """False only for a SQLite history whose file was never created (nothing saved yet)."""
    url = settings().history_url
    if not url.startswith("sqlite:///"):
        return True
    from pathlib import Path

    return Path(url.removeprefix("sqlite:///")).exists()


def list_reviews() -> list[pc.ReviewSummary]:
    with open_store(create=False) as store:
        return store.list()


def get_review(review_id: int) -> dict[str, Any]:
    with open_store(create=False) as store:
        return store.get(review_id)


def compare(a: int, b: int) -> pc.ReviewComparison:
    with open_store(create=False) as store:
        return store.compare(a, b)


def share(review_id: int, *, user: str | None = None, team: str | None = None) -> list[str]:
    """Share a review (its owner only); return who may now read it besides the owner."""
    with open_store(create=False) as store:
        store.share(review_id, user=user, team=team)
        return store.shared_with(review_id)


def shared_with(review_id: int) -> list[str]:
    with open_store(create=False) as store:
        return store.shared_with(review_id)
