"""Fidelity & utility: how close the release is to the real data, and how useful."""

import streamlit as st

import privacy_core.plots as plots
from privacy_core import EVALUATOR_LABELS, EVALUATORS, WassersteinResult, measure_label
from ui.details import details
from ui.fidelity import (
    ALL_RELEASES,
    METRIC_READINGS,
    can_mla,
    fidelity_params,
    fidelity_run,
    fidelity_should_autorun,
    fidelity_view,
    keep_choice,
    marginal_label,
    overlay_figure,
    reference_caption,
    references_with_results,
    scope_label,
    scope_releases,
    worst_marginals,
)
from ui.glossary import measure_link, term_link
from ui.runner import guarded
from ui.state import commit, keep, remember, require_workspace
from ui.widgets import candidate_picker, error_slot, fmt_ci

PAIR_MAP_MAX_COLUMNS = 40  # columns drawn in the pair heatmap (1,600 cells)
HEADLINE = ("wasserstein", "mla", "query_error", "discriminator")
INTRO = (
    "Does the release look like the real data, and is it as useful? Distances between "
    "real and synthetic marginals, models trained on the release, counting queries, and a "
    "classifier that tries to tell real from synthetic — each next to two references: "
    "HALF (a second sample of real data: the best to expect) and HISTOGRAM (independent "
    "columns: the floor a useful generator must beat)."
)

# The page leads with the four numbers and one sentence (issue 34): the settings and the
# releases evaluated come after them, the longer explanations in expanders.
st.title("Fidelity & utility")

full = require_workspace()
if not full.releases:
    st.warning("Load or generate a synthetic release first.")
    st.page_link("pages/data.py", label="Go to Data & threat model", icon=":material/table_view:")
    st.stop()
ws = candidate_picker(full)  # one candidate's releases; settings are committed on `full`

# ------------------------------------------------------------------ controls
params = fidelity_params(ws)


def settings_form() -> None:
    """Rows, evaluators, bootstrap and seed: a form that recomputes on Apply."""
    with st.expander("Settings (recomputes the measures they affect)", expanded=False):
        settings_fields()


def settings_fields() -> None:
    with st.form("fidelity_form"):
        c1, c2, c3, c4 = st.columns(4)
        max_rows = c1.number_input(
            "Rows for 2-way numeric marginals",
            100,
            100_000,
            int(params["max_rows"]),
            500,
            help="Exact optimal transport grows with the square of the rows: tables longer "
            "than this are compared on a seeded subsample for the marginals that need "
            "it. 1-way and categorical marginals always use every row.",
        )
        evaluators = c2.multiselect(
            "ML affinity evaluators",
            list(EVALUATORS),
            default=list(params["evaluators"]),
            format_func=lambda e: EVALUATOR_LABELS[e],
            help="Models trained on real and on synthetic data, tested on the holdout.",
        )
        bootstrap = c3.number_input(
            "Bootstrap replicates",
            0,
            2000,
            int(params["bootstrap"]),
            100,
            help="For the intervals (no refit).",
        )
        seed = c4.number_input("Seed", 0, 2**31 - 1, int(params["seed"]))
        submitted = st.form_submit_button("Apply", type="primary")
    error_slot("fidelity_settings")
    if submitted:
        if not evaluators:
            st.error("Choose at least one evaluator.")
        else:
            new = {
                "max_rows": int(max_rows),
                "evaluators": tuple(evaluators),
                "bootstrap": int(bootstrap),
                "seed": int(seed),
            }
            if commit(full.with_settings(fidelity=new), control="fidelity_settings"):
                st.rerun()


scopes = ([ALL_RELEASES] if len(ws.releases) > 1 else []) + list(range(len(ws.releases)))
keep_choice("fid_scope", scopes, scopes[0])
scope = st.session_state["fid_scope"]  # its selectbox is drawn below the numbers
idx = scope_releases(ws, scope)


def controls() -> None:
    """The settings and the releases evaluated, under the numbers they set."""
    settings_form()
    st.selectbox(
        "Evaluate",
        scopes,
        key="fid_scope",
        on_change=remember,
        args=("fid_scope",),
        format_func=lambda s: scope_label(ws, s),
        help="Several releases of one generator are replicates: every measure is averaged "
        "over them and the interval reflects their spread. Or pick one release. "
        + term_link("replicate", "Glossary: replicate."),
    )


