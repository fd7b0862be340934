"""Calibration glue: settings, the cached and stoppable calibration run, and its reading on
the Privacy page's measure cards.

The engine's :func:`privacy_core.calibration.calibrate` does the work on the real rows of
the workspace (training and holdout pooled; it makes its own split) with the threat model
and the measure settings of the Privacy page. The synthetic releases play no part, so the
cache key holds the real data, schema overrides, threat model and settings but not the
releases: a new release keeps the calibration.

A finished calibration is stored in the shared evaluation cache; a stopped one is kept in
this session only (``ui.runner.run_stoppable``). The last calibration shown for the
current data and threat model is remembered for the Privacy and Review pages
(:func:`latest_calibration`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd
import streamlit as st

from privacy_core.calibration import (
    DEFAULT_LEVELS,
    DEFAULT_RATIOS,
    CalibrationResult,
    CalibrationSummary,
    calibrate,
    calibration_key,
    calibration_result,
    calibration_targets,
)
from privacy_core.measures import measure_names
from privacy_core.plots.calibration import calibration_status
from privacy_core.results import jsonable
from privacy_core.risk.distance import DEFAULT_ALPHA

from .cached import scoped_key
from .compute import engine_backend
from .privacy import measure_options, privacy_params
from .runner import request_stop, run_stoppable, stoppable_result
from .state import set_widget, store_result, stored_result
from .workspace import Workspace

PARTIAL = "calibration_partial"
LATEST = "calibration_latest"
VIEW = "calibration"  # the Risk lab's view (an option of its "Risk model" selector)

CAL_MEASURES = tuple(measure_names("privacy"))
LEVEL_CHOICES = sorted({*(round(x / 10, 1) for x in range(11)), 0.25, 0.75})
RATIO_CHOICES = [1.0, 1.5, 2.0, 3.0, 4.0, 8.0]
# Every privacy measure at five levels and three ratios on at most 500 training rows:
# 36-38 s of computation on the demo data on two cores (s30), 58 s in the app with a
# headless browser on the same cores drawing the live preview; the papers' singling-out
# protocol (2,000 attacks at each of 11 widths per cell) takes 14 s, RAPID 6 s, contrastive
# DCR 6 s.
CAL_DEFAULTS: dict[str, Any] = {
    "measures": CAL_MEASURES,
    "levels": tuple(DEFAULT_LEVELS),
    "ratios": tuple(DEFAULT_RATIOS),
    "max_training": 500,
    "seed": 0,
}


def calibration_settings(ws: Workspace) -> dict[str, Any]:
    return {**CAL_DEFAULTS, **(ws.setting("calibration") or {})}


def calibration_options(
    ws: Workspace, measures: tuple[str, ...] = CAL_MEASURES
) -> dict[str, dict[str, Any]]:
    """The measures' options as set on the Privacy page (singling out's mode is the
    calibration's: both modes are calibrated, multivariate with the page's width)."""
    params = privacy_params(ws)
    out = {}
    for name in measures:
        opts = dict(measure_options(name, params))
        if name == "singling_out":
            opts.pop("mode", None)
            opts["n_cols"] = int(params["so_cols"])
        if opts:
            out[name] = opts
    return out


def _data_only(ws: Workspace) -> Workspace:
    """The workspace without its releases: what a calibration depends on."""
    return replace(ws, releases=())


def cal_key(ws: Workspace, settings: dict[str, Any]) -> str:
    params = {k: (tuple(v) if isinstance(v, list) else v) for k, v in settings.items()}
    options = calibration_options(ws, tuple(settings["measures"]))
    return scoped_key(
        _data_only(ws),
        "calibration",
        {**params, "options": repr(sorted(jsonable(options).items()))},
    )


def calibration_cached(ws: Workspace, settings: dict[str, Any]) -> CalibrationResult | None:
    """The finished calibration of these settings, or the partial one this session kept."""
    return stoppable_result(PARTIAL, cal_key(ws, settings))


def remember_calibration(ws: Workspace, result: CalibrationResult) -> None:
    """Make ``result`` the calibration the Privacy and Review pages read for this data."""
    store_result(LATEST, _data_only(ws).key, result)


def latest_calibration(ws: Workspace) -> CalibrationResult | None:
    """The calibration last shown for the current data and threat model, else the one of
    the current settings if it is cached (e.g. computed in another visit)."""
    return stored_result(LATEST, _data_only(ws).key) or calibration_cached(
        ws, calibration_settings(ws)
    )


def expected_rows(result: CalibrationResult) -> int:
    """How many (measure, mode, ratio, level) values the full run has."""
    return len(result.params.get("measures", [])) * len(result.levels) * len(result.ratios)


def _partial(
    frames: list[pd.DataFrame],
    settings: dict[str, Any],
    n_real: int,
    options: dict[str, dict[str, Any]],
) -> CalibrationResult:
    frame = pd.concat(frames, ignore_index=True)
    targets = calibration_targets(settings["measures"])
    return calibration_result(
        frame,
        targets,
        levels=sorted(float(v) for v in settings["levels"]),
        ratios=sorted(float(v) for v in settings["ratios"]),
        seed=int(settings["seed"]),
        n_real=n_real,
        stopped=True,
        params={
            "measures": [calibration_key(m, md) for m, md in targets],
            "n_training": int(frame["n_training"].iloc[0]),
            "options": jsonable(options),
            "max_training": int(settings["max_training"]) or None,
            "seed": int(settings["seed"]),
        },
    )


def calibration_run(
    ws: Workspace, settings: dict[str, Any], *, live_slot: Any, area: Any = None
) -> CalibrationResult | None:
    """Run (or fetch) the calibration of these settings with progress; ``live_slot`` (an
    ``st.empty()``) shows the small multiples of the values finished so far."""
    from privacy_core.plots.calibration import calibration_figure

    key = cal_key(ws, settings)
    hit = calibration_cached(ws, settings)
    if hit is not None:
        return hit
    frames: list[pd.DataFrame] = []
    n_real = len(ws.real.frame) + (len(ws.holdout.frame) if ws.holdout is not None else 0)
    options = calibration_options(ws, tuple(settings["measures"]))
    last_drawn = [time.perf_counter()]

    def compute(progress, should_stop, keep_partial) -> CalibrationResult:
        def on_rows(batch: pd.DataFrame) -> None:
            frames.append(batch)
            # built only if the run is interrupted (summaries of every cell are not free)
            keep_partial(lambda: _partial(frames, settings, n_real, options))
            if time.perf_counter() - last_drawn[0] < 3.0:  # redraw at most every 3 s
                return
            partial = _partial(frames, settings, n_real, options)
            with live_slot.container():
                st.caption(f"Values so far: {len(partial.rows)} of {expected_rows(partial)}.")
                st.plotly_chart(
                    calibration_figure(partial), width="stretch", key=f"cal_live_{len(frames)}"
                )
            last_drawn[0] = time.perf_counter()

        return calibrate(
            ws.real.frame,
            threat=ws.threat,
            holdout=ws.holdout.frame if ws.holdout is not None else None,
            schema=ws.schema,
            measures=list(settings["measures"]),
            levels=settings["levels"],
            ratios=settings["ratios"],
            options=options,
            max_training=int(settings["max_training"]) or None,
            seed=int(settings["seed"]),
            progress=progress,
            on_rows=on_rows,
            should_stop=should_stop,
            **engine_backend(),
        )

    return run_stoppable(
        PARTIAL,
        key,
        "Calibrating the measures on your data",
        compute,
        done_label="Calibration done",
        live_slot=live_slot,
        area=area,
        stopped_message=lambda r: (
            f"Stopped after {len(r.rows)} of {expected_rows(r)} "
            "values: the results below are partial. Run again to "
            "compute them all."
        ),
        failure_hint="try fewer measures, levels or training rows.",
    )


def open_calibration_view() -> None:
    """on_click of a link to the Risk lab's Calibration view."""
    set_widget("lab_model", VIEW)


