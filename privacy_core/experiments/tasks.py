"""One (level, replicate) task of a sweep: split the real rows, make the release of the
risk model at that level, evaluate the measures on it."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ..data import Schema
from ..errors import InsufficientDataError
from ..evaluation import evaluate_noted, run_noted
from ..measures import get_measure, split_measure_key
from ..results import MetricResult
from ..stats import child_sequences
from ..synth import GENERATORS
from ..synth.leaky import LeakNoise, leaky_release, leaky_shadow_options, leaky_split
from ..threat import ThreatModel
from .result import CANARY_MEASURES, SPLITS
from .robustness import canary_rows, insert_canaries, remove_outliers


# ============================================================================ tasks
@dataclass(frozen=True)
class Task:
    """One unit of work: a replicate at one level (``leaky``, ``dp``) or at every level
    (``overfit``: one training run yields every f_o checkpoint)."""

    replicate: int
    level_indices: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class TaskContext:
    """What every task of a sweep shares: the checked settings and the canonical real rows
    (sent once to the workers)."""

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


def replicate_seeds(seed: int, replicates: int, n_levels: int) -> tuple[tuple[int, ...], ...]:
    """Per replicate, from ``SeedSequence(seed)``: its split, measure, train and canary
    seeds, then one seed per level."""
    out = []
    for child in child_sequences(seed, replicates):
        out.append(tuple(int(c.generate_state(1)[0]) for c in child.spawn(4 + n_levels)))
    return tuple(out)


def _split(ctx: TaskContext, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None]:
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


def _shadow_options(
    ctx: TaskContext, level: float, pool: pd.DataFrame | None, control: pd.DataFrame
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
    ctx: TaskContext,
    training: pd.DataFrame,
    control: pd.DataFrame,
    levels: list[float],
    seed: int,
    should_stop: Callable[[], bool] | None = None,
) -> dict[str, dict[float, tuple[MetricResult | None, str]]]:
    """The generator measures (MDS) of an overfit task, every level at once: each shadow
    is the sweep's autoregressive generator, trained once past its optimum on its half
    (validation loss on the control rows) and sampled at each level's checkpoint."""
    from ..risk.mds import mds_overfit_levels

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


def _key_options(ctx: TaskContext, key: str) -> tuple[Any, dict[str, Any]]:
    """The registry spec of a measure key ("dcr:contrastive": a measure in one of its
    registered modes) and its options: the sweep's, then the mode's."""
    name, mode, _ = split_measure_key(key)
    spec = get_measure(name)
    options = dict(ctx.options.get(name, {}))
    if mode:
        options.update(spec.mode_options(mode))
    return spec, options


def _evaluate(
    ctx: TaskContext,
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
        # evaluate passes the threat model only to the measures that need or use it
        res, note = evaluate_noted(
            training,
            release,
            name=spec.name,
            threat=ctx.threat,
            holdout=holdout,
            schema=ctx.schema,
            seed=seed,
            options=options,
        )
        rows.append(_row(key, res, note))
        if res is not None and canary_labels is not None and key in CANARY_MEASURES:
            rows.extend(canary_rows(res, canary_labels, levels_t))
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
    ctx: TaskContext, training: pd.DataFrame, seeds: tuple[int, ...]
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
    ctx: TaskContext,
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


def _make_dp_generator(ctx: TaskContext, epsilon: float):
    from ..synth.dp import DPMarginalGenerator, SmartNoiseGenerator

    params = dict(ctx.generator_params)
    if ctx.generator == "dp-mst":
        return DPMarginalGenerator(epsilon, structure="mst", **params)
    if ctx.generator == "dp-independent":
        return DPMarginalGenerator(epsilon, structure="independent", **params)
    return SmartNoiseGenerator(epsilon, method=ctx.generator.split("-", 1)[1], **params)


def run_task(
    task: Task,
    ctx: TaskContext,
    on_epoch: Callable[[dict], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> tuple[Task, list[dict[str, Any]], Any]:
    """Make and evaluate the releases of one task; returns its rows (and a curve)."""
    from ..synth.autoregressive import AutoregressiveGenerator, torch_threads

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
