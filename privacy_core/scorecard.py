"""The verdict policy: every measure's reading against the reviewer's lines, one card per
measure family, and one verdict per candidate.

This is the one place a review is judged. The Overview, every page's badge, the HTML, PDF
and JSON exports, the history and the command line's exit status (``review``) all read
:func:`scorecard` and :func:`verdict_of`; none derives a headline or a colour itself.

Per measure (:func:`judge`), from the interval, not the point: *below* (the upper bound
under the amber line), *above* (the lower bound at or over a line: amber or red),
*inconclusive* (the interval straddles the amber line; the words say what would narrow
it), *uninformative* (the interval too wide to read, or the measure registered or
calibrated as unable to tell on this data): listed, never colouring a card. Relative
readings decide where a measure has one (consensus R7, R8): RAPID's members minus
non-members (its absolute headline, the strongest attacker, is context), the identical
match share beyond its holdout baseline.

Per candidate (:func:`verdict_of`): *above* when a deciding disclosure reading is over a
line, *inconclusive* when one straddles a line (or none can decide), else *below*, with
one sentence that names the measures behind it. Similarity indicators (R3), fidelity and
utility have cards but never decide the verdict.

Why one module: judging a reading, combining readings into a card and cards into a
candidate's verdict are the three steps of one policy; every view reads them together,
and a change to one step (what decides, what is context) changes the others.

The cards work on metric dictionaries (``MetricResult.to_dict()``, or a stored report's
``candidates[i]["metrics"]``), so a review opened from the history reads the same as a
live one, and nothing is computed here. Thresholds are policy, not science (consensus
framework, "Thresholds"): the defaults are the product's starting points, each with where
it comes from, and a review records the ones used and who set them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from .errors import ParameterError
from .measures import MEASURES, measure_goal

Level = Literal["green", "amber", "red", "inconclusive", "uninformative", "none"]
# a card takes its worst deciding reading: an inconclusive one outranks a clear "below"
_ORDER = {"none": 0, "uninformative": 1, "green": 2, "inconclusive": 3, "amber": 4, "red": 5}
LEVEL_WORDS = {
    "green": "below the lines",
    "amber": "over the amber line",
    "red": "over the red line",
    "inconclusive": "inconclusive",
    "uninformative": "uninformative here",
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
    "singling_out_outliers": Threshold(0.05, 0.2, "product default"),
    "reproduced_uniques": Threshold(0.05, 0.2, "product default"),
    "individual_risk": Threshold(0.05, 0.2, "product default"),
    "sample_uniques": Threshold(0.05, 0.2, "product default"),
    "k_anonymity": Threshold(0.05, 0.2, "product default"),
    "l_diversity": Threshold(0.05, 0.2, "product default"),
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
        (
            "singling_out",
            "singling_out_outliers",
            "reproduced_uniques",
            "individual_risk",
            "sample_uniques",
            "k_anonymity",
            "l_diversity",
        ),
        "privacy",
        question="Does the release isolate single real people, reproduce their rare "
        "key combinations, or pin down the sensitive value their key group shares?",
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


# the families whose readings decide a candidate's verdict (disclosure, not indicators)
DISCLOSURE_FAMILIES = ("attribute", "identity", "linkability", "membership")


def _value_ci(metric: Mapping[str, Any]) -> tuple[float | None, tuple[float, float] | None]:
    value = metric.get("value")
    ci = metric.get("ci")
    if not isinstance(value, (int, float)) or not math.isfinite(float(value)):
        return None, None
    ci_t = (
        (float(ci[0]), float(ci[1]))
        if isinstance(ci, (list, tuple))
        and len(ci) >= 2
        and None not in ci[:2]
        and all(math.isfinite(float(c)) for c in ci[:2])
        else None
    )
    return float(value), ci_t


# ------------------------------------------------------------------ the verdict policy
# An interval wider than this share of the measure's range says nothing on its own: the
# reading is listed as uninformative and never colours a card.
UNINFORMATIVE_WIDTH = 0.5

Status = Literal["below", "above", "inconclusive", "uninformative"]
STATUS_WORDS = {
    "below": "below the lines",
    "above": "above a line",
    "inconclusive": "inconclusive",
    "uninformative": "uninformative here",
}


@dataclass(frozen=True)
class Headline:
    """The one number a measure is reported by, wherever it is shown.

    ``value`` is the reading as the measure defines its headline (RAPID: the strongest
    attacker, §2.5), ``ci`` its interval, ``estimate`` the unclipped point estimate where
    the measure clips its reading (attack risks, GTCAP), else the value itself.
    """

    value: float
    ci: tuple[float, float] | None
    estimate: float


def headline(measure: str, metric: Mapping[str, Any]) -> Headline | None:
    """The headline of one measure's metric dictionary (None when it has no value).

    RAPID's headline is the strongest attacker's RAPID (``headline``: ``rate_max`` and
    ``ci_max``), as on the RAPID page; every other measure's is ``value`` and ``ci``.
    """
    head = metric.get("headline") if measure == "rapid" else None
    source = head if isinstance(head, Mapping) and head.get("value") is not None else metric
    value, ci = _value_ci(source)
    if value is None:
        return None
    estimate = next(
        (
            float(metric[k])
            for k in ("risk_unclipped", "raw_risk")
            if isinstance(metric.get(k), (int, float)) and math.isfinite(float(metric[k]))
        ),
        value,
    )
    return Headline(value, ci, estimate)


@dataclass(frozen=True)
class Reading:
    """One reading of a measure against its lines.

    ``status`` is the verdict of the interval (:func:`judge`); ``level`` the colour it
    gives a card (``inconclusive`` and ``uninformative`` readings have their own);
    ``role`` says whether the reading decides (``"decides"``) or is context
    (``"context"``: an absolute reading beside a relative one, consensus R8).
    """

    measure: str
    label: str
    value: float
    ci: tuple[float, float] | None
    level: Level
    threshold: Threshold
    words: str
    status: Status = "below"
    estimate: float | None = None
    role: Literal["decides", "context"] = "decides"
    narrow: str = ""
    # a relative reading (members minus non-members, beyond a baseline), not on the
    # scale of the measure's own references (HALF, SELF)
    relative: bool = False

    @property
    def decides(self) -> bool:
        return self.role == "decides" and self.status != "uninformative"

    def to_dict(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "label": self.label,
            "value": self.value,
            "ci": list(self.ci) if self.ci else None,
            "estimate": self.estimate,
            "upper": self.ci[1] if self.ci else self.value,
            "status": self.status,
            "level": self.level,
            "role": self.role,
            "relative": self.relative,
            "amber": self.threshold.amber,
            "red": self.threshold.red,
            "basis": self.threshold.basis,
            "words": self.words,
        }


def _badness(
    measure: str, value: float, ci: tuple[float, float] | None
) -> tuple[float, tuple[float, float], str]:
    """The reading on the lines' scale: the value for lower-is-better measures, the
    distance from the target for a target measure (the discriminator's 0.5), with the
    interval mapped the same way (its lower end 0 when the interval holds the target)."""
    goal = measure_goal(measure) if measure in MEASURES else None
    lo, hi = ci if ci else (value, value)
    if goal is not None and goal.direction == "target":
        t = goal.ideal
        far = max(abs(lo - t), abs(hi - t))
        near = 0.0 if lo <= t <= hi else min(abs(lo - t), abs(hi - t))
        return abs(value - t), (near, far), f"distance from {t:g}"
    return value, (lo, hi), ""


def _width_share(measure: str, ci: tuple[float, float] | None) -> float | None:
    """The interval's width as a share of the measure's range (a range with an infinite
    end is read on [0, 1], the scale of its lines)."""
    if ci is None or not all(math.isfinite(c) for c in ci):
        return None
    lo_b, hi_b = MEASURES[measure].bounds if measure in MEASURES else (0.0, 1.0)
    span = hi_b - lo_b if math.isfinite(lo_b) and math.isfinite(hi_b) else 1.0
    return (ci[1] - ci[0]) / span if span > 0 else None


def narrowing_hint(measure: str) -> str:
    """What would narrow a measure's interval, in a few words."""
    if measure in ("singling_out", "singling_out_outliers", "linkability", "inference"):
        return "more attacks (n_attacks) or a larger holdout would narrow it"
    if measure in ("rapid", "ml_inference", "membership", "domias"):
        return "a larger holdout (more non-members) would narrow it"
    if measure == "gtcap":
        return "more attributions would narrow it (a smaller matching radius, more rows)"
    if measure == "mds":
        return "more shadow models would narrow it"
    return "more records would narrow it"


def judge(
    measure: str,
    value: float,
    ci: tuple[float, float] | None,
    threshold: Threshold,
    *,
    label: str | None = None,
    estimate: float | None = None,
    uninformative: str = "",
    role: Literal["decides", "context"] = "decides",
) -> Reading:
    """One reading against its lines, from its interval, not its point.

    *below*: the upper bound under the amber line (green). *above*: the lower bound at
    or over a line (amber, or red from the red line). *inconclusive*: the interval
    straddles the amber line (it says what would narrow it). *uninformative*: the
    interval spans more than :data:`UNINFORMATIVE_WIDTH` of the measure's range, or
    ``uninformative`` gives the reason the measure cannot tell on this data; such a
    reading is listed and never colours a card. Without an interval the point is read
    as its own interval, and the words say so.
    """
    name = label or (MEASURES[measure].label if measure in MEASURES else measure)
    badness, (lo, hi), scale = _badness(measure, value, ci)
    shown = f"{value:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else " (no interval)")
    share = _width_share(measure, ci)
    narrow = narrowing_hint(measure)
    if not uninformative and share is not None and share > UNINFORMATIVE_WIDTH:
        uninformative = (
            f"its interval spans {share:.0%} of the measure's range, too wide to read; {narrow}"
        )
    subject = f"{shown}: its {scale}" if scale else shown
    status: Status
    level: Level
    if uninformative:
        status, level = "uninformative", "uninformative"
        words = f"{shown}: uninformative — {uninformative}"
    elif hi < threshold.amber:
        status, level = "below", "green"
        words = f"{subject} is at most {hi:.3f}, under the amber line {threshold.amber:g}"
    elif lo >= threshold.red:
        status, level = "above", "red"
        words = f"{subject} is at least {lo:.3f}, at or over the red line {threshold.red:g}"
    elif lo >= threshold.amber:
        status, level = "above", "amber"
        words = f"{subject} is at least {lo:.3f}, at or over the amber line {threshold.amber:g}" + (
            f" (it may reach the red line {threshold.red:g})" if hi >= threshold.red else ""
        )
    else:
        status, level = "inconclusive", "inconclusive"
        words = (
            f"{subject} runs from {lo:.3f} to {hi:.3f}, across the amber line "
            f"{threshold.amber:g}: inconclusive; {narrow}"
        )
    if estimate is not None and not math.isclose(estimate, value, abs_tol=5e-4):
        words += f" (unclipped estimate {estimate:.3f})"
    return Reading(
        measure, name, value, ci, level, threshold, words, status, estimate, role, narrow
    )


def read_value(
    measure: str,
    value: float,
    ci: tuple[float, float] | None,
    threshold: Threshold,
    *,
    label: str | None = None,
) -> Reading:
    """One value against its threshold (:func:`judge` with no more context)."""
    return judge(measure, value, ci, threshold, label=label)


def _uninformative_reason(
    measure: str, metric: Mapping[str, Any], calibration: Mapping[str, Any] | None
) -> str:
    """Why a measure cannot tell on this data: its own flag (``uninformative``), the
    registry (a measure not calibrated to read 0 and 1), or a failed calibration."""
    own = metric.get("uninformative")
    if isinstance(own, str) and own:
        return own
    spec = MEASURES.get(measure)
    if spec is not None and not spec.calibrated:
        first = spec.calibration_note.split(":")[0].split(". ")[0]
        return f"not calibrated to read 0 on unseen rows and 1 on a copy ({first})"
    # calibration summaries are keyed "measure" or "measure:mode" (the mode the result
    # was computed in: singling out has no default mode)
    mode = spec.calibration_mode(dict(metric.get("params") or {})) if spec else "default"
    summary = (calibration or {}).get(measure if mode == "default" else f"{measure}:{mode}")
    if (
        isinstance(summary, Mapping)
        and summary.get("verdict", "pass" if summary.get("pass") else "fail") == "fail"
    ):
        return "it failed the calibration contract on this data (see the calibration)"
    return ""


def measure_readings(
    measure: str,
    metric: Mapping[str, Any],
    thresholds: Mapping[str, Threshold] | None = None,
    *,
    calibration: Mapping[str, Any] | None = None,
) -> list[Reading]:
    """A measure's readings, the deciding one first.

    Relative readings decide where a measure has one (consensus R7, R8): RAPID's
    members-minus-non-members difference (its absolute headline is then context), the
    identical match share beyond its holdout baseline. Everything else decides on its
    headline, unless it is uninformative here (:func:`judge`).
    """
    th = {**DEFAULT_THRESHOLDS, **(thresholds or {})}
    head = headline(measure, metric)
    if head is None:
        return []
    reason = _uninformative_reason(measure, metric, calibration)
    if measure == "rapid":
        diff = metric.get("difference")
        if isinstance(diff, Mapping) and diff.get("value") is not None:
            dv, dci = _value_ci(diff)
            rel = judge(
                "rapid",
                float(dv),  # type: ignore[arg-type]
                dci,
                th["rapid_relative"],
                label="RAPID members minus non-members",
            )
            rel = replace(rel, relative=True)
            absolute = judge(
                "rapid",
                head.value,
                head.ci,
                th["rapid"],
                role="context",
                label="RAPID (strongest attacker, absolute)",
            )
            return [rel, absolute]
        return [
            judge(
                "rapid",
                head.value,
                head.ci,
                th["rapid"],
                label="RAPID (strongest attacker, absolute)",
                uninformative="an absolute risk with no relative reading: give a holdout of "
                "real rows the generator never saw for members against non-members (R7, R8)",
            )
        ]
    if measure == "ims" and isinstance(metric.get("baseline"), (int, float)):
        base = float(metric["baseline"])
        ci = (head.ci[0] - base, head.ci[1] - base) if head.ci else None
        rel = judge(
            "ims",
            head.value - base,
            ci,
            th["ims"],
            uninformative=reason,
            label="Identical match share beyond its holdout baseline",
        )
        rel = replace(rel, relative=True)
        return [rel, judge("ims", head.value, head.ci, th["ims"], role="context")]
    return [
        judge(
            measure, head.value, head.ci, th[measure], estimate=head.estimate, uninformative=reason
        )
    ]


@dataclass(frozen=True)
class Card:
    family: Family
    level: Level
    readings: tuple[Reading, ...] = ()
    note: str = ""  # the R8 combination, or why the card is empty

    @property
    def headline(self) -> Reading | None:
        """The reading behind the card's level: the worst deciding reading (the first on
        ties), else the first reading (every one uninformative or context)."""
        if not self.readings:
            return None
        deciding = [r for r in self.readings if r.decides]
        if not deciding:
            return self.readings[0]
        return max(deciding, key=lambda r: _ORDER[r.level])

    @property
    def words(self) -> str:
        if not self.readings:
            return self.note or "Not computed yet."
        head = self.headline or self.readings[0]
        if head.level != self.level:  # R8 capped the relative reading
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
            "readings": [r.to_dict() for r in self.readings],
        }


