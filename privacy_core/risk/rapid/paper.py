"""The RAPID paper's simulation study: its set-up (the paper preset), the study and its summary.

:data:`PAPER_PRESET` is the set-up of the paper's §5 (Table 1, Fig. 5);
:func:`rapid_paper_study` reruns the simulations under it, with the Bayes-optimal
attacker (the true class probabilities) alongside, and :func:`summarize_paper_study`
averages them per (kappa, attacker, tau).

Notes
-----
Templ, Thees & Müller, RAPID (``rapid-attribute-inference.md``) §5 and Appendix A.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...progress import ProgressFn
from ...threat import ThreatModel
from ...validation import check_positive_int, check_seed
from ..attackers import check_attackers
from .fit import rapid
from .scores import categorical_scores

PAPER_PRESET: dict[str, Any] = {
    "dataset": "health",
    "n": 1000,
    "generator": "cart",
    "generator_params": {"min_leaf": 5},
    "quasi_identifiers": ("gender", "age", "education", "income", "health"),
    "sensitive": "disease",
    "attackers": ("rf", "xgb", "cart"),
    "tau": 0.3,
    "n_trees": 500,
    "method": "marginal",
    "forest_encoding": "codes",
}
"""The simulation set-up of the RAPID paper's §5 (Table 1, Fig. 5): n = 1000 records of the
Appendix A health microdata, a CART synthesizer (synthpop's default minimum leaf 5), every
non-sensitive attribute a quasi-identifier, disease the sensitive attribute, tau = 0.3,
500 trees. The paper's Table 1 compares RF, GBM (xgboost) and CART; Fig. 5 uses RF.

Every non-sensitive attribute is a quasi-identifier: Table 1's values reproduce only so
(with the demo's three quasi-identifiers age, education, gender, kappa = 10 reads 0.841
instead of the paper's 0.864, and income carries disease signal of its own).

The forest sees each categorical quasi-identifier as one column of factor level codes
(``forest_encoding="codes"``), as ranger does for the R data frame the authors' package
passes it: with one-hot columns it draws ⌊√8⌋ = 2 of 8 columns at a split, age and income
less often, and reads 0.855 instead of 0.864 over 50 simulations (0.862 with codes)."""


HEALTH_CLASSES = ("diabetic", "healthy", "hypertensive")  # simulate_health_probabilities' columns


def rapid_paper_preset() -> dict[str, Any]:
    """A copy of :data:`PAPER_PRESET` (tuples and a fresh dict: safe to modify)."""
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in PAPER_PRESET.items()}


def rapid_paper_study(
    kappas: Sequence[float] = (10.0,),
    *,
    n_sims: int = 10,
    taus: Sequence[float] = (0.3,),
    attackers: Sequence[str] | str | None = None,
    n: int = PAPER_PRESET["n"],
    n_trees: int = PAPER_PRESET["n_trees"],
    forest_encoding: str | None = None,
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> pd.DataFrame:
    """The paper's simulation study (§5.3, §5.4, §5.6) under :data:`PAPER_PRESET`
    (``forest_encoding`` None: the preset's ``codes``).

    For each kappa and simulation s: simulate ``n`` health records (seed ``seed + s``),
    synthesise one CART release of the same size (seed ``seed + s + 10_000``), fit the
    attackers (seed ``seed + s``) and read RAPID at every tau. The same seeds are used at
    every kappa (common random numbers, so kappa is the only thing that changes).

    Returns one row per (kappa, sim, attacker, tau): ``rapid``, the attacker's
    ``accuracy`` on the real records, and the oracle's (Appendix A's true disease
    probabilities given the released quasi-identifiers, age in whole years, used as the
    attacker's; :func:`~privacy_core.datasets.simulate_health_probabilities` with
    ``released=True``): ``oracle_rapid``, ``oracle_accuracy``. Summarise with
    :func:`summarize_paper_study`.
    """
    from ...data import infer_schema, prepare_table
    from ...datasets import simulate_health, simulate_health_probabilities
    from ...synth import synthesize

    preset = rapid_paper_preset()
    seed = check_seed(seed)
    n_sims = check_positive_int("n_sims", n_sims)
    attackers = check_attackers(preset["attackers"] if attackers is None else attackers)
    threat = ThreatModel(list(preset["quasi_identifiers"]), [preset["sensitive"]])
    taus = [float(t) for t in taus]
    rows = []
    total = len(kappas) * n_sims
    for i, kappa in enumerate(kappas):
        for s in range(n_sims):
            if progress:
                progress((i * n_sims + s) / total, f"kappa {kappa:g}: simulation {s + 1}/{n_sims}")
            real = simulate_health(n, kappa=float(kappa), seed=seed + s)
            syn = synthesize(
                prepare_table(real, infer_schema(real)),
                method=preset["generator"],
                n=n,
                seed=seed + s + 10_000,
                **preset["generator_params"],
            )
            res = rapid(
                real,
                syn,
                threat=threat,
                attackers=attackers,
                tau=preset["tau"],
                method=preset["method"],
                bootstrap=0,
                n_trees=n_trees,
                forest_encoding=forest_encoding or preset["forest_encoding"],
                seed=seed + s,
            )
            acc = res.accuracy()
            # the Bayes-optimal attacker of the release: the true class probabilities given
            # the released QIs (whole years of age, not the continuous draw)
            probs = simulate_health_probabilities(
                n, kappa=float(kappa), seed=seed + s, released=True
            )
            probs = probs[:, [HEALTH_CLASSES.index(c) for c in res.classes]]
            g_or = probs[np.arange(n), res.y_true]
            r_or = categorical_scores(
                g_or, res.y_true, res.prevalence, method="marginal", n_classes=len(res.classes)
            )
            acc_or = float((probs.argmax(axis=1) == res.y_true).mean())
            for t in taus:
                at = res.at(t)
                for a in attackers:
                    rows.append(
                        {
                            "kappa": float(kappa),
                            "sim": s,
                            "attacker": a,
                            "tau": t,
                            "rapid": at.by_attacker[a]["value"],
                            "accuracy": acc[a],
                            "oracle_rapid": float((r_or > t).mean()),
                            "oracle_accuracy": acc_or,
                        }
                    )
    if progress:
        progress(1.0, "Done")
    return pd.DataFrame(rows)


def summarize_paper_study(study: pd.DataFrame) -> pd.DataFrame:
    """Mean, SD, n and standard error of RAPID and accuracy per (kappa, attacker, tau)."""
    g = study.groupby(["kappa", "attacker", "tau"], sort=True)
    out = g.agg(
        rapid=("rapid", "mean"),
        rapid_sd=("rapid", "std"),
        accuracy=("accuracy", "mean"),
        accuracy_sd=("accuracy", "std"),
        oracle_rapid=("oracle_rapid", "mean"),
        oracle_accuracy=("oracle_accuracy", "mean"),
        n_sims=("rapid", "size"),
    ).reset_index()
    out["rapid_se"] = out["rapid_sd"] / np.sqrt(out["n_sims"])
    return out
