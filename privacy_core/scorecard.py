"""The scorecard: every measure family's reading against the reviewer's thresholds.

One card per family (attribute inference, identity, linkability, membership, similarity
indicators, fidelity, utility). A card reads each computed measure of its family against
a threshold pair — *amber* from one value, *red* from another — and takes the worst
reading as its own, naming the measure behind it. Readings are words first ("0.43 is at or
above the red line 0.30"); the colour only repeats them.

The cards work on metric dictionaries (``MetricResult.to_dict()``, or a stored report's
``candidates[i]["metrics"]``), so a review opened from the history reads the same as a
live one, and nothing is computed here.

Thresholds are policy, not science (consensus framework, "Thresholds"): the defaults are
the product's starting points, each with where it comes from, and a review records the
ones used and who set them. Attribute inference follows consensus R8: a relative risk
above its threshold is red only when the absolute risk is above its threshold too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from .errors import ParameterError
from .measures import MEASURES, measure_goal

Level = Literal["green", "amber", "red", "none"]
_ORDER = {"none": 0, "green": 1, "amber": 2, "red": 3}
LEVEL_WORDS = {
    "green": "within threshold",
    "amber": "review",
    "red": "above threshold",
    "none": "not computed",
}


@dataclass(frozen=True)
class Threshold:
    """Amber from ``amber``, red from ``red`` on the measure's *badness* scale: the value
    itself for lower-is-better measures, the distance from the target for the
    discriminator (0.5 is ideal)."""

    amber: float
    red: float
    basis: str = "product default"

    def __post_init__(self) -> None:
        if not (0 <= self.amber <= self.red):
            raise ParameterError(
                f"Threshold: need 0 <= amber <= red; received amber "
                f"{self.amber!r}, red {self.red!r}."
            )


# Anonymeter-style risks (attack success beyond the control baseline) and F_rel share one
# scale; S13.2's 0.2 anchor for F_rel was used by some authors but is not a consensus.
DEFAULT_THRESHOLDS: dict[str, Threshold] = {
    "rapid": Threshold(0.2, 0.3, "product default (absolute share of records at risk)"),
    "rapid_relative": Threshold(0.05, 0.1, "product default (members minus non-members)"),
    "inference": Threshold(0.05, 0.2, "product default"),
    "ml_inference": Threshold(0.05, 0.2, "product default"),
    "gtcap": Threshold(0.05, 0.2, "product default"),
    "singling_out": Threshold(0.05, 0.2, "product default"),
    "linkability": Threshold(0.05, 0.2, "product default"),
    "membership": Threshold(0.1, 0.2, "F_rel 0.2 anchor (consensus S13.2: no consensus)"),
    "domias": Threshold(0.05, 0.2, "product default"),
    "mds": Threshold(0.05, 0.2, "product default"),
    "ims": Threshold(0.01, 0.05, "product default (indicator)"),
    "dcr": Threshold(0.05, 0.2, "product default (indicator)"),
    "knn": Threshold(0.05, 0.2, "product default (indicator)"),
    "wasserstein": Threshold(0.05, 0.1, "product default"),
    "query_error": Threshold(0.02, 0.05, "product default"),
    "discriminator": Threshold(0.1, 0.25, "product default (AUC distance from 0.5)"),
    "mla": Threshold(0.05, 0.15, "product default (relative loss of model score)"),
}


@dataclass(frozen=True)
class Family:
    key: str
    title: str
    measures: tuple[str, ...]
    page: str  # the app page that explains and computes it
    indicator: bool = False  # consensus R3: shown, never evidence of disclosure
    question: str = ""


FAMILIES: tuple[Family, ...] = (
    Family(
        "attribute",
        "Attribute inference",
        ("rapid", "inference", "ml_inference", "gtcap"),
        "rapid",
        question="Can an attacker learn a person's secret from the release?",
    ),
    Family(
        "identity",
        "Identity (singling out)",
        ("singling_out",),
        "privacy",
        question="Does the release isolate single real people?",
    ),
    Family(
        "linkability",
        "Linkability",
        ("linkability",),
        "privacy",
        question="Does the release link two halves of a person's record?",
    ),
    Family(
        "membership",
        "Membership",
        ("membership", "mds", "domias"),
        "privacy",
        question="Does the release tell who was in the training data?",
    ),
    Family(
        "similarity",
        "Similarity indicators",
        ("dcr", "ims", "knn"),
        "privacy",
        indicator=True,
        question="Does the release copy or hug real records? "
        "(An indicator, not disclosure evidence: R3.)",
    ),
    Family(
        "fidelity",
        "Fidelity",
        ("wasserstein", "query_error", "discriminator"),
        "fidelity",
        question="Does the release look like the real data?",
    ),
    Family(
        "utility",
        "Utility",
        ("mla",),
        "fidelity",
        question="Do models trained on the release work on real data?",
    ),
)


@dataclass(frozen=True)
class Reading:
    measure: str
    label: str
    value: float
    ci: tuple[float, float] | None
    level: Level
    threshold: Threshold
    words: str


@dataclass(frozen=True)
class Card:
    family: Family
    level: Level
    readings: tuple[Reading, ...] = ()
    note: str = ""  # the R8 combination, or why the card is empty

    @property
    def headline(self) -> Reading | None:
        """The reading behind the card's level: the first of the worst readings (under R8
        the card's level can sit below its worst reading; the note says why)."""
        if not self.readings:
            return None
        return max(self.readings, key=lambda r: _ORDER[r.level])

    @property
    def words(self) -> str:
        if not self.readings:
            return self.note or "Not computed yet."
        head = self.headline or self.readings[0]
        if head.level != self.level:  # R8 combined the readings below the worst one
            return f"{LEVEL_WORDS[self.level].capitalize()}: {self.note}"
        return f"{LEVEL_WORDS[self.level].capitalize()}: {head.label} — {head.words}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "family": self.family.key,
            "title": self.family.title,
            "level": self.level,
            "indicator": self.family.indicator,
            "note": self.note,
            "words": self.words,
            "readings": [
                {
                    "measure": r.measure,
                    "label": r.label,
                    "value": r.value,
                    "ci": list(r.ci) if r.ci else None,
                    "level": r.level,
                    "amber": r.threshold.amber,
                    "red": r.threshold.red,
                    "basis": r.threshold.basis,
                    "words": r.words,
                }
                for r in self.readings
            ],
        }