def _card_level(readings: Sequence[Reading]) -> Level:
    deciding = [r.level for r in readings if r.decides]
    if deciding:
        return max(deciding, key=_ORDER.__getitem__)
    return "uninformative" if readings else "none"


def _r8_cap(readings: list[Reading], th: Mapping[str, Threshold]) -> tuple[Level | None, str]:
    """Consensus R8: a relative risk over its line is unacceptably high only when the
    absolute risk is over its line too; with the absolute reading below its amber line,
    the card is amber at most."""
    rel = next((r for r in readings if r.measure == "rapid" and r.role == "decides"), None)
    absolute = next((r for r in readings if r.measure == "rapid" and r.role == "context"), None)
    if rel is None or absolute is None:
        return None, ""
    if rel.level == "red" and absolute.status == "below":
        return "amber", (
            "R8: members are easier to attack than non-members beyond the red line, but the "
            "absolute risk is under its amber line, so it is not unacceptably high on its "
            "own; review it."
        )
    return None, (
        "R8: the relative reading (members against non-members) decides; the absolute "
        "RAPID is context."
    )


def scorecard(
    metrics: Mapping[str, Mapping[str, Any]],
    *,
    thresholds: Mapping[str, Threshold] | None = None,
    calibration: Mapping[str, Any] | None = None,
) -> tuple[Card, ...]:
    """The cards of one candidate.

    Parameters
    ----------
    metrics
        Measure name -> metric dictionary (``MetricResult.to_dict()`` or a stored
        report's ``candidates[i]["metrics"]``); needs ``value`` and ``ci``. RAPID's
        ``difference`` (present when it ran with a control) is its relative reading.
    thresholds
        Measure name -> :class:`Threshold` overriding :data:`DEFAULT_THRESHOLDS`
        (``rapid_relative`` for RAPID's members-minus-non-members difference).
    calibration
        A calibration's summary (measure -> its summary): a measure that failed the
        contract on this data is uninformative here.

    Notes
    -----
    Consensus framework, R3 (similarity as an indicator only), R7/R8 (relative and
    absolute attribute risk), and its section on thresholds. Each reading is judged from
    its interval (:func:`judge`); a card takes the worst of its deciding readings.
    """
    th = {**DEFAULT_THRESHOLDS, **(thresholds or {})}
    cards = []
    for family in FAMILIES:
        readings: list[Reading] = []
        for m in family.measures:
            if m in metrics:
                readings.extend(measure_readings(m, metrics[m], th, calibration=calibration))
        level = _card_level(readings)
        note = (
            ""
            if readings
            else f"Not computed yet: {', '.join(_label(m) for m in family.measures)}."
        )
        if family.key == "attribute":
            cap, note = _r8_cap(readings, th)
            if cap is not None and _ORDER[level] > _ORDER[cap]:
                level = cap
            if any(r.measure == "rapid" and r.status == "uninformative" for r in readings):
                note = (
                    "Absolute risk only: RAPID's relative reading (members against "
                    "non-members, R7) needs a holdout of real rows the generator never saw."
                )
        if family.key == "fidelity" and (why := _below_chance(readings)):
            note = why
        cards.append(Card(family, level, tuple(readings), note))
    return tuple(cards)


