"""The review report's record: :class:`ReviewReport`, built from release groups and
results, JSON-serialisable; and the readings the exports share (references, calibration
rows, parameter summaries). A measure's cell and its text are in :mod:`.cells`.

Why one module: the record and the helpers that read it are used by the HTML and PDF
exports and the app alike.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..calibration import CEILING_MIN, FLOOR_MAX, FLOOR_UPPER_MAX, RATIO_GAP_MAX
from ..checklist import consensus_checklist
from ..data import Schema, fingerprint
from ..errors import ParameterError
from ..measures import MEASURES
from ..results import MetricResult, jsonable
from ..scorecard import (
    Threshold,
    headline,
    scorecard,
    thresholds_record,
    verdict_of,
)
from ..threat import ThreatModel
from ..version import __version__

if TYPE_CHECKING:
    from ..calibration import CalibrationResult

DECISIONS = ("undecided", "release", "release with changes", "do not release")


@dataclass(frozen=True)
class ReleaseGroup:
    """One candidate for release: one release, or replicates of one generator configuration.

    ``releases`` are the names of the group's releases (as in the report's provenance);
    ``results`` the measures computed over exactly these releases (the engine averages
    replicates itself: ``combine_replicates``, RAPID over several frames). A measure absent
    from ``results`` is reported as not computed for this candidate, never borrowed from
    another one.
    """

    name: str
    releases: tuple[str, ...]
    results: Mapping[str, MetricResult] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not str(self.name).strip():
            raise ParameterError(
                f"ReleaseGroup: name must be a non-empty string; received {self.name!r}."
            )
        if not self.releases:
            raise ParameterError(
                f"ReleaseGroup {self.name!r}: releases must name at least one "
                "release; received none."
            )


@dataclass(frozen=True)
class ReviewReport:
    """Everything a reviewer signs off, in a form that serialises to JSON."""

    created: str
    provenance: dict[str, Any]
    schema: dict[str, Any]
    threat: dict[str, Any]
    candidates: list[dict[str, Any]]
    decision: str = "undecided"
    notes: str = ""
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    calibration: dict[str, Any] | None = None
    reviewer: str = ""
    role: str = ""
    review_date: str = ""
    # measure -> {"half" | "self" | "histogram": {"value", "ci"}}: the data's own reference
    # releases, read under the same settings as the candidates (aggregates only)
    references: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    # the thresholds in force and who set them (privacy_core.scorecard.thresholds_record),
    # each candidate's scorecard under them, and the consensus checklist R1-R10
    thresholds: dict[str, Any] | None = None
    scorecards: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    checklist: dict[str, Any] | None = None
    # mitigations tried and their before/after aggregates (privacy_core.mitigation)
    alternatives: list[dict[str, Any]] = field(default_factory=list)

    @property
    def metrics(self) -> dict[str, dict[str, Any]]:
        """The measures of the only candidate; empty when there are several (they are
        never merged: read ``candidates``)."""
        return self.candidates[0]["metrics"] if len(self.candidates) == 1 else {}

    def to_dict(self) -> dict[str, Any]:
        # "metrics" stays for readers of one-candidate reports; with several candidates it
        # is left out rather than filled with one of them or an average of all
        single = {"metrics": self.metrics} if len(self.candidates) == 1 else {}
        return jsonable(
            {
                "created": self.created,
                "provenance": self.provenance,
                "schema": self.schema,
                "threat": self.threat,
                **single,
                "candidates": self.candidates,
                "decision": self.decision,
                "notes": self.notes,
                "sign_off": {
                    "reviewer": self.reviewer,
                    "role": self.role,
                    "date": self.review_date,
                },
                **({"references": self.references} if self.references else {}),
                **({"thresholds": self.thresholds} if self.thresholds is not None else {}),
                **({"scorecards": self.scorecards} if self.scorecards else {}),
                **({"checklist": self.checklist} if self.checklist is not None else {}),
                **({"alternatives": self.alternatives} if self.alternatives else {}),
                **({"calibration": self.calibration} if self.calibration is not None else {}),
                **({"records": self.records} if self.records else {}),
            }
        )

    def to_json(self) -> str:
        # strict JSON: to_dict() has turned NaN and inf into null, and allow_nan=False
        # makes a value that slipped past it an error instead of a bare NaN token
        return json.dumps(self.to_dict(), indent=2, allow_nan=False)


def build_report(
    *,
    real: pd.DataFrame,
    synthetic: Sequence[pd.DataFrame],
    results: Mapping[str, MetricResult] | None = None,
    threat: ThreatModel,
    schema: Schema,
    holdout: pd.DataFrame | None = None,
    names: Mapping[str, Any] | None = None,
    decision: str = "undecided",
    notes: str = "",
    include_records: bool = False,
    calibration: CalibrationResult | None = None,
    groups: Sequence[ReleaseGroup] | None = None,
    reviewer: str = "",
    role: str = "",
    review_date: str | _dt.date | None = None,
    references: Mapping[str, Mapping[str, MetricResult | None]] | None = None,
    answers: Mapping[str, str] | None = None,
    thresholds: Mapping[str, Threshold] | None = None,
    thresholds_set_by: str = "",
    alternatives: Sequence[Mapping[str, Any]] = (),
) -> ReviewReport:
    """Assemble a report from computed results.

    Parameters
    ----------
    results
        The measures of a single candidate (all of ``synthetic`` as replicates of one
        generator). Give either ``results`` or ``groups``.
    names
        Display names of the inputs: ``{"real": str, "synthetic": [str, ...],
        "holdout": str}``.
    groups
        The candidates, each with the names of its releases (from ``names["synthetic"]``)
        and its own results: reported side by side, never averaged across groups.
    include_records
        Add each measure's per-record table. Off by default: a report then holds
        aggregates only and no real record.
    calibration
        A calibration of the measures on this data
        (:func:`privacy_core.calibration.calibrate`): its per-measure summary (floor,
        ceiling, verdict and reasons), its values per level and ratio and its settings
        enter the report. Aggregates only.
    answers
        The reviewer's answers to the consensus checklist
        (:data:`privacy_core.checklist.REVIEWER_QUESTIONS`); the rest of R1-R10 is filled
        in from the results. The checklist goes into every export.
    thresholds, thresholds_set_by
        The scorecard's thresholds (defaults:
        :data:`privacy_core.scorecard.DEFAULT_THRESHOLDS`) and who set them; each
        candidate's scorecard is read under them.
    alternatives
        Considered alternatives (:func:`privacy_core.mitigation.alternative_record`): the
        mitigations tried and their before/after aggregates.
    """
    names = dict(names or {})
    syn_names = list(names.get("synthetic") or [f"release {i + 1}" for i in range(len(synthetic))])
    groups = _candidate_groups(results, groups, syn_names)
    created = _dt.datetime.now(_dt.UTC)
    report = ReviewReport(
        created=created.isoformat(timespec="seconds"),
        provenance=_provenance(real, synthetic, holdout, names, syn_names, groups),
        schema=schema.to_dict(),
        threat=threat.to_dict(),
        candidates=_candidates(groups),
        decision=decision if decision in DECISIONS else "undecided",
        notes=notes,
        records=_records(groups) if include_records else {},
        calibration=None if calibration is None else calibration_record(calibration),
        reviewer=str(reviewer or "").strip(),
        role=str(role or "").strip(),
        review_date=_date_text(created.date() if review_date is None else review_date),
        references=reference_record(references or {}),
        alternatives=[dict(a) for a in alternatives],
        thresholds=thresholds_record(thresholds, set_by=thresholds_set_by),
    )
    return _with_verdicts(report, thresholds, answers)


def _candidate_groups(
    results: Mapping[str, MetricResult] | None,
    groups: Sequence[ReleaseGroup] | None,
    release_names: Sequence[str],
) -> Sequence[ReleaseGroup]:
    """The candidates: the given groups, or one group of every release holding
    ``results``; every release in exactly one group."""
    if (results is None) == (groups is None):
        raise ParameterError(
            "build_report: give either results= (one candidate) or groups= "
            "(one or more candidates), not " + ("both." if results is not None else "neither.")
        )
    if groups is None:
        groups = [
            ReleaseGroup(_default_group_name(release_names), tuple(release_names), results or {})
        ]
    _check_groups(groups, release_names)
    return groups


def _provenance(
    real: pd.DataFrame,
    synthetic: Sequence[pd.DataFrame],
    holdout: pd.DataFrame | None,
    names: Mapping[str, Any],
    release_names: Sequence[str],
    groups: Sequence[ReleaseGroup],
) -> dict[str, Any]:
    """Names, row counts and content fingerprints of the inputs, and the software."""
    group_of = {r: g.name for g in groups for r in g.releases}
    return {
        "real": {
            "name": names.get("real", "real"),
            "rows": len(real),
            "fingerprint": fingerprint(real),
        },
        "synthetic": [
            {"name": n, "rows": len(s), "fingerprint": fingerprint(s), "group": group_of[n]}
            for n, s in zip(release_names, synthetic, strict=False)
        ],
        "holdout": None
        if holdout is None
        else {
            "name": names.get("holdout", "holdout"),
            "rows": len(holdout),
            "fingerprint": fingerprint(holdout),
        },
        "software": "privacy_core " + _version(),
    }


def _candidates(groups: Sequence[ReleaseGroup]) -> list[dict[str, Any]]:
    """One record per candidate: its releases and its measures' JSON."""
    return [
        {
            "name": g.name,
            "releases": list(g.releases),
            "n_releases": len(g.releases),
            "metrics": {m: {**res.to_dict(), "name": res.name} for m, res in g.results.items()},
        }
        for g in groups
    ]


