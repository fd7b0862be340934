"""AppTest for issue 11, item 4 in the app: save a review from Review & report, find it on
History, open it read-only, compare two; a bad database is a message, never a traceback,
and leaves the session's data and settings where they were."""

import json
import sqlite3
from pathlib import Path

from downloads import download
from small_demo import small_app
from streamlit.testing.v1 import AppTest

import privacy_core as pc

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _report_page(url: str, monkeypatch) -> AppTest:
    monkeypatch.setenv("PRIVACY_REVIEW_DB", url)
    at = small_app()  # a review to save: the demo at 400 rows
    at.run()
    at.switch_page("pages/report.py").run()
    assert not at.exception, at.exception
    # the database is the operator's: no page has a box to name one
    assert not [t for t in at.text_input if "database" in (t.label or "").lower()]
    return at


def test_save_twice_then_history_lists_opens_and_compares(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'reviews.db'}"
    at = _report_page(url, monkeypatch)
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


def test_a_file_that_is_not_a_database_is_a_message_and_keeps_the_session(tmp_path, monkeypatch):
    bad = tmp_path / "notes.db"
    bad.write_text("this is not a database\n" * 20)
    at = _report_page(f"sqlite:///{bad}", monkeypatch)
    at.radio(key="report_decision").set_value("do not release").run()
    at.button(key="history_save").click().run()
    assert not at.exception, at.exception
    assert at.error and "not a review database" in at.error[0].value
    assert bad.read_text().startswith("this is not a database")  # untouched
    # nothing lost: the decision and the loaded data are still there
    assert at.radio(key="report_decision").value == "do not release"
    at.switch_page("pages/history.py").run()
    assert not at.exception and "not a review database" in at.error[0].value


def test_a_locked_database_says_so_and_saves_once_it_is_free(tmp_path, monkeypatch):
    path = tmp_path / "reviews.db"
    url = f"sqlite:///{path}"
    at = _report_page(url, monkeypatch)
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


def test_a_click_whose_run_was_interrupted_is_still_saved(tmp_path, monkeypatch):
    """Two quick clicks: the second interrupts the first's run before it reached the
    save. Each click is counted by its callback, so the next run saves both."""
    url = f"sqlite:///{tmp_path / 'reviews.db'}"
    at = _report_page(url, monkeypatch)
    at.session_state["history_save_requests"] = 2  # two callbacks ran, no save yet
    at.run()
    assert not at.exception, at.exception
    assert at.success[0].value.startswith("Saved as review #2 in ")
    n = sqlite3.connect(tmp_path / "reviews.db").execute("select count(*) from reviews")
    assert n.fetchone()[0] == 2
    at.run()  # nothing pending: a rerun saves nothing more
    n = sqlite3.connect(tmp_path / "reviews.db").execute("select count(*) from reviews")
    assert n.fetchone()[0] == 2


# ----------------------------------------------------------------------------- sign-in
AUTH = {  # the operator's [auth] secrets: their presence switches sign-in on
    "redirect_uri": "http://localhost:8501/oauth2callback",
    "cookie_secret": "not-a-real-secret",
    "client_id": "review",
    "client_secret": "review",
    "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
}


def _as(monkeypatch, claims):
    """Who the browser signed in as (st.user's claims, as Streamlit would give them)."""
    import ui.identity

    monkeypatch.setattr(ui.identity, "_claims", lambda: dict(claims))


def _signed_in_app(monkeypatch, url, claims) -> AppTest:
    monkeypatch.setenv("PRIVACY_REVIEW_DB", url)
    _as(monkeypatch, claims)
    at = small_app()
    at.secrets["auth"] = AUTH
    at.run()
    assert not at.exception, at.exception
    return at


def test_with_sign_in_nothing_shows_before_it(tmp_path, monkeypatch):
    at = _signed_in_app(monkeypatch, f"sqlite:///{tmp_path / 'r.db'}", {"is_logged_in": False})
    assert [b.label for b in at.button] == ["Sign in"]
    assert not at.dataframe and not at.tabs  # no data, no demo, no page


