"""What-if mitigation: change the data or the release, then compare every measure.

A reviewer who finds a risk too high can try the usual statistical-disclosure-control
moves before deciding: coarsen a quasi-identifier (bin a number, merge rare categories),
suppress a quasi-identifier, suppress the release's rare quasi-identifier combinations
(k-anonymity on the release), or regenerate the release with another generator knob (CART
minimum leaf size, DP ε). :func:`apply_mitigation` returns the mitigated inputs;
the caller evaluates them with the same measures and seed as the original, and
:func:`compare_measures` sets the two side by side.

Coarsening and suppressing a quasi-identifier change what the attacker knows as well as
what is released: the same bins (fitted on the real table) and the same merge are applied
to the real, holdout and synthetic tables, so the attacker is scored on the coarse
values the release now carries. Suppressing rare combinations and regenerating change
the release only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from .errors import ColumnNotFoundError, ParameterError, ThreatModelError
from .measures import MEASURES, measure_goal
from .results import MetricResult
from .threat import ThreatModel

Kind = Literal["bin_numeric", "merge_rare", "suppress_column", "suppress_rare", "regenerate"]
KINDS: dict[str, str] = {
    "bin_numeric": "Coarsen a number into bins",
    "merge_rare": "Merge rare categories",
    "suppress_column": "Suppress a quasi-identifier",
    "suppress_rare": "Suppress rare combinations (k-anonymity on the release)",
    "regenerate": "Regenerate the release with another knob",
}
OTHER = "(other)"


@dataclass(frozen=True)
class Mitigation:
    """One what-if step and its parameters."""

    kind: Kind
    column: str | None = None
    bins: int = 5
    min_count: int = 20
    k: int = 5
    method: str = "cart"
    generator_params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ParameterError(
                f"Unknown mitigation {self.kind!r}; choose from {', '.join(KINDS)}."
            )
        if self.kind in ("bin_numeric", "merge_rare", "suppress_column") and not self.column:
            raise ParameterError(f"{KINDS[self.kind]}: name the column.")
        if self.kind == "bin_numeric" and not 2 <= int(self.bins) <= 100:
            raise ParameterError(f"bins must be from 2 to 100; received {self.bins!r}.")
        if self.kind == "merge_rare" and int(self.min_count) < 2:
            raise ParameterError(f"min_count must be at least 2; received {self.min_count!r}.")
        if self.kind == "suppress_rare" and int(self.k) < 2:
            raise ParameterError(f"k must be at least 2; received {self.k!r}.")

    def describe(self) -> str:
        if self.kind == "bin_numeric":
            return f"{self.column} coarsened into {self.bins} bins"
        if self.kind == "merge_rare":
            return f"{self.column}: categories under {self.min_count} records merged"
        if self.kind == "suppress_column":
            return f"{self.column} suppressed"
        if self.kind == "suppress_rare":
            return f"release rows with a quasi-identifier combination seen < {self.k} times removed"
        knobs = ", ".join(f"{k} {v}" for k, v in self.generator_params) or "defaults"
        return f"release regenerated with {self.method} ({knobs})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "label": KINDS[self.kind],
            "description": self.describe(),
            "column": self.column,
            "bins": self.bins,
            "min_count": self.min_count,
            "k": self.k,
            "method": self.method,
            "generator_params": dict(self.generator_params),
        }


@dataclass(frozen=True)
class MitigatedInputs:
    """The inputs after a mitigation, ready for the same measures as the original."""

    real: pd.DataFrame
    synthetic: tuple[pd.DataFrame, ...]
    holdout: pd.DataFrame | None
    threat: ThreatModel
    mitigation: Mitigation
    notes: tuple[str, ...] = ()
    params: dict[str, Any] = field(default_factory=dict)


def _bin_edges(values: pd.Series, bins: int) -> np.ndarray:
    x = pd.to_numeric(values, errors="coerce").dropna().to_numpy(float)
    if len(x) == 0:
        raise ParameterError(f"{values.name!r} has no numeric values to bin.")
    edges = np.unique(np.quantile(x, np.linspace(0, 1, bins + 1)))
    if len(edges) < 2:
        raise ParameterError(f"{values.name!r} is constant in the real table: nothing to bin.")
    return edges


def _binned(values: pd.Series, edges: np.ndarray) -> pd.Series:
    x = pd.to_numeric(values, errors="coerce").to_numpy(float)
    # outer bins open-ended so that release values outside the real range still land in one
    idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, len(edges) - 2)
    labels = np.array(
        [
            f"[{_num(edges[i])}, {_num(edges[i + 1])}" + ("]" if i == len(edges) - 2 else ")")
            for i in range(len(edges) - 1)
        ],
        dtype=object,
    )
    out = pd.Series(labels[idx], index=values.index, dtype=object)
    out[np.isnan(x)] = np.nan
    return out


def _num(v: float) -> str:
    return f"{v:.4g}"


def _check_column(column: str | None, real: pd.DataFrame) -> str:
    """The column's name, once it is known to be one of the real table's."""
    if column is None or column not in real.columns:
        raise ColumnNotFoundError(
            f"Column {column!r} is not in the real table; its columns "
            f"are {', '.join(map(str, real.columns))}."
        )
    return column


def apply_mitigation(
    real: pd.DataFrame,
    synthetic: Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    mitigation: Mitigation,
    holdout: pd.DataFrame | None = None,
    seed: int = 0,
) -> MitigatedInputs:
    """The inputs after ``mitigation``; the originals are not changed.

    Parameters
    ----------
    real, synthetic, holdout
        The review's tables (the releases of one candidate).
    threat
        The threat model; suppressing a quasi-identifier removes it.
    mitigation
        What to change (:class:`Mitigation`).
    seed
        Seeds a regeneration (each release i is regenerated with ``seed + i``).

    Raises
    ------
    ColumnNotFoundError
        The column is not in the real table.
    ThreatModelError
        Suppressing the sensitive column, or the last quasi-identifier.
    ParameterError
        Binning a column with no numeric values, or a constant one.
    """
    m = mitigation
    tables = [real, *synthetic] + ([holdout] if holdout is not None else [])
    notes: list[str] = []
    params: dict[str, Any] = {"mitigation": m.to_dict(), "seed": int(seed)}
    new_threat = threat
    if m.kind == "bin_numeric":
        column = _check_column(m.column, real)
        edges = _bin_edges(real[m.column], int(m.bins))
        tables = [t.assign(**{column: _binned(t[column], edges)}) for t in tables]
        params["edges"] = [float(e) for e in edges]
        notes.append(
            f"{m.column}: {len(edges) - 1} bins at the real table's quantiles "
            "(the same bins for every table)."
        )
    elif m.kind == "merge_rare":
        column = _check_column(m.column, real)
        counts = real[m.column].astype(str).value_counts()
        rare = set(counts[counts < int(m.min_count)].index)
        if not rare:
            notes.append(
                f"{m.column}: no category has fewer than {m.min_count} records; nothing merged."
            )
        else:

            def merge(s: pd.Series) -> pd.Series:
                text = s.astype(object).where(s.isna(), s.astype(str))
                return text.where(~text.isin(rare), OTHER)

            tables = [t.assign(**{column: merge(t[column])}) for t in tables]
            notes.append(f"{m.column}: {len(rare)} categories merged into {OTHER!r}.")
        params["merged"] = sorted(map(str, rare))
    elif m.kind == "suppress_column":
        column = _check_column(m.column, real)
        if m.column in threat.sensitive:
            raise ThreatModelError(
                f"{m.column!r} is the sensitive column; suppress a quasi-identifier instead."
            )
        qis = [q for q in threat.quasi_identifiers if q != m.column]
        if not qis:
            raise ThreatModelError(
                f"{m.column!r} is the only quasi-identifier: suppressing it "
                "leaves the attacker nothing to know."
            )
        tables = [t.drop(columns=[m.column]) for t in tables]
        new_threat = ThreatModel(qis, list(threat.sensitive))
        notes.append(f"{m.column} removed from every table and from the quasi-identifiers.")
    elif m.kind == "suppress_rare":
        qis = list(threat.quasi_identifiers)
        kept, removed = [], []
        for t in synthetic:
            key = t[qis].astype(str).agg("\x1f".join, axis=1)
            size = key.map(key.value_counts())
            kept.append(t[size >= int(m.k)].reset_index(drop=True))
            removed.append(int((size < int(m.k)).sum()))
        if any(len(t) < 2 for t in kept):
            raise ParameterError(
                f"k = {m.k} suppresses (nearly) every release row; choose a smaller k."
            )
        tables = [real, *kept] + ([holdout] if holdout is not None else [])
        share = sum(removed) / max(sum(len(t) for t in synthetic), 1)
        notes.append(
            f"{sum(removed):,} release rows removed ({share:.1%}): their "
            f"quasi-identifier combination appears fewer than {m.k} times."
        )
        params["rows_removed"] = removed
    else:  # regenerate
        from .synth import synthesize

        gen = dict(m.generator_params)
        regenerated = [
            synthesize(real, method=m.method, n=len(t), seed=int(seed) + i, **gen)
            for i, t in enumerate(synthetic)
        ]
        tables = [real, *regenerated] + ([holdout] if holdout is not None else [])
        notes.append(
            f"{len(regenerated)} release(s) regenerated from the real table with "
            f"{m.method} ({', '.join(f'{k}={v}' for k, v in gen.items()) or 'defaults'}"
            f"), seed {seed}."
        )
    n_syn = len(synthetic)
    return MitigatedInputs(
        real=tables[0],
        synthetic=tuple(tables[1 : 1 + n_syn]),
        holdout=tables[1 + n_syn] if holdout is not None else None,
        threat=new_threat,
        mitigation=m,
        notes=tuple(notes),
        params=params,
    )


def _vc(res: MetricResult | Mapping[str, Any]) -> tuple[float | None, list[float] | None]:
    if isinstance(res, MetricResult):
        return float(res.value), (list(map(float, res.ci)) if res.ci else None)
    ci = res.get("ci")
    return res.get("value"), (list(ci) if ci else None)


def compare_measures(
    before: Mapping[str, MetricResult | Mapping[str, Any]],
    after: Mapping[str, MetricResult | Mapping[str, Any]],
) -> pd.DataFrame:
    """One row per measure in both: values, intervals, the change and whether it is an
    improvement (by the measure's goal), and whether it moved beyond the intervals."""
    rows = []
    for name in [m for m in before if m in after]:
        (vb, cb), (va, ca) = _vc(before[name]), _vc(after[name])
        if vb is None or va is None:
            continue
        spec = MEASURES.get(name)
        goal = measure_goal(name) if spec else None
        if goal is not None and goal.direction == "target":
            gain = abs(vb - goal.ideal) - abs(va - goal.ideal)
        else:
            gain = vb - va  # every other registered measure: lower is better
        moved = bool(cb and ca and (ca[0] > cb[1] or ca[1] < cb[0]))
        rows.append(
            {
                "measure": name,
                "label": spec.label if spec else name,
                "family": ("utility" if spec and spec.family == "fidelity" else "risk"),
                "indicator": bool(spec and spec.indicator),
                "before": vb,
                "before_ci": cb,
                "after": va,
                "after_ci": ca,
                "change": va - vb,
                "better": "better" if gain > 1e-12 else "worse" if gain < -1e-12 else "same",
                "beyond_intervals": moved,
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "measure",
            "label",
            "family",
            "indicator",
            "before",
            "before_ci",
            "after",
            "after_ci",
            "change",
            "better",
            "beyond_intervals",
        ],
    )


def describe_change(comparison: pd.DataFrame) -> str:
    """The what-if's summary in one sentence, counting only changes beyond the intervals
    (a change inside both intervals is not measurable at this data size, however it
    points), and saying so when nothing moved measurably."""
    moved = comparison[comparison["beyond_intervals"].astype(bool)]
    parts = []
    for family, title in (("risk", "Privacy"), ("utility", "Fidelity and utility")):
        all_of = comparison[comparison["family"] == family]
        if all_of.empty:
            continue
        mine = moved[moved["family"] == family]
        better = int((mine["better"] == "better").sum())
        worse = int((mine["better"] == "worse").sum())
        n = f"{len(all_of)} measure{'' if len(all_of) == 1 else 's'}"
        if better or worse:
            parts.append(
                f"**{title}:** of {n}, {better} better and {worse} worse beyond the intervals"
            )
        else:
            parts.append(f"**{title}:** none of {n} moved beyond the intervals")
    if moved.empty:
        return (
            " · ".join(parts)
            + ". No change is measurable at this data size: every difference lies within "
            "the intervals."
        )
    return " · ".join(parts) + "."


def alternative_record(
    mitigation: Mitigation,
    comparison: pd.DataFrame,
    *,
    candidate: str = "",
    notes: Sequence[str] = (),
) -> dict[str, Any]:
    """A considered alternative for the review record: the mitigation and the before/after
    aggregates (no record of any table)."""
    return {
        "candidate": candidate,
        **mitigation.to_dict(),
        "notes": list(notes),
        "measures": {
            r["measure"]: {
                "before": r["before"],
                "before_ci": r["before_ci"],
                "after": r["after"],
                "after_ci": r["after_ci"],
                "better": r["better"],
            }
            for r in comparison.to_dict("records")
        },
    }


__all__ = [
    "KINDS",
    "MitigatedInputs",
    "Mitigation",
    "alternative_record",
    "apply_mitigation",
    "compare_measures",
    "describe_change",
]
