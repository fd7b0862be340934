"""The MDS result, and how one is read from the shadows' distances.

:func:`assemble` turns the distances of the shadows that ran (all of them, those done
when a run was stopped, or those that reached an overfit level) into an
:class:`MdsResult`: per-record disclosure, the SELF and HALF references over the same
splits, the raw and relative readings, the bootstrap interval, the records table and the
params. :class:`MdsStudy` holds everything it needs besides the distances.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ...results import MetricResult
from .disclosure import (
    FLAG_LEVEL,
    NULL_PERMUTATIONS,
    DisclosureScores,
    bootstrap_interval,
    disclosure_scores,
    permuted_confident,
    raw_summary,
    relative_readings,
)
from .shadows import ShadowContext, reference_distances


@dataclass(frozen=True, eq=False)
class MdsResult(MetricResult):
    """MDS in the chosen reading, with the raw max, quantile, mean and references.

    ``records`` holds one row per evaluated record: ``record`` (index in the real
    table), ``ds`` (its disclosure score), ``mean_in``/``mean_out`` (its mean distance
    to the tables of the shadows it trained / did not train), ``ds_self`` and
    ``ds_half`` (the same record under the SELF and HALF references, NaN when not
    computed), ``confident`` (the lower confidence bound of mean OUT − mean IN, floored
    at 0), ``targeted`` (DS at or above the reported quantile: the records an attacker
    would try) and ``flagged`` (the same bound at the stricter ``FLAG_LEVEL`` is above
    0: about one unseen record in a thousand is flagged by chance).
    """

    raw_max: float = float("nan")
    raw_quantile: float = float("nan")
    raw_mean: float = float("nan")
    self_max: float = float("nan")
    half_max: float = float("nan")
    relative: float = float("nan")
    relative_max: float = float("nan")
    stopped: bool = False
    ds: np.ndarray = field(default_factory=lambda: np.empty(0))


@dataclass(frozen=True)
class MdsStudy:
    """What reading a result needs besides the shadows' distances: the shadows' context,
    the studied rows' labels in the real table, the reading's options, the child seeds of
    the references, the null relabellings and the bootstrap, and the params every result
    records (:func:`assemble` adds the shadows done and the overfit level)."""

    ctx: ShadowContext
    index: np.ndarray
    reading: str
    references: bool
    quantile: float
    tail: float
    bootstrap: int
    confidence: float
    half_seed: int
    null_seed: int
    boot_seed: int
    params: dict[str, Any]


@dataclass(frozen=True)
class _Readings:
    """The readings of one set of distances (raw, references, relative)."""

    raw: dict[str, float]
    self_max: float
    half_max: float
    null: np.ndarray
    tails: tuple[np.ndarray, np.ndarray, np.ndarray]
    relative: float
    relative_max: float


def assemble(
    study: MdsStudy, distance: np.ndarray, done: int, level: float | None = None
) -> MdsResult:
    """The result read from the shadows with a distance (``done`` of ``m`` ran; at an
    overfit ``level``, those that reached it)."""
    keep = study.ctx.keep[:, study.ctx.targets]
    scores = disclosure_scores(distance, keep)
    self_s, half_s = _reference_scores(study, distance)
    readings = _readings(study, distance, scores, self_s, half_s)
    # beyond the noise: the shadows establish the record's disclosure at a strict level
    # (one unseen record in a thousand is flagged by chance)
    flagged = np.nan_to_num(disclosure_scores(distance, keep, FLAG_LEVEL).confident, nan=0.0) > 0
    value, ci = _headline(study, scores.ds, readings)
    raw, stopped = readings.raw, done < len(keep)
    return MdsResult(
        name="mds",
        value=float(value),
        ci=ci,
        params=_params(study, distance, done, level),
        record_table=_records(study, scores, self_s, half_s, raw["quantile"], flagged),
        baseline=readings.half_max if study.reading == "max" else 0.0,
        goal="lower",
        # the max: a one-hot mismatch in every column, divided by √p
        bounds=(-1.0, 1.0) if study.reading == "relative" else (0.0, math.sqrt(2.0)),
        extra=_extra(study, scores.ds, readings, flagged, value, stopped=stopped),
        raw_max=raw["max"],
        raw_quantile=raw["quantile"],
        raw_mean=raw["mean"],
        self_max=readings.self_max,
        half_max=readings.half_max,
        relative=readings.relative,
        relative_max=readings.relative_max,
        stopped=stopped,
        ds=scores.ds,
    )


def _reference_scores(
    study: MdsStudy, distance: np.ndarray
) -> tuple[DisclosureScores, DisclosureScores]:
    """DS of every evaluated record under SELF and HALF (all NaN without references)."""
    if not study.references:
        empty = np.full(len(study.ctx.targets), np.nan)
        none = DisclosureScores(empty, empty, empty, empty)
        return none, none
    self_d, half_d = reference_distances(study.ctx, distance, study.half_seed)
    keep = study.ctx.keep[:, study.ctx.targets]
    return disclosure_scores(self_d, keep), disclosure_scores(half_d, keep)


def _readings(
    study: MdsStudy,
    distance: np.ndarray,
    scores: DisclosureScores,
    self_s: DisclosureScores,
    half_s: DisclosureScores,
) -> _Readings:
    """The raw summary of DS, the references' maxima, the null relabellings and the
    relative readings of the confident tail and of the max."""
    raw = raw_summary(scores.ds, study.quantile)
    references = study.references
    self_max = float(np.nanmax(self_s.ds)) if references else float("nan")
    has_pool = study.ctx.pool is not None
    half_max = float(np.nanmax(half_s.ds)) if has_pool and references else float("nan")
    m = len(study.ctx.keep)
    null = permuted_confident(distance, m, study.null_seed, NULL_PERMUTATIONS)
    tails = (scores.confident, half_s.confident, self_s.confident)
    relative, relative_max = relative_readings(
        tails, null, study.tail, raw["max"], half_max, self_max
    )
    return _Readings(raw, self_max, half_max, null, tails, relative, relative_max)


def _headline(
    study: MdsStudy, ds: np.ndarray, readings: _Readings
) -> tuple[float, tuple[float, float] | None]:
    """The value in the chosen reading and its bootstrap interval (None when the value
    is not available: an interval around it would mislead)."""
    ci = None
    if study.bootstrap > 0 and np.isfinite(ds).any():
        ci = bootstrap_interval(
            ds,
            readings.tails,
            readings.null,
            study.reading,
            study.tail,
            study.bootstrap,
            study.confidence,
            study.boot_seed,
        )
    value = readings.relative if study.reading == "relative" else readings.raw["max"]
    if not np.isfinite(value):
        ci = None  # an interval around an unavailable reading would mislead
    return value, ci


def _records(
    study: MdsStudy,
    scores: DisclosureScores,
    self_s: DisclosureScores,
    half_s: DisclosureScores,
    cut: float,
    flagged: np.ndarray,
) -> pd.DataFrame:
    """One row per evaluated record (the columns :class:`MdsResult` describes)."""
    ds = scores.ds
    return pd.DataFrame(
        {
            "record": study.index[study.ctx.targets],
            "ds": ds,
            "mean_in": scores.mean_in,
            "mean_out": scores.mean_out,
            "confident": scores.confident,
            "ds_self": self_s.ds,
            "ds_half": half_s.ds,
            "targeted": np.nan_to_num(ds, nan=-1.0) >= cut if np.isfinite(cut) else False,
            "flagged": flagged,
        }
    )


def _params(
    study: MdsStudy, distance: np.ndarray, done: int, level: float | None
) -> dict[str, Any]:
    """The study's params, the shadows done and, at an overfit level, those that reached it."""
    params = {**study.params, "n_shadows_done": done}
    if level is not None:
        params["overfit_level"] = level
        params["n_shadows_reached"] = int((~np.isnan(distance).all(axis=1)).sum())
    return params


