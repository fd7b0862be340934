"""What-if: try a mitigation and watch risk and utility move together, before and after."""

from functools import partial

import streamlit as st

import privacy_core as pc
import privacy_core.plots as plots
from privacy_core import MEASURES, MITIGATION_KINDS, Mitigation
from ui.details import details
from ui.glossary import measure_link, term_link
from ui.runner import guarded
from ui.state import get_error, pop_notice, require_workspace
from ui.whatif import (
    ORIGINAL,
    RELEASE_ONLY,
    adopt_as_candidate,
    alternatives,
    back_to_original,
    continue_on_mitigated,
    record_alternative,
    run_whatif,
)

REGENERATORS = {"cart": "CART (synthpop style)", "dp-mst": "DP marginals (MST)"}

st.title("What-if mitigation")
st.caption(
    f"Try a {term_link('mitigation', 'disclosure-control step')} and see what it buys in "
    "privacy and costs in utility; nothing changes until you adopt it."
)

ws = require_workspace()
if notice := pop_notice("whatif"):
    st.success(notice, icon=":material/check_circle:")
if error := get_error("whatif"):
    st.error(error, icon=":material/warning:")
if st.session_state.get(ORIGINAL) is not None:
    st.info("The review runs on mitigated data.", icon=":material/info:")
    st.button(
        "Back to the original data",
        on_click=back_to_original,
        icon=":material/undo:",
        key="whatif_back",
    )
if not ws.releases:
    st.info("Load or generate a synthetic release on *Data & threat model* first.")
    st.stop()

views = ws.candidate_views()
c1, c2 = st.columns([1, 2])
candidate = c1.selectbox("Candidate", list(views), key="whatif_candidate")
view = views[candidate]
kind = c2.radio(
    "Mitigation", list(MITIGATION_KINDS), format_func=MITIGATION_KINDS.get, key="whatif_kind"
)

schema = view.schema
qis = list(view.quasi_identifiers)
numeric_qis = [c for c in qis if c in schema.numeric]
categorical_qis = [c for c in qis if c in schema.categorical]
p1, p2, p3 = st.columns(3)
mitigation = None
if kind == "bin_numeric":
    if not numeric_qis:
        st.info("No numeric quasi-identifier to coarsen.")
    else:
        col = p1.selectbox("Column", numeric_qis, key="whatif_bin_col")
        bins = p2.slider(
            "Bins",
            2,
            20,
            5,
            key="whatif_bins",
            help="Edges at the real table's quantiles; the same bins for every "
            "table, since the attacker then only knows the bin.",
        )
        mitigation = Mitigation("bin_numeric", column=col, bins=bins)
elif kind == "merge_rare":
    if not categorical_qis:
        st.info("No categorical quasi-identifier to merge.")
    else:
        col = p1.selectbox("Column", categorical_qis, key="whatif_merge_col")
        count = p2.number_input(
            "Merge categories with fewer records than", 2, 100_000, 50, key="whatif_min_count"
        )
        mitigation = Mitigation("merge_rare", column=col, min_count=int(count))
elif kind == "suppress_column":
    col = p1.selectbox("Quasi-identifier", qis, key="whatif_suppress_col")
    mitigation = Mitigation("suppress_column", column=col)
elif kind == "suppress_rare":
    k = p1.slider(
        "k (smallest combination kept)",
        2,
        20,
        3,
        key="whatif_k",
        help="Release rows whose quasi-identifier combination appears fewer than k "
        "times in the release are removed. Numeric quasi-identifiers make "
        "nearly every combination rare: coarsen them first. "
        + term_link("k-anonymity", "Glossary: k-anonymity."),
    )
    mitigation = Mitigation("suppress_rare", k=k)
else:
    method = p1.selectbox(
        "Generator",
        list(REGENERATORS),
        key="whatif_method",
        format_func=REGENERATORS.__getitem__,
    )
    if method == "cart":
        leaf = p2.slider(
            "Minimum leaf size",
            1,
            200,
            50,
            key="whatif_leaf",
            help="Larger leaves average over more real records: less memorisation, less detail.",
        )
        mitigation = Mitigation(
            "regenerate", method="cart", generator_params=(("min_leaf", int(leaf)),)
        )
    else:
        eps = p2.select_slider(
            "DP ε",
            [0.1, 0.3, 1.0, 3.0, 10.0],
            1.0,
            key="whatif_eps",
            help="Consensus R9: ε is not the risk; the measures below are. "
            + term_link("DP", "Glossary: differential privacy."),
        )
        mitigation = Mitigation(
            "regenerate", method="dp-mst", generator_params=(("epsilon", float(eps)),)
        )

fast = [
    m
    for m in (
        "rapid",
        "singling_out",
        "linkability",
        "inference",
        "dcr",
        "ims",
        "query_error",
        "discriminator",
        "wasserstein",
    )
    if not MEASURES[m].needs_holdout or view.holdout is not None
]
names = st.multiselect(
    "Measures",
    fast,
    default=["rapid", "singling_out", "dcr", "query_error", "discriminator"],
    format_func=lambda m: MEASURES[m].label,
    key="whatif_measures",
)
seed = int(p3.number_input("Seed", 0, 2**31 - 1, 0, key="whatif_seed"))

