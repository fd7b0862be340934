"""History: stored reviews — list, open one read-only, compare two side by side."""

import json
from functools import partial

import pandas as pd
import streamlit as st

import privacy_core as pc
from privacy_core import MEASURES
from ui.details import details
from ui.glossary import term_link
from ui.history import compare, get_review, history_exists, list_reviews, share, shared_with
from ui.identity import current_reviewer
from ui.runner import guarded
from ui.scorecard import draw_stored_checklist, draw_stored_scorecard
from ui.widgets import escape_markdown

# The numbers lead (issue 34): how many reviews, the latest and its decision; what is
# stored and why sits in the expander at the end.
st.title("Review history")
me = current_reviewer()
HISTORY_TEXT = (
    "Reviews saved from *Review & report* (or with `report --db`): aggregates only — "
    "fingerprints of the data, the threat model, every parameter and seed, the "
    "results, the checklist and the decision. Open one read-only, or compare two to "
    "see which numbers moved and what changed."
    + (
        " You see the reviews you saved and those shared with you or your team."
        if me is not None
        else ""
    )
)

if not history_exists():
    st.info(
        "No review has been saved yet: save one on *Review & report* and it appears here.",
        icon=":material/history:",
    )
    st.page_link("pages/report.py", label="Go to Review & report", icon=":material/description:")
    details(HISTORY_TEXT, terms=("fingerprint",))
    st.stop()

reviews = guarded(list_reviews)
if reviews is None:
    st.stop()
if not reviews:
    st.info(
        "No review to show yet: save one on *Review & report*"
        + (", or ask a colleague to share one with you." if me is not None else "."),
        icon=":material/history:",
    )
    details(HISTORY_TEXT, terms=("fingerprint",))
    st.stop()

latest = reviews[-1]
h1, h2, h3 = st.columns(3)
h1.metric("Reviews you can open", len(reviews))
h2.metric("Latest review", f"#{latest.id}", help=f"Saved {latest.created.replace('T', ' ')[:19]}.")
h3.metric("Its decision", latest.decision or "undecided")
st.caption(
    "Stored aggregates only, with each table's "
    f"{term_link('fingerprint')}: open one read-only, or compare two."
)


def _short(fp: str) -> str:
    return fp[:10]


def _share_controls(review_id: int, *, owned: bool) -> None:
    """Who else may read this review; its owner can add a colleague or a team."""
    readers = guarded(lambda: shared_with(review_id)) or []
    shown = ", ".join(r.replace("user:", "").replace("team:", "team ") for r in readers)
    st.text(f"Shared with: {shown}" if shown else "Shared with nobody else.")
    if not owned:
        return
    with st.form(f"share_{review_id}", border=False):
        c1, c2, c3 = st.columns([1, 2, 1], vertical_alignment="bottom")
        kind = c1.radio("Share with", ["a colleague", "a team"], horizontal=True)
        who = c2.text_input("Their sign-in identity (e-mail) or the team's name", max_chars=320)
        if c3.form_submit_button("Share", icon=":material/share:"):
            who = who.strip()
            if kind == "a colleague" and "@" in who:
                who = who.lower()  # identities are e-mails in lower case (ui.identity)
            if not who:
                st.error("Type whom to share with.", icon=":material/warning:")
            elif kind == "a team":
                if guarded(lambda: share(review_id, team=who)) is not None:
                    st.success(f"Review #{review_id} shared with team {escape_markdown(who)}.")
            elif guarded(lambda: share(review_id, user=who)) is not None:
                st.success(f"Review #{review_id} shared with {escape_markdown(who)}.")


table = pd.DataFrame(
    [
        {
            "id": r.id,
            "created": r.created.replace("T", " ")[:19],
            "decision": r.decision,
            "reviewer": r.reviewer or "—",
            **({"saved by": r.owner or "—"} if me is not None else {}),
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
    doc = guarded(lambda: get_review(int(chosen)))
    if doc is not None:
        # everything stored is shown as typed, never as Markdown: a note's image link must
        # not make the next reader's browser fetch an address (a read receipt)
        st.markdown(
            f"**Decision: {escape_markdown(doc.get('decision', 'undecided'))}** · created "
            f"{escape_markdown(doc.get('created', ''))} with "
            f"{escape_markdown(doc['provenance'].get('software', ''))}"
        )
        sign = doc.get("sign_off") or {}
        st.caption(
            f"Reviewer: {escape_markdown(sign.get('reviewer') or 'not given')} · role: "
            f"{escape_markdown(sign.get('role') or 'not given')} · date: "
            f"{escape_markdown(sign.get('date') or '—')}"
        )
        if doc.get("notes"):
            st.text(str(doc["notes"]))
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
        if me is not None:
            _share_controls(
                int(chosen), owned=next(r.owner for r in reviews if r.id == chosen) == me.id
            )
        st.download_button(
            "Download this review (JSON)",
            partial(json.dumps, doc, indent=2, allow_nan=False),
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
        result = guarded(lambda: compare(int(a), int(b)))
        if result is not None:
            (st.success if result.identical_numbers else st.warning)(
                result.summary(), icon=":material/compare_arrows:"
            )
            if result.inputs:
                st.markdown("**What changed in the inputs and settings**")
                st.markdown("\n".join(f"- {escape_markdown(line)}" for line in result.inputs))
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

details(HISTORY_TEXT, terms=("fingerprint", "threat model"))
