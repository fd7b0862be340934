"""Privacy metrics: every no-box measure on one threat model, with a record drill-down."""

from functools import partial

import streamlit as st

import privacy_core as pc
from privacy_core import GTCAP_WEIGHTINGS, MEASURES, SINGLING_OUT_MODES, plots, safe_csv
from ui.cached import canonical_real
from ui.calibration import card_calibration, latest_calibration, open_calibration_view
from ui.evaluations import (
    AUTO_RUN_MAX_CELLS,
    rapid_at_page_settings,
    rapid_cached,
    rapid_fit_params,
)
from ui.glossary import measure_link
from ui.mds import draw_mds_section
from ui.privacy import (
    ATTACKS,
    FAST_DEFAULT,
    INDICATORS,
    PRIVACY_MEASURES,
    SLOW,
    attack_results,
    available,
    cached_results,
    card_text,
    dcr_result,
    embedding_points,
    membership_note,
    nearest_records,
    privacy_params,
    run_measures,
    sdc_caption,
)
from ui.runner import guarded
from ui.state import commit, keep, remember, require_workspace
from ui.widgets import candidate_picker, error_slot, explanation, fmt_ci, stop_button

st.title("Privacy metrics")
st.caption(
    "Similarity indicators, attacks and membership inference on the same threat model "
    "and the same records, each with its interval and baseline."
)

full = require_workspace()
if not full.releases:
    st.warning("Load or generate a synthetic release first.")
    st.page_link("pages/data.py", label="Go to Data & threat model", icon=":material/table_view:")
    st.stop()
ws = candidate_picker(full)  # one candidate's releases; settings are committed on `full`
if ws.holdout is None:
    st.info(
        "No holdout loaded: attacks run without their control baseline and the measures "
        "that need one ("
        + ", ".join(MEASURES[n].label for n in PRIVACY_MEASURES if MEASURES[n].needs_holdout)
        + ") are unavailable."
    )

