"""Risk-insertion experiments: insert a known amount of risk, watch each measure respond.

A *risk model* makes releases whose risk is controlled by a level:

* ``leaky`` (f_l in [0, 1]): the release copies a share f_l of the training records
  (:mod:`privacy_core.synth.leaky`); a measure that tracks the risk reads about f_l;
* ``overfit`` (f_o >= 1): the release comes from a neural generator stopped when its
  validation loss is f_o times its optimum L* (:mod:`privacy_core.synth.autoregressive`);
* ``dp`` (epsilon > 0): the release comes from a differentially private generator at
  budget epsilon (:mod:`privacy_core.synth.dp`); a larger epsilon is a weaker guarantee,
  so the inserted risk grows with epsilon.

:func:`sweep` runs every (level, replicate) of a risk model, evaluates the chosen
registered measures (:data:`privacy_core.measures.MEASURES`) on each release with the
training records as ``real`` and the control records as ``holdout`` (the control-set
baseline of every attack), and returns a :class:`SweepResult`: a tidy table with one row
per (level, replicate, measure) and methods for per-level summaries with intervals,
correlations of measures across levels and the command-line JSON.

Design
------
* Seeds: ``numpy.random.SeedSequence(seed)`` spawns one child per replicate; each
  replicate spawns the seeds of its data split, its measures, its generator training and
  one per level. A replicate's split and measure seeds are shared by its levels (common
  random numbers: the curves are smooth and differences between levels are the risk, not
  the split), replicates differ in everything. The same seed gives the same rows,
  whatever ``n_jobs``.
* Work: one task per (level, replicate) for ``leaky`` and ``dp``, one per replicate for
  ``overfit`` (one training run yields every f_o checkpoint). Tasks run in-process
  (``n_jobs=1``), on joblib's loky processes (``n_jobs`` != 1; one torch thread per
  worker) or on a Ray cluster (``backend="ray"`` with an
  ``address``; optional). Finished rows are handed to ``on_rows`` as they arrive and
  ``should_stop()`` is checked between tasks (and between epochs of an in-process
  training run): a stopped sweep returns the rows finished so far with ``stopped=True``.
* Robustness (``risk-insertion-framework.md`` §5.2-5.3): ``outlier_fraction`` removes the
  most outlying training records (sklearn's LocalOutlierFactor on the shared encoding)
  before the release is made, and the measures then see the reduced training set;
  ``canaries`` randomises the secret of that many training records before the release
  is made and adds, for each attribute-inference attack with per-target results
  (``inference``, ``ml_inference``), the attack's success rate on the canaries
  (``<measure>@canary``, with the chance rate as baseline) next to its success rate on
  the other training records (``<measure>@training``).

Notes
-----
``risk-insertion-framework.md`` §5 (risk models, baselines, outliers), §6.2 (levels:
f_l and f_o in steps of 0.2, epsilon in {1, 5, 10, 50, 100}), Appendix A (response
curves and correlation matrices), Appendix C (outlier removal), Appendix D (canary
records); ``contrastive-embeddings.md`` §4.2 (leaky evaluation with noise).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from .data import Schema, infer_schema, prepare_table
from .encoding import TableEncoder
from .errors import InsufficientDataError, ParameterError
from .evaluation import evaluate_noted, run_noted
from .measures import get_measure, measure_names, split_measure_key
from .parallel import effective_jobs, map_unordered
from .progress import ProgressFn
from .results import MetricResult, jsonable
from .stats import child_sequences, mean_interval, wilson_interval
from .synth import GENERATORS
from .synth.leaky import LeakNoise, leaky_release, leaky_shadow_options, leaky_split
from .threat import ThreatModel
from .validation import (
    check_choice,
    check_confidence,
    check_in_range,
    check_positive_int,
    check_seed,
)

RowsFn = Callable[[pd.DataFrame], None]

RISK_MODELS = ("leaky", "overfit", "dp")
LEVEL_NAMES = {"leaky": "f_l", "overfit": "f_o", "dp": "epsilon"}
DEFAULT_LEVELS: dict[str, tuple[float, ...]] = {
    "leaky": (0.0, 0.2, 0.4, 0.6, 0.8, 1.0),
    "overfit": (1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
    "dp": (1.0, 5.0, 10.0, 50.0, 100.0),
}
DP_GENERATORS = ("dp-mst", "dp-independent", "smartnoise-mst", "smartnoise-aim")
BACKENDS = ("local", "ray")
CANARY_MEASURES = ("inference", "ml_inference")
# How closely each measure reads the leak fraction under the leaky risk model, on a table
# whose records the attacker's columns pick out (the framework's worst case, every other
# column known; on coarser quasi-identifiers the QI attacks read less, see calibration):
# (ends, below, above) = |value - f_l| <= ends at f_l = 0 and 1, and
# f_l - below <= value <= f_l + above in between. Measured on the health demo (1,000
# training rows, 2 replicates) and UCI Adult (16,280 training rows): the linear measures
# stay within 0.06 of f_l at 0.5. Multivariate singling out is convex, not linear: a
# predicate that isolates a leaked record in the release can still match a training
# record that was *not* leaked (the release holds only a share f_l of them), and
# predicates from the release's other rows are known to miss every leaked record, so they
# single out a training record less often than a control record. Both effects vanish at
# f_l = 1 (the release is the training set), hence 0.32 at f_l = 0.5 on the demo and
# 0.09 / 0.41 at f_l = 0.2 / 0.6 on Adult with 3-column predicates (0.17 / 0.55 for the
# paper protocol's maximum over widths). Keys: registry name, ``singling_out:<mode>``.
LEAKY_TOLERANCE: dict[str, tuple[float, float, float]] = {
    "ims": (0.05, 0.05, 0.05),
    "dcr": (0.05, 0.05, 0.05),
    "knn": (0.05, 0.05, 0.05),
    "linkability": (0.05, 0.1, 0.1),
    "inference": (0.05, 0.1, 0.1),
    "ml_inference": (0.05, 0.1, 0.1),
    "singling_out:univariate": (0.05, 0.1, 0.1),
    "singling_out:multivariate": (0.05, 0.35, 0.05),
    "singling_out:paper": (0.06, 0.2, 0.05),
}

# Shares of the real data: (training, control, pool) for leaky, (training, control,
# validation) for overfit, (training, control) for dp.
SPLITS = {"leaky": (1 / 3, 1 / 3, 1 / 3), "overfit": (0.4, 0.4, 0.2), "dp": (0.5, 0.5)}

ROW_COLUMNS = [
    "risk_model",
    "level",
    "replicate",
    "measure",
    "value",
    "ci_low",
    "ci_high",
    "baseline",
    "goal",
    "generator",
    "f_l",
    "f_o",
    "epsilon",
    "reached",
    "achieved_ratio",
    "outlier_fraction",
    "n_training",
    "n_control",
    "n_release",
    "seed",
    "note",
]


# ============================================================================ result
@dataclass(frozen=True, eq=False)
class SweepResult:
    """The tidy result of a risk-insertion sweep.

    Attributes
    ----------
    rows
        One row per (outlier fraction, level, replicate, measure): ``value``, ``ci_low``,
        ``ci_high`` (the measure's own interval), ``baseline``, ``goal``, the level under
        its own name (``f_l``, ``f_o`` or ``epsilon``), ``generator``, ``reached`` (False
        for an overfit level the training never reached: its value is NaN),
        ``achieved_ratio`` (overfit: validation loss / L* of the checkpoint), sizes,
        the replicate's ``seed`` and a ``note`` (errors and warnings of that evaluation).
    curves
        Overfit only: ``{replicate: TrainingCurve}`` (train / validation loss per
        evaluation and the checkpoints).
    stopped
        True when ``should_stop`` ended the sweep early: ``rows`` then holds the tasks
        finished so far.
    """

    rows: pd.DataFrame
    risk_model: str
    levels: tuple[float, ...]
    measures: tuple[str, ...]
    replicates: int
    seed: int
    params: dict[str, Any] = field(default_factory=dict)
    curves: dict[Any, Any] = field(default_factory=dict)
    stopped: bool = False
    n_tasks: int = 0
    n_done: int = 0
    n_real: int = 0

    @property
    def level_name(self) -> str:
        return LEVEL_NAMES[self.risk_model]

    def to_frame(self) -> pd.DataFrame:
        """A copy of the tidy rows."""
        return self.rows.copy()

    def summary(self, *, confidence: float = 0.95) -> pd.DataFrame:
        """Mean and interval per (outlier fraction, level, measure).

        With two or more finite replicate values the interval is mean ± t_{k-1}·sd/√k
        over replicates (Student t with k - 1 degrees of freedom,
        :func:`privacy_core.stats.mean_interval`); with one it is that replicate's own
        interval. Columns: outlier_fraction, level, measure, mean, sd,
        n, ci_low, ci_high, reached (share of replicates that reached the level).
        """
        check_confidence(confidence)
        out = []
        if self.rows.empty:
            return pd.DataFrame(
                columns=[
                    "outlier_fraction",
                    "level",
                    "measure",
                    "mean",
                    "sd",
                    "n",
                    "ci_low",
                    "ci_high",
                    "reached",
                ]
            )
        for (frac, level, measure), g in self.rows.groupby(
            ["outlier_fraction", "level", "measure"], sort=True
        ):
            v = g["value"].to_numpy(dtype=float)
            finite = np.isfinite(v)
            k = int(finite.sum())
            mean = float(v[finite].mean()) if k else float("nan")
            sd = float(v[finite].std(ddof=1)) if k > 1 else float("nan")
            if k > 1:
                lo, hi = mean_interval(v[finite], confidence=confidence)
            elif k == 1:
                row = g[finite].iloc[0]
                lo, hi = float(row["ci_low"]), float(row["ci_high"])
            else:
                lo = hi = float("nan")
            out.append(
                {
                    "outlier_fraction": frac,
                    "level": level,
                    "measure": measure,
                    "mean": mean,
                    "sd": sd,
                    "n": k,
                    "ci_low": lo,
                    "ci_high": hi,
                    "reached": float(g["reached"].astype(float).mean()),
                }
            )
        return pd.DataFrame(out)

    def responses(self) -> pd.DataFrame:
        """How each measure responds to the inserted risk (one row per measure).

        Columns: ``measure``; ``at_lowest`` and ``at_highest`` (mean at the smallest and
        largest level reached); ``slope`` (least-squares slope of the per-level means on
        the level, on log10 epsilon for ``dp``); ``rank_correlation`` (Spearman's rho of
        means and levels: +1 = rises steadily with the level; for ``dp`` the level is the
        privacy budget epsilon, and a larger epsilon is weaker privacy, so the risk rises
        as epsilon grows and +1 is again the expected response of a risk measure);
        ``max_gap_to_ideal`` (leaky only: max |mean - f_l|, 0 = reads the
        inserted leak exactly); ``within_tolerance`` (leaky only: every level's mean
        inside the measure's :data:`LEAKY_TOLERANCE` band; NaN for a measure without
        one); ``levels`` (levels with a value).
        """
        summary = self.summary()
        if not summary.empty:
            summary = summary[summary["outlier_fraction"] == summary["outlier_fraction"].min()]
        out = []
        for measure, g in summary.groupby("measure", sort=False):
            g = g[np.isfinite(g["mean"].to_numpy(float))].sort_values("level")
            x = g["level"].to_numpy(float)
            y = g["mean"].to_numpy(float)
            xs = np.log10(x) if self.risk_model == "dp" else x
            slope = rho = float("nan")
            if len(x) >= 2 and np.ptp(xs) > 0:
                slope = float(np.polyfit(xs, y, 1)[0])
                if np.ptp(y) > 0:
                    rho = float(pd.Series(xs).corr(pd.Series(y), method="spearman"))
            gap = (
                float(np.max(np.abs(y - x)))
                if self.risk_model == "leaky" and len(x)
                else float("nan")
            )
            within: float | bool = float("nan")
            band = LEAKY_TOLERANCE.get(self.tolerance_key(measure))
            if self.risk_model == "leaky" and band is not None and len(x):
                within = bool(np.all(leaky_within(x, y, band)))
            out.append(
                {
                    "measure": measure,
                    "at_lowest": float(y[0]) if len(y) else float("nan"),
                    "at_highest": float(y[-1]) if len(y) else float("nan"),
                    "slope": slope,
                    "rank_correlation": rho,
                    "max_gap_to_ideal": gap,
                    "within_tolerance": within,
                    "levels": len(x),
                }
            )
        return pd.DataFrame(
            out,
            columns=[
                "measure",
                "at_lowest",
                "at_highest",
                "slope",
                "rank_correlation",
                "max_gap_to_ideal",
                "within_tolerance",
                "levels",
            ],
        )

    def tolerance_key(self, measure: str) -> str:
        """The :data:`LEAKY_TOLERANCE` key of a measure in this sweep (singling out by the
        mode it ran in)."""
        if measure != "singling_out":
            return measure
        mode = (self.params.get("options", {}).get("singling_out", {}) or {}).get(
            "mode", "multivariate"
        )
        return f"singling_out:{mode}"

    def correlations(self, *, method: str = "pearson") -> pd.DataFrame:
        """Correlation of measures across the sweep (measures x measures).

        Each (outlier fraction, level, replicate) release is one observation; measures
        constant over the sweep (no response) give NaN. ``method``: pearson, spearman or
        kendall.

        Notes
        -----
        ``risk-insertion-framework.md`` Appendix A, Figures 7-11.
        """
        check_choice("method", method, ("pearson", "spearman", "kendall"))
        if self.rows.empty:
            return pd.DataFrame()
        wide = self.rows.pivot_table(
            index=["outlier_fraction", "level", "replicate"],
            columns="measure",
            values="value",
            aggfunc="mean",
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return wide.corr(method=method)

    def to_dict(self) -> dict[str, Any]:
        """``{"rows": [{"level", "replicate", "metric", "value", "ci"}]}`` (DESIGN.md)."""
        rows = []
        for r in self.rows.itertuples(index=False):
            ci = None
            if np.isfinite(r.ci_low) and np.isfinite(r.ci_high):
                ci = [float(r.ci_low), float(r.ci_high)]
            rows.append(
                {
                    "level": float(r.level),
                    "replicate": int(r.replicate),
                    "metric": str(r.measure),
                    "value": r.value,
                    "ci": ci,
                }
            )
        return jsonable({"rows": rows})


def leaky_within(
    levels: np.ndarray, values: np.ndarray, band: tuple[float, float, float]
) -> np.ndarray:
    """Per level, whether a value lies in its :data:`LEAKY_TOLERANCE` band around f_l."""
    ends, below, above = band
    x, y = np.asarray(levels, dtype=float), np.asarray(values, dtype=float)
    edge = np.isclose(x, 0.0) | np.isclose(x, 1.0)
    return np.where(
        edge, np.abs(y - x) <= ends + 1e-12, (y >= x - below - 1e-12) & (y <= x + above + 1e-12)
    )


# ============================================================================ tasks
@dataclass(frozen=True)
class _Task:
    replicate: int
    level_indices: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class _Context:
    real: pd.DataFrame
    schema: Schema
    threat: ThreatModel
    risk_model: str
    levels: tuple[float, ...]
    measures: tuple[str, ...]
    options: dict[str, dict[str, Any]]
    noise: LeakNoise
    generator: str
    generator_params: dict[str, Any]
    overfit_params: dict[str, Any]
    outlier_fraction: float
    canaries: int
    # Per replicate: split, measure, train and canary seeds, then one per level.
    replicate_seeds: tuple[tuple[int, ...], ...]
    threads: int


def _replicate_seeds(seed: int, replicates: int, n_levels: int) -> tuple[tuple[int, ...], ...]:
    out = []
    for child in child_sequences(seed, replicates):
        out.append(tuple(int(c.generate_state(1)[0]) for c in child.spawn(4 + n_levels)))
    return tuple(out)


def _split(ctx: _Context, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None]:
    """(training, control, third) of one replicate: pool (leaky), validation (overfit)."""
    if ctx.risk_model == "leaky":
        three = leaky_split(ctx.real, fractions=(1 / 3, 1 / 3, 1 / 3), seed=seed)
        return three.training, three.control, three.pool
    order = np.random.default_rng(seed).permutation(len(ctx.real))
    fr = SPLITS[ctx.risk_model]
    cuts = np.floor(np.cumsum(fr)[:-1] * len(ctx.real)).astype(int)
    parts = [ctx.real.iloc[np.sort(p)] for p in np.split(order, cuts)]
    if min(len(p) for p in parts) < 2:
        raise InsufficientDataError(
            f"The real table has {len(ctx.real)} rows: too few to split into "
            f"{len(parts)} parts for the {ctx.risk_model} risk model."
        )
    return parts[0], parts[1], parts[2] if len(parts) > 2 else None


def remove_outliers(
    training: pd.DataFrame, *, fraction: float, schema: Schema, n_neighbors: int = 20
) -> tuple[pd.DataFrame, np.ndarray]:
    """Drop the ``fraction`` most outlying rows by Local Outlier Factor.

    LOF runs on the engine's shared encoding (min-max numerics, one-hot categoricals)
    fitted on ``training``.

    Returns
    -------
    kept, removed
        The remaining rows and the index labels of the removed ones.

    Notes
    -----
    ``risk-insertion-framework.md`` §5.2.1 and Appendix C (LOF on contrastive
    embeddings there; on the shared encoding here).
    """
    fraction = check_in_range("outlier_fraction", fraction, 0, 0.5, high_inclusive=False)
    k = round(fraction * len(training))
    if k == 0:
        return training, np.array([], dtype=training.index.dtype)
    from sklearn.neighbors import LocalOutlierFactor

    enc = TableEncoder(schema, columns=list(training.columns)).fit(training)
    X = enc.transform(training)
    lof = LocalOutlierFactor(n_neighbors=min(n_neighbors, len(training) - 1))
    lof.fit(X)
    # Most negative negative_outlier_factor_ = most outlying; stable order for ties.
    order = np.argsort(lof.negative_outlier_factor_, kind="stable")
    drop = np.sort(order[:k])
    keep = np.setdiff1d(np.arange(len(training)), drop)
    return training.iloc[keep], training.index.to_numpy()[drop]


def insert_canaries(
    training: pd.DataFrame, *, n: int, target: str, schema: Schema, seed: int
) -> tuple[pd.DataFrame, np.ndarray]:
    """Randomise the secret of ``n`` training records (the canaries).

    The new value is drawn uniformly over the range of the target in ``training``: one of
    its levels (categorical) or a uniform value between its minimum and maximum
    (numeric; rounded for integers), so no general correlation can predict it.

    Returns
    -------
    training, canary_labels
        The modified training table and the index labels of the canaries.

    Notes
    -----
    ``risk-insertion-framework.md`` §5.3.3, equation 9 and Appendix D.
    """
    n = check_positive_int("canaries", n)
    if n > len(training):
        raise ParameterError(
            f"`canaries` must be at most the {len(training)} training records; got {n}."
        )
    rng = np.random.default_rng(seed)
    pos = np.sort(rng.choice(len(training), size=n, replace=False))
    out = training.copy()
    col = out.columns.get_loc(target)
    if schema[target].is_numeric:
        x = training[target].to_numpy(dtype=float)
        finite = x[np.isfinite(x)]
        values = rng.uniform(finite.min(), finite.max(), size=n)
        if schema[target].integer:
            values = np.rint(values)
    else:
        levels = np.array(sorted(map(str, pd.unique(training[target]))), dtype=object)
        values = levels[rng.integers(0, len(levels), size=n)]
    out.iloc[pos, col] = values
    return out, training.index.to_numpy()[pos]


def _canary_rows(
    result: MetricResult, canary_labels: np.ndarray, target_levels: int | None
) -> list[dict[str, Any]]:
    rec = result.records
    if rec is None or not {"role", "success", "record"} <= set(rec.columns):
        return []
    train = rec[rec["role"] == "training"]
    is_canary = train["record"].isin(canary_labels).to_numpy()
    out = []
    for suffix, mask, base in (("canary", is_canary, None), ("training", ~is_canary, None)):
        s = train["success"].to_numpy(dtype=float)[mask]
        k, n = float(s.sum()), int(mask.sum())
        if n == 0:
            continue
        lo, hi = wilson_interval(k, n)
        chance = (1.0 / target_levels) if (suffix == "canary" and target_levels) else base
        out.append(
            {
                "measure": f"{result.name}@{suffix}",
                "value": k / n,
                "ci_low": lo,
                "ci_high": hi,
                "baseline": chance,
                "goal": "lower",
                "note": f"{n} {suffix} targets",
            }
        )
    return out


def _shadow_options(
    ctx: _Context, level: float, pool: pd.DataFrame | None, control: pd.DataFrame
) -> tuple[dict[str, Any] | None, pd.DataFrame, str]:
    """How a measure of the *generator* (the membership disclosure score) sees this risk
    level: its shadow models are the sweep's own generator at that level. Returns the
    options (None when it cannot run here), the unseen rows it draws its references
    from, and a note."""
    if ctx.risk_model == "leaky":
        return leaky_shadow_options(level, ctx.noise), pool if pool is not None else control, ""
    if ctx.risk_model == "dp" and ctx.generator in GENERATORS:
        return (
            {
                "shadow_method": ctx.generator,
                "shadow_params": {**ctx.generator_params, "epsilon": float(level)},
            },
            control,
            "",
        )
    return None, control, f"not run: {ctx.generator} is not a built-in generator"


def _overfit_shadow_results(
    ctx: _Context,
    training: pd.DataFrame,
    control: pd.DataFrame,
    levels: list[float],
    seed: int,
    should_stop: Callable[[], bool] | None = None,
) -> dict[str, dict[float, tuple[MetricResult | None, str]]]:
    """The generator measures (MDS) of an overfit task, every level at once: each shadow
    is the sweep's autoregressive generator, trained once past its optimum on its half
    (validation loss on the control rows) and sampled at each level's checkpoint."""
    from .risk.mds import mds_overfit_levels

    out: dict[str, dict[float, tuple[MetricResult | None, str]]] = {}
    for key in ctx.measures:
        spec, options = _key_options(ctx, key)
        if spec.evaluates != "generator":
            continue
        options.pop("shadow_method", None)
        options["shadow_params"] = {**ctx.overfit_params, **options.get("shadow_params", {})}
        by_level, note = run_noted(
            partial(
                mds_overfit_levels,
                training,
                levels,
                holdout=control,
                schema=ctx.schema,
                seed=seed,
                should_stop=should_stop,
                **options,
            )
        )
        out[key] = {lv: ((by_level or {}).get(lv), note) for lv in levels}
    return out


def _key_options(ctx: _Context, key: str) -> tuple[Any, dict[str, Any]]:
    """The registry spec of a measure key ("dcr:contrastive": a measure in one of its
    registered modes) and its options: the sweep's, then the mode's."""
    name, mode, _ = split_measure_key(key)
    spec = get_measure(name)
    options = dict(ctx.options.get(name, {}))
    if mode:
        options.update(spec.mode_options(mode))
    return spec, options


def _evaluate(
    ctx: _Context,
    training: pd.DataFrame,
    control: pd.DataFrame,
    release: pd.DataFrame,
    seed: int,
    canary_labels: np.ndarray | None,
    level: float = 0.0,
    pool: pd.DataFrame | None = None,
    computed: dict[str, tuple[MetricResult | None, str]] | None = None,
) -> list[dict[str, Any]]:
    """One row per measure key on one release; ``computed`` holds results made
    elsewhere (the overfit model's shadow measures, all levels at once)."""
    rows = []
    target = ctx.threat.target
    levels_t = None if ctx.schema[target].is_numeric else len(pd.unique(training[target]))
    for key in ctx.measures:
        spec, options = _key_options(ctx, key)  # a measure in a mode: a row of its own
        holdout = control
        if computed is not None and key in computed:
            res, note = computed[key]
            rows.append(_row(key, res, note))
            continue
        if getattr(spec, "evaluates", "release") == "generator":
            shadow, holdout, why = _shadow_options(ctx, level, pool, control)
            if shadow is None:
                rows.append(_row(key, None, why))
                continue
            options.update(shadow)
        if canary_labels is not None and key in CANARY_MEASURES:
            options.setdefault("n_attacks", None)  # attack every record, canaries included
        # Fidelity measures that take no threat model are called without one.
        res, note = evaluate_noted(
            training,
            release,
            name=spec.name,
            threat=ctx.threat if spec.needs_threat else None,
            holdout=holdout,
            schema=ctx.schema,
            seed=seed,
            options=options,
        )
        rows.append(_row(key, res, note))
        if res is not None and canary_labels is not None and key in CANARY_MEASURES:
            rows.extend(_canary_rows(res, canary_labels, levels_t))
    return rows


def _row(key: str, res: MetricResult | None, note: str) -> dict[str, Any]:
    if res is None:
        return {
            "measure": key,
            "value": float("nan"),
            "ci_low": float("nan"),
            "ci_high": float("nan"),
            "baseline": float("nan"),
            "goal": "",
            "note": note,
        }
    lo, hi = res.ci if res.ci is not None else (float("nan"), float("nan"))
    return {
        "measure": key,
        "value": float(res.value),
        "ci_low": float(lo),
        "ci_high": float(hi),
        "baseline": float("nan") if res.baseline is None else float(res.baseline),
        "goal": res.goal,
        "note": note,
    }


def _prepare_training(
    ctx: _Context, training: pd.DataFrame, seeds: tuple[int, ...]
) -> tuple[pd.DataFrame, np.ndarray | None]:
    if ctx.outlier_fraction > 0:
        training, _ = remove_outliers(training, fraction=ctx.outlier_fraction, schema=ctx.schema)
    canary_labels = None
    if ctx.canaries:
        training, canary_labels = insert_canaries(
            training, n=ctx.canaries, target=ctx.threat.target, schema=ctx.schema, seed=seeds[3]
        )
    return training, canary_labels


def _base_row(
    ctx: _Context,
    replicate: int,
    level: float,
    seeds: tuple[int, ...],
    training: pd.DataFrame,
    control: pd.DataFrame,
    n_release: int,
) -> dict[str, Any]:
    return {
        "risk_model": ctx.risk_model,
        "level": float(level),
        "replicate": replicate,
        "generator": ctx.generator,
        "f_l": float(level) if ctx.risk_model == "leaky" else float("nan"),
        "f_o": float(level) if ctx.risk_model == "overfit" else float("nan"),
        "epsilon": float(level) if ctx.risk_model == "dp" else float("nan"),
        "reached": True,
        "achieved_ratio": float("nan"),
        "outlier_fraction": ctx.outlier_fraction,
        "n_training": len(training),
        "n_control": len(control),
        "n_release": n_release,
        "seed": seeds[0],
    }


def _make_dp_generator(ctx: _Context, epsilon: float):
    from .synth.dp import DPMarginalGenerator, SmartNoiseGenerator

    params = dict(ctx.generator_params)
    if ctx.generator == "dp-mst":
        return DPMarginalGenerator(epsilon, structure="mst", **params)
    if ctx.generator == "dp-independent":
        return DPMarginalGenerator(epsilon, structure="independent", **params)
    return SmartNoiseGenerator(epsilon, method=ctx.generator.split("-", 1)[1], **params)


def _run_task(
    task: _Task,
    ctx: _Context,
    on_epoch: Callable[[dict], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> tuple[_Task, list[dict[str, Any]], Any]:
    """Make and evaluate the releases of one task; returns its rows (and a curve)."""
    from .synth.autoregressive import AutoregressiveGenerator, torch_threads

    seeds = ctx.replicate_seeds[task.replicate]
    split_seed, measure_seed, train_seed = seeds[:3]
    training, control, third = _split(ctx, split_seed)
    training, canary_labels = _prepare_training(ctx, training, seeds)
    rows: list[dict[str, Any]] = []
    curve = None
    shadow_results: dict[str, dict[float, tuple[MetricResult | None, str]]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if ctx.risk_model == "overfit":
            levels = [ctx.levels[i] for i in task.level_indices]
            gen = AutoregressiveGenerator(
                overfit_levels=levels, threads=ctx.threads, **ctx.overfit_params
            )
            gen.fit(
                training,
                seed=train_seed,
                validation=third,
                on_epoch=on_epoch,
                should_stop=should_stop,
            )
            curve = gen.curve
            shadow_results = _overfit_shadow_results(
                ctx, training, control, levels, measure_seed, should_stop
            )
        with torch_threads(ctx.threads):
            for i in task.level_indices:
                level = ctx.levels[i]
                level_seed = seeds[4 + i]
                n_release = len(training)
                note = ""
                if ctx.risk_model == "leaky":
                    release = leaky_release(
                        training,
                        third,
                        leak_fraction=level,
                        noise=ctx.noise,
                        schema=ctx.schema,
                        seed=level_seed,
                    ).release
                elif ctx.risk_model == "overfit":
                    ckpt = gen.curve.checkpoint(level)
                    if not ckpt.reached:
                        base = _base_row(ctx, task.replicate, level, seeds, training, control, 0)
                        note = (
                            f"unreached: the validation loss never rose to f_o x L* = "
                            f"{ckpt.target_loss:.4f} within the epoch budget"
                        )
                        rows.extend(
                            {
                                **base,
                                "reached": False,
                                "measure": m,
                                "value": float("nan"),
                                "ci_low": float("nan"),
                                "ci_high": float("nan"),
                                "baseline": float("nan"),
                                "goal": "",
                                "note": note,
                            }
                            for m in ctx.measures
                        )
                        continue
                    release = gen.sample(n_release, seed=level_seed, level=level)
                else:
                    dp_gen = _make_dp_generator(ctx, level).fit(training, seed=level_seed)
                    release = dp_gen.sample(n_release, seed=level_seed)
                base = _base_row(ctx, task.replicate, level, seeds, training, control, len(release))
                if ctx.risk_model == "overfit":
                    base["achieved_ratio"] = gen.curve.checkpoint(level).ratio
                if ctx.risk_model == "dp" and ctx.generator.startswith("smartnoise"):
                    note = "not seed-reproducible (OpenDP noise)"
                computed = (
                    {k: v[level] for k, v in shadow_results.items()}
                    if ctx.risk_model == "overfit"
                    else None
                )
                for r in _evaluate(
                    ctx,
                    training,
                    control,
                    release,
                    measure_seed,
                    canary_labels,
                    level=level,
                    pool=third,
                    computed=computed,
                ):
                    if note:
                        r["note"] = "; ".join(x for x in (note, r["note"]) if x)
                    rows.append({**base, **r})
    return task, rows, curve


# ============================================================================ runners
def _run_local(
    tasks: list[_Task],
    ctx: _Context,
    jobs: int,
    should_stop: Callable[[], bool] | None,
    on_epoch: Callable[[_Task, dict], None] | None,
) -> Iterator[tuple]:
    if jobs == 1:  # in process: the overfit model reports its epochs and can stop mid-fit
        for task in tasks:
            if should_stop is not None and should_stop():
                return
            yield _run_task(
                task,
                ctx,
                on_epoch=None if on_epoch is None else partial(on_epoch, task),
                should_stop=should_stop,
            )
        return
    yield from map_unordered(_run_task, tasks, context=ctx, n_jobs=jobs, should_stop=should_stop)


def _run_ray(
    tasks: list[_Task], ctx: _Context, address: str | None, should_stop: Callable[[], bool] | None
) -> Iterator[tuple]:
    # The context (the real table) goes into the object store; a Ray started here
    # ("local") gets spilling to disk turned off (privacy_core.parallel). A cluster joined by
    # address keeps its own setting: start its head with
    # --system-config='{"automatic_object_spilling_enabled": false}'. The app never takes
    # this path (the lab runs backend="local").
    yield from map_unordered(
        _run_task, tasks, context=ctx, backend="ray", address=address, should_stop=should_stop
    )


# ============================================================================ sweep
def sweep(
    real: pd.DataFrame,
    *,
    risk_model: str,
    levels: Sequence[float] | None = None,
    measures: Sequence[str] | None = None,
    replicates: int = 3,
    threat: ThreatModel,
    seed: int = 0,
    noise: LeakNoise | dict | None = None,
    schema: Schema | None = None,
    generator: str | None = None,
    generator_params: dict[str, Any] | None = None,
    overfit_params: dict[str, Any] | None = None,
    outlier_fraction: float = 0.0,
    canaries: int = 0,
    options: dict[str, dict[str, Any]] | None = None,
    n_jobs: int = -1,
    backend: str = "local",
    address: str | None = None,
    progress: ProgressFn | None = None,
    on_rows: RowsFn | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> SweepResult:
    """Run a risk-insertion experiment: releases at each level, measures on each release.

    Parameters
    ----------
    real
        All real records available (raw or canonical); each replicate splits them
        (seeded) into training, control and, for ``leaky``, a release pool (thirds) or,
        for ``overfit``, a validation set (40/40/20 %); ``dp`` uses halves.
    risk_model
        ``leaky``, ``overfit`` or ``dp``.
    levels
        f_l in [0, 1], f_o >= 1 or epsilon > 0; defaults :data:`DEFAULT_LEVELS`.
    measures
        Registry names (:func:`privacy_core.measures.measure_names`); default the fast
        privacy measures.
    replicates
        Independent repetitions (different split, release and measure seeds).
    threat
        The threat model of the measures.
    seed
        Root seed; recorded per row as the replicate's split seed.
    noise
        ``leaky`` only: :class:`~privacy_core.synth.leaky.LeakNoise` on inserted records.
    schema
        Schema of ``real`` (inferred when omitted).
    generator, generator_params
        ``dp`` only: one of :data:`DP_GENERATORS` (default ``dp-mst``) and its keyword
        arguments (e.g. ``bounds``, ``n_bins``).
    overfit_params
        ``overfit`` only: keyword arguments of
        :class:`~privacy_core.synth.autoregressive.AutoregressiveGenerator`.
    outlier_fraction
        Share of training records removed by LOF before the release is made (0 = none).
    canaries
        Number of training records whose secret is randomised (0 = no canary baseline).
    options
        ``{measure: {keyword: value}}`` passed to the measures. By default the
        linkability attack links two halves of *all* columns (the paper's A1 ∪ A2 = all
        attributes), split by :func:`~privacy_core.risk.attacks.informative_split`, rather
        than two halves of the quasi-identifiers.
    n_jobs
        Parallel workers (-1 = all cores, 1 = in-process).
    backend
        ``local`` (joblib / in-process) or ``ray`` (needs ``address``).
    progress
        ``progress(fraction, message)`` after every task (and epoch, in-process).
    on_rows
        Called with each finished task's rows (a DataFrame) as they arrive.
    should_stop
        Checked between tasks; True ends the sweep with the rows finished so far.

    Returns
    -------
    SweepResult

    Raises
    ------
    ParameterError
        Unknown risk model, measure, generator or backend; a level out of range.
    ThreatModelError, InsufficientDataError
        From the data checks.

    Notes
    -----
    ``risk-insertion-framework.md`` §5-6 and Appendices A, C, D.
    """
    risk_model = check_choice("risk_model", risk_model, RISK_MODELS)
    seed = check_seed(seed)
    replicates = check_positive_int("replicates", replicates)
    check_choice("backend", backend, BACKENDS)
    levels = _check_levels(risk_model, DEFAULT_LEVELS[risk_model] if levels is None else levels)
    measures = tuple(measure_names("privacy", fast_only=True) if measures is None else measures)
    if not measures:
        raise ParameterError("Choose at least one measure (see measure_names()).")
    for m in measures:  # a name, or name:mode for one of its registered modes
        name, mode, _ = split_measure_key(m)
        if mode:
            get_measure(name).mode_options(mode)
        else:
            get_measure(name)
    if len(set(measures)) != len(measures):
        raise ParameterError(f"`measures` repeats a name: {list(measures)}.")
    outlier_fraction = check_in_range(
        "outlier_fraction", outlier_fraction, 0, 0.5, high_inclusive=False
    )
    canaries = check_positive_int("canaries", canaries, minimum=0)
    if risk_model != "leaky" and noise is not None:
        raise ParameterError("`noise` applies to the leaky risk model only.")
    if risk_model == "dp":
        generator = check_choice("generator", generator or "dp-mst", DP_GENERATORS)
    elif generator is not None:
        raise ParameterError(
            "`generator` applies to the dp risk model only (the leaky and "
            "overfit models have their own)."
        )
    else:
        generator = "leaky" if risk_model == "leaky" else "autoregressive"
    if not isinstance(threat, ThreatModel):
        raise ParameterError(f"`threat` must be a ThreatModel; got {type(threat).__name__}.")
    if schema is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schema = infer_schema(real)
    real_c = prepare_table(real, schema).reset_index(drop=True)
    threat.validate(schema, real_c)
    opts = _default_options(schema, real_c)
    for k, v in (options or {}).items():
        get_measure(k)
        opts[k] = {**opts.get(k, {}), **v}

    tasks = (
        [_Task(r, tuple(range(len(levels)))) for r in range(replicates)]
        if risk_model == "overfit"
        else [_Task(r, (i,)) for i in range(len(levels)) for r in range(replicates)]
    )
    jobs = 1 if backend == "local" and n_jobs == 1 else effective_jobs(n_jobs, len(tasks))
    # One torch thread per task: the generator's matrices are too small to gain from more
    # (see synth.autoregressive.default_threads); parallelism is across tasks.
    threads = 1
    ctx = _Context(
        real=real_c,
        schema=schema,
        threat=threat,
        risk_model=risk_model,
        levels=levels,
        measures=measures,
        options=opts,
        noise=LeakNoise.coerce(noise),
        generator=generator,
        generator_params=dict(generator_params or {}),
        overfit_params=dict(overfit_params or {}),
        outlier_fraction=outlier_fraction,
        canaries=canaries,
        replicate_seeds=_replicate_seeds(seed, replicates, len(levels)),
        threads=threads,
    )
    if risk_model == "overfit":
        _check_overfit_params(ctx.overfit_params)

    rows: list[dict[str, Any]] = []
    curves: dict[int, Any] = {}
    done = 0
    started = time.perf_counter()

    def epoch_progress(task: _Task, row: dict) -> None:
        if progress is None:
            return
        top = max(levels)
        sub = (
            0.0
            if row["phase"] == "fit"
            else min(max((row["ratio"] - 1) / max(top - 1, 1e-9), 0.0), 1.0) * 0.9
        )
        progress(
            (done + sub) / len(tasks),
            f"replicate {task.replicate + 1}: {row['phase']} epoch {row['epoch']:.1f}, "
            f"validation loss / L* = {row['ratio']:.2f}",
        )

    if progress:
        progress(0.0, f"{len(tasks)} task(s) on {jobs} worker(s)")
    runner = (
        _run_ray(tasks, ctx, address, should_stop)
        if backend == "ray"
        else _run_local(tasks, ctx, jobs, should_stop, epoch_progress)
    )
    for task, task_rows, curve in runner:
        done += 1
        rows.extend(task_rows)
        if curve is not None:
            curves[task.replicate] = curve
        if on_rows is not None and task_rows:
            on_rows(_frame(task_rows))
        if progress:
            levels_txt = ", ".join(f"{levels[i]:g}" for i in task.level_indices)
            progress(
                done / len(tasks),
                f"{done}/{len(tasks)} done (replicate "
                f"{task.replicate + 1}, {LEVEL_NAMES[risk_model]} = "
                f"{levels_txt})",
            )
    stopped = done < len(tasks)
    frame = _frame(rows)
    params = {
        "risk_model": risk_model,
        "level_name": LEVEL_NAMES[risk_model],
        "generator": generator,
        "noise": ctx.noise.to_dict(),
        "outlier_fraction": outlier_fraction,
        "canaries": canaries,
        "options": jsonable(opts),
        "splits": list(SPLITS[risk_model]),
        "overfit_params": ctx.overfit_params,
        "generator_params": jsonable(ctx.generator_params),
        "n_jobs": jobs,
        "backend": backend,
        "seconds": time.perf_counter() - started,
    }
    return SweepResult(
        rows=frame,
        risk_model=risk_model,
        levels=levels,
        measures=measures,
        replicates=replicates,
        seed=seed,
        params=params,
        curves=curves,
        stopped=stopped,
        n_tasks=len(tasks),
        n_done=done,
        n_real=len(real_c),
    )


def outlier_sweep(
    real: pd.DataFrame,
    *,
    fractions: Sequence[float] = (0.0, 0.01, 0.02, 0.05, 0.10),
    levels: Sequence[float] = (1.0, 1.6),
    **kwargs: Any,
) -> SweepResult:
    """The overfit risk model repeated after removing each fraction of LOF outliers.

    Rows carry ``outlier_fraction``; :meth:`SweepResult.summary` groups by it. Other
    keyword arguments go to :func:`sweep` (``risk_model`` is ``overfit``).

    Notes
    -----
    ``risk-insertion-framework.md`` §5.2.1 and Appendix C (f_o = 1 and 1.6; 1, 2, 5 and
    10 % of the records removed).
    """
    if "risk_model" in kwargs or "outlier_fraction" in kwargs:
        raise ParameterError("outlier_sweep sets risk_model and outlier_fraction itself.")
    parts = [
        sweep(real, risk_model="overfit", levels=levels, outlier_fraction=f, **kwargs)
        for f in fractions
    ]
    first = parts[0]
    rows = pd.concat([p.rows for p in parts], ignore_index=True)
    curves = {(p.params["outlier_fraction"], r): c for p in parts for r, c in p.curves.items()}
    return SweepResult(
        rows=rows,
        risk_model="overfit",
        levels=first.levels,
        measures=first.measures,
        replicates=first.replicates,
        seed=first.seed,
        params={**first.params, "outlier_fractions": list(fractions)},
        curves=curves,
        stopped=any(p.stopped for p in parts),
        n_tasks=sum(p.n_tasks for p in parts),
        n_done=sum(p.n_done for p in parts),
        n_real=first.n_real,
    )


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=ROW_COLUMNS)
    if frame.empty:
        return frame
    frame = frame.sort_values(
        ["outlier_fraction", "level", "replicate", "measure"], kind="stable"
    ).reset_index(drop=True)
    frame["reached"] = frame["reached"].astype(bool)
    frame["note"] = frame["note"].fillna("")
    return frame


def _check_levels(risk_model: str, levels: Sequence[float]) -> tuple[float, ...]:
    try:
        values = [float(v) for v in levels]
    except (TypeError, ValueError):
        raise ParameterError(f"`levels` must be numbers; got {levels!r}.") from None
    if not values:
        raise ParameterError("`levels` must hold at least one level.")
    name = LEVEL_NAMES[risk_model]
    for v in values:
        if risk_model == "leaky":
            check_in_range(f"level {name}", v, 0, 1)
        elif risk_model == "overfit":
            check_in_range(f"level {name}", v, 1, 100)
        else:
            check_in_range(f"level {name}", v, 0, math.inf, low_inclusive=False)
    if len(set(values)) != len(values):
        raise ParameterError(f"`levels` repeats a value: {values}.")
    return tuple(sorted(values))


def _check_overfit_params(params: dict[str, Any]) -> None:
    from .synth.autoregressive import AutoregressiveGenerator

    forbidden = {"overfit_levels", "threads"} & set(params)
    if forbidden:
        raise ParameterError(
            f"`overfit_params` cannot set {sorted(forbidden)}: the sweep sets them."
        )
    try:
        AutoregressiveGenerator(**params)
    except TypeError as exc:
        raise ParameterError(f"Unknown overfit_params: {exc}.") from None


def _default_options(schema: Schema, real: pd.DataFrame) -> dict[str, dict[str, Any]]:
    from .risk.attacks import informative_split

    cols = list(schema.included)
    if len(cols) >= 2:  # two halves of all columns that each identify as much as they can
        return {"linkability": {"aux_cols": informative_split(real, cols)}}
    return {}


__all__ = [
    "DEFAULT_LEVELS",
    "DP_GENERATORS",
    "LEAKY_TOLERANCE",
    "LEVEL_NAMES",
    "RISK_MODELS",
    "SweepResult",
    "insert_canaries",
    "leaky_within",
    "outlier_sweep",
    "remove_outliers",
    "sweep",
]
