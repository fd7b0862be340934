"""Glue for the scorecard (Overview) and the consensus checklist (Review & report).

Thresholds and the reviewer's checklist answers are session settings: plain session-state
entries (not widget keys, which Streamlit forgets on pages that do not draw them), read by
both pages and by the export. The cards read results already computed (``candidate_results``
looks caches up; it never starts a computation).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

import privacy_core as pc
from privacy_core.checklist import REVIEWER_QUESTIONS, STATUSES, Checklist
from privacy_core.measures import MEASURES, QUICK_REVIEW
from privacy_core.report import reference_reading
from privacy_core.scorecard import (
    DEFAULT_THRESHOLDS,
    LEVEL_WORDS,
    CandidateVerdict,
    Card,
    Threshold,
    scorecard,
    user_threshold,
    verdict_of,
)

from .glossary import glossary_links, measure_link, term_link
from .state import keep, keep_shared, mirror, remembered
from .widgets import escape_markdown
from .workspace import Workspace

THRESHOLDS = "review_thresholds"  # {measure: (amber, red)} changed by the reviewer
SET_BY = "review_thresholds_set_by"
ANSWER_PREFIX = "review_answer_"

PAGE_FILES = {
    "rapid": "pages/rapid.py",
    "privacy": "pages/privacy.py",
    "fidelity": "pages/fidelity.py",
}
_BADGE = {
    "green": ":green-badge[:material/check_circle: below the lines]",
    "amber": ":orange-badge[:material/error: over the amber line]",
    "red": ":red-badge[:material/cancel: over the red line]",
    "inconclusive": ":blue-badge[:material/help: inconclusive]",
    "uninformative": ":gray-badge[:material/block: uninformative here]",
    "none": ":gray-badge[:material/pending: not computed]",
}
_VERDICT = {
    "below": ":green-badge[:material/check_circle: below the lines]",
    "above": ":red-badge[:material/cancel: above a line]",
    "inconclusive": ":blue-badge[:material/help: inconclusive]",
}
_STATUS_BADGE = {
    "met": ":green-badge[met]",
    "not met": ":red-badge[not met]",
    "needs reviewer": ":orange-badge[needs reviewer]",
    "not applicable": ":gray-badge[not applicable]",
}


def thresholds() -> dict[str, Threshold]:
    """The thresholds in force: the defaults with the reviewer's changes."""
    changed = st.session_state.get(THRESHOLDS, {})
    return {
        m: user_threshold(m, *changed[m]) if m in changed else t
        for m, t in DEFAULT_THRESHOLDS.items()
    }


def thresholds_set_by() -> str:
    return str(remembered(SET_BY, ""))


def _label(measure: str) -> str:
    if measure == "rapid_relative":
        return "RAPID members minus non-members (relative)"
    return MEASURES[measure].label if measure in MEASURES else measure


def thresholds_editor() -> None:
    """A table of every measure's amber and red lines; edits are validated and kept."""
    keep_shared(SET_BY, "")
    st.text_input(
        "Thresholds set by",
        key=SET_BY,
        on_change=mirror,
        args=(SET_BY,),
        placeholder="e.g. the data access committee, policy 2026-04",
        help="Consensus R8: say who set the thresholds and on what precedent. It "
        "goes into the report and the checklist. " + glossary_links("R8", "amber and red lines"),
    )
    current = thresholds()
    table = pd.DataFrame(
        [
            {
                "measure": _label(m),
                "key": m,
                "amber from": t.amber,
                "red from": t.red,
                "basis": t.basis,
            }
            for m, t in current.items()
        ]
    )
    edited = st.data_editor(
        table,
        hide_index=True,
        width="stretch",
        key="review_thresholds_editor",
        disabled=["measure", "key", "basis"],
        column_order=["measure", "amber from", "red from", "basis"],
        column_config={
            "amber from": st.column_config.NumberColumn(min_value=0.0, max_value=1.0, step=0.01),
            "red from": st.column_config.NumberColumn(min_value=0.0, max_value=1.0, step=0.01),
        },
    )
    changed, errors = {}, []
    for row in edited.to_dict("records"):
        amber, red = row["amber from"], row["red from"]
        if pd.isna(amber) or pd.isna(red):
            errors.append(f"{row['measure']}: give both lines (a number from 0 to 1).")
            continue
        amber, red = float(amber), float(red)
        base = DEFAULT_THRESHOLDS[row["key"]]
        if (amber, red) == (base.amber, base.red):
            continue
        if not 0 <= amber <= red:
            errors.append(f"{row['measure']}: amber {amber:g} must be at most red {red:g}.")
            continue
        changed[row["key"]] = (amber, red)
    for message in errors:
        st.error(message + " The previous lines are kept.", icon=":material/error:")
    if not errors:
        st.session_state[THRESHOLDS] = changed
    st.caption(
        "Lines are on each measure's own scale (the discriminator's is the distance "
        "of its AUC from 0.5). Defaults are the product's starting points, not "
        "precedents: the consensus framework found no agreed thresholds for attribute "
        "disclosure; 0.2 for F_rel was used by some authors (S13.2)."
    )


