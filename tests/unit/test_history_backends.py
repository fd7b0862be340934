"""The review history on the databases a team deploys it with (issue 32): every test here
runs on SQLite and on a real PostgreSQL server (``history_url`` in ``tests/conftest.py``).

Who sees what: a reviewer lists, opens, compares and finds by inputs only the reviews they
saved or that were shared with them or their team; another reviewer's review reads like
one that does not exist. Plus migration from the previous schema, two processes writing at
once, a locked database and a foreign one.

Wrong implementations these catch: an unfiltered query (everyone sees everything), a
filter on ``get`` but not on ``list``/``same_inputs``/``compare``, a share that is not
limited to its owner, a team share that reaches non-members, a "not yours" message that
confirms the review exists, a migration that loses rows or leaves a different layout, a
writer that overwrites or loses a concurrent writer's review.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
import warnings

import pytest
import sqlalchemy as sa

import privacy_core as pc
from privacy_core.evaluation import evaluate_measures
from privacy_core.history import SCHEMA_VERSION, Reviewer

THREAT = pc.ThreatModel(["age", "education", "gender"], ["disease"])

ANA = Reviewer("ana@stats.example", "Ana", teams=("disclosure",))
BEN = Reviewer("ben@hospital.example", "Ben")
CAL = Reviewer("cal@stats.example", "Cal", teams=("disclosure",))


@pytest.fixture(scope="module")
def report():
    real = pc.simulate_health(300, seed=4)
    schema = pc.infer_schema(real)
    syn = pc.synthesize(pc.prepare_table(real, schema), method="cart", seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = evaluate_measures(real, [syn], names=["ims", "dcr"], threat=THREAT, seed=0)
    return pc.build_report(
        real=real,
        synthetic=[syn],
        results=results,
        threat=THREAT,
        schema=schema,
        names={"real": "real.csv", "synthetic": ["cart.csv"]},
        notes="![img](http://127.0.0.1:9/track.png) a note",
    )


def test_each_reviewer_sees_only_their_own_and_what_was_shared(history_url, report):
    with pc.ReviewStore(history_url, reviewer=ANA) as ana:
        a1 = ana.save(report)
        a2 = ana.save(report)
    with pc.ReviewStore(history_url, reviewer=BEN) as ben:
        b1 = ben.save(report)
        assert [r.id for r in ben.list()] == [b1] == ben.ids()
        assert ben.list()[0].owner == BEN.id
        assert ben.same_inputs(report) == [b1]  # not Ana's reviews of the same inputs
        for other in (a1, a2):
            # exactly the message of an id that does not exist: nothing confirms it is there
            with pytest.raises(
                pc.HistoryError, match=rf"no review {other} in .*stored reviews: {b1}\."
            ):
                ben.get(other)
        with pytest.raises(pc.HistoryError, match=f"no review {a1}"):
            ben.compare(a1, b1)
        with pytest.raises(pc.HistoryError, match=f"no review {a1} .* to share"):
            ben.share(a1, user=BEN.id)  # cannot grant himself someone else's review
    with pc.ReviewStore(history_url, reviewer=ANA) as ana:
        assert ana.ids() == [a1, a2]
        ana.share(a2, user=BEN.id)
        ana.share(a2, user=BEN.id)  # twice is harmless
        assert ana.shared_with(a2) == [f"user:{BEN.id}"]
        assert ana.shared_with(b1) == []
    with pc.ReviewStore(history_url, reviewer=BEN) as ben:
        assert ben.ids() == [a2, b1]
        assert ben.get(a2)["id"] == a2
        assert ben.compare(a2, b1).identical_numbers
        with pytest.raises(pc.HistoryError, match=f"only the reviewer who saved review {a2}"):
            ben.share(a2, user="eve@elsewhere.example")  # read access is not ownership
    # the single-user local tool (no sign-in) and the team-visible policy see everything
    with pc.ReviewStore(history_url) as local:
        assert local.ids() == [a1, a2, b1]
        assert {r.owner for r in local.list()} == {ANA.id, BEN.id}
    with pc.ReviewStore(history_url, reviewer=BEN, team_visible=True) as ben:
        assert ben.ids() == [a1, a2, b1]


def test_a_team_share_reaches_its_members_only(history_url, report):
    with pc.ReviewStore(history_url, reviewer=BEN) as ben:
        b1 = ben.save(report)
        ben.share(b1, team="disclosure")
    with pc.ReviewStore(history_url, reviewer=CAL) as cal:
        assert cal.ids() == [b1]
    with pc.ReviewStore(history_url, reviewer=Reviewer("dee@x.example", teams=("board",))) as dee:
        assert dee.ids() == []
    with pc.ReviewStore(history_url, reviewer=Reviewer("team:disclosure")) as odd:
        assert odd.ids() == []  # an identity spelled like a team entry is still a user


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({}, "give user= or team="),
        ({"user": "a", "team": "b"}, "give user= or team="),
        ({"user": "  "}, "non-empty name"),
    ],
)
def test_share_needs_exactly_one_grantee(tmp_path, report, kwargs, message):
    with pc.ReviewStore(f"sqlite:///{tmp_path / 'r.db'}", reviewer=ANA) as store:
        rid = store.save(report)
        with pytest.raises(pc.ParameterError, match=message):
            store.share(rid, **kwargs)


def test_a_reviewer_needs_an_identity():
    with pytest.raises(pc.ParameterError, match="non-empty identity"):
        Reviewer("  ")
    with pytest.raises(pc.ParameterError, match="must be a privacy_core.history.Reviewer"):
        pc.ReviewStore("sqlite://", reviewer="ana")  # type: ignore[arg-type]


def _version_2(url: str, n_reviews: int) -> None:
    """A database exactly as version 2 created it (no owner, no shares), with reviews."""
    meta = sa.MetaData()
    version = sa.Table("schema_version", meta, sa.Column("version", sa.Integer, nullable=False))
    reviews = sa.Table(
        "reviews",
        meta,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("created", sa.String(40), nullable=False, index=True),
        sa.Column("decision", sa.String(40), nullable=False),
        sa.Column("reviewer", sa.String(200), nullable=False),
        sa.Column("real_fingerprint", sa.String(64), nullable=False, index=True),
        sa.Column("synthetic_fingerprints", sa.Text, nullable=False),
        sa.Column("version", sa.String(80), nullable=False),
        sa.Column("inputs_key", sa.String(64), nullable=False, index=True),
        sa.Column("document", sa.Text, nullable=False),
        sa.Column("numbers_key", sa.String(64), nullable=True),
        sa.Column("n_alternatives", sa.Integer, nullable=False, server_default="0"),
    )
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        meta.create_all(conn)
        conn.execute(version.insert().values(version=2))
        for i in range(n_reviews):
            conn.execute(
                reviews.insert().values(
                    created=f"2026-01-0{i + 1}",
                    decision="release",
                    reviewer="old",
                    real_fingerprint="f" * 64,
                    synthetic_fingerprints="g" * 64,
                    version="0.9",
                    inputs_key="k" * 64,
                    numbers_key="n" * 64,
                    document='{"candidates": [], "provenance": {}, "alternatives": []}',
                )
            )
    engine.dispose()


def _layout(url: str) -> tuple:
    engine = sa.create_engine(url)
    inspector = sa.inspect(engine)
    out = tuple(
        (
            table,
            sorted(c["name"] for c in inspector.get_columns(table)),
            sorted(i["name"] for i in inspector.get_indexes(table)),
        )
        for table in sorted(inspector.get_table_names())
    )
    engine.dispose()
    return out


def test_a_version_2_database_migrates_to_owners_and_shares(history_url, report, tmp_path):
    _version_2(history_url, 2)
    with pc.ReviewStore(history_url) as local:  # the local user owns the old reviews
        assert local.ids() == [1, 2] and {r.owner for r in local.list()} == {""}
        local.share(1, team="disclosure")
        new = local.save(report)
        assert new == 3
    with pc.ReviewStore(history_url, reviewer=CAL) as cal:
        assert cal.ids() == [1]
    engine = sa.create_engine(history_url)
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version FROM schema_version")).scalars().all() == [
            SCHEMA_VERSION
        ]
    engine.dispose()
    # the migrated database has the layout of one created at this version
    fresh = f"sqlite:///{tmp_path / 'fresh.db'}"
    if history_url.startswith("sqlite"):
        pc.ReviewStore(fresh).close()
        assert _layout(history_url) == _layout(fresh)
    else:
        names = [t for t, _, _ in _layout(history_url)]
        assert names == ["reviews", "schema_version", "shares"]


def _write_many(url: str, who: str, n: int, doc: dict, out: multiprocessing.Queue) -> None:
    ids = []
    with pc.ReviewStore(url, reviewer=Reviewer(who), busy_timeout=30) as store:
        for _ in range(n):
            ids.append(store.save(doc))
    out.put(ids)


def test_two_processes_writing_at_once_lose_nothing(history_url, report):
    pc.ReviewStore(history_url).close()  # created (and migrated) once, before the writers
    doc = report.to_dict()
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    workers = [
        ctx.Process(target=_write_many, args=(history_url, who, 12, doc, out))
        for who in ("ana@x.example", "ben@x.example")
    ]
    for w in workers:
        w.start()
    got = [out.get(timeout=120) for _ in workers]
    for w in workers:
        w.join(timeout=60)
        assert w.exitcode == 0
    all_ids = sorted(got[0] + got[1])
    assert len(set(all_ids)) == 24
    with pc.ReviewStore(history_url) as local:
        assert local.ids() == all_ids
    with pc.ReviewStore(history_url, reviewer=Reviewer("ana@x.example")) as ana:
        assert ana.ids() == sorted(got[0]) or ana.ids() == sorted(got[1])


def test_a_locked_database_fails_clearly_and_keeps_its_reviews(history_url, report):
    with pc.ReviewStore(history_url, busy_timeout=0.5) as store:
        kept = store.save(report)
        engine = sa.create_engine(history_url)
        conn = engine.connect()
        if history_url.startswith("sqlite"):
            conn.exec_driver_sql("BEGIN EXCLUSIVE")
        else:
            conn.begin()
            conn.exec_driver_sql("LOCK TABLE reviews IN ACCESS EXCLUSIVE MODE")
        try:
            started = time.perf_counter()
            with pytest.raises(pc.HistoryError, match="is locked by another program"):
                store.save(report)
            assert time.perf_counter() - started < 10
        finally:
            conn.rollback() if not history_url.startswith("sqlite") else conn.exec_driver_sql(
                "ROLLBACK"
            )
            conn.close()
            engine.dispose()
        assert store.ids() == [kept]
        assert store.save(report) == kept + 1


def test_a_foreign_database_is_refused_and_left_alone(history_url):
    engine = sa.create_engine(history_url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE patients (id INTEGER, diagnosis TEXT)")
        conn.exec_driver_sql("INSERT INTO patients VALUES (1, 'flu')")
    with pytest.raises(
        pc.HistoryError, match=r"holds other tables \(patients\).*nothing was written"
    ):
        pc.ReviewStore(history_url)
    assert sa.inspect(engine).get_table_names() == ["patients"]
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM patients").scalar() == 1
    engine.dispose()


def test_threads_sharing_one_store_each_get_their_own_review(history_url, report):
    # the app opens one store per action, but a server has many sessions at once
    ids: list[int] = []
    lock = threading.Lock()

    def save() -> None:
        with pc.ReviewStore(history_url, reviewer=ANA, busy_timeout=30) as store:
            rid = store.save(report)
        with lock:
            ids.append(rid)

    threads = [threading.Thread(target=save) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(ids) == list(range(1, 7))


def test_the_default_database_is_in_the_user_data_folder_not_the_checkout():
    import platformdirs

    url = pc.history.default_url()
    assert url == pc.history.DEFAULT_URL
    folder = platformdirs.user_data_path("privacy-review", appauthor=False)
    assert url == f"sqlite:///{folder / 'reviews.db'}"
    assert url.removeprefix("sqlite:///") != "reviews.db"  # never relative to the cwd
