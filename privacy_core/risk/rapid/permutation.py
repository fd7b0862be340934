"""RAPID's threshold from a permutation null that refits the attackers.

:func:`rapid_permutation_threshold` runs one of three nulls: the paper's null-RAPID rule
with y permuted in the release and the attackers refitted (the default), the same rule
with the real labels permuted against one fit's predictions
(:func:`~privacy_core.risk.rapid.calibration.rapid_null_calibration`), or the earlier
pooled-scores rule. Every refit uses the observed fit's options.

Notes
-----
``rapid-attribute-inference.md`` §2.5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ...data import Schema
from ...progress import ProgressFn
from ...threat import ThreatModel
from ...validation import check_choice, check_in_range, check_positive_int, check_seed
from .calibration import (
    CALIBRATION_RULES,
    DEFAULT_PERMUTATIONS,
    LABEL_PERMUTATIONS,
    MIN_NULL_PERMUTATIONS,
    PERMUTE_MODES,
    RapidCalibration,
    calibration_grid,
    headline_rates,
    largest_significant_threshold,
    rapid_null_calibration,
)
from .fit import rapid


def rapid_permutation_threshold(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    schema: Schema | None = None,
    rule: str = "null-rapid",
    permute: str = "release",
    attackers: Sequence[str] | str | None = None,
    attacker: str = "rf",
    n_permutations: int | None = None,
    method: str = "marginal",
    error: str = "relative",
    delta: float = 0.01,
    n_trees: int = 200,
    forest_encoding: str = "one-hot",
    level: float = 0.95,
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> RapidCalibration:
    """Data-driven threshold from a permutation null (§2.5). Every refit uses the
    forest's ``forest_encoding`` (:func:`rapid`), so the null matches the observed fit.

    ``rule="null-rapid"`` (default, the paper's): the largest threshold at which the
    observed RAPID (of ``attackers``, default ``(attacker,)``; the headline, max over
    attackers) is above the ``level`` quantile of the null *RAPID*, over the grid of
    :func:`calibration_grid`. ``permute="release"`` (default) permutes y in the release
    and refits the attackers each time (``n_permutations`` default 20, at least 20): the
    null is RAPID of a release whose sensitive column carries no information, including
    the chance agreement of a model fitted to noise with the real records.
    ``permute="labels"`` fits once and permutes the real sensitive values against the
    fixed predictions (:func:`rapid_null_calibration`, default 199 permutations): the
    authors' R construction, fast but anti-conservative (see there).

    ``rule="pooled-scores"`` (the earlier rule): permute y in the release, refit
    ``attacker`` ``n_permutations`` times (default 5), pool the per-record null scores and
    take their ``level`` quantile (1 - ``level`` for errors): at it a release that leaks
    nothing flags about 5% of records. This calibrates per-record scores, not RAPID.

    Notes
    -----
    ``rapid-attribute-inference.md`` §2.5 ("permute y, recompute RAPID ...").
    """
    seed = check_seed(seed)
    check_choice("rule", rule, CALIBRATION_RULES)
    n_permutations = _checked_permutations(n_permutations, rule=rule, permute=permute)
    check_in_range("level", level, 0, 1, low_inclusive=False, high_inclusive=False)
    check_choice("permute", permute, PERMUTE_MODES)
    # the options of every fit, the observed one and the refits alike
    fit: dict[str, Any] = dict(
        threat=threat,
        schema=schema,
        method=method,
        error=error,
        delta=delta,
        bootstrap=0,
        n_trees=n_trees,
        forest_encoding=forest_encoding,
    )
    null: dict[str, Any] = dict(
        n_permutations=n_permutations, level=level, seed=seed, progress=progress
    )
    if rule == "pooled-scores":
        return _pooled_scores_null(real, synthetic, fit=fit, attacker=attacker, **null)
    fit["attackers"] = attackers if attackers is not None else (attacker,)
    if permute == "release":
        return _release_permutation_null(real, synthetic, fit=fit, **null)
    return _label_permutation_null(real, synthetic, fit=fit, **null)


def _checked_permutations(n_permutations: int | None, *, rule: str, permute: str) -> int:
    """The number of permutations, by default the rule's (at least 20 for null-RAPID)."""
    if n_permutations is None:
        n_permutations = (
            LABEL_PERMUTATIONS
            if rule == "null-rapid" and permute == "labels"
            else DEFAULT_PERMUTATIONS[rule]
        )
    return check_positive_int(
        "n_permutations",
        n_permutations,
        minimum=MIN_NULL_PERMUTATIONS if rule == "null-rapid" else 1,
    )


def _release_permutation_null(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    fit: dict[str, Any],
    n_permutations: int,
    level: float,
    seed: int,
    progress: ProgressFn | None,
) -> RapidCalibration:
    """The null-RAPID rule with y permuted in the release and the attackers refitted."""
    rng = np.random.default_rng(seed)
    releases = [synthetic] if isinstance(synthetic, pd.DataFrame) else list(synthetic)
    target = fit["threat"].target
    observed_res = rapid(real, releases, seed=seed, **fit)
    grid = calibration_grid(observed_res.kind, fit["method"])
    observed = headline_rates(observed_res.scores, grid, kind=observed_res.kind)
    null = np.empty((n_permutations, len(grid)))
    for p in range(n_permutations):
        if progress:
            progress(p / n_permutations, f"Refit {p + 1}/{n_permutations} with y permuted")
        permuted = _permuted_releases(releases, target, rng)
        res = rapid(real, permuted, seed=int(rng.integers(2**31 - 1)), **fit)
        null[p] = headline_rates(res.scores, grid, kind=res.kind)
    if progress:
        progress(1.0, "Done")
    return RapidCalibration(
        suggested_threshold=largest_significant_threshold(grid, observed, null, level),
        kind=observed_res.kind,
        rule="null-rapid",
        thresholds=grid,
        observed=observed,
        null_rates=null,
        params={
            "rule": "null-rapid",
            "attackers": list(observed_res.attackers),
            "series": "max",
            "n_permutations": n_permutations,
            "level": level,
            "method": fit["method"],
            "error": fit["error"],
            "seed": seed,
            "n_trees": fit["n_trees"],
            "forest_encoding": fit["forest_encoding"],
            "permuted": "sensitive values in the release, attackers refitted",
        },
    )


def _label_permutation_null(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    fit: dict[str, Any],
    n_permutations: int,
    level: float,
    seed: int,
    progress: ProgressFn | None,
) -> RapidCalibration:
    """The null-RAPID rule with the attackers fitted once and the real sensitive values
    permuted against their predictions (:func:`rapid_null_calibration`)."""
    if progress:
        progress(0.0, "Fitting the attackers once")
    res = rapid(real, synthetic, seed=seed, **fit)
    if progress:
        progress(0.8, f"{n_permutations} permutations of the real sensitive values")
    cal = rapid_null_calibration(res, n_permutations=n_permutations, level=level, seed=seed)
    if progress:
        progress(1.0, "Done")
    return replace(
        cal,
        params={**cal.params, "n_trees": fit["n_trees"], "forest_encoding": fit["forest_encoding"]},
    )


def _pooled_scores_null(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    fit: dict[str, Any],
    attacker: str,
    n_permutations: int,
    level: float,
    seed: int,
    progress: ProgressFn | None,
) -> RapidCalibration:
    """The pooled-scores rule: the ``level`` quantile of the per-record scores of
    ``attacker`` refitted on releases with y permuted (1 - ``level`` for errors)."""
    rng = np.random.default_rng(seed)
    releases = [synthetic] if isinstance(synthetic, pd.DataFrame) else list(synthetic)
    target = fit["threat"].target
    pooled = []
    kind = "categorical"
    for p in range(n_permutations):
        if progress:
            progress(p / n_permutations, f"Permutation {p + 1}/{n_permutations}")
        permuted = _permuted_releases(releases, target, rng)
        res = rapid(real, permuted, attackers=(attacker,), seed=int(rng.integers(2**31 - 1)), **fit)
        kind = res.kind
        pooled.append(res.scores.ravel())
    if progress:
        progress(1.0, "Done")
    null = np.concatenate(pooled)
    null = null[np.isfinite(null)]
    q = float(np.quantile(null, level if kind == "categorical" else 1 - level))
    return RapidCalibration(
        suggested_threshold=q,
        kind=kind,
        rule="pooled-scores",
        null_scores=null,
        params={
            "rule": "pooled-scores",
            "attacker": attacker,
            "n_permutations": n_permutations,
            "level": level,
            "method": fit["method"],
            "error": fit["error"],
            "n_trees": fit["n_trees"],
            "forest_encoding": fit["forest_encoding"],
            "seed": seed,
        },
    )


def _permuted_releases(
    releases: Sequence[pd.DataFrame], target: str, rng: np.random.Generator
) -> list[pd.DataFrame]:
    """Each release with its sensitive column shuffled: no link left to the QIs."""
    permuted = []
    for syn in releases:
        s = syn.copy()
        s[target] = s[target].to_numpy()[rng.permutation(len(s))]
        permuted.append(s)
    return permuted
