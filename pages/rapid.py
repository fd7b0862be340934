"""RAPID page: attribute-inference risk with live thresholds and per-record drill-down."""

from functools import partial

import streamlit as st

import privacy_core as pc
import privacy_core.plots as plots
from privacy_core import safe_csv
from ui.details import details
from ui.evaluations import (
    REFERENCES_AUTO_RUN_MAX_CELLS,
    rapid_cached,
    rapid_calibration,
    rapid_fit_params,
    rapid_references_cached,
    rapid_references_run,
    rapid_run,
    rapid_should_autorun,
    reference_reading,
)
from ui.glossary import glossary_links, term_link
from ui.rapid_breakdowns import detail_tabs
from ui.runner import guarded
from ui.state import commit, keep, remember, require_workspace
from ui.widgets import (
    candidate_picker,
    error_slot,
    fmt_ci,
    paint_now,
    stop_button,
)

# The page leads with the headline numbers and one sentence (issue 34): the attack and
# score settings come after the results; the longer explanations sit in expanders.
st.title("RAPID — attribute inference risk")

full = require_workspace()
if not full.releases:
    st.warning("Load or generate a synthetic release first.")
    st.page_link("pages/data.py", label="Go to Data & threat model", icon=":material/table_view:")
    st.stop()
ws = candidate_picker(full)  # one candidate's releases; settings are committed on `full`

params = rapid_fit_params(ws)


def attack_settings() -> None:
    """The attackers, trees, bootstrap, subset and seed: a form that refits on Apply."""
    with st.expander("Attack settings (refits the attackers)", expanded=False):
        attack_settings_form()


def attack_settings_form() -> None:
    with st.form("rapid_fit_form"):
        c1, c2, c3 = st.columns(3)
        attackers = c1.multiselect(
            "Attackers",
            options=list(pc.ATTACKERS),
            default=list(params["attackers"]),
            format_func=lambda a: pc.ATTACKER_LABELS[a],
            help="Models an attacker could train on the release. Use several: the maximum "
            "is the conservative reading.",
        )
        n_trees = c2.number_input(
            "Random-forest trees",
            50,
            2000,
            int(params["n_trees"]),
            50,
            help="The paper uses 500 (as ranger's default).",
        )
        bootstrap = c3.number_input(
            "Bootstrap replicates",
            0,
            2000,
            int(params["bootstrap"]),
            100,
            help="Percentile bootstrap over real records (no refit). 0 uses Wilson intervals only.",
        )
        c4, c5 = st.columns(2)
        subset = c4.number_input(
            "Run on a subset of real records first (0 = all)",
            0,
            len(ws.real.frame),
            int(params["subset"]),
            500,
            help="A seeded sample of target records: quick look on large tables.",
        )
        seed = c5.number_input("Seed", 0, 2**31 - 1, int(params["seed"]))
        submitted = st.form_submit_button("Apply and refit", type="primary")
    error_slot("rapid_fit")
    if submitted:
        if not attackers:
            st.error("Choose at least one attacker.")
        else:
            new = {
                "attackers": tuple(attackers),
                "n_trees": int(n_trees),
                "bootstrap": int(bootstrap),
                "subset": int(subset),
                "seed": int(seed),
            }
            if commit(full.with_settings(rapid_fit=new), control="rapid_fit"):
                st.rerun()


# the results lead: the panel is drawn into this slot, above the fitting's progress
lead = st.container()
result = rapid_cached(ws, params)
if result is None:
    # True on the rerun that a click on Stop (below) started
    stopped = bool(st.session_state.get("rapid_stop_running"))
    if rapid_should_autorun(ws, params):
        result = rapid_run(ws, params)
    elif st.button(
        "Compute RAPID",
        type="primary",
        help="Fits every attacker on every release once; thresholds then update instantly.",
    ):
        # a large table: minutes of fitting, so a way out (the click interrupts the run at
        # its next progress step, i.e. after the attacker being fitted; nothing is kept)
        stop_slot = st.empty()
        stop_button(
            stop_slot,
            running=True,
            key="rapid_stop",
            help="Ends the fitting after the attacker being fitted; nothing is kept.",
        )
        result = rapid_run(ws, params)
        stop_slot.empty()
    else:
        if stopped:
            st.warning(
                "Stopped: RAPID was not computed, and nothing of the stopped run is kept. "
                "For a quick look, set a subset of real records in the attack settings.",
                icon=":material/stop_circle:",
            )
        st.info(
            f"{len(ws.real.frame):,} real records × {len(ws.releases)} release(s): press "
            "**Compute RAPID** (or set a subset in the attack settings for a quick look)."
        )