def _below_chance(readings: list[Reading]) -> str:
    """Why a discriminator below chance is not good news: on every card and export."""
    disc = next((r for r in readings if r.measure == "discriminator"), None)
    if disc is None or disc.value >= 0.5 or disc.level == "green":
        return ""
    return (
        f"The discriminator's AUC {disc.value:.3f} is below 0.5: it does worse than chance, "
        "which near-copies of training records cause (memorisation); check the privacy "
        "measures."
    )


# ------------------------------------------------------------------ one verdict per candidate
Verdict = Literal["below", "above", "inconclusive"]


@dataclass(frozen=True)
class CandidateVerdict:
    """One candidate's verdict on the disclosure measures, in one sentence.

    ``verdict``: *above* when any deciding disclosure reading is over a line, else
    *inconclusive* when any straddles one (or none can decide), else *below*.
    ``deciding`` names the measures that decided it; ``uninformative`` those listed but
    not counted. Similarity indicators (R3), fidelity and utility never decide it.
    """

    verdict: Verdict
    sentence: str
    deciding: tuple[str, ...]
    uninformative: tuple[str, ...] = ()
    readings: tuple[Reading, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "sentence": self.sentence,
            "deciding": list(self.deciding),
            "uninformative": list(self.uninformative),
            "readings": [r.to_dict() for r in self.readings],
        }