view = fidelity_view(ws, params, idx)
# the numbers lead: drawn into this slot once computed, above the computation's progress
lead = st.container()
with_refs = references_with_results(ws)
missing_results = [m for m in view.missing if m.startswith("release:")]
if missing_results or (with_refs and view.missing):
    if fidelity_should_autorun(ws, idx) or st.button(
        "Compute fidelity & utility",
        type="primary",
        icon=":material/play_arrow:",
        help="Wasserstein over every 1- and 2-way marginal, ML affinity, query error and "
        "the discriminator" + (", plus the HALF / HISTOGRAM references." if with_refs else "."),
    ):
        fidelity_run(ws, params, idx, references=with_refs)
        view = fidelity_view(ws, params, idx)
    else:
        st.info(
            f"{len(ws.real.frame):,} real records × {len(idx)} release(s): press "
            "**Compute fidelity & utility** (or lower *Rows for 2-way numeric marginals* "
            "in the settings for a quicker look)."
        )
for label, message in view.failed.items():
    st.error(
        f"{label}: {message} (Results are kept per setting: change a setting, e.g. the "
        "seed, to try again.)",
        icon=":material/warning:",
    )
results, baselines = view.results, view.baselines
if not results:
    controls()
    details(INTRO, topic="fidelity", terms=("HALF", "HISTOGRAM"))
    st.stop()
# ------------------------------------------------------------------ headline
cols = lead.columns(4)
for col, metric in zip(cols, HEADLINE, strict=True):
    res = results.get(metric)
    if res is None:
        if metric == "mla" and not can_mla(ws):
            col.metric(measure_label(metric), "—", help="Needs a holdout of real rows.")
            col.caption("Load a holdout (real rows the generator never saw) to compute it.")
        continue
    col.metric(
        measure_label(metric),
        f"{res.value:.3f}",
        help=METRIC_READINGS[metric] + ". " + measure_link(metric, "Glossary."),
    )
    if res.ci is not None:
        col.caption(fmt_ci(res.ci))
    elif metric == "wasserstein":
        col.caption("No interval for one release: the interval is over replicates.")
    col.caption(METRIC_READINGS[metric])
    ref = reference_caption(metric, baselines)
    if ref:
        col.caption(ref)
lead.caption(
    "How close the release is to the real data and how useful, each against "
    f"{term_link('HALF')} (the best to expect) and {term_link('HISTOGRAM')} (the floor)."
    + (
        f" Averaged over {len(idx)} releases treated as replicates of one generator."
        if len(idx) > 1
        else ""
    )
)
for note in view.notes:  # what qualifies the numbers, right under them
    lead.warning(note)
controls()
if not with_refs and any(m.startswith("baseline:") for m in view.missing):
    st.info(
        f"With {len(ws.real.frame.columns):,} columns the HALF / HISTOGRAM references "
        "(what a fresh real sample and independent columns would score) are computed on "
        "request: they take about twice as long again as the results above.",
        icon=":material/compare:",
    )
    if st.button("Compute the references", icon=":material/play_arrow:"):
        fidelity_run(ws, params, idx, references=True)
        st.rerun()  # the numbers above then show the references too

with st.container(border=True):
    st.markdown("**Against the references** — whiskers are 95% intervals")
    st.plotly_chart(
        plots.fidelity_reference_figure(
            {
                scope_label(ws, scope) if len(idx) == 1 else f"{len(idx)} replicates": results,
                **{k: v for k, v in baselines.items() if v},
            }
        ),
        width="stretch",
    )
    details(
        "HALF and HISTOGRAM compare two halves of the real table (n/2 rows each): "
        "they carry more sampling noise than the release, which is compared with the "
        "whole table. On small tables read them as approximate.",
        terms=("HALF", "HISTOGRAM", "95% CI"),
    )

