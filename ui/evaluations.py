"""Engine evaluations for the current workspace, cached and with progress.

Pages ask for a result here; this module turns the workspace into engine inputs, picks
the cache key, and calls the engine once per (data, threat model, fit parameters).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

import privacy_core as pc
from privacy_core.risk.rapid import (
    DEFAULT_ATTACKERS,
    DEFAULT_PERMUTATIONS,
    DEFAULT_TAU,
    LABEL_PERMUTATIONS,
)

from .cached import cached_result, canonical_real, scoped_key
from .compute import engine_backend
from .runner import run_cached
from .state import remembered
from .workspace import Workspace

RAPID_FIT_DEFAULTS: dict[str, Any] = {
    "attackers": DEFAULT_ATTACKERS,
    "n_trees": 500,
    "bootstrap": 500,
    "subset": 0,
    "seed": 0,
}
# real rows x releases below which a page computes without a click (RAPID, the privacy
# measures, fidelity): the one auto-run limit
AUTO_RUN_MAX_CELLS = 60_000


def rapid_fit_params(ws: Workspace) -> dict[str, Any]:
    return {**RAPID_FIT_DEFAULTS, **(ws.setting("rapid_fit") or {})}


def _targets(ws: Workspace, subset: int, seed: int, *, frame=None):
    real = ws.real.frame if frame is None else frame
    if subset and subset < len(real):
        rng = np.random.default_rng(seed)
        real = real.iloc[np.sort(rng.choice(len(real), size=subset, replace=False))]
    return real


def _control(ws: Workspace, params: dict[str, Any]):
    """The holdout as RAPID's non-members (consensus R7), subsampled like the targets."""
    if ws.holdout is None:
        return None
    return _targets(ws, params["subset"], params["seed"], frame=ws.holdout.frame)


def rapid_key(ws: Workspace, params: dict[str, Any]) -> str:
    return scoped_key(ws, "rapid", params)


def rapid_cached(ws: Workspace, params: dict[str, Any]) -> pc.RapidResult | None:
    return cached_result(rapid_key(ws, params))


def rapid_should_autorun(
    ws: Workspace, params: dict[str, Any], *, limit: int = AUTO_RUN_MAX_CELLS
) -> bool:
    rows = params["subset"] or len(ws.real.frame)
    return rows * max(len(ws.releases), 1) <= limit


# The HALF / SELF references refit the attackers twice, after the page is on screen: a
# Streamlit session runs one script at a time, so on a large table the first slider step
# would wait for them (15 s at 50k rows). Above this they run on a click.
REFERENCES_AUTO_RUN_MAX_CELLS = 20_000


def rapid_run(ws: Workspace, params: dict[str, Any]) -> pc.RapidResult | None:
    def compute(progress):
        # the one evaluation path (the registry), as the CLI and `review` call it
        return pc.evaluate(
            _targets(ws, params["subset"], params["seed"]),
            [t.frame for t in ws.releases],
            measures=["rapid"],
            threat=ws.threat,
            schema=ws.schema,
            holdout=_control(ws, params),
            seed=int(params["seed"]),
            options={
                "rapid": {
                    "attackers": tuple(params["attackers"]),
                    "n_trees": int(params["n_trees"]),
                    "bootstrap": int(params["bootstrap"]),
                    **engine_backend(),
                }
            },
            progress=progress,
        )["rapid"]

    return run_cached(rapid_key(ws, params), "Fitting the attackers on the synthetic data", compute)


