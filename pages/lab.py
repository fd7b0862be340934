"""Risk lab: insert a known amount of risk and watch every measure respond."""

from functools import partial
from typing import Any

import streamlit as st

from privacy_core import (
    CEILING_MIN,
    FLOOR_MAX,
    LEVEL_NAMES,
    RATIO_GAP_MAX,
    RISK_MODELS,
    measure_label,
    safe_csv,
)
from privacy_core.plots import (
    calibration_figure,
    calibration_table,
    lab_correlation_heatmap,
    lab_response_figure,
    lab_small_multiples,
    lab_training_curve,
)
from ui.calibration import (
    CAL_DEFAULTS,
    LEVEL_CHOICES,
    RATIO_CHOICES,
    VIEW,
    calibration_cached,
    calibration_run,
    calibration_settings,
    expected_rows,
    remember_calibration,
)
from ui.details import details
from ui.glossary import term_link
from ui.lab import (
    LAB_DEFAULTS,
    LAB_SPACES,
    LEVEL_OPTIONS,
    RISK_MODEL_LABELS,
    format_seconds,
    generators,
    lab_cached,
    lab_measure_keys,
    lab_real,
    lab_run,
    lab_settings,
    measure_option,
    responses_table,
    results_tables,
    space_of,
    sweep_plan,
    with_space,
)
from ui.runner import guarded
from ui.state import commit, keep, kept, remember, require_workspace, set_error
from ui.widgets import error_slot, stop_button

# One sentence under the title, the numbers first under each view's heading (issue 34);
# the longer explanations close each view in the "what this measures" expander.
st.title("Risk lab — does each measure see the risk we insert?")
st.caption(
    "A measure you can trust rises with the risk we insert "
    f"({term_link('f_l', 'copied records')}, {term_link('f_o', 'overfitting')}, a "
    f"{term_link('DP', 'DP budget')}); one that stays flat cannot see it."
)

ws = require_workspace()
real = lab_real(ws)
LAB_INTRO = (
    "Make releases whose privacy risk is known — copy a share of the training records, "
    "overfit a neural generator, or vary a DP budget — and watch how every measure "
    "responds. A measure you can trust rises with the inserted risk; one that stays flat "
    "cannot see it.",
    f"The lab splits the {len(real):,} real records of the workspace (training and "
    "holdout pooled) into its own training, control and release parts for every "
    "replicate; your synthetic releases are not used here.",
)

VIEW_LABELS = {**RISK_MODEL_LABELS, VIEW: "Calibration of the measures"}
keep("lab_model", "leaky")
model = st.segmented_control(
    "Experiment",
    [*RISK_MODELS, VIEW],
    key="lab_model",
    on_change=remember,
    args=("lab_model",),
    format_func=lambda m: VIEW_LABELS[m],
    selection_mode="single",
    help="Three risk models that insert a known risk into releases, and the calibration "
    "of the measures themselves on your data.",
)
if model is None:  # a click on the selected segment clears it: keep the previous model
    model = kept("lab_model") or "leaky"