params = privacy_params(ws)
with st.expander("Settings (recomputes the affected measures)"):
    with st.form("privacy_form"):
        c1, c2, c3 = st.columns(3)
        n_attacks = c1.number_input(
            "Attack targets per attack (0 = every record)",
            0,
            100_000,
            int(params["n_attacks"]),
            100,
            help="Consensus R2: evaluate all records; a sample is faster. Singling out "
            "draws 500 random predicates (2,000 per configuration under the papers' "
            "protocol) unless you set a number here.",
        )
        k = c2.number_input("k-NN: largest k", 1, 20, int(params["k"]))
        radius = c3.number_input(
            "GTCAP radius (min-max scale)", 0.01, 1.0, float(params["radius"]), 0.01
        )
        gtcap_weighting = c3.selectbox(
            "GTCAP: attributions",
            GTCAP_WEIGHTINGS,
            index=GTCAP_WEIGHTINGS.index(params["gtcap_weighting"]),
            format_func=lambda w: {
                "box_pooled": "pooled over records (box)",
                "box_per_record": "mean per synthetic record (eq. 7)",
                "triangular": "triangular weights (reference code)",
            }[w],
            help="A real record matches a synthetic one when every numeric key lies within "
            "the radius (a box, one radius per column) and the categorical keys are "
            "equal. Pooled: every (synthetic, real) match counts once, so a synthetic "
            "record with many matches weighs more. Per record: each synthetic record's "
            "share of correct matches (TCAP, eq. 7), averaged.",
        )
        qis = list(ws.quasi_identifiers)
        a1, a2, a3 = st.columns(3)
        aux_a = a1.multiselect(
            "Linkability: columns of the first source",
            qis,
            default=[c for c in params["aux_a"] if c in qis],
        )
        aux_b = a2.multiselect(
            "Linkability: columns of the second source",
            qis,
            default=[c for c in params["aux_b"] if c in qis],
        )
        seed = a3.number_input("Seed", 0, 2**31 - 1, int(params["seed"]))
        s1, s2, s3 = st.columns(3)
        so_mode = s1.selectbox(
            "Singling out: predicates",
            SINGLING_OUT_MODES,
            index=SINGLING_OUT_MODES.index(params["so_mode"]),
            format_func=lambda m: {
                "multivariate": "multivariate (several columns)",
                "univariate": "univariate (one rare value)",
                "paper": "paper protocol (highest of univariate and 3–12 columns)",
            }[m],
            help="Univariate: 'column == a value seen once in the release' (and the extremes "
            "of numeric columns). Multivariate: a random release row's values on several "
            "columns. Both keep only predicates that isolate one synthetic row. Paper "
            "protocol (risk-insertion and contrastive papers): univariate and every width "
            "from 3 to 12 columns, 2,000 predicates each, the highest risk reported with "
            "an interval that allows for picking the highest; it reads a little above 0 "
            "on a release that leaks nothing.",
        )
        so_cols = s2.number_input(
            "Singling out: columns per multivariate predicate",
            1,
            max(1, len(ws.schema.included)),
            int(params["so_cols"]),
        )
        space = s3.selectbox(
            "Distance space (DCR, k-NN, inference, linkability, singling out)",
            ["shared", "contrastive"],
            index=["shared", "contrastive"].index(params.get("space", "shared")),
            format_func=lambda v: {
                "shared": "shared encoding (min-max, one-hot)",
                "contrastive": "contrastive embedding (learned)",
            }[v],
            help="Shared: distances on range-scaled numbers and category mismatches. "
            "Contrastive: a small torch network trained on the real table to tell "
            "two random maskings of a record apart from other records (Plasencia "
            "Palacios et al.); distances in its embedding weigh columns by how much "
            "they tell records apart. Singling out then builds its predicates around "
            "the release's most isolated records in that embedding (the paper's "
            "SO + CL) instead of random release rows. Trained once per table (seconds "
            "on the demo), kept in memory only.",
        )
        apply = st.form_submit_button("Apply", type="primary")
    error_slot("privacy_form")
    if apply:
        if not aux_a or not aux_b or set(aux_a) & set(aux_b):
            st.error("Linkability needs two non-empty, disjoint column sets.")
        elif commit(
            full.with_settings(
                privacy={
                    "n_attacks": int(n_attacks),
                    "k": int(k),
                    "radius": float(radius),
                    "gtcap_weighting": gtcap_weighting,
                    "seed": int(seed),
                    "aux_a": tuple(aux_a),
                    "aux_b": tuple(aux_b),
                    "so_mode": so_mode,
                    "so_cols": int(so_cols),
                    "space": space,
                }
            ),
            control="privacy_form",
        ):
            st.rerun()

keep("privacy_fast", [n for n in FAST_DEFAULT])
chosen = st.multiselect(
    "Measures",
    PRIVACY_MEASURES,
    key="privacy_fast",
    on_change=remember,
    args=("privacy_fast",),
    format_func=lambda n: MEASURES[n].label,
)
fast = [n for n in chosen if n not in SLOW and available(ws, n)]
slow = [n for n in chosen if n in SLOW and available(ws, n)]
results = cached_results(ws, chosen, params)
small = len(ws.real.frame) * len(ws.releases) <= AUTO_RUN_MAX_CELLS


# Each measure's card appears here as soon as its computation ends, before the next one
# starts (issue 33); the full cards, with their controls, replace them below once all end.
live = st.container()
finished: list[str] = []


def show_when_done(name: str, res: pc.MetricResult) -> None:
    """The finished measure's headline and interval, in the order the measures end."""
    if not finished:
        live.caption("Finished so far (the full cards follow when every measure has ended):")
    with live.container(border=True):
        st.metric(MEASURES[name].label, f"{res.value:.3f}")
        st.caption(card_text(name, res).interval)
    finished.append(name)


def run_with_stop(names: list[str]) -> dict[str, pc.MetricResult]:
    """Measures started by a click: minutes of work on a large table, so a way out. The
    click interrupts the run at the measure's next progress step; the measures finished
    before it are kept (each is cached on its own) and the rest are not computed."""
    stop_slot = st.empty()
    stop_button(
        stop_slot,
        running=True,
        key="privacy_stop",
        help="Ends the run during the measure being computed; the measures already "
        "finished are kept.",
    )
    out = run_measures(ws, names, params, on_result=show_when_done)
    stop_slot.empty()
    return out