def _records(groups: Sequence[ReleaseGroup]) -> dict[str, Any]:
    """Each measure's per-record table (real records: only when asked for)."""
    records = {}
    for g in groups:
        for name, res in g.results.items():
            table = res.records
            if table is not None:
                # one candidate: the measure's name as before; several: kept apart
                records[name if len(groups) == 1 else f"{g.name}: {name}"] = jsonable(table)
    return records


def _date_text(review_date: str | _dt.date) -> str:
    return (
        review_date.isoformat() if isinstance(review_date, _dt.date) else str(review_date).strip()
    )


def _with_verdicts(
    report: ReviewReport,
    thresholds: Mapping[str, Threshold] | None,
    answers: Mapping[str, str] | None,
) -> ReviewReport:
    """The report with each candidate's scorecard and verdict and the checklist."""
    # the one verdict policy (privacy_core.scorecard): each candidate's cards and verdict
    # under the thresholds in force and, when one ran, the calibration on this data
    cal_summary = (report.calibration or {}).get("summary")
    cards = {
        c["name"]: scorecard(c["metrics"], thresholds=thresholds, calibration=cal_summary)
        for c in report.candidates
    }
    for c in report.candidates:
        c.update(verdict_of(cards[c["name"]]).to_dict())
    report = dataclasses.replace(
        report,
        scorecards={n: [card.to_dict() for card in cs] for n, cs in cards.items()},
    )
    checklist = consensus_checklist(report.to_dict(), answers=answers, thresholds=report.thresholds)
    return dataclasses.replace(report, checklist=checklist.to_dict())


