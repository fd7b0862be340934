"""Learn: four guided scenarios a lecturer can run live, one step at a time."""

import streamlit as st

from privacy_core import RELEASE_LABELS, TAU_GRID, measure_label
from privacy_core.plots import (
    dependency_curve_figure,
    dependency_population_figure,
    leaky_response_figure,
    measure_snapshot_figure,
    privacy_price_map,
    privacy_price_response_figure,
    rapid_tau_figure,
    similarity_figure,
)
from ui.details import details, first_sentence
from ui.glossary import measure_link, term_link
from ui.learn import (
    DEFAULTS,
    KAPPA_OPTIONS,
    PICKER,
    READING_LABELS,
    SCENARIO_INTROS,
    SCENARIO_LABELS,
    SCENARIO_TERMS,
    STEPS,
    UTILITY_OPTIONS,
    WORKSHOP_SECONDS,
    bind,
    current_scenario,
    level_control,
    move,
    pick_scenario,
    reset,
    run,
    run_levels,
    run_size,
    setting,
    step,
    store,
)
from ui.state import require_workspace
from ui.widgets import fmt_ci

# Through app.py's navigation on a deep link; the scenarios use their own simulated data
# and never read or change the loaded workspace.
require_workspace()

st.title("Learn — guided scenarios")
st.caption(
    "Four short experiments on simulated health data, a few steps each; your loaded data "
    "are not used or changed here."
)

scenario = current_scenario()
if PICKER not in st.session_state:
    st.session_state[PICKER] = scenario
st.segmented_control(
    "Scenario",
    list(SCENARIO_LABELS),
    key=PICKER,
    on_change=pick_scenario,
    format_func=lambda s: SCENARIO_LABELS[s],
    selection_mode="single",
)

steps = STEPS[scenario]
index = step(scenario)
st.subheader(SCENARIO_LABELS[scenario])
# the scenario's introduction one click away: a class starts from the step's number
details(SCENARIO_INTROS[scenario], label="About this scenario", terms=SCENARIO_TERMS[scenario])
note = (
    "quick size (small data)"
    if run_size() == "quick"
    else f"each run takes about {WORKSHOP_SECONDS[scenario]} s on two cores the first time, "
    "then comes from the cache"
)
st.caption(f"Fixed seed; {note}.")

nav = st.columns([6, 1, 1, 1], vertical_alignment="center")
nav[0].progress(
    (index + 1) / len(steps), text=f"Step {index + 1} of {len(steps)}: {steps[index].title}"
)
nav[1].button(
    "Back",
    key=f"learn_back_{scenario}",
    on_click=move,
    args=(scenario, -1),
    disabled=index == 0,
    icon=":material/arrow_back:",
    width="stretch",
)
nav[2].button(
    "Next",
    key=f"learn_next_{scenario}",
    on_click=move,
    args=(scenario, 1),
    disabled=index == len(steps) - 1,
    icon=":material/arrow_forward:",
    width="stretch",
)
nav[3].button(
    "Reset",
    key=f"learn_reset_{scenario}",
    on_click=reset,
    args=(scenario,),
    icon=":material/restart_alt:",
    width="stretch",
    help="Back to this scenario's first step and default settings (fixed seed).",
)

st.markdown(f"#### {index + 1}. {steps[index].title}")


def explain() -> None:
    """The step's first sentence where it is called; the whole explanation closes the
    page (:func:`explain_fully`)."""
    st.caption(first_sentence(steps[index].text))


def explain_fully() -> None:
    with st.expander("This step explained", icon=":material/school:"):
        st.info(steps[index].text, icon=":material/school:")


def metric_row(rows, names) -> None:
    """Metric cards of some measures of a level's rows (value and interval)."""
    table = rows.set_index("measure")
    cols = st.columns(len(names))
    for col, name in zip(cols, names, strict=True):
        r = table.loc[name]
        col.metric(
            measure_label(name),
            f"{r['value']:.3f}",
            help=f"interval {fmt_ci((r['ci_low'], r['ci_high']))}. "
            + measure_link(name, "Glossary."),
        )


