"""The calibration contract: its thresholds, and :func:`summarise`, which reads one
measure's calibration rows into a :class:`~.results.CalibrationSummary` with a verdict.

:func:`summarise` is a pipeline of named readings (floor and ceiling at the smallest
ratio, the straight-line fit, monotonicity within noise, the response between the ends,
the gap between the smallest and the largest ratio), then the checks that turn them into
reasons: a failed check is a reason to fail, a check whose intervals are too wide to
decide is a reason to call the measure inconclusive. :func:`calibration_result` builds a
:class:`~.results.CalibrationResult` from rows, one summary per (measure, mode).

Notes
-----
DESIGN.md, "Calibration contract"; ``risk-insertion-framework.md`` Table 2 (values at no
and at maximal inserted risk).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..measures import MeasureSpec, get_measure
from ..threat import ThreatModel
from .results import CalibrationResult, CalibrationSummary

FLOOR_MAX = 0.05
# the floor's upper bound must be small too: an interval too wide to decide is
# "inconclusive: more rows or attacks needed", never a pass (issue 31)
FLOOR_UPPER_MAX = 0.15
CEILING_MIN = 0.9
RATIO_GAP_MAX = 0.1
# A fall between neighbouring levels smaller than this (or than the points' combined
# half-widths) is noise, not a failure of monotonicity.
MONOTONE_SLACK = 0.05

# Measures whose attacker works through the quasi-identifiers: their ceiling is bounded by
# how well the quasi-identifiers pick out one record, whatever the release.
QI_MEASURES = ("rapid", "linkability", "inference", "ml_inference", "gtcap", "membership")


def qi_unique_share(training: pd.DataFrame, threat: ThreatModel) -> float:
    """Share of training records whose quasi-identifier values no other record shares."""
    qis = [c for c in threat.quasi_identifiers if c in training.columns]
    if not qis or training.empty:
        return math.nan
    return float((~training[qis].duplicated(keep=False)).mean())


# ============================================================================ readings
@dataclass(frozen=True, eq=False)
class _Readings:
    """The figures of one (measure, mode) that the contract's checks judge."""

    floor: pd.Series  # the row at the lowest level, smallest ratio
    floor_lower: float
    floor_upper: float
    ceiling: pd.Series  # the row at the highest level, smallest ratio
    need: float  # the ceiling it must reach
    monotone: bool
    response_gap: float
    response_noise: float  # the normalised reading's half-width where the gap is largest
    band: float
    ratios: list[float]
    gap: float
    gap_beyond: float
    gap_noise: float

    @property
    def floor_ok(self) -> bool:
        # small in its estimate *and* its upper bound; a small estimate with a wide
        # interval cannot be told from a floor of 0.3 and is inconclusive, never a pass
        return bool(self.floor["value"] <= FLOOR_MAX and self.floor_upper <= FLOOR_UPPER_MAX)

    @property
    def floor_unsure(self) -> bool:
        # not a pass, but its estimate is not large (at most FLOOR_UPPER_MAX) and its
        # interval still reaches a small floor: undecided. A fail is an estimate above
        # FLOOR_UPPER_MAX, or an interval wholly above FLOOR_MAX
        return bool(
            not self.floor_ok
            and self.floor["value"] <= FLOOR_UPPER_MAX
            and self.floor_lower <= FLOOR_MAX
        )

    @property
    def ceiling_ok(self) -> bool:
        return bool(self.ceiling["value"] >= self.need)


def _half_width(lo: float, hi: float) -> float:
    return (hi - lo) / 2 if np.isfinite(lo) and np.isfinite(hi) else 0.0


def _interval(row: pd.Series) -> tuple[float, float] | None:
    lo, hi = float(row["ci_low"]), float(row["ci_high"])
    return (lo, hi) if np.isfinite(lo) and np.isfinite(hi) else None


def _finite_rows(rows: pd.DataFrame, metric: str, mode: str) -> pd.DataFrame:
    """The rows of one (measure, mode) that hold a value."""
    g = rows[(rows["metric"] == metric) & (rows["mode"] == mode)]
    return g[np.isfinite(g["value"].to_numpy(dtype=float))]