# ================================================================== calibration view
if model == VIEW:
    st.subheader("Calibration — what do 0 and 1 mean for each measure on this data?")
    CALIBRATION_TEXT = (
        "A reviewer reads every measure as *0 = this release leaks nothing, 1 = it leaks "
        "everything*. The calibration checks that reading on your own data and threat "
        "model. It builds **leaky reference releases** from your real rows: a share f_l "
        "of each release is copied from a training set and the rest are real people who "
        "were never in it — at f_l = 0 a release of unseen real rows, at f_l = 1 a full "
        "copy of the training rows. Every measure is run on them, with the holdout at "
        "several **training:holdout size ratios** (1:1 to 4:1). Its **floor** is what it "
        "reads on unseen rows, its **ceiling** what it reads on a full copy, its **ratio "
        "gap** how much it moves when only the holdout size changes. A measure is "
        f"calibrated when its floor is at most {FLOOR_MAX:g} (or its interval reaches 0), "
        f"its ceiling at least {CEILING_MIN:g} (or the ceiling documented for it), it "
        f"rises with f_l and its ratio gap is at most {RATIO_GAP_MAX:g} (on small data, at "
        f"most {RATIO_GAP_MAX:g} beyond the readings' own intervals); otherwise it is "
        "marked **uncalibrated on this data**, with the reason, here and on its Privacy "
        "page card."
    )
    CALIBRATION_TERMS = ("floor", "f_l", "calibration contract", "holdout")
    # the numbers lead under the heading once a run has given them (filled below)
    cal_lead = st.container()
    cal = calibration_settings(ws)
    with st.expander("Calibration settings", expanded=False):
        with st.form("cal_form"):
            cal_measures = st.multiselect(
                "Measures",
                list(CAL_DEFAULTS["measures"]),
                default=list(cal["measures"]),
                format_func=measure_option,
                help="Every privacy measure by default; singling out is calibrated in both "
                "its modes (univariate and multivariate). The measures use the "
                "settings of the Privacy metrics page.",
            )
            f1, f2 = st.columns(2)
            cal_levels = f1.multiselect(
                "Leak fractions f_l",
                sorted(set(LEVEL_CHOICES) | set(cal["levels"])),
                default=list(cal["levels"]),
                help="The lowest is the floor, the highest the ceiling: keep 0 and 1.",
            )
            cal_ratios = f2.multiselect(
                "Training:holdout size ratios",
                sorted(set(RATIO_CHOICES) | set(cal["ratios"])),
                default=list(cal["ratios"]),
                format_func=lambda r: f"{r:g}:1",
                help="The holdout is 1/r of the training rows; the releases are the same "
                "at every ratio.",
            )
            g1, g2 = st.columns(2)
            cal_max = g1.number_input(
                "Use at most this many training rows (0 = as many as the data allows)",
                0,
                1_000_000,
                int(cal["max_training"]),
                100,
                help="Bounds the time: the pool of unseen rows is as large, the holdout "
                "1/r of it. The default takes 40-60 s on the demo (two cores).",
            )
            cal_seed = g2.number_input("Seed", 0, 2**31 - 1, int(cal["seed"]), key="cal_seed_input")
            a1, a2 = st.columns(2)
            cal_apply = a1.form_submit_button("Apply settings", type="primary")
            cal_reset = a2.form_submit_button("Reset to the defaults")
        error_slot("cal_settings")
        if cal_apply or cal_reset:
            new: dict[str, Any] = (
                dict(CAL_DEFAULTS)
                if cal_reset
                else {
                    "measures": tuple(cal_measures),
                    "levels": tuple(sorted(float(v) for v in cal_levels)),
                    "ratios": tuple(sorted(float(v) for v in cal_ratios)),
                    "max_training": int(cal_max),
                    "seed": int(cal_seed),
                }
            )
            if len(new["levels"]) < 2:
                set_error(
                    "cal_settings",
                    "Choose at least two leak fractions (0 and 1 give the floor and the ceiling).",
                )
            elif not new["ratios"]:
                set_error("cal_settings", "Choose at least one training:holdout ratio.")
            elif not new["measures"]:
                set_error("cal_settings", "Choose at least one measure.")
            else:
                commit(ws.with_settings(calibration=new), control="cal_settings")
            st.rerun()
    st.caption(
        f"f_l ∈ {{{', '.join(f'{v:g}' for v in cal['levels'])}}} · ratios "
        f"{', '.join(f'{r:g}:1' for r in cal['ratios'])} · {len(cal['measures'])} "
        f"measure(s) · "
        + (
            f"at most {int(cal['max_training']):,} training rows"
            if cal["max_training"]
            else "as many training rows as the data allows"
        )
        + f" · seed {cal['seed']}"
    )

    calibration = calibration_cached(ws, cal)
    c_run, c_stop, _ = st.columns([1, 1, 4])
    run_cal = c_run.button(
        "Run calibration",
        type="primary",
        icon=":material/play_arrow:",
        disabled=calibration is not None and not calibration.stopped,
        key="cal_run",
    )
    stop_slot = c_stop.empty()
    running = run_cal and (calibration is None or calibration.stopped)
    stop_button(
        stop_slot,
        running=running,
        key="cal_stop",
        help="Ends the calibration after the measure being evaluated; the values "
        "finished so far are kept.",
    )
    progress_area = st.container()
    live_cal = st.empty()
    if running:
        calibration = calibration_run(ws, cal, live_slot=live_cal, area=progress_area)
        stop_button(stop_slot, running=False, key="cal_stop")
    if calibration is None:
        st.info(
            "Press **Run calibration** — it is slow work and never starts on its own. "
            "The default (every privacy measure × 5 leak fractions × 3 ratios on at "
            "most 500 training rows) takes 40-60 s on the demo data (two cores)."
        )
        st.caption(
            f"Each measure's {term_link('floor')} on unseen rows and ceiling on a full "
            "copy, on your data."
        )
        details(CALIBRATION_TEXT, *LAB_INTRO, topic="calibration", terms=CALIBRATION_TERMS)
        st.stop()
    remember_calibration(ws, calibration)
    if calibration.stopped:
        st.warning(
            f"Partial results: {len(calibration.rows)} of {expected_rows(calibration)} "
            "values were computed before the run was stopped. Measures marked "
            "*incomplete* have provisional floors and ceilings.",
            icon=":material/stop_circle:",
        )
    table = calibration_table(calibration)
    m1, m2, m3 = cal_lead.columns(3)
    m1.metric(
        "Calibrated on this data",
        f"{table['status'].str.startswith('✓').sum()} of {len(table)}",
        help=term_link("calibration contract", "Glossary: the calibration contract."),
    )
    m2.metric("Uncalibrated on this data", int(table["status"].str.startswith("✗").sum()))
    if calibration.stopped:
        m3.metric("Not finished (stopped)", int(table["status"].str.startswith("…").sum()))
    else:
        m3.metric(
            "Training rows",
            f"{calibration.params.get('n_training', 0):,}",
            help="Training rows of the split; the pool of unseen rows is as large and "
            "the holdout is 1/r of it.",
        )
    cal_lead.caption(
        f"A measure is calibrated when its {term_link('floor')} on unseen rows is near 0, "
        "its ceiling on a full copy near 1, and the holdout's size does not move it."
    )
    st.subheader("How each measure responds to copied records")
    st.plotly_chart(calibration_figure(calibration), width="stretch", key="cal_figure")
    st.caption(
        "One panel per measure: the value at each leak fraction f_l, one line per "
        "training:holdout ratio with the measure's 95% interval. Dashed: the ideal "
        f"y = f_l. Shaded: the floor band 0 – {FLOOR_MAX:g}. Dotted (where documented): "
        "the measure's ceiling. ✓ pass / ✗ uncalibrated is each panel's verdict."
    )
    st.subheader("Verdict per measure")
    shown_table = table.drop(columns=["key", "note"])
    if shown_table["documented ceiling"].isna().all():
        shown_table = shown_table.drop(columns=["documented ceiling"])
    st.dataframe(
        shown_table,
        hide_index=True,
        width="stretch",
        height=35 * (len(table) + 1) + 3,
        column_config={
            "floor": st.column_config.NumberColumn(
                "floor (unseen rows)",
                format="%.3f",
                help="Value at the lowest f_l (a release of unseen real rows), at the "
                "smallest ratio (1:1 by default).",
            ),
            "ceiling": st.column_config.NumberColumn(
                "ceiling (full copy)",
                format="%.3f",
                help="Value at the highest f_l (a full copy of training), at the smallest "
                "ratio (1:1 by default).",
            ),
            "slope": st.column_config.NumberColumn(format="%.2f"),
            "linearity": st.column_config.NumberColumn("linearity (R²)", format="%.2f"),
            "ratio gap": st.column_config.NumberColumn(
                format="%.3f",
                help="Largest change between the smallest and the largest ratio at any f_l.",
            ),
            "gap beyond intervals": st.column_config.NumberColumn(
                "gap beyond CIs",
                format="%.3f",
                help="The part of the ratio gap beyond the two readings' intervals: only "
                "this counts against the measure when the gap exceeds the limit.",
            ),
            "documented ceiling": st.column_config.NumberColumn(format="%.2f"),
            "reasons": st.column_config.TextColumn(width="large"),
        },
    )
    for row in table.itertuples():
        note = f" *{row.note}*" if row.note else ""
        if row.status.startswith("✗"):
            st.markdown(
                f":orange-badge[:material/warning: uncalibrated on this data] "
                f"**{row.measure}** — {row.reasons}.{note}"
            )
        elif row.status.startswith("?"):
            st.markdown(
                f":blue-badge[:material/help: inconclusive] **{row.measure}** — "
                f"{row.reasons}.{note}"
            )
        elif row.status.startswith("✓") and note:
            st.markdown(f":green-badge[:material/check: calibrated] **{row.measure}** —{note}")
    unfinished = table.loc[table["status"].str.startswith("…"), "measure"].tolist()
    if unfinished:
        st.markdown(
            ":gray-badge[:material/hourglass_top: incomplete] The run stopped before "
            "every leak fraction and ratio of these measures ran: "
            + ", ".join(f"**{m}**" for m in unfinished)
            + ". Run again to finish them."
        )
    st.caption(
        "The table holds aggregate values only — no real record. The Privacy metrics "
        "page now places each card's value between this floor and ceiling."
    )
    d1, d2 = st.columns(2)
    d1.download_button(
        "Download the calibration table (CSV)",
        partial(safe_csv, table),
        file_name="calibration_summary.csv",
        mime="text/csv",
        icon=":material/download:",
        on_click="ignore",
    )
    d2.download_button(
        "Download all values (CSV)",
        partial(safe_csv, calibration.rows),
        file_name="calibration_rows.csv",
        mime="text/csv",
        icon=":material/download:",
        on_click="ignore",
    )
    details(CALIBRATION_TEXT, *LAB_INTRO, topic="calibration", terms=CALIBRATION_TERMS)
    st.stop()

