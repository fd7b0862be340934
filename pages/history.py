"""History: stored reviews — list, open one read-only, compare two side by side."""

import json
from pathlib import Path

import pandas as pd
import streamlit as st

import privacy_core as pc
from privacy_core import MEASURES
from ui.history import compare, db_url_input, get_review, list_reviews
from ui.runner import guarded
from ui.scorecard import draw_stored_checklist, draw_stored_scorecard

st.title("Review history")
st.caption(
    "Reviews saved from *Review & report* (or with `report --db`): aggregates only — "
    "fingerprints of the data, the threat model, every parameter and seed, the "
    "results, the checklist and the decision. Open one read-only, or compare two to "
    "see which numbers moved and what changed."
)

url = db_url_input()
sqlite_file = url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else None
if sqlite_file is not None and sqlite_file and not Path(sqlite_file).exists():
    st.info(
        f"No review database at `{sqlite_file}` yet: save a review on *Review & report* "
        "and it appears here.",
        icon=":material/history:",
    )
    st.page_link("pages/report.py", label="Go to Review & report", icon=":material/description:")
    st.stop()

reviews = guarded(lambda: list_reviews(url))
if reviews is None:
    st.stop()
if not reviews:
    st.info("The database holds no reviews yet.", icon=":material/history:")
    st.stop()


def _short(fp: str) -> str:
    return fp[:10]


table = pd.DataFrame(
    [
        {
            "id": r.id,
            "created": r.created.replace("T", " ")[:19],
            "decision": r.decision,
            "reviewer": r.reviewer or "—",
            "candidates": ", ".join(r.candidates),
            "RAPID": "; ".join(
                f"{v:.3f}" for c in r.headline.values() if (v := c.get("rapid")) is not None
            )
            or "—",
            "real data": _short(r.real_fingerprint),
            "releases": ", ".join(_short(f) for f in r.synthetic_fingerprints),
            "alternatives": r.n_alternatives,
            "version": r.version,
        }
        for r in reversed(reviews)
    ]
)
st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    column_config={
        "id": st.column_config.NumberColumn(format="%d"),
        "real data": st.column_config.TextColumn(
            help="Content fingerprint of the real table (first 10 "
            "characters): the same file gives the same one."
        ),
    },
)

ids = [r.id for r in reversed(reviews)]
view, diff = st.tabs(["Open one", "Compare two"])
with view:
    chosen = st.selectbox("Review", ids, key="history_open", format_func=lambda i: f"#{i}")
    doc = guarded(lambda: get_review(url, int(chosen)))
    if doc is not None:
        st.markdown(
            f"**Decision: {doc.get('decision', 'undecided')}** · created "
            f"{doc.get('created', '')} with {doc['provenance'].get('software', '')}"
        )
        sign = doc.get("sign_off") or {}
        st.caption(
            f"Reviewer: {sign.get('reviewer') or 'not given'} · role: "
            f"{sign.get('role') or 'not given'} · date: {sign.get('date') or '—'}"
        )
        if doc.get("notes"):
            st.markdown(f"> {doc['notes']}")
        rows = pc.candidate_table(doc)
        st.dataframe(
            [
                {
                    "measure": r["label"] + (" (indicator)" if r["indicator"] else ""),
                    **{
                        c["name"]: pc.format_cell(r["cells"][c["name"]], digits=3)
                        for c in doc["candidates"]
                    },
                    "better": r["goal"],
                }
                for r in rows
            ],
            hide_index=True,
            width="stretch",
        )
        draw_stored_scorecard(doc)
        draw_stored_checklist(doc)
        alts = doc.get("alternatives") or []
        if alts:
            st.subheader("Considered alternatives")
            st.dataframe(pd.json_normalize(alts), hide_index=True, width="stretch")
        st.download_button(
            "Download this review (JSON)",
            json.dumps(doc, indent=2, allow_nan=False),
            file_name=f"review_{chosen}.json",
            mime="application/json",
            on_click="ignore",
        )

with diff:
    if len(ids) < 2:
        st.info("Save a second review to compare two.")
    else:
        c1, c2 = st.columns(2)
        a = c1.selectbox(
            "Earlier review (A)", ids, index=1, key="history_a", format_func=lambda i: f"#{i}"
        )
        b = c2.selectbox(
            "Later review (B)", ids, index=0, key="history_b", format_func=lambda i: f"#{i}"
        )
        result = guarded(lambda: compare(url, int(a), int(b)))
        if result is not None:
            (st.success if result.identical_numbers else st.warning)(
                result.summary(), icon=":material/compare_arrows:"
            )
            if result.inputs:
                st.markdown("**What changed in the inputs and settings**")
                st.markdown("\n".join(f"- {line}" for line in result.inputs))
            m = result.metrics
            shown = pd.DataFrame(
                {
                    "candidate": m["candidate"],
                    "measure": [MEASURES[x].label if x in MEASURES else x for x in m["metric"]],
                    f"#{a}": [
                        pc.format_cell({"value": v, "ci": c}, digits=3)
                        if pd.notna(v)
                        else "not computed"
                        for v, c in zip(m["value_a"], m["ci_a"], strict=True)
                    ],
                    f"#{b}": [
                        pc.format_cell({"value": v, "ci": c}, digits=3)
                        if pd.notna(v)
                        else "not computed"
                        for v, c in zip(m["value_b"], m["ci_b"], strict=True)
                    ],
                    "B − A": m["delta"],
                    "moved": m["moved"].map({True: "moved", False: ""}),
                }
            )
            st.dataframe(
                shown,
                hide_index=True,
                width="stretch",
                column_config={"B − A": st.column_config.NumberColumn(format="%+.4f")},
            )
            st.caption(
                "*moved*: the two 95% intervals do not overlap (a number without an "
                "interval moves with any change)."
            )