# True on the rerun that a click on Stop started
stopped = bool(st.session_state.get("privacy_stop_running"))
if any(n not in results for n in fast):
    if small:
        results.update(run_measures(ws, fast, params, on_result=show_when_done))
    elif st.button("Run fast measures", type="primary"):
        results.update(run_with_stop(fast))
if (
    slow
    and any(n not in results for n in slow)
    and st.button(f"Run slower measures ({', '.join(MEASURES[n].label for n in slow)})")
):
    results.update(run_with_stop(slow))
if stopped:
    missing = [MEASURES[n].label for n in fast + slow if n not in results]
    st.warning(
        "Stopped. "
        + (
            f"Not computed: {', '.join(missing)}; press the button above to compute them. "
            if missing
            else ""
        )
        + "The measures finished before the click are kept and shown below.",
        icon=":material/stop_circle:",
    )
live.empty()  # every measure has ended: the full cards below take their place
if not results:
    st.stop()

# ------------------------------------------------------------------ cards
st.subheader("Results")
keep("privacy_alpha", 2.0)
alpha = st.slider(
    "DCR: alpha (percentile of real-to-real distances, %)",
    0.5,
    20.0,
    step=0.5,
    key="privacy_alpha",
    on_change=remember,
    args=("privacy_alpha",),
    help="A synthetic row counts as 'too close' when it is nearer to a training "
    "row than the alpha-th percentile of holdout-to-training distances.",
)
# cards keep the order of the measure list, however recently each was computed
shown = {
    n: (r.at(alpha=alpha) if n in ("dcr", "knn") and hasattr(r, "at") else r)
    for n, r in sorted(results.items(), key=lambda kv: PRIVACY_MEASURES.index(kv[0]))
}


def reading(name: str, res: pc.MetricResult) -> str:
    spec = MEASURES[name]
    kind = "Indicator (not a disclosure measure)" if name in INDICATORS else "Risk"
    where = (
        ""
        if res.params.get("space") != "contrastive"
        else " Predicates around the release's most isolated records in the contrastive embedding."
        if name == "singling_out"
        else " Distances in the contrastive embedding."
    )
    return f"{kind}; {res.goal} is better. {spec.description}{where}"


calibration = latest_calibration(ws)
if calibration is None:
    h1, h2 = st.columns([3, 1], vertical_alignment="center")
    h1.caption(
        "What do 0 and 1 mean for each measure on *this* data? Calibrate the measures "
        "in the Risk lab: each card then shows its value between what the measure "
        "reads on unseen real rows and on a full copy of your data."
    )
    if h2.button(
        "Calibrate in the Risk lab",
        icon=":material/tune:",
        on_click=open_calibration_view,
        key="privacy_open_calibration",
    ):
        st.switch_page("pages/lab.py")
elif calibration.stopped:
    st.caption(
        "The calibration of the Risk lab was stopped early: measures it did not finish "
        "are marked incomplete."
    )

