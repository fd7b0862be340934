"""Comparing two reviews: which numbers moved and what changed in their inputs.

Contract
--------
:func:`compare_reviews` pairs the candidates of two stored documents (or reports) by
position and returns a :class:`ReviewComparison`: one row per candidate and measure
(``moved`` when the two intervals do not overlap), each difference of data, threat model,
parameters, seeds and decision in words, and a one-sentence verdict on whether the review
reproduces (:meth:`ReviewComparison.summary`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..results import jsonable
from .documents import inputs_key, measure_numbers, review_document, stable_params

__all__ = ["ReviewComparison", "compare_reviews"]


@dataclass(frozen=True, eq=False)  # a DataFrame has no truth value to compare by
class ReviewComparison:
    """Two reviews side by side: which numbers moved and what changed in the inputs.

    ``metrics`` has one row per candidate and measure: ``candidate``, ``metric``,
    ``value_a``, ``ci_a``, ``value_b``, ``ci_b``, ``delta`` (b - a) and ``moved`` (the two
    intervals do not overlap; a measure without an interval counts as the point interval
    of its value, so any change of it is a move). ``inputs`` lists in words each
    difference of data (fingerprints, row counts), threat model, parameters, seeds and
    decision. ``identical_numbers`` is :func:`reproduces`.
    """

    metrics: pd.DataFrame
    inputs: list[str]
    identical_numbers: bool
    same_inputs: bool
    a_id: int | None = None
    b_id: int | None = None
    causes: tuple[str, ...] = field(default=())

    @property
    def n_numbers(self) -> int:
        """Measures present in both reviews."""
        both = self.metrics["value_a"].notna() & self.metrics["value_b"].notna()
        return int(both.sum())

    @property
    def n_moved(self) -> int:
        """Measures whose intervals do not overlap."""
        return int(self.metrics["moved"].sum())

    @property
    def n_changed(self) -> int:
        """Measures in both reviews whose value or interval is not identical (a measure
        computed in one review only is listed in ``inputs``, not counted here)."""
        m = self.metrics
        both = m["value_a"].notna() & m["value_b"].notna()
        changed = [
            not (_same(va, vb) and ca == cb)
            for va, vb, ca, cb in zip(
                m["value_a"][both],
                m["value_b"][both],
                m["ci_a"][both],
                m["ci_b"][both],
                strict=True,
            )
        ]
        return int(sum(changed))

    def summary(self) -> str:
        """One plain-English sentence: does the review reproduce, and if not, why."""
        if self.identical_numbers:
            if self.same_inputs:
                return "Same inputs and seed; every number identical: the review reproduces."
            return "Every number identical although the inputs differ (" + _and(self.causes) + ")."
        if self.n_moved:
            moved = f"{self.n_moved} of {self.n_numbers} numbers moved beyond their intervals"
        elif self.n_changed:
            moved = (
                f"{self.n_changed} of {self.n_numbers} numbers changed, none beyond its interval"
            )
        else:
            moved = (
                f"the {self.n_numbers} numbers both reviews hold are identical, but "
                "the reviews hold different measures"
            )
        if self.same_inputs:
            return f"Same inputs and seed, yet {moved}: the review does not reproduce" + (
                " (the product version changed)."
                if "the product version changed" in self.causes
                else "."
            )
        return f"{moved[0].upper()}{moved[1:]}; {_and(self.causes)}."

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the rows of ``metrics``, the input differences and the sentence."""
        return jsonable(
            {
                "a": self.a_id,
                "b": self.b_id,
                "summary": self.summary(),
                "identical_numbers": self.identical_numbers,
                "same_inputs": self.same_inputs,
                "inputs": list(self.inputs),
                "metrics": self.metrics.to_dict(orient="records"),
            }
        )


def _and(items: Sequence[str]) -> str:
    items = list(items) or ["the inputs changed"]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _same(x: Any, y: Any) -> bool:
    if _missing(x) and _missing(y):
        return True
    return x == y


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _interval(value: Any, ci: Any) -> tuple[float, float] | None:
    if ci and len(ci) == 2 and None not in ci:
        return float(ci[0]), float(ci[1])
    if _missing(value):
        return None
    return float(value), float(value)


