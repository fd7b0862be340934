"""The expected RAPID of a generator, by k-fold cross-validation over the real records.

Each fold synthesises from the other folds with a built-in generator and evaluates RAPID
on the held-out fold; the mean fold rate, with a Student-t interval, is what the
generator is expected to disclose about records it was trained on.

Notes
-----
``rapid-attribute-inference.md`` §2.5 ("Evaluating Synthetic Data Generators"); the R
package's ``rapid_synthesizer_cv``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.model_selection import KFold, StratifiedKFold

from ...data import Schema
from ...errors import InsufficientDataError
from ...inputs import prepare_review
from ...progress import ProgressFn
from ...results import MetricResult
from ...stats import child_seeds, mean_interval
from ...threat import ThreatModel
from ...validation import check_epsilon, check_positive_int, check_seed
from ..attackers import check_attackers
from .fit import rapid


def rapid_synthesizer_cv(
    real: pd.DataFrame,
    *,
    threat: ThreatModel,
    schema: Schema | None = None,
    generator: str = "cart",
    generator_params: dict[str, Any] | None = None,
    k: int = 5,
    attackers: Sequence[str] | str = ("rf",),
    tau: float | None = None,
    epsilon: float | None = None,
    method: str = "marginal",
    error: str = "relative",
    n_trees: int = 500,
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> MetricResult:
    """Expected RAPID of a generator by k-fold cross-validation.

    Each fold: synthesise from the other k - 1 folds (stratified by y when categorical)
    with a built-in generator, evaluate RAPID on the held-out fold. ``value`` is the mean
    fold rate, ``ci`` the Student-t interval mean ± t_{k-1} sd / sqrt(k)
    (:func:`privacy_core.stats.mean_interval`); ``records`` holds one row per fold.

    Notes
    -----
    ``rapid-attribute-inference.md`` §2.5 ("Evaluating Synthetic Data Generators");
    the R package's ``rapid_synthesizer_cv``.
    """
    from ...synth import make_generator

    seed = check_seed(seed)
    k = check_positive_int("k", k, minimum=2)
    data = prepare_review(real, real, threat=threat, schema=schema, min_rows=2)
    real_c = data.real.reset_index(drop=True)
    target = threat.target
    categorical = data.schema[target].is_categorical
    if not categorical and epsilon is not None:
        check_epsilon(epsilon, error=error)  # before k refits, not inside the first fold
    if len(real_c) < 2 * k:
        raise InsufficientDataError(
            f"{k}-fold cross-validation needs at least {2 * k} rows; the real table has "
            f"{len(real_c)}."
        )
    splits = _folds(real_c, target, k=k, stratified=categorical, seed=seed)
    rows = []
    # each fold fits, samples and attacks with seeds of its own (before, all three used
    # seed + f, so the release and the attackers' draws were not independent)
    fold_seeds = [child_seeds(s, 3) for s in child_seeds(seed, k)]
    for f, (train_idx, test_idx) in enumerate(splits):
        fit_seed, sample_seed, attack_seed = fold_seeds[f]
        if progress:
            progress(f / k, f"Fold {f + 1}/{k}: synthesising and attacking")
        train = real_c.iloc[train_idx]
        test = real_c.iloc[test_idx]
        gen = make_generator(generator, **(generator_params or {})).fit(train, seed=fit_seed)
        syn = gen.sample(len(train), seed=sample_seed)
        res = rapid(
            test,
            syn,
            threat=threat,
            schema=data.schema,
            attackers=attackers,
            tau=tau,
            epsilon=epsilon,
            method=method,
            error=error,
            bootstrap=0,
            n_trees=n_trees,
            seed=attack_seed,
        )
        rows.append(
            {
                "fold": f + 1,
                "n_train": len(train),
                "n_test": len(test),
                "rate": res.value,
                "rate_max": res.rate_max,
            }
        )
    if progress:
        progress(1.0, "Done")
    folds = pd.DataFrame(rows)
    rates = folds["rate"].to_numpy()
    return MetricResult(
        name="rapid_cv",
        value=float(rates.mean()),
        ci=mean_interval(rates),
        record_table=folds,
        params={
            "generator": generator,
            "generator_params": generator_params or {},
            "k": k,
            "attackers": list(check_attackers(attackers)),
            "method": method,
            "error": error,
            "tau": tau,
            "epsilon": epsilon,
            "n_trees": n_trees,
            "seed": seed,
            "stratified": categorical,
        },
        extra={
            "sd": float(rates.std(ddof=1)),
            "se": float(rates.std(ddof=1) / np.sqrt(k)),
            "median": float(np.median(rates)),
            "min": float(rates.min()),
            "max": float(rates.max()),
        },
    )


def _folds(
    real: pd.DataFrame, target: str, *, k: int, stratified: bool, seed: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The k (train, test) index pairs, stratified by a categorical target (each class
    needs at least k records)."""
    if stratified:
        counts = real[target].value_counts()
        if counts.min() < k:
            raise InsufficientDataError(
                f"Class {counts.idxmin()!r} of {target!r} has {int(counts.min())} record(s), "
                f"fewer than the {k} folds of a stratified split; lower k or merge rare classes."
            )
        splitter = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
        splits = list(splitter.split(real, real[target]))
    else:
        splits = list(KFold(n_splits=k, shuffle=True, random_state=seed).split(real))
    return splits
