"""Glue for the what-if page: a mitigated copy of a candidate's workspace, the same measures
on both, and what the reviewer does with the outcome.

A mitigated workspace is an ordinary :class:`Workspace` whose tables are the mitigated
ones, so every measure goes through the same cached glue as the pages: the original side
is read from the pages' caches (computed only if missing), the mitigated side is cached
under its own content fingerprints, and trying a mitigation twice costs nothing the
second time. The originals are never changed: adopting a mitigation keeps the original
workspace, one click away.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import pandas as pd
import streamlit as st

import privacy_core as pc
from privacy_core.mitigation import (
    MitigatedInputs,
    Mitigation,
    alternative_record,
    apply_mitigation,
    compare_measures,
)

from .history import ALTERNATIVES
from .report import candidate_results, compute_measures
from .state import commit, get_workspace, set_notice
from .workspace import Table, Workspace

ORIGINAL = "whatif_original_workspace"  # the workspace before "continue on mitigated data"
_MITIGATED = "whatif_mitigated"  # {(view key, mitigation, seed): (Workspace, notes)}
RELEASE_ONLY = ("suppress_rare", "regenerate")


@dataclass(frozen=True)
class WhatIf:
    candidate: str
    mitigation: Mitigation
    notes: tuple[str, ...]
    comparison: pd.DataFrame
    before: dict[str, pc.MetricResult]
    after: dict[str, pc.MetricResult]


def _workspace(view: Workspace, mi: MitigatedInputs) -> Workspace:
    tag = mi.mitigation.describe()
    real = (
        view.real
        if mi.real is view.real.frame
        else Table.make(f"{view.real.name} ({tag})", mi.real, "generated")
    )
    releases = tuple(
        t
        if f is t.frame
        else Table.make(
            f"{t.name} · {tag}", f, "generated", group=f"{t.group} · what-if" if t.group else ""
        )
        for t, f in zip(view.releases, mi.synthetic, strict=True)
    )
    holdout = view.holdout
    if view.holdout is not None and mi.holdout is not view.holdout.frame:
        holdout = Table.make(f"{view.holdout.name} ({tag})", mi.holdout, "generated")
    column = mi.mitigation.column
    return replace(
        view,
        real=real,
        releases=releases,
        holdout=holdout,
        quasi_identifiers=tuple(mi.threat.quasi_identifiers),
        overrides=tuple((c, k) for c, k in view.overrides if c != column),
    )


def mitigated(
    view: Workspace, mitigation: Mitigation, seed: int
) -> tuple[Workspace, tuple[str, ...]]:
    """The candidate's workspace after ``mitigation`` (made once per session)."""
    store = st.session_state.setdefault(_MITIGATED, {})
    key = (view.key, mitigation, int(seed))
    if key not in store:
        mi = apply_mitigation(
            view.real.frame,
            [t.frame for t in view.releases],
            threat=view.threat,
            mitigation=mitigation,
            seed=int(seed),
            holdout=view.holdout.frame if view.holdout is not None else None,
        )
        new = _workspace(view, mi)
        new.validate()  # the engine's message if the mitigated tables are not usable
        store.clear()  # one mitigated copy at a time: the tables are the size of the data
        store[key] = (new, mi.notes)
    return store[key]


def measures_of(view: Workspace, names: list[str]) -> dict[str, pc.MetricResult]:
    """``names`` for one candidate's view, computed where the pages have not."""
    have = candidate_results(view)[0].results
    missing = [m for m in names if m not in have]
    if missing:
        compute_measures(view, missing)
        have = candidate_results(view)[0].results
    return {m: have[m] for m in names if m in have}


def run_whatif(
    view: Workspace, candidate: str, mitigation: Mitigation, names: list[str], seed: int
) -> WhatIf:
    before = measures_of(view, names)
    after_view, notes = mitigated(view, mitigation, seed)
    after = measures_of(after_view, names)
    return WhatIf(candidate, mitigation, notes, compare_measures(before, after), before, after)


def record_alternative(result: WhatIf) -> int:
    """Add the outcome to the review as a considered alternative; returns how many."""
    alts = st.session_state.setdefault(ALTERNATIVES, [])
    record = alternative_record(
        result.mitigation, result.comparison, candidate=result.candidate, notes=result.notes
    )
    if record not in alts:
        alts.append(record)
    return len(alts)


def adopt_as_candidate(view: Workspace, mitigation: Mitigation, seed: int) -> None:
    """Release-only mitigations: the mitigated releases join as a new candidate; the
    original candidate stays."""
    ws = get_workspace()
    if ws is None:
        return
    new_view, _ = mitigated(view, mitigation, seed)
    name = f"{next(iter(view.release_groups()))} · {mitigation.describe()}"
    added = tuple(replace(t, group=name) for t in new_view.releases)
    if commit(replace(ws, releases=ws.releases + added), control="whatif"):
        set_notice(
            "whatif",
            f"Added {name!r} as a candidate of its own: every page now shows "
            "it next to the original.",
        )


def continue_on_mitigated(view: Workspace, mitigation: Mitigation, seed: int) -> None:
    """Data mitigations change what the attacker knows: the review continues on the
    mitigated tables (every candidate mitigated alike); the original is kept to go back."""
    ws = get_workspace()
    if ws is None:
        return
    whole, _ = mitigated(ws, mitigation, seed)
    original = st.session_state.get(ORIGINAL) or ws
    if commit(whole, control="whatif"):
        st.session_state[ORIGINAL] = original
        set_notice(
            "whatif",
            f"The review now runs on the mitigated data ({mitigation.describe()}"
            "). The original data is kept: *Back to the original data* "
            "restores it.",
        )


def back_to_original() -> None:
    original = st.session_state.get(ORIGINAL)
    if original is not None and commit(original, control="whatif"):
        del st.session_state[ORIGINAL]
        set_notice("whatif", "Back on the original data.")


def alternatives() -> list[dict[str, Any]]:
    return list(st.session_state.get(ALTERNATIVES, []))
