"""The registry of every measure: one place that knows their names, needs and cost.

The command line (``privacy``, ``fidelity``, ``sweep``), the app's pages and the risk lab
all look measures up here, so a measure added to the engine is added here once.
Functions are referenced by import path and imported on first use, which keeps
``import privacy_core`` light.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from .data import Schema
from .errors import ParameterError
from .results import MetricResult, combine_replicates
from .threat import ThreatModel

ProgressFn = Callable[[float, str], None]


@dataclass(frozen=True)
class MeasureSpec:
    """How to call one measure."""

    name: str
    label: str
    family: Literal["privacy", "fidelity"]
    target: str  # "module:function"
    needs_holdout: bool
    fast: bool
    needs_threat: bool = True
    description: str = ""
    uses_holdout: bool = True  # takes an optional holdout (as its control / reference)
    replicates_native: bool = False  # accepts a list of releases itself
    # a similarity indicator, not a disclosure measure (consensus R3)
    indicator: bool = False

    @property
    def function(self) -> Callable[..., MetricResult]:
        module, func = self.target.split(":")
        return getattr(importlib.import_module(f"privacy_core.{module}"), func)


def _m(name: str, label: str, family: str, target: str, *, holdout: bool, fast: bool,
       threat: bool = True, description: str = "", uses_holdout: bool = True,
       native: bool = False, indicator: bool = False) -> MeasureSpec:
    return MeasureSpec(name, label, family, target, holdout, fast, threat,  # type: ignore[arg-type]
                       description, uses_holdout, native, indicator)


MEASURES: dict[str, MeasureSpec] = {m.name: m for m in [
    _m("rapid", "RAPID attribute inference", "privacy", "risk.rapid:rapid", holdout=False,
       uses_holdout=False, native=True,
       fast=False, description="Share of real records whose secret an attacker trained on the "
                               "release predicts confidently beyond the base rate."),
    _m("ims", "Identical match share", "privacy", "risk.distance:identical_match_share",
       holdout=False, fast=True, indicator=True,
       description="Share of synthetic rows that copy a real row."),
    _m("dcr", "DCR (SRD vs RRD)", "privacy", "risk.distance:dcr", holdout=False, fast=True,
       indicator=True,
       description="Are synthetic rows closer to training rows than real rows are to each other?"),
    _m("knn", "DCR k-NN variants", "privacy", "risk.distance:dcr_knn", holdout=False, fast=False,
       indicator=True,
       description="DCR with the distance to the k nearest training rows, k = 1..K."),
    _m("singling_out", "Singling out", "privacy", "risk.attacks:singling_out", holdout=False,
       fast=True, description="Predicates from the release that isolate exactly one real person."),
    _m("linkability", "Linkability", "privacy", "risk.attacks:linkability", holdout=False,
       fast=True, description="Can two halves of a person's record be linked through the release?"),
    _m("inference", "Distance-based inference", "privacy", "risk.attacks:distance_inference",
       holdout=False, fast=True, description="The closest synthetic row's secret as a guess."),
    _m("ml_inference", "ML inference", "privacy", "risk.attacks:ml_inference", holdout=True,
       fast=True, description="xgboost trained on the release: members vs non-members."),
    _m("gtcap", "GTCAP", "privacy", "risk.cap:gtcap", holdout=True, fast=False,
       description="Correct attribution from target-homogeneous synthetic key groups."),
    _m("domias", "DOMIAS", "privacy", "risk.membership:domias", holdout=True, fast=False,
       description="Density-ratio membership inference (AUC, normalised)."),
    _m("membership", "Membership disclosure (F_rel)", "privacy",
       "risk.membership:membership_disclosure", holdout=True, fast=True,
       description="Partition attack by matching, F1 relative to a naive guesser."),
    _m("wasserstein", "Wasserstein fidelity", "fidelity", "fidelity:wasserstein_fidelity",
       holdout=False, fast=False, threat=False, uses_holdout=False, native=True),
    _m("mla", "ML affinity", "fidelity", "utility:ml_affinity", holdout=True, fast=False),
    _m("query_error", "Query error", "fidelity", "utility:query_error", holdout=False,
       fast=True, threat=False, uses_holdout=False),
    _m("discriminator", "Real-vs-synthetic discriminator", "fidelity", "utility:discriminator",
       holdout=False, fast=True, threat=False, uses_holdout=False),
]}


def get_measure(name: str) -> MeasureSpec:
    try:
        return MEASURES[name]
    except KeyError:
        raise ParameterError(
            f"Unknown measure {name!r}; choose from {', '.join(MEASURES)}."
        ) from None


def measure_names(family: str | None = None, *, fast_only: bool = False) -> list[str]:
    return [m.name for m in MEASURES.values()
            if (family is None or m.family == family) and (m.fast or not fast_only)]


def evaluate_measures(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    names: Sequence[str],
    threat: ThreatModel | None = None,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    seed: int = 0,
    options: dict[str, dict[str, Any]] | None = None,
    progress: ProgressFn | None = None,
) -> dict[str, MetricResult]:
    """Run several registered measures on the same inputs.

    ``options`` maps a measure name to extra keyword arguments for it. Measures that need
    a holdout are run only when one is given (a clear error otherwise).
    """
    specs = [get_measure(n) for n in names]
    out: dict[str, MetricResult] = {}
    for i, spec in enumerate(specs):
        if progress:
            progress(i / max(len(specs), 1), f"{spec.label}")
        if spec.needs_holdout and holdout is None:
            raise ParameterError(
                f"{spec.label} needs a holdout (real rows the generator never saw); "
                "give one or leave this measure out."
            )
        kwargs: dict[str, Any] = {"seed": seed, "schema": schema}
        if spec.needs_threat:
            if threat is None:
                raise ParameterError(f"{spec.label} needs a threat model (QIs and sensitive).")
            kwargs["threat"] = threat
        if holdout is not None and (spec.needs_holdout or spec.uses_holdout):
            kwargs["holdout"] = holdout
        kwargs.update((options or {}).get(spec.name, {}))
        releases = [synthetic] if isinstance(synthetic, pd.DataFrame) else list(synthetic)
        if spec.replicates_native or len(releases) == 1:
            out[spec.name] = spec.function(real, releases if len(releases) > 1 else releases[0],
                                           **kwargs)
        else:  # one call per release, then mean and spread across releases (R10)
            out[spec.name] = combine_replicates(
                [spec.function(real, rel, **kwargs) for rel in releases])
    if progress:
        progress(1.0, "done")
    return out
