"""The review history (issue 11, item 4): a database of reviews that holds aggregates only,
finds the reviews of the same inputs, says whether a re-run reproduces them, compares two
reviews, migrates an older schema and fails clearly on a corrupt, locked or foreign file."""

import json
import sqlite3
import time
import warnings

import pytest
import sqlalchemy as sa

import privacy_core as pc
from privacy_core.cli import main
from privacy_core.evaluation import evaluate_measures
from privacy_core.history import SCHEMA_V1_DDL, SCHEMA_VERSION, inputs_key, numbers_key

THREAT = pc.ThreatModel(["age", "education", "gender"], ["disease"])
MEASURES = ["ims", "dcr", "wasserstein"]


@pytest.fixture(scope="module")
def data():
    real = pc.simulate_health(400, seed=1)
    schema = pc.infer_schema(real)
    prepared = pc.prepare_table(real, schema)
    return {
        "real": real,
        "schema": schema,
        "cart": pc.synthesize(prepared, method="cart", seed=3),
        "copy": pc.synthesize(prepared, method="self", seed=3),
    }


def _report(data, release="cart", *, seed=0, **kwargs):
    """A review computed from scratch: two calls share nothing but their inputs."""
    syn = data[release]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = evaluate_measures(data["real"], [syn], names=MEASURES, threat=THREAT, seed=seed)
    return pc.build_report(
        real=data["real"],
        synthetic=[syn],
        results=results,
        threat=THREAT,
        schema=data["schema"],
        names={"real": "real.csv", "synthetic": [f"{release}.csv"]},
        **kwargs,
    )


@pytest.fixture(scope="module")
def reports(data):
    return {
        "first": _report(data, decision="release", reviewer="A. Reviewer", include_records=True),
        "rerun": _report(data),
        "other_seed": _report(data, seed=1),
        "copy": _report(data, "copy", decision="do not release"),
    }


def _url(path):
    return f"sqlite:///{path}"


def _tables(path):
    with sqlite3.connect(path) as con:
        return sorted(
            r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        )


