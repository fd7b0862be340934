"""Overview: what is loaded, the headline risk, and where to go next."""

import streamlit as st

import privacy_core as pc
import privacy_core.plots as plots
from ui.details import details
from ui.evaluations import (
    REFERENCES_AUTO_RUN_MAX_CELLS,
    rapid_at_page_settings,
    rapid_cached,
    rapid_fit_params,
    rapid_references_cached,
    rapid_references_run,
    rapid_run,
    rapid_should_autorun,
)
from ui.glossary import term_link
from ui.report import session_references
from ui.runner import collected_notes, guarded
from ui.scorecard import (
    calibration_summary,
    candidate_cards,
    candidate_verdicts,
    draw_scorecard,
    draw_verdicts,
    fill_quick,
    missing_quick,
    quick_should_autorun,
    thresholds_editor,
)
from ui.state import require_workspace

# The page leads with the numbers and one sentence (issue 34); the longer explanations
# sit in the expander at the end and behind the glossary links.
st.title("Synthetic data privacy review")

ws = require_workspace()
c1, c2, c3 = st.columns(3)
c1.metric("Real records", f"{len(ws.real.frame):,}")
c2.metric("Synthetic releases", len(ws.releases))
c3.metric(
    "Quasi-identifiers → sensitive",
    f"{len(ws.quasi_identifiers)} → {', '.join(ws.sensitive)}",
    help="The threat model: the columns an attacker would know and the one they want to "
    "learn. Set it on the Data & threat model page.",
)
st.caption(
    (
        f"The built-in demo: **{ws.real.name}** with "
        f"**{ws.releases[0].name if ws.releases else 'no release'}**; load your own data on "
        "the *Data & threat model* page. "
        if ws.dataset != "upload"
        else ""
    )
    + "How much each release reveals of a person's "
    f"{term_link('sensitive attribute', 'sensitive value')} to someone who knows their "
    f"{term_link('quasi-identifier', 'quasi-identifiers')}, record by record."
)


def draw_scorecards(ws) -> None:
    """The verdict per candidate, then every measure family at a glance, per candidate,
    read against the thresholds by the engine's one verdict policy."""
    if (missing := missing_quick(ws)) and quick_should_autorun(ws):
        # the built-in demo and small uploads: every quick card filled on first load; the
        # measures' notes belong to their pages (the Privacy page shows each one)
        with (
            st.expander("Computing the quick measures", icon=":material/bolt:"),
            collected_notes() as notes,
        ):
            guarded(lambda: fill_quick(ws))
        if notes:
            st.caption(
                f"The quick measures left {len(notes)} note(s) on their pages "
                "(Privacy metrics, Fidelity & utility): read them before you decide."
            )
        missing = missing_quick(ws)
    by_candidate = candidate_cards(ws)
    st.subheader("Verdict")
    draw_verdicts(candidate_verdicts(by_candidate))
    st.caption(
        f"Each disclosure measure's {term_link('reading')} against its "
        f"{term_link('amber and red lines')}; the same {term_link('verdict')} is in every "
        "export."
    )
    st.subheader("Scorecard")
    if missing:
        names = sorted({m for ms in missing.values() for m in ms})
        clicked = st.button(
            f"Compute the quick measures ({len(names)} missing)",
            icon=":material/bolt:",
            key="overview_fill",
            help="Computes " + ", ".join(names) + " for every candidate, "
            "once: the other pages then show them without computing "
            "again.",
        )
        if clicked and guarded(lambda: fill_quick(ws)):
            st.rerun()
    # HALF and SELF for RAPID on small data, as the RAPID page computes them without a
    # click: the attribute card then says where the release sits between them
    params = rapid_fit_params(ws)
    # drawn only while they are missing (or failed: the error shows again), so that a
    # later visit does not show a "Computing" box for points already computed
    if rapid_references_cached(ws, params) is None and rapid_should_autorun(
        ws, params, limit=REFERENCES_AUTO_RUN_MAX_CELLS
    ):
        with st.expander("Computing the reference points (HALF, SELF)", icon=":material/bolt:"):
            guarded(lambda: rapid_references_run(ws, params))
    refs = pc.reference_record(session_references(ws))
    if len(by_candidate) == 1:
        draw_scorecard(next(iter(by_candidate.values())), refs, calibration_summary(ws))
    else:
        for tab, cards in zip(st.tabs(list(by_candidate)), by_candidate.values(), strict=True):
            with tab:
                draw_scorecard(cards, refs, calibration_summary(ws))
    with st.expander("Thresholds: the amber and red lines", icon=":material/tune:"):
        thresholds_editor()


if ws.releases:
    # one reading per candidate (release group): replicates of one generator are averaged
    # (consensus R10), different candidates are shown side by side, never averaged
    views = ws.candidate_views()
    # the same budget as one run over every loaded release: small data computes itself
    auto = rapid_should_autorun(ws, rapid_fit_params(ws))
    results = {}
    for name, view in views.items():
        params = rapid_fit_params(view)
        result = rapid_cached(view, params)
        if result is None and auto:
            result = rapid_run(view, params)
        # at the RAPID page's score and threshold: the number the RAPID page shows
        results[name] = None if result is None else rapid_at_page_settings(result)
    shown = {name: r for name, r in results.items() if r is not None}
    draw_scorecards(ws)
    if shown:
        st.subheader("Attribute-inference risk against the threshold (RAPID)")
        if len(shown) == 1:
            st.plotly_chart(
                plots.rapid_threshold_curve(next(iter(shown.values()))), width="stretch"
            )
        else:
            tabs = st.tabs(list(shown))
            for tab, result in zip(tabs, shown.values(), strict=True):
                tab.plotly_chart(plots.rapid_threshold_curve(result), width="stretch")
        missing = [name for name, r in results.items() if r is None]
        if missing:
            st.info(
                "RAPID not computed yet for "
                + ", ".join(f"**{m}**" for m in missing)
                + ": compute it on *Review & report* or on the RAPID page."
            )
        st.page_link(
            "pages/rapid.py",
            label="Explore RAPID: thresholds, subgroups, records",
            icon=":material/target:",
        )
    else:
        st.page_link("pages/rapid.py", label="Compute RAPID", icon=":material/target:")

st.subheader("Next steps")
st.page_link(
    "pages/data.py",
    label="Load your data, generate releases, set the threat model",
    icon=":material/table_view:",
)
details(
    "Load a real table and one or more synthetic versions of it, say which columns an "
    "attacker would know (**quasi-identifiers**) and which are **sensitive**, and see — "
    "record by record — how much the release leaks. Everything runs in this browser "
    "session; nothing is uploaded anywhere else.",
    "**The verdict.** Each disclosure measure is read from its interval: below the lines "
    "(its upper bound under the amber line), over a line (its lower bound over it), "
    "inconclusive (the interval crosses the amber line) or uninformative on this data "
    "(listed, never counted). Similarity indicators, fidelity and utility never decide "
    "it. The same verdict is in every export and in `review`'s exit status.",
    terms=("verdict", "reading", "HALF", "R1", "holdout", "candidate"),
)
