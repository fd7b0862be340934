"""RAPID against its threshold: the default grid of thresholds and the curve along it.

A curve re-aggregates one fit at every threshold of a grid (each attacker, their mean
and their maximum, with intervals); :meth:`RapidResult.curve
<privacy_core.risk.rapid.result.RapidResult.curve>` memoises it per fit and variant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .aggregation import aggregate

if TYPE_CHECKING:
    from .result import RapidResult


def default_thresholds(result: RapidResult) -> np.ndarray:
    """The thresholds a curve runs over by default: τ 0 to 1 (to the largest score for
    the conditional gain, at least 1), ε 0 to twice the current one (at least 0.5); 41
    points."""
    if result.kind == "categorical":
        if result.params["method"] == "conditional":
            hi = float(np.nanmax(result.scores)) if result.scores.size else 2.0
            return np.round(np.linspace(0, max(hi, 1.0), 41), 4)
        return np.round(np.linspace(0, 1, 41), 4)
    return np.round(np.linspace(0, max(0.5, 2 * result.threshold), 41), 4)


def threshold_curve(result: RapidResult, thresholds: Sequence[float] | np.ndarray) -> pd.DataFrame:
    """RAPID of ``result``'s fit at each threshold: one row per (threshold, series), the
    series being each attacker, ``mean`` and ``max``; columns rate, lower, upper."""
    rows = []
    for t in thresholds:
        # Not result.at(): a curve may sweep the tolerance past 1 on purpose, and the
        # ε unit check guards values typed by a user, not a plotted axis.
        r = aggregate(result, result.scores, float(t), dict(result.params))
        for a in result.attackers:
            rows.append((t, a, r.by_attacker[a]["value"], *r.by_attacker[a]["ci"]))
        rows.append((t, "mean", r.value, *(r.ci or (np.nan, np.nan))))
        rows.append((t, "max", r.rate_max, *(r.ci_max or (np.nan, np.nan))))
    return pd.DataFrame(rows, columns=["threshold", "series", "rate", "lower", "upper"])