# ----------------------------------------------------------------------------- round trip
def test_round_trip_stores_aggregates_only(history_url, reports):
    first = reports["first"]
    assert first.records, "the report under test must carry per-record tables"
    alternative = {
        "mitigation": "age binned to 10 years",
        "metrics": {"ims": {"value": 0.01, "ci": [0.0, 0.03]}},
    }
    with pc.ReviewStore(history_url) as store:
        review_id = store.save(first, alternatives=[alternative])
        [summary] = store.list()
        doc = store.get(review_id)

    assert summary.id == review_id and summary.decision == "release"
    assert summary.reviewer == "A. Reviewer"
    prov = first.provenance
    assert summary.real_fingerprint == prov["real"]["fingerprint"]
    assert summary.synthetic_fingerprints == (prov["synthetic"][0]["fingerprint"],)
    assert summary.candidates == ("cart.csv",)
    assert summary.version == prov["software"] and summary.n_alternatives == 1
    metrics = first.candidates[0]["metrics"]
    assert summary.headline == {
        "cart.csv": {m: metrics[m]["value"] for m in ("dcr", "ims", "wasserstein")}
    }

    # the document is the report without its per-record tables, plus the alternatives
    expected = {k: v for k, v in first.to_dict().items() if k not in ("records", "alternatives")}
    assert {k: v for k, v in doc.items() if k not in ("id", "alternatives")} == expected
    assert doc["id"] == review_id and doc["alternatives"] == [alternative]
    engine = sa.create_engine(history_url)  # the stored text itself, on either backend
    with engine.connect() as conn:
        raw = conn.exec_driver_sql("SELECT document FROM reviews").scalar()
    engine.dispose()
    assert '"records"' not in raw
    json.loads(raw, parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"))


def test_alternatives_of_the_report_come_first(history_url, reports):
    carried = {"mitigation": "rare education levels merged", "metrics": {}}
    given = {"mitigation": "CART min leaf 20", "metrics": {"dcr": {"value": 0.1}}}
    doc = {**reports["rerun"].to_dict(), "alternatives": [carried]}
    with pc.ReviewStore(history_url) as store:
        review_id = store.save(doc, alternatives=[given])
        assert store.get(review_id)["alternatives"] == [carried, given]
        assert store.list()[0].n_alternatives == 2


def test_get_returns_a_copy_and_names_the_ids_that_exist(history_url, reports):
    with pc.ReviewStore(history_url) as store:
        a = store.save(reports["rerun"])
        b = store.save(reports["copy"])
        doc = store.get(a)
        doc["decision"] = "tampered"
        doc["candidates"][0]["metrics"]["ims"]["value"] = -1
        assert store.get(a)["decision"] == "undecided"
        assert store.get(a)["candidates"][0]["metrics"]["ims"]["value"] >= 0
        with pytest.raises(pc.HistoryError, match=rf"no review 99 .*stored reviews: {a}, {b}"):
            store.get(99)


def test_a_table_in_an_alternative_is_refused(history_url, reports, data):
    with pc.ReviewStore(history_url) as store:
        with pytest.raises(pc.ParameterError, match="aggregates only"):
            store.save(reports["rerun"], alternatives=[{"release": data["cart"]}])
        assert store.list() == []


# ----------------------------------------------------------------------------- reproduction
def test_same_inputs_and_seed_reproduce_every_number(history_url, reports):
    first, rerun, other = reports["first"], reports["rerun"], reports["other_seed"]
    assert first is not rerun  # computed twice, from the same files and seed
    with pc.ReviewStore(history_url) as store:
        assert store.same_inputs(first) == []
        a = store.save(first)
        assert store.same_inputs(rerun) == [a]
        assert store.same_inputs(other) == []  # the seed is an input
        b = store.save(rerun)
        da, db = store.get(a), store.get(b)
        assert store.list()[0].numbers_key == store.list()[1].numbers_key
    assert pc.reproduces(da, db) and pc.ReviewStore.reproduces(da, db)
    assert not pc.reproduces(da, reports["other_seed"].to_dict())
    comparison = pc.compare_reviews(da, db)
    assert comparison.identical_numbers and not comparison.metrics["moved"].any()
    assert (comparison.metrics["delta"] == 0).all() and len(comparison.metrics) == 3
    assert comparison.summary() == (
        "Same inputs and seed; every number identical: the review reproduces."
    )
    assert comparison.inputs == ["decision: release → undecided"]


def test_keys_ignore_names_and_see_one_changed_number(reports):
    d = reports["rerun"].to_dict()
    renamed = json.loads(json.dumps(d))
    renamed["provenance"]["synthetic"][0]["name"] = "elsewhere.csv"
    renamed["candidates"][0]["releases"] = ["elsewhere.csv"]
    assert inputs_key(renamed) == inputs_key(d)
    nudged = json.loads(json.dumps(d))
    nudged["candidates"][0]["metrics"]["dcr"]["value"] += 1e-12
    assert numbers_key(nudged) != numbers_key(d) and not pc.reproduces(d, nudged)


def test_compare_flags_moved_numbers_and_the_changed_release(reports):
    comparison = pc.compare_reviews(reports["rerun"].to_dict(), reports["copy"].to_dict())
    rows = comparison.metrics.set_index("metric")
    assert list(comparison.metrics.columns) == [
        "candidate",
        "metric",
        "value_a",
        "ci_a",
        "value_b",
        "ci_b",
        "delta",
        "moved",
    ]
    # a full copy of the training rows: every record has an identical twin
    assert rows.loc["ims", "value_b"] == pytest.approx(1.0)
    assert rows.loc["ims", "moved"] and rows.loc["ims", "delta"] > 0.5
    assert rows.loc["ims", "candidate"] == "cart.csv → copy.csv"
    assert not comparison.identical_numbers and comparison.n_moved >= 2
    changed = "\n".join(comparison.inputs)
    fp_a = reports["rerun"].provenance["synthetic"][0]["fingerprint"]
    fp_b = reports["copy"].provenance["synthetic"][0]["fingerprint"]
    assert f"synthetic release 1 (copy.csv) fingerprint: {fp_a} → {fp_b}" in changed
    assert "decision: undecided → do not release" in changed
    assert "real data" not in changed and "seed" not in changed
    assert comparison.summary() == (
        f"{comparison.n_moved} of 3 numbers moved beyond their "
        "intervals; the synthetic data changed."
    )


def test_compare_names_a_changed_seed(reports):
    comparison = pc.compare_reviews(reports["rerun"].to_dict(), reports["other_seed"].to_dict())
    assert "seed: 0 → 1" in comparison.inputs
    # the seeds drawn from the seed are not listed one by one
    assert not [line for line in comparison.inputs if "split_seed" in line]
    assert comparison.summary().endswith("the seed changed.")


# ----------------------------------------------------------------------------- schema
def _v1_database(path, documents):
    con = sqlite3.connect(path)
    for statement in SCHEMA_V1_DDL:
        con.execute(statement)
    for doc in documents:  # a str is a damaged document, written as it is
        ok = isinstance(doc, dict)
        con.execute(
            "INSERT INTO reviews (created, decision, reviewer, real_fingerprint, "
            "synthetic_fingerprints, version, inputs_key, document) VALUES (?,?,?,?,?,?,?,?)",
            (
                doc["created"] if ok else "",
                doc["decision"] if ok else "",
                "",
                "fp",
                "fp",
                "old",
                inputs_key(doc) if ok else "x",
                json.dumps(doc) if ok else doc,
            ),
        )
    con.commit()
    con.close()


def test_a_version_1_database_is_migrated_and_readable(tmp_path, reports):
    path = tmp_path / "old.db"
    old = {k: v for k, v in reports["rerun"].to_dict().items()}
    _v1_database(path, [old])
    with pc.ReviewStore(_url(path)) as store:
        [summary] = store.list()
        doc = store.get(summary.id)
        assert doc["alternatives"] == [] and summary.n_alternatives == 0
        assert summary.numbers_key == numbers_key(old)
        assert store.same_inputs(reports["rerun"]) == [summary.id]
        new_id = store.save(reports["rerun"])
        assert pc.reproduces(doc, store.get(new_id))
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
        columns = {r[1] for r in con.execute("PRAGMA table_info(reviews)")}
    assert {"numbers_key", "n_alternatives"} <= columns
    # a migrated file has the columns and indexes of one created at version 2
    fresh = tmp_path / "fresh.db"
    pc.ReviewStore(_url(fresh)).close()

    def layout(db):
        with sqlite3.connect(db) as con:
            return (
                {r[1] for r in con.execute("PRAGMA table_info(reviews)")},
                {r[1] for r in con.execute("PRAGMA index_list(reviews)")},
            )

    assert layout(path) == layout(fresh)


def test_a_failed_migration_changes_nothing(tmp_path, reports):
    path = tmp_path / "old.db"
    _v1_database(path, [reports["rerun"].to_dict(), "{not json"])
    with pytest.raises(pc.HistoryError, match="cannot be upgraded; nothing was changed"):
        pc.ReviewStore(_url(path))
    with sqlite3.connect(path) as con:  # the ALTER TABLEs were rolled back with the rest
        assert con.execute("SELECT version FROM schema_version").fetchall() == [(1,)]
        assert "numbers_key" not in {r[1] for r in con.execute("PRAGMA table_info(reviews)")}
        assert con.execute("SELECT count(*) FROM reviews").fetchone() == (2,)


def test_a_newer_database_asks_for_an_upgrade(tmp_path, reports):
    path = tmp_path / "new.db"
    with pc.ReviewStore(_url(path)) as store:
        store.save(reports["rerun"])
    with sqlite3.connect(path) as con:
        con.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    with pytest.raises(
        pc.HistoryError,
        match=rf"newer version .*schema {SCHEMA_VERSION + 1}"
        r".*upgrade the product",
    ):
        pc.ReviewStore(_url(path))


# ----------------------------------------------------------------------------- bad files
def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("minutes of the release board\n" * 50)
    with pytest.raises(
        pc.HistoryError,
        match=r"notes\.db is not a review database \(file is "
        r"not a SQLite database\); choose another file",
    ):
        pc.ReviewStore(_url(path))
    assert path.read_text().startswith("minutes")


def test_a_foreign_database_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "clinic.db"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE patients (id INTEGER, diagnosis TEXT)")
    before = path.read_bytes()
    with pytest.raises(
        pc.HistoryError,
        match=r"holds other tables \(patients\) and is not a "
        "review history; nothing was written",
    ):
        pc.ReviewStore(_url(path))
    assert _tables(path) == ["patients"] and path.read_bytes() == before


def test_a_locked_database_fails_clearly_and_loses_nothing(tmp_path, reports):
    path = tmp_path / "busy.db"
    store = pc.ReviewStore(_url(path))
    kept = store.save(reports["rerun"])
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another program holds the write lock
    try:
        started = time.perf_counter()
        with pytest.raises(
            pc.HistoryError,
            match=r"busy\.db is locked by another program; "
            "close it and try again",
        ):
            store.save(reports["copy"])
        assert time.perf_counter() - started < 5  # the short busy timeout, not forever
        with pytest.raises(pc.HistoryError, match="locked by another program"):
            pc.ReviewStore(_url(path), busy_timeout=0.2)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert [r.id for r in store.list()] == [kept]
    assert store.save(reports["copy"]) == kept + 1
    store.close()
    with pytest.raises(pc.HistoryError, match="closed"):
        store.list()


@pytest.mark.parametrize(
    "url, message",
    [
        ("reviews.db", "is not a database URL"),
        ("nosuchdb://host/reviews", "unknown database kind 'nosuchdb'"),
        ("postgresql+psycopg2://user:secret@localhost/reviews", "driver 'psycopg2'.*not installed"),
    ],
)
def test_bad_urls_say_what_to_fix(url, message):
    with pytest.raises(pc.HistoryError, match=message) as info:
        pc.ReviewStore(url)
    assert "secret" not in str(info.value)


def test_a_missing_folder_is_named(tmp_path):
    with pytest.raises(pc.HistoryError, match="does not exist"):
        pc.ReviewStore(_url(tmp_path / "no" / "such" / "reviews.db"))
    assert not (tmp_path / "no").exists()


# ----------------------------------------------------------------------------- CLI
@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    real, syn = folder / "real.csv", folder / "syn.csv"
    assert main(["demo-data", "--n", "200", "--seed", "1", "--out", str(real)]) == 0
    assert (
        main(
            [
                "synthesize",
                "--method",
                "cart",
                "--real",
                str(real),
                "--seed",
                "2",
                "--out",
                str(syn),
            ]
        )
        == 0
    )
    return folder, real, syn


def _cli_report(files, db, *extra, out=None):
    folder, real, syn = files
    return main(
        [
            "report",
            "--real",
            str(real),
            "--synthetic",
            str(syn),
            "--sensitive",
            "disease",
            "--metrics",
            "ims,dcr,wasserstein",
            "--seed",
            "7",
            "--out",
            str(out or folder / "review.html"),
            "--db",
            db,
            *extra,
        ]
    )


def test_cli_report_twice_then_history(files, tmp_path, capsys):
    db = _url(tmp_path / "reviews.db")
    assert _cli_report(files, db, "--decision", "release", "--include-records") == 0
    out = capsys.readouterr().out
    assert "stored review 1 in" in out and "same inputs" not in out
    assert _cli_report(files, db) == 0
    assert "stored review 2 in" in (out := capsys.readouterr().out)
    assert "same inputs as review 1: every number identical" in out

    assert main(["history", "--db", db, "--json", "-"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["command"] == "history" and len(listing["reviews"]) == 2
    first, second = listing["reviews"]
    assert (first["decision"], second["decision"]) == ("release", "undecided")
    assert first["real_fingerprint"] and first["synthetic_fingerprints"]
    assert first["real_fingerprint"] == second["real_fingerprint"]
    assert first["synthetic_fingerprints"] == second["synthetic_fingerprints"]
    assert first["numbers_key"] == second["numbers_key"]
    # candidates are named after the release's path, as in the report
    assert first["headline"] == second["headline"]
    assert first["headline"][str(files[2])]["ims"] >= 0

    assert main(["history", "--db", db]) == 0
    table = capsys.readouterr().out.splitlines()
    assert len(table) == 3 and table[1].split()[:3] == ["1", first["created"], "release"]

    assert main(["history", "--db", db, "--show", "1"]) == 0
    shown = json.loads(capsys.readouterr().out)["review"]
    assert shown["id"] == 1 and shown["decision"] == "release" and "records" not in shown

    assert main(["history", "--db", db, "--compare", "1,2", "--json", "-"]) == 0
    compared = json.loads(capsys.readouterr().out)["compare"]
    assert compared["identical_numbers"] and compared["summary"].startswith("Same inputs")
    assert {r["metric"] for r in compared["metrics"]} == {"ims", "dcr", "wasserstein"}


def test_cli_report_json_carries_the_stored_review(files, tmp_path, capsys):
    db = _url(tmp_path / "reviews.db")
    assert _cli_report(files, db, "--json", "-") == 0
    captured = capsys.readouterr()
    payload = json.loads(captured.out)  # stdout is the JSON alone
    assert payload["stored_review"] == {"id": 1, "same_inputs": [], "reproduces": None}
    assert "stored review 1" in captured.err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["history", "--db", "nosuchdb://x"], "unknown database kind"),
        (["history", "--db", "sqlite:///{tmp}/absent.db"], "no review database at"),
        (["history", "--db", "sqlite:///{tmp}/r.db", "--compare", "1"], "two review ids"),
        (["history", "--db", "sqlite:///{tmp}/r.db", "--show", "4"], "no review 4"),
    ],
)
def test_cli_bad_history_input_is_one_error_line(argv, message, tmp_path, capsys):
    pc.ReviewStore(_url(tmp_path / "r.db")).close()  # an empty history
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and message in err[0]