# ------------------------------------------------------------------ details
tabs = st.tabs(["Marginals", "ML affinity", "Query error", "Discriminator"])
with tabs[0]:
    wres = results.get("wasserstein")
    if not isinstance(wres, WassersteinResult):
        st.info("Wasserstein fidelity is not computed.")
    else:
        p = wres.params
        sub = p["n_subsampled_marginals"]
        st.caption(
            f"{p['n_marginals']} marginals (1-way and 2-way). "
            + (
                f"{sub} of them were computed on a seeded {p['subsample_rows']['real']:,}-row "
                "subsample per table (change it in the settings)."
                if sub
                else "All computed on every row."
            )
            + (
                f" With {len(wres.columns):,} columns, {p['n_pairs_scored']:,} of the "
                f"{p['n_pairs_total']:,} column pairs were scored (a seeded sample); the "
                "interval includes that sampling."
                if p.get("n_pairs_scored", 0) < p.get("n_pairs_total", 0)
                else ""
            )
        )
        g1, g2 = st.columns([3, 2])
        with g1:
            st.markdown("**2-way marginal distances** (darker = farther from the real data)")
            if len(wres.columns) <= PAIR_MAP_MAX_COLUMNS:
                st.plotly_chart(plots.fidelity_pair_heatmap(wres), width="stretch")
            else:  # a map of millions of cells says nothing and stalls the browser
                st.caption(
                    f"Not drawn for {len(wres.columns):,} columns (at most "
                    f"{PAIR_MAP_MAX_COLUMNS}): the worst marginals below show where the "
                    "release is farthest."
                )
        with g2:
            st.markdown("**By family** (each dot a marginal)")
            st.plotly_chart(plots.fidelity_family_figure(wres), width="stretch")

        st.markdown("**The worst marginals** — pick one to see real against synthetic")
        c1, c2 = st.columns([2, 3])
        keep("fid_ways", "all")
        ways = c1.radio(
            "Marginals",
            ["all", "1-way", "2-way"],
            key="fid_ways",
            on_change=remember,
            args=("fid_ways",),
            horizontal=True,
        )
        n_ways = None if ways == "all" else int(ways[0])
        worst = worst_marginals(wres, 15, n_ways)
        options = worst["marginal"].tolist()
        distances = dict(zip(worst["marginal"], worst["distance"], strict=True))
        keep_choice("fid_overlay", options, options[0])
        chosen = c1.selectbox(
            "Marginal to draw",
            options,
            key="fid_overlay",
            on_change=remember,
            args=("fid_overlay",),
            format_func=lambda m: marginal_label(m, distances.get(m)),
        )
        release = idx[0]
        if len(idx) > 1:
            release = c1.selectbox(
                "Release drawn",
                list(idx),
                key="fid_overlay_release",
                format_func=lambda i: ws.releases[i].name,
            )
        keep("fid_bins", 20)
        bins = c1.select_slider(
            "Bins for numeric columns",
            [10, 15, 20, 30, 50],
            key="fid_bins",
            on_change=remember,
            args=("fid_bins",),
        )
        c2.plotly_chart(plots.fidelity_worst_marginals(wres, 15, ways=n_ways), width="stretch")
        fig = guarded(lambda: overlay_figure(ws, release, chosen, bins=bins))
        if fig is not None:
            st.plotly_chart(fig, width="stretch", key="fid_overlay_chart")
        st.caption(
            "Shares of records: histograms (numeric), bar charts (categorical) or joint "
            "heatmaps (pairs, with synthetic − real on the right: red = too many "
            "synthetic records there, blue = too few)."
        )
        with st.expander("All marginals (table)"):
            st.dataframe(wres.records, hide_index=True, width="stretch", height=320)

with tabs[1]:
    mres = results.get("mla")
    if mres is None:
        st.info(
            "ML affinity needs a holdout of real rows the generator never saw and a "
            "target (the threat model's sensitive attribute). Load a holdout on the "
            "*Data & threat model* page."
        )
    else:
        st.caption(
            f"Evaluators predict **{mres.params['target']}** from the other columns, trained "
            "once on the real table and once on the release, both tested on the real "
            f"holdout ({mres.params['n_holdout']:,} rows). The gap is |real − synthetic| / "
            "real: lower is better, 0 = as useful as the real data."
        )
        st.plotly_chart(plots.utility_by_evaluator(mres), width="stretch")
        st.dataframe(mres.records, hide_index=True, width="stretch")

with tabs[2]:
    qres = results.get("query_error")
    if qres is not None:
        by_way = qres.extra.get("by_way", {})
        st.caption(
            "Random counting queries (ranges on numerics, level sets on categoricals) over "
            "1, 2 and 3 columns: |real share − synthetic share| per query. Lower is better. "
            + " · ".join(f"{k}-way mean {v:.4f}" for k, v in by_way.items())
        )
        st.plotly_chart(plots.query_error_figure(qres), width="stretch")
        if qres.records is not None:
            worst_q = qres.records.sort_values("error", ascending=False).head(20)
            st.markdown("**Queries with the largest error**")
            st.dataframe(worst_q, hide_index=True, width="stretch")

with tabs[3]:
    dres = results.get("discriminator")
    if dres is not None:
        st.caption(
            f"A gradient-boosting classifier tries to tell real from synthetic records. AUC "
            f"{dres.value:.3f} ({fmt_ci(dres.ci)}): 0.5 = indistinguishable, 1 = every "
            f"record told apart. Accuracy {dres.extra.get('accuracy', float('nan')):.3f}. "
            "An AUC clearly below 0.5 is a warning sign of copied records, not of fidelity."
        )
        st.plotly_chart(plots.discriminator_importance(dres), width="stretch")

details(INTRO, topic="fidelity", terms=("HALF", "HISTOGRAM", "replicate"))
