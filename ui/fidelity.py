"""The Fidelity & utility page's engine calls for the workspace, cached: one entry per
measure (``wasserstein``, ``mla``, ``query_error``, ``discriminator``) and per reference
measure (HALF / HISTOGRAM), so changing the ML evaluators does not recompute the
Wasserstein distances. Missing evaluations run under one progress bar
(:func:`ui.runner.run_jobs`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd
import streamlit as st

import privacy_core as pc
from privacy_core.measures import measure_label
from privacy_core.plots.fidelity import marginal_overlay
from privacy_core.progress import ProgressFn
from privacy_core.references import fidelity_baselines

from .cached import (
    Failed,
    cached_evaluation,
    canonical_real,
    scoped_key,
)
from .evaluations import AUTO_RUN_MAX_CELLS
from .runner import Job, notes_of, put_evaluation, run_jobs
from .state import keep, remembered, set_widget
from .workspace import Workspace

METRIC_READINGS = {
    "wasserstein": "lower is better · 0 = the same 1- and 2-way marginals as the real data",
    "mla": "lower is better · 0 = models trained on the release predict as well as models "
    "trained on the real data",
    "query_error": "lower is better · 0 = counting queries give the same answers",
    "discriminator": "0.5 = indistinguishable · 1 = a classifier tells every synthetic "
    "record from the real ones",
}


def keep_choice(key: str, options: Sequence[Any], default: Any) -> None:
    """Like :func:`ui.state.keep` for a selectbox whose options change: a remembered
    value that is no longer an option falls back to ``default``."""
    current = remembered(key, None)
    if current not in options:
        set_widget(key, default)
    keep(key, default)


# ============================================================================ fidelity page
# the engine's defaults (privacy_core.review.measure_options): the CLI and `review` use
# the same, so the page and the command line compute the same numbers
_ENGINE = pc.measure_options(0)
FIDELITY_DEFAULTS: dict[str, Any] = {
    "max_rows": _ENGINE["wasserstein"]["max_rows"],
    "evaluators": _ENGINE["mla"]["evaluators"],
    "bootstrap": _ENGINE["discriminator"]["bootstrap"],
    "seed": 0,
}
ALL_RELEASES = -1


def fidelity_params(ws: Workspace) -> dict[str, Any]:
    return {**FIDELITY_DEFAULTS, **(ws.setting("fidelity") or {})}


def can_mla(ws: Workspace) -> bool:
    """ML affinity needs real rows the generator never saw and a target to predict."""
    return ws.holdout is not None and bool(ws.sensitive)


def fidelity_metrics(ws: Workspace) -> list[str]:
    return [
        m
        for m in ("wasserstein", "mla", "query_error", "discriminator")
        if m != "mla" or can_mla(ws)
    ]


def metric_options(metric: str, params: dict[str, Any]) -> dict[str, Any]:
    """The engine options of one measure under the page's settings (the engine's table)."""
    return pc.measure_options(
        0,
        max_rows=int(params["max_rows"]) if params["max_rows"] else None,
        fidelity_bootstrap=int(params["bootstrap"]),
        evaluators=tuple(params["evaluators"]),
    )[metric]


def scope_releases(ws: Workspace, scope: int) -> tuple[int, ...]:
    """Indices of the releases evaluated: all of them (replicates) or one."""
    if scope == ALL_RELEASES or not 0 <= scope < len(ws.releases):
        return tuple(range(len(ws.releases)))
    return (scope,)


def scope_label(ws: Workspace, scope: int) -> str:
    if scope == ALL_RELEASES:
        n = len(ws.releases)
        return f"All {n} releases as replicates of one generator" if n > 1 else ws.releases[0].name
    return ws.releases[scope].name


def _fidelity_key(ws: Workspace, metric: str, params: dict[str, Any], idx: tuple[int, ...]) -> str:
    return scoped_key(
        ws,
        f"fidelity|{metric}",
        {
            "releases": tuple(ws.releases[i].fingerprint for i in idx),
            "seed": int(params["seed"]),
            **metric_options(metric, params),
        },
    )


def _baseline_key(ws: Workspace, metric: str, params: dict[str, Any]) -> str:
    # References depend on the real table (and holdout) only, not on the releases.
    return scoped_key(
        replace(ws, releases=()),
        f"fidelity_baseline|{metric}",
        {"seed": int(params["seed"]), **metric_options(metric, params)},
    )


@dataclass(frozen=True)
class FidelityView:
    """What the fidelity page shows: results, references, failures and notes."""

    results: dict[str, pc.MetricResult]
    baselines: dict[str, dict[str, pc.MetricResult]]
    failed: dict[str, str]
    notes: tuple[str, ...]
    missing: tuple[str, ...]


def fidelity_view(ws: Workspace, params: dict[str, Any], idx: tuple[int, ...]) -> FidelityView:
    """Everything cached for these releases and settings (computes nothing)."""
    results: dict[str, pc.MetricResult] = {}
    baselines: dict[str, dict[str, pc.MetricResult]] = {"half": {}, "histogram": {}}
    failed: dict[str, str] = {}
    notes: list[str] = []
    missing: list[str] = []
    for metric in fidelity_metrics(ws):
        for kind, key in (
            ("release", _fidelity_key(ws, metric, params, idx)),
            ("baseline", _baseline_key(ws, metric, params)),
        ):
            hit = cached_evaluation(key)
            if hit is None:
                missing.append(f"{kind}:{metric}")
            elif isinstance(hit, Failed):
                label = measure_label(metric) + ("" if kind == "release" else " (references)")
                failed[label] = hit.message
            elif kind == "release":
                results[metric] = hit
            else:
                for name, by_metric in baselines.items():
                    by_metric[metric] = hit[name]
            prefix = measure_label(metric) + ("" if kind == "release" else " (references)")
            notes.extend(f"{prefix}: {n}" for n in notes_of(key))
    return FidelityView(results, baselines, failed, tuple(dict.fromkeys(notes)), tuple(missing))


def fidelity_should_autorun(ws: Workspace, idx: tuple[int, ...]) -> bool:
    return len(ws.real.frame) * max(len(idx), 1) <= AUTO_RUN_MAX_CELLS


REFERENCES_WITH_RESULTS_MAX_COLUMNS = 200
"""Above this many columns the HALF / HISTOGRAM references are computed on request, after
the release's own measures: on a wide table they cost twice as much again (a 2,001-column
upload: about 25 s for the release, 45 s more for the references)."""


def references_with_results(ws: Workspace) -> bool:
    return len(ws.real.frame.columns) <= REFERENCES_WITH_RESULTS_MAX_COLUMNS


def fidelity_run(
    ws: Workspace,
    params: dict[str, Any],
    idx: tuple[int, ...],
    *,
    references: bool = True,
    only: Collection[str] | None = None,
) -> list[str]:
    """Compute the missing measures (and, with ``references``, their references), fastest
    first, with progress. ``only`` limits them to those named: the Overview's quick cards
    ask for query error and the discriminator, not for the exact transport and ML affinity
    that only the Fidelity page shows (a third of the demo's first start)."""
    real_c = canonical_real(ws.real.fingerprint, ws.overrides, ws)
    releases = [ws.releases[i].frame for i in idx]
    holdout = ws.holdout.frame if ws.holdout is not None else None
    seed = int(params["seed"])
    order = ("query_error", "discriminator", "mla", "wasserstein")
    metrics = [m for m in order if m in fidelity_metrics(ws) and (only is None or m in only)]
    jobs: list[Job] = []
    for metric in metrics:
        key = _fidelity_key(ws, metric, params, idx)
        if cached_evaluation(key) is None:

            def compute(progress: ProgressFn, metric: str = metric) -> pc.MetricResult:
                return pc.evaluate(
                    real_c,
                    releases,
                    measures=[metric],
                    holdout=holdout,
                    threat=ws.threat,
                    schema=ws.schema,
                    options={metric: metric_options(metric, params)},
                    seed=seed,
                    progress=progress,
                )[metric]

            jobs.append(Job(key, measure_label(metric), compute, put_evaluation))
    for metric in metrics if references else ():
        key = _baseline_key(ws, metric, params)
        if cached_evaluation(key) is None:

            def compute_ref(progress: ProgressFn, metric: str = metric) -> dict:
                out = fidelity_baselines(
                    real_c,
                    holdout=holdout,
                    threat=ws.threat,
                    schema=ws.schema,
                    metrics=[metric],
                    options={metric: metric_options(metric, params)},
                    seed=seed,
                    progress=progress,
                )
                return {name: res[metric] for name, res in out.items()}

            jobs.append(
                Job(
                    key,
                    f"HALF / HISTOGRAM references: {measure_label(metric)}",
                    compute_ref,
                    put_evaluation,
                )
            )
    return run_jobs("Evaluating fidelity and utility", jobs)


def reference_caption(metric: str, baselines: dict[str, dict[str, pc.MetricResult]]) -> str:
    half = baselines.get("half", {}).get(metric)
    hist = baselines.get("histogram", {}).get(metric)
    parts = []
    if half is not None:
        parts.append(f"HALF {half.value:.3f}")
    if hist is not None:
        parts.append(f"HISTOGRAM {hist.value:.3f}")
    return "References: " + " · ".join(parts) if parts else ""


def worst_marginals(result: Any, k: int = 15, ways: int | None = None) -> pd.DataFrame:
    """The worst marginals as the page lists them (name, columns, family, distance)."""
    table = result.worst(k, ways=ways)
    return table[
        ["marginal", "column_a", "column_b", "family", "distance", "sd", "all_rows"]
    ].reset_index(drop=True)


def marginal_label(marginal: str, distance: float | None = None) -> str:
    text = marginal.replace("|", " × ")
    return text if distance is None else f"{text} — {distance:.3f}"


def overlay_figure(ws: Workspace, release: int, marginal: str, *, bins: int = 20) -> Any:
    """Real vs synthetic for one marginal ("a" or "a|b"), cached per data and columns."""
    table = ws.releases[release]
    return _overlay(
        ws.real.fingerprint,
        table.fingerprint,
        ws.overrides,
        tuple(marginal.split("|")),
        int(bins),
        ws,
        release,
    )


@st.cache_data(show_spinner=False, max_entries=32)
def _overlay(
    real_fp: str,
    release_fp: str,
    overrides: tuple,
    columns: tuple[str, ...],
    bins: int,
    _ws: Workspace,
    _release: int,
) -> Any:
    real_c = canonical_real(real_fp, overrides, _ws)
    return marginal_overlay(
        real_c, _ws.releases[_release].frame, list(columns), schema=_ws.schema, bins=bins
    )


__all__ = [
    "FIDELITY_DEFAULTS",
    "fidelity_params",
    "fidelity_run",
    "fidelity_should_autorun",
    "fidelity_view",
]
