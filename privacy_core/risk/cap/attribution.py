"""GTCAP, the measure: the attack's correct attributions on training and holdout records
and the control-baseline risk (G_T - G_H) / (1 - G_H), with its bootstrap interval.

Notes
-----
``risk-insertion-framework.md`` §4.3.3 (eq. 7), §5.3.2 (control baseline) and §6.2.3;
``metric-reference.md`` §4 GTCAP.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from ...data import Schema
from ...errors import ParameterError, UntrustworthyResultWarning
from ...inputs import ReviewData, prepare_review
from ...results import MetricResult
from ...stats import control_baseline_risk, percentile_interval
from ...threat import ThreatModel
from ...validation import check_confidence, check_in_range, check_positive_int, check_seed
from ..distance import single_release
from .frames import AttackColumns, Frame, distinct_rows, reduce_frames, subset
from .pair_sums import box_sums
from .weightings import Attack, attack_statistics, check_weighting

DEFAULT_RADIUS = 0.1
# Distinct synthetic records attacked: above this many, a seeded sample of them, each
# still matched against every training, holdout and synthetic record (the reference side
# is never sampled). The matches per record grow with the tables, so attacking every
# record of a million-row release with continuous keys costs n^2 / classes box tests
# (issue 33: over 13 minutes); with the sample the cost grows linearly. Every calibration
# run and paper experiment stays below it.
GTCAP_MAX_QUERIES = 20_000


@dataclass(frozen=True, eq=False)
class GtcapResult(MetricResult):
    """GTCAP risk with its two attribution rates and per-synthetic-record statistics."""

    g_train: float = float("nan")
    g_holdout: float = float("nan")
    raw_risk: float = float("nan")
    n_kept: int = 0
    #: ``box_pooled`` only: one row per training and holdout record with the number of kept
    #: synthetic records matching it (``matches``) and sharing its target (``correct``)
    attributions: pd.DataFrame = field(default_factory=pd.DataFrame)


def gtcap(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    radius: float = DEFAULT_RADIUS,
    weighting: str = "box_pooled",
    bootstrap: int = 1000,
    confidence: float = 0.95,
    max_queries: int = GTCAP_MAX_QUERIES,
    seed: int = 0,
) -> GtcapResult:
    """GTCAP attribute-disclosure risk of a release, relative to a holdout control.

    Parameters
    ----------
    real
        The training data T.
    synthetic
        One synthetic release S.
    threat
        Keys = ``threat.quasi_identifiers``; target = ``threat.target``.
    holdout
        Real rows H the generator never saw (required: they are the control).
    radius
        Matching radius on the min-max scale of numeric columns, > 0 (default 0.1).
    weighting
        ``box_pooled`` (default: pairs pooled over kept synthetic records),
        ``box_per_record`` (the mean of eq. 7's per-synthetic-record TCAP) or
        ``triangular`` (reference code); see :mod:`privacy_core.risk.cap`. ``sphere``,
        the former name of ``box_pooled``, is accepted with a DeprecationWarning.
    bootstrap
        Replicates of the percentile interval (0 = none). ``box_pooled``: the training
        and holdout records are resampled independently, the release held fixed (G is a
        ratio of per-real-record sums); ``box_per_record`` and ``triangular``: the kept
        synthetic records are resampled (G is a mean over them), T and H held fixed.
    confidence
        Interval level.
    max_queries
        Distinct synthetic records attacked (0 = every one): above it, a seeded sample,
        each matched against the whole training, holdout and synthetic tables; the
        interval is then a bootstrap over the sampled kept records, so it includes the
        sampling (``params["n_queries"]`` says how many were attacked).
    seed
        Seeds the bootstrap and the sample; recorded in ``params``. Missing values: a
        missing numeric matches only another missing value of the same column (as the
        reference code's out-of-range fill does); a missing category is a level of its
        own.

    Returns
    -------
    GtcapResult
        ``name="gtcap"``; ``value`` = (G_T - G_H) / (1 - G_H) clipped to [0, 1]
        (``raw_risk`` unclipped; 0 when no synthetic record passes the WEAP filter);
        ``g_train``, ``g_holdout``; records: one row per distinct synthetic record (on
        keys and target) with ``record`` (its first row in the release), ``copies``,
        ``weap``, ``kept`` and, for T and H, the matches, correct matches and score
        (``box_per_record``: ``score_train`` / ``score_holdout`` are the per-record TCAPs
        of eq. 7 whose mean over kept records is G, NaN without a match);
        ``attributions`` (``box_pooled``) the same counts per training and holdout record.

    Raises
    ------
    ParameterError
        No holdout, radius not positive, unknown weighting.

    Notes
    -----
    ``risk-insertion-framework.md`` §4.3.3, §5.3.2 (control baseline), §6.2.3;
    ``metric-reference.md`` §4 GTCAP.
    """
    seed = check_seed(seed)
    radius = check_in_range("radius", radius, 0, np.inf, low_inclusive=False)
    weighting = check_weighting(weighting)
    bootstrap = check_positive_int("bootstrap", bootstrap, minimum=0)
    max_queries = check_positive_int("max_queries", max_queries, minimum=0)
    check_confidence(confidence)
    if holdout is None:
        raise ParameterError(
            "`gtcap` needs a holdout: real rows the generator never saw, to measure what "
            "the attack achieves on non-members (the control). Pass holdout=..."
        )
    boot_seed = int(np.random.SeedSequence(seed).generate_state(1)[0])
    opts = _GtcapOptions(radius, weighting, bootstrap, confidence, seed, boot_seed, max_queries)
    data = prepare_review(
        real, synthetic, threat=threat, holdout=holdout, schema=schema, min_rows=1
    )
    syn = single_release(data, "gtcap")
    cols = AttackColumns.of(threat, data.schema)
    frames = reduce_frames(
        {"real": data.real, "synthetic": syn, "holdout": data.holdout}, data.schema, cols, data.real
    )
    release, uniq_pos, copies = _attacked_records(frames["synthetic"], max_queries, boot_seed)
    n_distinct = len(release.group)
    U = subset(frames["synthetic"], uniq_pos)
    attack = attack_statistics(
        U, frames, weighting, radius, has_numeric=bool(cols.numeric), release=release
    )
    g_t, g_h, raw, n_kept = _control_risk(attack, radius)
    value = float(np.clip(raw, 0.0, 1.0)) if np.isfinite(raw) else float("nan")
    sampled = len(uniq_pos) < n_distinct
    ci, attributions = _interval(data, U, frames, attack, opts, sampled=sampled)
    return GtcapResult(
        name="gtcap",
        value=value,
        ci=ci,
        params=_gtcap_params(data, syn, cols, opts, n_distinct=n_distinct, n_queries=len(uniq_pos)),
        record_table=_records_table(syn, uniq_pos, copies, attack),
        goal="lower",
        bounds=(0.0, 1.0),
        extra={"g_train": g_t, "g_holdout": g_h, "raw_risk": raw, "n_kept": n_kept},
        g_train=g_t,
        g_holdout=g_h,
        raw_risk=float(raw),
        n_kept=n_kept,
        attributions=attributions,
    )


def _attacked_records(
    syn: Frame, max_queries: int, seed: int
) -> tuple[Frame, np.ndarray, np.ndarray]:
    """The release's distinct records, and the positions and copies of those attacked:
    all of them, or a seeded sample of ``max_queries`` (0: no cap)."""
    uniq_pos, copies = distinct_rows(syn)
    release = subset(syn, uniq_pos)
    if max_queries and len(uniq_pos) > max_queries:
        rng = np.random.default_rng(seed + 1)  # not the bootstrap's own stream
        chosen = np.sort(rng.choice(len(uniq_pos), max_queries, replace=False))
        uniq_pos, copies = uniq_pos[chosen], copies[chosen]
    return release, uniq_pos, copies


@dataclass(frozen=True)
class _GtcapOptions:
    """The validated options of one GTCAP run and the bootstrap's seed."""

    radius: float
    weighting: str
    bootstrap: int
    confidence: float
    seed: int
    boot_seed: int
    max_queries: int


def _control_risk(attack: Attack, radius: float) -> tuple[float, float, float, int]:
    """G_T, G_H, the unclipped control-baseline risk (G_T - G_H) / (1 - G_H) and the
    number of kept records; warns (naming the caller of :func:`gtcap`) when nothing is
    kept (the risk is 0) or the risk is undefined."""
    kept = attack.kept
    g_t = _pooled(attack.per["real"], kept)
    g_h = _pooled(attack.per["holdout"], kept)
    n_kept = int(kept.sum())
    raw = control_baseline_risk(g_t, g_h) if np.isfinite(g_t) and np.isfinite(g_h) else np.nan
    if n_kept == 0:
        raw = 0.0
        warnings.warn(
            "No synthetic record passed the WEAP filter (no target-homogeneous match class "
            f"at radius {radius:g}); the attack makes no attribution and GTCAP is 0.",
            UntrustworthyResultWarning,
            stacklevel=3,
        )
    elif not np.isfinite(raw):
        warnings.warn(
            "GTCAP is undefined: the kept synthetic records match no training or holdout "
            "record, or the control attack is always correct (G_H = 1).",
            UntrustworthyResultWarning,
            stacklevel=3,
        )
    return g_t, g_h, raw, n_kept


def _interval(
    data: ReviewData,
    U: Frame,
    frames: dict[str, Frame],
    attack: Attack,
    opts: _GtcapOptions,
    *,
    sampled: bool,
) -> tuple[tuple[float, float] | None, pd.DataFrame]:
    """The bootstrap interval of the clipped risk and (``box_pooled``) the per-real-record
    attributions; (0, 0) when nothing is kept. ``sampled``: the attacked synthetic
    records are a sample of the release, so the interval resamples them (it then
    includes the sampling) whatever the weighting."""
    kept, per = attack.kept, attack.per
    if not kept.any():
        return ((0.0, 0.0) if opts.bootstrap > 0 else None), pd.DataFrame()
    attributions = pd.DataFrame()
    if opts.weighting == "box_pooled":
        ci, attributions = _pooled_interval(data, U, frames, kept, opts, interval=not sampled)
        if not sampled:
            return ci, attributions
    ci = _bootstrap_ci(
        tuple(x[kept] for x in per["real"]),
        tuple(x[kept] for x in per["holdout"]),
        paired=True,
        n_boot=opts.bootstrap,
        seed=opts.boot_seed,
        confidence=opts.confidence,
    )
    return ci, attributions


def _pooled_interval(
    data: ReviewData,
    U: Frame,
    frames: dict[str, Frame],
    kept: np.ndarray,
    opts: _GtcapOptions,
    *,
    interval: bool = True,
) -> tuple[tuple[float, float] | None, pd.DataFrame]:
    """``box_pooled``: G pools (kept synthetic, real) pairs, so it is also a ratio of
    per-real-record sums: resample the attacked training and holdout records, the
    release fixed; the same sums are the attributions table (``interval=False``: the
    table only)."""
    K = subset(U, np.flatnonzero(kept))
    per_real = {}
    for name in ("real", "holdout"):
        st = box_sums(frames[name], K, opts.radius)
        per_real[name] = (st["num"], st["den"])
    ci = (
        None
        if not interval
        else _bootstrap_ci(
            per_real["real"],
            per_real["holdout"],
            paired=False,
            n_boot=opts.bootstrap,
            seed=opts.boot_seed,
            confidence=opts.confidence,
        )
    )
    control = cast(pd.DataFrame, data.holdout)  # checked by gtcap
    attributions = pd.DataFrame(
        {
            "record": np.r_[data.real.index.to_numpy(), control.index.to_numpy()],
            "source": np.r_[np.full(len(data.real), "training"), np.full(len(control), "holdout")],
            "matches": np.r_[per_real["real"][1], per_real["holdout"][1]],
            "correct": np.r_[per_real["real"][0], per_real["holdout"][0]],
        }
    )
    return ci, attributions


def _records_table(
    syn: pd.DataFrame, uniq_pos: np.ndarray, copies: np.ndarray, attack: Attack
) -> pd.DataFrame:
    """One row per distinct synthetic record: its copies, WEAP, whether it is kept and,
    for T and H, its matches, correct matches and score."""
    syn_labels = syn.index.to_numpy()
    table = pd.DataFrame(
        {"record": syn_labels[uniq_pos], "copies": copies, "weap": attack.weap, "kept": attack.kept}
    )
    for name, label in (("real", "train"), ("holdout", "holdout")):
        correct, matches, score = attack.shown[name]
        table[f"matches_{label}"] = matches
        table[f"correct_{label}"] = correct
        table[f"score_{label}"] = score
    return table


def _gtcap_params(
    data: ReviewData,
    syn: pd.DataFrame,
    cols: AttackColumns,
    opts: _GtcapOptions,
    *,
    n_distinct: int,
    n_queries: int,
) -> dict[str, Any]:
    """What a GTCAP result records: its columns, options, seeds and table sizes."""
    weighting = opts.weighting
    return {
        "quasi_identifiers": cols.keys,
        "sensitive": cols.target,
        "radius": opts.radius,
        "weighting": weighting,
        "numeric_columns": cols.numeric,
        "bootstrap": opts.bootstrap,
        "bootstrap_seed": opts.boot_seed,
        "confidence": opts.confidence,
        "matching": "box (L-infinity ball of half-width radius per numeric column)",
        "aggregation": {
            "box_pooled": "pooled (kept synthetic, real) pairs",
            "box_per_record": "mean of per-synthetic-record TCAP (eq. 7)",
            "triangular": "mean of triangular-weighted scores",
        }[weighting],
        "numeric_missing": "matches missing only",
        "seed": opts.seed,
        "n_real": len(data.real),
        "n_synthetic": len(syn),
        "n_holdout": len(data.holdout),  # type: ignore[arg-type]
        "n_distinct_synthetic": n_distinct,
        "max_queries": opts.max_queries,
        "n_queries": n_queries,
        "interval": (
            "bootstrap over training and holdout records (release fixed)"
            if weighting == "box_pooled" and n_queries == n_distinct
            else "bootstrap over kept synthetic records (real tables fixed)"
            + ("; includes the sample of attacked records" if n_queries < n_distinct else "")
        ),
    }


def _pooled(ab: tuple[np.ndarray, np.ndarray], kept: np.ndarray) -> float:
    a, b = ab
    den = float(b[kept].sum())
    return float(a[kept].sum() / den) if den > 0 else float("nan")


def _bootstrap_ci(
    train: tuple[np.ndarray, np.ndarray],
    hold: tuple[np.ndarray, np.ndarray],
    *,
    paired: bool,
    n_boot: int,
    seed: int,
    confidence: float,
) -> tuple[float, float] | None:
    """Percentile interval of the clipped risk with G = (w . a) / (w . b) per side.

    ``paired``: both sides are per synthetic record and share one resample; otherwise
    the sides are per training / holdout record and are resampled independently.
    """
    if n_boot <= 0:
        return None
    rng = np.random.default_rng(seed)
    n_t, n_h = len(train[0]), len(hold[0])
    risks = np.empty(n_boot)
    chunk = max(1, min(n_boot, 25_000_000 // max(n_t + n_h, 1)))
    for start in range(0, n_boot, chunk):
        size = min(chunk, n_boot - start)
        w_t = rng.multinomial(n_t, np.full(n_t, 1.0 / n_t), size=size).astype(np.float64)
        w_h = (
            w_t
            if paired
            else rng.multinomial(n_h, np.full(n_h, 1.0 / n_h), size=size).astype(np.float64)
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            g_t = (w_t @ train[0]) / (w_t @ train[1])
            g_h = (w_h @ hold[0]) / (w_h @ hold[1])
            risks[start : start + size] = (g_t - g_h) / (1 - g_h)
    risks = np.clip(risks, 0.0, 1.0)
    if not np.isfinite(risks).any():
        return None
    lo, hi = percentile_interval(risks, confidence=confidence)
    return (float(lo), float(hi))