def _value_ci(metric: Mapping[str, Any]) -> tuple[float | None, tuple[float, float] | None]:
    value = metric.get("value")
    ci = metric.get("ci")
    if value is None:
        return None, None
    ci_t = (float(ci[0]), float(ci[1])) if ci and None not in ci[:2] else None
    return float(value), ci_t


def read_value(
    measure: str,
    value: float,
    ci: tuple[float, float] | None,
    threshold: Threshold,
    *,
    label: str | None = None,
) -> Reading:
    """One value against its threshold, in words that say the line it crossed."""
    goal = measure_goal(measure) if measure in MEASURES else None
    if goal is not None and goal.direction == "target":
        badness, scale = abs(value - goal.ideal), f"distance from {goal.ideal:g}"
    else:
        badness, scale = value, ""
    level: Level = (
        "red" if badness >= threshold.red else "amber" if badness >= threshold.amber else "green"
    )
    shown = f"{value:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")
    subject = f"its {scale} {badness:.3f}" if scale else shown
    if level == "red":
        words = f"{subject} is at or above the red line {threshold.red:g}"
    elif level == "amber":
        words = (
            f"{subject} is between the amber line {threshold.amber:g} and the red "
            f"line {threshold.red:g}"
        )
    else:
        words = f"{subject} is below the amber line {threshold.amber:g}"
    if scale:
        words = f"{shown}: {words}"
    name = label or (MEASURES[measure].label if measure in MEASURES else measure)
    return Reading(measure, name, value, ci, level, threshold, words)