def _moved(va: Any, ca: Any, vb: Any, cb: Any) -> bool:
    ia, ib = _interval(va, ca), _interval(vb, cb)
    if ia is None or ib is None:
        return False
    return ia[1] < ib[0] or ib[1] < ia[0]


def _metric_rows(a: Mapping[str, Any], b: Mapping[str, Any]) -> pd.DataFrame:
    cands_a, cands_b = a.get("candidates") or [], b.get("candidates") or []
    rows = []
    # candidates are paired by position: a mitigated release is often saved under another
    # name, and the report keeps candidates in the order they were given
    for i in range(max(len(cands_a), len(cands_b))):
        ca = cands_a[i] if i < len(cands_a) else {}
        cb = cands_b[i] if i < len(cands_b) else {}
        na, nb = ca.get("name"), cb.get("name")
        label = str(na if na == nb or nb is None else nb if na is None else f"{na} → {nb}")
        ma, mb = ca.get("metrics") or {}, cb.get("metrics") or {}
        for metric in list(ma) + [m for m in mb if m not in ma]:
            va, vb = (ma.get(metric) or {}).get("value"), (mb.get(metric) or {}).get("value")
            cia, cib = (ma.get(metric) or {}).get("ci"), (mb.get(metric) or {}).get("ci")
            delta = (
                None
                if va is None or vb is None or _missing(va) or _missing(vb)
                else float(vb) - float(va)
            )
            rows.append(
                {
                    "candidate": label,
                    "metric": metric,
                    "value_a": va,
                    "ci_a": tuple(cia) if cia else None,
                    "value_b": vb,
                    "ci_b": tuple(cib) if cib else None,
                    "delta": delta,
                    "moved": _moved(va, cia, vb, cib),
                }
            )
    columns = ["candidate", "metric", "value_a", "ci_a", "value_b", "ci_b", "delta", "moved"]
    frame = pd.DataFrame(rows, columns=columns)
    frame["moved"] = frame["moved"].astype(bool)
    for col in ("value_a", "value_b", "delta"):
        frame[col] = pd.to_numeric(frame[col], errors="coerce")
    return frame