if (
    mitigation is not None
    and names
    and st.button("Try it", type="primary", icon=":material/play_arrow:", key="whatif_run")
):
    st.session_state["whatif_result"] = guarded(
        partial(run_whatif, view, candidate, mitigation, names, seed)
    )


def moved_metrics(comparison) -> None:
    """Each measure after the mitigation, its change from before as the delta (green
    when better by the measure's goal), four to a row."""
    rows = list(comparison.itertuples())
    for start in range(0, len(rows), 4):
        cols = st.columns(4)
        for col, row in zip(cols, rows[start : start + 4], strict=False):
            col.metric(
                row.label,
                f"{row.after:.3f}",
                delta=f"{row.change:+.3f}",
                # the change's sign is good or bad by the measure's goal (engine's reading)
                delta_color="off"
                if row.better == "same"
                else "normal"
                if (row.change > 0) == (row.better == "better")
                else "inverse",
                help=f"Before {row.before:.3f}; {row.better}"
                + (" beyond the intervals. " if row.beyond_intervals else " within the intervals. ")
                + measure_link(row.measure, "Glossary."),
            )


result = st.session_state.get("whatif_result")
if result is not None:
    st.subheader(f"{result.candidate}: {result.mitigation.describe()}")
    moved_metrics(result.comparison)
    st.markdown(pc.describe_change(result.comparison))
    for note in result.notes:
        st.caption(note)
    st.plotly_chart(plots.mitigation_figure(result.comparison), width="stretch")
    table = result.comparison.assign(
        before=[
            pc.format_cell({"value": v, "ci": c}, digits=3)
            for v, c in zip(
                result.comparison["before"], result.comparison["before_ci"], strict=True
            )
        ],
        after=[
            pc.format_cell({"value": v, "ci": c}, digits=3)
            for v, c in zip(result.comparison["after"], result.comparison["after_ci"], strict=True)
        ],
        moved=result.comparison["beyond_intervals"].map(
            {True: "beyond the intervals", False: "within the intervals"}
        ),
    )
    st.dataframe(
        table[["label", "family", "before", "after", "change", "better", "moved"]],
        hide_index=True,
        width="stretch",
        column_config={"change": st.column_config.NumberColumn(format="%+.4f")},
    )
    b1, b2 = st.columns(2)
    if b1.button(
        "Record as a considered alternative", icon=":material/playlist_add:", key="whatif_record"
    ):
        n = record_alternative(result)
        st.toast(f"Recorded: the review now lists {n} considered alternative(s).")
    if result.mitigation.kind in RELEASE_ONLY:
        b2.button(
            "Add the mitigated release as a new candidate",
            key="whatif_adopt",
            icon=":material/add_circle:",
            on_click=adopt_as_candidate,
            args=(view, result.mitigation, seed),
            help="The original candidate stays; every page shows both side by side.",
        )
    else:
        b2.button(
            "Continue the review on the mitigated data",
            key="whatif_adopt",
            icon=":material/swap_horiz:",
            on_click=continue_on_mitigated,
            args=(view, result.mitigation, seed),
            help="This mitigation changes what the attacker knows, so the real and "
            "holdout tables change too. The original is kept.",
        )

alts = alternatives()
if alts:
    st.subheader("Considered alternatives in this review")
    st.dataframe(
        [
            {
                "candidate": a["candidate"],
                "mitigation": a["description"],
                **{
                    MEASURES[m].label
                    if m in MEASURES
                    else m: f"{v['before']:.3f} → {v['after']:.3f}"
                    for m, v in a["measures"].items()
                },
            }
            for a in alts
        ],
        hide_index=True,
        width="stretch",
    )
    st.caption("They go into the report and the stored review (aggregates only).")

details(
    "Try a disclosure-control step and see, side by side, what it buys in privacy "
    "and what it costs in fidelity and utility — before deciding. The original data "
    "and results are kept; nothing changes until you adopt a mitigation.",
    "- **Coarsening** and **suppressing a quasi-identifier** change what an attacker can "
    "know, so the same change is applied to the real, holdout and synthetic tables and "
    "every measure is recomputed on them.\n"
    "- **Suppressing rare combinations** removes release rows whose quasi-identifier "
    "combination is rarer than *k* in the release (k-anonymity applied to the release); "
    "**regenerating** fits the generator again with another knob. Both change the "
    "release only.\n"
    "- *Beyond the intervals* means the two 95% intervals do not overlap; a smaller "
    "change may be noise. Similarity indicators (R3) may move the 'wrong' way: coarser "
    "data makes identical matches more likely without disclosing more.",
    terms=("mitigation", "k-anonymity", "95% CI", "R3", "R9"),
)