def rapid_calibration(
    ws: Workspace,
    params: dict[str, Any],
    *,
    method: str,
    error: str,
    run: bool,
    rule: str = "null-rapid",
    permute: str = "release",
    result: pc.RapidResult | None = None,
    n_permutations: int | None = None,
) -> pc.RapidCalibration | None:
    """The permutation calibration of the threshold, cached per score variant and rule.

    ``null-rapid`` (the paper's rule) with ``permute="release"`` refits the page's
    attackers (200 trees) on releases with y shuffled; with ``permute="labels"`` it
    permutes the real sensitive values against the page's fitted attackers (``result``,
    at the page's score variant): no refit. ``pooled-scores`` (the earlier rule) refits a
    random forest on releases with y shuffled.
    """
    labels = rule == "null-rapid" and permute == "labels"
    n_perm = int(n_permutations or (LABEL_PERMUTATIONS if labels else DEFAULT_PERMUTATIONS[rule]))
    cal = {
        "method": method,
        "error": error,
        "seed": params["seed"],
        "subset": params["subset"],
        "n_permutations": n_perm,
        "rule": rule,
        "permute": permute if rule == "null-rapid" else None,
    }
    key = scoped_key(ws, "rapid_calibration", {**params, **cal})
    hit = cached_result(key)
    if hit is not None or not run:
        return hit

    def compute(progress):
        if labels and result is not None:
            progress(0.0, f"{n_perm} permutations of the real sensitive values")
            return pc.rapid_null_calibration(
                result, n_permutations=n_perm, seed=int(params["seed"])
            )
        return pc.rapid_permutation_threshold(
            _targets(ws, params["subset"], params["seed"]),
            [t.frame for t in ws.releases],
            threat=ws.threat,
            schema=ws.schema,
            rule=rule,
            permute=permute,
            attackers=tuple(params["attackers"]),
            attacker="rf",
            n_permutations=n_perm,
            method=method,
            error=error,
            n_trees=200,
            seed=int(params["seed"]),
            progress=progress,
        )

    label = (
        f"Permutation calibration ({n_perm} permutations of y against the fitted attackers)"
        if labels
        else f"Permutation calibration ({n_perm} refits with y shuffled in the release)"
    )
    return run_cached(key, label, compute)


def rapid_cv(
    ws: Workspace, *, generator: str, min_leaf: int, k: int, seed: int, run: bool
) -> pc.MetricResult | None:
    cv = {"generator": generator, "min_leaf": min_leaf, "k": k, "seed": seed}
    key = scoped_key(ws, "rapid_cv", cv)
    hit = cached_result(key)
    if hit is not None or not run:
        return hit
    gen_params = {"min_leaf": min_leaf} if generator == "cart" else {}

    def compute(progress):
        return pc.rapid_synthesizer_cv(
            ws.real.frame,
            threat=ws.threat,
            schema=ws.schema,
            generator=generator,
            generator_params=gen_params,
            k=k,
            attackers=("rf",),
            n_trees=200,
            seed=seed,
            progress=progress,
        )

    return run_cached(key, f"{k}-fold synthesizer cross-validation", compute)


def rapid_at_page_settings(result: pc.RapidResult) -> pc.RapidResult:
    """RAPID re-aggregated as the RAPID page last showed it: the same score (``method=`` or
    ``error=``) and its threshold, so that other pages read the same records at risk."""
    if result.kind == "categorical":
        method = remembered("rapid_method", "marginal")
        tau = remembered(f"rapid_tau_{method}", DEFAULT_TAU[method])
        return result.at(float(tau), method=method)
    error = remembered("rapid_error", "relative")
    scale = result.y_scale if error == "absolute" else 1.0
    eps = remembered(f"rapid_eps_{error}", round(0.1 * scale, 4))
    return result.at(float(eps), error=error)


def rapid_attribution(ws: Workspace, params: dict[str, Any], result: pc.RapidResult):
    """The attribution regression at the result's threshold and score variant, fitted once
    per (fit, threshold, variant) so that returning to a threshold costs nothing."""
    from .cached import get_or_compute

    variant = (result.params["method"], result.params["error"], round(result.threshold, 6))
    return get_or_compute(
        f"{rapid_key(ws, params)}|attribution|{variant!r}", lambda: pc.rapid_attribution(result)
    )


# ------------------------------------------------------------------ reference points
REFERENCES = ("half", "self")
REFERENCE_NAMES = {
    "half": "HALF (a fresh real sample: a random half of the real data)",
    "self": "SELF (a copy of the real data)",
}