def _short(r: Reading) -> str:
    lo, hi = r.ci if r.ci else (r.value, r.value)
    if r.status == "above":
        line = r.threshold.red if r.level == "red" else r.threshold.amber
        which = "red" if r.level == "red" else "amber"
        return f"{r.label} (at least {lo:.3f}, over the {which} line {line:g})"
    if r.status == "inconclusive":
        line = r.threshold.amber
        return f"{r.label} ({lo:.3f} to {hi:.3f} across the amber line {line:g}; {r.narrow})"
    return f"{r.label} (at most {hi:.3f})"


def verdict_of(cards: Sequence[Card]) -> CandidateVerdict:
    """The verdict of one candidate's cards (:func:`scorecard`): the one policy every
    page, export and the command line's exit status read."""
    disclosure = [
        r
        for c in cards
        if not c.family.indicator and c.family.key in DISCLOSURE_FAMILIES
        for r in c.readings
    ]
    deciding = [r for r in disclosure if r.decides]
    lost = tuple(dict.fromkeys(r.label for r in disclosure if r.status == "uninformative"))
    above = [r for r in deciding if r.status == "above"]
    unsure = [r for r in deciding if r.status == "inconclusive"]
    below = [r for r in deciding if r.status == "below"]
    tail = f" Not counted, uninformative on this data: {', '.join(lost)}." if lost else ""
    if above:
        verdict: Verdict = "above"
        chosen = above
        sentence = (
            "Discloses more than a fresh real sample would on: "
            + "; ".join(map(_short, above))
            + "."
        )
        if unsure:
            sentence += " Inconclusive on: " + "; ".join(r.label for r in unsure) + "."
    elif unsure:
        verdict, chosen = "inconclusive", unsure
        sentence = "Inconclusive on: " + "; ".join(map(_short, unsure)) + "."
        if below:
            sentence += " Below the lines on: " + ", ".join(r.label for r in below) + "."
    elif below:
        verdict, chosen = "below", below
        sentence = (
            "Comparable to a fresh real sample on every disclosure measure computed: "
            + "; ".join(map(_short, below))
            + "."
        )
    else:
        verdict, chosen = "inconclusive", []
        sentence = "No disclosure measure that can decide has been computed yet."
    return CandidateVerdict(
        verdict,
        sentence + tail,
        tuple(dict.fromkeys(r.measure for r in chosen)),
        lost,
        tuple(deciding),
    )


