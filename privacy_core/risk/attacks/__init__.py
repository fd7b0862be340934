"""Attack-based privacy measures with control baselines.

Four simulated attackers hold the synthetic release and try to learn about real people:

* :func:`singling_out` writes predicates that isolate one synthetic record and checks
  whether they isolate exactly one real record (identity disclosure, WP29 "singling out");
* :func:`linkability` links two partial views of a real record through their nearest
  synthetic neighbours (WP29 "linkability");
* :func:`distance_inference` guesses a secret from the nearest synthetic record on the
  known columns (attribute inference by local neighbourhood);
* :func:`ml_inference` trains gradient boosting on the release and predicts the secret
  (attribute inference, "inference-on-synthetic").

Contract
--------
Every measure is a pure function ``name(real, synthetic, *, threat, holdout=None,
schema=None, ..., seed=0)`` that starts with :func:`~privacy_core.inputs.prepare_review`
and returns a frozen :class:`AttackResult` (or subclass). The same attack runs against
*training* targets (rows of ``real``, which the generator saw) and *control* targets
(rows of ``holdout``, which it did not). With Anonymeter's Wilson centres r = (k + z²/2) /
(n + z²) the risk is R = (r_train - r_control) / (1 - r_control), its half-width follows by
error propagation, and value and interval are clipped to [0, 1]: what the attack learns
about members beyond what it learns about the population. ``baseline`` is the clipped
success rate of a random-guess attacker; a :class:`UntrustworthyResultWarning` is issued
when the attack does not beat it.

Without a holdout, singling out, linkability and distance inference still run: the value
is then the absolute attack success rate, ``params["control"]`` is False and a warning says
that the figure mixes membership leakage with population-level inference. ML inference
needs the holdout (its definition is relative) and raises
:class:`~privacy_core.errors.InsufficientDataError` without it.

Every guess is kept: ``result.records`` has one row per training or control target
(``record`` = the row's index label in its input table, ``role`` = ``training`` or
``control``, ``guess``, ``truth``, ``success``), and ``result.baseline_records`` the
random guesses. Intervals at another confidence level (``result.at(confidence=...)``) and
linkability at fewer neighbours (``result.at(n_neighbors=...)``) are cheap re-readings.

Departures from Anonymeter (``metric-reference.md`` §2), all deliberate:

* seeded ``numpy.random.SeedSequence`` children for every random step (Anonymeter's
  linkability and inference use the global / an unseeded generator);
* distance inference judges a numeric guess correct when |g - s| <= tol·|s| (relative to
  the true value, with abs), fixing the signed-denominator ``[code bug]``;
* nearest-neighbour ties are broken uniformly at random (a seeded permutation of the
  synthetic rows, drawn separately for each search) rather than by sort order;
* distances use the engine's one encoder (numerics scaled by the *real* range, one-hot
  categoricals weighted 1/2 so a mismatch adds 1 under L1, numeric missing values imputed
  by the real median) instead of Anonymeter's per-call joint range and NaN rules;
* singling-out predicates are evaluated on rank-coded columns (one coding of every table,
  reusing the categorical codes from canonicalisation): one-condition predicates by a
  histogram and its cumulative sum, longer ones by bitsets or vectorised masks; query
  generation also stops when 100 consecutive batches add no new predicate.

Notes
-----
Giomi et al. (PoPETs 2023), Anonymeter; ``risk-insertion-framework.md`` §4.3.1-4.3.3
(the attacks), §5.3.2 (the control-set baseline, equation 8); ``consensus-privacy-
framework.md`` R2 (all records: ``n_attacks=None``), R6-R8 and Figure 4 (relative and
absolute attribute-disclosure readings); ``metric-reference.md`` §2 and §8 (ML inference
as in the aindo companion code: XGBoost on S, risk (r_T - r_H) / (1 - r_H)).
"""

from .common import AttackResult, LinkabilityResult, MLInferenceResult
from .inference import distance_inference
from .linkage import informative_split, linkability
from .model_inference import ml_inference
from .predicates import (
    SINGLING_OUT_MODES,
    SIZE_CORRECTIONS,
    singling_out,
    singling_out_outliers,
)
from .secret import inference_success

__all__ = [
    "SINGLING_OUT_MODES",
    "SIZE_CORRECTIONS",
    "AttackResult",
    "LinkabilityResult",
    "MLInferenceResult",
    "distance_inference",
    "inference_success",
    "informative_split",
    "linkability",
    "ml_inference",
    "singling_out",
    "singling_out_outliers",
]
