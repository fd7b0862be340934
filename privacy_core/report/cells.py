"""One measure's reading as the report's cell: the candidate table (one row per measure,
one cell per candidate), the cell's text, and the texts beside a headline (an attack's raw
rates, RAPID's relative reading, the targets behind an sdcMicro share). The HTML and PDF
exports and the app's cards read these, so that they say the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..measures import MEASURES, goal_phrase
from ..scorecard import headline


def replicate_spread(metric: Mapping[str, Any]) -> tuple[list[float], float | None]:
    """The per-release values of a measure over a group's replicates and their standard
    deviation (consensus R10: report the individual releases and their mean and spread).

    Reads the engine's three spellings: ``replicates`` (a list, ``combine_replicates``),
    ``replicates.rates`` (RAPID) and ``replicate_values`` (Wasserstein). One release: ([],
    None).
    """
    reps = metric.get("replicates")
    values: Any = None
    if isinstance(reps, Mapping):
        values = reps.get("rates")
    elif isinstance(reps, (list, tuple)):
        values = reps
    if values is None and isinstance(metric.get("replicate_values"), (list, tuple)):
        values = metric["replicate_values"]
    vals = [float(v) for v in (values or []) if isinstance(v, (int, float))]
    if len(vals) < 2:
        return [], None
    mean = sum(vals) / len(vals)
    sd = (sum((v - mean) ** 2 for v in vals) / (len(vals) - 1)) ** 0.5
    return vals, sd


def candidate_table(report_dict: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The results side by side: one row per measure, one cell per candidate.

    Each cell is None (not computed for that candidate) or ``{"value", "ci", "baseline",
    "targets", "sd", "replicates", "n_releases"}``; ``targets`` is :func:`targets_text`,
    ``sd`` and ``replicates`` are set for a group of several replicates. Rows keep the
    order in which measures first appear.
    """
    cands = report_dict.get("candidates") or []
    order: list[str] = []
    for c in cands:
        order.extend(m for m in c["metrics"] if m not in order)
    rows = []
    for name in order:
        spec = MEASURES.get(name)
        cells: dict[str, dict[str, Any] | None] = {}
        goal = ""
        for c in cands:
            m = c["metrics"].get(name)
            if m is None:
                cells[c["name"]] = None
                continue
            goal = goal or (goal_phrase(name) if spec else f"{m.get('goal', '')} is better")
            reps, sd = replicate_spread(m)
            head = headline(name, m)
            cells[c["name"]] = {
                "value": None if head is None else head.value,
                "ci": None if head is None or head.ci is None else list(head.ci),
                "estimate": None if head is None else head.estimate,
                # a baseline on the headline's own scale only: an attack's random guess
                # is a raw success rate, shown with the raw rates (``rates``), never
                # beside its normalised risk
                "baseline": None if m.get("attack_rate") is not None else m.get("baseline"),
                "rates": attack_rates_text(m),
                "relative": _relative_text(name, m),
                "targets": targets_text(m),
                "sd": sd,
                "replicates": reps,
                "n_releases": int(c.get("n_releases", 1)),
            }
        rows.append(
            {
                "key": name,
                "label": spec.label if spec else name,
                "indicator": bool(spec and spec.indicator),
                "description": spec.description if spec else "",
                "goal": goal,
                "cells": cells,
            }
        )
    return rows


def attack_rates_text(metric: Mapping[str, Any]) -> str:
    """An attack's raw success rates side by side, on one scale (attack, control, random
    guess); '' for a measure that is not an attack."""
    attack, guess = metric.get("attack_rate"), metric.get("baseline_rate")
    if attack is None or guess is None:
        return ""
    parts = [f"attack {float(attack):.3f}"]
    if metric.get("control_rate") is not None:
        parts.append(f"control {float(metric['control_rate']):.3f}")
    parts.append(f"random guess {float(guess):.3f}")
    return "success rates: " + " · ".join(parts)


def _relative_text(name: str, metric: Mapping[str, Any]) -> str:
    """RAPID's relative reading (members minus non-members, R7), which decides its
    verdict, for the cell beside its absolute headline; '' without one."""
    diff = metric.get("difference") if name == "rapid" else None
    if not isinstance(diff, Mapping) or diff.get("value") is None:
        return ""
    ci = diff.get("ci")
    ci_text = f" [{ci[0]:.4f}, {ci[1]:.4f}]" if ci and None not in ci else ""
    return f"members minus non-members {float(diff['value']):.4f}{ci_text} (decides)"


def targets_text(metric: Mapping[str, Any]) -> str:
    """How many targets a members-against-non-members share rests on (sdcMicro's
    classics), so that a baseline from a handful of holdout records shows as such; ""
    for every other measure."""
    n_mem, n_non = metric.get("n_member_targets"), metric.get("n_non_member_targets")
    if n_mem is None or n_non is None:
        return ""
    # the baseline itself is beside it (the non-members' share): only its count here
    return (
        f"members' share {float(metric['p_members']):.3f} of {int(n_mem):,} targets, "
        f"baseline from {int(n_non):,} holdout targets"
    )


def format_cell(cell: Mapping[str, Any] | None, *, digits: int = 4) -> str:
    """One candidate's reading as text: value, interval, and for replicates mean ± sd over
    n releases with each release's value."""
    if cell is None:
        return "not computed"
    value = cell.get("value")
    text = "—" if value is None else f"{value:.{digits}f}"
    if cell.get("sd") is not None:
        reps = ", ".join(f"{v:.{digits}f}" for v in cell["replicates"])
        text = (
            f"mean {text} ± {cell['sd']:.{digits}f} sd over {len(cell['replicates'])} "
            f"replicates ({reps})"
        )
    ci = cell.get("ci")
    if ci:
        text += f"; 95% CI {ci[0]:.{digits}f} – {ci[1]:.{digits}f}"
    estimate = cell.get("estimate")
    if estimate is not None and value is not None and abs(estimate - value) > 5e-4:
        text += f"; unclipped estimate {estimate:.{digits}f}"
    if cell.get("baseline") is not None:
        text += f"; baseline {cell['baseline']:.{digits}f}"
    if cell.get("rates"):
        text += f"; {cell['rates']}"
    if cell.get("relative"):
        text += f"; {cell['relative']}"
    if cell.get("targets"):
        text += f"; {cell['targets']}"
    return text