def _at_smallest_ratio(g: pd.DataFrame, level: float) -> pd.Series:
    """The row at ``level`` and the smallest ratio.

    Floor and ceiling are read at the smallest ratio (1:1 by default), where the holdout
    is as large as the training set; the other ratios enter through the ratio gap. (Taking
    the worst ratio instead would test each floor interval once per ratio, and a 95 %
    interval excludes 0 by chance in about 1 of 13 such triples.)
    """
    return g[g["level"] == level].sort_values("ratio").iloc[0]


def _linear_fit(g: pd.DataFrame) -> tuple[float, float, float]:
    """Least-squares slope and intercept of the value against f_l, and R²."""
    x, y = g["level"].to_numpy(dtype=float), g["value"].to_numpy(dtype=float)
    if np.ptp(x) > 0:
        slope, intercept = np.polyfit(x, y, 1)
        resid = y - (slope * x + intercept)
        total = float(((y - y.mean()) ** 2).sum())
        linearity = 1.0 - float((resid**2).sum()) / total if total > 0 else 1.0
    else:
        slope, intercept, linearity = math.nan, float(y.mean()), math.nan
    return slope, intercept, linearity


def _monotone(g: pd.DataFrame, ratios: Sequence[float]) -> bool:
    """No fall between neighbouring levels beyond :data:`MONOTONE_SLACK` or the two
    points' combined half-widths, at any ratio."""
    for ratio in ratios:
        h = g[g["ratio"] == ratio].sort_values("level")
        v = h["value"].to_numpy(dtype=float)
        hw = [_half_width(a, b) for a, b in zip(h["ci_low"], h["ci_high"], strict=True)]
        for i in range(len(v) - 1):
            slack = max(MONOTONE_SLACK, math.hypot(hw[i], hw[i + 1]))
            if v[i + 1] < v[i] - slack:
                return False
    return True


def _response_gap(g: pd.DataFrame, lo_level: float, hi_level: float) -> tuple[float, float]:
    """The largest |(v - floor) / (ceiling - floor) - f| over the interior levels f of one
    ratio's rows (f rescaled to [0, 1] between the lowest and the highest level), and the
    normalised reading's half-width there (the three readings' half-widths combined,
    over ceiling - floor). NaN with no interior level or a flat response (the ceiling
    check speaks for that)."""
    by = g.groupby("level").agg(
        value=("value", "mean"), lo=("ci_low", "mean"), hi=("ci_high", "mean")
    )
    if lo_level not in by.index or hi_level not in by.index:
        return math.nan, math.nan
    v0, v1 = float(by.at[lo_level, "value"]), float(by.at[hi_level, "value"])
    inner = by[(by.index > lo_level) & (by.index < hi_level)]
    if inner.empty or v1 - v0 <= 1e-9:
        return math.nan, math.nan
    f = (inner.index.to_numpy(dtype=float) - lo_level) / (hi_level - lo_level)
    r = (inner["value"].to_numpy(dtype=float) - v0) / (v1 - v0)
    worst = int(np.argmax(np.abs(r - f)))

    def hw(level: float) -> float:
        return _half_width(float(by.at[level, "lo"]), float(by.at[level, "hi"]))

    noise = math.hypot(hw(lo_level), hw(hi_level), hw(float(inner.index[worst]))) / (v1 - v0)
    return float(abs(r - f)[worst]), float(noise)


def _ratio_gap(g: pd.DataFrame, ratios: Sequence[float]) -> tuple[float, float, float]:
    """The largest |value(largest ratio) - value(smallest ratio)| over levels, the largest
    gap beyond the two readings' combined half-widths, and the half-width at the largest
    gap: (gap, beyond the noise, noise)."""
    gap, gap_beyond, gap_noise = 0.0, 0.0, 0.0
    if len(ratios) > 1:
        first, last = ratios[0], ratios[-1]
        for level in sorted(g["level"].unique()):
            a = g[(g["level"] == level) & (g["ratio"] == first)]
            b = g[(g["level"] == level) & (g["ratio"] == last)]
            if len(a) and len(b):
                ra, rb = a.iloc[0], b.iloc[0]
                d = abs(float(rb["value"]) - float(ra["value"]))
                noise = math.hypot(
                    _half_width(ra["ci_low"], ra["ci_high"]),
                    _half_width(rb["ci_low"], rb["ci_high"]),
                )
                if d > gap:
                    gap, gap_noise = d, noise
                gap_beyond = max(gap_beyond, d - noise)
    return gap, gap_beyond, gap_noise