if result is None:
    attack_settings()  # e.g. a subset of real records for a quick look
    st.stop()


MAX_LISTED = 1000  # per-record rows drawn on the page


def score_spec(base: pc.RapidResult) -> tuple[str, str, tuple[str, ...], str, str]:
    """The score control of the result's kind: (key, label, options, default, help)."""
    return (
        (
            "rapid_method",
            "Gain score",
            pc.CATEGORICAL_METHODS,
            "marginal",
            "marginal: the paper's (g−b)/(1−b) with b the class share; conditional: g "
            "divided by the mean g of the class (the R package's default); nce: "
            "normalised entropy.",
        )
        if base.kind == "categorical"
        else (
            "rapid_error",
            "Error",
            pc.ERROR_METRICS,
            "relative",
            "relative |y−ŷ|/(|y|+δ) (paper); absolute in units of y; normalized by the "
            "SD of y; symmetric 2|y−ŷ|/(|y|+|ŷ|+2δ).",
        )
    )


def score_choice(base: pc.RapidResult) -> tuple[str, str]:
    """The score (gain method or error) and the interval in force: the widgets' values,
    read before the results are drawn (the widgets themselves come after them)."""
    key, _, _, default, _ = score_spec(base)
    keep(key, default)
    keep("rapid_interval", "bootstrap")
    return st.session_state[key], st.session_state["rapid_interval"]


def score_controls(base: pc.RapidResult) -> None:
    """The score and interval widgets, below the results and outside the slider's
    fragment: they do not follow τ, so a slider step need not redraw them (issue 13,
    item 5). Changing one reruns the page, whose results read the new value first."""
    c1, c2, _ = st.columns([1, 1, 2])
    key, label, options, _, help_text = score_spec(base)
    help_text += " " + glossary_links("Gain score" if base.kind == "categorical" else "ε")
    c1.selectbox(label, list(options), key=key, on_change=remember, args=(key,), help=help_text)
    c2.selectbox(
        "Interval",
        ["bootstrap", "wilson", "clopper-pearson"],
        key="rapid_interval",
        on_change=remember,
        args=("rapid_interval",),
        help=glossary_links("95% CI"),
    )


@st.fragment
def results_panel(base: pc.RapidResult, choice: str, interval: str) -> None:
    """Everything that follows the threshold slider, redrawn alone on a slider step.

    The headline first (painted before the figures), into a slot above the slider; then
    the attacker table, the candidates side by side, the threshold curve, the lazy
    breakdowns and per-record sections, and last the HALF / SELF references into a slot
    kept above them.
    """
    categorical = base.kind == "categorical"
    head = st.container()  # the page's lead: the numbers and one sentence, above the slider
    if categorical:
        key, threshold, hi = tau_slider(choice)
        variant = {"method": choice}
    else:
        key, threshold, hi = epsilon_slider(base, choice)
        variant = {"error": choice}
    r = guarded(lambda: base.at(threshold, interval=interval, **variant))
    if r is None:
        return

    with head:
        headline(r, categorical, threshold)
    # the headline on screen before the figures below are drawn (issue 13, item 5)
    paint_now()
    members_summary(r)
    # filled at the end of the panel: on the first visit the references are fitted after
    # everything else is on screen
    reference_slot = st.container()
    attackers_table(r, categorical)
    candidates_side_by_side(threshold, interval, variant)
    threshold_curve(r, categorical)

    # Everything else that follows τ sits in collapsed, lazy sections: a closed section
    # sends nothing, so a slider step repaints the headline, the attacker table and one
    # figure (issue 13, item 5: ≤ 200 ms per step at 50k rows). Opening a section draws
    # it at the current τ, and while it is open it follows the slider too.
    details = st.expander(
        "Breakdowns — score distribution, by class, by quasi-identifier, attribution, "
        "calibration, synthesizer CV, attackers, members vs non-members",
        key="rapid_details",
        on_change="rerun",
        icon=":material/insights:",
    )
    if details.open:
        with details:
            detail_tabs(r, ws, params, categorical, key, hi, variant)
    strongest_label = pc.ATTACKER_LABELS[r.strongest_attacker]
    per_record = st.expander(
        f"Per-record results — {r.n_at_risk:,} of {len(r.y_true):,} records at risk "
        f"for the strongest attacker ({strongest_label})",
        key="rapid_records",
        on_change="rerun",
        icon=":material/table_rows:",
    )
    if per_record.open:
        with per_record:
            per_record_table(r, categorical, strongest_label)
    with reference_slot:
        references_panel(r, threshold, interval, variant)


