"""RAPID page: attribute-inference risk with live thresholds and per-record drill-down."""

import streamlit as st

import privacy_core as pc
import privacy_core.plots as plots
from ui.evaluations import (
    rapid_attribution,
    rapid_cached,
    rapid_calibration,
    rapid_cv,
    rapid_fit_params,
    rapid_references_cached,
    rapid_references_run,
    rapid_run,
    rapid_should_autorun,
    reference_reading,
)
from ui.runner import guarded
from ui.state import commit, keep, remember, require_workspace, set_widget
from ui.widgets import error_slot, explanation, fmt_ci

st.title("RAPID — attribute inference risk")
st.caption(
    "Could an attacker who knows a person's quasi-identifiers learn their sensitive "
    "attribute from the synthetic data? RAPID trains attackers on the release and scores "
    "every real record."
)

ws = require_workspace()
if not ws.releases:
    st.warning("Load or generate a synthetic release first.")
    st.page_link("pages/data.py", label="Go to Data & threat model", icon=":material/table_view:")
    st.stop()

params = rapid_fit_params(ws)
with st.expander("Attack settings (refits the attackers)", expanded=False):
    with st.form("rapid_fit_form"):
        c1, c2, c3 = st.columns(3)
        attackers = c1.multiselect(
            "Attackers", options=list(pc.ATTACKERS), default=list(params["attackers"]),
            format_func=lambda a: pc.ATTACKER_LABELS[a],
            help="Models an attacker could train on the release. Use several: the maximum "
                 "is the conservative reading.")
        n_trees = c2.number_input("Random-forest trees", 50, 2000, int(params["n_trees"]), 50,
                                  help="The paper uses 500 (as ranger's default).")
        bootstrap = c3.number_input("Bootstrap replicates", 0, 2000, int(params["bootstrap"]),
                                    100, help="Percentile bootstrap over real records (no refit). "
                                              "0 uses Wilson intervals only.")
        c4, c5 = st.columns(2)
        subset = c4.number_input(
            "Run on a subset of real records first (0 = all)", 0, len(ws.real.frame),
            int(params["subset"]), 500,
            help="A seeded sample of target records: quick look on large tables.")
        seed = c5.number_input("Seed", 0, 2**31 - 1, int(params["seed"]))
        submitted = st.form_submit_button("Apply and refit", type="primary")
    error_slot("rapid_fit")
    if submitted:
        if not attackers:
            st.error("Choose at least one attacker.")
        else:
            new = {"attackers": tuple(attackers), "n_trees": int(n_trees),
                   "bootstrap": int(bootstrap), "subset": int(subset), "seed": int(seed)}
            if commit(ws.with_settings(rapid_fit=new), control="rapid_fit"):
                st.rerun()

result = rapid_cached(ws, params)
if result is None:
    if rapid_should_autorun(ws, params) or st.button(
            "Compute RAPID", type="primary",
            help="Fits every attacker on every release once; thresholds then update instantly."):
        result = rapid_run(ws, params)
    else:
        st.info(f"{len(ws.real.frame):,} real records × {len(ws.releases)} release(s): press "
                "**Compute RAPID** (or set a subset in the attack settings for a quick look).")
if result is None:
    st.stop()