def test_cli_report_with_a_bad_url_fails_before_computing(files, tmp_path, capsys):
    started = time.perf_counter()
    assert _cli_report(files, "not a url", out=tmp_path / "never.html") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "database URL" in err[0]
    assert time.perf_counter() - started < 1
    assert not (tmp_path / "never.html").exists()


def test_a_measure_in_one_review_only_is_not_counted_as_a_changed_number():
    def doc(metrics, release_fp):
        return {
            "provenance": {
                "real": {"fingerprint": "r", "rows": 10},
                "synthetic": [{"name": "x", "fingerprint": release_fp, "rows": 10}],
                "software": "privacy_core 0.1",
            },
            "threat": {"quasi_identifiers": ["a"], "sensitive": ["b"]},
            "decision": "undecided",
            "candidates": [{"name": "c", "metrics": metrics}],
        }

    rapid = {"value": 0.3, "ci": [0.2, 0.4], "params": {"seed": 0}}
    extra = {"value": 0.1, "ci": None, "params": {"seed": 0}}
    cmp = pc.compare_reviews(doc({"rapid": rapid}, "s1"), doc({"rapid": rapid, "ims": extra}, "s2"))
    assert (cmp.n_numbers, cmp.n_changed, cmp.n_moved) == (1, 0, 0)
    assert cmp.summary().startswith("The 1 numbers both reviews hold are identical")
    assert "synthetic data changed" in cmp.summary()


def test_the_listed_rapid_is_the_reviews_headline_not_the_attackers_mean():
    """The History list's RAPID column is the number the Overview and the opened review
    show: the strongest attacker's RAPID (the scorecard's headline). A wrong version, the
    attackers' mean (``value``), listed 0.317 beside an opened review reading 0.358."""
    from privacy_core.history.summary import headline

    rapid = {
        "value": 0.317,
        "ci": [0.28, 0.35],
        "rate_max": 0.358,
        "headline": {"aggregate": "max", "value": 0.358, "ci": [0.32, 0.40]},
    }
    doc = {"candidates": [{"name": "CART", "metrics": {"rapid": rapid, "ims": {"value": 0.03}}}]}
    assert headline(doc) == {"CART": {"rapid": 0.358, "ims": 0.03}}