# ================================================================== risk-model sweeps
settings = lab_settings(ws, model)
level_name = LEVEL_NAMES[model]

with st.expander("Sweep settings", expanded=False):
    with st.form(f"lab_form_{model}"):
        options = sorted(set(LEVEL_OPTIONS[model]) | set(settings["levels"]))
        levels = st.multiselect(
            f"Levels of {level_name}",
            options,
            default=list(settings["levels"]),
            help={
                "leaky": "Share of the release copied from training records (0 = none, "
                "1 = the whole training set).",
                "overfit": "Validation loss of the generator as a multiple of its optimum "
                "(1 = early-stopped, 2 = trained on until the loss doubled).",
                "dp": "Privacy budget ε of the DP generator (small = strong privacy).",
            }[model],
        )
        c1, c2, c3 = st.columns(3)
        replicates = c1.number_input(
            "Replicates",
            1,
            10,
            int(settings["replicates"]),
            help="Independent repetitions (new split, release and "
            "seeds): the bands show their spread.",
        )
        seed = c2.number_input("Seed", 0, 2**31 - 1, int(settings["seed"]))
        max_rows = c3.number_input(
            "Use at most this many real rows (0 = all)",
            0,
            len(real),
            int(settings["max_rows"]),
            500,
            help="A seeded subset for a quick first look.",
        )
        chosen, space = space_of(settings["measures"])
        m1, m2 = st.columns([3, 1])
        measures = m1.multiselect(
            "Measures",
            lab_measure_keys(),
            default=chosen,
            format_func=measure_option,
            help="Fast measures by default. Fidelity measures show the "
            "utility side (mostly useful with the DP model).",
        )
        space = m2.selectbox(
            "Distance space",
            list(LAB_SPACES),
            index=list(LAB_SPACES).index(space),
            format_func=LAB_SPACES.__getitem__,
            help="Where DCR, k-NN DCR, distance inference and linkability measure distances, "
            "and where singling out finds its targets: the shared encoding (range-"
            "scaled numbers, category mismatches), a contrastive embedding learned on "
            "the training rows of each release, or both as separate lines (the "
            "contrastive paper's plain-versus-embedding comparison). Other measures "
            "are not affected.",
        )
        if model == "leaky":
            st.markdown(
                "**Noise on the copied records** (does a measure still see leaks "
                "that are not exact copies?)"
            )
            n1, n2, n3 = st.columns(3)
            sigma = n1.number_input(
                "σ: Gaussian, share of the column range (decimals)",
                0.0,
                1.0,
                float(settings["noise"][0]),
                0.01,
                format="%.2f",
            )
            lam = n2.number_input(
                "λ: ±Poisson shift (whole numbers)", 0.0, 10.0, float(settings["noise"][1]), 0.5
            )
            p = n3.number_input(
                "p: category flip probability",
                0.0,
                1.0,
                float(settings["noise"][2]),
                0.01,
                format="%.2f",
            )
        else:
            sigma, lam, p = settings["noise"]
        generator = settings["generator"]
        max_epochs = int(settings["max_overfit_epochs"])
        if model == "dp":
            gens = generators()
            generator = st.selectbox(
                "DP generator",
                gens,
                index=gens.index(generator) if generator in gens else 0,
                help="dp-mst: MST-style marginals (seeded, fast). dp-independent: one-way "
                "marginals only. SmartNoise MST/AIM (if installed) are not reproducible "
                "from a seed and much slower.",
            )
        if model == "overfit":
            max_epochs = st.number_input(
                "Epoch budget after the optimum",
                10,
                2000,
                max_epochs,
                50,
                help="Levels not reached within it are reported as unreached.",
            )
        r1, r2 = st.columns(2)
        outlier = r1.selectbox(
            "Remove LOF outliers from training first",
            [0.0, 0.01, 0.02, 0.05, 0.10],
            index=[0.0, 0.01, 0.02, 0.05, 0.10].index(float(settings["outlier_fraction"]))
            if float(settings["outlier_fraction"]) in (0.0, 0.01, 0.02, 0.05, 0.10)
            else 0,
            format_func=lambda f: "none" if f == 0 else f"{f:.0%}",
        )
        canaries = r2.number_input(
            "Canary records (randomised secret)",
            0,
            1000,
            int(settings["canaries"]),
            25,
            help="Attribute-inference success on records whose secret "
            "was randomised can only come from memorisation.",
        )
        c_apply, c_reset = st.columns([1, 1])
        apply = c_apply.form_submit_button("Apply settings", type="primary")
        reset = c_reset.form_submit_button("Reset to the workshop defaults")
    error_slot("lab_settings")
    if apply or reset:
        new = (
            dict(LAB_DEFAULTS[model])
            if reset
            else {
                "levels": tuple(sorted(float(v) for v in levels)),
                "replicates": int(replicates),
                "measures": with_space(measures, space),
                "seed": int(seed),
                "max_rows": int(max_rows),
                "outlier_fraction": float(outlier),
                "canaries": int(canaries),
                "noise": (float(sigma), float(lam), float(p)),
                "generator": generator,
                "max_overfit_epochs": int(max_epochs),
            }
        )
        if not new["levels"]:
            set_error("lab_settings", f"Choose at least one level of {level_name}.")
        elif not new["measures"]:
            set_error("lab_settings", "Choose at least one measure.")
        else:
            commit(ws.with_settings(**{f"lab_{model}": new}), control="lab_settings")
        st.rerun()