def test_two_reviewers_see_their_own_reviews_and_what_was_shared(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'team.db'}"
    ana = {"is_logged_in": True, "email": "ana@stats.example", "email_verified": True,
           "name": "Ana", "sub": "a-1"}  # fmt: skip
    ben = {"is_logged_in": True, "email": "ben@stats.example", "email_verified": True,
           "name": "Ben", "sub": "b-2"}  # fmt: skip
    at = _signed_in_app(monkeypatch, url, ana)
    assert any("Signed in as **Ana**" in c.value for c in at.sidebar.caption)
    at.switch_page("pages/report.py").run()
    # the reviewer is the sign-in identity, not a free text
    box = next(t for t in at.text_input if t.label == "Reviewer name")
    assert box.value == "Ana" and box.disabled
    at.text_area(key="report_notes").set_value(
        "![img](http://127.0.0.1:9/track.png) see <http://127.0.0.1:9/x>"
    ).run()
    at.button(key="history_save").click().run()
    assert at.success[0].value.startswith("Saved as review #1 in the team's review history")
    assert str(tmp_path) not in at.success[0].value  # no server path shown to a user
    at.button(key="history_save").click().run()

    at = _signed_in_app(monkeypatch, url, ben)
    at.switch_page("pages/history.py").run()
    assert any("No review to show yet" in i.value for i in at.info)
    at.switch_page("pages/report.py").run()
    at.button(key="history_save").click().run()
    assert at.success[0].value.startswith("Saved as review #3")
    at.switch_page("pages/history.py").run()
    assert list(at.dataframe[0].value["id"]) == [3]
    assert set(at.dataframe[0].value["saved by"]) == {"ben@stats.example"}

    # Ana sees her two, shares #2 with Ben; the note is shown as typed, never as Markdown
    at = _signed_in_app(monkeypatch, url, ana)
    at.switch_page("pages/history.py").run()
    assert list(at.dataframe[0].value["id"]) == [2, 1]
    assert any("![img](http://127.0.0.1:9/track.png)" in t.value for t in at.text)
    assert not any("track.png" in m.value and "\\!" not in m.value for m in at.markdown)
    form_box = next(t for t in at.text_input if t.label.startswith("Their sign-in identity"))
    form_box.set_value("ben@stats.example")
    next(b for b in at.button if b.label == "Share").click().run()
    assert not at.exception, at.exception
    assert any("shared with ben@stats\\.example" in s.value for s in at.success)

    at = _signed_in_app(monkeypatch, url, ben)
    at.switch_page("pages/history.py").run()
    assert list(at.dataframe[0].value["id"]) == [3, 2]
    # Ben can read #2 but not share it on: it is Ana's
    at.selectbox(key="history_open").set_value(2).run()
    assert not [b for b in at.button if b.label == "Share"]
    assert any("Shared with: ben@stats.example" in t.value for t in at.text)


def test_a_misconfigured_server_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("PRIVACY_REVIEW_MAX_JOBS", "0")
    at = AppTest.from_file(APP, default_timeout=600)
    at.run()
    assert not at.exception, at.exception
    assert (
        "PRIVACY_REVIEW_MAX_JOBS must be a whole number in [1, 256]; got '0'" in at.error[0].value
    )


def test_an_unverified_email_is_not_an_identity():
    """A provider that lets anyone register an address does not vouch for it: the reviewer
    is then the provider's subject, so nobody reads a colleague's reviews by signing up
    under their address."""
    from ui.identity import reviewer_from_claims

    claims = {"is_logged_in": True, "email": "Ana@Stats.example", "sub": "mallory-7"}
    assert reviewer_from_claims(claims).id == "mallory-7"
    assert reviewer_from_claims({**claims, "email_verified": "true"}).id == "mallory-7"
    verified = reviewer_from_claims({**claims, "email_verified": True, "groups": "board"})
    assert verified.id == "ana@stats.example" and verified.teams == ("board",)
    assert reviewer_from_claims({**claims, "is_logged_in": False}) is None


def test_a_history_error_does_not_show_a_signed_in_reviewer_the_servers_path(tmp_path, monkeypatch):
    bad = tmp_path / "secret-folder" / "reviews.db"
    bad.parent.mkdir()
    bad.write_text("not a database\n" * 20)
    ana = {"is_logged_in": True, "email": "ana@x.example", "email_verified": True}
    at = _signed_in_app(monkeypatch, f"sqlite:///{bad}", ana)
    at.switch_page("pages/history.py").run()
    assert not at.exception, at.exception
    assert at.error and "the team's review history is not a review database" in at.error[0].value
    assert "secret-folder" not in at.error[0].value


def test_without_sign_in_the_app_shows_only_the_local_users_reviews(tmp_path, monkeypatch):
    """Switching sign-in off must not show a team's reviews to whoever opens the app."""
    url = f"sqlite:///{tmp_path / 'team.db'}"
    with pc.ReviewStore(url, reviewer=pc.Reviewer("ana@x.example")) as store:
        store.save(_any_report())
    with pc.ReviewStore(url) as store:
        local = store.save(_any_report())
    monkeypatch.setenv("PRIVACY_REVIEW_DB", url)
    at = AppTest.from_file(APP, default_timeout=600)
    at.switch_page("pages/history.py").run()
    assert not at.exception, at.exception
    assert list(at.dataframe[0].value["id"]) == [local]


def _any_report():
    real = pc.simulate_health(200, seed=2)
    schema = pc.infer_schema(real)
    syn = pc.synthesize(pc.prepare_table(real, schema), method="cart", seed=1)
    threat = pc.ThreatModel(["age", "education", "gender"], ["disease"])
    results = dict(pc.evaluate(real, syn, measures=["ims"], threat=threat, seed=0).results)
    return pc.build_report(
        real=real, synthetic=[syn], results=results, schema=schema, threat=threat,
        names={"real": "r.csv", "synthetic": ["s.csv"]},
    )  # fmt: skip