def _extra(
    study: MdsStudy,
    ds: np.ndarray,
    readings: _Readings,
    flagged: np.ndarray,
    value: float,
    *,
    stopped: bool,
) -> dict[str, Any]:
    """Every reading, the quantiles of DS, the flagged count and the headline sentence."""
    finite = ds[np.isfinite(ds)]
    quantiles = {
        f"{q:g}": (float(np.quantile(finite, q)) if finite.size else float("nan"))
        for q in sorted({0.5, 0.9, study.quantile, 0.99, 1.0})
    }
    raw = readings.raw
    return {
        "raw_max": raw["max"],
        "raw_quantile": raw["quantile"],
        "raw_mean": raw["mean"],
        "quantiles": quantiles,
        "self_max": readings.self_max,
        "half_max": readings.half_max,
        "relative": readings.relative,
        "relative_max": readings.relative_max,
        "n_flagged": int(flagged.sum()),
        "reading_text": mds_reading(value, study.reading),
        "stopped": stopped,
    }


def mds_reading(value: float, reading: str) -> str:
    """One sentence for the headline."""
    if not np.isfinite(value):
        if reading == "relative":
            return (
                "Uninformative at this number of shadow models: the tables the method "
                "emits vary so much from one shadow to the next that even a copy of "
                "the training data would not stand out. Use more shadow models or "
                "tables, or read the raw MDS against SELF."
            )
        return "Not available: too few shadow models finished for a reading."
    if reading == "max":
        return (
            f"The most exposed record's distance to the emitted data changes by "
            f"{value:.3f} (per column, on the shared encoding) between the shadows "
            "it trained and those it did not; read it against SELF and HALF."
        )
    if value < 0.1:
        return (
            "About what a method that emits only unseen real records reads: no "
            "membership signal beyond the noise floor."
        )
    if value < 0.5:
        return (
            f"{value:.0%} of the way from HALF (emits unseen records) to SELF (copies "
            "its training data): some records' presence changes what is emitted near "
            "them."
        )
    return (
        f"{value:.0%} of the way to SELF: the method emits copies or near-copies of "
        "its training records; membership of the most exposed records is disclosed."
    )
