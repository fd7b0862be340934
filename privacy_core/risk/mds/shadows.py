"""The shadow synthesizers of MDS: who trains which shadow, and what each one emits.

:func:`mds_membership` draws the membership matrix (every record IN exactly ⌊m/2⌋
shadows); :func:`shadow_task` fits one shadow on its half and measures how close the
tables it emits come to the evaluated records; :func:`reference_distances` measures the
same for the SELF and HALF references over the same splits. A distance is the
nearest-neighbour distance on the engine's shared encoder divided by √p (p the number
of columns compared).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from ...encoding import TableEncoder
from ..neighbors import nearest_neighbors


@dataclass(frozen=True)
class ShadowContext:
    """What every shadow task needs (pickled once per worker)."""

    table: pd.DataFrame  # canonical real rows, deduplicated, 0..N-1
    keep: np.ndarray  # (m, N) membership matrix
    targets: np.ndarray  # positions of the evaluated records
    encoder: TableEncoder
    method: str
    params: dict[str, Any]
    pool: pd.DataFrame | None
    sets: int
    seeds: np.ndarray  # (m, 1 + sets)
    scale: float  # √p
    # overfit levels f_o each (autoregressive) shadow is sampled at; (None,) = as fitted
    levels: tuple[float | None, ...] = (None,)


def mds_membership(m: int, n: int, seed: int) -> np.ndarray:
    """The (m, n) membership matrix: record j trains shadow i when ``keep[i, j]``; every
    record is IN exactly ⌊m/2⌋ shadows (the reference code's argsort construction)."""
    u = np.random.default_rng(seed).random((m, n))
    return np.argsort(u, axis=0) < m // 2


def encode_rows(ctx: ShadowContext, frame: pd.DataFrame) -> np.ndarray:
    """``frame`` on the shared encoding the distances are measured in."""
    return ctx.encoder.transform(frame).astype(np.float64)


def nearest_distances(ctx: ShadowContext, targets: np.ndarray, table: pd.DataFrame) -> np.ndarray:
    """Each encoded target's distance to its nearest row of ``table``, divided by √p."""
    x = encode_rows(ctx, table)
    x = x[np.isfinite(x).all(axis=1)]  # the reference code drops NaN / inf rows
    d, _ = nearest_neighbors(targets, x, k=1)
    return d[:, 0] / ctx.scale


def shadow_task(i: int, ctx: ShadowContext) -> tuple[int, np.ndarray]:
    """Fit shadow ``i`` on its half, sample its tables at each of ``ctx.levels``; the
    targets' mean NN distance per level, shape (levels, targets) (NaN at an overfit
    level the shadow's training never reached)."""
    from ...synth import make_generator
    from ...synth.autoregressive import torch_threads

    train = ctx.table[ctx.keep[i]]
    if ctx.method == "half":
        return i, _half_shadow(i, ctx, train)
    params = dict(ctx.params)
    if ctx.method == "leaky":
        params["pool"] = ctx.pool
    overfit = [lv for lv in ctx.levels if lv is not None]
    if overfit:
        params["overfit_levels"] = overfit
    fit: dict[str, Any] = {}
    if ctx.method == "autoregressive":
        # its validation loss (early stopping, overfit levels) on records it never trains
        # on: the pool, else the shadow's OUT records. Holding out a share of its own
        # half instead would make those IN records non-members.
        fit["validation"] = ctx.pool if ctx.pool is not None else ctx.table[~ctx.keep[i]]
    targets = encode_rows(ctx, ctx.table.iloc[ctx.targets])
    d = np.full((len(ctx.levels), len(ctx.targets)), np.nan)
    with warnings.catch_warnings(), torch_threads(1):
        warnings.simplefilter("ignore")
        gen = make_generator(ctx.method, **params).fit(train, seed=int(ctx.seeds[i, 0]), **fit)
        for li, level in enumerate(ctx.levels):
            # a level is set only for autoregressive shadows, which keep their loss curve
            if level is not None and not cast(Any, gen).curve.checkpoint(level).reached:
                continue
            at = {} if level is None else {"level": level}
            d[li] = sum(
                nearest_distances(
                    ctx, targets, gen.sample(len(train), seed=int(ctx.seeds[i, 1 + j]), **at)
                )
                for j in range(ctx.sets)
            )
    return i, d / ctx.sets


def _half_shadow(i: int, ctx: ShadowContext, train: pd.DataFrame) -> np.ndarray:
    """HALF as the systematic-assessment paper defines it (§4, "HALF (upper bound)"): the
    shadow's tables are real records of the other half of the population, never its own
    training rows, so a record's presence cannot move them (MDS about 0). The same
    construction as the HALF reference: ``ctx.sets`` draws from the pool, each of the
    training half's size. (The ``half`` generator, which releases half of the rows it is
    fitted on, is a partial copy: as a shadow method it read like a leaky generator.)"""
    pool = cast(pd.DataFrame, ctx.pool)
    targets = encode_rows(ctx, ctx.table.iloc[ctx.targets])
    d = np.zeros(len(ctx.targets))
    for j in range(ctx.sets):
        rng = np.random.default_rng(int(ctx.seeds[i, 1 + j]))
        take = rng.choice(len(pool), len(train), replace=len(train) > len(pool))
        d += nearest_distances(ctx, targets, pool.iloc[take])
    return np.broadcast_to(d / ctx.sets, (len(ctx.levels), len(ctx.targets))).copy()


def reference_distances(
    ctx: ShadowContext, distance: np.ndarray, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Distances of every evaluated record under SELF (each shadow emits its own half) and
    HALF (each emits unseen real records: ``shadow_sets`` draws from the pool, of its
    half's size; NaN without a pool), over the same shadows as the measured run (those
    it finished)."""
    run = ~np.isnan(distance).all(axis=1)
    targets = encode_rows(ctx, ctx.table.iloc[ctx.targets])
    rng = np.random.default_rng(seed)
    self_d = np.full(distance.shape, np.nan)
    half_d = np.full(distance.shape, np.nan)
    for i in np.nonzero(run)[0]:
        train = ctx.table[ctx.keep[i]]
        self_d[i] = nearest_distances(ctx, targets, train)
        if ctx.pool is not None:
            d = np.zeros(len(ctx.targets))
            for _ in range(ctx.sets):
                take = rng.choice(len(ctx.pool), len(train), replace=len(train) > len(ctx.pool))
                d += nearest_distances(ctx, targets, ctx.pool.iloc[take])
            half_d[i] = d / ctx.sets
    return self_d, half_d