# ------------------------------------------------------------------ measure cards
@dataclass(frozen=True)
class CardCalibration:
    """What a measure card says about the calibration of its measure on this data."""

    status: str  # "pass", "uncalibrated" or "incomplete"
    reading: str  # where the scale ends: full copy and unseen rows
    position: str  # where the card's value sits on that scale
    reasons: str
    note: str
    caveats: tuple[str, ...]


def _two(x: float) -> str:
    """Two decimals, without the sign of a negative zero (-0.002 reads 0.00)."""
    text = f"{x:.2f}"
    return "0.00" if text == "-0.00" else text


def _ends(result: CalibrationResult) -> tuple[str, str]:
    lo, hi = min(result.levels), max(result.levels)
    top = (
        "On a full copy of your data"
        if hi >= 1
        else f"With {hi:.0%} of a release copied from your data"
    )
    bottom = "on unseen real rows" if lo <= 0 else f"with {lo:.0%} copied"
    return top, bottom


def place(value: float, summary: CalibrationSummary) -> str:
    """Where ``value`` sits between the floor (unseen rows) and the ceiling (full copy),
    as a sentence ("" when either end is missing)."""
    floor, ceiling = summary.floor, summary.ceiling
    if not (math.isfinite(value) and math.isfinite(floor) and math.isfinite(ceiling)):
        return ""
    if ceiling - floor < 0.1:
        return (
            "The measure barely moves between unseen rows and a full copy on this data, "
            "so this value cannot be placed on that scale."
        )
    share = (value - floor) / (ceiling - floor)
    if share <= 0:
        return "This value is at or below its reading on unseen real rows."
    if share >= 1:
        return "This value is at or above its reading on a full copy."
    return (
        f"This value is ≈\u00a0{share * 100:.0f}\u00a0% of the way from unseen rows to a full copy."
    )


