"""Risk–utility map: candidate releases side by side, click one for its details."""

import streamlit as st

import privacy_core.plots as plots
from privacy_core import MEASURES, measure_goal, measure_label
from ui.details import details
from ui.fidelity import (
    keep_choice,
)
from ui.glossary import measure_link, term_link
from ui.map import (
    CART_LEAF_CHOICES,
    LEAKY_LEVEL_CHOICES,
    MAP_OPTION_NOTES,
    REFERENCE_LABELS,
    axis_title,
    candidate_frame,
    candidate_numbers,
    forget_failed,
    leaky_available,
    map_candidates,
    map_cell_notes,
    map_cells,
    map_failures,
    map_missing,
    map_params,
    map_results,
    map_run,
    map_should_autorun,
    risk_measures,
    risk_option_label,
    utility_measures,
)
from ui.report import add_release_from_map
from ui.state import commit, remember, require_workspace, set_widget
from ui.widgets import error_slot, fmt_ci

INTRO = (
    "Several candidate releases on one plane: privacy risk across, fidelity or utility loss "
    "up. The loaded releases, releases generated here at several settings, and three "
    "references — HALF (half of the real rows), HISTOGRAM (independent columns) and SELF "
    "(the real table itself). Click a point for its details."
)

# The page leads with the loaded release's two numbers and one sentence, then the map
# (issue 34); the axes and the candidates are chosen under it.
st.title("Risk–utility map")

ws = require_workspace()
params = map_params(ws)
seed = int(params["seed"])

# ------------------------------------------------------------------ candidates
leaky = leaky_available(ws)


def candidates_form() -> None:
    """Which releases, generator settings and references the map shows."""
    with st.expander("Candidates", expanded=False):
        candidates_fields()


def candidates_fields() -> None:
    with st.form("map_form"):
        c1, c2, c3 = st.columns([2, 2, 1])
        use_ws = c1.checkbox(
            f"Include the {len(ws.releases)} loaded release(s)", value=bool(params["workspace"])
        )
        leaves = c1.multiselect(
            "CART releases at minimum leaf sizes",
            list(CART_LEAF_CHOICES),
            default=[v for v in params["cart_leaves"] if v in CART_LEAF_CHOICES],
            help="Smaller leaves copy real values from fewer donors: more fidelity, more risk.",
        )
        levels: list[float] = []
        if leaky:
            levels = c2.multiselect(
                "Leaky releases at leak fractions f_l",
                list(LEAKY_LEVEL_CHOICES),
                default=[v for v in params["leaky_levels"] if v in LEAKY_LEVEL_CHOICES],
                help="A known share f_l of the release is copied training rows; the rest "
                "are holdout rows (real people the generator never saw). The holdout "
                "is also the measures' control set, so attacks with a control baseline "
                "read these releases conservatively low.",
            )
        refs = c2.multiselect(
            "References",
            list(REFERENCE_LABELS),
            default=list(params["references"]),
            format_func=lambda r: REFERENCE_LABELS[r],
        )
        new_seed = c3.number_input(
            "Seed", 0, 2**31 - 1, seed, help="Seeds the generators and every measure."
        )
        apply = st.form_submit_button("Apply", type="primary")
    error_slot("map_settings")
    if apply:
        new = {
            "workspace": bool(use_ws),
            "cart_leaves": tuple(sorted(leaves)),
            "leaky_levels": tuple(sorted(levels)),
            "references": tuple(refs),
            "seed": int(new_seed),
        }
        if commit(ws.with_settings(map=new), control="map_settings"):
            st.rerun()


candidates = map_candidates(ws, params)
if not candidates:
    st.warning(
        "No candidate: include the loaded releases or choose generator settings under *Candidates*."
    )
    candidates_form()
    st.stop()

# ------------------------------------------------------------------ axes
risks, utilities = risk_measures(ws), utility_measures(ws)
keep_choice("map_risk", risks, risks[0])
keep_choice("map_utility", utilities, utilities[0])
# the widgets' values, read before the numbers and the map (the widgets come under them)
risk, utility = st.session_state["map_risk"], st.session_state["map_utility"]