def _readings(g: pd.DataFrame, spec: MeasureSpec) -> _Readings:
    """Every figure the checks need, from the finite rows of one (measure, mode)."""
    ratios = sorted(g["ratio"].unique())
    lo_level, hi_level = g["level"].min(), g["level"].max()
    floor = _at_smallest_ratio(g, lo_level)
    floor_upper = (
        float(floor["ci_high"]) if np.isfinite(floor["ci_high"]) else float(floor["value"])
    )
    floor_lower = float(floor["ci_low"]) if np.isfinite(floor["ci_low"]) else float(floor["value"])
    response_gap, response_noise = _response_gap(g[g["ratio"] == ratios[0]], lo_level, hi_level)
    # the gap between the smallest and the largest ratio, and the readings' own
    # uncertainty: a gap over the line with intervals narrow enough to see one fails; with
    # intervals too wide to see a 0.1 gap, the ratio check is inconclusive
    gap, gap_beyond, gap_noise = _ratio_gap(g, ratios)
    return _Readings(
        floor=floor,
        floor_lower=floor_lower,
        floor_upper=floor_upper,
        ceiling=_at_smallest_ratio(g, hi_level),
        need=CEILING_MIN if spec.documented_ceiling is None else spec.documented_ceiling,
        monotone=_monotone(g, ratios),
        # the response between the ends, at the smallest ratio: the reading normalised by
        # the floor and the ceiling should track the inserted risk f_l (a step or a
        # response saturated half-way does not)
        response_gap=response_gap,
        response_noise=response_noise,
        band=spec.response_band,
        ratios=ratios,
        gap=gap,
        gap_beyond=gap_beyond,
        gap_noise=gap_noise,
    )


# ============================================================================ checks
def _ceiling_reason(r: _Readings, metric: str, unique_share: float | None) -> str:
    """Why the ceiling fails, with the quasi-identifiers' uniqueness when it explains it."""
    why = ""
    if (
        metric in QI_MEASURES
        and unique_share is not None
        and math.isfinite(unique_share)
        and unique_share < 0.5
    ):
        why = (
            f": only {unique_share:.0%} of the training records are unique on the "
            "quasi-identifiers, so even a copy cannot be exploited through them"
        )
    return (
        f"reads only {r.ceiling['value']:.2f} on a full copy (ratio "
        f"{r.ceiling['ratio']:g}:1; needs {r.need:.2f}){why}"
    )


def _check(
    r: _Readings, spec: MeasureSpec, metric: str, unique_share: float | None
) -> tuple[list[str], list[str]]:
    """The contract's checks in order: (reasons to fail, reasons to call it inconclusive)."""
    reasons: list[str] = []
    unsure: list[str] = []
    if r.floor_unsure:
        unsure.append(
            f"its floor {r.floor['value']:.2f} (interval {r.floor_lower:.2f} to "
            f"{r.floor_upper:.2f}) cannot be told from one at most {FLOOR_MAX:g} with an "
            f"upper bound at most {FLOOR_UPPER_MAX:g}: more rows or attacks needed to decide"
        )
    elif not r.floor_ok:
        reasons.append(
            f"reads {r.floor['value']:.2f} on unseen real rows (ratio "
            f"{r.floor['ratio']:g}:1; interval {r.floor_lower:.2f} to {r.floor_upper:.2f})"
        )
    if math.isfinite(r.response_gap) and r.response_gap > r.band:
        off = (
            f"does not track the inserted risk between the ends: its normalised reading "
            f"is {r.response_gap:.2f} from f_l at an interior level (band {r.band:g}"
        )
        if r.response_gap > r.band + r.response_noise:
            reasons.append(off + ")")
        else:
            unsure.append(
                off + f", inside its interval ±{r.response_noise:.2f}): more rows or attacks "
                "needed to decide"
            )
    if not r.ceiling_ok:
        reasons.append(_ceiling_reason(r, metric, unique_share))
    if not r.monotone:
        reasons.append("falls as the leak grows")
    if r.gap > RATIO_GAP_MAX:
        where = f"between size ratios {r.ratios[0]:g}:1 and {r.ratios[-1]:g}:1"
        # a gap that intervals narrow enough can see, or one beyond even wide intervals
        # by more than 0.1, fails; only a gap the noise could explain is undecided
        if r.gap_noise <= RATIO_GAP_MAX or r.gap_beyond > RATIO_GAP_MAX:
            reasons.append(f"moves by {r.gap:.2f} {where}")
        else:
            unsure.append(
                f"moves by {r.gap:.2f} {where}, inside intervals too wide (±{r.gap_noise:.2f}) "
                "to see a 0.1 gap: more rows or attacks needed to decide"
            )
    if spec.absolute and not r.floor_ok:
        reasons.append("absolute measure (see note)")
    return reasons, unsure