def card_calibration(
    ws: Workspace,
    result: CalibrationResult,
    name: str,
    value: float,
    *,
    mode: str = "default",
    alpha: float | None = None,
) -> CardCalibration | None:
    """The calibration line of one measure card (None when the run did not cover it)."""
    summary = result.summary(name, mode)
    if summary is None:
        if result.stopped and calibration_key(name, mode) in result.params.get("measures", []):
            return CardCalibration(
                status="incomplete",
                reading="The calibration was stopped before this "
                "measure ran: rerun it in the Risk lab.",
                position="",
                reasons="",
                note="",
                caveats=(),
            )
        return None
    status = calibration_status(result, summary)
    top, bottom = _ends(result)
    position = place(value, summary)
    if status == "incomplete":  # provisional ends are not shown as if they were final
        reading, position = (
            (
                "The calibration was stopped before every leak fraction of "
                "this measure ran: rerun it in the Risk lab."
            ),
            "",
        )
    elif math.isfinite(summary.floor) and math.isfinite(summary.ceiling):
        reading = (
            f"{top} this measure reads {_two(summary.ceiling)}; {bottom} {_two(summary.floor)}."
        )
    else:
        reading = "It could not be computed on the calibration's releases."
    caveats = []
    used = jsonable(result.params.get("options", {}).get(name, {}))
    now = jsonable(calibration_options(ws, (name,)).get(name, {}))
    if "options" in result.params and used != now:
        caveats.append(
            "calibrated with other settings of this measure; rerun the "
            "calibration to match the settings above"
        )
    if name in ("dcr", "knn") and alpha is not None and alpha != DEFAULT_ALPHA:
        caveats.append(f"calibrated at alpha {DEFAULT_ALPHA:g} %")
    n_train = result.params.get("n_training")
    if n_train:
        caveats.append(f"calibrated on {n_train:,} training rows")
    return CardCalibration(
        status=status,
        reading=reading,
        position=position,
        reasons="; ".join(summary.reasons) if status == "uncalibrated" else "",
        note=summary.note,
        caveats=tuple(caveats),
    )


__all__ = [
    "CAL_DEFAULTS",
    "CAL_MEASURES",
    "LEVEL_CHOICES",
    "RATIO_CHOICES",
    "VIEW",
    "CardCalibration",
    "calibration_cached",
    "calibration_options",
    "calibration_run",
    "calibration_settings",
    "card_calibration",
    "expected_rows",
    "latest_calibration",
    "open_calibration_view",
    "place",
    "remember_calibration",
    "request_stop",
]