def _references_key(ws: Workspace, params: dict[str, Any]) -> str:
    # the references depend on the real data, threat model and fit settings, not on the
    # releases: a new release keeps them
    return scoped_key(replace(ws, releases=()), "rapid_references", params)


def rapid_references_cached(
    ws: Workspace, params: dict[str, Any]
) -> dict[str, pc.RapidResult] | None:
    """RAPID of HALF and SELF under the page's fit settings, if computed already."""
    return cached_result(_references_key(ws, params))


def rapid_references_run(ws: Workspace, params: dict[str, Any]) -> dict[str, pc.RapidResult] | None:
    """Fit the same attackers on HALF and on SELF and score real records with them.

    HALF is a random half of the real rows used as a release (``pc.half_split``, as the
    fidelity page and the risk-utility map build it) and is scored on the *other* half:
    records it does not contain, so it reads what a fresh real sample reveals about people
    outside it. SELF (the real rows themselves) is scored on the release's targets.
    Both are fitted once per (real data, threat model, fit settings) and re-aggregated at
    the page's threshold and score like the release: reference points on the same scale.
    """

    def compute(progress):
        real_c = canonical_real(ws.real.fingerprint, ws.overrides, ws)
        seed = int(params["seed"])
        subset = int(params["subset"] or 0)
        other, half = pc.half_split(real_c, seed=seed)
        if subset and subset < len(other):
            pick = np.random.default_rng(seed).choice(len(other), size=subset, replace=False)
            other = other.iloc[np.sort(pick)]
        cases = {"half": (other, half), "self": (_targets(ws, subset, seed), real_c)}
        out = {}
        for i, ref in enumerate(REFERENCES):
            targets, frame = cases[ref]

            def step(fraction: float, message: str, i: int = i, ref: str = ref) -> None:
                progress((i + fraction) / len(REFERENCES), f"{ref.upper()}: {message}")

            out[ref] = pc.rapid(
                targets,
                frame,
                threat=ws.threat,
                schema=ws.schema,
                attackers=tuple(params["attackers"]),
                n_trees=int(params["n_trees"]),
                bootstrap=int(params["bootstrap"]),
                seed=seed,
                progress=step,
                **engine_backend(),
            )
        return out

    return run_cached(
        _references_key(ws, params),
        "Reference points: RAPID of a fresh real sample (HALF) and of a copy (SELF)",
        compute,
    )


def reference_reading(release: pc.RapidResult, half: pc.RapidResult, copy: pc.RapidResult) -> str:
    """One plain paragraph: where the release's RAPID sits against HALF and SELF.

    All three results must be at the same threshold and score variant. The release
    "discloses no more than a fresh real sample would" when its RAPID is not above the
    upper end of HALF's interval; otherwise the paragraph says by how much it exceeds
    HALF and how far it is on the way from HALF to SELF. It reads the headline, the
    strongest attacker's RAPID (``rate_max``, §2.5), of each of the three.
    """
    v, h, c = release.rate_max, half.rate_max, copy.rate_max
    lo, hi = half.ci_max if half.ci_max is not None else (h, h)
    refs = (
        f"HALF, a fresh real sample used as a release, reads {h:.3f} (95% CI {lo:.3f} – "
        f"{hi:.3f}); SELF, a copy of the real data, reads {c:.3f} — each its strongest "
        "attacker, same attackers, same threshold."
    )
    if v <= hi:
        where = "below" if v < lo else "within"
        return (
            f"**This release discloses no more than a fresh real sample would**: its "
            f"headline RAPID {v:.3f} is {where} HALF's interval. {refs}"
        )
    text = (
        f"**This release discloses more than a fresh real sample would**: its headline "
        f"RAPID {v:.3f} is {v - h:.3f} above HALF ({v - hi:.3f} above the upper end of its "
        f"interval)"
    )
    if c > h:
        share = (v - h) / (c - h)
        text += (
            ", beyond a copy of the real data"
            if share > 1
            else f", {share:.0%} of the way from a fresh sample to a copy"
        )
    return text + f". {refs}"
