"""Risk lab: insert a known amount of risk and watch every measure respond."""

import streamlit as st

from privacy_core.experiments import LEVEL_NAMES, RISK_MODELS
from privacy_core.measures import measure_names
from privacy_core.plots.lab import (
    lab_correlation_heatmap,
    lab_response_figure,
    lab_small_multiples,
    lab_training_curve,
)
from ui.lab import (
    LAB_DEFAULTS,
    LEVEL_OPTIONS,
    RISK_MODEL_LABELS,
    generators,
    lab_cached,
    lab_real,
    lab_run,
    lab_settings,
    measure_label,
    request_stop,
    results_tables,
    should_autorun,
)
from ui.runner import guarded
from ui.state import commit, keep, remember, require_workspace, set_error
from ui.widgets import error_slot, explanation

st.title("Risk lab — does each measure see the risk we insert?")
st.caption(
    "Make releases whose privacy risk is known — copy a share of the training records, "
    "overfit a neural generator, or vary a DP budget — and watch how every measure "
    "responds. A measure you can trust rises with the inserted risk; one that stays flat "
    "cannot see it."
)

ws = require_workspace()
real = lab_real(ws)
st.caption(f"The lab splits the {len(real):,} real records of the workspace (training and "
           "holdout pooled) into its own training, control and release parts for every "
           "replicate; your synthetic releases are not used here.")

keep("lab_model", "leaky")
model = st.segmented_control(
    "Risk model", list(RISK_MODELS), key="lab_model", on_change=remember, args=("lab_model",),
    format_func=lambda m: RISK_MODEL_LABELS[m], selection_mode="single")
if model is None:  # a click on the selected segment clears it: keep the previous model
    model = st.session_state.get("_keep_lab_model") or "leaky"
settings = lab_settings(ws, model)
level_name = LEVEL_NAMES[model]

with st.expander("Sweep settings", expanded=False):
    with st.form(f"lab_form_{model}"):
        options = sorted(set(LEVEL_OPTIONS[model]) | set(settings["levels"]))
        levels = st.multiselect(
            f"Levels of {level_name}", options, default=list(settings["levels"]),
            help={"leaky": "Share of the release copied from training records (0 = none, "
                           "1 = the whole training set).",
                  "overfit": "Validation loss of the generator as a multiple of its optimum "
                             "(1 = early-stopped, 2 = trained on until the loss doubled).",
                  "dp": "Privacy budget ε of the DP generator (small = strong privacy)."}[model])
        c1, c2, c3 = st.columns(3)
        replicates = c1.number_input("Replicates", 1, 10, int(settings["replicates"]),
                                     help="Independent repetitions (new split, release and "
                                          "seeds): the bands show their spread.")
        seed = c2.number_input("Seed", 0, 2**31 - 1, int(settings["seed"]))
        max_rows = c3.number_input("Use at most this many real rows (0 = all)", 0,
                                   len(real), int(settings["max_rows"]), 500,
                                   help="A seeded subset for a quick first look.")
        all_measures = measure_names()
        measures = st.multiselect("Measures", all_measures, default=list(settings["measures"]),
                                  format_func=measure_label,
                                  help="Fast measures by default. Fidelity measures show the "
                                       "utility side (mostly useful with the DP model).")
        if model == "leaky":
            st.markdown("**Noise on the copied records** (does a measure still see leaks "
                        "that are not exact copies?)")
            n1, n2, n3 = st.columns(3)
            sigma = n1.number_input("σ: Gaussian, share of the column range (decimals)", 0.0,
                                    1.0, float(settings["noise"][0]), 0.01, format="%.2f")
            lam = n2.number_input("λ: ±Poisson shift (whole numbers)", 0.0, 10.0,
                                  float(settings["noise"][1]), 0.5)
            p = n3.number_input("p: category flip probability", 0.0, 1.0,
                                float(settings["noise"][2]), 0.01, format="%.2f")
        else:
            sigma, lam, p = settings["noise"]
        generator = settings["generator"]
        max_epochs = int(settings["max_overfit_epochs"])
        if model == "dp":
            gens = generators()
            generator = st.selectbox(
                "DP generator", gens, index=gens.index(generator) if generator in gens else 0,
                help="dp-mst: MST-style marginals (seeded, fast). dp-independent: one-way "
                     "marginals only. SmartNoise MST/AIM (if installed) are not reproducible "
                     "from a seed and much slower.")
        if model == "overfit":
            max_epochs = st.number_input("Epoch budget after the optimum", 10, 2000, max_epochs,
                                         50, help="Levels not reached within it are reported "
                                                  "as unreached.")
        r1, r2 = st.columns(2)
        outlier = r1.selectbox("Remove LOF outliers from training first", [0.0, 0.01, 0.02, 0.05,
                                                                             0.10],
                               index=[0.0, 0.01, 0.02, 0.05, 0.10].index(
                                   float(settings["outlier_fraction"]))
                               if float(settings["outlier_fraction"]) in (0.0, 0.01, 0.02, 0.05,
                                                                         0.10) else 0,
                               format_func=lambda f: "none" if f == 0 else f"{f:.0%}")
        canaries = r2.number_input("Canary records (randomised secret)", 0, 1000,
                                   int(settings["canaries"]), 25,
                                   help="Attribute-inference success on records whose secret "
                                        "was randomised can only come from memorisation.")
        c_apply, c_reset = st.columns([1, 1])
        apply = c_apply.form_submit_button("Apply settings", type="primary")
        reset = c_reset.form_submit_button("Reset to the workshop defaults")
    error_slot("lab_settings")
    if apply or reset:
        new = dict(LAB_DEFAULTS[model]) if reset else {
            "levels": tuple(sorted(float(v) for v in levels)), "replicates": int(replicates),
            "measures": tuple(measures), "seed": int(seed), "max_rows": int(max_rows),
            "outlier_fraction": float(outlier), "canaries": int(canaries),
            "noise": (float(sigma), float(lam), float(p)), "generator": generator,
            "max_overfit_epochs": int(max_epochs)}
        if not new["levels"]:
            set_error("lab_settings", f"Choose at least one level of {level_name}.")
        elif not new["measures"]:
            set_error("lab_settings", "Choose at least one measure.")
        else:
            commit(ws.with_settings(**{f"lab_{model}": new}), control="lab_settings")
        st.rerun()

