"""The sweep's constants and its result: :class:`SweepResult`, one tidy row per (level,
replicate, measure), with summaries, correlations and the command-line JSON."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..results import jsonable
from ..stats import mean_interval
from ..validation import (
    check_choice,
    check_confidence,
)

RowsFn = Callable[[pd.DataFrame], None]

RISK_MODELS = ("leaky", "overfit", "dp")
LEVEL_NAMES = {"leaky": "f_l", "overfit": "f_o", "dp": "epsilon"}
DEFAULT_LEVELS: dict[str, tuple[float, ...]] = {
    "leaky": (0.0, 0.2, 0.4, 0.6, 0.8, 1.0),
    "overfit": (1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
    "dp": (1.0, 5.0, 10.0, 50.0, 100.0),
}
DP_GENERATORS = ("dp-mst", "dp-independent", "smartnoise-mst", "smartnoise-aim")
BACKENDS = ("local", "ray")
CANARY_MEASURES = ("inference", "ml_inference")
# How closely each measure reads the leak fraction under the leaky risk model, on a table
# whose records the attacker's columns pick out (the framework's worst case, every other
# column known; on coarser quasi-identifiers the QI attacks read less, see calibration):
# (ends, below, above) = |value - f_l| <= ends at f_l = 0 and 1, and
# f_l - below <= value <= f_l + above in between. Measured on the health demo (1,000
# training rows, 2 replicates) and UCI Adult (16,280 training rows): the linear measures
# stay within 0.06 of f_l at 0.5. Multivariate singling out is convex, not linear: a
# predicate that isolates a leaked record in the release can still match a training
# record that was *not* leaked (the release holds only a share f_l of them), and
# predicates from the release's other rows are known to miss every leaked record, so they
# single out a training record less often than a control record. Both effects vanish at
# f_l = 1 (the release is the training set), hence 0.32 at f_l = 0.5 on the demo and
# 0.09 / 0.41 at f_l = 0.2 / 0.6 on Adult with 3-column predicates (0.17 / 0.55 for the
# paper protocol's maximum over widths). Keys: registry name, ``singling_out:<mode>``.
LEAKY_TOLERANCE: dict[str, tuple[float, float, float]] = {
    "ims": (0.05, 0.05, 0.05),
    "dcr": (0.05, 0.05, 0.05),
    "knn": (0.05, 0.05, 0.05),
    "linkability": (0.05, 0.1, 0.1),
    "inference": (0.05, 0.1, 0.1),
    "ml_inference": (0.05, 0.1, 0.1),
    "singling_out:univariate": (0.05, 0.1, 0.1),
    "singling_out:multivariate": (0.05, 0.35, 0.05),
    "singling_out:paper": (0.06, 0.2, 0.05),
}

# Shares of the real data: (training, control, pool) for leaky, (training, control,
# validation) for overfit, (training, control) for dp.
SPLITS = {"leaky": (1 / 3, 1 / 3, 1 / 3), "overfit": (0.4, 0.4, 0.2), "dp": (0.5, 0.5)}

ROW_COLUMNS = [
    "risk_model",
    "level",
    "replicate",
    "measure",
    "value",
    "ci_low",
    "ci_high",
    "baseline",
    "goal",
    "generator",
    "f_l",
    "f_o",
    "epsilon",
    "reached",
    "achieved_ratio",
    "outlier_fraction",
    "n_training",
    "n_control",
    "n_release",
    "seed",
    "note",
]


# ============================================================================ result
@dataclass(frozen=True, eq=False)
class SweepResult:
    """The tidy result of a risk-insertion sweep.

    Attributes
    ----------
    rows
        One row per (outlier fraction, level, replicate, measure): ``value``, ``ci_low``,
        ``ci_high`` (the measure's own interval), ``baseline``, ``goal``, the level under
        its own name (``f_l``, ``f_o`` or ``epsilon``), ``generator``, ``reached`` (False
        for an overfit level the training never reached: its value is NaN),
        ``achieved_ratio`` (overfit: validation loss / L* of the checkpoint), sizes,
        the replicate's ``seed`` and a ``note`` (errors and warnings of that evaluation).
    curves
        Overfit only: ``{replicate: TrainingCurve}`` (train / validation loss per
        evaluation and the checkpoints).
    stopped
        True when ``should_stop`` ended the sweep early: ``rows`` then holds the tasks
        finished so far.
    """

    rows: pd.DataFrame
    risk_model: str
    levels: tuple[float, ...]
    measures: tuple[str, ...]
    replicates: int
    seed: int
    params: dict[str, Any] = field(default_factory=dict)
    curves: dict[Any, Any] = field(default_factory=dict)
    stopped: bool = False
    n_tasks: int = 0
    n_done: int = 0
    n_real: int = 0

    @property
    def level_name(self) -> str:
        return LEVEL_NAMES[self.risk_model]

    def to_frame(self) -> pd.DataFrame:
        """A copy of the tidy rows."""
        return self.rows.copy()

    def summary(self, *, confidence: float = 0.95) -> pd.DataFrame:
        """Mean and interval per (outlier fraction, level, measure).

        With two or more finite replicate values the interval is mean ± t_{k-1}·sd/√k
        over replicates (Student t with k - 1 degrees of freedom,
        :func:`privacy_core.stats.mean_interval`); with one it is that replicate's own
        interval. Columns: outlier_fraction, level, measure, mean, sd,
        n, ci_low, ci_high, reached (share of replicates that reached the level).
        """
        check_confidence(confidence)
        out = []
        if self.rows.empty:
            return pd.DataFrame(
                columns=[
                    "outlier_fraction",
                    "level",
                    "measure",
                    "mean",
                    "sd",
                    "n",
                    "ci_low",
                    "ci_high",
                    "reached",
                ]
            )
        for (frac, level, measure), g in self.rows.groupby(
            ["outlier_fraction", "level", "measure"], sort=True
        ):
            v = g["value"].to_numpy(dtype=float)
            finite = np.isfinite(v)
            k = int(finite.sum())
            mean = float(v[finite].mean()) if k else float("nan")
            sd = float(v[finite].std(ddof=1)) if k > 1 else float("nan")
            if k > 1:
                lo, hi = mean_interval(v[finite], confidence=confidence)
            elif k == 1:
                row = g[finite].iloc[0]
                lo, hi = float(row["ci_low"]), float(row["ci_high"])
            else:
                lo = hi = float("nan")
            out.append(
                {
                    "outlier_fraction": frac,
                    "level": level,
                    "measure": measure,
                    "mean": mean,
                    "sd": sd,
                    "n": k,
                    "ci_low": lo,
                    "ci_high": hi,
                    "reached": float(g["reached"].astype(float).mean()),
                }
            )
        return pd.DataFrame(out)

    def responses(self) -> pd.DataFrame:
        """How each measure responds to the inserted risk (one row per measure).

        Columns: ``measure``; ``at_lowest`` and ``at_highest`` (mean at the smallest and
        largest level reached); ``slope`` (least-squares slope of the per-level means on
        the level, on log10 epsilon for ``dp``); ``rank_correlation`` (Spearman's rho of
        means and levels: +1 = rises steadily with the level; for ``dp`` the level is the
        privacy budget epsilon, and a larger epsilon is weaker privacy, so the risk rises
        as epsilon grows and +1 is again the expected response of a risk measure);
        ``max_gap_to_ideal`` (leaky only: max |mean - f_l|, 0 = reads the
        inserted leak exactly); ``within_tolerance`` (leaky only: every level's mean
        inside the measure's :data:`LEAKY_TOLERANCE` band; NaN for a measure without
        one); ``levels`` (levels with a value).
        """
        summary = self.summary()
        if not summary.empty:
            summary = summary[summary["outlier_fraction"] == summary["outlier_fraction"].min()]
        out = []
        for measure, g in summary.groupby("measure", sort=False):
            g = g[np.isfinite(g["mean"].to_numpy(float))].sort_values("level")
            x = g["level"].to_numpy(float)
            y = g["mean"].to_numpy(float)
            xs = np.log10(x) if self.risk_model == "dp" else x
            slope = rho = float("nan")
            if len(x) >= 2 and np.ptp(xs) > 0:
                slope = float(np.polyfit(xs, y, 1)[0])
                if np.ptp(y) > 0:
                    rho = float(pd.Series(xs).corr(pd.Series(y), method="spearman"))
            gap = (
                float(np.max(np.abs(y - x)))
                if self.risk_model == "leaky" and len(x)
                else float("nan")
            )
            within: float | bool = float("nan")
            band = LEAKY_TOLERANCE.get(self.tolerance_key(measure))
            if self.risk_model == "leaky" and band is not None and len(x):
                within = bool(np.all(leaky_within(x, y, band)))
            out.append(
                {
                    "measure": measure,
                    "at_lowest": float(y[0]) if len(y) else float("nan"),
                    "at_highest": float(y[-1]) if len(y) else float("nan"),
                    "slope": slope,
                    "rank_correlation": rho,
                    "max_gap_to_ideal": gap,
                    "within_tolerance": within,
                    "levels": len(x),
                }
            )
        return pd.DataFrame(
            out,
            columns=[
                "measure",
                "at_lowest",
                "at_highest",
                "slope",
                "rank_correlation",
                "max_gap_to_ideal",
                "within_tolerance",
                "levels",
            ],
        )

    def tolerance_key(self, measure: str) -> str:
        """The :data:`LEAKY_TOLERANCE` key of a measure in this sweep (singling out by the
        mode it ran in)."""
        if measure != "singling_out":
            return measure
        mode = (self.params.get("options", {}).get("singling_out", {}) or {}).get(
            "mode", "multivariate"
        )
        return f"singling_out:{mode}"

    def correlations(self, *, method: str = "pearson") -> pd.DataFrame:
        """Correlation of measures across the sweep (measures x measures).

        Each (outlier fraction, level, replicate) release is one observation; measures
        constant over the sweep (no response) give NaN. ``method``: pearson, spearman or
        kendall.

        Notes
        -----
        ``risk-insertion-framework.md`` Appendix A, Figures 7-11.
        """
        check_choice("method", method, ("pearson", "spearman", "kendall"))
        if self.rows.empty:
            return pd.DataFrame()
        wide = self.rows.pivot_table(
            index=["outlier_fraction", "level", "replicate"],
            columns="measure",
            values="value",
            aggfunc="mean",
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return wide.corr(method=method)

    def to_dict(self) -> dict[str, Any]:
        """``{"rows": [{"level", "replicate", "metric", "value", "ci"}]}`` (DESIGN.md)."""
        rows = []
        for r in self.rows.itertuples(index=False):
            ci = None
            if np.isfinite(r.ci_low) and np.isfinite(r.ci_high):
                ci = [float(r.ci_low), float(r.ci_high)]
            rows.append(
                {
                    "level": float(r.level),
                    "replicate": int(r.replicate),
                    "metric": str(r.measure),
                    "value": r.value,
                    "ci": ci,
                }
            )
        return jsonable({"rows": rows})


def leaky_within(
    levels: np.ndarray, values: np.ndarray, band: tuple[float, float, float]
) -> np.ndarray:
    """Per level, whether a value lies in its :data:`LEAKY_TOLERANCE` band around f_l."""
    ends, below, above = band
    x, y = np.asarray(levels, dtype=float), np.asarray(values, dtype=float)
    edge = np.isclose(x, 0.0) | np.isclose(x, 1.0)
    return np.where(
        edge, np.abs(y - x) <= ends + 1e-12, (y >= x - below - 1e-12) & (y <= x + above + 1e-12)
    )