def reference_record(
    references: Mapping[str, Mapping[str, MetricResult | None]],
) -> dict[str, dict[str, dict[str, Any]]]:
    """Measure -> reference kind (``half``, ``self``, ``histogram``) -> its headline
    (``value``, ``ci``): the same statistic as the candidates' (RAPID: the strongest
    attacker), aggregates only."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for measure, by_kind in references.items():
        kinds = {}
        for kind, res in by_kind.items():
            # the same statistic as the candidates' headline (RAPID: strongest attacker)
            head = None if res is None else headline(measure, res.to_dict())
            if head is None:
                continue
            kinds[kind] = {
                "value": head.value,
                "ci": None if head.ci is None else list(head.ci),
            }
        if kinds:
            out[measure] = kinds
    return out


def _default_group_name(release_names: Sequence[str]) -> str:
    return release_names[0] if len(release_names) == 1 else "all releases (replicates)"


def _check_groups(groups: Sequence[ReleaseGroup], release_names: Sequence[str]) -> None:
    """Every release in exactly one group, every group's releases among the inputs."""
    names = [g.name for g in groups]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ParameterError(
            f"build_report: group names must be distinct; {dup} appear more "
            "than once. Rename a group."
        )
    listed = [r for g in groups for r in g.releases]
    unknown = sorted(set(listed) - set(release_names))
    if unknown:
        raise ParameterError(
            f"build_report: groups name releases {unknown} that are not among "
            f"the synthetic inputs {list(release_names)}."
        )
    twice = sorted({r for r in listed if listed.count(r) > 1})
    if twice:
        raise ParameterError(
            f"build_report: releases {twice} are in more than one group; a "
            "release belongs to one candidate."
        )
    alone = [r for r in release_names if r not in listed]
    if alone:
        raise ParameterError(
            f"build_report: releases {alone} are in no group; put each release in one."
        )