plan = sweep_plan(ws, model, settings)
estimate = format_seconds(plan["seconds"])
st.markdown(
    f"**Setup** — {RISK_MODEL_LABELS[model]}: {level_name} ∈ "
    f"{{{', '.join(f'{v:g}' for v in settings['levels'])}}} · "
    f"{settings['replicates']} replicate(s) = {plan['releases']} release(s) of "
    f"{plan['training']:,} training rows (from {plan['rows']:,} real rows) · "
    f"{len(settings['measures'])} measure(s): "
    + ", ".join(measure_label(m) for m in settings["measures"])
    + (f" · {int(settings['canaries'])} canaries" if int(settings["canaries"]) else "")
)

result = lab_cached(ws, model, settings)
c_run, c_stop, c_note = st.columns([1.3, 0.8, 3.9], vertical_alignment="center")
run_slot, stop_slot, note_slot = c_run.empty(), c_stop.empty(), c_note.empty()


def draw_run_state(result, key: str) -> bool:
    """The Run button and the note beside it; True when Run was clicked."""
    finished = result is not None and not result.stopped
    if finished:
        seconds = result.params.get("seconds")
        note_slot.caption(
            "Computed for these settings"
            + (f" in {seconds:.0f} s." if seconds else ".")
            + " Change a setting to run another sweep."
        )
    else:
        note_slot.caption(
            f"Estimated time: **{estimate}** on this machine "
            f"({'one process' if plan['n_jobs'] == 1 else 'all cores'}). "
            "Nothing runs until you press the button."
        )
    return run_slot.button(
        "Run the sweep",
        type="primary",
        icon=":material/play_arrow:",
        disabled=finished,
        key=key,
        help=None if finished else f"Takes {estimate} (estimate).",
    )