def candidate_verdict(
    metrics: Mapping[str, Mapping[str, Any]],
    *,
    thresholds: Mapping[str, Threshold] | None = None,
    calibration: Mapping[str, Any] | None = None,
) -> CandidateVerdict:
    """:func:`verdict_of` the candidate's :func:`scorecard`."""
    return verdict_of(scorecard(metrics, thresholds=thresholds, calibration=calibration))


EXIT_STATUS = {"below": 0, "above": 3, "inconclusive": 4}


def exit_status(verdicts: Sequence[CandidateVerdict | str]) -> int:
    """The command line's exit status for a review: 3 when any candidate is above a
    line, else 4 when any is inconclusive, else 0 (verdicts or their words, as a stored
    review holds them)."""
    found = {v if isinstance(v, str) else v.verdict for v in verdicts}
    if "above" in found:
        return EXIT_STATUS["above"]
    return EXIT_STATUS["inconclusive"] if "inconclusive" in found else EXIT_STATUS["below"]


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
    "CandidateVerdict",
    "DISCLOSURE_FAMILIES",
    "EXIT_STATUS",
    "Headline",
    "STATUS_WORDS",
    "UNINFORMATIVE_WIDTH",
    "candidate_verdict",
    "exit_status",
    "headline",
    "judge",
    "measure_readings",
    "narrowing_hint",
    "verdict_of",
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