def calibration_summary(ws: Workspace) -> dict[str, Any] | None:
    from .report import session_calibration

    cal = session_calibration(ws)
    return None if cal is None else cal.to_dict().get("summary")


def candidate_cards(ws: Workspace) -> dict[str, tuple[Card, ...]]:
    """Candidate -> its cards, from the results this session already holds, read by the
    engine's verdict policy under the thresholds in force and the session's calibration."""
    from .report import candidate_results  # the review glue: cached results per candidate

    th = thresholds()
    cal = calibration_summary(ws)
    return {
        c.name: scorecard(
            {m: r.to_dict() for m, r in c.results.items()}, thresholds=th, calibration=cal
        )
        for c in candidate_results(ws)
    }


def candidate_verdicts(cards: dict[str, tuple[Card, ...]]) -> dict[str, CandidateVerdict]:
    """Each candidate's verdict: the engine's one policy over its cards."""
    return {name: verdict_of(cs) for name, cs in cards.items()}


def draw_verdicts(verdicts: dict[str, CandidateVerdict]) -> None:
    """One sentence per candidate, above the cards: the stakeholder's answer (a bordered
    box with a badge: alerts stay for errors)."""
    for name, v in verdicts.items():
        box = st.container(border=True)
        box.markdown(f"{_VERDICT[v.verdict]} **Verdict for {name}: {v.verdict}.** {v.sentence}")


def draw_scorecard(
    cards: tuple[Card, ...],
    references: dict[str, dict[str, Any]] | None = None,
    calibration: dict[str, Any] | None = None,
) -> None:
    """Cards in a grid: title, level in words (badge colour repeats it), headline value
    with its interval, the line it crossed, where it sits between HALF and SELF (RAPID's
    and fidelity's reference releases when computed; for the other disclosure measures
    the calibration's floor, unseen rows, and ceiling, a copy, when one was run), and a
    link to the page that explains it."""
    refs = references or {}
    cal = calibration or {}
    for start in range(0, len(cards), 4):
        cols = st.columns(4)
        for col, card in zip(cols, cards[start : start + 4], strict=False):
            box = col.container(border=True, height="stretch")
            box.markdown(
                f"**{card.family.title}**" + (" · *indicator*" if card.family.indicator else "")
            )
            box.markdown(_BADGE[card.level])
            head = card.headline
            if head is not None:
                box.markdown(f"### {head.value:.3f}")
                # the measure's name links its glossary entry (issue 34)
                box.caption(f"{measure_link(head.measure, head.label)}: {head.words}")
                # HALF and SELF are absolute readings: placed against the reading on
                # their scale (RAPID's absolute headline, not its relative reading)
                for r in card.readings:
                    where = reference_reading(r.value, refs.get(r.measure), cal.get(r.measure))
                    if where and not r.relative:
                        box.caption(f"{r.label} against the references: {where}.")
                        break
                others = [r for r in card.readings if r is not head]
                if others:
                    box.caption(
                        "Also: "
                        + "; ".join(
                            f"{r.label} {r.value:.3f} ({LEVEL_WORDS[r.level]}"
                            + (", context" if r.role == "context" else "")
                            + ")"
                            for r in others
                        )
                    )
            else:
                box.caption(card.family.question)
            if card.note:  # an empty card names the measures it waits for
                box.caption(card.note)
            box.page_link(
                PAGE_FILES[card.family.page], label="Open", icon=":material/arrow_forward:"
            )


# Quick measures that fill the empty cards in seconds on the demo (the engine's list,
# which ``review`` runs by default too; the slow ones stay on their pages).
QUICK = QUICK_REVIEW


def missing_quick(ws: Workspace) -> dict[str, list[str]]:
    """Candidate -> the quick measures it lacks (each card's deciding evidence: a card
    with RAPID alone still lacks distance-based inference)."""
    from .report import candidate_results

    out = {}
    for c in candidate_results(ws):
        wanted = [
            m
            for m in QUICK
            if m not in c.results and (not MEASURES[m].needs_holdout or c.view.holdout is not None)
        ]
        if wanted:
            out[c.name] = wanted
    return out


