"""Overview: what is loaded, the headline risk, and where to go next."""

import streamlit as st

import privacy_core.plots as plots
from ui.evaluations import rapid_cached, rapid_fit_params, rapid_run, rapid_should_autorun
from ui.runner import guarded
from ui.scorecard import (
    candidate_cards,
    draw_scorecard,
    fill_quick,
    missing_quick,
    thresholds_editor,
)
from ui.state import require_workspace
from ui.widgets import fmt_ci

st.title("Synthetic data privacy review")
st.markdown(
    "Load a real table and one or more synthetic versions of it, say which columns an "
    "attacker would know (**quasi-identifiers**) and which are **sensitive**, and see — "
    "record by record — how much the release leaks. Everything runs in this browser "
    "session; nothing is uploaded anywhere else."
)

ws = require_workspace()
if ws.dataset != "upload":
    st.info(
        f"You are looking at the built-in demo: **{ws.real.name}** with "
        f"**{ws.releases[0].name if ws.releases else 'no release'}**. Load your own data on "
        "the *Data & threat model* page."
    )

c1, c2, c3 = st.columns(3)
c1.metric("Real records", f"{len(ws.real.frame):,}")
c2.metric("Synthetic releases", len(ws.releases))
c3.metric(
    "Quasi-identifiers → sensitive", f"{len(ws.quasi_identifiers)} → {', '.join(ws.sensitive)}"
)


def draw_scorecards(ws) -> None:
    """Every measure family at a glance, per candidate, read against the thresholds."""
    st.subheader("Scorecard")
    st.caption(
        "Each family of measures read against your thresholds: the worst reading "
        "decides the card and is named on it. Cards fill in as results are computed on "
        "the other pages; nothing is computed here twice."
    )
    if missing := missing_quick(ws):
        names = sorted({m for ms in missing.values() for m in ms})
        clicked = st.button(
            f"Fill the empty cards ({len(names)} quick measures)",
            icon=":material/bolt:",
            key="overview_fill",
            help="Computes " + ", ".join(names) + " for every candidate, "
            "once: the other pages then show them without computing "
            "again.",
        )
        if clicked and guarded(lambda: fill_quick(ws)):
            st.rerun()
    by_candidate = candidate_cards(ws)
    if len(by_candidate) == 1:
        draw_scorecard(next(iter(by_candidate.values())))
    else:
        for tab, cards in zip(st.tabs(list(by_candidate)), by_candidate.values(), strict=True):
            with tab:
                draw_scorecard(cards)
    with st.expander("Thresholds: the amber and red lines", icon=":material/tune:"):
        thresholds_editor()


if ws.releases:
    # one headline per candidate (release group): replicates of one generator are averaged
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
        results[name] = result
    shown = {name: r for name, r in results.items() if r is not None}
    draw_scorecards(ws)
    if shown:
        st.subheader("Headline: attribute-inference risk (RAPID)")
        if len(views) > 1:
            st.caption(f"{len(views)} candidates side by side, each on its own releases.")
        for name, result in shown.items():
            n = len(views[name].releases)
            m0, m1, m2 = st.columns([2, 2, 2])
            m0.markdown(f"**{name}**" + (f"  \n{n} replicates: mean over them" if n > 1 else ""))
            m1.metric(
                "RAPID (mean of attackers)",
                f"{result.value:.3f}",
                help="Share of real records whose sensitive value an attacker trained on "
                "the release predicts confidently and correctly beyond the base "
                "rate.",
            )
            m1.caption(fmt_ci(result.ci))
            m2.metric("RAPID max (strongest attacker)", f"{result.rate_max:.3f}")
            m2.caption(fmt_ci(result.ci_max))
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
