"""RAPID: Risk of Attribute Prediction-Induced Disclosure.

An attacker trains a model on the release (quasi-identifiers -> sensitive attribute) and
applies it to every real record. A record is at risk when the prediction is confidently
correct beyond what the marginal distribution alone gives:

* categorical y: normalised gain r_i = (g_i - b_i) / (1 - b_i) > tau, with g_i the
  predicted probability of the true class and b_i the real prevalence of that class
  (``method="marginal"``, default tau 0.3); the R package's ``conditional`` (r_i = g_i /
  b_k with b_k the mean g over class k, default tau 1) and ``nce`` (normalised entropy,
  1 + log(g_i)/log K) variants are options;
* continuous y: error e_i < epsilon, with e_i relative |y - ŷ| / (|y| + delta)
  (default, epsilon 0.10), absolute, normalised by the SD of y, or symmetric. The paper
  states epsilon as a percentage ("10 %"); here it is a proportion (0.10), and 1 or more
  is rejected for the relative and symmetric errors
  (:func:`~privacy_core.validation.check_epsilon`).

RAPID = share of real records at risk. The expensive part (fitting the attackers on
each synthetic replicate) happens once in :func:`rapid`; thresholds, score variants and
intervals are re-aggregated by :meth:`RapidResult.at` from the stored per-record
probabilities / predictions and pre-drawn bootstrap weights: one matrix product.

The package, one module per step; every name below is importable from here:

* :mod:`~privacy_core.risk.rapid.scores`: the per-record gains and errors, their
  variants, default thresholds and threshold ranges;
* :mod:`~privacy_core.risk.rapid.bootstrap`: bootstrap weights drawn once per fit and
  the sorted index that answers bootstrap rates at any threshold;
* :mod:`~privacy_core.risk.rapid.aggregation`: RAPID, its envelope and intervals at one
  threshold; :mod:`~privacy_core.risk.rapid.curves`: along a grid of thresholds;
* :mod:`~privacy_core.risk.rapid.result`: :class:`RapidResult`, one fit re-aggregated
  at any threshold; :mod:`~privacy_core.risk.rapid.members`: members against
  non-members; :mod:`~privacy_core.risk.rapid.attribution`: risk by class, by subgroup
  and by quasi-identifier;
* :mod:`~privacy_core.risk.rapid.options`, :mod:`~privacy_core.risk.rapid.targets` and
  :mod:`~privacy_core.risk.rapid.fit`: :func:`rapid`, the attacker fits;
* :mod:`~privacy_core.risk.rapid.calibration` and
  :mod:`~privacy_core.risk.rapid.permutation`: the threshold from a permutation null;
* :mod:`~privacy_core.risk.rapid.synthesizer_cv`: a generator's expected RAPID by
  cross-validation; :mod:`~privacy_core.risk.rapid.paper`: the paper's simulation study.

Notes
-----
Templ, Thees & Müller, RAPID (``rapid-attribute-inference.md``) §2-§5;
``metric-reference.md`` §6 for the R package's variants.
"""

from .aggregation import INTERVALS
from .attribution import rapid_attribution
from .bootstrap import ThresholdBootstrap
from .calibration import (
    CALIBRATION_RULES,
    DEFAULT_PERMUTATIONS,
    LABEL_PERMUTATIONS,
    MIN_NULL_PERMUTATIONS,
    PERMUTE_MODES,
    RapidCalibration,
    calibration_grid,
    rapid_null_calibration,
)
from .curves import default_thresholds
from .fit import rapid
from .options import DEFAULT_ATTACKERS
from .paper import (
    HEALTH_CLASSES,
    PAPER_PRESET,
    rapid_paper_preset,
    rapid_paper_study,
    summarize_paper_study,
)
from .permutation import rapid_permutation_threshold
from .result import RapidResult
from .scores import (
    CATEGORICAL_METHODS,
    DEFAULT_EPSILON,
    DEFAULT_TAU,
    ERROR_METRICS,
    TAU_RANGE,
    categorical_scores,
    check_tau,
    continuous_errors,
    rapid_from_scores,
)
from .synthesizer_cv import rapid_synthesizer_cv

__all__ = [
    "CALIBRATION_RULES",
    "CATEGORICAL_METHODS",
    "DEFAULT_ATTACKERS",
    "DEFAULT_EPSILON",
    "DEFAULT_PERMUTATIONS",
    "DEFAULT_TAU",
    "ERROR_METRICS",
    "HEALTH_CLASSES",
    "INTERVALS",
    "LABEL_PERMUTATIONS",
    "MIN_NULL_PERMUTATIONS",
    "PAPER_PRESET",
    "PERMUTE_MODES",
    "TAU_RANGE",
    "RapidCalibration",
    "RapidResult",
    "ThresholdBootstrap",
    "calibration_grid",
    "categorical_scores",
    "check_tau",
    "continuous_errors",
    "default_thresholds",
    "rapid",
    "rapid_attribution",
    "rapid_from_scores",
    "rapid_null_calibration",
    "rapid_paper_preset",
    "rapid_paper_study",
    "rapid_permutation_threshold",
    "rapid_synthesizer_cv",
    "summarize_paper_study",
]
