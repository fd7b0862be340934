"""The review history: a database of past reviews, their comparison and reproduction.

Why one module: the store, the comparison and the reproduction check all read the same
stored document; its schema is defined once here.

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
"""

from __future__ import annotations

import builtins
import copy
import hashlib
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Self

import pandas as pd
import platformdirs
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from .errors import HistoryError, ParameterError
from .results import jsonable

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

# Measures shown in a review's one-line summary, when the review has them.
HEADLINE_METRICS = (
    "rapid",
    "singling_out",
    "linkability",
    "inference",
    "membership",
    "dcr",
    "ims",
    "wasserstein",
    "discriminator",
)

# Parameters that record how long or where a run went, not what it computed: a re-run on
# another machine has the same inputs.
_VOLATILE_PARAMS = frozenset({"seconds", "backend", "n_jobs"})

_metadata = sa.MetaData()
_version_table = sa.Table(
    "schema_version",
    _metadata,
    sa.Column("version", sa.Integer, nullable=False),
)
_reviews = sa.Table(
    "reviews",
    _metadata,
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
_shares = sa.Table(
    "shares",
    _metadata,
    sa.Column("review_id", sa.Integer, sa.ForeignKey("reviews.id"), primary_key=True),
    sa.Column("grantee", sa.String(340), primary_key=True),
)
_OUR_TABLES = frozenset({"reviews", "schema_version"})
# PostgreSQL advisory-lock key held while the schema is created or migrated
_SCHEMA_LOCK = 0x70726976


@dataclass(frozen=True)
class Reviewer:
    """Who reads and writes the history: the signed-in identity.

    Parameters
    ----------
    id
        A stable identity from the sign-in provider (its e-mail address or subject); it is
        the owner recorded with every review this reviewer saves.
    name
        How to show the reviewer (defaults to ``id``).
    teams
        The teams the provider says the reviewer belongs to; a review shared with a team
        is visible to its members.
    """

    id: str
    name: str = ""
    teams: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id.strip():
            raise ParameterError("a reviewer needs a non-empty identity (id).")
        if len(self.id) > 320:
            raise ParameterError(
                f"a reviewer's identity is at most 320 characters; got {len(self.id)}."
            )
        object.__setattr__(self, "teams", tuple(str(t) for t in self.teams if str(t).strip()))

    @property
    def shown(self) -> str:
        return self.name or self.id

    def grantees(self) -> tuple[str, ...]:
        """The share entries that give this reviewer access."""
        return (f"user:{self.id}", *(f"team:{t}" for t in self.teams))


# ----------------------------------------------------------------------------- documents
def _document(report: Any) -> dict[str, Any]:
    """A deep, JSON-ready copy of a report (a ReviewReport or its to_dict())."""
    if hasattr(report, "to_dict") and not isinstance(report, Mapping):
        report = report.to_dict()
    if (
        not isinstance(report, Mapping)
        or not isinstance(report.get("candidates"), list)
        or not isinstance(report.get("provenance"), Mapping)
    ):
        raise ParameterError(
            "the review must be a privacy_core.report.ReviewReport or its to_dict() (a "
            "mapping with 'provenance' and 'candidates'); received "
            f"{type(report).__name__}."
        )
    return jsonable(copy.deepcopy(dict(report)))


def _strip_records(doc: dict[str, Any]) -> dict[str, Any]:
    """Drop every per-record table: the store holds aggregates only."""
    doc.pop("records", None)
    for cand in doc.get("candidates") or []:
        for metric in (cand.get("metrics") or {}).values():
            if isinstance(metric, dict):
                metric.pop("records", None)
    for metric in (doc.get("metrics") or {}).values():
        if isinstance(metric, dict):
            metric.pop("records", None)
    return doc


def _refuse_tables(value: Any, where: str) -> None:
    # jsonable would turn a DataFrame into its rows; a considered alternative is a set of
    # aggregates, so a table in one is refused rather than written to disk
    if isinstance(value, (pd.DataFrame, pd.Series)):
        raise ParameterError(
            f"{where} holds a {type(value).__name__}; a considered alternative stores "
            "aggregates only (values, intervals, parameters), never a table of rows."
        )
    if isinstance(value, Mapping):
        for k, v in value.items():
            _refuse_tables(v, f"{where}[{k!r}]")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _refuse_tables(v, f"{where}[{i}]")


def _alternatives(items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise ParameterError(
                f"alternatives[{i}] must be a mapping of aggregates (e.g. {{'mitigation': "
                f"..., 'metrics': {{...}}}}); received {type(item).__name__}."
            )
        _refuse_tables(item, f"alternatives[{i}]")
        alt = jsonable(copy.deepcopy(dict(item)))
        alt.pop("records", None)
        out.append(alt)
    return out


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _sha256(value: Any) -> str:
    return hashlib.sha256(_canonical(value).encode("utf-8")).hexdigest()


def _fingerprints(doc: Mapping[str, Any]) -> tuple[str, list[str], str | None]:
    prov = doc.get("provenance") or {}
    real = str((prov.get("real") or {}).get("fingerprint") or "")
    synthetic = [str(s.get("fingerprint") or "") for s in prov.get("synthetic") or []]
    holdout = (prov.get("holdout") or {}).get("fingerprint") if prov.get("holdout") else None
    return real, synthetic, holdout


def _release_fingerprints(doc: Mapping[str, Any]) -> dict[str, str]:
    return {
        str(s.get("name")): str(s.get("fingerprint") or "")
        for s in (doc.get("provenance") or {}).get("synthetic") or []
    }


def _stable_params(params: Any) -> Any:
    if not isinstance(params, Mapping):
        return params
    return {k: v for k, v in params.items() if k not in _VOLATILE_PARAMS}


def inputs_key(report: Any) -> str:
    """The hash of what a review computed from: data, threat model, parameters and seeds.

    Parameters
    ----------
    report
        A :class:`~privacy_core.report.ReviewReport` or its ``to_dict()``.

    Returns
    -------
    str
        sha256 (hex) of the real, synthetic and holdout fingerprints, the threat model and
        every candidate's measures with their parameters (seeds included). Release *names*
        do not enter it: the same files under other names are the same inputs.
    """
    doc = _document(report)
    real, synthetic, holdout = _fingerprints(doc)
    by_name = _release_fingerprints(doc)
    candidates = [
        {
            "releases": [by_name.get(str(r), str(r)) for r in c.get("releases") or []],
            "metrics": {
                m: _stable_params((v or {}).get("params"))
                for m, v in sorted((c.get("metrics") or {}).items())
            },
        }
        for c in doc["candidates"]
    ]
    return _sha256(
        {
            "real": real,
            "synthetic": synthetic,
            "holdout": holdout,
            "threat": doc.get("threat"),
            "candidates": candidates,
        }
    )


def _numbers(doc: Mapping[str, Any]) -> list[list[Any]]:
    return [
        [i, m, (v or {}).get("value"), (v or {}).get("ci")]
        for i, c in enumerate(doc.get("candidates") or [])
        for m, v in sorted((c.get("metrics") or {}).items())
    ]


def numbers_key(report: Any) -> str:
    """The hash of every candidate's measure values and intervals (sha256, hex).

    Two reviews with the same ``numbers_key`` report exactly the same numbers: JSON
    writes each float so that it reads back bit for bit, so no rounding hides a change.
    """
    return _sha256(_numbers(_document(report)))


def reproduces(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two reviews report exactly the same numbers (every value and interval).

    Parameters
    ----------
    a, b
        Stored documents (:meth:`ReviewStore.get`) or reports.

    Returns
    -------
    bool
        True when every candidate's every measure has the identical value and interval.
    """
    return _numbers(_document(a)) == _numbers(_document(b))


# ----------------------------------------------------------------------------- summaries
@dataclass(frozen=True)
class ReviewSummary:
    """One stored review as a row of the history list.

    ``headline`` maps each candidate to its values of :data:`HEADLINE_METRICS` (those the
    review computed); ``version`` is the product that computed it.
    """

    id: int
    created: str
    decision: str
    reviewer: str
    real_fingerprint: str
    synthetic_fingerprints: tuple[str, ...]
    candidates: tuple[str, ...]
    headline: dict[str, dict[str, float | None]]
    version: str
    n_alternatives: int = 0
    inputs_key: str = ""
    numbers_key: str = ""
    owner: str = ""  # the signed-in identity that saved it; "" for the local single user

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types (tuples become lists)."""
        return jsonable(asdict(self))


def _headline(doc: Mapping[str, Any]) -> dict[str, dict[str, float | None]]:
    return {
        str(c.get("name")): {
            m: (c.get("metrics") or {})[m].get("value")
            for m in HEADLINE_METRICS
            if m in (c.get("metrics") or {})
        }
        for c in doc.get("candidates") or []
    }


# ----------------------------------------------------------------------------- the store
class ReviewStore:
    """A database of reviews, at any SQLAlchemy URL (SQLite by default).

    Parameters
    ----------
    url
        A SQLAlchemy database URL: ``sqlite:///reviews.db`` (a file next to the working
        directory; ``sqlite:////abs/path.db`` for an absolute path), or a server such as
        ``postgresql+psycopg://user@host/reviews`` (its driver must be installed).
    create
        Create the database (a new SQLite file, the tables) when it has none. With False,
        a SQLite file that does not exist is an error instead of a new empty history.
    busy_timeout
        Seconds to wait for another program's lock (a SQLite file's, or a PostgreSQL
        table's) before giving up with :class:`~privacy_core.errors.HistoryError`.
    reviewer
        The signed-in :class:`Reviewer`: saves are recorded under their identity, and
        only the reviews they own or that were shared with them (or their team) can be
        listed, opened or compared. None is the single-user local tool: every review.
    team_visible
        The operator's policy that every signed-in reviewer sees the whole history.
    local_only
        Without a reviewer: only the reviews the local user saved (owner ""). The app
        without sign-in opens the history so, so that switching sign-in off does not show
        a team's reviews to whoever opens the app; the command line sees every review.

    Raises
    ------
    HistoryError
        The URL is malformed, its driver is missing or its server unreachable; the file is
        not a SQLite database, is locked, or holds other tables than a review history; the
        database was written by a newer product.

    Notes
    -----
    Opening migrates an older schema to :data:`SCHEMA_VERSION` in one transaction. Use the
    store as a context manager, or call :meth:`close`.
    """

    reproduces = staticmethod(reproduces)

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        create: bool = True,
        busy_timeout: float = 2.0,
        reviewer: Reviewer | None = None,
        team_visible: bool = False,
        local_only: bool = False,
    ) -> None:
        if reviewer is not None and not isinstance(reviewer, Reviewer):
            raise ParameterError(
                f"reviewer must be a privacy_core.history.Reviewer or None; got "
                f"{type(reviewer).__name__}."
            )
        self.url = str(url)
        self.reviewer = reviewer
        self.team_visible = bool(team_visible)
        self.local_only = bool(local_only)
        self._engine = self._make_engine(self.url, busy_timeout)
        self.location = self._location()
        self._closed = False
        try:
            self._check_file(create)
            with self._translated():
                self._open_schema()
        except BaseException:
            self._engine.dispose()
            raise

    # -- opening
    @staticmethod
    def _make_engine(url: str, busy_timeout: float) -> sa.Engine:
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
            _transactional_sqlite(engine)
        return engine

    def _location(self) -> str:
        return location_of(self._engine.url)

    def _sqlite_path(self) -> Path | None:
        url = self._engine.url
        if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
            return None
        return Path(url.database)

    def _check_file(self, create: bool) -> None:
        path = self._sqlite_path()
        if path is None:
            return
        if path.is_dir():
            raise HistoryError(
                f"{path} is a folder, not a review database; give a file "
                "path such as sqlite:///reviews.db."
            )
        if not path.exists() and not create:
            raise HistoryError(
                f"no review database at {path}; store a review first "
                "(`report ... --db URL`) or check the path."
            )
        if not path.parent.exists() and create and self.url == default_url():
            # the default location is ours to create: the user's data folder
            path.parent.mkdir(parents=True, exist_ok=True)
        if not path.parent.exists():
            raise HistoryError(
                f"cannot create the review database {path}: the folder "
                f"{path.parent} does not exist; create it or choose another "
                "path."
            )

    def _open_schema(self) -> None:
        # read first (a deferred transaction), write only when there is something to do:
        # listing a history never needs a write lock
        with self._engine.connect() as conn, conn.begin():
            version = self._read_version(conn)
        if version == SCHEMA_VERSION:
            return
        with self._engine.connect() as conn:
            conn.execution_options(_write=True)
            with conn.begin():
                if conn.dialect.name == "postgresql":
                    # SQLite's BEGIN IMMEDIATE serialises two first openings; PostgreSQL
                    # needs a lock of its own, or both create the tables and one fails
                    conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_SCHEMA_LOCK})")
                version = self._read_version(conn)  # another program may have been first
                if version is None:
                    _metadata.create_all(conn)
                    conn.execute(_version_table.insert().values(version=SCHEMA_VERSION))
                    return
                while version < SCHEMA_VERSION:
                    _MIGRATIONS[version](conn)
                    version += 1
                    conn.execute(_version_table.update().values(version=version))

    def _read_version(self, conn: Any) -> int | None:
        """The schema version, or None for an empty database; refuses anything else."""
        tables = set(sa.inspect(conn).get_table_names())
        if not tables:
            return None
        if not tables >= _OUR_TABLES:
            raise HistoryError(
                f"the database {self.location} holds other tables "
                f"({', '.join(sorted(tables)[:8])}) and is not a review history; nothing "
                "was written to it. Choose a new file or an empty database."
            )
        version = conn.execute(sa.select(sa.func.max(_version_table.c.version))).scalar()
        if version is None:
            raise HistoryError(
                f"the review database {self.location} has no schema version (its "
                "schema_version table is empty), so it cannot be read safely; restore it "
                "from a backup or choose another file."
            )
        if version > SCHEMA_VERSION:
            raise HistoryError(
                f"the review database {self.location} was written by a newer version of "
                f"the product (schema {version}; this one reads up to {SCHEMA_VERSION}); "
                "upgrade the product to open it."
            )
        return int(version)

    @contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except sa_exc.DBAPIError as exc:
            raise self._error(exc) from None
        except sa_exc.SQLAlchemyError as exc:
            raise HistoryError(
                f"the review database {self.location} failed: {_first_line(exc)}"
            ) from None

    def _error(self, exc: sa_exc.DBAPIError) -> HistoryError:
        text = _first_line(exc.orig if exc.orig is not None else exc)
        low = text.lower()
        if "not a database" in low:
            return HistoryError(
                f"{self.location} is not a review database (file is not a "
                "SQLite database); choose another file."
            )
        if "malformed" in low:
            return HistoryError(
                f"the review database {self.location} is damaged ({text}); "
                "restore it from a backup or choose another file."
            )
        if "locked" in low or "busy" in low or "lock timeout" in low:
            return HistoryError(
                f"the review database {self.location} is locked by another "
                "program; close it and try again."
            )
        if "unable to open database file" in low or "readonly" in low:
            return HistoryError(
                f"cannot open the review database {self.location} ({text}); "
                "check that the file and its folder can be written."
            )
        if isinstance(exc, (sa_exc.OperationalError, sa_exc.InterfaceError)):
            return HistoryError(
                f"cannot reach the review database {self.location} ({text}); "
                "check the URL and that the database server is running."
            )
        return HistoryError(f"the review database {self.location} failed: {text}")

    def _connect(self, *, write: bool = False) -> Any:
        if self._closed:
            raise HistoryError("the review store is closed; open a new ReviewStore.")
        return self._engine.connect().execution_options(_write=write)

    # -- writing
    def save(self, report: Any, *, alternatives: Sequence[Mapping[str, Any]] = ()) -> int:
        """Store a review and return its id.

        Parameters
        ----------
        report
            A :class:`~privacy_core.report.ReviewReport` or its ``to_dict()``. Its
            per-record tables (``records``, present when the report was built with
            ``include_records=True``) are dropped: the store holds aggregates only.
        alternatives
            Considered alternatives (what-if mitigations), each a mapping of aggregates
            (values, intervals, parameters); stored in the document under
            ``"alternatives"`` after any the report already had. Tables are refused.

        Returns
        -------
        int
            The new review's id.

        Raises
        ------
        HistoryError
            The database is locked or unreachable; nothing is written and earlier reviews
            are kept.
        ParameterError
            ``report`` is not a review, or an alternative is not a mapping of aggregates.
        """
        doc = _strip_records(_document(report))
        doc.pop("id", None)  # a document read back from get() carries its old id
        doc["alternatives"] = _alternatives(list(doc.get("alternatives") or [])) + _alternatives(
            alternatives
        )
        real, synthetic, _ = _fingerprints(doc)
        sign_off = doc.get("sign_off") or {}
        row = {
            "created": str(doc.get("created") or ""),
            "decision": str(doc.get("decision") or "undecided"),
            "reviewer": str(sign_off.get("reviewer") or ""),
            "real_fingerprint": real,
            "synthetic_fingerprints": ",".join(synthetic),
            "version": str((doc.get("provenance") or {}).get("software") or ""),
            "inputs_key": inputs_key(doc),
            "numbers_key": numbers_key(doc),
            "n_alternatives": len(doc["alternatives"]),
            "document": json.dumps(doc, allow_nan=False),
            "owner": self.reviewer.id if self.reviewer is not None else "",
        }
        with self._translated(), self._connect(write=True) as conn, conn.begin():
            new_id = conn.execute(_reviews.insert().values(**row)).inserted_primary_key[0]
        return int(new_id)

    # -- reading
    def list(self) -> list[ReviewSummary]:
        """Every stored review, oldest first, as :class:`ReviewSummary` rows."""
        with self._translated(), self._connect() as conn, conn.begin():
            rows = (
                conn.execute(self._visible(sa.select(_reviews)).order_by(_reviews.c.id))
                .mappings()
                .all()
            )
        out = []
        for r in rows:
            doc = self._parse(r["id"], r["document"])
            out.append(
                ReviewSummary(
                    id=int(r["id"]),
                    created=r["created"],
                    decision=r["decision"],
                    reviewer=r["reviewer"],
                    real_fingerprint=r["real_fingerprint"],
                    synthetic_fingerprints=tuple(
                        f for f in r["synthetic_fingerprints"].split(",") if f
                    ),
                    candidates=tuple(str(c.get("name")) for c in doc.get("candidates") or []),
                    headline=_headline(doc),
                    version=r["version"],
                    n_alternatives=int(r["n_alternatives"] or 0),
                    inputs_key=r["inputs_key"],
                    numbers_key=r["numbers_key"] or "",
                    owner=r["owner"] or "",
                )
            )
        return out

    def ids(self) -> builtins.list[int]:  # `list` is a method here
        """The ids of the stored reviews, in order."""
        with self._translated(), self._connect() as conn, conn.begin():
            return [
                int(i)
                for i in conn.execute(
                    self._visible(sa.select(_reviews.c.id)).order_by(_reviews.c.id)
                ).scalars()
            ]

    def get(self, review_id: int) -> dict[str, Any]:
        """The stored document of one review, with its ``id`` added.

        A fresh copy on every call: changing it changes nothing stored.

        Raises
        ------
        HistoryError
            No review has this id (the message lists the ids that exist).
        """
        with self._translated(), self._connect() as conn, conn.begin():
            # a review this reviewer may not read is answered like one that does not exist:
            # the message must not confirm that someone else's review is there
            text = conn.execute(
                self._visible(sa.select(_reviews.c.document)).where(_reviews.c.id == int(review_id))
            ).scalar()
        if text is None:
            ids = self.ids()
            have = (
                f"stored reviews: {', '.join(map(str, ids))}"
                if ids
                else "the database holds no reviews yet"
            )
            raise HistoryError(f"no review {review_id} in {self.location}; {have}.")
        return {"id": int(review_id), **self._parse(review_id, text)}

    def same_inputs(self, report: Any) -> builtins.list[int]:
        """Ids of the stored reviews computed from the same inputs (:func:`inputs_key`)."""
        key = inputs_key(report)
        with self._translated(), self._connect() as conn, conn.begin():
            return [
                int(i)
                for i in conn.execute(
                    self._visible(sa.select(_reviews.c.id))
                    .where(_reviews.c.inputs_key == key)
                    .order_by(_reviews.c.id)
                ).scalars()
            ]

    def compare(self, a: int, b: int) -> ReviewComparison:
        """:func:`compare_reviews` of two stored reviews, by id."""
        return compare_reviews(self.get(a), self.get(b))

    # -- who sees what
    def _visible(self, query: Any) -> Any:
        """``query`` limited to the reviews this store's reviewer may read."""
        if self.reviewer is None:
            return query.where(_reviews.c.owner == "") if self.local_only else query
        if self.team_visible:
            return query
        shared = sa.select(_shares.c.review_id).where(
            _shares.c.grantee.in_(self.reviewer.grantees())
        )
        return query.where(sa.or_(_reviews.c.owner == self.reviewer.id, _reviews.c.id.in_(shared)))

    def share(self, review_id: int, *, user: str | None = None, team: str | None = None) -> None:
        """Let one more person (``user``, their sign-in identity) or a whole ``team`` read
        a review. Only its owner may share it; sharing twice is harmless.

        Raises
        ------
        HistoryError
            No review with this id is visible to this store's reviewer, or the reviewer
            does not own it.
        ParameterError
            Neither or both of ``user`` and ``team`` are given, or the one given is empty.
        """
        if (user is None) == (team is None):
            raise ParameterError("share a review with one user or one team: give user= or team=.")
        who = str(user if user is not None else team).strip()
        if not who or len(who) > 320:
            raise ParameterError(
                "the user or team to share with must be a non-empty name of at most 320 characters."
            )
        grantee = f"{'user' if user is not None else 'team'}:{who}"
        owner = self.reviewer.id if self.reviewer is not None else ""
        with self._translated(), self._connect(write=True) as conn, conn.begin():
            row = conn.execute(
                self._visible(sa.select(_reviews.c.owner)).where(_reviews.c.id == int(review_id))
            ).first()
            if row is None:
                raise HistoryError(f"no review {review_id} in {self.location} to share.")
            if row[0] != owner:
                raise HistoryError(f"only the reviewer who saved review {review_id} can share it.")
            exists = conn.execute(
                sa.select(_shares.c.grantee).where(
                    _shares.c.review_id == int(review_id), _shares.c.grantee == grantee
                )
            ).first()
            if exists is None:
                conn.execute(_shares.insert().values(review_id=int(review_id), grantee=grantee))

    def shared_with(self, review_id: int) -> builtins.list[str]:
        """Who else may read a review: ``user:<id>`` and ``team:<name>`` entries, sorted
        (empty for a review this reviewer cannot see)."""
        with self._translated(), self._connect() as conn, conn.begin():
            visible = conn.execute(
                self._visible(sa.select(_reviews.c.id)).where(_reviews.c.id == int(review_id))
            ).first()
            if visible is None:
                return []
            return sorted(
                conn.execute(
                    sa.select(_shares.c.grantee).where(_shares.c.review_id == int(review_id))
                ).scalars()
            )

    def _parse(self, review_id: Any, text: str) -> dict[str, Any]:
        try:
            doc = json.loads(text)
        except ValueError:
            raise HistoryError(
                f"review {review_id} in {self.location} is damaged (its "
                "document is not JSON); restore the database from a "
                "backup."
            ) from None
        return doc

    # -- closing
    def close(self) -> None:
        """Release the database connections. Idempotent."""
        if not self._closed:
            self._closed = True
            self._engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ReviewStore({self.location!r})"


