"""The review store: saving, listing, opening, comparing and sharing stored reviews.

Contract
--------
A review is stored on explicit request (:meth:`ReviewStore.save`) as one strict-JSON
document (the report's :meth:`~privacy_core.report.ReviewReport.to_dict`, plus the
considered alternatives) and a few indexed columns to list and match reviews by. The
store holds aggregates only: the report's per-record tables are dropped before anything
is written, and no row of any table is ever stored.

The database is any SQLAlchemy URL (:mod:`.connection`): SQLite (a file, the default) for
one reviewer, a server such as PostgreSQL for a team. Opening it creates or migrates its
schema (:mod:`.migrations`); every write is one transaction, so a failed save leaves the
earlier reviews as they were. What a store lists, opens, compares and shares is limited
to what its reviewer may see (:mod:`.access`).
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from ..errors import HistoryError, ParameterError
from .access import Reviewer, grantee, visible_to
from .comparison import ReviewComparison, compare_reviews
from .connection import database_error, first_line, location_of, make_engine
from .documents import (
    checked_alternatives,
    data_fingerprints,
    inputs_key,
    numbers_key,
    reproduces,
    review_document,
    strip_records,
)
from .migrations import open_schema
from .schema import DEFAULT_URL, REVIEWS, SHARES, default_url
from .summary import ReviewSummary, headline

__all__ = ["ReviewStore"]


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
        self._engine = make_engine(self.url, busy_timeout)
        self.location = self._location()
        self._closed = False
        try:
            self._check_file(create)
            with self._translated():
                open_schema(self._engine, self.location)
        except BaseException:
            self._engine.dispose()
            raise

    # -- opening
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

    @contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except sa_exc.DBAPIError as exc:
            raise database_error(exc, self.location) from None
        except sa_exc.SQLAlchemyError as exc:
            raise HistoryError(
                f"the review database {self.location} failed: {first_line(exc)}"
            ) from None

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
        doc = strip_records(review_document(report))
        doc.pop("id", None)  # a document read back from get() carries its old id
        doc["alternatives"] = checked_alternatives(
            list(doc.get("alternatives") or [])
        ) + checked_alternatives(alternatives)
        real, synthetic, _ = data_fingerprints(doc)
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
            new_id = conn.execute(REVIEWS.insert().values(**row)).inserted_primary_key[0]
        return int(new_id)

    # -- reading
    def list(self) -> list[ReviewSummary]:
        """Every stored review, oldest first, as :class:`ReviewSummary` rows."""
        with self._translated(), self._connect() as conn, conn.begin():
            rows = (
                conn.execute(self._visible(sa.select(REVIEWS)).order_by(REVIEWS.c.id))
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
                    headline=headline(doc),
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
                    self._visible(sa.select(REVIEWS.c.id)).order_by(REVIEWS.c.id)
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
                self._visible(sa.select(REVIEWS.c.document)).where(REVIEWS.c.id == int(review_id))
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
                    self._visible(sa.select(REVIEWS.c.id))
                    .where(REVIEWS.c.inputs_key == key)
                    .order_by(REVIEWS.c.id)
                ).scalars()
            ]

    def compare(self, a: int, b: int) -> ReviewComparison:
        """:func:`compare_reviews` of two stored reviews, by id."""
        return compare_reviews(self.get(a), self.get(b))

    # -- who sees what
    def _visible(self, query: Any) -> Any:
        """``query`` limited to the reviews this store's reviewer may read."""
        return visible_to(
            query, self.reviewer, team_visible=self.team_visible, local_only=self.local_only
        )

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
        entry = grantee(user=user, team=team)
        owner = self.reviewer.id if self.reviewer is not None else ""
        with self._translated(), self._connect(write=True) as conn, conn.begin():
            row = conn.execute(
                self._visible(sa.select(REVIEWS.c.owner)).where(REVIEWS.c.id == int(review_id))
            ).first()
            if row is None:
                raise HistoryError(f"no review {review_id} in {self.location} to share.")
            if row[0] != owner:
                raise HistoryError(f"only the reviewer who saved review {review_id} can share it.")
            exists = conn.execute(
                sa.select(SHARES.c.grantee).where(
                    SHARES.c.review_id == int(review_id), SHARES.c.grantee == entry
                )
            ).first()
            if exists is None:
                conn.execute(SHARES.insert().values(review_id=int(review_id), grantee=entry))

    def shared_with(self, review_id: int) -> builtins.list[str]:
        """Who else may read a review: ``user:<id>`` and ``team:<name>`` entries, sorted
        (empty for a review this reviewer cannot see)."""
        with self._translated(), self._connect() as conn, conn.begin():
            visible = conn.execute(
                self._visible(sa.select(REVIEWS.c.id)).where(REVIEWS.c.id == int(review_id))
            ).first()
            if visible is None:
                return []
            return sorted(
                conn.execute(
                    sa.select(SHARES.c.grantee).where(SHARES.c.review_id == int(review_id))
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
