"""The consensus checklist: recommendations R1–R10 walked for one review.

Pearce et al.'s Delphi consensus (``consensus-privacy-framework.md``, Table 2) agreed ten
recommendations for evaluating privacy in synthetic data. This module reads a review —
the JSON record of :class:`privacy_core.report.ReviewReport`, so a stored review is read
the same way as a live one — and fills in each item from what the session computed
(which measures, on how many records, with or without a control, how many releases),
leaving to the reviewer what only a person knows: why these quasi-identifiers, whether
the membership targets come from the training population, who set the thresholds, and
whether a model or one dataset is being evaluated.

Each item is *met*, *not met*, *not applicable* or *needs reviewer*, with its evidence
in words. Nothing here computes a measure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .measures import MEASURES

Status = Literal["met", "not met", "not applicable", "needs reviewer"]
STATUSES: tuple[Status, ...] = ("met", "not met", "not applicable", "needs reviewer")

# The recommendations, shortened from Table 2 (statement ids in brackets).
RECOMMENDATIONS: dict[str, tuple[str, str]] = {
    "R1": (
        "Quasi-identifiers",
        "Disclosure metrics are based on quasi-identifiers that the "
        "data controller ascertained (S1.1).",
    ),
    "R2": (
        "All records",
        "Disclosure metrics are computed for all records, not a "
        "pre-selected subset of 'vulnerable' ones (S2).",
    ),
    "R3": (
        "Similarity is not disclosure",
        "Stand-alone similarity metrics are not used to report privacy (S3.1).",
    ),
    "R4": (
        "Membership assumptions",
        "Membership disclosure is evaluated only when its "
        "assumptions hold: targets drawn from the training data's population (S4.1).",
    ),
    "R5": (
        "F1 against a naive guess",
        "A prevalence-dependent membership score (F1) is "
        "reported relative to an adversary guessing membership (S16.1).",
    ),
    "R6": (
        "Members only",
        "Attribute disclosure is assessed on members, the people in the training data (S7).",
    ),
    "R7": (
        "Non-member baseline",
        "A relative attribute disclosure risk that takes a "
        "non-member baseline into account is reported (S8).",
    ),
    "R8": (
        "Relative and absolute",
        "A relative attribute risk above its threshold is "
        "unacceptable only when the absolute risk is above its threshold too (S9).",
    ),
    "R9": (
        "ε is not the risk",
        "The DP budget ε is not reported as the disclosure risk; "
        "DP releases are evaluated with the same metrics (S17.1).",
    ),
    "R10": (
        "Several releases",
        "For a trained generator, risk is reported for individual "
        "and multiple synthetic datasets: mean and spread (S11.1).",
    ),
}

# What the reviewer is asked (answer keys of :func:`consensus_checklist`).
REVIEWER_QUESTIONS: dict[str, str] = {
    "qi_justification": "R1 · Why these quasi-identifiers, and who ascertained them?",
    "same_population": "R4 · Are the membership targets drawn from the same population as "
    "the training data? (yes / no)",
    "thresholds_set_by": "R8 · Who set the thresholds, and on what precedent?",
    "scenario": "R10 · Are you evaluating a trained generator (model) or releasing these "
    "specific dataset(s) (release)?",
}

_ATTRIBUTE = ("rapid", "inference", "ml_inference", "gtcap")
_MEMBERSHIP = ("membership", "domias", "mds")


@dataclass(frozen=True)
class ChecklistItem:
    code: str
    title: str
    statement: str
    status: Status
    evidence: str
    by: Literal["session", "reviewer", "session and reviewer"] = "session"

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "title": self.title,
            "statement": self.statement,
            "status": self.status,
            "evidence": self.evidence,
            "by": self.by,
        }


@dataclass(frozen=True)
class Checklist:
    items: tuple[ChecklistItem, ...]
    answers: Mapping[str, str]

    def counts(self) -> dict[str, int]:
        return {s: sum(i.status == s for i in self.items) for s in STATUSES}

    @property
    def summary(self) -> str:
        c = self.counts()
        return (
            f"{c['met']} met, {c['not met']} not met, {c['needs reviewer']} awaiting the "
            f"reviewer, {c['not applicable']} not applicable"
        )

    def item(self, code: str) -> ChecklistItem:
        return next(i for i in self.items if i.code == code)

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary,
            "counts": self.counts(),
            "answers": dict(self.answers),
            "items": [i.to_dict() for i in self.items],
        }


def _item(code: str, status: Status, evidence: str, by: str = "session") -> ChecklistItem:
    title, statement = RECOMMENDATIONS[code]
    return ChecklistItem(code, title, statement, status, evidence, by)  # type: ignore[arg-type]


def _label(m: str) -> str:
    return MEASURES[m].label if m in MEASURES else m


def _evaluated(name: str, params: Mapping[str, Any], n_real: int) -> tuple[int, int] | None:
    """(records evaluated, records in the real table) of one disclosure measure, from its
    parameters; None when the parameters do not say."""
    if name == "rapid":
        n = int(params.get("n_real", n_real))
        return n - int(params.get("excluded_targets_missing_value", 0) or 0), n
    for key in ("n_training_evaluated", "n_targets", "attack_members", "n_members"):
        if params.get(key) is not None:
            return int(params[key]), n_real
    return None


def _computed(candidates: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    out: dict[str, list[Mapping[str, Any]]] = {}
    for cand in candidates:
        for name, metric in (cand.get("metrics") or {}).items():
            if metric.get("value") is not None:
                out.setdefault(name, []).append(metric)
    return out


def consensus_checklist(
    review: Mapping[str, Any],
    *,
    answers: Mapping[str, str] | None = None,
    thresholds: Mapping[str, Any] | None = None,
) -> Checklist:
    """Walk R1–R10 for one review.

    Parameters
    ----------
    review
        A review record: ``ReviewReport.to_dict()`` (``provenance``, ``threat``,
        ``candidates`` with their ``metrics``).
    answers
        The reviewer's answers, keys of :data:`REVIEWER_QUESTIONS`.
    thresholds
        The thresholds record (:func:`privacy_core.scorecard.thresholds_record`); its
        ``set_by`` answers R8's "who set them" when ``answers`` does not.

    Notes
    -----
    Consensus framework, Table 2 and the sections behind each recommendation.
    """
    answers = {k: str(v).strip() for k, v in (answers or {}).items() if v is not None}
    threat = review.get("threat") or {}
    n_real = int(((review.get("provenance") or {}).get("real") or {}).get("rows") or 0)
    candidates = review.get("candidates") or []
    computed = _computed(candidates)
    disclosure = [
        m
        for m in computed
        if m in MEASURES and MEASURES[m].family == "privacy" and not MEASURES[m].indicator
    ]
    indicators = [m for m in computed if m in MEASURES and MEASURES[m].indicator]
    items = [
        _r1(threat, answers),
        _r2(computed, disclosure, n_real),
        _r3(disclosure, indicators),
        *_r4_r5(computed, answers),
        *_r6_to_r8(computed, n_real, answers, thresholds),
        _r9(disclosure, answers),
        _r10(candidates, answers),
    ]
    return Checklist(tuple(items), answers)


def _r1(threat: Mapping[str, Any], answers: Mapping[str, str]) -> ChecklistItem:
    qis = list(threat.get("quasi_identifiers") or [])
    if not qis:
        return _item("R1", "not met", "No quasi-identifiers are declared.")
    declared = f"{len(qis)} quasi-identifier(s) declared: {', '.join(map(str, qis))}."
    why = answers.get("qi_justification", "")
    if not why:
        return _item(
            "R1",
            "needs reviewer",
            declared + " Say why these, and who ascertained them.",
            "session and reviewer",
        )
    return _item("R1", "met", f"{declared} Justification: {why}", "session and reviewer")


def _r2(
    computed: Mapping[str, list[Mapping[str, Any]]], disclosure: list[str], n_real: int
) -> ChecklistItem:
    if not disclosure:
        return _item("R2", "not met", "No disclosure measure computed yet.")
    partial: list[str] = []
    full: list[str] = []
    for m in disclosure:
        for metric in computed[m]:
            seen = _evaluated(m, metric.get("params") or {}, n_real)
            if seen is None:
                continue
            (partial if seen[0] < seen[1] else full).append(
                f"{_label(m)} {seen[0]:,} of {seen[1]:,}"
            )
    if partial:
        return _item(
            "R2",
            "not met",
            "Evaluated on a subset: "
            + "; ".join(partial)
            + ". Rerun on every record (no subsample) to meet R2.",
        )
    shown = "; ".join(dict.fromkeys(full)) or ", ".join(_label(m) for m in disclosure)
    return _item("R2", "met", f"Every real record evaluated: {shown}.")


def _r3(disclosure: list[str], indicators: list[str]) -> ChecklistItem:
    if not indicators:
        return _item("R3", "not applicable", "No similarity measure computed.")
    names = ", ".join(_label(m) for m in indicators)
    if not disclosure:
        return _item(
            "R3",
            "not met",
            f"Only similarity measures computed ({names}): they are "
            "indicators, not evidence of disclosure. Compute an attribute, identity "
            "or membership measure.",
        )
    return _item(
        "R3",
        "met",
        f"{names} shown as indicators only; the evidence is "
        f"{', '.join(_label(m) for m in disclosure)}.",
    )


def _r4_r5(
    computed: Mapping[str, list[Mapping[str, Any]]], answers: Mapping[str, str]
) -> list[ChecklistItem]:
    members = [m for m in _MEMBERSHIP if m in computed]
    if not members:
        none = "No membership measure computed."
        return [_item("R4", "not applicable", none), _item("R5", "not applicable", none)]
    names = ", ".join(_label(m) for m in members)
    same = answers.get("same_population", "").lower()
    if same in ("yes", "y", "true"):
        r4 = _item(
            "R4",
            "met",
            f"{names} computed; the reviewer confirms the targets come "
            "from the training data's population.",
            "session and reviewer",
        )
    elif same in ("no", "n", "false"):
        r4 = _item(
            "R4",
            "not met",
            f"{names} computed, but the reviewer says the targets do "
            "not come from the training population: do not use these results.",
            "session and reviewer",
        )
    else:
        r4 = _item(
            "R4",
            "needs reviewer",
            f"{names} computed: confirm that membership "
            "targets come from the training data's population.",
            "session and reviewer",
        )
    if "membership" in computed:
        p = computed["membership"][0].get("params") or {}
        r5 = _item(
            "R5",
            "met",
            "F1 reported as F_rel, relative to the naive guesser who calls "
            f"everyone a member (member prevalence {p.get('member_prevalence', '?')}).",
        )
    else:
        r5 = _item(
            "R5",
            "not applicable",
            f"{names} report(s) an AUC-type score, where 0.5 is the naive guess: no F1 to adjust.",
        )
    return [r4, r5]


def _r6_to_r8(
    computed: Mapping[str, list[Mapping[str, Any]]],
    n_real: int,
    answers: Mapping[str, str],
    thresholds: Mapping[str, Any] | None,
) -> list[ChecklistItem]:
    attribute = [m for m in _ATTRIBUTE if m in computed]
    if not attribute:
        none = "No attribute-inference measure computed."
        return [_item(c, "not applicable", none) for c in ("R6", "R7", "R8")]
    names = ", ".join(_label(m) for m in attribute)
    r6 = _item(
        "R6",
        "met",
        f"{names} scored on the {n_real:,} training records (members); "
        "non-members only serve as the baseline.",
    )
    rapid = computed.get("rapid", [])
    has_rapid_gap = any(isinstance(r.get("difference"), Mapping) for r in rapid)
    controlled = [
        m
        for m in attribute
        if m != "rapid" and any((r.get("params") or {}).get("control") for r in computed[m])
    ]
    if has_rapid_gap or controlled:
        parts = []
        if has_rapid_gap:
            d = next(r["difference"] for r in rapid if isinstance(r.get("difference"), Mapping))
            parts.append(f"RAPID members minus non-members {float(d['value']):+.3f}")
        if controlled:
            parts.append(", ".join(_label(m) for m in controlled) + " against control records")
        r7 = _item(
            "R7", "met", "Relative risk with a non-member baseline: " + "; ".join(parts) + "."
        )
    else:
        r7 = _item(
            "R7",
            "not met",
            f"{names} computed without non-members: load a holdout of "
            "real rows the generator never saw to get the relative risk.",
        )
    set_by = answers.get("thresholds_set_by") or str((thresholds or {}).get("set_by") or "")
    if r7.status != "met":
        r8 = _item(
            "R8",
            "not met",
            "Only the absolute risk is reported; R8 needs the relative one as well (see R7).",
        )
    elif not set_by:
        r8 = _item(
            "R8",
            "needs reviewer",
            "Relative and absolute risk are both reported and "
            "read together on the scorecard; say who set the thresholds.",
            "session and reviewer",
        )
    else:
        r8 = _item(
            "R8",
            "met",
            "Relative and absolute risk both reported and read together "
            f"against thresholds set by: {set_by}.",
            "session and reviewer",
        )
    return [r6, r7, r8]


def _r9(disclosure: list[str], answers: Mapping[str, str]) -> ChecklistItem:
    if not disclosure:
        return _item(
            "R9",
            "not met",
            "No empirical disclosure measure computed: ε alone is not a disclosure risk.",
        )
    return _item(
        "R9",
        "met",
        f"Disclosure evaluated empirically ({len(disclosure)} "
        "measure(s)), the same way for DP and non-DP releases; ε is not reported as "
        "the risk.",
    )


def _r10(candidates: Sequence[Mapping[str, Any]], answers: Mapping[str, str]) -> ChecklistItem:
    if not candidates:
        return _item("R10", "not met", "No release evaluated.")
    many = [c for c in candidates if int(c.get("n_releases") or len(c.get("releases") or [])) > 1]
    if many:
        return _item(
            "R10",
            "met",
            "; ".join(
                f"{c['name']}: {len(c.get('releases') or [])} releases, mean and spread with each "
                "release's own value"
                for c in many
            )
            + ".",
        )
    scenario = answers.get("scenario", "").lower()
    if scenario.startswith("release"):
        return _item(
            "R10",
            "not applicable",
            "One dataset per candidate, and the reviewer is "
            "deciding on these specific dataset(s), not on a trained generator.",
            "session and reviewer",
        )
    if scenario.startswith("model"):
        return _item(
            "R10",
            "not met",
            "A trained generator is being evaluated from one "
            "synthetic dataset: generate replicates (Data & threat model page) and "
            "report their mean and spread.",
            "session and reviewer",
        )
    return _item(
        "R10",
        "needs reviewer",
        "One synthetic dataset per candidate: say whether a "
        "trained generator (needs replicates) or these dataset(s) are under review.",
        "session and reviewer",
    )


__all__ = [
    "Checklist",
    "ChecklistItem",
    "RECOMMENDATIONS",
    "REVIEWER_QUESTIONS",
    "STATUSES",
    "consensus_checklist",
]