def quick_should_autorun(ws: Workspace) -> bool:
    """Fill the quick cards without a click when the data are small (the pages' one
    auto-run limit, real rows x releases): the built-in demo shows every quick card on
    first load."""
    from .evaluations import AUTO_RUN_MAX_CELLS

    return len(ws.real.frame) * max(len(ws.releases), 1) <= AUTO_RUN_MAX_CELLS


def fill_quick(ws: Workspace) -> bool:
    from .report import candidate_results, compute_measures

    todo = missing_quick(ws)
    for c in candidate_results(ws):
        if c.name in todo:
            compute_measures(c.view, todo[c.name])
    return True


def answers() -> dict[str, str]:
    """The reviewer's checklist answers (kept across pages)."""
    return {k: str(remembered(ANSWER_PREFIX + k, "")) for k in REVIEWER_QUESTIONS}


def checklist_questions() -> None:
    """What only a person knows: four questions, each tied to its recommendation."""
    for key in REVIEWER_QUESTIONS:
        keep(ANSWER_PREFIX + key, "")
    q = REVIEWER_QUESTIONS
    st.text_area(
        q["qi_justification"],
        key=ANSWER_PREFIX + "qi_justification",
        height=70,
        placeholder="e.g. age, sex and postcode appear in the public voter roll; "
        "chosen by the data controller on 2026-03-02",
    )
    c1, c2 = st.columns(2)
    c1.radio(
        q["same_population"],
        ["", "yes", "no"],
        key=ANSWER_PREFIX + "same_population",
        format_func=lambda v: v or "not answered",
        horizontal=True,
    )
    c2.radio(
        q["scenario"],
        ["", "model", "release"],
        key=ANSWER_PREFIX + "scenario",
        format_func=lambda v: {
            "": "not answered",
            "model": "a trained generator",
            "release": "these dataset(s)",
        }[v],
        horizontal=True,
    )
    keep_shared(SET_BY, "")
    st.text_input(
        q["thresholds_set_by"],
        key=SET_BY,
        on_change=mirror,
        args=(SET_BY,),
        placeholder="Also editable with the thresholds on the Overview",
    )


def draw_checklist(checklist: Checklist) -> None:
    st.markdown(f"**{checklist.summary}.**")
    for item in checklist.items:
        c1, c2 = st.columns([1, 5])
        c1.markdown(f"**{item.code}** {_STATUS_BADGE[item.status]}")
        c2.markdown(f"**{item.title}** — {item.evidence}")
        c2.caption(
            item.statement
            + ("" if item.by == "session" else f" · filled in by the {item.by}")
            + f" · {term_link(item.code, 'glossary')}"
        )


def draw_stored_scorecard(doc: dict[str, Any]) -> None:
    """A stored review's scorecard as it was read then (its thresholds, not today's)."""
    cards = doc.get("scorecards") or {}
    if not cards:
        return
    st.subheader("Scorecard (as stored)")
    rows = [
        {
            "candidate": cand,
            "family": c["title"] + (" (indicator)" if c["indicator"] else ""),
            "reading": LEVEL_WORDS[c["level"]],
            "evidence": c["words"],
        }
        for cand, cs in cards.items()
        for c in cs
    ]
    st.dataframe(rows, hide_index=True, width="stretch")
    th = doc.get("thresholds") or {}
    # stored text shown as typed (ui.widgets.escape_markdown): a link in it fetches nothing
    st.caption(
        f"Thresholds set by: {escape_markdown(th.get('set_by') or 'not stated')}; changed "
        f"from the defaults: {escape_markdown(', '.join(th.get('changed') or []) or 'none')}."
    )


def draw_stored_checklist(doc: dict[str, Any]) -> None:
    cl = doc.get("checklist")
    if not cl:
        st.caption("This review was stored without a consensus checklist.")
        return
    st.subheader("Consensus checklist (as stored)")
    st.markdown(f"**{escape_markdown(cl['summary'])}.**")
    st.dataframe(
        [
            {
                "": i["code"],
                "recommendation": i["title"],
                "status": i["status"],
                "evidence": i["evidence"],
            }
            for i in cl["items"]
        ],
        hide_index=True,
        width="stretch",
    )


def checklist_for(report_dict: dict[str, Any]) -> Checklist:
    return pc.consensus_checklist(
        report_dict, answers=answers(), thresholds={"set_by": thresholds_set_by()}
    )


__all__ = [
    "STATUSES",
    "answers",
    "calibration_summary",
    "candidate_cards",
    "candidate_verdicts",
    "draw_verdicts",
    "quick_should_autorun",
    "checklist_for",
    "checklist_questions",
    "draw_checklist",
    "draw_scorecard",
    "thresholds",
    "thresholds_editor",
    "thresholds_set_by",
]
