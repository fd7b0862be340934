"""Bringing a review database to the current schema: create, migrate or refuse.

Contract
--------
:func:`open_schema` reads the database's version (:func:`read_version`) and, only when
there is something to do, creates the tables of an empty database or migrates an older
one to :data:`~.schema.SCHEMA_VERSION`, step by step (:data:`MIGRATIONS`), in one write
transaction: a failed migration leaves the database as it was. A database written by a
newer product, one without a version, or one holding other tables is refused with a
:class:`~privacy_core.errors.HistoryError`. Two programs opening a new database at once
are serialised: SQLite by ``BEGIN IMMEDIATE``, PostgreSQL by an advisory lock.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from ..errors import HistoryError
from .documents import numbers_key
from .schema import METADATA, OUR_TABLES, SCHEMA_LOCK, SCHEMA_VERSION, SHARES, VERSION_TABLE

__all__ = ["MIGRATIONS", "open_schema", "read_version"]


def _migrate_1_to_2(conn: Any) -> None:
    """Version 2: ``numbers_key`` (re-runs checked by one lookup) and ``n_alternatives``;
    every document gains an ``alternatives`` list (empty for the reviews of version 1)."""
    conn.exec_driver_sql("ALTER TABLE reviews ADD COLUMN numbers_key VARCHAR(64)")
    conn.exec_driver_sql("ALTER TABLE reviews ADD COLUMN n_alternatives INTEGER NOT NULL DEFAULT 0")
    # the indexes a version-2 database is created with, so a migrated file is the same
    conn.exec_driver_sql("CREATE INDEX ix_reviews_created ON reviews (created)")
    conn.exec_driver_sql("CREATE INDEX ix_reviews_real_fingerprint ON reviews (real_fingerprint)")
    rows = conn.execute(sa.text("SELECT id, document FROM reviews")).all()
    for review_id, text in rows:
        try:
            doc = json.loads(text)
        except ValueError:
            # raising rolls the whole migration back: the file stays at version 1, intact
            raise HistoryError(
                f"review {review_id} is damaged (its document is not JSON), "
                "so the database cannot be upgraded; nothing was changed. "
                "Restore it from a backup."
            ) from None
        doc.setdefault("alternatives", [])
        conn.execute(
            sa.text(
                "UPDATE reviews SET numbers_key = :k, n_alternatives = :n, "
                "document = :d WHERE id = :i"
            ),
            {
                "k": numbers_key(doc),
                "n": len(doc["alternatives"]),
                "d": json.dumps(doc, allow_nan=False),
                "i": review_id,
            },
        )


def _migrate_2_to_3(conn: Any) -> None:
    """Version 3: each review's ``owner`` (every earlier review belongs to the local single
    user, "") and the ``shares`` table of who else may read a review."""
    conn.exec_driver_sql("ALTER TABLE reviews ADD COLUMN owner VARCHAR(320) DEFAULT '' NOT NULL")
    conn.exec_driver_sql("CREATE INDEX ix_reviews_owner ON reviews (owner)")
    SHARES.create(conn)


# The step from each version to the next.
MIGRATIONS: dict[int, Callable[[Any], None]] = {1: _migrate_1_to_2, 2: _migrate_2_to_3}


def open_schema(engine: sa.Engine, location: str) -> None:
    """Create or migrate the database behind ``engine`` to :data:`SCHEMA_VERSION`
    (``location`` names it in messages)."""
    # read first (a deferred transaction), write only when there is something to do:
    # listing a history never needs a write lock
    with engine.connect() as conn, conn.begin():
        version = read_version(conn, location)
    if version == SCHEMA_VERSION:
        return
    with engine.connect() as conn:
        conn.execution_options(_write=True)
        with conn.begin():
            if conn.dialect.name == "postgresql":
                # SQLite's BEGIN IMMEDIATE serialises two first openings; PostgreSQL
                # needs a lock of its own, or both create the tables and one fails
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({SCHEMA_LOCK})")
            version = read_version(conn, location)  # another program may have been first
            if version is None:
                METADATA.create_all(conn)
                conn.execute(VERSION_TABLE.insert().values(version=SCHEMA_VERSION))
                return
            while version < SCHEMA_VERSION:
                MIGRATIONS[version](conn)
                version += 1
                conn.execute(VERSION_TABLE.update().values(version=version))


def read_version(conn: Any, location: str) -> int | None:
    """The schema version, or None for an empty database; refuses anything else."""
    tables = set(sa.inspect(conn).get_table_names())
    if not tables:
        return None
    if not tables >= OUR_TABLES:
        raise HistoryError(
            f"the database {location} holds other tables "
            f"({', '.join(sorted(tables)[:8])}) and is not a review history; nothing "
            "was written to it. Choose a new file or an empty database."
        )
    version = conn.execute(sa.select(sa.func.max(VERSION_TABLE.c.version))).scalar()
    if version is None:
        raise HistoryError(
            f"the review database {location} has no schema version (its "
            "schema_version table is empty), so it cannot be read safely; restore it "
            "from a backup or choose another file."
        )
    if version > SCHEMA_VERSION:
        raise HistoryError(
            f"the review database {location} was written by a newer version of "
            f"the product (schema {version}; this one reads up to {SCHEMA_VERSION}); "
            "upgrade the product to open it."
        )
    return int(version)