def _no_value_summary(metric: str, mode: str, spec: MeasureSpec) -> CalibrationSummary:
    """The summary of a measure without a single finite value: a failure."""
    return CalibrationSummary(
        metric=metric,
        mode=mode,
        floor=math.nan,
        floor_ci=None,
        ceiling=math.nan,
        ceiling_ci=None,
        slope=math.nan,
        intercept=math.nan,
        linearity=math.nan,
        monotone=False,
        ratio_gap=math.nan,
        documented_ceiling=spec.documented_ceiling,
        passed=False,
        reasons=("no value could be computed",),
        note=spec.calibration_note,
        ratio_gap_beyond_noise=math.nan,
    )


# ============================================================================ summary
def summarise(
    rows: pd.DataFrame, metric: str, mode: str, *, unique_share: float | None = None
) -> CalibrationSummary:
    """The contract's figures for one (measure, mode) from its calibration rows.

    ``unique_share`` (see :func:`qi_unique_share`) explains a low ceiling of a measure
    that attacks through the quasi-identifiers."""
    spec = get_measure(metric)
    g = _finite_rows(rows, metric, mode)
    if g.empty:
        return _no_value_summary(metric, mode, spec)
    r = _readings(g, spec)
    slope, intercept, linearity = _linear_fit(g)
    reasons, unsure = _check(r, spec, metric, unique_share)
    return CalibrationSummary(
        metric=metric,
        mode=mode,
        floor=float(r.floor["value"]),
        floor_ci=_interval(r.floor),
        ceiling=float(r.ceiling["value"]),
        ceiling_ci=_interval(r.ceiling),
        slope=float(slope),
        intercept=float(intercept),
        linearity=float(linearity),
        monotone=r.monotone,
        ratio_gap=float(r.gap),
        ratio_gap_beyond_noise=float(r.gap_beyond),
        documented_ceiling=spec.documented_ceiling,
        passed=not reasons and not unsure,
        reasons=tuple(reasons + unsure),
        note=spec.calibration_note,
        response_gap=float(r.response_gap),
        response_band=float(r.band),
        verdict="fail" if reasons else "inconclusive" if unsure else "pass",
    )


def calibration_result(
    rows: pd.DataFrame,
    targets: Sequence[tuple[str, str]],
    *,
    levels: Sequence[float],
    ratios: Sequence[float],
    seed: int,
    n_real: int,
    params: dict[str, Any],
    stopped: bool,
) -> CalibrationResult:
    """A :class:`CalibrationResult` from its rows: one summary per (measure, mode) target
    that has rows. Also builds the partial result of a run that was stopped (or cut off)
    from the rows it streamed; ``params["qi_unique_share"]``, when present, explains low
    ceilings (see :func:`summarise`)."""
    seen = {(m, md) for m, md in zip(rows["metric"], rows["mode"], strict=True)}
    unique = params.get("qi_unique_share")
    summaries = tuple(
        summarise(rows, m, md, unique_share=unique) for m, md in targets if (m, md) in seen
    )
    return CalibrationResult(
        rows=rows,
        summaries=summaries,
        levels=tuple(levels),
        ratios=tuple(ratios),
        seed=seed,
        n_real=n_real,
        params=params,
        stopped=stopped,
    )


__all__ = [
    "CEILING_MIN",
    "FLOOR_MAX",
    "FLOOR_UPPER_MAX",
    "MONOTONE_SLACK",
    "QI_MEASURES",
    "RATIO_GAP_MAX",
    "calibration_result",
    "qi_unique_share",
    "summarise",
]