def calibration_record(calibration: CalibrationResult) -> dict[str, Any]:
    """The report's calibration section: ``CalibrationResult.to_dict()`` (values per
    measure, mode, ratio and level; the summary keyed ``metric`` or ``metric:mode``; the
    settings) with each summary's display label. No record-level data exists in it."""
    d = calibration.to_dict()
    for key, summary in d["summary"].items():
        metric, _, mode = key.partition(":")
        spec = MEASURES.get(metric)
        label = spec.label if spec else metric
        summary["label"] = f"{label} ({mode})" if mode else label
        summary["metric"], summary["mode"] = metric, mode or "default"
    return d


def _calibration_status(summary: Mapping[str, Any], stopped: bool, complete: bool = True) -> str:
    if stopped and not complete:
        return "incomplete (stopped)"
    if summary.get("pass"):
        return "pass"
    if summary.get("verdict") == "inconclusive":
        return "inconclusive (more rows or attacks needed)"
    return "uncalibrated on this data"


def _calibration_complete(cal: Mapping[str, Any]) -> dict[str, bool]:
    """Per summary key: did every (level, ratio) of the run produce a row?"""
    need = {(float(lv), float(r)) for lv in cal.get("levels", []) for r in cal.get("ratios", [])}
    have: dict[str, set[tuple[float, float]]] = {}
    for row in cal.get("rows", []):
        key = row["metric"] if row["mode"] == "default" else f"{row['metric']}:{row['mode']}"
        have.setdefault(key, set()).add((float(row["level"]), float(row["ratio"])))
    return {key: need <= have.get(key, set()) for key in cal.get("summary", {})}


def calibration_rows(report_dict: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The calibration summary of a report as display rows (empty without one)."""
    cal = report_dict.get("calibration")
    if not cal:
        return []
    complete = _calibration_complete(cal)
    stopped = bool(cal.get("stopped"))
    return [
        {
            "measure": s.get("label", key),
            "key": key,
            "status": _calibration_status(s, stopped, complete.get(key, True)),
            "floor": s.get("floor"),
            "ceiling": s.get("ceiling"),
            "ratio_gap": s.get("ratio_gap"),
            "ratio_gap_beyond_noise": s.get("ratio_gap_beyond_noise"),
            "monotone": s.get("monotone"),
            "reasons": "; ".join(s.get("reasons") or []),
            "note": s.get("note") or "",
        }
        for key, s in cal.get("summary", {}).items()
    ]


def contract_text(cal: Mapping[str, Any]) -> str:
    """The calibration contract's lines in words, as the run recorded them (the engine's
    defaults where it did not), for the exports' calibration sections."""
    c = {
        "floor_max": FLOOR_MAX,
        "floor_upper_max": FLOOR_UPPER_MAX,
        "ceiling_min": CEILING_MIN,
        "ratio_gap_max": RATIO_GAP_MAX,
        **(cal.get("params", {}).get("contract") or {}),
    }
    return (
        f"floor at most {c['floor_max']:g} with its upper bound at most "
        f"{c['floor_upper_max']:g} (a wider interval is inconclusive, never a pass), "
        f"ceiling at least {c['ceiling_min']:g} (or its documented ceiling), rising with "
        "f_l within the measure's response band, ratio gap at most "
        f"{c['ratio_gap_max']:g} (inconclusive where the readings' intervals are too wide "
        "to see it)"
    )


