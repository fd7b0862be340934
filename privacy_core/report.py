"""The review report: an auditable, JSON-serialisable record of a review; HTML and PDF exports.

A report holds provenance (file names, row counts, content fingerprints, seeds), the
schema and threat model, every measure's headline value with interval, baseline,
direction and parameters, the reviewer's decision and notes, the calibration of the
measures on this data when one was run (aggregates only: floors, ceilings, verdicts), and,
only when asked, per-record tables. The HTML export is one self-contained file (plotly's
JavaScript is embedded once) that opens offline; the PDF export (fpdf2) is the printable
sign-off sheet, aggregates only.

Releases come in groups (:class:`ReleaseGroup`). A group holds the replicates of one
generator configuration: its measures are computed over the group's releases together,
averaged, and reported with their mean and spread and each release's own value
(consensus R10). Different groups are distinct *candidates* for release: they are never
averaged, and every table of the report (JSON ``candidates``, HTML, PDF) shows them side
by side, one column per candidate.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as _dt
import functools
import gzip
import html
import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from .calibration import CEILING_MIN, FLOOR_MAX, RATIO_GAP_MAX
from .checklist import consensus_checklist
from .data import Schema, fingerprint
from .errors import ParameterError
from .measures import MEASURES, goal_phrase
from .results import MetricResult, jsonable
from .scorecard import Threshold, scorecard, thresholds_record
from .threat import ThreatModel
from .version import __version__

if TYPE_CHECKING:
    from .calibration import CalibrationResult

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
    if (results is None) == (groups is None):
        raise ParameterError(
            "build_report: give either results= (one candidate) or groups= "
            "(one or more candidates), not " + ("both." if results is not None else "neither.")
        )
    if groups is None:
        groups = [ReleaseGroup(_default_group_name(syn_names), tuple(syn_names), results or {})]
    _check_groups(groups, syn_names)
    group_of = {r: g.name for g in groups for r in g.releases}
    provenance = {
        "real": {
            "name": names.get("real", "real"),
            "rows": len(real),
            "fingerprint": fingerprint(real),
        },
        "synthetic": [
            {"name": n, "rows": len(s), "fingerprint": fingerprint(s), "group": group_of[n]}
            for n, s in zip(syn_names, synthetic, strict=False)
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
    candidates: list[dict[str, Any]] = [
        {
            "name": g.name,
            "releases": list(g.releases),
            "n_releases": len(g.releases),
            "metrics": {m: {**res.to_dict(), "name": res.name} for m, res in g.results.items()},
        }
        for g in groups
    ]
    records = {}
    if include_records:
        for g in groups:
            for name, res in g.results.items():
                table = res.records
                if table is not None:
                    # one candidate: the measure's name as before; several: kept apart
                    records[name if len(groups) == 1 else f"{g.name}: {name}"] = jsonable(table)
    created = _dt.datetime.now(_dt.UTC)
    if review_date is None:
        review_date = created.date()
    report = ReviewReport(
        created=created.isoformat(timespec="seconds"),
        provenance=provenance,
        schema=schema.to_dict(),
        threat=threat.to_dict(),
        candidates=candidates,
        decision=decision if decision in DECISIONS else "undecided",
        notes=notes,
        records=records,
        calibration=None if calibration is None else calibration_record(calibration),
        reviewer=str(reviewer or "").strip(),
        role=str(role or "").strip(),
        review_date=(
            review_date.isoformat()
            if isinstance(review_date, _dt.date)
            else str(review_date).strip()
        ),
        references=_reference_record(references or {}),
        alternatives=[dict(a) for a in alternatives],
        thresholds=thresholds_record(thresholds, set_by=thresholds_set_by),
        scorecards={
            c["name"]: [card.to_dict() for card in scorecard(c["metrics"], thresholds=thresholds)]
            for c in candidates
        },
    )
    checklist = consensus_checklist(report.to_dict(), answers=answers, thresholds=report.thresholds)
    return dataclasses.replace(report, checklist=checklist.to_dict())


def _reference_record(
    references: Mapping[str, Mapping[str, MetricResult | None]],
) -> dict[str, dict[str, dict[str, Any]]]:
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for measure, by_kind in references.items():
        kinds = {}
        for kind, res in by_kind.items():
            if res is None or res.value is None:
                continue
            ci = res.ci if res.ci is not None and all(c is not None for c in res.ci) else None
            kinds[kind] = {
                "value": float(res.value),
                "ci": None if ci is None else [float(ci[0]), float(ci[1])],
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


def replicate_spread(metric: Mapping[str, Any]) -> tuple[list[float], float | None]:
    """The per-release values of a measure over a group's replicates and their standard
    deviation (consensus R10: report the individual releases and their mean and spread).

    Reads the engine's three spellings: ``replicates`` (a list, ``combine_replicates``),
    ``replicates.rates`` (RAPID) and ``replicate_values`` (Wasserstein). One release: ([],
    None).
    """
    reps = metric.get("replicates")
    values: Any = None
    if isinstance(reps, Mapping):
        values = reps.get("rates")
    elif isinstance(reps, (list, tuple)):
        values = reps
    if values is None and isinstance(metric.get("replicate_values"), (list, tuple)):
        values = metric["replicate_values"]
    vals = [float(v) for v in (values or []) if isinstance(v, (int, float))]
    if len(vals) < 2:
        return [], None
    mean = sum(vals) / len(vals)
    sd = (sum((v - mean) ** 2 for v in vals) / (len(vals) - 1)) ** 0.5
    return vals, sd


def candidate_table(report_dict: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The results side by side: one row per measure, one cell per candidate.

    Each cell is None (not computed for that candidate) or ``{"value", "ci", "baseline",
    "sd", "replicates", "n_releases"}``; ``sd`` and ``replicates`` are set for a group of
    several replicates. Rows keep the order in which measures first appear.
    """
    cands = report_dict.get("candidates") or []
    order: list[str] = []
    for c in cands:
        order.extend(m for m in c["metrics"] if m not in order)
    rows = []
    for name in order:
        spec = MEASURES.get(name)
        cells: dict[str, dict[str, Any] | None] = {}
        goal = ""
        for c in cands:
            m = c["metrics"].get(name)
            if m is None:
                cells[c["name"]] = None
                continue
            goal = goal or (goal_phrase(name) if spec else f"{m.get('goal', '')} is better")
            reps, sd = replicate_spread(m)
            ci = m.get("ci")
            cells[c["name"]] = {
                "value": m.get("value"),
                "ci": ci if ci and None not in ci else None,
                "baseline": m.get("baseline"),
                "sd": sd,
                "replicates": reps,
                "n_releases": int(c.get("n_releases", 1)),
            }
        rows.append(
            {
                "key": name,
                "label": spec.label if spec else name,
                "indicator": bool(spec and spec.indicator),
                "description": spec.description if spec else "",
                "goal": goal,
                "cells": cells,
            }
        )
    return rows


def format_cell(cell: Mapping[str, Any] | None, *, digits: int = 4) -> str:
    """One candidate's reading as text: value, interval, and for replicates mean ± sd over
    n releases with each release's value."""
    if cell is None:
        return "not computed"
    value = cell.get("value")
    text = "—" if value is None else f"{value:.{digits}f}"
    if cell.get("sd") is not None:
        reps = ", ".join(f"{v:.{digits}f}" for v in cell["replicates"])
        text = (
            f"mean {text} ± {cell['sd']:.{digits}f} sd over {len(cell['replicates'])} "
            f"replicates ({reps})"
        )
    ci = cell.get("ci")
    if ci:
        text += f"; 95% CI {ci[0]:.{digits}f} – {ci[1]:.{digits}f}"
    if cell.get("baseline") is not None:
        text += f"; baseline {cell['baseline']:.{digits}f}"
    return text


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
    return "pass" if summary.get("pass") else "uncalibrated on this data"


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


