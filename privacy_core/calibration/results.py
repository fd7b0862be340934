"""What a calibration returns: :class:`CalibrationSummary` (one measure in one mode against
the contract), :class:`CalibrationResult` (every value and every summary) and the columns
of its tidy rows (:data:`ROW_COLUMNS`).

Both results are frozen; ``to_dict()`` gives the JSON of the command line and the report
(NaN and infinities as null), with no record-level data in it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..measures import MEASURES
from ..results import jsonable

# one row per (measure, mode, ratio, level) value of a calibration run
ROW_COLUMNS = [
    "metric",
    "mode",
    "ratio",
    "level",
    "value",
    "ci_low",
    "ci_high",
    "n_training",
    "n_holdout",
    "n_release",
    "seconds",
    "note",
]


def calibration_key(metric: str, mode: str) -> str:
    """``metric`` or ``metric:mode`` (the JSON summary's keys)."""
    return metric if mode == "default" else f"{metric}:{mode}"


@dataclass(frozen=True)
class CalibrationSummary:
    """How one measure (in one mode) responds to inserted risk."""

    metric: str
    mode: str
    floor: float
    floor_ci: tuple[float, float] | None
    ceiling: float
    ceiling_ci: tuple[float, float] | None
    slope: float
    intercept: float
    linearity: float
    monotone: bool
    ratio_gap: float
    documented_ceiling: float | None
    passed: bool
    reasons: tuple[str, ...]
    note: str = ""
    ratio_gap_beyond_noise: float = 0.0
    # the response between the ends: the largest distance of the normalised reading
    # (v - floor) / (ceiling - floor) from the inserted risk f_l at an interior level,
    # and the band the measure keeps (its registry entry)
    response_gap: float = math.nan
    response_band: float = math.nan
    # "pass", "fail" or "inconclusive" (intervals too wide to decide)
    verdict: str = "fail"

    @property
    def floor_upper(self) -> float:
        return self.floor_ci[1] if self.floor_ci is not None else self.floor

    @property
    def key(self) -> str:
        return calibration_key(self.metric, self.mode)

    def reading(self) -> str:
        """One sentence a stakeholder can read without knowing the measure."""
        return (
            f"On a full copy of this data the measure reads {self.ceiling:.2f}; on "
            f"unseen real rows of the same population it reads {self.floor:.2f}."
        )

    def to_dict(self) -> dict[str, Any]:
        return jsonable(
            {
                "floor": self.floor,
                "floor_ci": self.floor_ci,
                "ceiling": self.ceiling,
                "ceiling_ci": self.ceiling_ci,
                "slope": self.slope,
                "intercept": self.intercept,
                "linearity": self.linearity,
                "monotone": self.monotone,
                "ratio_gap": self.ratio_gap,
                "ratio_gap_beyond_noise": self.ratio_gap_beyond_noise,
                "documented_ceiling": self.documented_ceiling,
                "floor_upper": self.floor_upper,
                "response_gap": self.response_gap,
                "response_band": self.response_band,
                "verdict": self.verdict,
                "pass": self.passed,
                "reasons": list(self.reasons),
                "note": self.note,
            }
        )


@dataclass(frozen=True, eq=False)
class CalibrationResult:
    """Every (measure, mode, ratio, level) value and the per-measure summaries."""

    rows: pd.DataFrame
    summaries: tuple[CalibrationSummary, ...]
    levels: tuple[float, ...]
    ratios: tuple[float, ...]
    seed: int
    n_real: int
    params: dict[str, Any] = field(default_factory=dict)
    stopped: bool = False

    def summary(self, metric: str, mode: str = "default") -> CalibrationSummary | None:
        key = calibration_key(metric, mode)
        return next((s for s in self.summaries if s.key == key), None)

    def summary_frame(self) -> pd.DataFrame:
        label = {n: s.label for n, s in MEASURES.items()}
        return pd.DataFrame(
            [
                {
                    "measure": label.get(s.metric, s.metric)
                    + ("" if s.mode == "default" else f" ({s.mode})"),
                    "key": s.key,
                    "floor": s.floor,
                    "ceiling": s.ceiling,
                    "slope": s.slope,
                    "linearity": s.linearity,
                    "monotone": s.monotone,
                    "ratio_gap": s.ratio_gap,
                    "documented_ceiling": s.documented_ceiling,
                    "pass": s.passed,
                    "reasons": "; ".join(s.reasons),
                }
                for s in self.summaries
            ]
        )

    def to_dict(self) -> dict[str, Any]:
        rows = [
            {
                "metric": r.metric,
                "mode": r.mode,
                "ratio": float(r.ratio),
                "level": float(r.level),
                "value": r.value,
                "ci": (
                    None
                    if not (np.isfinite(r.ci_low) and np.isfinite(r.ci_high))
                    else [float(r.ci_low), float(r.ci_high)]
                ),
            }
            for r in self.rows.itertuples()
        ]
        return jsonable(
            {
                "rows": rows,
                "summary": {s.key: s.to_dict() for s in self.summaries},
                "levels": list(self.levels),
                "ratios": list(self.ratios),
                "params": self.params,
                "stopped": self.stopped,
            }
        )


__all__ = ["ROW_COLUMNS", "CalibrationResult", "CalibrationSummary", "calibration_key"]
