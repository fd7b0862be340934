"""Glue for the privacy-metrics page: parameters, per-measure cached evaluation."""

from __future__ import annotations

from typing import Any

import privacy_core as pc
from privacy_core.measures import MEASURES, evaluate_measures

from .cached import cached_evaluation, evaluate, scoped_key
from .runner import run_cached
from .state import Workspace

PRIVACY_MEASURES = [n for n, m in MEASURES.items() if m.family == "privacy" and n != "rapid"]
FAST_DEFAULT = [n for n in PRIVACY_MEASURES if MEASURES[n].fast]
SLOW = [n for n in PRIVACY_MEASURES if not MEASURES[n].fast]
INDICATORS = tuple(n for n in PRIVACY_MEASURES if MEASURES[n].indicator)
ATTACKS = ("singling_out", "linkability", "inference", "ml_inference")


def privacy_params(ws: Workspace) -> dict[str, Any]:
    n = len(ws.real.frame)
    qis = list(ws.quasi_identifiers)
    if len(qis) >= 2:  # two halves that each identify as many records as the QIs allow
        aux_a, aux_b = pc.informative_split(ws.real.frame, qis)
    else:
        aux_a, aux_b = qis, qis[:1]
    # every record is attacked up to 50,000 rows (consensus R2; 500 sampled targets read a
    # private release as 0.2 by chance); singling out's predicates stay at 500 above 5,000
    defaults = {"n_attacks": 0 if n <= 50_000 else 500, "k": 5, "radius": 0.1, "seed": 0,
                "aux_a": tuple(aux_a), "aux_b": tuple(aux_b),
                "so_mode": "multivariate",
                "so_cols": min(3, len(ws.schema.included))}
    params = {**defaults, **(ws.setting("privacy") or {})}
    # a later type change may have excluded columns since the setting was stored
    params["so_cols"] = max(1, min(int(params["so_cols"]), len(ws.schema.included)))
    params["n_rows"] = n
    return params


def _options(name: str, params: dict[str, Any]) -> dict[str, Any]:
    n_attacks = params["n_attacks"] or None  # 0 means every record (consensus R2)
    # singling out draws one predicate per distinct record for "every record": affordable
    # up to 5,000 rows, 500 predicates (the attack's default) above
    so_attacks = n_attacks or (None if params.get("n_rows", 0) <= 5000 else 500)
    opts: dict[str, dict[str, Any]] = {
        "knn": {"k_max": params["k"]},
        "singling_out": {"n_attacks": so_attacks, "mode": params["so_mode"],
                         "n_cols": params["so_cols"] if params["so_mode"] == "multivariate"
                         else 1},
        "linkability": {"n_attacks": n_attacks,
                        "aux_cols": (list(params["aux_a"]), list(params["aux_b"]))},
        "inference": {"n_attacks": n_attacks},
        "ml_inference": {"n_attacks": n_attacks},
        "gtcap": {"radius": params["radius"]},
    }
    return opts.get(name, {})


def measure_options(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """The keyword options of one measure under the page's settings."""
    return dict(_options(name, params))


def available(ws: Workspace, name: str) -> bool:
    return ws.holdout is not None or not MEASURES[name].needs_holdout


def _key(ws: Workspace, name: str, params: dict[str, Any]) -> str:
    return scoped_key(ws, f"privacy:{name}", {**_options(name, params), "seed": params["seed"]})


def cached_results(ws: Workspace, names: list[str], params: dict[str, Any]
                   ) -> dict[str, pc.MetricResult]:
    out = {}
    for n in names:
        hit = cached_evaluation(_key(ws, n, params))
        if hit is not None:
            out[n] = hit
    return out


def run_measures(ws: Workspace, names: list[str], params: dict[str, Any]
                 ) -> dict[str, pc.MetricResult]:
    """Compute the missing measures one by one (each cached on its own)."""
    out = cached_results(ws, names, params)
    for n in names:
        if n in out or not available(ws, n):
            continue

        def compute(progress, n=n):
            return evaluate_measures(
                ws.real.frame, [t.frame for t in ws.releases], names=[n], threat=ws.threat,
                holdout=ws.holdout.frame if ws.holdout is not None else None, schema=ws.schema,
                seed=int(params["seed"]), options={n: _options(n, params)},
                progress=progress)[n]

        res = run_cached(_key(ws, n, params), f"{MEASURES[n].label}", compute)
        if res is not None:
            out[n] = res
    return out


def nearest_records(ws: Workspace, release: int, record: Any):
    """A real record's nearest rows of one release (table, differing-cell mask), computed
    once per (workspace, release, record) rather than on every rerun of the page."""
    from privacy_core.risk.agreement import nearest_synthetic_records

    def compute():
        real_c = pc.prepare_table(ws.real.frame, ws.schema)
        syn_c = pc.conform_table(ws.releases[release].frame, ws.schema)
        return nearest_synthetic_records(real_c, syn_c, record, schema=ws.schema)

    return evaluate(scoped_key(ws, "privacy:nearest", {"release": release, "record": record}),
                    compute)
