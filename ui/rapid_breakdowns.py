"""The RAPID page's breakdown tabs, drawn at the threshold the page's slider sets.

Score distribution, risk by class and by quasi-identifier, attribution, the
permutation calibration, the synthesizer cross-validation, the attackers and members
against non-members: one private drawing step per tab. The tabs are lazy (only the open
one runs), so a slider step neither refits the attribution nor redraws hidden figures
(issue 13, item 5).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import streamlit as st

import privacy_core as pc
import privacy_core.plots as plots
from privacy_core import DEFAULT_PERMUTATIONS, LABEL_PERMUTATIONS

from .evaluations import rapid_attribution, rapid_calibration, rapid_cv
from .runner import guarded
from .state import remember, set_widget
from .widgets import fmt_ci
from .workspace import Workspace


def detail_tabs(
    r: pc.RapidResult,
    ws: Workspace,
    params: dict,
    categorical: bool,
    key: str,
    hi: float,
    variant: dict,
) -> None:
    """The breakdown tabs, drawn only while their section is open.

    Parameters
    ----------
    r
        RAPID at the page's threshold, score and interval.
    ws, params
        The candidate's workspace and RAPID's fit settings (the cache keys of the
        attribution, the calibration and the cross-validation).
    categorical
        Whether the sensitive attribute is a category (gain and τ) or a number (error
        and ε).
    key, hi
        The threshold slider's widget key and upper end: the calibration's *Use the
        suggested threshold* sets the slider, clamped to its range.
    variant
        ``{"method": ...}`` or ``{"error": ...}``, passed on to ``RapidResult.at``.
    """
    # lazy tabs: only the open one runs, so a slider step does not refit the attribution
    # or redraw hidden figures (issue 13, item 5)
    tabs = st.tabs(
        [
            "Score distribution",
            "By class" if categorical else "By value",
            "By quasi-identifier",
            "Attribution",
            "Calibration",
            "Synthesizer CV",
            "Attackers",
            "Members vs non-members",
        ],
        key="rapid_tabs",
        on_change="rerun",
    )
    # one drawing step per tab, in the tabs' order
    tab_contents = [
        partial(_score_distribution_tab, r),
        partial(_by_class_tab, r, categorical),
        partial(_by_quasi_identifier_tab, r),
        partial(_attribution_tab, r, ws, params),
        partial(_calibration_tab, r, ws, params, key, hi, variant),
        partial(_synthesizer_cv_tab, ws, params),
        partial(_attackers_tab, r),
        partial(_members_panel, r),
    ]
    for tab, draw in zip(tabs, tab_contents, strict=True):
        with tab:
            if tab.open:
                draw()


def _score_distribution_tab(r: pc.RapidResult) -> None:
    """Every record's score for the strongest attacker, cut at the slider."""
    st.caption(
        "Every real record's score for the strongest attacker (gain for a category, "
        "error for a number) and where the slider cuts it."
    )
    st.plotly_chart(plots.rapid_score_histogram(r, spec=True), width="stretch")


def _by_class_tab(r: pc.RapidResult, categorical: bool) -> None:
    """Risk per class of the sensitive attribute (per quartile band of a number)."""
    if categorical:
        st.caption(
            "Is risk concentrated in one class? The orange mark is the class "
            "share b_k "
            "(what guessing from prevalence alone achieves)."
        )
    else:
        st.caption("Risk across the range of the sensitive value (quartile bands).")
    st.plotly_chart(plots.rapid_by_class_figure(r), width="stretch")


def _by_quasi_identifier_tab(r: pc.RapidResult) -> None:
    """Risk across the levels of one quasi-identifier, chosen here."""
    col = st.selectbox("Quasi-identifier", list(r.quasi.columns), key="rapid_subgroup")
    st.plotly_chart(plots.rapid_subgroup_figure(r, col), width="stretch")


def _attribution_tab(r: pc.RapidResult, ws: Workspace, params: dict) -> None:
    """What makes a record at risk, and what the attackers relied on."""
    st.caption(
        "Which quasi-identifier levels make a record more likely to be at risk "
        "(logistic regression of the at-risk flag; positive = riskier), and "
        "what the "
        "attackers relied on (feature importance)."
    )
    coef = guarded(lambda: rapid_attribution(ws, params, r))
    if coef is not None and len(coef):
        st.plotly_chart(plots.rapid_attribution_figure(coef), width="stretch")
    elif coef is not None:
        st.info("Every record has the same flag at this threshold: nothing to attribute.")
    st.plotly_chart(plots.rapid_importance_figure(r), width="stretch")


