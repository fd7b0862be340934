"""Reference releases for fidelity: HALF (two halves of the real data, the best a release
can be expected to reach) and HISTOGRAM (independent columns, the floor a useful generator
must beat), evaluated with the same measures as a release (Du & Li §7.2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .data import Schema
from .errors import ParameterError
from .evaluation import evaluate
from .fidelity import FIDELITY_METRICS
from .inputs import prepare_release_tables
from .progress import ProgressFn, share
from .results import MetricResult
from .synth import half_split, synthesize
from .threat import ThreatModel
from .validation import check_seed

BASELINES = ("half", "histogram")


def fidelity_baselines(
    real: pd.DataFrame,
    *,
    holdout: pd.DataFrame | None = None,
    target: str | None = None,
    threat: ThreatModel | None = None,
    schema: Schema | None = None,
    metrics: Sequence[str] | str | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> dict[str, dict[str, MetricResult]]:
    """Evaluate the HALF and HISTOGRAM reference releases with the fidelity measures.

    The real table is split at random into two halves
    (:func:`privacy_core.synth.half_split`, the one HALF split of the engine and app).
    Half A plays the real data in both references; half B is what the reference
    "generators" see:

    * ``half``: the release is half B itself. Two real samples of one population: the
      best fidelity a release can be expected to reach.
    * ``histogram``: every column drawn independently from its marginal in half B, as many
      rows as half A. Right 1-way marginals, no dependence: the floor a useful generator
      must beat.

    Both compare tables of the same size (n/2 rows), as SynMeter compares every release
    with its test split. ``mla`` trains the "real" evaluators on half A and tests on the
    holdout.

    Returns
    -------
    dict
        ``{"half": {metric: result}, "histogram": {metric: result}}``.

    Notes
    -----
    Du & Li §7.2 (``metric-reference.md`` §1f). The references carry the sampling noise of
    n/2-row tables; a release compared with the whole real table (n rows) has less, so on
    small tables read the references as approximate.
    """
    seed = check_seed(seed)
    data = prepare_release_tables(real, real, holdout=holdout, schema=schema, min_rows=4)
    real_c = data.real.reset_index(drop=True)
    half_a, half_b = half_split(real_c, seed=seed)
    hist_syn = synthesize(half_b, method="histogram", n=len(half_a), seed=seed)
    pairs = {"half": (half_a, half_b), "histogram": (half_a, hist_syn)}
    if target is None and threat is not None:
        target = threat.target
    chosen = _choose_metrics(metrics, can_mla=data.holdout is not None and target is not None)
    unknown = [k for k in (options or {}) if k not in FIDELITY_METRICS]
    if unknown:
        raise ParameterError(
            f"`options` keys must be metric names ({', '.join(FIDELITY_METRICS)}); got {unknown!r}."
        )
    per_measure = {name: dict((options or {}).get(name, {})) for name in chosen}
    if "mla" in chosen and target is not None:
        per_measure["mla"].setdefault("target", target)
    out = {}
    for i, (name, (r, s)) in enumerate(pairs.items()):
        out[name] = dict(
            evaluate(
                r,
                s,
                measures=chosen,
                holdout=data.holdout,
                threat=threat,
                schema=data.schema,
                options=per_measure,
                seed=seed,
                progress=share(progress, i, len(pairs), name.upper()),
            ).results
        )
    return out


def _choose_metrics(metrics: Sequence[str] | str | None, *, can_mla: bool) -> list[str]:
    if metrics is None:
        return [m for m in FIDELITY_METRICS if m != "mla" or can_mla]
    names = (
        [m.strip() for m in metrics.split(",")]
        if isinstance(metrics, str)
        else [str(m) for m in metrics]
    )
    bad = [m for m in names if m not in FIDELITY_METRICS]
    if bad or not names:
        raise ParameterError(
            f"Unknown fidelity metric(s) {bad or names!r}; choose from "
            f"{', '.join(FIDELITY_METRICS)}."
        )
    if "mla" in names and not can_mla:
        raise ParameterError(
            "`mla` (machine-learning affinity) needs a holdout of real rows and a target "
            "column; give `holdout` and `target` (or a threat model), or leave `mla` out."
        )
    return list(dict.fromkeys(names))


__all__ = ["BASELINES", "fidelity_baselines"]