def location_of(url: str | sa.engine.URL) -> str:
    """How a history's messages name its database: a SQLite file's path, or the URL with
    its password hidden."""
    url = sa.engine.make_url(url)
    if url.get_backend_name() == "sqlite":
        return url.database if url.database not in (None, "", ":memory:") else "(memory)"
    return url.render_as_string(hide_password=True)


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _transactional_sqlite(engine: sa.Engine) -> None:
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


# ----------------------------------------------------------------------------- migrations
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
    _shares.create(conn)


_MIGRATIONS = {1: _migrate_1_to_2, 2: _migrate_2_to_3}


# ----------------------------------------------------------------------------- comparing
@dataclass(frozen=True, eq=False)  # a DataFrame has no truth value to compare by
class ReviewComparison:
    """Two reviews side by side: which numbers moved and what changed in the inputs.

    ``metrics`` has one row per candidate and measure: ``candidate``, ``metric``,
    ``value_a``, ``ci_a``, ``value_b``, ``ci_b``, ``delta`` (b - a) and ``moved`` (the two
    intervals do not overlap; a measure without an interval counts as the point interval
    of its value, so any change of it is a move). ``inputs`` lists in words each
    difference of data (fingerprints, row counts), threat model, parameters, seeds and
    decision. ``identical_numbers`` is :func:`reproduces`.
    """

    metrics: pd.DataFrame
    inputs: list[str]
    identical_numbers: bool
    same_inputs: bool
    a_id: int | None = None
    b_id: int | None = None
    causes: tuple[str, ...] = field(default=())

    @property
    def n_numbers(self) -> int:
        """Measures present in both reviews."""
        both = self.metrics["value_a"].notna() & self.metrics["value_b"].notna()
        return int(both.sum())

    @property
    def n_moved(self) -> int:
        """Measures whose intervals do not overlap."""
        return int(self.metrics["moved"].sum())

    @property
    def n_changed(self) -> int:
        """Measures in both reviews whose value or interval is not identical (a measure
        computed in one review only is listed in ``inputs``, not counted here)."""
        m = self.metrics
        both = m["value_a"].notna() & m["value_b"].notna()
        changed = [
            not (_same(va, vb) and ca == cb)
            for va, vb, ca, cb in zip(
                m["value_a"][both],
                m["value_b"][both],
                m["ci_a"][both],
                m["ci_b"][both],
                strict=True,
            )
        ]
        return int(sum(changed))

    def summary(self) -> str:
        """One plain-English sentence: does the review reproduce, and if not, why."""
        if self.identical_numbers:
            if self.same_inputs:
                return "Same inputs and seed; every number identical: the review reproduces."
            return "Every number identical although the inputs differ (" + _and(self.causes) + ")."
        if self.n_moved:
            moved = f"{self.n_moved} of {self.n_numbers} numbers moved beyond their intervals"
        elif self.n_changed:
            moved = (
                f"{self.n_changed} of {self.n_numbers} numbers changed, none beyond its interval"
            )
        else:
            moved = (
                f"the {self.n_numbers} numbers both reviews hold are identical, but "
                "the reviews hold different measures"
            )
        if self.same_inputs:
            return f"Same inputs and seed, yet {moved}: the review does not reproduce" + (
                " (the product version changed)."
                if "the product version changed" in self.causes
                else "."
            )
        return f"{moved[0].upper()}{moved[1:]}; {_and(self.causes)}."

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the rows of ``metrics``, the input differences and the sentence."""
        return jsonable(
            {
                "a": self.a_id,
                "b": self.b_id,
                "summary": self.summary(),
                "identical_numbers": self.identical_numbers,
                "same_inputs": self.same_inputs,
                "inputs": list(self.inputs),
                "metrics": self.metrics.to_dict(orient="records"),
            }
        )


def _and(items: Sequence[str]) -> str:
    items = list(items) or ["the inputs changed"]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _same(x: Any, y: Any) -> bool:
    if _missing(x) and _missing(y):
        return True
    return x == y


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _interval(value: Any, ci: Any) -> tuple[float, float] | None:
    if ci and len(ci) == 2 and None not in ci:
        return float(ci[0]), float(ci[1])
    if _missing(value):
        return None
    return float(value), float(value)


def _moved(va: Any, ca: Any, vb: Any, cb: Any) -> bool:
    ia, ib = _interval(va, ca), _interval(vb, cb)
    if ia is None or ib is None:
        return False
    return ia[1] < ib[0] or ib[1] < ia[0]


def _metric_rows(a: Mapping[str, Any], b: Mapping[str, Any]) -> pd.DataFrame:
    cands_a, cands_b = a.get("candidates") or [], b.get("candidates") or []
    rows = []
    # candidates are paired by position: a mitigated release is often saved under another
    # name, and the report keeps candidates in the order they were given
    for i in range(max(len(cands_a), len(cands_b))):
        ca = cands_a[i] if i < len(cands_a) else {}
        cb = cands_b[i] if i < len(cands_b) else {}
        na, nb = ca.get("name"), cb.get("name")
        label = str(na if na == nb or nb is None else nb if na is None else f"{na} → {nb}")
        ma, mb = ca.get("metrics") or {}, cb.get("metrics") or {}
        for metric in list(ma) + [m for m in mb if m not in ma]:
            va, vb = (ma.get(metric) or {}).get("value"), (mb.get(metric) or {}).get("value")
            cia, cib = (ma.get(metric) or {}).get("ci"), (mb.get(metric) or {}).get("ci")
            delta = (
                None
                if va is None or vb is None or _missing(va) or _missing(vb)
                else float(vb) - float(va)
            )
            rows.append(
                {
                    "candidate": label,
                    "metric": metric,
                    "value_a": va,
                    "ci_a": tuple(cia) if cia else None,
                    "value_b": vb,
                    "ci_b": tuple(cib) if cib else None,
                    "delta": delta,
                    "moved": _moved(va, cia, vb, cib),
                }
            )
    columns = ["candidate", "metric", "value_a", "ci_a", "value_b", "ci_b", "delta", "moved"]
    frame = pd.DataFrame(rows, columns=columns)
    frame["moved"] = frame["moved"].astype(bool)
    for col in ("value_a", "value_b", "delta"):
        frame[col] = pd.to_numeric(frame[col], errors="coerce")
    return frame


def _show(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _data_differences(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[list[str], set[str]]:
    pa, pb = a.get("provenance") or {}, b.get("provenance") or {}
    lines: list[str] = []
    causes: set[str] = set()

    def table(label: str, ta: Any, tb: Any, cause: str) -> None:
        ta, tb = ta or {}, tb or {}
        if ta.get("fingerprint") != tb.get("fingerprint"):
            lines.append(
                f"{label} fingerprint: {ta.get('fingerprint') or 'none'} → "
                f"{tb.get('fingerprint') or 'none'}"
            )
            causes.add(cause)
        if ta.get("rows") != tb.get("rows"):
            lines.append(f"{label} rows: {ta.get('rows')} → {tb.get('rows')}")
            causes.add(cause)

    table("real data", pa.get("real"), pb.get("real"), "the real data changed")
    table("holdout", pa.get("holdout"), pb.get("holdout"), "the holdout changed")
    sa_, sb_ = pa.get("synthetic") or [], pb.get("synthetic") or []
    if len(sa_) != len(sb_):
        lines.append(f"synthetic releases: {len(sa_)} → {len(sb_)}")
        causes.add("the synthetic data changed")
    for i, (ra, rb) in enumerate(zip(sa_, sb_, strict=False)):
        table(f"synthetic release {i + 1} ({rb.get('name')})", ra, rb, "the synthetic data changed")
    if pa.get("software") != pb.get("software"):
        lines.append(f"product version: {pa.get('software')} → {pb.get('software')}")
        causes.add("the product version changed")
    return lines, causes


def _param_differences(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[list[str], set[str]]:
    lines: list[str] = []
    causes: set[str] = set()
    seeds: list[tuple[Any, Any]] = []
    cands_a, cands_b = a.get("candidates") or [], b.get("candidates") or []
    several = max(len(cands_a), len(cands_b)) > 1
    for ca, cb in zip(cands_a, cands_b, strict=False):
        prefix = f"{cb.get('name')}: " if several else ""
        ma, mb = ca.get("metrics") or {}, cb.get("metrics") or {}
        only_a = [m for m in ma if m not in mb]
        only_b = [m for m in mb if m not in ma]
        if only_a:
            lines.append(f"{prefix}measures only in review A: {', '.join(only_a)}")
        if only_b:
            lines.append(f"{prefix}measures only in review B: {', '.join(only_b)}")
        if only_a or only_b:
            causes.add("the measures changed")
        for metric in (m for m in ma if m in mb):
            pa = _stable_params((ma[metric] or {}).get("params")) or {}
            pb = _stable_params((mb[metric] or {}).get("params")) or {}
            if pa.get("seed") != pb.get("seed"):
                seeds.append((pa.get("seed"), pb.get("seed")))
                # the other *_seed keys are drawn from the seed: one line says it all
                skip = {k for k in set(pa) | set(pb) if k.endswith("seed")}
            else:
                skip = set()
            keys = [
                k for k in sorted(set(pa) | set(pb)) if k not in skip and pa.get(k) != pb.get(k)
            ]
            for k in keys:
                lines.append(f"{prefix}{metric} {k}: {_show(pa.get(k))} → {_show(pb.get(k))}")
            if keys:
                causes.add("the parameters changed")
    for old, new in dict.fromkeys(seeds):
        lines.append(f"seed: {old} → {new}")
        causes.add("the seed changed")
    return lines, causes


def compare_reviews(a: Mapping[str, Any], b: Mapping[str, Any]) -> ReviewComparison:
    """Compare two reviews: which numbers moved and what changed in data or parameters.

    Parameters
    ----------
    a, b
        Stored documents (:meth:`ReviewStore.get`) or reports; ``a`` is the earlier one,
        deltas are ``b - a``.

    Returns
    -------
    ReviewComparison
        ``metrics`` (one row per candidate and measure, ``moved`` when the intervals do
        not overlap), ``inputs`` (each difference in words), ``identical_numbers`` and
        :meth:`~ReviewComparison.summary`.

    Notes
    -----
    Candidates are paired by position. Two reviews with the same :func:`inputs_key`
    computed from the same files, threat model, parameters and seeds; the product's seeded
    measures then give identical numbers, so a difference there means the product itself
    changed (consensus framework: a review must be reproducible to be auditable).
    """
    da, db = _document(a), _document(b)
    data_lines, data_causes = _data_differences(da, db)
    param_lines, param_causes = _param_differences(da, db)
    lines = data_lines + param_lines
    causes = data_causes | param_causes
    ta, tb = da.get("threat") or {}, db.get("threat") or {}
    for k in [k for k in list(ta) + [k for k in tb if k not in ta] if ta.get(k) != tb.get(k)]:
        lines.append(f"threat model {k}: {_show(ta.get(k))} → {_show(tb.get(k))}")
        causes.add("the threat model changed")
    if da.get("decision") != db.get("decision"):
        lines.append(f"decision: {da.get('decision')} → {db.get('decision')}")
    order = [
        "the real data changed",
        "the holdout changed",
        "the synthetic data changed",
        "the threat model changed",
        "the measures changed",
        "the parameters changed",
        "the seed changed",
        "the product version changed",
    ]
    return ReviewComparison(
        metrics=_metric_rows(da, db),
        inputs=lines,
        identical_numbers=_numbers(da) == _numbers(db),
        same_inputs=inputs_key(da) == inputs_key(db),
        a_id=a.get("id") if isinstance(a, Mapping) else None,
        b_id=b.get("id") if isinstance(b, Mapping) else None,
        causes=tuple(c for c in order if c in causes),
    )
