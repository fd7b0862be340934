"""Calibration of the measures themselves: the leaky risk model run on every registered
disclosure measure, at several training:holdout size ratios.

Why one module: the reference tables, the per-measure summary and the contract's verdict
are one procedure; the thresholds of the verdict sit next to what they judge.

A reviewer reads a measure as "0 = this release leaks nothing, 1 = it leaks everything".
:func:`calibrate` checks that reading on the user's own data and threat model. The real
rows (and the holdout, pooled with them) are split once (seeded) into

* *training*: the records whose privacy is at stake (``real`` for every measure);
* a *release pool* of unseen real rows of the same population, as large as training;
* a *control* reservoir: the measures' holdout. At ratio r the holdout is the first
  ``len(training) / r`` rows of the reservoir, so the smaller holdouts are nested in the
  larger ones and only the holdout size changes between ratios.

At each leak level f_l the release is the leaky risk model's
(:func:`privacy_core.synth.leaky.leaky_release`): ``round(f_l * n)`` training records and
the rest pool records, n = ``len(training)``. f_l = 0 is a perfectly private release
(unseen real rows), f_l = 1 a shuffled full copy. The release and the measure seeds are
the same at every ratio (common random numbers), so differences between ratios are the
holdout size and nothing else.

Per measure and mode, :class:`CalibrationSummary` reports the *floor* (value at f_l = 0)
and the *ceiling* (value at f_l = 1), both at the smallest ratio, the least-squares *slope*
and *linearity* (R²) of the value against f_l, *monotonicity* within noise and the *ratio
gap* (largest |value(largest ratio) - value(ratio 1)| over levels). A measure passes the
contract (DESIGN.md, "Calibration contract") when its floor interval reaches 0 or the
floor is at most 0.05, its ceiling is at least 0.9 (or the documented
ceiling of its registry entry), it is monotone within noise and its ratio gap is at most
0.1 — or, on small data whose intervals are wide, at most 0.1 beyond the two readings'
combined interval half-widths (a gap inside the noise is no evidence of a size bias).

Notes
-----
``risk-insertion-framework.md`` §5.1.1 (leaky risk model), §6.2 (leak fractions in equal
steps) and Table 2 (values at no and at maximal inserted risk).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import numpy as np
import pandas as pd

from .data import Schema, infer_schema, prepare_table
from .errors import InsufficientDataError, ParameterError
from .evaluation import evaluate_noted
from .experiments import RowsFn
from .measures import MEASURES, get_measure, measure_names
from .parallel import BACKENDS, map_unordered
from .progress import ProgressFn
from .results import jsonable
from .stats import child_seeds
from .synth.leaky import leaky_release, leaky_shadow_options
from .threat import ThreatModel
from .validation import check_choice, check_positive_int, check_seed

DEFAULT_LEVELS = (0.0, 0.25, 0.5, 0.75, 1.0)
DEFAULT_RATIOS = (1.0, 2.0, 4.0)
FLOOR_MAX = 0.05
# the floor's upper bound must be small too: an interval too wide to decide is
# "inconclusive: more rows or attacks needed", never a pass (issue 31)
FLOOR_UPPER_MAX = 0.15
CEILING_MIN = 0.9
RATIO_GAP_MAX = 0.1
# A fall between neighbouring levels smaller than this (or than the points' combined
# half-widths) is noise, not a failure of monotonicity.
MONOTONE_SLACK = 0.05

# Measures whose attacker works through the quasi-identifiers: their ceiling is bounded by
# how well the quasi-identifiers pick out one record, whatever the release.
QI_MEASURES = ("rapid", "linkability", "inference", "ml_inference", "gtcap", "membership")

ROW_COLUMNS = [
    "metric",
    "mode",
    "ratio",
    "level",
    "value",
    "ci_low",
    "ci_high",
    "n_training",
    "n_holdout",
    "n_release",
    "seconds",
    "note",
]


def calibration_key(metric: str, mode: str) -> str:
    """``metric`` or ``metric:mode`` (the JSON summary's keys)."""
    return metric if mode == "default" else f"{metric}:{mode}"


def calibration_targets(measures: Sequence[str] | None = None) -> list[tuple[str, str]]:
    """(measure, mode) pairs to calibrate: every mode of each chosen privacy measure, or
    the one a ``"measure:mode"`` key names."""
    names = measure_names("privacy") if measures is None else list(measures)
    out: list[tuple[str, str]] = []
    for key in names:
        name, _, only = str(key).partition(":")
        spec = get_measure(name)
        if only:
            spec.mode_options(only)  # a specific error for an unknown mode
            out.append((name, only))
            continue
        if spec.family != "privacy":
            raise ParameterError(
                f"{spec.label} is a fidelity measure; calibration checks disclosure measures only."
            )
        out.extend((name, mode) for mode in spec.mode_names)
    return out


# ============================================================================ results
@dataclass(frozen=True)
class CalibrationSummary:
    """How one measure (in one mode) responds to inserted risk."""

    metric: str
    mode: str
    floor: float
    floor_ci: tuple[float, float] | None
    ceiling: float
    ceiling_ci: tuple[float, float] | None
    slope: float
    intercept: float
    linearity: float
    monotone: bool
    ratio_gap: float
    documented_ceiling: float | None
    passed: bool
    reasons: tuple[str, ...]
    note: str = ""
    ratio_gap_beyond_noise: float = 0.0
    # the response between the ends: the largest distance of the normalised reading
    # (v - floor) / (ceiling - floor) from the inserted risk f_l at an interior level,
    # and the band the measure keeps (its registry entry)
    response_gap: float = math.nan
    response_band: float = math.nan
    # "pass", "fail" or "inconclusive" (intervals too wide to decide)
    verdict: str = "fail"

    @property
    def floor_upper(self) -> float:
        return self.floor_ci[1] if self.floor_ci is not None else self.floor

    @property
    def key(self) -> str:
        return calibration_key(self.metric, self.mode)

    def reading(self) -> str:
        """One sentence a stakeholder can read without knowing the measure."""
        return (
            f"On a full copy of this data the measure reads {self.ceiling:.2f}; on "
            f"unseen real rows of the same population it reads {self.floor:.2f}."
        )

    def to_dict(self) -> dict[str, Any]:
        return jsonable(
            {
                "floor": self.floor,
                "floor_ci": self.floor_ci,
                "ceiling": self.ceiling,
                "ceiling_ci": self.ceiling_ci,
                "slope": self.slope,
                "intercept": self.intercept,
                "linearity": self.linearity,
                "monotone": self.monotone,
                "ratio_gap": self.ratio_gap,
                "ratio_gap_beyond_noise": self.ratio_gap_beyond_noise,
                "documented_ceiling": self.documented_ceiling,
                "floor_upper": self.floor_upper,
                "response_gap": self.response_gap,
                "response_band": self.response_band,
                "verdict": self.verdict,
                "pass": self.passed,
                "reasons": list(self.reasons),
                "note": self.note,
            }
        )


@dataclass(frozen=True, eq=False)
class CalibrationResult:
    """Every (measure, mode, ratio, level) value and the per-measure summaries."""

    rows: pd.DataFrame
    summaries: tuple[CalibrationSummary, ...]
    levels: tuple[float, ...]
    ratios: tuple[float, ...]
    seed: int
    n_real: int
    params: dict[str, Any] = field(default_factory=dict)
    stopped: bool = False

    def summary(self, metric: str, mode: str = "default") -> CalibrationSummary | None:
        key = calibration_key(metric, mode)
        return next((s for s in self.summaries if s.key == key), None)

    def summary_frame(self) -> pd.DataFrame:
        label = {n: s.label for n, s in MEASURES.items()}
        return pd.DataFrame(
            [
                {
                    "measure": label.get(s.metric, s.metric)
                    + ("" if s.mode == "default" else f" ({s.mode})"),
                    "key": s.key,
                    "floor": s.floor,
                    "ceiling": s.ceiling,
                    "slope": s.slope,
                    "linearity": s.linearity,
                    "monotone": s.monotone,
                    "ratio_gap": s.ratio_gap,
                    "documented_ceiling": s.documented_ceiling,
                    "pass": s.passed,
                    "reasons": "; ".join(s.reasons),
                }
                for s in self.summaries
            ]
        )

    def to_dict(self) -> dict[str, Any]:
        rows = [
            {
                "metric": r.metric,
                "mode": r.mode,
                "ratio": float(r.ratio),
                "level": float(r.level),
                "value": r.value,
                "ci": (
                    None
                    if not (np.isfinite(r.ci_low) and np.isfinite(r.ci_high))
                    else [float(r.ci_low), float(r.ci_high)]
                ),
            }
            for r in self.rows.itertuples()
        ]
        return jsonable(
            {
                "rows": rows,
                "summary": {s.key: s.to_dict() for s in self.summaries},
                "levels": list(self.levels),
                "ratios": list(self.ratios),
                "params": self.params,
                "stopped": self.stopped,
            }
        )


# ============================================================================ summary
def _half_width(lo: float, hi: float) -> float:
    return (hi - lo) / 2 if np.isfinite(lo) and np.isfinite(hi) else 0.0


def qi_unique_share(training: pd.DataFrame, threat: ThreatModel) -> float:
    """Share of training records whose quasi-identifier values no other record shares."""
    qis = [c for c in threat.quasi_identifiers if c in training.columns]
    if not qis or training.empty:
        return math.nan
    return float((~training[qis].duplicated(keep=False)).mean())


def summarise(
    rows: pd.DataFrame, metric: str, mode: str, *, unique_share: float | None = None
) -> CalibrationSummary:
    """The contract's figures for one (measure, mode) from its calibration rows.

    ``unique_share`` (see :func:`qi_unique_share`) explains a low ceiling of a measure
    that attacks through the quasi-identifiers."""
    spec = get_measure(metric)
    g = rows[(rows["metric"] == metric) & (rows["mode"] == mode)]
    g = g[np.isfinite(g["value"].to_numpy(dtype=float))]
    reasons: list[str] = []
    if g.empty:
        return CalibrationSummary(
            metric,
            mode,
            math.nan,
            None,
            math.nan,
            None,
            math.nan,
            math.nan,
            math.nan,
            False,
            math.nan,
            spec.documented_ceiling,
            False,
            ("no value could be computed",),
            spec.calibration_note,
            math.nan,
        )
    ratios = sorted(g["ratio"].unique())
    lo_level, hi_level = g["level"].min(), g["level"].max()

    def at(level: float) -> pd.DataFrame:
        return g[g["level"] == level]

    # Floor and ceiling are read at the smallest ratio (1:1 by default), where the holdout
    # is as large as the training set; the other ratios enter through the ratio gap. (Taking
    # the worst ratio instead would test each floor interval once per ratio, and a 95 %
    # interval excludes 0 by chance in about 1 of 13 such triples.)
    floors = at(lo_level).sort_values("ratio")
    worst_floor = floors.iloc[0]
    floor_upper = (
        float(worst_floor["ci_high"])
        if np.isfinite(worst_floor["ci_high"])
        else float(worst_floor["value"])
    )
    # small in its estimate *and* its upper bound; a small estimate with a wide interval
    # cannot be told from a floor of 0.3 and is inconclusive, never a pass
    floor_ok = bool(worst_floor["value"] <= FLOOR_MAX and floor_upper <= FLOOR_UPPER_MAX)
    floor_unsure = bool(worst_floor["value"] <= FLOOR_MAX and not floor_ok)
    ceilings = at(hi_level).sort_values("ratio")
    worst_ceiling = ceilings.iloc[0]
    need = CEILING_MIN if spec.documented_ceiling is None else spec.documented_ceiling
    ceiling_ok = bool(worst_ceiling["value"] >= need)
    x, y = g["level"].to_numpy(dtype=float), g["value"].to_numpy(dtype=float)
    if np.ptp(x) > 0:
        slope, intercept = np.polyfit(x, y, 1)
        resid = y - (slope * x + intercept)
        total = float(((y - y.mean()) ** 2).sum())
        linearity = 1.0 - float((resid**2).sum()) / total if total > 0 else 1.0
    else:
        slope, intercept, linearity = math.nan, float(y.mean()), math.nan
    monotone = True
    for ratio in ratios:
        h = g[g["ratio"] == ratio].sort_values("level")
        v = h["value"].to_numpy(dtype=float)
        hw = [_half_width(a, b) for a, b in zip(h["ci_low"], h["ci_high"], strict=True)]
        for i in range(len(v) - 1):
            slack = max(MONOTONE_SLACK, math.hypot(hw[i], hw[i + 1]))
            if v[i + 1] < v[i] - slack:
                monotone = False
    # the response between the ends, at the smallest ratio: the reading normalised by the
    # floor and the ceiling should track the inserted risk f_l (a step or a response
    # saturated half-way does not)
    response_gap = _response_gap(g[g["ratio"] == ratios[0]], lo_level, hi_level)
    band = spec.response_band
    # the gap between the smallest and the largest ratio, and the readings' own
    # uncertainty: a gap over the line with intervals narrow enough to see one fails; with
    # intervals too wide to see a 0.1 gap, the ratio check is inconclusive
    gap, gap_beyond, gap_noise = 0.0, 0.0, 0.0
    if len(ratios) > 1:
        first, last = ratios[0], ratios[-1]
        for level in sorted(g["level"].unique()):
            a = g[(g["level"] == level) & (g["ratio"] == first)]
            b = g[(g["level"] == level) & (g["ratio"] == last)]
            if len(a) and len(b):
                ra, rb = a.iloc[0], b.iloc[0]
                d = abs(float(rb["value"]) - float(ra["value"]))
                noise = math.hypot(
                    _half_width(ra["ci_low"], ra["ci_high"]),
                    _half_width(rb["ci_low"], rb["ci_high"]),
                )
                if d > gap:
                    gap, gap_noise = d, noise
                gap_beyond = max(gap_beyond, d - noise)
    unsure: list[str] = []
    if floor_unsure:
        unsure.append(
            f"its floor {worst_floor['value']:.2f} has an upper bound {floor_upper:.2f} above "
            f"{FLOOR_UPPER_MAX:g}: more rows or attacks needed to decide"
        )
    elif not floor_ok:
        reasons.append(
            f"reads {worst_floor['value']:.2f} on unseen real rows (ratio "
            f"{worst_floor['ratio']:g}:1; upper bound {floor_upper:.2f})"
        )
    if math.isfinite(response_gap) and response_gap > band:
        reasons.append(
            f"does not track the inserted risk between the ends: its normalised reading "
            f"is {response_gap:.2f} from f_l at an interior level (band {band:g})"
        )
    if not ceiling_ok:
        why = ""
        if (
            metric in QI_MEASURES
            and unique_share is not None
            and math.isfinite(unique_share)
            and unique_share < 0.5
        ):
            why = (
                f": only {unique_share:.0%} of the training records are unique on the "
                "quasi-identifiers, so even a copy cannot be exploited through them"
            )
        reasons.append(
            f"reads only {worst_ceiling['value']:.2f} on a full copy (ratio "
            f"{worst_ceiling['ratio']:g}:1; needs {need:.2f}){why}"
        )
    if not monotone:
        reasons.append("falls as the leak grows")
    if gap > RATIO_GAP_MAX:
        where = f"between size ratios {ratios[0]:g}:1 and {ratios[-1]:g}:1"
        if gap_noise <= RATIO_GAP_MAX:
            reasons.append(f"moves by {gap:.2f} {where}")
        else:
            unsure.append(
                f"moves by {gap:.2f} {where}, inside intervals too wide (±{gap_noise:.2f}) "
                "to see a 0.1 gap: more rows or attacks needed to decide"
            )
    if spec.absolute and not floor_ok:
        reasons.append("absolute measure (see note)")

    def ci(row: pd.Series) -> tuple[float, float] | None:
        lo, hi = float(row["ci_low"]), float(row["ci_high"])
        return (lo, hi) if np.isfinite(lo) and np.isfinite(hi) else None

    return CalibrationSummary(
        metric=metric,
        mode=mode,
        floor=float(worst_floor["value"]),
        floor_ci=ci(worst_floor),
        ceiling=float(worst_ceiling["value"]),
        ceiling_ci=ci(worst_ceiling),
        slope=float(slope),
        intercept=float(intercept),
        linearity=float(linearity),
        monotone=monotone,
        ratio_gap=float(gap),
        ratio_gap_beyond_noise=float(gap_beyond),
        documented_ceiling=spec.documented_ceiling,
        passed=not reasons and not unsure,
        reasons=tuple(reasons + unsure),
        note=spec.calibration_note,
        response_gap=float(response_gap),
        response_band=float(band),
        verdict="fail" if reasons else "inconclusive" if unsure else "pass",
    )


def _response_gap(g: pd.DataFrame, lo_level: float, hi_level: float) -> float:
    """The largest |(v - floor) / (ceiling - floor) - f| over the interior levels f of one
    ratio's rows (f rescaled to [0, 1] between the lowest and the highest level); NaN with
    no interior level or a flat response (the ceiling check speaks for that)."""
    by = g.groupby("level")["value"].mean()
    if lo_level not in by.index or hi_level not in by.index:
        return math.nan
    v0, v1 = float(by[lo_level]), float(by[hi_level])
    inner = by[(by.index > lo_level) & (by.index < hi_level)]
    if inner.empty or v1 - v0 <= 1e-9:
        return math.nan
    f = (inner.index.to_numpy(dtype=float) - lo_level) / (hi_level - lo_level)
    r = (inner.to_numpy(dtype=float) - v0) / (v1 - v0)
    return float(np.max(np.abs(r - f)))


# ============================================================================ engine
@dataclass(frozen=True, eq=False)
class CalibrationTables:
    """The split behind a calibration: training, release pool and holdout reservoir."""

    training: pd.DataFrame
    pool: pd.DataFrame
    reservoir: pd.DataFrame

    def holdout(self, ratio: float) -> pd.DataFrame:
        n = max(2, int(round(len(self.training) / ratio)))
        return self.reservoir.iloc[:n]


def calibration_tables(
    real: pd.DataFrame, *, ratios: Sequence[float], max_training: int | None = None, seed: int = 0
) -> CalibrationTables:
    """Split canonical real rows into training, pool and holdout reservoir (seeded).

    Training and pool are equal; the reservoir holds ``len(training) / min(ratios)``
    rows. ``max_training`` caps the training size (the rest of the rows is unused).
    """
    n = len(real)
    smallest = min(ratios)
    n_train = int(n // (2 + 1 / smallest))
    if max_training is not None:
        n_train = min(n_train, max_training)
    n_res = int(round(n_train / smallest))
    if n_train < 20 or n_res < 10:
        raise InsufficientDataError(
            f"Calibration splits the real rows into training, an equal pool of unseen rows "
            f"and a holdout of training/{smallest:g} rows; {n} rows leave only {n_train} "
            "training rows. Give at least 100 rows (a few thousand for tight intervals)."
        )
    order = np.random.default_rng(seed).permutation(n)
    train = real.iloc[np.sort(order[:n_train])]
    pool = real.iloc[np.sort(order[n_train : 2 * n_train])]
    # the reservoir keeps its random order so that every prefix is a random sample
    reservoir = real.iloc[order[2 * n_train : 2 * n_train + n_res]]
    return CalibrationTables(training=train, pool=pool, reservoir=reservoir)


def _check_grid(
    name: str, values: Sequence[float], low: float, high: float, *, minimum: int
) -> tuple[float, ...]:
    try:
        out = tuple(sorted(float(v) for v in values))
    except (TypeError, ValueError):
        raise ParameterError(f"`{name}` must be numbers; got {values!r}.") from None
    if len(out) < minimum or len(set(out)) != len(out):
        raise ParameterError(
            f"`{name}` needs at least {minimum} distinct value(s); got {list(values)}."
        )
    if out[0] < low or out[-1] > high:
        raise ParameterError(f"`{name}` must lie in [{low:g}, {high:g}]; got {list(out)}.")
    return out


def calibrate(
    real: pd.DataFrame,
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    measures: Sequence[str] | None = None,
    levels: Sequence[float] = DEFAULT_LEVELS,
    ratios: Sequence[float] = DEFAULT_RATIOS,
    options: dict[str, dict[str, Any]] | None = None,
    max_training: int | None = None,
    seed: int = 0,
    backend: str = "local",
    ray_address: str | None = None,
    progress: ProgressFn | None = None,
    on_rows: RowsFn | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> CalibrationResult:
    """Run the leaky risk model on the measures and check the calibration contract.

    Parameters
    ----------
    real
        The real table (raw or canonical).
    threat
        The threat model every measure uses.
    holdout
        Optional further real rows; pooled with ``real`` before the split.
    schema
        Schema of ``real`` (inferred when omitted).
    measures
        Registry names of privacy measures; default every one. Every mode of a measure is
        calibrated (singling out: univariate and multivariate), or only the one a
        ``"measure:mode"`` key names.
    levels
        Leak fractions f_l in [0, 1]; the lowest is the floor, the highest the ceiling.
    ratios
        training:holdout size ratios (>= 1 means the holdout is that many times smaller).
    options
        ``{measure: {keyword: value}}`` passed to the measures, as on the Privacy page.
    max_training
        Cap on the training rows (bounds the time on large tables).
    seed
        Seed of the split, the releases and the measures.
    backend, ray_address
        ``"local"`` runs the cells one after another here; ``"ray"`` sends each cell to
        the Ray cluster at ``ray_address`` (``"local"`` starts one). Same rows either way
        (but their ``seconds``).
    progress, on_rows, should_stop
        Progress callback ``(fraction, message)``; callback with each finished cell's
        rows; checked between cells: True stops with the rows finished so far.

    Returns
    -------
    CalibrationResult

    Raises
    ------
    ParameterError
        Unknown or fidelity measures, bad levels or ratios.
    InsufficientDataError
        Too few rows for the split.
    """
    seed = check_seed(seed)
    check_choice("backend", backend, BACKENDS)
    levels = _check_grid("levels", levels, 0.0, 1.0, minimum=2)
    ratios = _check_grid("ratios", ratios, 1.0, 100.0, minimum=1)
    if max_training is not None:
        max_training = check_positive_int("max_training", max_training)
    targets = calibration_targets(measures)
    if not isinstance(threat, ThreatModel):
        raise ParameterError(f"`threat` must be a ThreatModel; got {type(threat).__name__}.")
    table = real if holdout is None else pd.concat([real, holdout], ignore_index=True)
    if schema is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schema = infer_schema(real)
    table = prepare_table(table, schema).reset_index(drop=True)
    threat.validate(schema, table)
    split_seed, release_seed, measure_seed = child_seeds(seed, 3)
    parts = calibration_tables(table, ratios=ratios, max_training=max_training, seed=split_seed)
    opts = {k: dict(v) for k, v in (options or {}).items()}
    for k in opts:
        get_measure(k)

    # one cell = one (level, measure, mode); measures that take no holdout are run once
    # per level and their value holds for every ratio
    cells = [(i, lv, m, md) for i, (lv, (m, md)) in enumerate(product(levels, targets))]
    total = sum(len(ratios) if _varies_with_holdout(m) else 1 for _, _, m, _ in cells)
    started = time.perf_counter()
    stopped = False
    context: dict[str, Any] = {
        "parts": parts,
        "releases": {},
        "schema": schema,
        "threat": threat,
        "opts": opts,
        "ratios": ratios,
        "release_seed": release_seed,
        "measure_seed": measure_seed,
    }
    by_cell: dict[int, list[dict[str, Any]]] = {}
    if backend == "local":
        done = 0

        def tick(message: str) -> None:
            nonlocal done
            if progress:
                progress(done / total, message)
            done += 1

        for cell in cells:
            if should_stop is not None and should_stop():
                stopped = True
                break
            _, by_cell[cell[0]] = _cell_task(cell, context, tick=tick)
            if on_rows is not None:
                on_rows(pd.DataFrame(by_cell[cell[0]], columns=ROW_COLUMNS))
    else:
        # every cell is a task on the cluster, with every level's leaky release made here
        # once; rows are put back in the local run's order
        for level in levels:
            _release_for(level, context)
        if progress:
            progress(0.0, f"{len(cells)} calibration cells on the Ray cluster")
        for index, cell_rows in map_unordered(
            _cell_task,
            cells,
            context=context,
            backend=backend,
            address=ray_address,
            should_stop=should_stop,
        ):
            by_cell[index] = cell_rows
            if progress:
                progress(len(by_cell) / len(cells), f"{len(by_cell)} of {len(cells)} cells done")
            if on_rows is not None:
                on_rows(pd.DataFrame(cell_rows, columns=ROW_COLUMNS))
        stopped = len(by_cell) < len(cells)
    rows = [row for index in sorted(by_cell) for row in by_cell[index]]
    if progress:
        progress(1.0, "stopped" if stopped else "done")
    unique = qi_unique_share(parts.training, threat)
    params = {
        "measures": [calibration_key(m, md) for m, md in targets],
        "n_training": len(parts.training),
        "n_pool": len(parts.pool),
        "n_holdout": {f"{r:g}": len(parts.holdout(r)) for r in ratios},
        "options": jsonable(opts),
        "max_training": max_training,
        "seed": seed,
        "qi_unique_share": unique,
        "seconds": time.perf_counter() - started,
        "contract": {
            "floor_max": FLOOR_MAX,
            "ceiling_min": CEILING_MIN,
            "ratio_gap_max": RATIO_GAP_MAX,
            "monotone_slack": MONOTONE_SLACK,
        },
    }
    return calibration_result(
        pd.DataFrame(rows, columns=ROW_COLUMNS),
        targets,
        levels=levels,
        ratios=ratios,
        seed=seed,
        n_real=len(table),
        params=params,
        stopped=stopped,
    )


def _release_for(level: float, context: dict[str, Any]) -> pd.DataFrame:
    """The leaky release at ``level``, made once per run (cached in ``context``)."""
    releases = context["releases"]
    if level not in releases:
        parts = context["parts"]
        releases[level] = leaky_release(
            parts.training,
            parts.pool,
            leak_fraction=level,
            schema=context["schema"],
            seed=context["release_seed"],
        ).release
    return releases[level]


def _cell_task(
    cell: tuple[int, float, str, str],
    context: dict[str, Any],
    tick: Callable[[str], None] | None = None,
) -> tuple[int, list[dict[str, Any]]]:
    """One calibration cell, (level, measure, mode) at every holdout ratio it varies
    with: a task of :func:`privacy_core.parallel.map_unordered`. ``tick(message)`` is
    called before each evaluation (the local run's progress)."""
    index, level, metric, mode = cell
    parts, ratios = context["parts"], context["ratios"]
    release = _release_for(level, context)
    spec = get_measure(metric)
    kwargs = {**context["opts"].get(metric, {}), **spec.mode_options(mode)}
    by_generator = getattr(spec, "evaluates", "release") == "generator"
    if by_generator:  # the shadow generators leak f_l of their own training rows
        kwargs.update(leaky_shadow_options(level))
    run_ratios = ratios if spec.varies_with_holdout else ratios[:1]
    cell_rows = []
    for ratio in run_ratios:
        # a measure of the generator draws its unseen rows from the release pool, the
        # same rows that fill the leaky releases; it has no holdout to vary
        hold = parts.pool if by_generator else parts.holdout(ratio)
        if tick is not None:
            tick(
                f"{spec.label}{'' if mode == 'default' else f' ({mode})'}: f_l = {level:g}, "
                f"ratio {ratio:g}:1"
            )
        t0 = time.perf_counter()
        value, lo, hi, note = _evaluate(
            parts.training,
            release,
            hold,
            metric,
            kwargs,
            context["threat"],
            context["schema"],
            context["measure_seed"],
        )
        seconds = time.perf_counter() - t0
        for r in ratios if len(run_ratios) == 1 else (ratio,):
            cell_rows.append(
                {
                    "metric": metric,
                    "mode": mode,
                    "ratio": float(r),
                    "level": float(level),
                    "value": value,
                    "ci_low": lo,
                    "ci_high": hi,
                    "n_training": len(parts.training),
                    "n_holdout": len(parts.holdout(r)) if len(run_ratios) > 1 else 0,
                    "n_release": len(release),
                    "seconds": seconds,
                    "note": note,
                }
            )
    return index, cell_rows


def calibration_result(
    rows: pd.DataFrame,
    targets: Sequence[tuple[str, str]],
    *,
    levels: Sequence[float],
    ratios: Sequence[float],
    seed: int,
    n_real: int,
    params: dict[str, Any],
    stopped: bool,
) -> CalibrationResult:
    """A :class:`CalibrationResult` from its rows: one summary per (measure, mode) target
    that has rows. Also builds the partial result of a run that was stopped (or cut off)
    from the rows it streamed; ``params["qi_unique_share"]``, when present, explains low
    ceilings (see :func:`summarise`)."""
    seen = {(m, md) for m, md in zip(rows["metric"], rows["mode"], strict=True)}
    unique = params.get("qi_unique_share")
    summaries = tuple(
        summarise(rows, m, md, unique_share=unique) for m, md in targets if (m, md) in seen
    )
    return CalibrationResult(
        rows=rows,
        summaries=summaries,
        levels=tuple(levels),
        ratios=tuple(ratios),
        seed=seed,
        n_real=n_real,
        params=params,
        stopped=stopped,
    )


def _varies_with_holdout(metric: str) -> bool:
    return get_measure(metric).varies_with_holdout


def _evaluate(
    training: pd.DataFrame,
    release: pd.DataFrame,
    holdout: pd.DataFrame,
    metric: str,
    kwargs: dict[str, Any],
    threat: ThreatModel,
    schema: Schema,
    seed: int,
) -> tuple[float, float, float, str]:
    res, note = evaluate_noted(
        training,
        release,
        name=metric,
        threat=threat,
        holdout=holdout,
        schema=schema,
        seed=seed,
        options=kwargs,
    )
    if res is None:
        return math.nan, math.nan, math.nan, note
    lo, hi = res.ci if res.ci is not None else (math.nan, math.nan)
    return float(res.value), float(lo), float(hi), note


__all__ = [
    "CEILING_MIN",
    "DEFAULT_LEVELS",
    "DEFAULT_RATIOS",
    "FLOOR_MAX",
    "RATIO_GAP_MAX",
    "CalibrationResult",
    "CalibrationSummary",
    "CalibrationTables",
    "calibrate",
    "calibration_key",
    "calibration_result",
    "calibration_tables",
    "calibration_targets",
    "qi_unique_share",
    "summarise",
]
