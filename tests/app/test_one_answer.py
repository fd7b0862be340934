"""One release, one answer: the numbers the app computes and exports for the built-in demo
are the numbers ``review`` computes from the same tables, threat model and seed, and the
verdict is the same. The demo's data and release at 400 rows (the first start's 2,000 cost
the two paths 50 s of CPU; the options that depend on the rows are the same up to 2,000).

A wrong implementation this catches: a page with an option table of its own (the app's
singling-out predicates against the command line's ``"auto"``, RAPID bootstrapped 200
times on one path and 500 on another), RAPID without its holdout on one path, or a
headline derived by a view (the mean of the attackers where the page shows the strongest),
or a first load that computes more measures than ``review`` does by default.
"""

import json
from pathlib import Path

import pytest
from downloads import download
from small_demo import no_cached_evaluations, small_app  # noqa: F401 (a fixture)

from privacy_core.cli import main as cli_main
from privacy_core.review import DEFAULT_REVIEW_MEASURES

APP = str(Path(__file__).resolve().parents[2] / "app.py")


# the evaluations are shared by every session (and every test in this process): start
# from none, as a fresh server does
@pytest.mark.usefixtures("no_cached_evaluations")
def test_app_export_and_review_command_give_the_same_numbers_and_verdict(tmp_path, capsys):
    at = small_app(APP, 600)
    at.run()  # the demo: RAPID and the quick measures on first load
    assert not at.exception, at.exception
    # the Utility card waits for ML affinity, which the Fidelity page computes, and says so
    assert "Not computed yet: ML affinity (relative gap)." in [c.value for c in at.caption]
    ws = at.session_state["workspace"]
    at.switch_page("pages/report.py").run()
    assert not at.exception, at.exception
    app_doc = json.loads(download(at, "Download JSON record"))
    ((name, app_cand),) = app_doc["candidates"].items()

    # the same tables, threat model, measures and seed through the command line
    ws.real.frame.to_csv(tmp_path / "real.csv", index=False)
    ws.holdout.frame.to_csv(tmp_path / "holdout.csv", index=False)
    ws.releases[0].frame.to_csv(tmp_path / "release.csv", index=False)
    measures = sorted(app_cand["metrics"])
    # the first load computes what `review` computes by default, no more: the slow
    # fidelity measures (Wasserstein, ML affinity) wait for the Fidelity page
    assert set(measures) == set(DEFAULT_REVIEW_MEASURES)
    privacy = [
        m for m in measures if m not in ("query_error", "discriminator", "wasserstein", "mla")
    ]
    fidelity = [m for m in measures if m not in privacy]
    (tmp_path / "review.toml").write_text(
        f"seed = {app_doc['seed']}\n"
        '[data]\nreal = "real.csv"\ncontrol = "holdout.csv"\n'
        f'[[release]]\npath = "release.csv"\ngroup = "{name}"\n'
        f"[threat]\nquasi_identifiers = {json.dumps(list(ws.quasi_identifiers))}\n"
        f"sensitive = {json.dumps(list(ws.sensitive))}\n"
        f"[measures]\nprivacy = {json.dumps(privacy)}\nfidelity = {json.dumps(fidelity)}\n"
    )
    capsys.readouterr()
    code = cli_main(["review", "--config", str(tmp_path / "review.toml"), "--json", "-"])
    cli_doc = json.loads(capsys.readouterr().out)
    cli_cand = cli_doc["candidates"][name]
    assert {"rapid", "singling_out", "linkability", "inference", "dcr", "ims"} <= set(measures)
    for m in measures:
        a, c = app_cand["metrics"][m], cli_cand["metrics"][m]
        assert (a["value"], a["ci"]) == (c["value"], c["ci"]), m
    assert app_cand["metrics"]["rapid"]["headline"] == cli_cand["metrics"]["rapid"]["headline"]
    assert app_cand["metrics"]["rapid"]["difference"] == cli_cand["metrics"]["rapid"]["difference"]
    # one verdict, one sentence, one exit status
    assert (app_cand["verdict"], app_cand["sentence"]) == (
        cli_cand["verdict"],
        cli_cand["sentence"],
    )
    assert code == cli_doc["exit_status"] == app_doc["exit_status"]