run = draw_run_state(result, "lab_run")
running = run and (result is None or result.stopped)
# The Stop button exists only while a sweep runs: a button that is there but does
# nothing reads as if something were running.
if running:
    stop_button(
        stop_slot,
        running=True,
        key="lab_stop",
        help="Ends the sweep after the release being evaluated; finished rows are kept.",
    )
progress_area = st.container()
live = st.empty()
if running:
    result = lab_run(ws, model, settings, live_slot=live, area=progress_area)
    stop_slot.empty()
    if result is not None and not result.stopped:
        # Run is spent for these settings: redraw it inactive now (under another key,
        # one widget per key and run); a stopped or failed run keeps the live button
        draw_run_state(result, "lab_run_done")
if result is None:
    st.info(
        f"Press **Run the sweep** to make the releases and measure them ({estimate}). "
        "Change the levels, replicates or measures under *Sweep settings* first if "
        "you like.",
        icon=":material/science:",
    )
    details(*LAB_INTRO, topic="lab", terms=("f_l", "f_o", "DP", "canary record", "LOF"))
    st.stop()

if result.stopped:
    st.warning(
        f"Partial results: {result.n_done}"
        + (f" of {result.n_tasks}" if result.n_tasks else "")
        + " task(s) finished before the sweep was stopped.",
        icon=":material/stop_circle:",
    )

