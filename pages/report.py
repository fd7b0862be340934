"""Review & report: the decision record of a review, exported as HTML, PDF or JSON."""

import streamlit as st

import privacy_core as pc
import privacy_core.plots as plots
from privacy_core.measures import MEASURES
from ui.report import session_calibration, session_results
from ui.runner import guarded
from ui.state import require_workspace
from ui.widgets import fmt_ci

st.title("Review & report")
st.caption("Everything computed in this session, in one place, with the provenance of the data "
           "(names, row counts, content fingerprints), the threat model and the parameters and "
           "seeds of every measure.")

ws = require_workspace()
results = session_results(ws)
if not results:
    st.info("Nothing computed yet: visit the RAPID, Privacy metrics or Fidelity pages first.")
    st.stop()

rows = [{"measure": MEASURES[n].label if n in MEASURES else n, "value": round(r.value, 4),
         "95% interval": fmt_ci(r.ci).replace("95% CI ", "") or "—",
         "baseline": None if r.baseline is None else round(r.baseline, 4),
         "better": f"{r.goal}"} for n, r in results.items()]
st.dataframe(rows, hide_index=True, width="stretch")

calibration = session_calibration(ws)
if calibration is not None:
    st.subheader("Calibration of the measures on this data")
    cal_table = plots.calibration_table(calibration)
    st.dataframe(cal_table[["measure", "status", "floor", "ceiling", "ratio gap", "reasons"]],
                 hide_index=True, width="stretch",
                 column_config={"floor": st.column_config.NumberColumn(
                                    "floor (unseen rows)", format="%.3f"),
                                "ceiling": st.column_config.NumberColumn(
                                    "ceiling (full copy)", format="%.3f"),
                                "ratio gap": st.column_config.NumberColumn(format="%.3f")})
    st.caption("From the Risk lab's calibration run"
               + (" (stopped early)" if calibration.stopped else "")
               + ": the report carries this table (aggregates only).")
else:
    st.caption("No calibration of the measures on this data yet: run it in the Risk lab's "
               "Calibration view to add its table to the report.")

c1, c2 = st.columns([1, 2])
decision = c1.radio("Decision", list(pc.report.DECISIONS), key="report_decision")
notes = c2.text_area("Reviewer notes", key="report_notes", height=140,
                     placeholder="Why this decision; conditions; follow-ups.")
include = st.checkbox("Include per-record tables (they contain real records: only for an "
                      "internal, access-controlled archive)", value=False,
                      key="report_include_records")


def build() -> pc.ReviewReport:
    return pc.build_report(
        real=ws.real.frame, synthetic=[t.frame for t in ws.releases], results=results,
        threat=ws.threat, schema=ws.schema,
        holdout=ws.holdout.frame if ws.holdout is not None else None,
        names={"real": ws.real.name, "synthetic": [t.name for t in ws.releases],
               "holdout": ws.holdout.name if ws.holdout is not None else None},
        decision=decision, notes=notes, include_records=include, calibration=calibration)


report = guarded(build)
if report is not None:
    figures = {"RAPID threshold curve": plots.rapid_threshold_curve(results["rapid"])} \
        if "rapid" in results else {}
    if calibration is not None:
        figures["Calibration: each measure against the leak fraction"] = \
            plots.calibration_figure(calibration)
    d1, d2, d3 = st.columns(3)
    d1.download_button("Download HTML report", pc.render_html(report, figures),
                       file_name="privacy_review.html", mime="text/html", type="primary")
    d2.download_button("Download PDF sign-off sheet", pc.render_pdf(report),
                       file_name="privacy_review.pdf", mime="application/pdf")
    d3.download_button("Download JSON record", report.to_json(), file_name="privacy_review.json",
                       mime="application/json")
    st.caption("Aggregates only unless you ticked the per-record option above (per-record tables "
               "go into the HTML and JSON files, never the PDF). The HTML file is self-contained "
               "and opens offline; the PDF is a printable record of the decision.")
