"""Review & report: the decision record of a review, exported as HTML, PDF or JSON."""

import datetime as dt
import json
from functools import partial

import streamlit as st

import privacy_core as pc
import privacy_core.plots as plots
from privacy_core import MEASURES
from ui.details import details
from ui.glossary import term_link
from ui.history import ALTERNATIVES, LAST_SAVED, request_save, save_pending
from ui.identity import current_reviewer
from ui.privacy import privacy_params
from ui.report import (
    candidate_results,
    compute_measures,
    html_document,
    missing_measures,
    session_calibration,
    session_references,
)
from ui.runner import guarded
from ui.scorecard import (
    answers,
    candidate_cards,
    candidate_verdicts,
    checklist_for,
    checklist_questions,
    draw_checklist,
    draw_verdicts,
    thresholds,
    thresholds_set_by,
)
from ui.state import get_error, keep, require_workspace

# The page leads with its numbers and the verdict (issue 34): the engine's one policy,
# as on the Overview and in every export; the longer explanations sit in expanders.
st.title("Review & report")

ws = require_workspace()
cands = candidate_results(ws)
if not any(c.results for c in cands):
    st.info(
        "Nothing computed yet: visit the RAPID, Privacy metrics or Fidelity pages first."
        if len(cands) <= 1
        else f"Nothing computed yet for any of the {len(cands)} candidates: visit the RAPID, "
        "Privacy metrics or Fidelity pages first."
    )
    st.stop()

checklist = checklist_for(
    {
        "provenance": {"real": {"rows": len(ws.real.frame)}},
        "threat": ws.threat.to_dict(),
        "candidates": [
            {
                "name": c.name,
                "releases": [t.name for t in c.view.releases],
                "n_releases": c.n_releases,
                "metrics": {m: r.to_dict() for m, r in c.results.items()},
            }
            for c in cands
        ],
    }
)
m1, m2, m3 = st.columns(3)
m1.metric("Candidates", len(cands), help=term_link("candidate", "Glossary: candidate."))
m2.metric(
    "Measures computed",
    len({m for c in cands for m in c.results}),
    help="Distinct measures with a result for at least one candidate.",
)
m3.metric(
    "Checklist (R1–R10) met",
    f"{sum(item.status == 'met' for item in checklist.items)} of {len(checklist.items)}",
    help="The consensus checklist below: what this session's results show, and your "
    "answers. " + term_link("R1", "Glossary: R1–R10."),
)
draw_verdicts(candidate_verdicts(candidate_cards(ws)))
if len(cands) > 1:
    st.caption(
        f"**{len(cands)} candidates side by side**, each on its own releases: "
        f"{term_link('replicate', 'replicates')} of one generator are averaged (consensus "
        f"{term_link('R10')}), different candidates never are."
    )

# a candidate that lacks a measure another one has: say so, offer to compute it
for i, (name, measures) in enumerate(missing_measures(cands).items()):
    view = next(c.view for c in cands if c.name == name)
    labels = ", ".join(MEASURES[m].label if m in MEASURES else m for m in measures)
    w1, w2 = st.columns([4, 1], vertical_alignment="center")
    w1.warning(
        f"**{name}**: not computed yet — {labels}. The other candidate(s) have "
        "these results; the report shows *not computed* in this column until they "
        "are run.",
        icon=":material/pending:",
    )
    if w2.button(f"Compute for {name}", key=f"report_compute_{i}", icon=":material/play_arrow:"):
        guarded(partial(compute_measures, view, measures))
        # a failure stays on screen (shown where it ran); otherwise show the new column
        if name not in missing_measures(candidate_results(ws)):
            st.rerun()

side = pc.candidate_table(
    {
        "candidates": [
            {
                "name": c.name,
                "n_releases": c.n_releases,
                "metrics": {m: r.to_dict() for m, r in c.results.items()},
            }
            for c in cands
        ]
    }
)
rows = [
    {
        "measure": r["label"] + (" (indicator)" if r["indicator"] else ""),
        **{
            f"{c.name} ({c.n_releases} replicates)" if c.n_releases > 1 else c.name: pc.format_cell(
                r["cells"][c.name], digits=3
            )
            for c in cands
        },
        "better": r["goal"],
    }
    for r in side
]
st.dataframe(rows, hide_index=True, width="stretch")

calibration = session_calibration(ws)
if calibration is not None:
    st.subheader("Calibration of the measures on this data")
    cal_table = plots.calibration_table(calibration)
    st.dataframe(
        cal_table[["measure", "status", "floor", "ceiling", "ratio gap", "reasons"]],
        hide_index=True,
        width="stretch",
        column_config={
            "floor": st.column_config.NumberColumn("floor (unseen rows)", format="%.3f"),
            "ceiling": st.column_config.NumberColumn("ceiling (full copy)", format="%.3f"),
            "ratio gap": st.column_config.NumberColumn(format="%.3f"),
        },
    )
    st.caption(
        "From the Risk lab's calibration run"
        + (" (stopped early)" if calibration.stopped else "")
        + ": the report carries this table (aggregates only)."
    )
else:
    st.caption(
        "No calibration of the measures on this data yet: run it in the Risk lab's "
        "Calibration view to add its table to the report."
    )

st.subheader("Consensus checklist (R1–R10)")
st.caption(
    f"The {term_link('R1', 'ten recommendations')} of the Delphi consensus, walked for "
    "this review; it goes into every export."
)
with st.container(border=True):
    st.markdown("**Your answers** — what only a person can say")
    checklist_questions()
