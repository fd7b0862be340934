"""The review history: a database of past reviews, their comparison and reproduction.

A review is stored on explicit request (:meth:`ReviewStore.save`) as one strict-JSON
document (the report's :meth:`~privacy_core.report.ReviewReport.to_dict`, plus the
considered alternatives) and a few indexed columns to list and match reviews by. The
store holds aggregates only: the report's per-record tables are dropped before anything
is written, and no row of any table is ever stored.

The database is any SQLAlchemy URL: SQLite (a file, the default) for one reviewer, a
server such as PostgreSQL for a team. Its schema carries a version (table
``schema_version``); an older database is migrated in place, in one transaction, when it
is opened, and a newer one is refused with a request to upgrade the product. Every write
is one transaction, so a failed save or migration leaves the earlier reviews as they were.

Who sees what: a store opened for a signed-in :class:`Reviewer` saves each review under
that reviewer's identity (its ``owner``) and lists, opens and compares only the reviews
the reviewer owns or that were shared with them (:meth:`ReviewStore.share`, with one
person or a team); ``team_visible=True`` is the operator's policy that everyone signed in
sees the whole history. A store opened without a reviewer is the single-user local tool
(the command line, an app without sign-in): it sees every review.

Two keys make reproduction checkable: ``inputs_key`` (a hash of the data fingerprints,
the threat model and every measure's parameters, seeds included) finds the earlier
reviews of the same inputs, and ``numbers_key`` (a hash of every candidate's values and
intervals) says whether a re-run gave exactly the same numbers.

Modules
-------
``schema``
    The schema version, the tables, the first release's DDL and the default location.
``migrations``
    Creating an empty database and migrating an older one (under PostgreSQL's advisory
    lock or SQLite's ``BEGIN IMMEDIATE``).
``connection``
    The engine for a URL (SQLite transactions that include DDL) and database errors in
    the user's terms.
``documents``
    The stored document (aggregates only) and its ``inputs_key`` and ``numbers_key``.
``access``
    The signed-in :class:`Reviewer`, which reviews a store may read, and share entries.
``summary``
    :class:`ReviewSummary`, one review as a row of the history list.
``store``
    :class:`ReviewStore`, the database of reviews.
``comparison``
    :func:`compare_reviews` and :class:`ReviewComparison`.
"""

from __future__ import annotations

from .access import Reviewer
from .comparison import ReviewComparison, compare_reviews
from .connection import location_of
from .documents import inputs_key, numbers_key, reproduces
from .schema import APP_NAME as APP_NAME
from .schema import DEFAULT_URL, SCHEMA_V1_DDL, SCHEMA_VERSION, default_url
from .store import ReviewStore
from .summary import HEADLINE_METRICS, ReviewSummary

__all__ = [
    "DEFAULT_URL",
    "HEADLINE_METRICS",
    "Reviewer",
    "SCHEMA_V1_DDL",
    "SCHEMA_VERSION",
    "ReviewComparison",
    "ReviewStore",
    "ReviewSummary",
    "compare_reviews",
    "default_url",
    "location_of",
    "inputs_key",
    "numbers_key",
    "reproduces",
]