def _calibration_tab(
    r: pc.RapidResult, ws: Workspace, params: dict, key: str, hi: float, variant: dict
) -> None:
    """The permutation calibration: its rule and null, a run, and the suggested threshold
    (a button sets the slider under ``key`` to it, clamped to ``hi``)."""
    rule, permute, n_perm = _calibration_controls()
    labels = rule == "null-rapid" and permute == "labels"
    run = st.button(
        f"Run permutation calibration ({int(n_perm)} {'permutations' if labels else 'refits'})",
        key="rapid_cal_btn",
    )
    cal = rapid_calibration(
        ws,
        params,
        method=r.params["method"],
        error=r.params["error"],
        run=run,
        rule=rule,
        permute=permute,
        result=r,
        n_permutations=int(n_perm),
    )
    if run and cal is not None and rule == "null-rapid":
        # the threshold plot above was drawn before this run: redraw it with the null band
        st.rerun()
    if cal is not None:
        _draw_suggestion(cal, r, key, hi, variant)


def _calibration_controls() -> tuple[str, str, int]:
    """The calibration's rule, its null and the number of permutations, with the caption
    that describes the chosen rule."""
    rules = {
        "null-rapid": "Paper (§2.5): null distribution of RAPID",
        "pooled-scores": "Earlier rule: pooled per-record null scores",
    }
    c_rule, c_perm = st.columns([2, 1])
    rule = c_rule.radio(
        "Calibration rule",
        list(rules),
        format_func=rules.get,
        key="rapid_cal_rule",
        on_change=remember,
        args=("rapid_cal_rule",),
    )
    permutes = {
        "release": "Refit on releases with y shuffled (recommended)",
        "labels": "Shuffle the real labels against the fitted attackers (fast)",
    }
    permute = "release"
    if rule == "null-rapid":
        permute = c_rule.radio(
            "Null",
            list(permutes),
            format_func=permutes.get,
            key="rapid_cal_permute",
            on_change=remember,
            args=("rapid_cal_permute",),
            help="Refitting gives the RAPID of a release whose sensitive column carries "
            "no information. Shuffling the real labels (the authors' R code) skips "
            "the refits but misses the chance agreement of a model fitted to noise, "
            "so it finds 'significant' thresholds even for independent marginals.",
        )
    labels = rule == "null-rapid" and permute == "labels"
    default_perm = LABEL_PERMUTATIONS if labels else DEFAULT_PERMUTATIONS[rule]
    n_perm = c_perm.number_input(
        "Permutations",
        20 if rule == "null-rapid" else 1,
        999,
        default_perm,
        key=f"rapid_cal_perm_{rule}_{permute}",
        help="null-rapid: at least 20 (refits of the page's attackers, or shuffles of "
        "the real labels). pooled-scores: refits of a random forest.",
    )
    if rule == "null-rapid":
        st.caption(
            "The paper's rule (§2.5): recompute the headline RAPID (strongest "
            "attacker) at each threshold with the sensitive attribute permuted, "
            "and suggest the largest threshold at which the observed RAPID is "
            "still above the 95th percentile of this null (as the authors' "
            "`rapid_threshold_select`). The threshold plot above then shows the "
            "null RAPID and its band."
        )
    else:
        st.caption(
            "The earlier rule: shuffle the sensitive column in the release, refit "
            "a random forest, pool the per-record null scores and take their 95th "
            "percentile: a release that leaks nothing flags about 5% of records "
            "there. It calibrates per-record scores, not RAPID itself."
        )
    return rule, permute, n_perm