cols = st.columns(3)
for i, (name, res) in enumerate(shown.items()):
    with cols[i % 3].container(border=True):
        st.metric(
            MEASURES[name].label,
            f"{res.value:.3f}",
            help=reading(name, res) + " " + measure_link(name, "Glossary."),
        )
        text = card_text(name, res)
        st.caption(" · ".join(p for p in (text.interval, text.baseline) if p))
        if name == "singling_out" and "configurations" in res.extra:
            with st.expander("Every configuration of the paper protocol"):
                st.dataframe(
                    [
                        {
                            "configuration": c["label"],
                            "risk": round(c["value"], 3),
                            "interval": fmt_ci(tuple(c["ci"])),
                            "predicates": c["n_queries"],
                            "reported": c["reported"],
                        }
                        for c in res.extra["configurations"]
                    ],
                    hide_index=True,
                )
        if "sdc" in res.extra:
            if res.params.get("weights"):  # F_k: the sum of the declared sampling weights
                st.caption(f"Sampling weights: `{res.params['weights']}` (F_k sums them).")
            with st.expander("sdcMicro's counts on the quasi-identifiers"):
                st.dataframe(pc.sdc_summary(res), hide_index=True)
                st.caption(sdc_caption(name, res))
        if text.uninformative:
            st.badge("uninformative interval", icon=":material/error:", color="orange")
            st.caption(text.uninformative)
        if text.rates:
            st.caption(text.rates)
            st.caption(text.risk_note)
        st.caption(reading(name, res))
        if isinstance(res.extra.get("reading"), str):  # e.g. DOMIAS below 0: no signal
            st.caption(f"Reading: {res.extra['reading']}.")
        if name == "membership" and "sampling_fraction" in res.params:
            prevalence, fallback = membership_note(res)
            st.caption(prevalence)
            if fallback:
                st.badge("arbitrary prevalence", icon=":material/warning:", color="orange")
                st.caption(fallback)
        cal = (
            None
            if calibration is None
            else card_calibration(
                ws,
                calibration,
                name,
                res.value,
                alpha=alpha,
                mode=MEASURES[name].calibration_mode(res.params),
            )
        )
        if cal is not None:
            if cal.status == "uncalibrated":
                st.badge("uncalibrated on this data", icon=":material/warning:", color="orange")
                st.caption(f"**Why:** {cal.reasons}.")
            elif cal.status == "inconclusive":
                st.badge("calibration inconclusive", icon=":material/help:", color="blue")
                st.caption(f"**Why:** {cal.reasons}.")
            elif cal.status == "incomplete":
                st.badge("calibration incomplete", icon=":material/hourglass_top:", color="gray")
            else:
                st.badge("calibrated on this data", icon=":material/check:", color="green")
            st.caption(
                " ".join(p for p in (cal.reading, cal.position) if p)
                + (f" ({'; '.join(cal.caveats)})" if cal.caveats else "")
            )
            if cal.note:
                st.caption(f"*{cal.note}*")

# ------------------------------------------------------------------ distributions
st.subheader("Distributions")
d1, d2 = st.columns(2)
dcr = dcr_result(shown)
if dcr is not None:
    d1.plotly_chart(plots.dcr_histogram(dcr), width="stretch")
    d1.caption(
        "Synthetic-to-training (SRD) vs holdout-to-training (RRD) distances; the line is "
        "the alpha-percentile of RRD. Mass left of it beyond alpha% means copying."
    )
attacks = attack_results(shown, ATTACKS)
if attacks:
    d2.plotly_chart(plots.attack_rates_figure(attacks), width="stretch")
    d2.caption(
        "Attack success on training records vs holdout records (control) vs a random "
        "guess. Risk comes from the gap between training and control."
    )

# ------------------------------------------------------------------ MDS (the method)
real_c = canonical_real(ws.real.fingerprint, ws.overrides, ws)
mds = draw_mds_section(full, real_c)

# ------------------------------------------------------------------ drill-down
st.subheader("Record drill-down")
SHORTLIST = {"at least two measures": 2, "at least one measure": 1}
rapid = rapid_cached(ws, rapid_fit_params(ws))
flag_sources = dict(shown)
if mds is not None:
    flag_sources["mds"] = mds
if rapid is not None:  # at the RAPID page's score and threshold: the same records at risk
    rapid = guarded(partial(rapid_at_page_settings, rapid))
if rapid is not None:
    flag_sources["rapid"] = rapid
