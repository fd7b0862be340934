"""Glue for the membership disclosure score section of the Privacy page.

MDS fits shadow generators (minutes on large tables), so it never starts on its own: the
page offers a form, runs it with progress and Stop (``ui.runner.run_stoppable``) and
keeps the result in the shared evaluation cache under the data, threat model and the
form's settings. A stopped run is kept for this session only, read from the shadows it
finished.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import streamlit as st

import privacy_core as pc
from privacy_core.risk.mds import DEFAULT_RECORDS, DEFAULT_SHADOW_MODELS, DEFAULT_SHADOW_SETS

from .cached import scoped_key
from .compute import engine_backend
from .runner import run_stoppable, stoppable_result
from .state import commit
from .widgets import error_slot, explanation, fmt_ci, stop_button
from .workspace import Workspace

PARTIAL = "mds_partial"
# the generators a shadow can be in the app (the DP ones need an epsilon: the CLI has them)
SHADOW_METHODS = {
    "cart": "CART (synthpop-style trees)",
    "autoregressive": "Autoregressive neural network (torch)",
    "histogram": "HISTOGRAM (independent columns)",
}


def mds_settings(ws: Workspace) -> dict[str, Any]:
    stored = ws.setting("mds") or {}
    defaults = {
        "shadow_method": "cart",
        "shadow_models": DEFAULT_SHADOW_MODELS,
        "shadow_sets": DEFAULT_SHADOW_SETS,
        "records": min(DEFAULT_RECORDS, len(ws.real.frame)),
        "seed": 0,
    }
    return {**defaults, **stored}


def mds_key(ws: Workspace, settings: dict[str, Any]) -> str:
    # MDS reads the real table and the holdout only: the releases are not part of the key
    return scoped_key(replace(ws, releases=()), "mds", dict(settings))


def mds_cached(ws: Workspace, settings: dict[str, Any]) -> pc.MdsResult | None:
    return stoppable_result(PARTIAL, mds_key(ws, settings))


def mds_run(ws: Workspace, settings: dict[str, Any], *, area: Any = None) -> pc.MdsResult | None:
    """Fit the shadows with progress and Stop; the (possibly partial) result or None."""
    hold = ws.holdout.frame if ws.holdout is not None else None

    def compute(progress, should_stop, keep_partial) -> pc.MdsResult:
        # the one evaluation path (the registry), as `privacy --metrics mds` and `review`
        # call it; MDS scores the generating method, so the real table stands in for a
        # release (as when the engine is given none)
        result = pc.evaluate(
            ws.real.frame,
            ws.real.frame,
            measures=["mds"],
            holdout=hold,
            schema=ws.schema,
            seed=int(settings["seed"]),
            options={
                "mds": {
                    "shadow_method": settings["shadow_method"],
                    "shadow_models": int(settings["shadow_models"]),
                    "shadow_sets": int(settings["shadow_sets"]),
                    "records": int(settings["records"]),
                    "n_jobs": 1,
                    **engine_backend(),
                    "should_stop": should_stop,
                    "on_partial": keep_partial,
                }
            },
            progress=progress,
        )["mds"]
        assert isinstance(result, pc.MdsResult)  # the registry's MDS returns one
        return result

    return run_stoppable(
        PARTIAL,
        mds_key(ws, settings),
        f"Fitting {int(settings['shadow_models'])} shadow "
        f"{SHADOW_METHODS[settings['shadow_method']].split(' (')[0]} models",
        compute,
        done_label="Membership disclosure score done",
        area=area,
        stopped_message=lambda r: (
            f"Stopped after {r.params['n_shadows_done']} of "
            f"{r.params['shadow_models']} shadow models: the score "
            "below is read from those only. Run again to fit them "
            "all."
        ),
        failure_hint="try fewer shadow models or records.",
    )


def _num(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}f}" if np.isfinite(x) else "n/a"


def draw_mds_section(full: Workspace, real_canonical: Any) -> pc.MdsResult | None:
    """The Privacy page's MDS section: settings form, run with progress and Stop,
    headline against SELF and HALF, the per-record DS distribution and the targeted
    records. Returns the result shown (None before a run), for the record drill-down."""
    st.subheader("Membership disclosure score (shadow models)")
    st.caption(
        "Does one person's presence in the training data change what the generating "
        "method emits near them? MDS retrains the method on halves of your real "
        "table — every record is in half of the shadow models and out of the other "
        "half — and compares each record's distance to what the two groups emit "
        "(Du & Li). It scores the *method*, not the loaded release: choose the "
        "generator your release came from, or the nearest built-in one."
    )
    if full.holdout is None:
        st.info(
            "MDS is read between HALF (a method that emits real records it never saw) "
            "and SELF (a copy). HALF draws from a holdout: load one on the Data page to "
            "compute MDS."
        )
        return None
    settings, result = _run_from_form(full)
    if result is None:
        st.caption(
            f"Not run yet: **Run MDS** fits {settings['shadow_models']} × "
            f"{settings['shadow_sets']} shadow tables (about a minute on 10,000 "
            "rows with CART; the neural network takes longer)."
        )
        return None
    _draw_headline(result)
    if not np.isfinite(result.raw_max):  # no record has both IN and OUT shadows yet
        st.info(
            "Too few shadow models finished for any record to have been both in and "
            "out of their training data: run MDS again to fit them all."
        )
        return result
    _draw_distributions(result)
    _draw_exposed_records(result, real_canonical)
    _draw_run_summary(result.params)
    explanation("mds")
    return result


def _run_from_form(full: Workspace) -> tuple[dict[str, Any], pc.MdsResult | None]:
    """The settings form; on submit, commit its settings and run (or fetch) MDS.

    Returns the settings in force and the result for them (None when never run)."""
    settings = mds_settings(full)
    new, run = _settings_form(settings, len(full.real.frame))
    error_slot("mds_form")
    stop_slot = st.empty()
    result = None
    if run and commit(full.with_settings(mds=new), control="mds_form"):
        settings = new
        result = mds_cached(full, settings)
        if result is None or result.stopped:
            stop_button(
                stop_slot,
                running=True,
                key="mds_stop",
                help="Ends the run after the shadow model being fitted; the score "
                "is then read from the models finished so far.",
            )
            result = mds_run(full, settings)
            stop_slot.empty()  # Stop exists only while the shadows are being fitted
    if result is None:
        result = mds_cached(full, settings)
    return settings, result


def _settings_form(settings: dict[str, Any], n_real: int) -> tuple[dict[str, Any], bool]:
    """The form's controls, preset from ``settings``: the settings they give and whether
    **Run MDS** was pressed."""
    with st.form("mds_form"):
        c1, c2, c3, c4 = st.columns(4)
        method = c1.selectbox(
            "Shadow generator",
            list(SHADOW_METHODS),
            index=list(SHADOW_METHODS).index(settings["shadow_method"]),
            format_func=SHADOW_METHODS.__getitem__,
        )
        models = c2.slider(
            "Shadow models m",
            4,
            40,
            int(settings["shadow_models"]),
            2,
            help="Every record trains m/2 of them. 10 gives a quick reading; "
            "the paper uses up to 80 (bench/bench_mds.py measures the "
            "stability at 10, 20 and 40).",
        )
        sets = c3.slider(
            "Tables per shadow model",
            1,
            5,
            int(settings["shadow_sets"]),
            help="Each emits this many tables the size of its training half; "
            "more tables smooth each distance.",
        )
        records = c4.number_input(
            "Records scored",
            20,
            max(20, n_real),
            min(int(settings["records"]), max(20, n_real)),
            100,
            help="A seeded subsample whose disclosure score is "
            "computed; every record still trains its shadows.",
        )
        run = st.form_submit_button("Run MDS", type="primary", icon=":material/play_arrow:")
    new = {
        **settings,
        "shadow_method": method,
        "shadow_models": int(models),
        "shadow_sets": int(sets),
        "records": int(records),
    }
    return new, run


def _draw_headline(result: pc.MdsResult) -> None:
    """The four headline numbers, the reading, and a note when the run was stopped."""
    lo_hi = fmt_ci(result.ci) if result.ci is not None else "no interval"
    m1, m2, m3, m4 = st.columns(4)
    m1.metric(
        "MDS, relative (0 = HALF, 1 = SELF)",
        _num(result.relative, 3),
        help="Where the method's most exposed records (the top 1 % by DS) sit between "
        "HALF, a method that emits unseen records (0), and SELF, one that copies "
        "its training data (1): (T − T_HALF) / (T_SELF − T_HALF), T their mean DS. "
        "The top 1 % rather than the single max: with few shadow models the max "
        "is mostly noise.",
    )
    m1.caption(f"{lo_hi} (bootstrap over records)")
    m2.metric(
        "MDS (paper: max over records)",
        _num(result.raw_max),
        help="max over records of |mean distance IN − mean distance OUT|, distances "
        "per column on the shared encoding. 0 is ideal.",
    )
    m2.caption(f"SELF {_num(result.self_max)} · HALF {_num(result.half_max)}")
    m3.metric(f"DS, {result.params['quantile']:.0%} quantile", _num(result.raw_quantile))
    m4.metric("DS, mean over records", _num(result.raw_mean))
    st.markdown(f"**Reading:** {result.extra['reading_text']}")
    if result.stopped:
        st.warning(
            f"Partial: {result.params['n_shadows_done']} of "
            f"{result.params['shadow_models']} shadow models were fitted.",
            icon=":material/stop_circle:",
        )


def _draw_distributions(result: pc.MdsResult) -> None:
    """MDS on its HALF–SELF scale and the per-record DS distributions."""
    from privacy_core import plots

    st.plotly_chart(plots.mds_scale_figure(result), width="stretch", key="mds_scale")
    st.plotly_chart(plots.mds_distribution(result), width="stretch", key="mds_dist")
    st.caption(
        "Dashed lines: each distribution's max (the paper's MDS). "
        "Each record's disclosure score DS under the method's shadows (red), HALF "
        "(blue: the noise floor, what shadows that never see the record's neighbours "
        "reach by chance) and SELF (grey: copies). Black ticks: the records an "
        "attacker would target, the top of the distribution."
    )


def _draw_exposed_records(result: pc.MdsResult, real_canonical: Any) -> None:
    """The ten records with the highest DS, beside their real values."""
    records = result.records
    if records is None:  # the engine's MDS always scores records: say so if it did not
        st.info("This MDS result holds no per-record scores: there are no records to list.")
        return
    top = records.sort_values("ds", ascending=False).head(10)
    shown = top.set_index("record")[
        ["ds", "confident", "flagged", "mean_in", "mean_out", "ds_half", "ds_self"]
    ]
    shown = shown.join(real_canonical, how="left")
    st.markdown(
        f"**The most exposed records.** {result.extra['n_flagged']:,} record(s) show "
        "a disclosure the shadows establish beyond the noise floor; they are flagged "
        "in the record drill-down below."
    )
    st.dataframe(shown, width="stretch", height=260)


def _draw_run_summary(p: dict[str, Any]) -> None:
    """What was fitted and scored, and on which sample, for the record."""
    studied = p.get("n_studied", p["n_distinct_records"])
    sample = (
        f" The shadows studied a seeded sample of {studied:,} of them (tables above "
        f"{p['max_rows']:,} distinct records; each shadow trains on half the sample)."
        if studied < p["n_distinct_records"]
        else ""
    )
    st.caption(
        f"{p['shadow_models']} shadow {p['shadow_method']} "
        f"models × {p['shadow_sets']} table(s), "
        f"{p['n_records_evaluated']:,} of "
        f"{p['n_distinct_records']:,} distinct records scored, seed "
        f"{p['seed']}.{sample}"
    )