def _draw_suggestion(
    cal: pc.RapidCalibration, r: pc.RapidResult, key: str, hi: float, variant: dict
) -> None:
    """The calibration's suggested threshold and RAPID there against its null, or a
    note that no threshold is significant; then the null figure."""
    if not np.isfinite(cal.suggested_threshold):
        st.info(
            "No threshold on the grid is significant: the release's RAPID is nowhere "
            "above the 95th percentile of the permutation null, so the attackers do "
            "no better than predictions unrelated to the truth."
        )
        st.plotly_chart(plots.rapid_null_figure(cal), width="stretch")
        return
    st.metric("Suggested threshold", f"{cal.suggested_threshold:.3f}")
    # a suggested relative epsilon can exceed the slider's range: read it clamped
    at_suggested = float(min(max(cal.suggested_threshold, 0.0), hi))
    null_text = (
        f"the null's 95th percentile {cal.null_rate(at_suggested):.3f}"
        if cal.rule == "null-rapid"
        else f"{cal.null_rate(at_suggested):.3f} under the null"
    )
    shown = r.at(at_suggested, **variant)
    st.caption(
        f"At it, RAPID = {shown.rate_max:.3f} (strongest attacker) on this release vs {null_text}."
    )
    st.button("Use the suggested threshold", on_click=set_widget, args=(key, at_suggested))
    st.plotly_chart(plots.rapid_null_figure(cal), width="stretch")


def _synthesizer_cv_tab(ws: Workspace, params: dict) -> None:
    """The generator's expected RAPID by k-fold synthesis, run on request."""
    st.caption(
        "How risky is the *generator*, not just this release? k-fold: synthesise "
        "from k−1 folds with a built-in generator, attack the held-out fold."
    )
    c1, c2, c3 = st.columns(3)
    gen = c1.selectbox("Generator", list(pc.GENERATORS), key="rapid_cv_gen")
    leaf = c2.number_input("CART min leaf", 1, 200, 5, key="rapid_cv_leaf")
    k = c3.number_input("Folds k", 2, 10, 5, key="rapid_cv_k")
    run = st.button("Run cross-validation", key="rapid_cv_btn")
    cv = rapid_cv(
        ws, generator=gen, min_leaf=int(leaf), k=int(k), seed=int(params["seed"]), run=run
    )
    if cv is not None:
        st.metric("Expected RAPID of the generator", f"{cv.value:.3f}")
        st.caption(f"{fmt_ci(cv.ci)} · sd {cv.extra['sd']:.3f} over {cv.params['k']} folds")
        st.plotly_chart(plots.rapid_cv_figure(cv), width="stretch")


def _attackers_tab(r: pc.RapidResult) -> None:
    """Each attacker's RAPID beside its accuracy (R²)."""
    st.caption(
        "Each attacker's RAPID next to its accuracy on the real records (R² for a "
        "continuous attribute), as in the paper's Table 1 and Fig. 5a: a "
        "confidently-right share close to the accuracy means the attacker is sure "
        "whenever it is right."
    )
    st.plotly_chart(plots.rapid_attackers_figure(r), width="stretch")


def _members_panel(r: pc.RapidResult) -> None:
    """The same attackers on the training records and on holdout records (consensus R7)."""
    gap, control = r.members_vs_non_members(), r.control
    if gap is None or control is None:  # both None together: no holdout was loaded
        st.info(
            "Load a holdout (real records the generator never saw) on the Data page to "
            "compare members with non-members: the difference is what the release "
            "discloses about the people in it beyond what the population's patterns "
            "allow anyone to infer."
        )
        return
    st.caption(
        "RAPID asks how many real people an attacker infers confidently. Part of "
        "that is the population's own pattern, which a release *should* carry: the "
        "same attackers infer it about people who were never in the training data. "
        "The difference between members and non-members is what the release "
        "discloses about its members beyond that."
    )
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Members (training records)", f"{gap['members']['value']:.3f}")
    c1.caption(fmt_ci(gap["members"]["ci"]))
    c2.metric("Non-members (holdout)", f"{gap['non_members']['value']:.3f}")
    c2.caption(fmt_ci(gap["non_members"]["ci"]) + f" · {gap['n_non_members']:,} records")
    c3.metric("Difference", f"{gap['difference']['value']:+.3f}")
    c3.caption(fmt_ci(gap["difference"]["ci"]) + f" ({gap['difference']['interval']})")
    c4.metric(
        "Relative",
        f"{gap['relative']['value']:.2f}",
        help="(members − non-members) / (1 − non-members): 0 when the release says no "
        "more about its members than about anyone, 1 for a copy of the members.",
    )
    c4.caption(fmt_ci(gap["relative"]["ci"]))
    st.plotly_chart(plots.rapid_members_figure(r), width="stretch")
    st.markdown(
        "**Non-members the attackers still infer confidently** (the population's "
        "pattern, not a leak of these people):"
    )
    st.dataframe(control.records_top(200), hide_index=True, width="stretch", height=260)