def _contract(cal: Mapping[str, Any]) -> str:
    c = {
        "floor_max": FLOOR_MAX,
        "ceiling_min": CEILING_MIN,
        "ratio_gap_max": RATIO_GAP_MAX,
        **(cal.get("params", {}).get("contract") or {}),
    }
    return (
        f"floor at most {c['floor_max']:g} (or its interval reaching 0), ceiling at "
        f"least {c['ceiling_min']:g} (or its documented ceiling), rising with f_l, ratio "
        f"gap at most {c['ratio_gap_max']:g} (or at most that beyond its readings' "
        "intervals)"
    )


def _calibration_html(d: Mapping[str, Any]) -> str:
    rows = calibration_rows(d)
    if not rows:
        return ""
    cal = d["calibration"]
    params = cal.get("params", {})
    body = "".join(
        f"<tr><td><b>{html.escape(r['measure'])}</b><br><code>{html.escape(r['key'])}</code>"
        f"</td><td>{'✓ ' if r['status'] == 'pass' else '✗ ' if 'uncal' in r['status'] else ''}"
        f"{html.escape(r['status'])}</td><td>{_fmt(r['floor'])}</td><td>{_fmt(r['ceiling'])}"
        f"</td><td>{_fmt(r['ratio_gap'])}</td><td>{'yes' if r['monotone'] else 'no'}</td>"
        f"<td>{html.escape(r['reasons'])}</td><td>{html.escape(r['note'])}</td></tr>"
        for r in rows
    )
    ratios = ", ".join(f"{r:g}:1" for r in cal.get("ratios", []))
    levels = ", ".join(f"{v:g}" for v in cal.get("levels", []))
    stopped = (
        " <b>The run was stopped early: measures marked incomplete have provisional values.</b>"
        if cal.get("stopped")
        else ""
    )
    return f"""<h2>Calibration of the measures on this data</h2>
<p>Each measure was run on leaky reference releases of the real rows (a share f_l copied from
training, the rest unseen real rows; f_l = {html.escape(levels)}) at training:holdout ratios
{html.escape(ratios)}, on {_esc(params.get("n_training", "?"))} training rows, seed
{_esc(params.get("seed", "?"))}. <i>Floor</i>: the value on unseen real rows; <i>ceiling</i>: on a
full copy (at the smallest ratio, 1:1 by default); <i>ratio gap</i>: the largest change between
ratios. A measure passes with its {html.escape(_contract(cal))}.{stopped}</p>
<table><tr><th>measure</th><th>verdict</th><th>floor</th><th>ceiling</th><th>ratio gap</th>
<th>monotone</th><th>reasons</th><th>note</th></tr>
{body}</table>"""


def _version() -> str:
    return __version__


def _fmt(value: Any) -> str:
    return "—" if value is None else html.escape(_fmt_plain(value))


def _group_words(candidate: Mapping[str, Any]) -> str:
    n = int(candidate.get("n_releases", 1))
    return "1 release" if n == 1 else f"{n} replicates of one generator (mean ± sd)"


def _prefixed(
    candidate: Mapping[str, Any], name: str, candidates: Sequence[Mapping[str, Any]]
) -> str:
    return name if len(candidates) == 1 else f"{candidate['name']}: {name}"


def _candidates_sentence(candidates: Sequence[Mapping[str, Any]]) -> str:
    if len(candidates) == 1:
        c = candidates[0]
        return (
            f"One candidate, {c['name']} ({_group_words(c)})."
            if c["n_releases"] > 1
            else f"One candidate: {c['name']}."
        )
    return (
        f"{len(candidates)} candidates side by side, each evaluated on its own releases: "
        "values are averaged only over replicates of one generator (consensus R10), "
        "never across candidates. 'not computed' means the measure was not run for that "
        "candidate."
    )


def _unit_note(params: Mapping[str, Any]) -> str:
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