draw_checklist(checklist)

st.subheader("Decision and sign-off")
# kept across page switches (Streamlit forgets a widget's value on pages that do not draw it)
for key, default in (
    ("report_decision", pc.DECISIONS[0]),
    ("report_notes", ""),
    ("report_reviewer", ""),
    ("report_role", ""),
    ("report_date", dt.date.today()),
):
    keep(key, default)
c1, c2 = st.columns([1, 2])
decision = c1.radio("Decision", list(pc.DECISIONS), key="report_decision")
notes = c2.text_area(
    "Reviewer notes",
    key="report_notes",
    height=140,
    placeholder="Why this decision; conditions; follow-ups.",
)
s1, s2, s3 = st.columns([2, 2, 1])
signed = current_reviewer()
if signed is not None:  # on a server with sign-in, the reviewer is who signed in
    reviewer = s1.text_input(
        "Reviewer name", value=signed.shown, disabled=True, help="Your sign-in identity."
    )
else:
    reviewer = s1.text_input(
        "Reviewer name", key="report_reviewer", placeholder="Who signs this review off"
    )
role = s2.text_input("Role", key="report_role", placeholder="e.g. privacy officer")
review_date = s3.date_input("Date", key="report_date")
if not reviewer.strip():
    st.caption("No reviewer name yet: the PDF's signature block will be left blank.")
include = st.checkbox(
    "Include per-record tables (they contain real records: only for an "
    "internal, access-controlled archive)",
    value=False,
    key="report_include_records",
)


def build() -> pc.ReviewReport:
    return pc.build_report(
        real=ws.real.frame,
        synthetic=[t.frame for t in ws.releases],
        groups=[
            pc.ReleaseGroup(c.name, tuple(t.name for t in c.view.releases), c.results)
            for c in cands
        ],
        threat=ws.threat,
        schema=ws.schema,
        holdout=ws.holdout.frame if ws.holdout is not None else None,
        names={
            "real": ws.real.name,
            "synthetic": [t.name for t in ws.releases],
            "holdout": ws.holdout.name if ws.holdout is not None else None,
        },
        decision=decision,
        notes=notes,
        include_records=include,
        calibration=calibration,
        reviewer=reviewer,
        role=role,
        review_date=review_date,
        references=session_references(ws),
        answers=answers(),
        thresholds=thresholds(),
        thresholds_set_by=thresholds_set_by(),
        alternatives=st.session_state.get(ALTERNATIVES, []),
    )


report = guarded(build)
if report is not None:
    # Each document is rendered when its button is clicked (Streamlit runs the callable
    # then), from this run's report: typing a note or ticking a box reruns the page, and
    # rendering the PDF's layout passes and the HTML's figures on every rerun took longer
    # than the rest of the page.
    seed = int(privacy_params(ws)["seed"])
    d1, d2, d3 = st.columns(3)
    d1.download_button(
        "Download HTML report",
        partial(html_document, report, ws, cands, calibration),
        file_name="privacy_review.html",
        mime="text/html",
        type="primary",
        on_click="ignore",
    )
    d2.download_button(
        "Download PDF sign-off sheet",
        partial(pc.render_pdf, report),
        file_name="privacy_review.pdf",
        mime="application/pdf",
        on_click="ignore",
    )
    # the same document as `review --json`: verdicts by candidate, thresholds, and the
    # whole review record under "review"
    d3.download_button(
        "Download JSON record",
        lambda: json.dumps(pc.review_document(report, seed=seed), indent=2),
        file_name="privacy_review.json",
        mime="application/json",
        on_click="ignore",
    )
    st.caption("Aggregates only, unless you ticked the per-record option above.")
    details(
        "Aggregates only unless you ticked the per-record option above (then a few "
        "example records go into the HTML and all of them into the JSON, never into "
        "the PDF). The HTML file is one self-contained review document — each page's "
        "key figure for every candidate, the references and the calibration — that "
        "opens offline; the PDF is the sign-off sheet with the key figures, the "
        "decision and a signature block.",
        "Everything computed in this session, in one place, with the provenance of the "
        "data (names, row counts, content fingerprints), the threat model and the "
        "parameters and seeds of every measure.",
        label="What the exports hold",
        terms=("fingerprint", "threat model", "verdict"),
    )

    st.subheader("Save to the review history")
    st.caption(
        "Stores this review — fingerprints, threat model, parameters and seeds, "
        "results, checklist, decision and notes — in a database of aggregates only "
        "(per-record tables are never stored), to reopen and compare on *History*."
    )
    h1, h2 = st.columns([3, 1], vertical_alignment="bottom")
    h1.caption(
        "Saved in the review history this server's operator configured"
        + (", under your sign-in identity." if signed is not None else ".")
    )
    # each click is counted by its callback (which runs whatever happens to the page's
    # run) and saved below with this run's report and address: a second click while the
    # page was still drawing after the first used to interrupt that run before it reached
    # the save, so two clicks stored one review
    h2.button("Save review", icon=":material/save:", key="history_save", on_click=request_save)
    save_pending(report)
    if error := get_error("history_save"):
        st.error(error, icon=":material/warning:")
    saved = st.session_state.get(LAST_SAVED)
    if saved is not None:
        st.success(
            f"Saved as review #{saved.review_id} in {saved.location}."
            + (f" {saved.reproduces}" if saved.reproduces else ""),
            icon=":material/check_circle:",
        )
        st.page_link("pages/history.py", label="Open the history", icon=":material/history:")