def _version() -> str:
    return __version__


def group_words(candidate: Mapping[str, Any]) -> str:
    """What a candidate is made of: one release, or n replicates (read as mean ± sd)."""
    n = int(candidate.get("n_releases", 1))
    return "1 release" if n == 1 else f"{n} replicates of one generator (mean ± sd)"


def prefixed_name(
    candidate: Mapping[str, Any], name: str, candidates: Sequence[Mapping[str, Any]]
) -> str:
    """A measure's name, prefixed with its candidate's when there are several."""
    return name if len(candidates) == 1 else f"{candidate['name']}: {name}"


def candidates_sentence(candidates: Sequence[Mapping[str, Any]]) -> str:
    """One sentence on the candidates of a report: one, or several never averaged."""
    if len(candidates) == 1:
        c = candidates[0]
        return (
            f"One candidate, {c['name']} ({group_words(c)})."
            if c["n_releases"] > 1
            else f"One candidate: {c['name']}."
        )
    return (
        f"{len(candidates)} candidates side by side, each evaluated on its own releases: "
        "values are averaged only over replicates of one generator (consensus R10), "
        "never across candidates. 'not computed' means the measure was not run for that "
        "candidate."
    )


def unit_note(params: Mapping[str, Any]) -> str:
    """The unit of RAPID's continuous tolerance ε, said in words.

    The RAPID paper (``rapid-attribute-inference.md`` §2.3) writes ε as a percentage
    ("within 10 %") while the engine stores a proportion (0.10): a reader comparing the
    report with the paper needs the unit next to the number.
    """
    eps, error = params.get("epsilon"), params.get("error")
    if params.get("kind") != "continuous" or not isinstance(eps, (int, float)):
        return ""
    if error in ("relative", "symmetric"):
        return (
            f"ε = {eps:g} is a proportion, not a percentage: a record is at risk when the "
            f"{error} prediction error is below {eps:.0%}."
        )
    unit = (
        "units of the sensitive attribute"
        if error == "absolute"
        else "standard deviations of the sensitive attribute"
    )
    return f"ε = {eps:g} is a tolerance in {unit} ({error} error)."


def param_summary(params: Mapping[str, Any]) -> str:
    """The scalar parameters of a measure (lists are shown when short)."""
    parts = []
    for key, value in params.items():
        if isinstance(value, (list, tuple)):
            if len(value) > 8 or any(isinstance(v, (list, dict)) for v in value):
                continue
            value = ", ".join(map(str, value))
        elif isinstance(value, dict):
            continue
        elif isinstance(value, float):
            value = f"{value:.6g}"
        parts.append(f"{key}={value}")
    return "; ".join(parts)


