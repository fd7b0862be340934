"""The review database's connection: the engine for a URL and errors in the user's terms.

Contract
--------
* :func:`make_engine` builds a SQLAlchemy engine for any URL (SQLite, PostgreSQL through
  psycopg, ...) that waits ``busy_timeout`` seconds for another program's lock, and
  refuses a malformed URL, an unknown database kind or a missing driver with a
  :class:`~privacy_core.errors.HistoryError` that says how to fix it (never echoing a
  password).
* On SQLite the engine's transactions are SQLite's, DDL included, and a write begins
  ``IMMEDIATE`` (:func:`transactional_sqlite`): a failed save or migration leaves the file
  as it was.
* :func:`database_error` turns a driver's error into a :class:`HistoryError` naming the
  database (:func:`location_of`) and what to do.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from ..errors import HistoryError

__all__ = [
    "database_error",
    "first_line",
    "location_of",
    "make_engine",
    "transactional_sqlite",
]


def make_engine(url: str, busy_timeout: float) -> sa.Engine:
    """The engine of a review database URL (see the module's contract)."""
    shown = url if "@" not in url else "the given URL"  # never echo a password
    try:
        parsed = sa.engine.make_url(url)
    except sa_exc.ArgumentError:
        raise HistoryError(
            f"{shown!r} is not a database URL; write one such as sqlite:///reviews.db "
            "(a file) or postgresql+psycopg://user@host/reviews."
        ) from None
    is_sqlite = parsed.get_backend_name() == "sqlite"
    if is_sqlite:
        connect_args: dict[str, Any] = {"timeout": busy_timeout}
    elif parsed.get_backend_name() == "postgresql" and parsed.get_driver_name() == "psycopg":
        # a table locked by another program fails after the same wait as SQLite's
        connect_args = {"options": f"-c lock_timeout={max(1, int(busy_timeout * 1000))}"}
    else:
        connect_args = {}
    try:
        engine = sa.create_engine(parsed, connect_args=connect_args)
    except sa_exc.NoSuchModuleError:
        raise HistoryError(
            f"unknown database kind {parsed.drivername!r} in the review database URL; "
            "use sqlite:///reviews.db or a SQLAlchemy URL such as "
            "postgresql+psycopg://user@host/reviews."
        ) from None
    except ImportError as exc:
        raise HistoryError(
            f"the review database URL needs the Python driver {exc.name or 'module'!r}, "
            f"which is not installed; install it (pip install {exc.name or '...'}) or use "
            "sqlite:///reviews.db."
        ) from None
    if is_sqlite:
        transactional_sqlite(engine)
    return engine


def transactional_sqlite(engine: sa.Engine) -> None:
    """Let SQLAlchemy's transactions be SQLite's, DDL included.

    Python's sqlite3 opens a transaction only before INSERT/UPDATE/DELETE, so a migration's
    ALTER TABLE would commit on its own and a failed migration would leave a half-migrated
    file. SQLAlchemy's documented recipe hands BEGIN to us; a write begins IMMEDIATE so that
    another program's lock is met (and waited for) before anything is done.
    """

    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None

    @sa.event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        write = conn.get_execution_options().get("_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def location_of(url: str | sa.engine.URL) -> str:
    """How a history's messages name its database: a SQLite file's path, or the URL with
    its password hidden."""
    url = sa.engine.make_url(url)
    if url.get_backend_name() == "sqlite":
        return url.database if url.database not in (None, "", ":memory:") else "(memory)"
    return url.render_as_string(hide_password=True)


def first_line(exc: BaseException) -> str:
    """The first line of an error's message (its type's name when it has none)."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def database_error(exc: sa_exc.DBAPIError, location: str) -> HistoryError:
    """A driver's error as a :class:`HistoryError` that names the database at ``location``
    and says what to do."""
    text = first_line(exc.orig if exc.orig is not None else exc)
    low = text.lower()
    if "not a database" in low:
        return HistoryError(
            f"{location} is not a review database (file is not a "
            "SQLite database); choose another file."
        )
    if "malformed" in low:
        return HistoryError(
            f"the review database {location} is damaged ({text}); "
            "restore it from a backup or choose another file."
        )
    if "locked" in low or "busy" in low or "lock timeout" in low:
        return HistoryError(
            f"the review database {location} is locked by another program; close it and try again."
        )
    if "unable to open database file" in low or "readonly" in low:
        return HistoryError(
            f"cannot open the review database {location} ({text}); "
            "check that the file and its folder can be written."
        )
    if isinstance(exc, (sa_exc.OperationalError, sa_exc.InterfaceError)):
        return HistoryError(
            f"cannot reach the review database {location} ({text}); "
            "check the URL and that the database server is running."
        )
    return HistoryError(f"the review database {location} failed: {text}")
