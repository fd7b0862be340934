"""Engine evaluations for the current workspace, cached and with progress.

Pages ask for a result here; this module turns the workspace into engine inputs, picks
the cache key, and calls the engine once per (data, threat model, fit parameters).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import privacy_core as pc

from .cached import cached_evaluation, scoped_key
from .runner import run_cached
from .state import Workspace

RAPID_FIT_DEFAULTS: dict[str, Any] = {
    "attackers": ("rf", "xgb", "logit"), "n_trees": 500, "bootstrap": 500, "subset": 0,
    "seed": 0,
}
AUTO_RUN_MAX_CELLS = 60_000  # real rows x releases below which RAPID runs without a click


def rapid_fit_params(ws: Workspace) -> dict[str, Any]:
    return {**RAPID_FIT_DEFAULTS, **(ws.setting("rapid_fit") or {})}


def _targets(ws: Workspace, subset: int, seed: int):
    real = ws.real.frame
    if subset and subset < len(real):
        rng = np.random.default_rng(seed)
        real = real.iloc[np.sort(rng.choice(len(real), size=subset, replace=False))]
    return real


def rapid_key(ws: Workspace, params: dict[str, Any]) -> str:
    return scoped_key(ws, "rapid", params)


def rapid_cached(ws: Workspace, params: dict[str, Any]) -> pc.RapidResult | None:
    return cached_evaluation(rapid_key(ws, params))


def rapid_should_autorun(ws: Workspace, params: dict[str, Any]) -> bool:
    rows = params["subset"] or len(ws.real.frame)
    return rows * max(len(ws.releases), 1) <= AUTO_RUN_MAX_CELLS


def rapid_run(ws: Workspace, params: dict[str, Any]) -> pc.RapidResult | None:
    def compute(progress):
        return pc.rapid(
            _targets(ws, params["subset"], params["seed"]), [t.frame for t in ws.releases],
            threat=ws.threat, schema=ws.schema, attackers=tuple(params["attackers"]),
            n_trees=int(params["n_trees"]), bootstrap=int(params["bootstrap"]),
            seed=int(params["seed"]), progress=progress)

    return run_cached(rapid_key(ws, params), "Fitting the attackers on the synthetic data",
                      compute)


def rapid_calibration(ws: Workspace, params: dict[str, Any], *, method: str, error: str,
                      run: bool) -> pc.RapidCalibration | None:
    cal = {"method": method, "error": error, "seed": params["seed"],
           "subset": params["subset"], "n_permutations": 5}
    key = scoped_key(ws, "rapid_calibration", cal)
    hit = cached_evaluation(key)
    if hit is not None or not run:
        return hit

    def compute(progress):
        return pc.rapid_permutation_threshold(
            _targets(ws, params["subset"], params["seed"]), [t.frame for t in ws.releases],
            threat=ws.threat, schema=ws.schema, attacker="rf", n_permutations=5,
            method=method, error=error, n_trees=200, seed=int(params["seed"]),
            progress=progress)

    return run_cached(key, "Permutation calibration (5 refits with y shuffled)", compute)


def rapid_cv(ws: Workspace, *, generator: str, min_leaf: int, k: int, seed: int,
             run: bool) -> pc.MetricResult | None:
    cv = {"generator": generator, "min_leaf": min_leaf, "k": k, "seed": seed}
    key = scoped_key(ws, "rapid_cv", cv)
    hit = cached_evaluation(key)
    if hit is not None or not run:
        return hit
    gen_params = {"min_leaf": min_leaf} if generator == "cart" else {}

    def compute(progress):
        return pc.rapid_synthesizer_cv(
            ws.real.frame, threat=ws.threat, schema=ws.schema, generator=generator,
            generator_params=gen_params, k=k, attackers=("rf",), n_trees=200, seed=seed,
            progress=progress)

    return run_cached(key, f"{k}-fold synthesizer cross-validation", compute)


def rapid_attribution(ws: Workspace, params: dict[str, Any], result: pc.RapidResult):
    """The attribution regression at the result's threshold and score variant, fitted once
    per (fit, threshold, variant) so that returning to a threshold costs nothing."""
    from .cached import evaluate

    variant = (result.params["method"], result.params["error"], round(result.threshold, 6))
    return evaluate(f"{rapid_key(ws, params)}|attribution|{variant!r}",
                    lambda: pc.rapid_attribution(result))
