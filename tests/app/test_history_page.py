"""AppTest for issue 11, item 4 in the app: save a review from Review & report, find it on
History, open it read-only, compare two; a bad database is a message, never a traceback,
and leaves the session's data and settings where they were."""

import json
import sqlite3
from pathlib import Path

from downloads import download
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _report_page(url: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=600)
    at.run()
    at.switch_page("pages/report.py").run()
    at.text_input(key="history_db_url").set_value(url).run()
    assert not at.exception, at.exception
    return at


def test_save_twice_then_history_lists_opens_and_compares(tmp_path):
    url = f"sqlite:///{tmp_path / 'reviews.db'}"
    at = _report_page(url)
    at.radio(key="report_decision").set_value("release with changes").run()
    at.text_area(key="review_answer_qi_justification").set_value("public register").run()
    at.button(key="history_save").click().run()
    assert not at.exception, at.exception
    assert at.success[0].value.startswith("Saved as review #1 in ")
    at.button(key="history_save").click().run()
    saved = at.success[0].value
    assert "Saved as review #2" in saved and "Same inputs as review 1" in saved
    assert "the review reproduces" in saved

    # the database holds aggregates only (no per-record tables), with the checklist
    doc = json.loads(
        sqlite3.connect(tmp_path / "reviews.db")
        .execute("select document from reviews where id = 1")
        .fetchone()[0]
    )
    assert "records" not in doc and doc["decision"] == "release with changes"
    assert doc["checklist"]["items"][0]["status"] == "met"

    at.switch_page("pages/history.py").run()
    assert not at.exception, at.exception
    listing = at.dataframe[0].value
    assert list(listing["id"]) == [2, 1]
    assert set(listing["decision"]) == {"release with changes"}
    # open one read-only: its stored checklist and scorecard are shown
    assert any(h.value == "Consensus checklist (as stored)" for h in at.subheader)
    stored = json.loads(download(at, "Download this review (JSON)"))
    assert (
        stored["id"] == 2
        and stored["checklist"]["answers"]["qi_justification"] == "public register"
    )
    # compare two: the sentence says it reproduces
    assert any("the review reproduces" in s.value for s in at.success)


def test_a_file_that_is_not_a_database_is_a_message_and_keeps_the_session(tmp_path):
    bad = tmp_path / "notes.db"
    bad.write_text("this is not a database\n" * 20)
    at = _report_page(f"sqlite:///{bad}")
    at.radio(key="report_decision").set_value("do not release").run()
    at.button(key="history_save").click().run()
    assert not at.exception, at.exception
    assert at.error and "not a review database" in at.error[0].value
    assert bad.read_text().startswith("this is not a database")  # untouched
    # nothing lost: the decision and the loaded data are still there
    assert at.radio(key="report_decision").value == "do not release"
    at.switch_page("pages/history.py").run()
    assert not at.exception and "not a review database" in at.error[0].value


def test_a_locked_database_says_so_and_saves_once_it_is_free(tmp_path):
    path = tmp_path / "reviews.db"
    url = f"sqlite:///{path}"
    at = _report_page(url)
    at.button(key="history_save").click().run()
    assert "review #1" in at.success[0].value
    holder = sqlite3.connect(path, timeout=0)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        at.button(key="history_save").click().run()
        assert not at.exception, at.exception
        assert at.error and "locked" in at.error[0].value
        assert not at.success
    finally:
        holder.rollback()
        holder.close()
    at.button(key="history_save").click().run()
    assert "review #2" in at.success[0].value  # the earlier review was kept


def test_a_click_whose_run_was_interrupted_is_still_saved(tmp_path):
    """Two quick clicks: the second interrupts the first's run before it reached the
    save. Each click is counted by its callback, so the next run saves both."""
    url = f"sqlite:///{tmp_path / 'reviews.db'}"
    at = _report_page(url)
    at.session_state["history_save_requests"] = 2  # two callbacks ran, no save yet
    at.run()
    assert not at.exception, at.exception
    assert at.success[0].value.startswith("Saved as review #2 in ")
    n = sqlite3.connect(tmp_path / "reviews.db").execute("select count(*) from reviews")
    assert n.fetchone()[0] == 2
    at.run()  # nothing pending: a rerun saves nothing more
    n = sqlite3.connect(tmp_path / "reviews.db").execute("select count(*) from reviews")
    assert n.fetchone()[0] == 2