# ===================================================================== (a) dependency
if scenario == "dependency":
    if index == 0:
        st.slider(
            "Dependency strength κ",
            0.0,
            10.0,
            step=0.5,
            key=bind(scenario, "kappa"),
            on_change=store,
            args=(scenario, "kappa"),
        )
        explain()
        population = run("population", kappa=setting(scenario, "kappa"))
        if population is not None:
            st.plotly_chart(
                dependency_population_figure(population), width="stretch", key="learn_population"
            )
    elif index == 1:
        kappa = setting(scenario, "kappa")
        st.select_slider(
            f"Confidence threshold τ (at κ = {kappa:g})",
            list(TAU_GRID),
            key=bind(scenario, "tau"),
            on_change=store,
            args=(scenario, "tau"),
        )
        explain()
        result = run("dependency", kappas=(kappa,))
        if result is not None:
            at = result.at(kappa, setting(scenario, "tau"))
            c1, c2 = st.columns(2)
            c1.metric(
                "RAPID (share of records at risk)",
                f"{at['rapid']:.3f}",
                help=f"interval {fmt_ci((at['ci_low'], at['ci_high']))}. "
                + term_link("RAPID", "Glossary."),
            )
            c2.metric("Attacker accuracy on the real records", f"{at['accuracy']:.3f}")
            st.caption(
                f"RAPID {fmt_ci((at['ci_low'], at['ci_high']))} (bootstrap over the real records)."
            )
            st.plotly_chart(
                rapid_tau_figure(result, kappa=kappa, tau=setting(scenario, "tau")),
                width="stretch",
                key="learn_tau_curve",
            )
    else:
        st.multiselect(
            "Values of κ to compute",
            list(KAPPA_OPTIONS),
            key=bind(scenario, "kappas"),
            on_change=store,
            args=(scenario, "kappas"),
        )
        explain()
        kappas = setting(scenario, "kappas")
        if not kappas:
            st.warning("Pick at least one value of κ.")
        else:
            result = run("dependency", kappas=tuple(sorted(kappas)))
            if result is not None:
                st.plotly_chart(
                    dependency_curve_figure(result, highlight=setting(scenario, "kappa")),
                    width="stretch",
                    key="learn_kappa_curve",
                )
                st.dataframe(
                    result.points.rename(
                        columns={
                            "kappa": "κ",
                            "rapid": "RAPID",
                            "ci_low": "interval low",
                            "ci_high": "interval high",
                            "accuracy": "attacker accuracy",
                        }
                    ),
                    hide_index=True,
                )

# ========================================================================= (b) leaky
elif scenario == "leaky":
    if index == 0:
        key = level_control(scenario, "f_l", 0.5)
        st.select_slider(
            "Leak fraction f_l (share of training records copied)",
            run_levels(scenario),
            key=key,
            on_change=store,
            args=(scenario, "f_l"),
        )
        explain()
        result = run("leaky")
        if result is not None:
            f_l = setting(scenario, "f_l")
            st.plotly_chart(
                measure_snapshot_figure(result.at(f_l), level=f_l, level_name="f_l", ideal=True),
                width="stretch",
                key="learn_leak_snapshot",
            )
    elif index == 1:
        st.multiselect(
            "Measures to draw",
            list(DEFAULTS["leaky"]["measures"]),
            key=bind(scenario, "measures"),
            on_change=store,
            args=(scenario, "measures"),
            format_func=measure_label,
        )
        explain()
        chosen = list(setting(scenario, "measures"))
        if not chosen:
            st.warning("Pick at least one measure.")
        elif (result := run("leaky")) is not None:
            st.plotly_chart(
                leaky_response_figure(result, chosen), width="stretch", key="learn_leak_response"
            )
    else:
        st.slider(
            "Rise from f_l = 0 to 1 that counts as seeing the leak",
            0.05,
            0.8,
            step=0.05,
            key=bind(scenario, "min_rise"),
            on_change=store,
            args=(scenario, "min_rise"),
        )
        explain()
        result = run("leaky")
        if result is not None:
            resp = result.responses(min_rise=setting(scenario, "min_rise"))
            resp["measure"] = resp["measure"].map(measure_label)
            resp["sees the leak"] = resp.pop("sees_leak").map({True: "yes", False: "no"})
            st.dataframe(
                resp.rename(columns={"at_lowest": "at f_l = 0", "at_highest": "at f_l = 1"}),
                hide_index=True,
            )