def _show(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _data_differences(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[list[str], set[str]]:
    pa, pb = a.get("provenance") or {}, b.get("provenance") or {}
    lines: list[str] = []
    causes: set[str] = set()

    def table(label: str, ta: Any, tb: Any, cause: str) -> None:
        ta, tb = ta or {}, tb or {}
        if ta.get("fingerprint") != tb.get("fingerprint"):
            lines.append(
                f"{label} fingerprint: {ta.get('fingerprint') or 'none'} → "
                f"{tb.get('fingerprint') or 'none'}"
            )
            causes.add(cause)
        if ta.get("rows") != tb.get("rows"):
            lines.append(f"{label} rows: {ta.get('rows')} → {tb.get('rows')}")
            causes.add(cause)

    table("real data", pa.get("real"), pb.get("real"), "the real data changed")
    table("holdout", pa.get("holdout"), pb.get("holdout"), "the holdout changed")
    sa_, sb_ = pa.get("synthetic") or [], pb.get("synthetic") or []
    if len(sa_) != len(sb_):
        lines.append(f"synthetic releases: {len(sa_)} → {len(sb_)}")
        causes.add("the synthetic data changed")
    for i, (ra, rb) in enumerate(zip(sa_, sb_, strict=False)):
        table(f"synthetic release {i + 1} ({rb.get('name')})", ra, rb, "the synthetic data changed")
    if pa.get("software") != pb.get("software"):
        lines.append(f"product version: {pa.get('software')} → {pb.get('software')}")
        causes.add("the product version changed")
    return lines, causes


def _param_differences(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[list[str], set[str]]:
    lines: list[str] = []
    causes: set[str] = set()
    seeds: list[tuple[Any, Any]] = []
    cands_a, cands_b = a.get("candidates") or [], b.get("candidates") or []
    several = max(len(cands_a), len(cands_b)) > 1
    for ca, cb in zip(cands_a, cands_b, strict=False):
        prefix = f"{cb.get('name')}: " if several else ""
        ma, mb = ca.get("metrics") or {}, cb.get("metrics") or {}
        only_a = [m for m in ma if m not in mb]
        only_b = [m for m in mb if m not in ma]
        if only_a:
            lines.append(f"{prefix}measures only in review A: {', '.join(only_a)}")
        if only_b:
            lines.append(f"{prefix}measures only in review B: {', '.join(only_b)}")
        if only_a or only_b:
            causes.add("the measures changed")
        for metric in (m for m in ma if m in mb):
            pa = stable_params((ma[metric] or {}).get("params")) or {}
            pb = stable_params((mb[metric] or {}).get("params")) or {}
            if pa.get("seed") != pb.get("seed"):
                seeds.append((pa.get("seed"), pb.get("seed")))
                # the other *_seed keys are drawn from the seed: one line says it all
                skip = {k for k in set(pa) | set(pb) if k.endswith("seed")}
            else:
                skip = set()
            keys = [
                k for k in sorted(set(pa) | set(pb)) if k not in skip and pa.get(k) != pb.get(k)
            ]
            for k in keys:
                lines.append(f"{prefix}{metric} {k}: {_show(pa.get(k))} → {_show(pb.get(k))}")
            if keys:
                causes.add("the parameters changed")
    for old, new in dict.fromkeys(seeds):
        lines.append(f"seed: {old} → {new}")
        causes.add("the seed changed")
    return lines, causes


def compare_reviews(a: Mapping[str, Any], b: Mapping[str, Any]) -> ReviewComparison:
    """Compare two reviews: which numbers moved and what changed in data or parameters.

    Parameters
    ----------
    a, b
        Stored documents (:meth:`ReviewStore.get`) or reports; ``a`` is the earlier one,
        deltas are ``b - a``.

    Returns
    -------
    ReviewComparison
        ``metrics`` (one row per candidate and measure, ``moved`` when the intervals do
        not overlap), ``inputs`` (each difference in words), ``identical_numbers`` and
        :meth:`~ReviewComparison.summary`.

    Notes
    -----
    Candidates are paired by position. Two reviews with the same :func:`inputs_key`
    computed from the same files, threat model, parameters and seeds; the product's seeded
    measures then give identical numbers, so a difference there means the product itself
    changed (consensus framework: a review must be reproducible to be auditable).
    """
    da, db = review_document(a), review_document(b)
    data_lines, data_causes = _data_differences(da, db)
    param_lines, param_causes = _param_differences(da, db)
    lines = data_lines + param_lines
    causes = data_causes | param_causes
    ta, tb = da.get("threat") or {}, db.get("threat") or {}
    for k in [k for k in list(ta) + [k for k in tb if k not in ta] if ta.get(k) != tb.get(k)]:
        lines.append(f"threat model {k}: {_show(ta.get(k))} → {_show(tb.get(k))}")
        causes.add("the threat model changed")
    if da.get("decision") != db.get("decision"):
        lines.append(f"decision: {da.get('decision')} → {db.get('decision')}")
    order = [
        "the real data changed",
        "the holdout changed",
        "the synthetic data changed",
        "the threat model changed",
        "the measures changed",
        "the parameters changed",
        "the seed changed",
        "the product version changed",
    ]
    return ReviewComparison(
        metrics=_metric_rows(da, db),
        inputs=lines,
        identical_numbers=measure_numbers(da) == measure_numbers(db),
        same_inputs=inputs_key(da) == inputs_key(db),
        a_id=a.get("id") if isinstance(a, Mapping) else None,
        b_id=b.get("id") if isinstance(b, Mapping) else None,
        causes=tuple(c for c in order if c in causes),
    )