def tau_slider(method: str) -> tuple[str, float, float]:
    """The τ slider of a gain method: its widget key, its value and its upper end."""
    # the engine's range and default of τ for this gain (one place: the CLI checks
    # the same range)
    hi = pc.TAU_RANGE[method][1]
    default = pc.DEFAULT_TAU[method]
    key = f"rapid_tau_{method}"
    keep(key, default)
    threshold = st.slider(
        "Threshold τ: a record is at risk when its gain exceeds τ",
        0.0,
        hi,
        step=0.01,
        key=key,
        on_change=remember,
        args=(key,),
        width=640,
    )
    return key, threshold, hi


def epsilon_slider(base: pc.RapidResult, error: str) -> tuple[str, float, float]:
    """The ε slider of an error metric: its widget key, its value and its upper end."""
    scale = base.y_scale if error == "absolute" else 1.0
    key = f"rapid_eps_{error}"
    keep(key, round(0.1 * scale, 4))
    # relative / symmetric ε is a proportion and the engine rejects 1 or more
    proportion = error in ("relative", "symmetric")
    hi = 0.99 if proportion else round(max(1.0, 2 * scale), 4)
    unit = (
        "a proportion, not a percentage: 0.10 means within 10 % of the true value"
        if proportion
        else "in units of y"
        if error == "absolute"
        else "in SDs of y"
    )
    threshold = st.slider(
        "Tolerance ε: a record is at risk when the error is below ε",
        0.0,
        hi,
        step=round(0.005 * scale, 6) or 0.005,
        key=key,
        on_change=remember,
        args=(key,),
        help=f"ε is {unit}. The RAPID paper writes it as a percentage (default 10 %).",
        width=640,
    )
    return key, threshold, hi


def headline(r: pc.RapidResult, categorical: bool, threshold: float) -> None:
    """RAPID max, RAPID mean and the records at risk, then the sentence that reads them."""
    # The headline is the strongest attacker's RAPID: the paper (§2.5) recommends
    # evaluating powerful learners and reporting the maximum; the mean comes second (§2.4
    # asks for both).
    m1, m2, m3 = st.columns(3)
    strongest_label = pc.ATTACKER_LABELS[r.strongest_attacker]
    m1.metric(
        "RAPID max (strongest attacker) — headline",
        f"{r.rate_max:.3f}",
        help="The headline: the strongest attacker's share of real records at risk. "
        "The RAPID paper (§2.5) recommends evaluating strong learners and "
        "reporting the maximum observed risk. " + glossary_links("RAPID max", "95% CI"),
    )
    m1.caption(f"{fmt_ci(r.ci_max)} · {strongest_label}")
    m2.metric(
        "RAPID (mean of attackers)",
        f"{r.value:.3f}",
        help="Share of real records at risk, averaged over attackers and releases "
        "(the paper's average over the attacker suite, §2.4). Lower than the "
        "headline whenever a weaker attacker is in the suite. " + glossary_links("RAPID"),
    )
    m2.caption(fmt_ci(r.ci))
    m3.metric(
        "Records at risk (strongest attacker)",
        f"{r.n_at_risk:,} of {len(r.y_true):,}",
        help="The real records that the strongest attacker (the one with the highest "
        "RAPID at this threshold) infers confidently: the records behind RAPID "
        "max, and the ones listed in the per-record table below. "
        + glossary_links("τ" if categorical else "ε"),
    )
    m3.caption(f"Strongest attacker: {strongest_label}.")
    if r.replicate_rates.shape[1] > 1:
        per_release = r.replicate_rates.mean(axis=0)
        m3.caption(
            f"Across {len(per_release)} releases: mean {per_release.mean():.3f} ± "
            f"{per_release.std(ddof=1):.3f} (sd)"
        )
    symbol = "τ" if categorical else "ε"
    rel = "above τ" if categorical else "within ε"
    # one sentence under the numbers (issue 34); why the maximum is the headline is in
    # the card's help and the glossary
    st.markdown(
        f"At {term_link(symbol)} = **{threshold:.2f}**, the "
        f"{term_link('strongest attacker')} trained on the release ({strongest_label}) is "
        f"confidently right ({rel}) about **{r.rate_max:.1%}** of the real people; the "
        f"attackers average **{r.value:.1%}**."
    )