flags = guarded(lambda: pc.record_flags(flag_sources, real_c.index))
if flags is not None and len(flags.columns) > 1:
    keep("privacy_shortlist", "at least two measures")
    rule = st.radio(
        "List the records flagged by",
        list(SHORTLIST),
        key="privacy_shortlist",
        horizontal=True,
        on_change=remember,
        args=("privacy_shortlist",),
        help="Each measure has its own false positives, and one flag alone is common; "
        "records that two or more measures flag independently are the few to look at "
        "first. 'At least one measure' lists every flagged record.",
    )
    flagged = pc.flag_shortlist(flags, min_flags=SHORTLIST[rule])
    n_any = int((flags["n_flags"] > 0).sum())
    st.caption(
        f"**{len(flagged):,} of {len(flags):,} real records** are flagged by {rule}"
        + (f" ({n_any:,} by at least one)" if SHORTLIST[rule] > 1 else "")
        + ", most flagged first. Pick one to see its nearest synthetic rows."
        + ("" if rapid is not None else " (Compute RAPID on its page to include it.)")
    )
    table = flagged.join(real_c[list(ws.quasi_identifiers)], how="left")
    st.dataframe(table, width="stretch", height=260)
    if len(flagged):
        # the label reads a column, not `flags`: a lambda does not keep the narrowing of
        # a page-level name (flags is not None here)
        n_flags = flags["n_flags"]
        record = st.selectbox(
            "Record",
            list(flagged.index[:500]),
            key="privacy_record",
            format_func=lambda r: f"record {r} ({n_flags.loc[r]} flags)",
        )
        release_names = [t.name for t in ws.releases]
        rel = st.selectbox(
            "Compare with release",
            range(len(ws.releases)),
            format_func=lambda i: release_names[i],
            key="privacy_release",
        )
        near = guarded(lambda: nearest_records(ws, rel, record))
        if near is not None:
            t, differs = near
            st.dataframe(
                t.style.apply(
                    lambda _: differs.map(
                        lambda d: "background-color: #fde2e1" if d else ""
                    ).to_numpy(),
                    axis=None,
                ).format(precision=3),
                width="stretch",
                hide_index=True,
            )
            hits = [
                MEASURES[c].label if c in MEASURES else c
                for c in flags.columns
                if c != "n_flags" and flags.loc[record, c]
            ]
            st.markdown("**Flagged by:** " + (", ".join(hits) if hits else "none"))
            if rapid is not None:
                rec = rapid.records.set_index("record")
                if record in rec.index:
                    row = rec.loc[record]
                    st.markdown(
                        f"**RAPID:** score {row['score']:.3f} ("
                        f"{'at risk' if row['at_risk'] else 'not at risk'}), "
                        f"predicted `{row['prediction']}` for true `{row['true']}`."
                    )

    if params.get("space") == "contrastive":
        st.markdown("**Where the records sit in the contrastive embedding**")
        points = guarded(lambda: embedding_points(ws, int(params["seed"])))
        if points is not None:
            st.plotly_chart(
                plots.embedding_projection_figure(
                    points, flagged=flags.index[flags["n_flags"] > 0]
                ),
                width="stretch",
            )
            st.caption(
                "Real (grey) and synthetic (blue) records on the first two principal "
                "axes of the learned embedding (at most 2,000 of each); red rings are "
                "real records at least one measure flags. Flagged records inside "
                "a dense synthetic cloud are what a distance attack finds; a projection "
                "keeps only part of the distances, so read it as a picture, not a "
                "measurement."
            )

    # ------------------------------------------------------------------ agreement
    st.subheader("Agreement between measures")
    g1, g2 = st.columns(2)
    g1.plotly_chart(plots.flag_matrix_figure(flags), width="stretch")
    g1.caption("The most-flagged records (rows) and the measures that flag them (red).")
    reasons = pc.flag_agreement_reasons(flags)
    g2.plotly_chart(
        plots.flag_agreement_heatmap(pc.flag_agreement(flags), reasons), width="stretch"
    )
    undefined = [reasons.loc[c, c].split(", so")[0] for c in reasons.index if reasons.loc[c, c]]
    g2.caption(
        "Correlation of per-record flags (phi): do the measures point at the same "
        "people? "
        + (
            f"n/a: {'; '.join(undefined)} — agreement with a measure "
            "whose flags do not vary is undefined."
            if undefined
            else ""
        )
    )
    st.download_button(
        "Download the flag table (record indices and flags only)",
        partial(safe_csv, flags, index=True),
        file_name="record_flags.csv",
        mime="text/csv",
        on_click="ignore",
    )

explanation("privacy")