st.caption(
    f"{RISK_MODEL_LABELS[model]}: {level_name} ∈ {{{', '.join(f'{v:g}' for v in settings['levels'])}}}"
    f" · {settings['replicates']} replicate(s) · {len(settings['measures'])} measure(s)")

result = lab_cached(ws, model, settings)
c_run, c_stop = st.columns([1, 1])
run = c_run.button("Run sweep", type="primary", icon=":material/play_arrow:",
                   disabled=result is not None and not result.stopped, key="lab_run")
c_stop.button("Stop", icon=":material/stop_circle:", on_click=request_stop, key="lab_stop_btn",
              help="Ends the sweep after the release being evaluated; finished rows are kept.")
live = st.empty()
if (result is None or result.stopped) and (run or (result is None and
                                                    should_autorun(ws, model, settings))):
    result = lab_run(ws, model, settings, live_slot=live)
if result is None:
    st.info("Press **Run sweep**. The workshop default (leaky, 6 levels × 2 replicates × the "
            "fast measures) takes well under a minute on the demo data.")
    explanation("lab")
    st.stop()

if result.stopped:
    st.warning(f"Partial results: {result.n_done} of {result.n_tasks} task(s) finished before "
               "Stop.", icon=":material/stop_circle:")

responses = guarded(result.responses)
if responses is not None and len(responses):
    st.subheader("How each measure responds")
    shown = responses.rename(columns={
        "at_lowest": f"at lowest {level_name}", "at_highest": f"at highest {level_name}",
        "rank_correlation": "rank correlation with the level",
        "max_gap_to_ideal": "max |value − f_l|"})
    if model != "leaky":
        shown = shown.drop(columns=["max |value − f_l|"])
    shown["measure"] = shown["measure"].map(lambda m: m if "@" in m else measure_label(m))
    st.dataframe(shown, hide_index=True, width="stretch")
    if model == "leaky":
        st.caption("An ideal measure reads f_l: rank correlation 1 and a gap near 0.")
    elif model == "dp":
        st.caption("Privacy risk should fall as ε shrinks (a positive rank correlation with "
                   "ε); utility errors should grow.")

tabs = st.tabs(["Responses", "Small multiples", "Correlations",
                *(["Training curve"] if model == "overfit" else []), "Table & download"])
with tabs[0]:
    st.plotly_chart(lab_response_figure(result), width="stretch")
with tabs[1]:
    st.plotly_chart(lab_small_multiples(result), width="stretch")
with tabs[2]:
    st.caption("Correlation of the measures over all evaluated releases (levels × "
               "replicates): measures that see the same risk correlate strongly. A measure "
               "that never moves has no correlation (n/a).")
    method = st.radio("Correlation", ["pearson", "spearman"], horizontal=True,
                      key="lab_corr_method")
    st.plotly_chart(lab_correlation_heatmap(result, method=method), width="stretch")
if model == "overfit":
    with tabs[3]:
        if not result.curves:
            st.info("No finished training run yet.")
        for rep, curve in sorted(result.curves.items(), key=lambda kv: str(kv[0])):
            st.markdown(f"**Replicate {rep + 1 if isinstance(rep, int) else rep}** — best "
                        f"validation loss L* = {curve.best_loss:.3f} at epoch "
                        f"{curve.best_epoch}")
            st.plotly_chart(lab_training_curve(curve), width="stretch",
                            key=f"lab_curve_{rep}")
            if curve.unreached:
                st.warning("Not reached within the epoch budget (no release, value n/a): "
                           f"f_o = {', '.join(f'{f:g}' for f in curve.unreached)}.",
                           icon=":material/hourglass_disabled:")
with tabs[-1]:
    summary, rows = results_tables(result)
    st.dataframe(summary, hide_index=True, width="stretch", height=320)
    st.caption("Means over replicates with their intervals. The tables hold aggregate "
               "measure values only — no real record.")
    d1, d2 = st.columns(2)
    d1.download_button("Download summary (CSV)", summary.to_csv(index=False),
                       file_name=f"risk_lab_{model}_summary.csv", mime="text/csv",
                       icon=":material/download:")
    d2.download_button("Download all rows (CSV)", rows.to_csv(index=False),
                       file_name=f"risk_lab_{model}_rows.csv", mime="text/csv",
                       icon=":material/download:")

explanation("lab")