@st.fragment
def results_panel(base: pc.RapidResult) -> None:
    categorical = base.kind == "categorical"
    c1, c2, c3 = st.columns([2, 1, 1])
    if categorical:
        keep("rapid_method", "marginal")
        method = c2.selectbox(
            "Gain score", list(pc.risk.CATEGORICAL_METHODS), key="rapid_method",
            on_change=remember, args=("rapid_method",),
            help="marginal: the paper's (g−b)/(1−b) with b the class share; conditional: g "
                 "divided by the mean g of the class (the R package's default); nce: "
                 "normalised entropy.")
        hi = 3.0 if method == "conditional" else 1.0
        default = 1.0 if method == "conditional" else 0.3
        key = f"rapid_tau_{method}"
        keep(key, default)
        threshold = c1.slider("Threshold τ: a record is at risk when its gain exceeds τ",
                              0.0, hi, step=0.01, key=key, on_change=remember, args=(key,))
        variant = {"method": method}
    else:
        keep("rapid_error", "relative")
        error = c2.selectbox(
            "Error", list(pc.risk.ERROR_METRICS), key="rapid_error", on_change=remember,
            args=("rapid_error",),
            help="relative |y−ŷ|/(|y|+δ) (paper); absolute in units of y; normalized by the "
                 "SD of y; symmetric 2|y−ŷ|/(|y|+|ŷ|+2δ).")
        scale = base.y_scale if error == "absolute" else 1.0
        key = f"rapid_eps_{error}"
        keep(key, round(0.1 * scale, 4))
        # relative / symmetric ε is a proportion and the engine rejects 1 or more
        proportion = error in ("relative", "symmetric")
        hi = 0.99 if proportion else round(max(1.0, 2 * scale), 4)
        unit = ("a proportion, not a percentage: 0.10 means within 10 % of the true value"
                if proportion else "in units of y" if error == "absolute" else "in SDs of y")
        threshold = c1.slider("Tolerance ε: a record is at risk when the error is below ε",
                              0.0, hi, step=round(0.005 * scale, 6) or 0.005,
                              key=key, on_change=remember, args=(key,),
                              help=f"ε is {unit}. The RAPID paper writes it as a "
                                   "percentage (default 10 %).")
        variant = {"error": error}
    keep("rapid_interval", "bootstrap")
    interval = c3.selectbox("Interval", ["bootstrap", "wilson", "clopper-pearson"],
                            key="rapid_interval", on_change=remember, args=("rapid_interval",))
    r = guarded(lambda: base.at(threshold, interval=interval, **variant))
    if r is None:
        return

    m1, m2, m3 = st.columns(3)
    m1.metric("RAPID (mean of attackers)", f"{r.value:.3f}",
              help="Share of real records at risk, averaged over attackers and releases.")
    m1.caption(fmt_ci(r.ci))
    strongest = r.strongest_attacker
    strongest_label = pc.ATTACKER_LABELS[strongest]
    m2.metric("RAPID max (strongest attacker)", f"{r.rate_max:.3f}",
              help="The strongest attacker's share: the worst case the paper recommends "
                   "reporting (§2.5).")
    m2.caption(fmt_ci(r.ci_max))
    m3.metric("Records at risk (strongest attacker)", f"{r.n_at_risk:,} of {len(r.y_true):,}",
              help="The real records that the strongest attacker (the one with the highest "
                   "RAPID at this threshold) infers confidently: the records behind RAPID "
                   "max, and the ones listed in the per-record table below.")
    m3.caption(f"Strongest attacker: {strongest_label}.")
    if r.replicate_rates.shape[1] > 1:
        per_release = r.replicate_rates.mean(axis=0)
        m3.caption(f"Across {len(per_release)} releases: mean {per_release.mean():.3f} ± "
                   f"{per_release.std(ddof=1):.3f} (sd)")
    rel = "above τ" if categorical else "within ε"
    st.markdown(
        f"At {'τ' if categorical else 'ε'} = **{threshold:.2f}**, attackers trained on the release "
        f"are confidently right ({rel}) about **{r.value:.1%}** of the real people on average, and "
        f"**{r.rate_max:.1%}** with the strongest attacker "
        f"({pc.ATTACKER_LABELS[strongest]}).")
    # filled at the end of the panel: on the first visit the references are fitted after
    # everything else is on screen
    reference_slot = st.container()
    st.dataframe(
        [{"attacker": pc.ATTACKER_LABELS[a], "RAPID": v["value"],
          "95% CI": f"{v['ci'][0]:.3f} – {v['ci'][1]:.3f}"} for a, v in r.by_attacker.items()],
        hide_index=True, width="content")

    cal = rapid_calibration(ws, params, method=r.params["method"], error=r.params["error"],
                            run=False)
    g1, g2 = st.columns([3, 2])
    g1.plotly_chart(plots.rapid_threshold_curve(
        r, suggested=cal.suggested_threshold if cal else None), width="stretch")
    g2.plotly_chart(plots.rapid_score_histogram(r), width="stretch")

    tabs = st.tabs(["By class" if categorical else "By value", "By quasi-identifier",
                    "Attribution", "Calibration", "Synthesizer CV"])
    with tabs[0]:
        if categorical:
            st.caption("Is risk concentrated in one class? The orange mark is the class share b_k "
                       "(what guessing from prevalence alone achieves).")
        else:
            st.caption("Risk across the range of the sensitive value (quartile bands).")
        st.plotly_chart(plots.rapid_by_class_figure(r), width="stretch")
    with tabs[1]:
        col = st.selectbox("Quasi-identifier", list(r.quasi.columns), key="rapid_subgroup")
        st.plotly_chart(plots.rapid_subgroup_figure(r, col), width="stretch")
    with tabs[2]:
        st.caption("Which quasi-identifier levels make a record more likely to be at risk "
                   "(logistic regression of the at-risk flag; positive = riskier), and what the "
                   "attackers relied on (feature importance).")
        coef = guarded(lambda: rapid_attribution(ws, params, r))
        if coef is not None and len(coef):
            st.plotly_chart(plots.rapid_attribution_figure(coef), width="stretch")
        elif coef is not None:
            st.info("Every record has the same flag at this threshold: nothing to attribute.")
        st.plotly_chart(plots.rapid_importance_figure(r), width="stretch")
    with tabs[3]:
        st.caption("Shuffle the sensitive column in the release (so it carries no information "
                   "about the quasi-identifiers), refit, and see which scores appear by chance. "
                   "The suggested threshold flags only 5% of records when nothing leaks.")
        run = st.button("Run permutation calibration (5 refits)", key="rapid_cal_btn")
        cal = rapid_calibration(ws, params, method=r.params["method"], error=r.params["error"],
                                run=run)
        if cal is not None:
            st.metric("Suggested threshold", f"{cal.suggested_threshold:.3f}")
            # a suggested relative epsilon can exceed the slider's range: read it clamped
            at_suggested = float(min(max(cal.suggested_threshold, 0.0), hi))
            st.caption(f"At it, RAPID = {r.at(at_suggested, **variant).value:.3f} "
                       "on this release "
                       f"vs {cal.null_rate(at_suggested):.3f} under the null.")
            st.button("Use the suggested threshold", on_click=set_widget,
                      args=(key, float(min(max(cal.suggested_threshold, 0.0), hi))))
            st.plotly_chart(plots.rapid_null_figure(cal), width="stretch")
    with tabs[4]:
        st.caption("How risky is the *generator*, not just this release? k-fold: synthesise "
                   "from k−1 folds with a built-in generator, attack the held-out fold.")
        c1, c2, c3 = st.columns(3)
        gen = c1.selectbox("Generator", list(pc.GENERATORS), key="rapid_cv_gen")
        leaf = c2.number_input("CART min leaf", 1, 200, 5, key="rapid_cv_leaf")
        k = c3.number_input("Folds k", 2, 10, 5, key="rapid_cv_k")
        run = st.button("Run cross-validation", key="rapid_cv_btn")
        cv = rapid_cv(ws, generator=gen, min_leaf=int(leaf), k=int(k), seed=int(params["seed"]),
                      run=run)
        if cv is not None:
            st.metric("Expected RAPID of the generator", f"{cv.value:.3f}")
            st.caption(f"{fmt_ci(cv.ci)} · sd {cv.extra['sd']:.3f} over {cv.params['k']} folds")
            st.plotly_chart(plots.rapid_cv_figure(cv), width="stretch")

    st.subheader("Per-record results")
    records = r.records
    only = st.checkbox("Show only records at risk", value=True, key="rapid_only_risk")
    shown = records[records["at_risk"]] if only else records
    shown = shown.sort_values("score", ascending=not categorical)
    n_risk = int(records["at_risk"].sum())
    st.caption(f"{n_risk:,} of {len(records):,} records at risk for the strongest attacker "
               f"({strongest_label})" + ("" if only else f"; showing all {len(shown):,}")
               + ". Click a column header to sort. `score` is the strongest attacker's gain "
               "(or error); `score_<attacker>` each attacker's; `share_flagged` the share of "
               "attacker × release fits that flag the record.")
    st.dataframe(shown, hide_index=True, width="stretch", height=360)
    allow = st.checkbox("I want to download the per-record table (it contains real records' "
                        "quasi-identifiers and sensitive values)", key="rapid_allow_download")
    if allow:
        st.download_button("Download per-record table (CSV)", shown.to_csv(index=False),
                           file_name="rapid_records.csv", mime="text/csv")
    with reference_slot:
        references_panel(r, threshold, interval, variant)


def references_panel(r: pc.RapidResult, threshold: float, interval: str,
                     variant: dict) -> None:
    """Is this acceptable? The release's RAPID against a fresh real sample and a copy."""
    refs = rapid_references_cached(ws, params)
    if refs is None and (rapid_should_autorun(ws, params) or st.button(
            "Compare with a fresh real sample (HALF) and a copy (SELF)",
            key="rapid_references_btn",
            help="Fits the same attackers on half of the real rows and on all of them.")):
        refs = rapid_references_run(ws, params)
    if refs is None:
        return
    half = guarded(lambda: refs["half"].at(threshold, interval=interval, **variant))
    copy = guarded(lambda: refs["self"].at(threshold, interval=interval, **variant))
    if half is not None and copy is not None:
        st.markdown(reference_reading(r, half, copy))


results_panel(result)
explanation("rapid")