def _param_summary(params: Mapping[str, Any]) -> str:
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
    ("attacks", "Privacy attacks: singling out and linkability", ("singling_out", "linkability")),
    ("similarity", "Similarity indicators (not disclosure measures)", ("ims", "dcr", "knn")),
    ("membership", "Membership inference", ("domias", "membership")),
    ("fidelity", "Fidelity & utility", ("wasserstein", "mla", "query_error", "discriminator")),
    ("map", "Risk–utility map", ()),
    ("other", "Other measures", ()),
)
FAMILY_INTRO = {
    "inference": "Can an attacker who holds the release and a person's quasi-identifiers "
    "infer their sensitive attribute? RAPID is the share of real records whose "
    "secret a model trained on the release recovers (consensus R1, R2).",
    "attacks": "Attacks on identity: singling a person out, and linking their records "
    "across two halves of the columns; risk is the excess of success on "
    "training records over control records the generator never saw.",
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


def _cal_summary(d: Mapping[str, Any], measure: str) -> Mapping[str, Any] | None:
    cal = d.get("calibration") or {}
    return (cal.get("summary") or {}).get(measure)


@functools.lru_cache(maxsize=1)
def _plotly_bundle() -> str:
    """plotly.js, gzip-compressed and base64-encoded: 4.8 MB of JavaScript become about
    2 MB, decompressed by the browser itself (DecompressionStream) when the report opens;
    mtime 0 keeps the bytes, and so the report, reproducible."""
    from plotly.offline import get_plotlyjs

    packed = gzip.compress(get_plotlyjs().encode("utf-8"), compresslevel=9, mtime=0)
    return base64.b64encode(packed).decode("ascii")


_LOADER = """<script>
(async () => {
  const figs = document.querySelectorAll("div.figure[data-fig]");
  if (!figs.length) return;
  try {
    const b64 = document.getElementById("plotly-bundle").textContent.trim();
    const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    (0, eval)(await new Response(stream).text());
    for (const el of figs) {
      const spec = JSON.parse(document.getElementById(el.dataset.fig).textContent);
      Plotly.newPlot(el, spec.data, spec.layout, {displaylogo: false, responsive: true});
    }
  } catch (err) {
    for (const el of figs) el.textContent = "This browser could not draw the figure (" + err
      + "); the tables hold every number.";
  }
})();
</script>"""

MAX_POINTS = 400  # per trace: a line of 400 points is smooth at report width


def _round(value: Any, digits: int = 4) -> Any:
    """Round floats to ``digits`` significant digits (a figure needs no more; 17-digit
    floats are most of a figure's JSON)."""
    if isinstance(value, float):
        if not np.isfinite(value):
            return None
        return float(f"{value:.{digits}g}")
    if isinstance(value, dict):
        return {k: _round(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_round(v, digits) for v in value]
    if isinstance(value, np.ndarray):
        return _round(value.tolist(), digits)
    if isinstance(value, np.generic):
        return _round(value.item(), digits)
    return value


def _histogram_to_bars(trace: dict[str, Any], edges: np.ndarray) -> dict[str, Any]:
    """A histogram of raw values as bars of its bin counts: the same picture, without
    shipping every record's value (nor a real record) in the report."""
    x = pd.to_numeric(pd.Series(list(trace.get("x", []))), errors="coerce").dropna().to_numpy()
    counts, _ = np.histogram(x, bins=edges)
    norm = trace.get("histnorm") or ""
    y = counts.astype(float)
    if norm in ("probability", "percent") and counts.sum():
        y = y / counts.sum() * (100 if norm == "percent" else 1)
    elif norm == "probability density" and counts.sum():
        y = y / counts.sum() / np.diff(edges)
    keep = {
        k: v
        for k, v in trace.items()
        if k
        in (
            "name",
            "marker",
            "opacity",
            "showlegend",
            "legendgroup",
            "xaxis",
            "yaxis",
            "marker_color",
        )
    }
    return {
        **keep,
        "type": "bar",
        "x": (edges[:-1] + edges[1:]) / 2,
        "y": y,
        "width": np.diff(edges),
    }


def _decode(value: Any) -> Any:
    """plotly's typed arrays (``{"dtype", "bdata"[, "shape"]}``, base64 of the raw bytes)
    back to numbers, so they can be binned, thinned and rounded."""
    if isinstance(value, dict):
        if "bdata" in value and "dtype" in value:
            arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
            shape = value.get("shape")
            if shape:
                dims = (
                    [int(x) for x in str(shape).split(",")]
                    if isinstance(shape, str)
                    else list(shape)
                )
                arr = arr.reshape(dims)
            return arr.tolist()
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_decode(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def slim_figure(fig: Any, *, max_points: int = MAX_POINTS) -> dict[str, Any]:
    """A plotly figure as light JSON for the report: histograms binned into bars, traces of
    more than ``max_points`` points thinned (keeping both ends), floats at 4 significant
    digits, plotly's default template left out (the browser's plotly.js has it)."""
    spec = _decode(fig.to_plotly_json() if hasattr(fig, "to_plotly_json") else dict(fig))
    data = [dict(t) for t in spec.get("data", [])]
    raw = [t for t in data if t.get("type") == "histogram" and t.get("x") is not None]
    if raw:
        values = np.concatenate(
            [
                pd.to_numeric(pd.Series(list(t["x"])), errors="coerce").dropna().to_numpy()
                for t in raw
            ]
            or [np.zeros(0)]
        )
        nbins = max(int(t.get("nbinsx") or 30) for t in raw)
        if values.size:
            lo, hi = float(values.min()), float(values.max())
            edges = np.linspace(lo, hi if hi > lo else lo + 1, min(nbins, 80) + 1)
            data = [_histogram_to_bars(t, edges) if t in raw else t for t in data]
    for t in data:
        n = max(
            (
                len(t[k])
                for k in ("x", "y")
                if hasattr(t.get(k), "__len__") and not isinstance(t.get(k), str)
            ),
            default=0,
        )
        if n > max_points and t.get("type", "scatter") in ("scatter", "scattergl"):
            idx = np.unique(np.linspace(0, n - 1, max_points).round().astype(int))
            for k in ("x", "y", "text", "customdata"):
                if (
                    hasattr(t.get(k), "__len__")
                    and not isinstance(t.get(k), str)
                    and len(t[k]) == n
                ):
                    t[k] = [list(t[k])[i] for i in idx]
    layout = dict(spec.get("layout", {}))
    layout.pop("template", None)
    return {"data": _round(data), "layout": _round(layout)}


def _figure_html(fig: Any, fig_id: str) -> str:
    spec = json.dumps(slim_figure(fig), separators=(",", ":"), default=str)
    # inside <script>: no "<" at all, so no user-supplied "</script>" can close it
    spec = spec.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    height = int((slim_figure_height(fig)) or 420)
    return (
        f'<div class="figure" data-fig="{fig_id}-data" style="min-height:{height}px">'
        f'</div><script type="application/json" id="{fig_id}-data">{spec}</script>'
    )


def slim_figure_height(fig: Any) -> int | None:
    try:
        return int(fig.layout.height) if fig.layout.height else None
    except AttributeError:
        return None


def _esc(value: Any) -> str:
    return html.escape(str(value))


def _measure_rows(
    d: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], cands: Sequence[Mapping[str, Any]]
) -> str:
    refs = d.get("references") or {}
    kinds = [
        k for k in ("half", "self", "histogram") if any(k in refs.get(r["key"], {}) for r in rows)
    ]
    head = (
        "<tr><th>measure</th>"
        + "".join(f"<th>{_esc(c['name'])}<br><small>{_group_words(c)}</small></th>" for c in cands)
        + "".join(f"<th>{_esc(REFERENCE_LABELS[k])}</th>" for k in kinds)
        + "<th>direction</th><th>what it measures</th></tr>"
    )
    body = []
    for row in rows:
        reading = row["description"]
        if row["indicator"]:
            reading = "Indicator, not a disclosure measure. " + reading
        r_refs = refs.get(row["key"], {})
        cells = []
        for c in cands:
            cell = row["cells"][c["name"]]
            where = reference_reading(
                None if cell is None else cell.get("value"), r_refs, _cal_summary(d, row["key"])
            )
            cells.append(
                f"<td>{_esc(format_cell(cell))}"
                + (f'<br><span class="reading">{_esc(where)}</span>' if where else "")
                + "</td>"
            )
        ref_cells = "".join(
            "<td>"
            + (_esc(format_cell({**r_refs[k], "sd": None})) if k in r_refs else "—")
            + "</td>"
            for k in kinds
        )
        body.append(
            f"<tr><td><b>{_esc(row['label'])}</b><br><code>{_esc(row['key'])}"
            f"</code></td>{''.join(cells)}{ref_cells}<td>{_esc(row['goal'])}"
            f"</td><td>{_esc(reading)}</td></tr>"
        )
    return f"<table>{head}{''.join(body)}</table>"


def _figures_by_family(
    figures: Mapping[str, Any] | Sequence[ReportFigure] | None,
) -> dict[str, list[ReportFigure]]:
    out: dict[str, list[ReportFigure]] = {}
    if not figures:
        return out
    if isinstance(figures, Mapping):  # {title: figure}: placed by the words of its title
        items = []
        for title, fig in figures.items():
            low = title.lower()
            family = (
                "calibration"
                if "calibration" in low
                else "inference"
                if "rapid" in low
                else "map"
                if "map" in low
                else "fidelity"
                if "fidelity" in low or "utility" in low
                else "other"
            )
            items.append(ReportFigure(family, title, fig))
        figures = items
    for f in figures:
        out.setdefault(f.family, []).append(f)
    return out


def _drill_down_html(d: Mapping[str, Any], n: int = 5) -> str:
    recs = d.get("records") or {}
    if not recs:
        return ""
    parts = [
        '<section id="drill-down"><h2>Drill-down examples</h2><p class="warn">The '
        "reviewer asked for per-record tables: they contain real records. Keep this file "
        f"in an access-controlled archive. Shown: the first {n} records of each measure's "
        "table (the JSON export holds them all).</p>"
    ]
    for name, rows in recs.items():
        frame = pd.DataFrame(rows)
        sort = next((c for c in ("score", "risk", "value") if c in frame), None)
        if sort is not None and pd.api.types.is_numeric_dtype(frame[sort]):
            frame = frame.sort_values(sort, ascending=False)
        parts.append(
            f"<h3>{_esc(name)}: per-record table <small>({len(frame):,} records, "
            f"{min(n, len(frame))} shown)</small></h3>"
            + frame.head(n).to_html(index=False, escape=True, float_format="%.4g")
        )
    return "".join(parts) + "</section>"


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 1150px; margin: 2rem auto; color: #222;
       line-height: 1.4; padding: 0 1rem; }
table { border-collapse: collapse; margin: .8rem 0; font-size: .92rem; }
td, th { border: 1px solid #ccc; padding: .3rem .6rem; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } code { font-size: .85em; }
.decision { font-size: 1.2rem; padding: .6rem 1rem; background: #eef4fb;
            border-left: 4px solid #1f5fa8; }
.signoff td { border: none; padding: .1rem .8rem .1rem 0; }
.reading { color: #555; font-size: .85em; }
.warn { background: #fff4e5; border-left: 4px solid #e8590c; padding: .4rem .8rem; }
nav.toc { background: #f7f7f7; padding: .5rem 1rem; border: 1px solid #ddd; }
nav.toc li { margin: .1rem 0; }
.figure { width: 100%; }
.figs.side { display: grid; grid-template-columns: repeat(auto-fit, minmax(480px, 1fr));
             gap: 0 1.2rem; }
h2 { border-bottom: 2px solid #1f5fa8; padding-bottom: .2rem; margin-top: 2.2rem; }
@media print { nav.toc { display: none; } }
.lvl-green, .st-met { background: #e6f4ea; } .lvl-amber, .st-needs-reviewer { background: #fff4e5; }
.lvl-red, .st-not-met { background: #fdecea; } .lvl-none, .st-not-applicable { color: #666; }
"""


_LEVEL_MARK = {"green": "✓ within", "amber": "! review", "red": "✗ above", "none": "– none"}


def _scorecard_html(d: Mapping[str, Any]) -> str:
    """Each candidate's cards: level in words (and colour), the measure behind it, the
    lines crossed; then the thresholds in force and who set them."""
    rows = []
    for cand, cards in d["scorecards"].items():
        for card in cards:
            readings = "<br>".join(_esc(f"{r['label']}: {r['words']}") for r in card["readings"])
            rows.append(
                f"<tr><td>{_esc(cand)}</td><td><b>{_esc(card['title'])}</b>"
                + (" <i>(indicator, R3)</i>" if card.get("indicator") else "")
                + f"</td><td class='lvl-{card['level']}'>{_esc(_LEVEL_MARK[card['level']])}"
                f"</td><td>{readings or _esc(card['note'])}"
                + (f"<br><i>{_esc(card['note'])}</i>" if readings and card["note"] else "")
                + "</td></tr>"
            )
    th = d.get("thresholds") or {}
    changed = th.get("changed") or []
    who = th.get("set_by") or "not stated"
    return (
        "<table><tr><th>candidate</th><th>family</th><th>reading</th><th>evidence</th>"
        f"</tr>{''.join(rows)}</table><p class='reading'>Thresholds set by: {_esc(who)}. "
        + (
            f"Changed from the product defaults: {_esc(', '.join(changed))}. "
            if changed
            else "All at the product defaults. "
        )
        + "Amber and red lines are policy, not science: the consensus framework found no "
        "agreed thresholds for attribute disclosure.</p>"
    )


def _alternatives_html(d: Mapping[str, Any]) -> str:
    """Each mitigation tried, and each measure before and after it."""
    out = []
    for a in d["alternatives"]:
        rows = "".join(
            f"<tr><td>{_esc(MEASURES[m].label if m in MEASURES else m)}</td>"
            f"<td>{_esc(format_cell({'value': v.get('before'), 'ci': v.get('before_ci')}))}</td>"
            f"<td>{_esc(format_cell({'value': v.get('after'), 'ci': v.get('after_ci')}))}</td>"
            f"<td>{_esc(v.get('better', ''))}</td></tr>"
            for m, v in (a.get("measures") or {}).items()
        )
        out.append(
            f"<h3>{_esc(a.get('candidate', ''))}: {_esc(a.get('description', ''))}</h3>"
            + "".join(f"<p class='reading'>{_esc(n)}</p>" for n in a.get("notes") or [])
            + "<table><tr><th>measure</th><th>before</th><th>after</th><th>change</th>"
            f"</tr>{rows}</table>"
        )
    return "".join(out)


def _checklist_html(d: Mapping[str, Any]) -> str:
    cl = d["checklist"]
    rows = "".join(
        f"<tr><td><b>{_esc(i['code'])}</b> {_esc(i['title'])}</td>"
        f"<td class='st-{i['status'].replace(' ', '-')}'>{_esc(i['status'])}</td>"
        f"<td>{_esc(i['evidence'])}<br><span class='reading'>{_esc(i['statement'])}</span>"
        "</td></tr>"
        for i in cl["items"]
    )
    return (
        f"<p>{_esc(cl['summary'])}.</p><table><tr><th>recommendation</th><th>status</th>"
        f"<th>evidence</th></tr>{rows}</table>"
    )


def render_html(
    report: ReviewReport, figures: Mapping[str, Any] | Sequence[ReportFigure] | None = None
) -> str:
    """The report as one self-contained HTML page that opens offline.

    Sections: summary (decision, reviewer, date, candidates side by side read against the
    data's references and the calibration), one section per family of measures with its
    key figures, the calibration, drill-down examples (only when the report carries
    per-record tables), parameters and seeds, and the inputs' provenance. plotly.js is
    embedded once, compressed; figures are slimmed (:func:`slim_figure`). Every
    user-supplied string is escaped.

    ``figures``: :class:`ReportFigure` objects (or ``{title: figure}``, placed by title).
    """
    d = report.to_dict()
    cands = d["candidates"]
    prov = d["provenance"]
    table = candidate_table(d)
    by_family = _figures_by_family(figures)
    sign = d.get("sign_off") or {}
    n_fig = 0
    sections: list[tuple[str, str, str]] = []  # (id, title, body)

    def figs_html(family: str) -> str:
        nonlocal n_fig
        out = []
        figs = by_family.get(family, [])
        for f in figs:
            n_fig += 1
            title = f.title + (f" — {f.candidate}" if f.candidate and len(cands) > 1 else "")
            out.append(
                f'<div class="fig-cell"><h3>{_esc(title)}</h3>'
                + _figure_html(f.figure, f"fig{n_fig}")
                + (f"<p class='reading'>{_esc(f.caption)}</p>" if f.caption else "")
                + "</div>"
            )
        # one figure per candidate: the candidates' figures side by side
        side = sum(1 for f in figs if f.candidate) > 1
        return f'<div class="figs{" side" if side else ""}">{"".join(out)}</div>' if out else ""

    # -- summary
    who = "".join(
        f"<tr><td><b>{label}</b></td><td>{_esc(value) if value else '<i>not given</i>'}</td></tr>"
        for label, value in (
            ("Reviewer", sign.get("reviewer")),
            ("Role", sign.get("role")),
            ("Date", sign.get("date")),
        )
    )
    notes = _esc(d["notes"]).replace("\n", "<br>") if d["notes"] else "<i>none</i>"
    summary = (
        f'<p class="decision">Decision: <b>{_esc(d["decision"])}</b></p>'
        f'<table class="signoff">{who}</table><p><b>Notes:</b> {notes}</p>'
        f"<p>{_esc(_candidates_sentence(cands))}</p>"
        + (_measure_rows(d, table, cands) if table else "<p>No measure computed.</p>")
        + "<p class='reading'>Each cell: value, 95% interval, and where it sits "
        "against the data's own references — HALF (a random half of the real rows "
        "used as a release: what a fresh sample discloses) and SELF (the real rows "
        "themselves: a full copy) — and the calibration's floor and ceiling on this "
        "data, where they were computed.</p>"
    )
    sections.append(("summary", "Summary and decision", summary))
    if d.get("scorecards"):
        sections.append(("scorecard", "Scorecard", _scorecard_html(d)))
    if d.get("checklist"):
        sections.append(("checklist", "Consensus checklist (R1–R10)", _checklist_html(d)))
    if d.get("alternatives"):
        sections.append(("alternatives", "Considered alternatives", _alternatives_html(d)))

    # -- one section per family
    for key, title, _ in FAMILIES:
        rows = [r for r in table if family_of(r["key"]) == key]
        figs = figs_html(key)
        if not rows and not figs:
            continue
        body = f"<p>{_esc(FAMILY_INTRO[key])}</p>" if FAMILY_INTRO[key] else ""
        if rows:
            body += _measure_rows(d, rows, cands)
        body += figs
        sections.append((key, title, body))

    cal_body = _calibration_html(d).replace(
        "<h2>Calibration of the measures on this data</h2>", "", 1
    ) + figs_html("calibration")
    if cal_body.strip():
        sections.append(("calibration", "Calibration of the measures on this data", cal_body))

    drill = _drill_down_html(d)

    # -- parameters, seeds, provenance
    params_html = "".join(
        f"<details><summary>{_esc(_prefixed(c, name, cands))}: "
        f"{_esc(_param_summary(m.get('params', {}))[:160]) or 'parameters'}</summary><pre>"
        f"{_esc(json.dumps(m.get('params', {}), indent=2, default=str))}</pre></details>"
        + (f"<p>{_esc(note)}</p>" if (note := _unit_note(m.get("params", {}))) else "")
        for c in cands
        for name, m in c["metrics"].items()
    )
    syn_rows = "".join(
        f"<li>{_esc(s['name'])}: {s['rows']:,} rows, fingerprint <code>{_esc(s['fingerprint'])}"
        f"</code>, candidate <b>{_esc(s.get('group', ''))}</b></li>"
        for s in prov["synthetic"]
    )
    hold = prov.get("holdout")
    hold_text = (
        (
            f"{_esc(hold['name'])}: {hold['rows']:,} rows, fingerprint "
            f"<code>{_esc(hold['fingerprint'])}</code>"
        )
        if hold
        else "none"
    )
    threat = d["threat"]
    prov_body = (
        f"<h3>Inputs</h3><ul><li>Real: {_esc(prov['real']['name'])}: {prov['real']['rows']:,} "
        f"rows, fingerprint <code>{_esc(prov['real']['fingerprint'])}</code></li>"
        f"<li>Synthetic releases:<ul>{syn_rows}</ul></li><li>Holdout: {hold_text}</li></ul>"
        f"<h3>Threat model</h3><p>Quasi-identifiers: "
        f"{_esc(', '.join(map(str, threat['quasi_identifiers'])))}<br>Sensitive: "
        f"{_esc(', '.join(map(str, threat['sensitive'])))}</p>"
        f"<h3>Parameters and seeds</h3>{params_html or '<p>none</p>'}"
        f"<p>Created {_esc(d['created'])} with {_esc(prov['software'])}. Fingerprints are "
        "content hashes of the tables: recompute them to check this report describes the "
        "files you hold.</p>"
    )

    toc_items = [(sid, title) for sid, title, _ in sections]
    if drill:
        toc_items.append(("drill-down", "Drill-down examples"))
    toc_items.append(("provenance", "Provenance, parameters and seeds"))
    toc = "".join(f'<li><a href="#{sid}">{_esc(t)}</a></li>' for sid, t in toc_items)
    main = "".join(
        f'<section id="{sid}"><h2>{_esc(title)}</h2>{body}</section>'
        for sid, title, body in sections
    )
    bundle = (
        (
            f'<script id="plotly-bundle" type="application/octet-stream">{_plotly_bundle()}'
            f"</script>{_LOADER}"
        )
        if n_fig
        else ""
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Synthetic data privacy review</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{_CSS}</style></head><body>
<h1>Synthetic data privacy review</h1>
<p>Created {_esc(d["created"])} with {_esc(prov["software"])}.
{"Aggregates only." if not d.get("records") else "<b>Contains per-record tables.</b>"}</p>
<nav class="toc"><b>Contents</b><ol>{toc}</ol></nav>
{main}
{drill}
<section id="provenance"><h2>Provenance, parameters and seeds</h2>{prov_body}</section>
{bundle}
</body></html>"""


# ============================================================================ PDF export
# fpdf2's core fonts cover Latin-1 only and no TTF ships with our dependencies: other
# characters are replaced, never dropped, and the sheet lists every replacement made.
_PDF_SPELLING = {
    "–": "-",
    "—": "-",
    "≤": "<=",
    "≥": ">=",
    "κ": "kappa",
    "τ": "tau",
    "ε": "epsilon",
    "α": "alpha",
    "×": "x",
    "’": "'",
    "‘": "'",
    "“": '"',
    "”": '"',
    "…": "...",
    "±": "+/-",
    "✓": "v",
    "✗": "x",
    "→": "->",
    "²": "2",
    "•": "-",
    "∪": "U",
    "€": "EUR",
}
# letters with no Unicode decomposition, written as their base letter
_PDF_LETTERS = {
    "Ł": "L",
    "ł": "l",
    "Đ": "D",
    "đ": "d",
    "Ħ": "H",
    "ħ": "h",
    "ı": "i",
    "Œ": "OE",
    "œ": "oe",
    "Ŧ": "T",
    "ŧ": "t",
    "ŀ": "l",
    "Ŀ": "L",
}


class _Latin1:
    """Text for the core fonts, with a record of what was replaced.

    ``user_chars``: the characters of the user's own strings (names, notes, sign-off).
    Those are listed when replaced even if they are among our own symbols, so a name
    typed with an ε or a – is not silently printed otherwise.
    """

    def __init__(self, user_chars: frozenset[str] = frozenset()) -> None:
        self.replaced: dict[str, str] = {}
        self.user_chars = user_chars

    def __call__(self, value: Any) -> str:
        # composed form first: "e" + combining acute is the Latin-1 "é", not a replacement
        value = unicodedata.normalize("NFC", str(value)).replace("\r\n", "\n")
        out = []
        for ch in value:
            if ch == "\n" or (ord(ch) < 256 and unicodedata.category(ch) != "Cc"):
                out.append(ch)
                continue
            sub = _PDF_SPELLING.get(ch) or _PDF_LETTERS.get(ch)
            if sub is None and unicodedata.category(ch) != "Cc":
                plain = "".join(
                    c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c)
                )
                try:
                    plain.encode("latin-1")
                    sub = plain if plain and plain != ch else None
                except UnicodeEncodeError:
                    sub = None
            if sub is None:
                # control characters too: Latin-1 in name, but the font has no glyph for
                # them (a tab or a bell would vanish, U+0080 would print as a euro sign)
                sub = " " if ch in "\t\r" else f"[U+{ord(ch):04X}]"
            # our own labels' symbols (ε, –, ≥) are spelled out silently; anything else is
            # listed on the sheet, so a reader knows a name was not printed as typed
            if ch not in _PDF_SPELLING or ch in self.user_chars:
                self.replaced[ch] = sub
            out.append(sub)
        return "".join(out)

    def line(self, value: Any) -> str:
        """Text for a one-line cell, where a line break would print as nothing."""
        return self(value).replace("\n", " / ")


def _user_chars(d: Mapping[str, Any]) -> frozenset[str]:
    """Every character of the strings a user typed or named: notes, sign-off, file and
    release names, candidates, columns, and the measures' parameters (column names)."""
    prov = d.get("provenance") or {}
    parts: list[Any] = [
        d.get("notes"),
        d.get("sign_off"),
        d.get("threat"),
        [c.get("name") for c in (d.get("schema") or {}).get("columns", [])],
        {k: v for k, v in prov.items() if k != "software"},
    ]
    for c in d.get("candidates") or []:
        parts += [
            c.get("name"),
            c.get("releases"),
            [m.get("params") for m in (c.get("metrics") or {}).values()],
        ]
    chars: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            chars.update(unicodedata.normalize("NFC", value))
        elif isinstance(value, Mapping):
            for k, v in value.items():
                walk(k)
                walk(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)

    walk(parts)
    return frozenset(chars)


def _clip(value: str, n: int) -> str:
    """At most ``n`` characters, ending in "..." when cut (a chart label's room)."""
    return value if len(value) <= n else value[: n - 3] + "..."


def _replacement_note(replaced: Mapping[str, str]) -> str:
    """The sheet's list of what it did not print as typed: each character's code point and
    Unicode name, and what stands in its place."""
    coded = [ch for ch, sub in replaced.items() if sub == f"[U+{ord(ch):04X}]"]
    spelled = [ch for ch in replaced if ch not in coded]

    def name(ch: str) -> str:
        kind = (
            "control character"
            if unicodedata.category(ch) == "Cc"
            else unicodedata.name(ch, "unnamed character").lower()
        )
        return f"U+{ord(ch):04X} {kind}"

    parts = []
    if spelled:
        parts.append(
            "; ".join(
                f"{name(ch)} -> {replaced[ch]}"
                if replaced[ch].strip()
                else f"{name(ch)} -> a space"
                for ch in spelled
            )
        )
    if coded:
        parts.append(
            "Printed as [U+code] (no Latin-1 equivalent): " + "; ".join(name(ch) for ch in coded)
        )
    return (
        "Characters outside this sheet's Latin-1 font were replaced: "
        + ". ".join(parts)
        + ". The HTML and JSON exports keep every name as typed."
    )


def _interval_chart(
    pdf: Any,
    text: _Latin1,
    row: Mapping[str, Any],
    cands: Sequence[Mapping[str, Any]],
    refs: Mapping[str, Any],
    cal: Mapping[str, Any] | None,
    *,
    x0: float,
    width: float,
) -> None:
    """One measure as a dot-and-interval chart drawn with fpdf2's primitives: a line per
    candidate (dot = value, bar = 95% interval, or ± sd over replicates), reference ticks
    for HALF (green) and SELF (red), and the calibration's floor and ceiling (grey)."""
    wide = width > 150
    label_w, line_h = (48.0 if wide else 28.0), 5.0
    points: list[tuple[str, float | None, Any, Any]] = []
    for c in cands:
        cell = row["cells"][c["name"]]
        if cell is None or cell.get("value") is None:
            points.append((c["name"], None, None, None))
            continue
        v: float | None = float(cell["value"])
        lo_hi = cell.get("ci") or ((v - cell["sd"], v + cell["sd"]) if cell.get("sd") else None)
        points.append((c["name"], v, lo_hi, cell.get("baseline")))
    marks = []
    for kind, colour in (("half", (44, 160, 44)), ("self", (214, 39, 40))):
        if kind in refs:
            marks.append((kind.upper(), float(refs[kind]["value"]), colour))
    if cal and cal.get("floor") is not None and cal.get("ceiling") is not None:
        marks += [
            ("floor", float(cal["floor"]), (140, 140, 140)),
            ("ceiling", float(cal["ceiling"]), (140, 140, 140)),
        ]
    xs = [v for _, v, _, _ in points if v is not None]
    xs += [b for _, _, ci, _ in points if ci for b in ci] + [m[1] for m in marks]
    xs += [float(b) for _, _, _, b in points if b is not None]
    xs = [x for x in xs if np.isfinite(x)]
    if not xs:
        return
    lo, hi = min(xs), max(xs)
    if hi - lo < 1e-9:
        lo, hi = lo - 0.05, hi + 0.05
    pad = (hi - lo) * 0.06
    lo, hi = lo - pad, hi + pad
    value_w = 44.0 if wide else 22.0  # the reading in figures, right of the plot
    plot_x, plot_w = x0 + label_w, width - label_w - value_w - 2

    def sx(v: float) -> float:
        return plot_x + (min(max(v, lo), hi) - lo) / (hi - lo) * plot_w

    top = pdf.get_y()
    pdf.set_font("Helvetica", "B", 8)
    pdf.set_xy(x0, top)
    pdf.cell(
        width,
        4,
        text(row["label"] + (" (indicator)" if row["indicator"] else "") + f"  -  {row['goal']}"),
    )
    y = top + 5
    band_h = line_h * len(points) + 2
    pdf.set_draw_color(200, 200, 200)
    pdf.set_line_width(0.2)
    pdf.rect(plot_x, y, plot_w, band_h)
    pdf.set_font("Helvetica", "", 7)
    for name, v, ci, base in points:
        pdf.set_xy(x0, y + 1)
        pdf.cell(label_w - 1, line_h - 1, _clip(text.line(name), 34 if wide else 18))
        cy = y + 1 + line_h / 2
        if v is None:
            pdf.set_text_color(120, 120, 120)
            pdf.set_xy(plot_x + 2, y + 1)
            pdf.cell(40, line_h - 1, "not computed")
            pdf.set_text_color(0, 0, 0)
        else:
            pdf.set_xy(plot_x + plot_w + 2, y + 1)
            pdf.cell(
                value_w,
                line_h - 1,
                f"{v:.3f}" + (f"  [{ci[0]:.3f}, {ci[1]:.3f}]" if ci and wide else ""),
            )
            if base is not None and np.isfinite(base):
                # the measure's own control (e.g. attack success on unseen records)
                pdf.set_draw_color(255, 127, 14)
                pdf.set_line_width(0.5)
                pdf.line(sx(float(base)), cy - 1.8, sx(float(base)), cy + 1.8)
            pdf.set_draw_color(31, 95, 168)
            pdf.set_line_width(0.6)
            if ci:
                pdf.line(sx(ci[0]), cy, sx(ci[1]), cy)
                pdf.line(sx(ci[0]), cy - 1, sx(ci[0]), cy + 1)
                pdf.line(sx(ci[1]), cy - 1, sx(ci[1]), cy + 1)
            pdf.set_fill_color(31, 95, 168)
            pdf.ellipse(sx(v) - 1.1, cy - 1.1, 2.2, 2.2, style="F")
        y += line_h
    bottom = y + 2
    for label, value, colour in marks:
        pdf.set_draw_color(*colour)
        pdf.set_line_width(0.5)
        x = sx(value)
        if label in ("floor", "ceiling"):
            pdf.set_dash_pattern(dash=1, gap=0.8)
        pdf.line(x, top + 5, x, bottom)
        pdf.set_dash_pattern()
    # axis: the ends and the reference values
    pdf.set_font("Helvetica", "", 6)
    pdf.set_text_color(80, 80, 80)
    pdf.set_xy(plot_x - 6, bottom + 0.3)
    pdf.cell(12, 3, f"{lo:.3g}", align="C")
    pdf.set_xy(plot_x + plot_w - 6, bottom + 0.3)
    pdf.cell(12, 3, f"{hi:.3g}", align="C")
    legend = "  ".join(f"{label} {value:.3f}" for label, value, _ in marks)
    if legend and wide:
        pdf.set_xy(plot_x + 14, bottom + 0.3)
        pdf.cell(plot_w - 28, 3, text(legend), align="C")
    elif legend:  # a narrow chart: the reference values on a line of their own
        pdf.set_xy(x0, bottom + 3.3)
        pdf.cell(width, 3, text(legend), align="C")
        bottom += 3
    pdf.set_text_color(0, 0, 0)
    pdf.set_draw_color(0, 0, 0)
    pdf.set_fill_color(238, 244, 251)  # tables fill their headings with the current colour
    pdf.set_line_width(0.2)
    pdf.set_y(bottom + 4.5)


def _chart_height(n_cands: int) -> float:
    return 5 + 5.0 * n_cands + 2 + 4.5


def _pdf_pass(
    d: Mapping[str, Any], *, compact: bool, replaced: Mapping[str, str] | None = None
) -> tuple[bytes, int, float, dict[str, str]]:
    """One rendering: (bytes, pages, y where the last page's content ends in mm, the
    characters replaced). ``replaced``, from an earlier pass, is listed in the sign-off
    block, next to the names it concerns."""
    replaced = dict(replaced or {})
    from fpdf import FPDF
    from fpdf.enums import XPos, YPos

    text = _Latin1(_user_chars(d))
    prov = d["provenance"]
    sign = d.get("sign_off") or {}
    cands = d["candidates"]
    refs = d.get("references") or {}
    created = _dt.datetime.fromisoformat(d["created"])
    pdf = FPDF(format="A4")
    pdf.set_compression(False)  # plain-text content streams: searchable and diff-able
    pdf.set_creation_date(created)
    pdf.set_title("Synthetic data privacy review")
    pdf.set_creator(text(prov["software"]))
    pdf.set_auto_page_break(True, margin=15)
    pdf.add_page()
    next_line: dict[str, Any] = {"new_x": XPos.LMARGIN, "new_y": YPos.NEXT}
    small = 7 if compact else 8

    def heading(t: str, size: int = 12) -> None:
        pdf.ln(1.5)
        pdf.set_font("Helvetica", "B", size)
        pdf.cell(0, 7, text(t), **next_line)
        pdf.set_font("Helvetica", "", 9)

    def para(t: str, height: float = 4.5) -> None:
        pdf.multi_cell(0, height, text(t), align="L", **next_line)

    def room(h: float) -> None:
        if pdf.get_y() + h > pdf.page_break_trigger:
            pdf.add_page()

    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(0, 9, "Synthetic data privacy review - sign-off sheet", **next_line)
    pdf.set_font("Helvetica", "", 8)
    para(
        f"Created {d['created']} with {prov['software']}. Aggregates only: no real record "
        "is printed on this sheet.",
        4,
    )
    pdf.ln(1)
    pdf.set_fill_color(238, 244, 251)
    pdf.set_font("Helvetica", "B", 13)
    pdf.cell(0, 10, text(f"Decision: {d['decision']}"), fill=True, **next_line)
    pdf.set_font("Helvetica", "", 9)
    pdf.ln(1)
    for label, value in (
        ("Reviewer", sign.get("reviewer")),
        ("Role", sign.get("role")),
        ("Date", sign.get("date")),
    ):
        pdf.set_font("Helvetica", "B", 9)
        pdf.cell(22, 5, label + ":")
        pdf.set_font("Helvetica", "", 9)
        pdf.cell(0, 5, text.line(value or "(not given)"), **next_line)

    heading("Data provenance")
    pdf.set_font("Helvetica", "", small)
    real = prov["real"]
    para(f"Real: {real['name']}: {real['rows']:,} rows, fingerprint {real['fingerprint']}", 4)
    for s in prov["synthetic"]:
        para(
            f"Release: {s['name']}: {s['rows']:,} rows, fingerprint {s['fingerprint']}, "
            f"candidate {s.get('group', '-')}",
            4,
        )
    hold = prov.get("holdout")
    para(
        "Holdout: "
        + (
            f"{hold['name']}: {hold['rows']:,} rows, fingerprint {hold['fingerprint']}"
            if hold
            else "none"
        ),
        4,
    )
    para(
        "Threat model: quasi-identifiers "
        + ", ".join(map(str, d["threat"]["quasi_identifiers"]))
        + "; sensitive "
        + ", ".join(map(str, d["threat"]["sensitive"])),
        4,
    )

    heading("Results")
    pdf.set_font("Helvetica", "", small + 1)
    para(_candidates_sentence(cands), 4)
    table_rows = candidate_table(d)
    if table_rows:
        pdf.set_font("Helvetica", "", 7 if len(cands) > 2 or compact else 8)
        width = (190 - 48 - 24) / max(len(cands), 1)
        with pdf.table(
            col_widths=(48, *([width] * len(cands)), 24),
            text_align="LEFT",
            line_height=3.6 if len(cands) > 2 or compact else 4,
        ) as table:
            table.row(
                [
                    text(h)
                    for h in (
                        "measure",
                        *(f"{c['name']} ({_group_words(c)})" for c in cands),
                        "direction",
                    )
                ]
            )
            for row in table_rows:
                label = row["label"] + (" (indicator)" if row["indicator"] else "")
                table.row(
                    [
                        text(x)
                        for x in (
                            label,
                            *(format_cell(row["cells"][c["name"]]) for c in cands),
                            row["goal"],
                        )
                    ]
                )
        pdf.set_font("Helvetica", "", small)
        para("Indicators measure similarity, not disclosure (consensus R3).", 4)

        heading("Key figures")
        pdf.set_font("Helvetica", "", small)
        para(
            "Dot: each candidate's value; bar: its 95% interval (or +/- sd over replicates); "
            "short orange tick: the measure's own baseline (control or chance). "
            "Green line: HALF, a random half of the real rows used as a release (what a fresh "
            "sample discloses); red line: SELF, a copy of the real data; dashed grey: the "
            "calibration's floor and ceiling on this data. Only references that were "
            "computed are drawn.",
            3.6,
        )
        pdf.ln(1)
        # compact: two charts a row (the interval's numbers then stay in the table above)
        per_row = 2 if compact else 1
        col_w = 190 / per_row - (3 if per_row > 1 else 0)
        h = _chart_height(len(cands)) + 7
        for start in range(0, len(table_rows), per_row):
            room(h)
            top, bottoms = pdf.get_y(), []
            for j, row in enumerate(table_rows[start : start + per_row]):
                x0 = pdf.l_margin + j * (col_w + 6)
                pdf.set_y(top)
                _interval_chart(
                    pdf,
                    text,
                    row,
                    cands,
                    refs.get(row["key"], {}),
                    _cal_summary(d, row["key"]),
                    x0=x0,
                    width=col_w,
                )
                reading = "; ".join(
                    f"{c['name']}: {r}" if len(cands) > 1 else r
                    for c in cands
                    if (cell := row["cells"][c["name"]]) is not None
                    and (r := reference_reading(cell.get("value"), refs.get(row["key"]), None))
                )
                if reading:
                    pdf.set_font("Helvetica", "I", 7)
                    pdf.set_x(x0)
                    pdf.multi_cell(col_w, 3.4, text(reading), align="L", **next_line)
                    pdf.ln(0.8)
                bottoms.append(pdf.get_y())
            pdf.set_y(max(bottoms))

    _pdf_scorecard_and_checklist(pdf, text, d, heading=heading, para=para, room=room, small=small)

    cal_rows = calibration_rows(d)
    if cal_rows:
        room(30)
        heading("Calibration of the measures on this data")
        pdf.set_font("Helvetica", "", small)
        para(
            "Floor: the value on a release of unseen real rows; ceiling: on a full copy of "
            "the training rows. A measure passes with its "
            f"{_contract(d['calibration'])}."
            + (" The run was stopped early." if d["calibration"].get("stopped") else ""),
            3.8,
        )
        pdf.set_font("Helvetica", "", 7)
        with pdf.table(
            col_widths=(42, 30, 14, 14, 14, 66), text_align="LEFT", line_height=3.6
        ) as table:
            table.row(
                [
                    text(h)
                    for h in ("measure", "verdict", "floor", "ceiling", "ratio gap", "reasons")
                ]
            )
            for cal_row in cal_rows:
                table.row(
                    [
                        text(x)
                        for x in (
                            cal_row["measure"],
                            cal_row["status"],
                            _fmt_plain(cal_row["floor"]),
                            _fmt_plain(cal_row["ceiling"]),
                            _fmt_plain(cal_row["ratio_gap"]),
                            cal_row["reasons"] or "-",
                        )
                    ]
                )

    # -- sign-off: kept together on one page
    notes = d["notes"] or ""
    pdf.set_font("Helvetica", "", 9)
    lines = pdf.multi_cell(0, 4.5, text(notes or "-"), dry_run=True, output="LINES")
    note_lines = len(cast(list, lines))
    room(52 + 4.5 * note_lines + (14 if replaced else 0))
    heading("Sign-off")
    pdf.set_font("Helvetica", "B", 9)
    pdf.cell(0, 5, "Reviewer notes", **next_line)
    pdf.set_font("Helvetica", "", 9)
    para(notes or "-")
    pdf.ln(2)
    pdf.set_font("Helvetica", "", 10)
    pdf.cell(0, 6, text(f"Decision: {d['decision']}"), **next_line)
    for label, value in (
        ("Reviewer name", sign.get("reviewer")),
        ("Role", sign.get("role")),
        ("Date", sign.get("date")),
    ):
        pdf.cell(32, 7, label + ":")
        pdf.cell(0, 7, text.line(value or ""), **next_line)
    pdf.ln(5)
    y = pdf.get_y()
    pdf.cell(32, 6, "Signature:")
    pdf.line(pdf.l_margin + 32, y + 6, pdf.l_margin + 120, y + 6)
    pdf.ln(9)
    if replaced:
        pdf.set_font("Helvetica", "I", 7)
        para(_replacement_note(replaced), 3.4)
    heading("Appendix: parameters and seeds")
    for c, name, m in ((cand, n, m) for cand in cands for n, m in cand["metrics"].items()):
        pdf.set_font("Helvetica", "B", small)
        pdf.cell(0, 3.8, text.line(_prefixed(c, name, cands)), **next_line)
        pdf.set_font("Helvetica", "", small - 1)
        para(_param_summary(m.get("params", {})) or "-", 3.3)
        if note := _unit_note(m.get("params", {})):
            para(note, 3.3)
    if d.get("records"):
        pdf.set_font("Helvetica", "I", 8)
        para("Per-record tables were requested; they are in the HTML and JSON exports only.")

    return bytes(pdf.output()), pdf.page_no(), pdf.get_y(), text.replaced


def _pdf_scorecard_and_checklist(
    pdf: Any, text: _Latin1, d: Mapping[str, Any], *, heading: Any, para: Any, room: Any, small: int
) -> None:
    """The scorecard (one row per family and candidate) and the R1-R10 checklist."""
    if d.get("scorecards"):
        room(30)
        heading("Scorecard")
        pdf.set_font("Helvetica", "", small)
        th = d.get("thresholds") or {}
        para(
            "Reading of each family against the thresholds (amber / red lines) set by: "
            + (th.get("set_by") or "not stated")
            + ". Level in words; indicators (R3) are "
            "not disclosure evidence.",
            3.8,
        )
        pdf.set_font("Helvetica", "", 7)
        with pdf.table(col_widths=(30, 36, 18, 106), text_align="LEFT", line_height=3.5) as table:
            table.row([text(h) for h in ("candidate", "family", "reading", "evidence")])
            for cand, cards in d["scorecards"].items():
                for card in cards:
                    evidence = "; ".join(f"{r['label']}: {r['words']}" for r in card["readings"])
                    note = card["note"]
                    table.row(
                        [
                            text(x)
                            for x in (
                                cand,
                                card["title"] + (" (indicator)" if card.get("indicator") else ""),
                                _LEVEL_MARK[card["level"]],
                                _clip(
                                    (evidence + (" " + note if note and evidence else note)) or "-",
                                    400,
                                ),
                            )
                        ]
                    )
    if d.get("checklist"):
        cl = d["checklist"]
        room(40)
        heading("Consensus checklist (R1-R10)")
        pdf.set_font("Helvetica", "", small)
        para(cl["summary"] + ".", 3.8)
        pdf.set_font("Helvetica", "", 7)
        with pdf.table(col_widths=(40, 22, 128), text_align="LEFT", line_height=3.5) as table:
            table.row([text(h) for h in ("recommendation", "status", "evidence")])
            for item in cl["items"]:
                table.row(
                    [
                        text(x)
                        for x in (
                            f"{item['code']} {item['title']}",
                            item["status"],
                            _clip(item["evidence"], 400),
                        )
                    ]
                )


LAST_PAGE_MIN_MM = 90.0  # a last page holding less than this much is "nearly empty"


def pdf_layout(report: ReviewReport) -> dict[str, Any]:
    """How the PDF came out: pages, the height used on the last one (mm), and whether the
    compact layout was needed to avoid a nearly empty last page."""
    return _render_pdf(report)[1]


def _render_pdf(report: ReviewReport) -> tuple[bytes, dict[str, Any]]:
    d = report.to_dict()
    # pass 1 finds the characters to replace, which the sign-off block then lists
    *_, replaced = _pdf_pass(d, compact=False)
    out, pages, last_y, _ = _pdf_pass(d, compact=False, replaced=replaced)
    compact = False
    # a sheet that spills a few lines onto a new page is set tighter once
    if pages > 1 and last_y < LAST_PAGE_MIN_MM:
        out2, pages2, last_y2, _ = _pdf_pass(d, compact=True, replaced=replaced)
        if pages2 < pages or last_y2 >= LAST_PAGE_MIN_MM:
            out, pages, last_y, compact = out2, pages2, last_y2, True
    return out, {
        "pages": pages,
        "last_page_used_mm": last_y,
        "compact": compact,
        "replaced": replaced,
    }


def render_pdf(report: ReviewReport) -> bytes:
    """The printable sign-off sheet (fpdf2): decision, reviewer, role and date; data
    provenance and threat model; the candidates side by side; per measure a
    dot-and-interval chart with the HALF / SELF references and the calibration's floor and
    ceiling; the calibration table; parameters and seeds; the notes and a signature block.
    Aggregates only: per-record tables never enter the PDF."""
    return _render_pdf(report)[0]


def _fmt_plain(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)