# ==================================================================== (c) similarity
elif scenario == "similarity":
    if index == 0:
        st.select_slider(
            "Release A: CART minimum leaf size",
            [5, 10, 20, 50, 100],
            key=bind(scenario, "min_leaf"),
            on_change=store,
            args=(scenario, "min_leaf"),
        )
    elif index == 1:
        st.slider(
            "Release B: rare training records copied",
            10,
            100,
            step=10,
            key=bind(scenario, "copies"),
            on_change=store,
            args=(scenario, "copies"),
        )
    else:
        st.radio(
            "Reading of RAPID",
            list(READING_LABELS),
            format_func=lambda r: READING_LABELS[r],
            key=bind(scenario, "reading"),
            on_change=store,
            args=(scenario, "reading"),
            horizontal=True,
        )
    explain()
    result = run(
        "similarity", min_leaf=setting(scenario, "min_leaf"), copies=setting(scenario, "copies")
    )
    if result is not None:
        if index < 2:
            release = "patterns" if index == 0 else "copies"
            st.markdown(f"**{RELEASE_LABELS[release]}**")
            cols = st.columns(3)
            for col, name in zip(cols, ("ims", "dcr", "rapid"), strict=True):
                row = result.table[
                    (result.table["release"] == release) & (result.table["measure"] == name)
                ].iloc[0]
                col.metric(
                    measure_label(name),
                    f"{row['value']:.3f}",
                    help=f"interval {fmt_ci((row['ci_low'], row['ci_high']))}. "
                    + measure_link(name, "Glossary."),
                )
            if index == 1:
                st.caption("The copied records (simulated people), first rows:")
                st.dataframe(result.copied.head(8), hide_index=True)
        else:
            st.plotly_chart(
                similarity_figure(result, reading=setting(scenario, "reading")),
                width="stretch",
                key="learn_similarity",
            )
            st.dataframe(
                result.members.rename(
                    columns={
                        "members": "RAPID members",
                        "non_members": "RAPID non-members",
                        "difference": "difference",
                        "ci_low": "difference low",
                        "ci_high": "difference high",
                    }
                ).assign(release=lambda f: f["release"].map(RELEASE_LABELS)),
                hide_index=True,
            )

# ================================================================= (d) privacy price
else:
    if index == 0:
        key = level_control(scenario, "epsilon", 1.0)
        st.select_slider(
            "Privacy budget ε",
            run_levels(scenario),
            key=key,
            on_change=store,
            args=(scenario, "epsilon"),
        )
        explain()
        result = run("privacy_price")
        if result is not None:
            eps = setting(scenario, "epsilon")
            rows = result.at(eps)
            metric_row(rows, ["rapid", "query_error", "discriminator"])
            st.plotly_chart(
                measure_snapshot_figure(rows, level=eps, level_name="ε"),
                width="stretch",
                key="learn_dp_snapshot",
            )
    elif index == 1:
        st.multiselect(
            "Measures to draw",
            list(DEFAULTS["privacy_price"]["measures"]),
            key=bind(scenario, "measures"),
            on_change=store,
            args=(scenario, "measures"),
            format_func=measure_label,
        )
        explain()
        chosen = list(setting(scenario, "measures"))
        if not chosen:
            st.warning("Pick at least one measure.")
        elif (result := run("privacy_price")) is not None:
            st.plotly_chart(
                privacy_price_response_figure(result, chosen),
                width="stretch",
                key="learn_dp_response",
            )
    else:
        st.radio(
            "Utility axis",
            list(UTILITY_OPTIONS),
            format_func=measure_label,
            key=bind(scenario, "utility"),
            on_change=store,
            args=(scenario, "utility"),
            horizontal=True,
        )
        explain()
        result = run("privacy_price")
        if result is not None:
            st.plotly_chart(
                privacy_price_map(result, risk="rapid", utility=setting(scenario, "utility")),
                width="stretch",
                key="learn_dp_map",
            )

explain_fully()
