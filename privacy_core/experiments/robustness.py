"""Robustness checks of the risk-insertion framework (§5.2-5.3): outlier removal before
the release is made, and canary records whose secret is randomised."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..data import Schema
from ..encoding import TableEncoder
from ..errors import ParameterError
from ..results import MetricResult
from ..stats import wilson_interval
from ..validation import (
    check_in_range,
    check_positive_int,
)


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


def canary_rows(
    result: MetricResult, canary_labels: np.ndarray, target_levels: int | None
) -> list[dict[str, Any]]:
    """An attack's success rate on the canaries (``<measure>@canary``, with the chance rate
    ``1 / target_levels`` as baseline) and on the other training records
    (``<measure>@training``), each with its Wilson interval; none without per-target
    results."""
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
