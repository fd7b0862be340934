"""Risk lab glue: settings, cached sweeps with live progress, streaming partial results.

The engine's :func:`privacy_core.experiments.sweep` does the work; this module turns the
workspace into its inputs (the real and holdout rows pooled: the sweep makes its own
splits), keys the cache on data + threat model + settings, shows progress and the rows
as they arrive, and wires the Stop button to ``should_stop`` through a session flag.

A completed sweep is stored in the shared evaluation cache (``ui.cached.get_or_compute``); a
stopped one is kept only in this session (``stored_result``) so a later run with the same
settings computes the whole sweep.

Nothing runs on its own: the page shows the setup and an estimate of the time
(:func:`sweep_plan`), and the sweep starts on a click. The tables shown next to the
figures name every measure through the registry's :func:`~privacy_core.measures.
measure_label`, the labels of the figures' legends.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from privacy_core.experiments import (
    DEFAULT_LEVELS,
    DP_GENERATORS,
    LEVEL_NAMES,
    RISK_MODELS,
    SPLITS,
    SweepResult,
    sweep,
)
from privacy_core.measures import (
    MEASURES,
    measure_group,
    measure_label,
    measure_names,
    split_measure_key,
)
from privacy_core.parallel import usable_cores
from privacy_core.risk.mds import DEFAULT_SHADOW_MODELS
from privacy_core.synth.dp import smartnoise_available

from .cached import scoped_key
from .compute import engine_backend, ray_address
from .runner import STOP_FLAG, request_stop, run_stoppable, stoppable_result
from .workspace import Workspace

PARTIAL = "lab_partial"

RISK_MODEL_LABELS = {
    "leaky": "Leaky (copied records)",
    "overfit": "Overfit (neural generator)",
    "dp": "Differential privacy (ε)",
}
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
    model: {
        "levels": tuple(DEFAULT_LEVELS[model]),
        "replicates": 1 if model == "overfit" else 2,
        "measures": LAB_MEASURES[model],
        "seed": 0,
        "max_rows": 0,
        "outlier_fraction": 0.0,
        "canaries": 0,
        "noise": (0.0, 0.0, 0.0),
        "generator": "dp-mst",
        "max_overfit_epochs": 300,
    }
    for model in RISK_MODELS
}
# Rough cost of one release, in seconds per 1,000 training rows: each measure in-process
# (timed on the health demo, 1,333 training rows, on a 2-core machine), and the release's
# generator (the overfit one per replicate: one training run to the highest f_o). Only
# the estimate shown before a run uses them; a finished run in the session rescales it.
MEASURE_SECONDS = {
    "ims": 0.02,
    "dcr": 0.08,
    "knn": 0.08,
    "singling_out": 0.08,
    "linkability": 0.05,
    "inference": 0.02,
    "ml_inference": 0.11,
    "membership": 0.04,
    "rapid": 1.5,
    "gtcap": 0.3,
    "domias": 0.5,
    "wasserstein": 4.7,
    "mla": 1.4,
    "query_error": 0.4,
    "discriminator": 0.1,
    "mds": 3.0,
}
GENERATOR_SECONDS = {"leaky": 0.0, "dp": 0.05, "smartnoise": 5.0, "overfit": 20.0}
# Starting the worker processes costs several seconds, more than a small sweep gains from
# a second core: sweeps estimated below this run in-process (same rows, see sweep()).
IN_PROCESS_MAX_SECONDS = 20.0
POOL_START_SECONDS = 6.0
START_SECONDS = 2.0  # the split, the encodings and the live plot of every release
LIVE_REDRAW_SECONDS = 2.0
SPEED_KEY = "lab_speed_factor"  # measured / estimated seconds of this session's last run


def generators() -> list[str]:
    """DP generators offered (the SmartNoise ones only when installed)."""
    return [g for g in DP_GENERATORS if not g.startswith("smartnoise") or smartnoise_available()]


def measure_option(name: str) -> str:
    """A measure in the pickers: its registry label, marked when it is slow."""
    base = name.split(":")[0]
    return measure_label(name) + ("" if MEASURES[base].fast else " (slow)")


#: The lab's distance-space choice: where the distance measures (and singling out's
#: targets) are computed; "both" sweeps each of them twice, side by side (the
#: contrastive paper's plain-versus-embedding comparison).
LAB_SPACES = {
    "shared": "shared encoding",
    "contrastive": "contrastive embedding",
    "both": "both, side by side",
}


def has_space(name: str) -> bool:
    """Whether a measure can run in the contrastive embedding (a registry mode)."""
    return "contrastive" in MEASURES[name].mode_names


def lab_measure_keys() -> list[str]:
    """What the lab's picker offers: every registered measure (the space is chosen
    apart, see :func:`with_space`)."""
    return list(MEASURES)


def with_space(names: Sequence[str], space: str) -> tuple[str, ...]:
    """The sweep's measure keys for the chosen measures in a distance space: a measure
    with a contrastive mode becomes ``name:contrastive`` (``contrastive``) or both keys
    (``both``); the others are swept as they are."""
    out: list[str] = []
    for n in names:
        base = split_measure_key(n)[0]
        if space in ("shared", "both") or not has_space(base):
            out.append(base)
        if space in ("contrastive", "both") and has_space(base):
            out.append(f"{base}:contrastive")
    return tuple(dict.fromkeys(out))


def space_of(keys: Sequence[str]) -> tuple[list[str], str]:
    """The chosen measures and space behind a sweep's measure keys (the inverse of
    :func:`with_space`)."""
    bases = list(dict.fromkeys(split_measure_key(k)[0] for k in keys))
    spaced = [b for b in bases if has_space(b)]
    contrastive = {
        split_measure_key(k)[0] for k in keys if split_measure_key(k)[1] == "contrastive"
    }
    shared = {split_measure_key(k)[0] for k in keys if not split_measure_key(k)[1]}
    if not spaced or not contrastive:
        return bases, "shared"
    return bases, "contrastive" if not shared & set(spaced) else "both"


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


def sweep_plan(ws: Workspace, model: str, settings: dict[str, Any]) -> dict[str, Any]:
    """What a run of these settings does on this workspace and roughly how long it takes
    (:func:`plan_for_rows`, rescaled by this session's last finished run)."""
    rows = len(_subset(lab_real(ws), int(settings["max_rows"]), int(settings["seed"])))
    return plan_for_rows(model, settings, rows, speed=float(st.session_state.get(SPEED_KEY, 1.0)))


def plan_for_rows(
    model: str, settings: dict[str, Any], rows: int, *, speed: float = 1.0
) -> dict[str, Any]:
    """The plan of a sweep on ``rows`` real rows (no Streamlit: the bench checks it).

    Keys: ``rows``, ``training`` (training rows per release), ``releases``, ``tasks``,
    ``n_jobs`` (1 = in-process) and ``seconds`` (the estimate times ``speed``).
    """
    training = int(rows * SPLITS[model][0])
    replicates = int(settings["replicates"])
    releases = len(settings["levels"]) * replicates
    tasks = replicates if model == "overfit" else releases
    per_k = training / 1000
    bases = [split_measure_key(m)[0] for m in settings["measures"]]
    measures = sum(MEASURE_SECONDS.get(m, 1.0) for m in bases)
    serial = releases * measures * per_k
    if model == "overfit":
        # the generator, and MDS's shadows: the same generator on halves, one run each
        runs = 1 + ("mds" in bases) * DEFAULT_SHADOW_MODELS / 2
        serial += (
            replicates
            * runs
            * GENERATOR_SECONDS["overfit"]
            * per_k
            * min(1.0, int(settings["max_overfit_epochs"]) / 300)
        )
    elif model == "dp":
        gen = "smartnoise" if str(settings["generator"]).startswith("smartnoise") else "dp"
        serial += releases * GENERATOR_SECONDS[gen] * per_k
    n_jobs = 1 if (serial <= IN_PROCESS_MAX_SECONDS or tasks == 1) else -1
    seconds = (
        START_SECONDS + serial
        if n_jobs == 1
        else POOL_START_SECONDS + serial / min(usable_cores(), tasks)
    )
    return {
        "rows": rows,
        "training": training,
        "releases": releases,
        "tasks": tasks,
        "n_jobs": n_jobs,
        "seconds": seconds * speed,
    }


def format_seconds(seconds: float) -> str:
    """An estimate as a reader takes it in: 'under 5 s', 'about 15 s', 'about 3 min'."""
    if seconds < 5:
        return "under 5 s"
    if seconds < 90:
        return f"about {int(5 * round(seconds / 5))} s"
    return f"about {max(2, round(seconds / 60))} min"


def _partial_result(
    model: str, settings: dict[str, Any], frames: list[pd.DataFrame]
) -> SweepResult:
    rows = pd.concat(frames, ignore_index=True).sort_values(
        ["level", "replicate", "measure"], kind="stable"
    )
    return SweepResult(
        rows=rows,
        risk_model=model,
        levels=tuple(settings["levels"]),
        measures=tuple(settings["measures"]),
        replicates=int(settings["replicates"]),
        seed=int(settings["seed"]),
        stopped=True,
        n_done=len(frames),
    )


def lab_run(
    ws: Workspace, model: str, settings: dict[str, Any], *, live_slot: Any, area: Any = None
) -> SweepResult | None:
    """Run (or fetch) the sweep of these settings with progress and streaming rows.

    ``live_slot`` is an ``st.empty()`` where the partial response plot and rows appear
    while the sweep runs. Returns None on failure (the error is shown).
    """
    from privacy_core.plots.lab import lab_response_figure

    key = lab_key(ws, model, settings)
    hit = lab_cached(ws, model, settings)
    if hit is not None:
        return hit
    plan = sweep_plan(ws, model, settings)
    estimate = plan["seconds"] / float(st.session_state.get(SPEED_KEY, 1.0))
    frames: list[pd.DataFrame] = []
    last_draw = [float("-inf")]
    real = _subset(lab_real(ws), int(settings["max_rows"]), int(settings["seed"]))
    replicates = int(settings["replicates"])
    sigma, lam, p = settings["noise"]

    def compute(progress, should_stop, keep_partial) -> SweepResult:
        def on_rows(batch: pd.DataFrame) -> None:
            frames.append(batch)
            snapshot = list(frames)
            # built only if a Stop click interrupts the run (see run_stoppable)
            keep_partial(lambda: _partial_result(model, settings, snapshot))
            # the live figure costs a fraction of a second per redraw: at most one every
            # LIVE_REDRAW_SECONDS, so a fast sweep is not slowed by its own preview
            now = time.monotonic()
            if now - last_draw[0] < LIVE_REDRAW_SECONDS:
                return
            last_draw[0] = now
            partial = _partial_result(model, settings, snapshot)
            n_releases = len(partial.rows[["level", "replicate"]].drop_duplicates())
            with live_slot.container():
                st.caption(f"Partial results: {n_releases} release(s) evaluated so far.")
                st.plotly_chart(
                    lab_response_figure(partial), width="stretch", key=f"lab_live_{len(frames)}"
                )

        return sweep(
            real,
            risk_model=model,
            levels=settings["levels"],
            measures=settings["measures"],
            replicates=replicates,
            threat=ws.threat,
            schema=ws.schema,
            seed=int(settings["seed"]),
            noise={"sigma": sigma, "lam": lam, "p": p} if model == "leaky" else None,
            generator=settings["generator"] if model == "dp" else None,
            overfit_params=(
                {"max_overfit_epochs": int(settings["max_overfit_epochs"])}
                if model == "overfit"
                else None
            ),
            outlier_fraction=float(settings["outlier_fraction"]),
            canaries=int(settings["canaries"]),
            # In-process for small sweeps (no worker start-up) and for a single overfit
            # replicate (per-epoch progress); the rows are the same either way.
            n_jobs=plan["n_jobs"],
            backend=engine_backend()["backend"],
            address=ray_address(),
            progress=progress,
            on_rows=on_rows,
            should_stop=should_stop,
        )

    result = run_stoppable(
        PARTIAL,
        key,
        f"Running the {RISK_MODEL_LABELS[model].lower()} sweep",
        compute,
        done_label="Sweep done",
        live_slot=live_slot,
        area=area,
        stopped_message=lambda r: (
            f"Stopped after {r.n_done} of {r.n_tasks} task(s): the "
            "results below are partial. Run again to compute them "
            "all."
        ),
        failure_hint="try fewer levels, measures or rows.",
    )
    seconds = result.params.get("seconds") if result is not None and not result.stopped else None
    if seconds and estimate > 0:
        # the next estimate in this session follows this machine's measured speed
        st.session_state[SPEED_KEY] = min(max(float(seconds) / estimate, 0.2), 5.0)
    return result


def responses_table(result: SweepResult) -> pd.DataFrame:
    """How each measure responds, for display: one row per line of the response figure,
    in its panel order, named by the registry label (the legend's), with its group.

    The gap to the ideal y = f_l is shown only where that ideal applies (the leaky model's
    risk measures, not utility measures or the canary rows, whose reference is chance).
    """
    from privacy_core.plots.lab import UTILITY_GROUP, measure_panels

    resp = result.responses()
    if resp.empty:
        return resp
    order = [m for _, ms in measure_panels(list(resp["measure"])) for m in ms]
    resp = resp.set_index("measure").loc[order].reset_index()
    groups = resp["measure"].map(measure_group)
    no_ideal = (groups == UTILITY_GROUP) | resp["measure"].map(
        lambda m: bool(split_measure_key(m)[2])
    )
    resp.loc[no_ideal, ["max_gap_to_ideal", "within_tolerance"]] = np.nan
    level = LEVEL_NAMES[result.risk_model]
    shown = pd.DataFrame(
        {
            "group": groups,
            "measure": resp["measure"].map(measure_label),
            f"at lowest {level}": resp["at_lowest"],
            f"at highest {level}": resp["at_highest"],
            "rank correlation with the level": resp["rank_correlation"],
            "slope": resp["slope"],
        }
    )
    if result.risk_model == "leaky":
        shown["max |value − f_l|"] = resp["max_gap_to_ideal"]
    shown["levels"] = resp["levels"]
    return shown


def results_tables(result: SweepResult) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary, rows) for display and download: aggregates only, no real record.

    ``measure`` is the display label (the figures' legend); ``key`` keeps the engine's
    name (``inference@canary``) for the command line and scripts.
    """
    summary = result.summary().rename(columns={"level": LEVEL_NAMES[result.risk_model]})
    rows = result.rows.drop(columns=["risk_model"])
    for frame in (summary, rows):
        keys = frame["measure"].astype(str)
        frame.insert(frame.columns.get_loc("measure"), "group", keys.map(measure_group))
        frame["measure"] = keys.map(measure_label)
        frame["key"] = keys
    return summary, rows


__all__ = [
    "LAB_DEFAULTS",
    "LEVEL_OPTIONS",
    "RISK_MODEL_LABELS",
    "STOP_FLAG",
    "format_seconds",
    "generators",
    "lab_cached",
    "lab_key",
    "lab_real",
    "lab_run",
    "lab_settings",
    "measure_option",
    "plan_for_rows",
    "request_stop",
    "responses_table",
    "results_tables",
    "sweep_plan",
]