def axes() -> None:
    """The two axes' measures, the fast settings they use, and the R3 warning."""
    a1, a2 = st.columns(2)
    a1.selectbox(
        "Risk axis (x)",
        risks,
        key="map_risk",
        on_change=remember,
        args=("map_risk",),
        format_func=risk_option_label,
        help="Disclosure measures first. DCR, IMS and the k-NN variants report "
        "how close synthetic rows are to real ones: a similarity "
        "indicator, not evidence of disclosure (consensus R3). "
        + term_link("similarity indicators", "Glossary."),
    )
    a2.selectbox(
        "Fidelity / utility axis (y)",
        utilities,
        key="map_utility",
        on_change=remember,
        args=("map_utility",),
        format_func=measure_label,
    )
    notes = [MAP_OPTION_NOTES[m] for m in (risk, utility) if m in MAP_OPTION_NOTES]
    st.caption(
        "Fast settings for a live map: "
        + "; ".join(notes or ["the measures' defaults"])
        + ". Each (release, measure) result is kept, so changing an axis computes only the "
        "new column."
    )
    if MEASURES[risk].indicator:
        st.warning(
            f"{measure_label(risk)} is a similarity indicator, not a disclosure measure "
            "(consensus R3): closeness to real rows does not show that anyone's data is "
            "revealed. Read the map's risk with a disclosure measure such as RAPID.",
            icon=":material/info:",
        )


# the numbers lead: drawn into this slot once computed, above the computation's progress
lead_slot = st.container()
missing = map_missing(ws, candidates, (risk, utility), seed)
if missing:
    if map_should_autorun(ws) or st.button(
        f"Compute the map ({len(missing)} evaluations)",
        type="primary",
        icon=":material/play_arrow:",
    ):
        map_run(ws, missing, seed)
        # the tables built just now may turn out to be loaded releases: list them once
        candidates = map_candidates(ws, params)
    else:
        st.info(
            f"{len(ws.real.frame):,} real records: press **Compute the map** to evaluate "
            f"{len(missing)} missing candidate × measure cell(s)."
        )

cells = map_cells(ws, candidates, (risk, utility), seed)
by_id = {c.id: c for c in candidates}


def lead() -> None:
    """The loaded release's reading on both axes (the cells its point is drawn from),
    the number of candidates, and one sentence."""
    loaded = next((c for c in candidates if c.in_workspace), None)
    cols = st.columns(3)
    for col, measure in zip(cols, (risk, utility), strict=False):
        if loaded is None or (res := map_results(cells[measure]).get(loaded.id)) is None:
            continue
        col.metric(
            measure_label(measure),
            f"{res.value:.3f}",
            help=axis_title(measure) + ". " + measure_link(measure, "Glossary."),
        )
        col.caption(f"{loaded.label} · " + (fmt_ci(res.ci) or "no interval on one release"))
    cols[2].metric("Candidates on the map", len(candidates))
    st.caption(
        "Each point is a candidate release: risk across, loss up; "
        f"{term_link('HALF')}, {term_link('HISTOGRAM')} and {term_link('SELF')} frame them. "
        "Click a point for its details."
    )


with lead_slot:
    lead()

# a click on the chart selects the candidate shown below (remembered across reruns)
clicked = plots.selected_candidate(st.session_state.get("map_chart"))
if clicked in by_id and clicked != st.session_state.get("_map_last_click"):
    st.session_state["_map_last_click"] = clicked
    set_widget("map_selected", clicked)
ids = [c.id for c in candidates]
keep_choice("map_selected", [*ids, None], None)

