"""Risk lab glue: settings, cached sweeps with live progress, streaming partial results.

The engine's :func:`privacy_core.experiments.sweep` does the work; this module turns the
workspace into its inputs (the real and holdout rows pooled: the sweep makes its own
splits), keys the cache on data + threat model + settings, shows progress and the rows
as they arrive, and wires the Stop button to ``should_stop`` through a session flag.

A completed sweep is stored in the shared evaluation cache (``ui.cached.evaluate``); a
stopped one is kept only in this session (``stored_result``) so a later run with the same
settings computes the whole sweep.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from privacy_core.experiments import (
    DEFAULT_LEVELS,
    DP_GENERATORS,
    LEVEL_NAMES,
    RISK_MODELS,
    SweepResult,
    sweep,
)
from privacy_core.measures import MEASURES, measure_names
from privacy_core.synth.dp import smartnoise_available

from .cached import scoped_key
from .runner import STOP_FLAG, request_stop, run_stoppable, stoppable_result
from .state import Workspace

PARTIAL = "lab_partial"

RISK_MODEL_LABELS = {"leaky": "Leaky (copied records)", "overfit": "Overfit (neural generator)",
                     "dp": "Differential privacy (ε)"}
LEVEL_OPTIONS: dict[str, list[float]] = {
    "leaky": [round(x, 1) for x in np.linspace(0, 1, 11)],
    "overfit": [1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0, 2.5, 3.0],
    "dp": [0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0],
}
# The workshop default: fast measures that respond clearly on the demo data.
LAB_MEASURES = {
    "leaky": tuple(measure_names("privacy", fast_only=True)),
    "overfit": ("ims", "dcr", "singling_out", "inference", "linkability"),
    "dp": ("ims", "dcr", "singling_out", "inference", "query_error", "discriminator"),
}
LAB_DEFAULTS: dict[str, dict[str, Any]] = {
    model: {"levels": tuple(DEFAULT_LEVELS[model]), "replicates": 1 if model == "overfit" else 2,
            "measures": LAB_MEASURES[model], "seed": 0, "max_rows": 0,
            "outlier_fraction": 0.0, "canaries": 0, "noise": (0.0, 0.0, 0.0),
            "generator": "dp-mst", "max_overfit_epochs": 300}
    for model in RISK_MODELS
}
AUTORUN_MAX_ROWS = 5000  # default leaky sweeps on tables up to this size run without a click


def generators() -> list[str]:
    """DP generators offered (the SmartNoise ones only when installed)."""
    return [g for g in DP_GENERATORS if not g.startswith("smartnoise") or smartnoise_available()]


def measure_label(name: str) -> str:
    spec = MEASURES[name]
    return spec.label + ("" if spec.fast else " (slow)")


def lab_settings(ws: Workspace, model: str) -> dict[str, Any]:
    return {**LAB_DEFAULTS[model], **(ws.setting(f"lab_{model}") or {})}


def lab_real(ws: Workspace) -> pd.DataFrame:
    """The real records the lab splits: training and holdout tables pooled."""
    frames = [ws.real.frame]
    if ws.holdout is not None and list(ws.holdout.frame.columns) == list(ws.real.frame.columns):
        frames.append(ws.holdout.frame)
    return pd.concat(frames, ignore_index=True)


def _subset(real: pd.DataFrame, max_rows: int, seed: int) -> pd.DataFrame:
    if max_rows and max_rows < len(real):
        rng = np.random.default_rng(seed)
        return real.iloc[np.sort(rng.choice(len(real), size=max_rows, replace=False))]
    return real


def lab_key(ws: Workspace, model: str, settings: dict[str, Any]) -> str:
    params = {k: (tuple(v) if isinstance(v, list) else v) for k, v in settings.items()}
    return scoped_key(ws, f"lab_{model}", {**params, "model": model})


def lab_cached(ws: Workspace, model: str, settings: dict[str, Any]) -> SweepResult | None:
    """The finished sweep of these settings, or the partial one this session kept."""
    return stoppable_result(PARTIAL, lab_key(ws, model, settings))


def should_autorun(ws: Workspace, model: str, settings: dict[str, Any]) -> bool:
    return (model == "leaky" and settings == LAB_DEFAULTS["leaky"]
            and len(lab_real(ws)) <= AUTORUN_MAX_ROWS)


def _partial_result(model: str, settings: dict[str, Any], frames: list[pd.DataFrame]
                    ) -> SweepResult:
    rows = pd.concat(frames, ignore_index=True).sort_values(
        ["level", "replicate", "measure"], kind="stable")
    return SweepResult(rows=rows, risk_model=model, levels=tuple(settings["levels"]),
                       measures=tuple(settings["measures"]),
                       replicates=int(settings["replicates"]), seed=int(settings["seed"]),
                       stopped=True, n_done=len(frames))


def lab_run(ws: Workspace, model: str, settings: dict[str, Any], *,
            live_slot: Any, area: Any = None) -> SweepResult | None:
    """Run (or fetch) the sweep of these settings with progress and streaming rows.

    ``live_slot`` is an ``st.empty()`` where the partial response plot and rows appear
    while the sweep runs. Returns None on failure (the error is shown).
    """
    from privacy_core.plots.lab import lab_response_figure

    key = lab_key(ws, model, settings)
    hit = lab_cached(ws, model, settings)
    if hit is not None:
        return hit
    frames: list[pd.DataFrame] = []
    real = _subset(lab_real(ws), int(settings["max_rows"]), int(settings["seed"]))
    replicates = int(settings["replicates"])
    sigma, lam, p = settings["noise"]

    def compute(progress, should_stop, keep_partial) -> SweepResult:
        def on_rows(batch: pd.DataFrame) -> None:
            frames.append(batch)
            partial = _partial_result(model, settings, frames)
            keep_partial(partial)
            n_releases = len(partial.rows[["level", "replicate"]].drop_duplicates())
            with live_slot.container():
                st.caption(f"Partial results: {n_releases} release(s) evaluated so far.")
                st.plotly_chart(lab_response_figure(partial), width="stretch",
                                key=f"lab_live_{len(frames)}")

        return sweep(
            real, risk_model=model, levels=settings["levels"], measures=settings["measures"],
            replicates=replicates, threat=ws.threat, schema=ws.schema,
            seed=int(settings["seed"]),
            noise={"sigma": sigma, "lam": lam, "p": p} if model == "leaky" else None,
            generator=settings["generator"] if model == "dp" else None,
            overfit_params=({"max_overfit_epochs": int(settings["max_overfit_epochs"])}
                            if model == "overfit" else None),
            outlier_fraction=float(settings["outlier_fraction"]),
            canaries=int(settings["canaries"]),
            # One in-process worker for a single overfit replicate: per-epoch progress.
            n_jobs=1 if (model == "overfit" and replicates == 1) else -1,
            progress=progress, on_rows=on_rows, should_stop=should_stop)

    return run_stoppable(
        PARTIAL, key, f"Running the {RISK_MODEL_LABELS[model].lower()} sweep", compute,
        done_label="Sweep done", live_slot=live_slot, area=area,
        stopped_message=lambda r: (f"Stopped after {r.n_done} of {r.n_tasks} task(s): the "
                                   "results below are partial. Run again to compute them "
                                   "all."),
        failure_hint="try fewer levels, measures or rows.")


def results_tables(result: SweepResult) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary, rows) for display and download: aggregates only, no real record."""
    summary = result.summary().rename(columns={"level": LEVEL_NAMES[result.risk_model]})
    rows = result.rows.drop(columns=["risk_model"])
    return summary, rows


__all__ = ["LAB_DEFAULTS", "LEVEL_OPTIONS", "RISK_MODEL_LABELS", "STOP_FLAG", "generators",
           "lab_cached", "lab_key", "lab_real", "lab_run", "lab_settings", "measure_label",
           "request_stop", "results_tables", "should_autorun"]
