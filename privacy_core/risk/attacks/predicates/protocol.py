"""The papers' singling-out protocol, read as one result: the highest risk over the
configurations (univariate and multivariate on 3 to 12 columns), with a simultaneous
interval and every configuration kept; and the wording headlines use for a
configuration (:func:`describe_configuration`). The runs themselves are made by
:func:`~privacy_core.risk.attacks.predicates.singling_out` (``mode="paper"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np
import pandas as pd

from ....results import MetricResult
from ....validation import check_confidence
from ..common import AttackResult, with_summary

# The risk-insertion and contrastive papers' protocol (risk-insertion-framework.md §6.2.2,
# contrastive-embeddings.md §5.2): the univariate attack and multivariate attacks on 3 to
# 12 columns, each with at most 2,000 guesses; the reported risk is the highest.
PAPER_N_ATTACKS = 2000
PAPER_N_COLS = tuple(range(3, 13))


@dataclass(frozen=True, eq=False)
class SinglingOutProtocolResult(AttackResult):
    """Singling out under the papers' protocol: the highest risk over several
    configurations, with every configuration kept.

    ``value`` is the highest configuration value; the fields of :class:`AttackResult`
    (counts, records, rates) are those of that configuration. ``ci`` is a simultaneous
    interval: every configuration's interval at level 1 - (1 - confidence) / K (Bonferroni
    over the K configurations), and the interval of the maximum runs from the largest
    lower end to the largest upper end (if all K intervals hold, so does this one).
    ``extra["configurations"]`` lists each configuration's label, value, own interval at
    ``confidence``, simultaneous interval, rates and number of predicates.

    The maximum of K noisy estimates is biased upwards: on a release that leaks nothing
    each configuration reads 0 plus noise and the maximum picks the largest noise.
    The simultaneous interval is what keeps that honest: read the floor from its lower end.
    """

    configurations: tuple[AttackResult, ...] = ()
    labels: tuple[str, ...] = ()

    def at(self, *, confidence: float | None = None) -> SinglingOutProtocolResult:
        conf = self.confidence if confidence is None else check_confidence(confidence)
        return protocol_summary(self.configurations, self.labels, conf, self.params)

    def configuration_table(self) -> pd.DataFrame:
        """One row per configuration: label, mode, n_cols, value, lower, upper (own
        interval), simultaneous lower / upper, attack, control and baseline rates,
        predicates found, and whether it is the reported one."""
        rows = [
            {k: v for k, v in c.items() if k not in ("ci", "ci_simultaneous")}
            | {
                "lower": c["ci"][0],
                "upper": c["ci"][1],
                "simultaneous_lower": c["ci_simultaneous"][0],
                "simultaneous_upper": c["ci_simultaneous"][1],
            }
            for c in self.extra["configurations"]
        ]
        return pd.DataFrame(rows)


def protocol_label(mode: str, n_cols: int | None) -> str:
    """How a singling-out configuration is named in headlines and tables."""
    return "univariate" if mode == "univariate" else f"{n_cols} columns"


def _ci_or_nan(ci: tuple[float, float] | None) -> list[float]:
    return [float("nan"), float("nan")] if ci is None else [float(ci[0]), float(ci[1])]


def protocol_summary(
    configs: Sequence[AttackResult],
    labels: Sequence[str],
    confidence: float,
    params: dict[str, Any],
) -> SinglingOutProtocolResult:
    """The protocol's result from its configurations' results, read at ``confidence``
    (see :class:`SinglingOutProtocolResult`); ``params`` are the protocol's own."""
    k = len(configs)
    own = [c.at(confidence=confidence) for c in configs]
    joint = [c.at(confidence=1 - (1 - confidence) / k) for c in configs]
    values = np.array([r.value for r in own], dtype=float)
    usable = np.isfinite(values)
    best = int(np.flatnonzero(usable)[np.argmax(values[usable])]) if usable.any() else 0
    table = []
    for i, (label, r, j) in enumerate(zip(labels, own, joint, strict=True)):
        table.append(
            {
                "label": label,
                "mode": r.params["mode"],
                "n_cols": r.params["n_cols"],
                "value": float(r.value),
                "ci": _ci_or_nan(r.ci),
                "ci_simultaneous": _ci_or_nan(j.ci),
                "attack_rate": r.extra["attack_rate"],
                "control_rate": r.extra["control_rate"],
                "baseline_rate": r.extra["baseline_rate"],
                "n_queries": r.params["n_queries"],
                "generation": r.params["generation"],
                "reported": i == best,
            }
        )
    lows = [j.ci[0] for j, u in zip(joint, usable, strict=True) if u and j.ci is not None]
    highs = [j.ci[1] for j, u in zip(joint, usable, strict=True) if u and j.ci is not None]
    ci = (float(max(lows)), float(max(highs))) if lows else None
    chosen = own[best]
    extra = dict(chosen.extra)
    extra.update(
        {
            "configurations": table,
            "reported_configuration": labels[best],
            "interval": f"simultaneous over {k} configurations (Bonferroni, level "
            f"1 - {1 - confidence:g}/{k})",
        }
    )
    out_params = {
        **chosen.params,
        **params,
        "mode": "paper",
        "reported_configuration": labels[best],
        "reported_mode": chosen.params["mode"],
        "n_cols": chosen.params["n_cols"],
        "n_queries": chosen.params["n_queries"],
    }
    base = {f.name: getattr(chosen, f.name) for f in fields(AttackResult) if f.init}
    base.update(
        value=float(values[best]), ci=ci, params=out_params, extra=extra, confidence=confidence
    )
    return SinglingOutProtocolResult(**base, configurations=tuple(configs), labels=tuple(labels))


def found_denominator(result: AttackResult) -> AttackResult:
    """Score a configuration on the predicates it found (the papers' "at most N_A
    attacks"), not on the number requested (Anonymeter's convention, which shrinks every
    rate of a configuration that finds few predicates, e.g. univariate on a small table)."""
    n_found = int(result.params["n_queries"])
    if n_found == 0 or n_found >= result.n_attacks:
        return result
    shell = replace(
        result,
        n_attacks=n_found,
        n_control_attacks=n_found if result.n_control_success is not None else 0,
    )
    return with_summary(shell, result.confidence)


def describe_configuration(result: MetricResult) -> str:
    """Which singling-out configuration a result reports, for headlines: e.g.
    "multivariate, 3 columns, 500 attacks" or "paper protocol: max over univariate and
    3–12 columns = 7 columns, 2,000 attacks"."""
    p = result.params
    if p.get("mode") == "paper":
        labels = list(p.get("configurations", []))
        widths = [lb.split()[0] for lb in labels if lb != "univariate"]
        span = (
            f"univariate and {widths[0]}–{widths[-1]} columns"
            if len(widths) > 1
            else f"univariate and {widths[0]} columns"
            if widths
            else "univariate"
        )
        found, asked = int(p.get("n_queries", 0)), p.get("n_attacks")
        attacks = (
            f"{found:,} attacks"
            if asked is None or found >= asked
            else f"{found:,} of {asked:,} attacks"
        )
        return f"paper protocol: max over {span} = {p.get('reported_configuration')}, {attacks}"
    width = "one column" if p.get("mode") == "univariate" else f"{p.get('n_cols')} columns"
    return f"{p.get('mode')}, {width}, {int(p.get('n_attacks') or 0):,} attacks"
