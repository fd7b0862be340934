"""The review database's schema: its version, its tables and where it lives by default.

Contract
--------
* :data:`SCHEMA_VERSION` is the version this product writes; the table ``schema_version``
  records it in every database (:mod:`.migrations` brings an older one up to it).
* :data:`METADATA` holds the current tables (``schema_version``, ``reviews``, ``shares``);
  :data:`SCHEMA_V1_DDL` is the first released schema, verbatim, so that a test (and a
  support engineer) can build a version-1 database by hand and watch it migrate.
* :func:`default_url` is the database used when none is configured: a SQLite file in the
  user's data folder.

The store holds aggregates only: the columns below index a review (to list and match
reviews by); its numbers live in the strict-JSON ``document``.
"""

from __future__ import annotations

import platformdirs
import sqlalchemy as sa

__all__ = [
    "APP_NAME",
    "DEFAULT_URL",
    "METADATA",
    "OUR_TABLES",
    "REVIEWS",
    "SCHEMA_LOCK",
    "SCHEMA_V1_DDL",
    "SCHEMA_VERSION",
    "SHARES",
    "VERSION_TABLE",
    "default_url",
]

SCHEMA_VERSION = 3
# The application's name for its per-user data folder (platformdirs).
APP_NAME = "privacy-review"


def default_url() -> str:
    """The review database used when none is configured: a SQLite file in the user's data
    folder (``platformdirs.user_data_path``), never the working directory or the checkout.
    The folder is created on the first save."""
    path = platformdirs.user_data_path(APP_NAME, appauthor=False) / "reviews.db"
    return f"sqlite:///{path}"


DEFAULT_URL = default_url()

# The first released schema, kept verbatim so that a test (and a support engineer) can
# build a version-1 database by hand and watch it migrate. Version 1 had no numbers_key
# (re-runs could not be checked without reading every document) and no count of the
# considered alternatives.
SCHEMA_V1_DDL: tuple[str, ...] = (
    "CREATE TABLE schema_version (version INTEGER NOT NULL)",
    (
        "CREATE TABLE reviews ("
        " id INTEGER PRIMARY KEY,"
        " created VARCHAR(40) NOT NULL,"
        " decision VARCHAR(40) NOT NULL,"
        " reviewer VARCHAR(200) NOT NULL,"
        " real_fingerprint VARCHAR(64) NOT NULL,"
        " synthetic_fingerprints TEXT NOT NULL,"
        " version VARCHAR(80) NOT NULL,"
        " inputs_key VARCHAR(64) NOT NULL,"
        " document TEXT NOT NULL)"
    ),
    "CREATE INDEX ix_reviews_inputs_key ON reviews (inputs_key)",
    "INSERT INTO schema_version (version) VALUES (1)",
)

METADATA = sa.MetaData()
VERSION_TABLE = sa.Table(
    "schema_version",
    METADATA,
    sa.Column("version", sa.Integer, nullable=False),
)
REVIEWS = sa.Table(
    "reviews",
    METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("created", sa.String(40), nullable=False, index=True),
    sa.Column("decision", sa.String(40), nullable=False),
    sa.Column("reviewer", sa.String(200), nullable=False),
    sa.Column("real_fingerprint", sa.String(64), nullable=False, index=True),
    sa.Column("synthetic_fingerprints", sa.Text, nullable=False),
    sa.Column("version", sa.String(80), nullable=False),
    sa.Column("inputs_key", sa.String(64), nullable=False, index=True),
    sa.Column("document", sa.Text, nullable=False),
    # added by version 2; nullable because SQLite cannot add a NOT NULL column without a
    # default to a table that has rows (the migration fills every row)
    sa.Column("numbers_key", sa.String(64), nullable=True),
    sa.Column("n_alternatives", sa.Integer, nullable=False, server_default="0"),
    # added by version 3: the signed-in identity that saved the review ("" = the local
    # single user, and every review of an older database)
    sa.Column("owner", sa.String(320), nullable=False, server_default="", index=True),
)
# added by version 3: who else may read a review ("user:<id>" or "team:<name>")
SHARES = sa.Table(
    "shares",
    METADATA,
    sa.Column("review_id", sa.Integer, sa.ForeignKey("reviews.id"), primary_key=True),
    sa.Column("grantee", sa.String(340), primary_key=True),
)
# The tables whose presence marks a database as a review history.
OUR_TABLES = frozenset({"reviews", "schema_version"})
# PostgreSQL advisory-lock key held while the schema is created or migrated
SCHEMA_LOCK = 0x70726976
