"""The result object shared by every measure.

Every measure returns a frozen dataclass that is (or extends) :class:`MetricResult`: the
headline ``value``, its interval ``ci``, the ``params`` needed to recompute it (seed
included), the ``goal`` (which direction is better), the ``bounds``, an optional
``baseline`` and a per-record table ``records`` carrying each record's index in the
input. ``to_dict()`` gives the JSON form of the command-line contract, without
per-record data unless asked.
"""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

import numpy as np
import pandas as pd

from .errors import ParameterError


def jsonable(value: Any) -> Any:
    """Convert numpy / pandas scalars and containers to plain JSON types.

    Every missing or non-finite number (NaN, ±inf, ``pd.NA``, ``NaT``) becomes None: the
    standard has no NaN or Infinity, and strict readers (JavaScript's ``JSON.parse``, jq,
    most languages' parsers) refuse the bare tokens Python's ``json`` writes by default.
    Dates and times become ISO 8601 text; sets become sorted lists.
    """
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(v) for v in value), key=repr)
    if isinstance(value, (np.ndarray, pd.Series, pd.Index)):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, pd.DataFrame):
        return jsonable(value.to_dict(orient="records"))
    # before the numbers: numpy's timedelta64 is a signed integer type
    if isinstance(value, (np.datetime64, np.timedelta64)):
        return _json_time(value)
    if isinstance(value, (np.bool_, bool, np.integer, float, np.floating, Decimal)):
        return _json_number(value)
    # before the dates: pd.NaT is a datetime too
    if value is pd.NA or value is pd.NaT:
        return None
    return _json_time(value)


def _json_number(value: Any) -> bool | int | float | None:
    """A boolean, integer or finite float; None for NaN and ±inf."""
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, Decimal):  # float() refuses a signalling NaN: test first
        return float(value) if value.is_finite() else None
    f = float(value)
    return None if math.isnan(f) or math.isinf(f) else f


def _json_time(value: Any) -> Any:
    """Dates and times as ISO 8601 text, durations as pandas' text (None when missing);
    any other value as it is."""
    if isinstance(value, np.datetime64):
        return None if np.isnat(value) else pd.Timestamp(value).isoformat()
    if isinstance(value, np.timedelta64):
        return None if np.isnat(value) else str(pd.Timedelta(value))
    if isinstance(value, (_dt.date, _dt.time)):  # datetime and pd.Timestamp included
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return str(pd.Timedelta(value))
    return value


@dataclass(frozen=True, eq=False)
class MetricResult:
    """Headline value, interval, parameters and per-record values of one measure."""

    name: str
    value: float
    ci: tuple[float, float] | None
    params: dict[str, Any]
    record_table: pd.DataFrame | None = None
    baseline: float | None = None
    goal: Literal["lower", "higher"] = "lower"
    bounds: tuple[float, float] = (0.0, 1.0)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def records(self) -> pd.DataFrame | None:
        """One row per evaluated record (with its index in the input), or None."""
        return self.record_table

    def require_records(self) -> pd.DataFrame:
        """:attr:`records`, for callers that cannot do without them (figures, tables)."""
        if self.record_table is None:
            raise ParameterError(f"{self.name} has no per-record values to show.")
        return self.record_table

    def to_dict(self, *, include_records: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "value": self.value,
            "ci": list(self.ci) if self.ci is not None else None,
            "params": self.params,
            "goal": self.goal,
            "bounds": list(self.bounds),
        }
        if self.baseline is not None:
            out["baseline"] = self.baseline
        out.update(self.extra)
        # the point estimate as computed, beside a reading clipped to the measure's range
        # (attack risks and GTCAP clip at 0; an unseen release's -0.05 is not 0.000)
        unclipped = next(
            (
                self.extra[k]
                for k in ("risk_unclipped", "raw_risk")
                if self.extra.get(k) is not None
            ),
            self.value,
        )
        out.setdefault("estimate", unclipped)
        if include_records and self.records is not None:
            out["records"] = self.records
        return jsonable(out)


def combine_replicates(results: list[MetricResult]) -> MetricResult:
    """One result over several synthetic releases of the same generator (consensus R10).

    ``value`` is the mean of the releases' values, ``ci`` the Student-t interval of that mean
    (:func:`privacy_core.stats.mean_interval`, k - 1 degrees of freedom)
    (the single release's own interval when there is one), ``extra["replicates"]`` the
    per-release values and ``extra["sd"]`` their spread; the per-record table stacks the
    releases' tables with a ``release`` column.
    """
    from .stats import mean_interval

    if len(results) == 1:
        return results[0]
    values = np.array([r.value for r in results], dtype=float)
    tables = [r.records.assign(release=i) for i, r in enumerate(results) if r.records is not None]
    first = results[0]
    baselines = [r.baseline for r in results if r.baseline is not None]
    # attacks' raw success rates, averaged like the value, so that a combined result can
    # still be read on one scale (attack vs control vs random guess)
    rates = {
        key: float(np.mean([r.extra[key] for r in results]))
        for key in ("attack_rate", "control_rate", "baseline_rate")
        if all(r.extra.get(key) is not None for r in results)
    }
    return MetricResult(
        name=first.name,
        value=float(np.nanmean(values)),
        ci=mean_interval(values),
        params={**first.params, "n_releases": len(results)},
        record_table=pd.concat(tables, ignore_index=True) if tables else None,
        baseline=float(np.mean(baselines)) if baselines else None,
        goal=first.goal,
        bounds=first.bounds,
        extra={
            **rates,
            "replicates": values.tolist(),
            "sd": float(np.nanstd(values, ddof=1)),
            "per_release_ci": [list(r.ci) if r.ci else None for r in results],
        },
    )