tabs = st.tabs(
    [
        "Responses by group",
        "Each measure",
        "Correlations",
        *(["Training curve"] if model == "overfit" else []),
        "Table & download",
    ]
)
with tabs[0]:
    st.plotly_chart(lab_response_figure(result), width="stretch", key="lab_responses")
    reading = {
        "leaky": "Risk panels: a measure that sees the copied records follows the dashed "
        "ideal y = f_l.",
        "overfit": "Risk panels: a measure that sees memorisation rises with f_o.",
        "dp": "Risk panels: a measure that sees the weaker guarantee rises with ε.",
    }[model]
    st.caption(reading)
    details(
        f"One panel per group of measures, each on its own axis; band = 95% interval over "
        f"replicates. {reading} Similarity indicators are no disclosure evidence on their "
        "own. The utility & fidelity panel is not a risk: query error 0 and discriminator "
        "AUC 0.5 mean the release looks like the real data."
        + (
            " Canary check: the attacks' success rate on canary records (dotted; their "
            "secret was randomised, so only memorisation beats chance) and on the other "
            "training records (dashed)."
            if int(settings["canaries"])
            else ""
        ),
        terms=("similarity indicators", "canary record", "95% CI"),
    )
    shown = guarded(partial(responses_table, result))
    if shown is not None and len(shown):
        st.markdown("**How each measure responds**")
        st.dataframe(
            shown,
            hide_index=True,
            width="stretch",
            column_config={
                c: st.column_config.NumberColumn(format="%.3f")
                for c in shown.columns
                if c not in ("group", "measure", "levels")
            },
        )
        if model == "leaky":
            st.caption(
                "An ideal risk measure reads f_l: rank correlation 1 and a gap near "
                "0 (no gap is shown for utility measures and canary rows, whose "
                "ideal is not f_l)."
            )
        elif model == "dp":
            st.caption(
                "Privacy risk should fall as ε shrinks (a positive rank correlation "
                "with ε); utility errors should grow."
            )
with tabs[1]:
    st.plotly_chart(lab_small_multiples(result), width="stretch", key="lab_each")
with tabs[2]:
    st.caption(
        "Correlation of the measures over all evaluated releases (levels × "
        "replicates): measures that see the same risk correlate strongly. A measure "
        "that never moves has no correlation (n/a)."
    )
    method = st.radio(
        "Correlation", ["pearson", "spearman"], horizontal=True, key="lab_corr_method"
    )
    st.plotly_chart(lab_correlation_heatmap(result, method=method), width="stretch")
if model == "overfit":
    with tabs[3]:
        if not result.curves:
            st.info("No finished training run yet.")
        for rep, curve in sorted(result.curves.items(), key=lambda kv: str(kv[0])):
            st.markdown(
                f"**Replicate {rep + 1 if isinstance(rep, int) else rep}** — best "
                f"validation loss L* = {curve.best_loss:.3f} at epoch "
                f"{curve.best_epoch}"
            )
            st.plotly_chart(lab_training_curve(curve), width="stretch", key=f"lab_curve_{rep}")
            if curve.unreached:
                st.warning(
                    "Not reached within the epoch budget (no release, value n/a): "
                    f"f_o = {', '.join(f'{f:g}' for f in curve.unreached)}.",
                    icon=":material/hourglass_disabled:",
                )
with tabs[-1]:
    summary, rows = results_tables(result)
    st.dataframe(summary.drop(columns=["key"]), hide_index=True, width="stretch", height=320)
    st.caption(
        "Means over replicates with their intervals. The tables hold aggregate "
        "measure values only — no real record. The downloads add each measure's "
        "engine key (as in the command line's output)."
    )
    d1, d2 = st.columns(2)
    d1.download_button(
        "Download summary (CSV)",
        partial(safe_csv, summary),
        file_name=f"risk_lab_{model}_summary.csv",
        mime="text/csv",
        icon=":material/download:",
        on_click="ignore",
    )
    d2.download_button(
        "Download all rows (CSV)",
        partial(safe_csv, rows),
        file_name=f"risk_lab_{model}_rows.csv",
        mime="text/csv",
        icon=":material/download:",
        on_click="ignore",
    )

details(*LAB_INTRO, topic="lab", terms=("f_l", "f_o", "DP", "canary record", "LOF"))