def members_summary(r: pc.RapidResult) -> None:
    """One sentence on members against non-members, when a holdout was loaded."""
    gap = r.members_vs_non_members()
    if gap is not None:
        d, rel = gap["difference"], gap["relative"]
        st.markdown(
            f"**Members vs non-members** (consensus {term_link('R7')}, "
            f"{pc.ATTACKER_LABELS[gap['attacker']]}): "
            f"{gap['members']['value']:.1%} of the training records against "
            f"{gap['non_members']['value']:.1%} of {gap['n_non_members']:,} holdout records "
            f"the generator never saw — a difference of **{d['value']:+.3f}** "
            f"({fmt_ci(d['ci'])}), relative **{rel['value']:.2f}**.",
            help="Relative ≈ 0: the release discloses no more about its members than "
            "about anyone from the population; ≈ 1: as much as a copy. See the *Members "
            "vs non-members* tab. " + glossary_links("member", "holdout"),
        )


def attackers_table(r: pc.RapidResult, categorical: bool) -> None:
    """Each attacker's RAPID, interval and accuracy (R²), the strongest marked."""
    perf = "accuracy" if categorical else "r2"
    perf_label = "accuracy" if categorical else "R²"
    st.dataframe(
        [
            {
                "attacker": pc.ATTACKER_LABELS[a],
                "RAPID": v["value"],
                "95% CI": f"{v['ci'][0]:.3f} – {v['ci'][1]:.3f}",
                perf_label: v.get(perf),
                "headline": "◀ strongest" if a == r.strongest_attacker else "",
            }
            for a, v in r.by_attacker.items()
        ],
        hide_index=True,
        width="content",
        column_config={
            perf_label: st.column_config.NumberColumn(
                help="Accuracy: the share of real records whose class the attacker "
                "predicts correctly (R² for a continuous attribute) — the paper's Table 1 "
                "and Fig. 5a report it next to RAPID, as utility next to risk (§4)."
            )
        },
    )


def threshold_curve(r: pc.RapidResult, categorical: bool) -> None:
    """Each attacker's RAPID at every threshold (with the calibration's suggestion and
    null band when computed), beside how to read it."""
    keep("rapid_cal_rule", "null-rapid")
    keep("rapid_cal_permute", "release")
    cal_rule = st.session_state["rapid_cal_rule"]
    cal_permute = st.session_state["rapid_cal_permute"] if cal_rule == "null-rapid" else "release"
    # the calibration tab's permutation count (widget state), so the plot finds its result
    cal_perm = st.session_state.get(f"rapid_cal_perm_{cal_rule}_{cal_permute}")
    cal = rapid_calibration(
        ws,
        params,
        method=r.params["method"],
        error=r.params["error"],
        run=False,
        rule=cal_rule,
        permute=cal_permute,
        n_permutations=int(cal_perm) if cal_perm else None,
    )
    g1, g2 = st.columns([3, 2])
    # The figure's cached data, without a mark at the slider's value: the same data at
    # every step, so the browser keeps the chart it has instead of redrawing it (issue
    # 13, item 5: ≤ 200 ms a step; the redraw alone took 80 ms). The slider above it and
    # the hover on each line give the value.
    g1.plotly_chart(
        plots.rapid_threshold_curve(
            r,
            suggested=cal.suggested_threshold if cal else None,
            null=cal if cal is not None and cal.rule == "null-rapid" else None,
            spec=True,
            marker=False,
        ),
        width="stretch",
    )
    with g2:
        st.caption("Each line is an attacker's RAPID at every threshold; hover to read them.")
        details(
            f"**Reading the curve.** Each line is an attacker's RAPID at every "
            f"{'threshold' if categorical else 'tolerance'}: the slider above moves along "
            "the horizontal axis, and hovering the chart reads every line at that point. "
            + (
                "A higher τ asks for more confidence, so fewer records are at risk."
                if categorical
                else "A larger ε accepts a rougher guess, so more records are at risk."
            )
            + " The paper's calibration (§2.5) suggests a threshold from a permutation "
            "null: see *Calibration* under the breakdowns below.",
            terms=("τ" if categorical else "ε",),
        )