fig = plots.risk_utility_map(
    map_results(cells[risk]),
    map_results(cells[utility]),
    kinds={c.id: c.kind for c in candidates},
    labels={c.id: c.label for c in candidates},
    risk_title=axis_title(risk),
    utility_title=axis_title(utility),
    risk_goal=measure_goal(risk),
    utility_goal=measure_goal(utility),
    selected=st.session_state.get("map_selected"),
    short_labels={c.id: c.short for c in candidates},
)
st.plotly_chart(fig, key="map_chart", on_select="rerun", selection_mode="points", width="stretch")
axes()
candidates_form()

failures = map_failures(cells, candidates)
if failures:
    with st.expander(f"{len(failures)} evaluation(s) failed", icon=":material/warning:"):
        for f in failures:
            st.markdown(f"- {f}")
        st.button(
            "Retry the failed evaluations",
            icon=":material/refresh:",
            on_click=forget_failed,
            args=(ws, candidates, (risk, utility), seed),
        )
cell_notes = map_cell_notes(ws, candidates, (risk, utility), seed)
if cell_notes:
    with st.expander(f"Notes from the measures ({len(cell_notes)})", icon=":material/info:"):
        for n in cell_notes:
            st.markdown(f"- {n}")

# ------------------------------------------------------------------ details
st.subheader("Release details")
selected = st.selectbox(
    "Candidate",
    ids,
    key="map_selected",
    index=None,
    on_change=remember,
    args=("map_selected",),
    format_func=lambda i: by_id[i].label,
    placeholder="Click a point on the map, or choose a candidate here",
)
error_slot("map_add")
if selected is not None:
    cand = by_id[selected]
    with st.container(border=True):
        kind_name = plots.KIND_STYLE.get(cand.kind, (cand.kind,))[0]
        st.markdown(f"#### {cand.label}")
        frame = candidate_frame(ws, cand, seed)
        st.caption(f"{kind_name} · {len(frame):,} rows")
        m1, m2 = st.columns(2)
        for col, measure in ((m1, risk), (m2, utility)):
            res = map_results(cells[measure]).get(cand.id)
            if res is None:
                col.metric(measure_label(measure), "—")
                continue
            col.metric(measure_label(measure), f"{res.value:.3f}", help=axis_title(measure))
            col.caption(fmt_ci(res.ci) or "no interval for this measure on one release")
        st.markdown("**Everything computed for this release so far**")
        st.dataframe(
            candidate_numbers(ws, cand, seed),
            hide_index=True,
            width="stretch",
            column_config={"value": st.column_config.NumberColumn(format="%.4f")},
        )
        if cand.in_workspace:
            st.caption("This release is loaded: the other pages review it in depth.")
            l1, l2 = st.columns(2)
            l1.page_link(
                "pages/fidelity.py", label="Fidelity & utility", icon=":material/insights:"
            )
            l2.page_link("pages/rapid.py", label="RAPID", icon=":material/target:")
        else:
            if cand.kind in ("half", "self"):
                st.caption(
                    "This reference holds real rows: add it only to study the measures "
                    "(it is not a release anyone should publish)."
                )
            st.button(
                "Add to the workspace's releases",
                icon=":material/add:",
                key="map_add_btn",
                on_click=add_release_from_map,
                args=(cand, seed, "map_selected"),
                help="The release then appears on every page (RAPID, fidelity, …).",
            )

# ------------------------------------------------------------------ table
table = plots.map_table(
    map_results(cells[risk]),
    map_results(cells[utility]),
    kinds={c.id: c.kind for c in candidates},
    labels={c.id: c.label for c in candidates},
)
with st.expander("All points (table)"):
    st.dataframe(
        table.drop(columns=["id"]).rename(
            columns={
                "risk": measure_label(risk),
                "risk_lo": "risk CI low",
                "risk_hi": "risk CI high",
                "utility": measure_label(utility),
                "utility_lo": "utility CI low",
                "utility_hi": "utility CI high",
            }
        ),
        hide_index=True,
        width="stretch",
    )

details(INTRO, topic="map", terms=("HALF", "HISTOGRAM", "similarity indicators", "R3"))