# ============================================================================ HTML export
# The families of the report, in reading order: each gets a section with its measures
# side by side per candidate and the key figure of the page that computes them.
FAMILIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("inference", "Attribute inference (RAPID)", ("rapid", "inference", "ml_inference", "gtcap")),
    (
        "attacks",
        "Privacy attacks: singling out, linkability and reproduced rare combinations",
        (
            "singling_out",
            "singling_out_outliers",
            "reproduced_uniques",
            "individual_risk",
            "sample_uniques",
            "k_anonymity",
            "l_diversity",
            "linkability",
        ),
    ),
    ("similarity", "Similarity indicators (not disclosure measures)", ("ims", "dcr", "knn")),
    ("membership", "Membership inference", ("domias", "membership", "mds")),
    ("fidelity", "Fidelity & utility", ("wasserstein", "mla", "query_error", "discriminator")),
    ("map", "Risk–utility map", ()),
    ("other", "Other measures", ()),
)
FAMILY_INTRO = {
    "inference": "Can an attacker who holds the release and a person's quasi-identifiers "
    "infer their sensitive attribute? RAPID is the share of real records whose "
    "secret a model trained on the release recovers (consensus R1, R2).",
    "attacks": "Attacks on identity: singling a person out, linking their records "
    "across two halves of the columns, and reproducing the real table's rare key "
    "combinations (sdcMicro's sample uniques, k-anonymity violations and key groups "
    "that are not l-diverse); risk is the excess over control records the generator "
    "never saw.",
    "similarity": "Indicators, not disclosure measures (consensus R3): closeness of synthetic "
    "rows to real ones does not show that anyone's data is revealed. Read them "
    "next to the disclosure measures above.",
    "membership": "Can an attacker tell whether a person's record was in the training data?",
    "fidelity": "How close the release is to the real data, and how useful for analysis "
    "(lower distance is closer; the discriminator's ideal is 0.5).",
    "map": "Each candidate's risk against its utility, with the reference releases.",
    "other": "",
}
REFERENCE_LABELS = {
    "half": "HALF (a fresh real sample)",
    "self": "SELF (a copy of the real data)",
    "histogram": "HISTOGRAM (independent marginals)",
}


@dataclass(frozen=True)
class ReportFigure:
    """A figure for the HTML report: the family section it belongs to (a key of
    :data:`FAMILIES`, or ``"calibration"``), its title, the plotly figure and, when it shows
    one candidate only, that candidate's name."""

    family: str
    title: str
    figure: Any
    candidate: str | None = None
    caption: str = ""


def family_of(measure: str) -> str:
    name = measure.split(":")[0].split("@")[0]
    for key, _, names in FAMILIES:
        if name in names:
            return key
    return "other"


def reference_reading(
    value: float | None, refs: Mapping[str, Any] | None, summary: Mapping[str, Any] | None = None
) -> str:
    """Where a candidate's value sits against the data's own references (HALF, SELF) and the
    calibration's floor and ceiling on this data, in words; '' when none was computed."""
    if value is None:
        return ""
    parts = []
    half = (refs or {}).get("half")
    copy = (refs or {}).get("self")
    if half is not None:
        h = half["value"]
        lo, hi = half.get("ci") or (h, h)
        if lo <= value <= hi:
            parts.append(f"within HALF's interval ({lo:.3f} – {hi:.3f})")
        elif value > hi:
            text = f"{value - hi:.3f} above HALF's interval (HALF {h:.3f})"
            if copy is not None and copy["value"] != h:
                share = (value - h) / (copy["value"] - h)
                text += (
                    f", {share:.0%} of the way from HALF to SELF ({copy['value']:.3f})"
                    if 0 <= share <= 1
                    else f", beyond SELF ({copy['value']:.3f})"
                    if share > 1
                    else ""
                )
            parts.append(text)
        else:
            parts.append(f"{lo - value:.3f} below HALF's interval (HALF {h:.3f})")
    elif copy is not None:
        parts.append(f"SELF (a copy) reads {copy['value']:.3f}")
    if summary and summary.get("floor") is not None and summary.get("ceiling") is not None:
        parts.append(
            f"calibration on this data: floor {summary['floor']:.3f} (unseen rows), "
            f"ceiling {summary['ceiling']:.3f} (full copy)"
            + ("" if summary.get("pass") else " — uncalibrated on this data")
        )
    return "; ".join(parts)


def calibration_summary_of(d: Mapping[str, Any], measure: str) -> Mapping[str, Any] | None:
    """The calibration summary of one measure in a report's dict; None without one."""
    cal = d.get("calibration") or {}
    return (cal.get("summary") or {}).get(measure)


# a scorecard level in words and a symbol (never colour alone), as the exports print it
LEVEL_MARK = {
    "green": "✓ below",
    "amber": "! over amber",
    "red": "✗ over red",
    "inconclusive": "? inconclusive",
    "uninformative": "~ uninformative",
    "none": "– none",
}


def format_plain(value: Any) -> str:
    """A table cell as plain text: '-' for None, floats to 4 decimals."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)