def per_record_table(r: pc.RapidResult, categorical: bool, strongest_label: str) -> None:
    """The riskiest real records, drawn only while their section is open."""
    only = st.checkbox("Show only records at risk", value=True, key="rapid_only_risk")
    n_records, n_risk = len(r.y_true), r.n_at_risk
    n_shown = n_risk if only else n_records
    # the riskiest rows only, built for those rows alone: sending (or even building) the
    # table of tens of thousands of records on every slider step is what made a step take
    # seconds at 50k records; the download has them all
    listed = r.records_top(MAX_LISTED, only_at_risk=only)
    st.caption(
        f"{n_risk:,} of {n_records:,} records at risk for the strongest attacker "
        f"({strongest_label})"
        + ("" if only else f"; all {n_shown:,} records")
        + (
            f"; listing the {MAX_LISTED:,} riskiest (the download has all)"
            if n_shown > MAX_LISTED
            else ""
        )
        + ". Click a column header to sort. `score` is the strongest attacker's gain "
        "(or error); `score_<attacker>` each attacker's; `share_flagged` the share of "
        "attacker × release fits that flag the record."
    )
    st.dataframe(listed, hide_index=True, width="stretch", height=360)
    allow = st.checkbox(
        "I want to download the per-record table (it contains real records' "
        "quasi-identifiers and sensitive values)",
        key="rapid_allow_download",
    )
    if allow:
        records = r.records
        shown = (records[records["at_risk"]] if only else records).sort_values(
            "score", ascending=not categorical, kind="stable"
        )
        st.download_button(
            "Download per-record table (CSV)",
            partial(safe_csv, shown),
            file_name="rapid_records.csv",
            mime="text/csv",
            on_click="ignore",
        )


def candidates_side_by_side(threshold: float, interval: str, variant: dict) -> None:
    """Every candidate's RAPID at this threshold, each on its own releases (never pooled)."""
    views = full.candidate_views()
    if len(views) < 2:
        return
    rows = []
    for name, view in views.items():
        fitted = rapid_cached(view, rapid_fit_params(view))
        at = fitted.at(threshold, interval=interval, **variant) if fitted is not None else None
        rows.append(
            {
                "candidate": name,
                "releases": len(view.releases),
                # text cells: a candidate not computed reads so, never "None"
                "RAPID max (headline)": f"{at.rate_max:.3f}" if at else "not computed",
                "95% CI": fmt_ci(at.ci_max) if at else "pick it above to compute it",
                "RAPID mean": f"{at.value:.3f}" if at else "not computed",
            }
        )
    st.markdown("**Candidates side by side** at this threshold (each on its own releases):")
    st.dataframe(rows, hide_index=True, width="content")


def references_panel(r: pc.RapidResult, threshold: float, interval: str, variant: dict) -> None:
    """Is this acceptable? The release's RAPID against a fresh real sample and a copy."""
    refs = rapid_references_cached(ws, params)
    if refs is None and (
        rapid_should_autorun(ws, params, limit=REFERENCES_AUTO_RUN_MAX_CELLS)
        or st.button(
            "Compare with a fresh real sample (HALF) and a copy (SELF)",
            key="rapid_references_btn",
            help="Fits the same attackers on half of the real rows and on all of them.",
        )
    ):
        refs = rapid_references_run(ws, params)
    if refs is None:
        return
    half = guarded(lambda: refs["half"].at(threshold, interval=interval, **variant))
    copy = guarded(lambda: refs["self"].at(threshold, interval=interval, **variant))
    if half is not None and copy is not None:
        st.markdown(reference_reading(r, half, copy))


with lead:
    results_panel(result, *score_choice(result))
st.subheader("Settings")
score_controls(result)
attack_settings()
details(
    "Could an attacker who knows a person's quasi-identifiers learn their sensitive "
    "attribute from the synthetic data? RAPID trains attackers on the release and scores "
    "every real record.",
    topic="rapid",
    terms=("RAPID", "quasi-identifier", "sensitive attribute", "HALF", "R7"),
)