def _attribute_card(
    family: Family,
    readings: list[Reading],
    rapid: Mapping[str, Any] | None,
    thresholds: Mapping[str, Threshold],
) -> Card:
    """Consensus R8: the relative risk (members minus non-members) above its threshold is
    only unacceptable when the absolute risk is above its threshold as well."""
    if rapid is None or not isinstance(rapid.get("difference"), Mapping):
        note = (
            "Absolute risk only: RAPID's relative reading (members against non-members, "
            "R7) needs a holdout of real rows the generator never saw."
            if rapid is not None
            else ""
        )
        level: Level = max((r.level for r in readings), key=_ORDER.__getitem__, default="none")
        return Card(family, level, tuple(readings), note)
    diff = rapid["difference"]
    rel = read_value(
        "rapid",
        float(diff["value"]),
        tuple(diff["ci"]) if diff.get("ci") else None,
        thresholds["rapid_relative"],
        label="RAPID members minus non-members",
    )
    absolute = next(r for r in readings if r.measure == "rapid")
    others = [r for r in readings if r.measure != "rapid"]
    if rel.level == "red" and absolute.level != "red":
        combined: Level = "amber"
        note = (
            "R8: the relative risk is above its red line, but the absolute risk is not, "
            "so it is not unacceptably high on its own; review it."
        )
    elif absolute.level == "red" and rel.level != "red":
        combined = "amber"
        note = (
            "R8: the absolute risk is above its red line, but the release adds little "
            "beyond what non-members reveal (relative risk below its red line): the "
            "population's patterns, not the release, drive most of it."
        )
    else:
        combined = max(absolute.level, rel.level, key=_ORDER.__getitem__)
        note = (
            "R8: relative and absolute risk both above their red lines."
            if combined == "red"
            else "R8: relative and absolute risk read together."
        )
    level = max([combined, *(r.level for r in others)], key=_ORDER.__getitem__)
    return Card(family, level, (absolute, rel, *others), note)


def scorecard(
    metrics: Mapping[str, Mapping[str, Any]], *, thresholds: Mapping[str, Threshold] | None = None
) -> tuple[Card, ...]:
    """The cards of one candidate.

    Parameters
    ----------
    metrics
        Measure name -> metric dictionary (``MetricResult.to_dict()`` or a stored
        report's ``candidates[i]["metrics"]``); needs ``value`` and ``ci``. RAPID's
        ``difference`` (present when it ran with a control) adds the relative reading.
    thresholds
        Measure name -> :class:`Threshold` overriding :data:`DEFAULT_THRESHOLDS`
        (``rapid_relative`` for RAPID's members-minus-non-members difference).

    Notes
    -----
    Consensus framework, R3 (similarity as an indicator only), R7/R8 (relative and
    absolute attribute risk), and its section on thresholds.
    """
    th = {**DEFAULT_THRESHOLDS, **(thresholds or {})}
    cards = []
    for family in FAMILIES:
        readings = []
        for m in family.measures:
            if m not in metrics:
                continue
            value, ci = _value_ci(metrics[m])
            if value is None:
                continue
            readings.append(read_value(m, value, ci, th[m]))
        if family.key == "attribute" and any(r.measure == "rapid" for r in readings):
            cards.append(_attribute_card(family, readings, metrics.get("rapid"), th))
            continue
        level: Level = max((r.level for r in readings), key=_ORDER.__getitem__, default="none")
        note = (
            ""
            if readings
            else f"Not computed yet: {', '.join(_label(m) for m in family.measures)}."
        )
        cards.append(Card(family, level, tuple(readings), note))
    return tuple(cards)


def _label(measure: str) -> str:
    return MEASURES[measure].label if measure in MEASURES else measure


def thresholds_record(
    thresholds: Mapping[str, Threshold] | None = None, *, set_by: str = ""
) -> dict[str, Any]:
    """The thresholds in force, for a review's record: every line and its basis."""
    th = {**DEFAULT_THRESHOLDS, **(thresholds or {})}
    return {
        "set_by": set_by.strip(),
        "lines": {m: {"amber": t.amber, "red": t.red, "basis": t.basis} for m, t in th.items()},
        "changed": sorted(m for m, t in th.items() if DEFAULT_THRESHOLDS.get(m) != t),
    }


def user_threshold(measure: str, amber: float, red: float) -> Threshold:
    """A threshold the reviewer set (basis says so)."""
    base = DEFAULT_THRESHOLDS.get(measure)
    if base is not None and (base.amber, base.red) == (amber, red):
        return base
    return replace(Threshold(amber, red), basis="set by the reviewer")


__all__ = [
    "Card",
    "DEFAULT_THRESHOLDS",
    "FAMILIES",
    "Family",
    "LEVEL_WORDS",
    "Reading",
    "Threshold",
    "read_value",
    "scorecard",
    "thresholds_record",
    "user_threshold",
]
