"""Utility: machine-learning affinity, query error and the real-vs-synthetic discriminator.

Contract
--------
Each measure is a pure function (data first, keyword-only options, ``seed``) returning a
frozen :class:`~privacy_core.results.MetricResult`; all three need no threat model:

* :func:`ml_affinity` (``mla``): relative performance gap of evaluators trained on the
  release instead of the real data, tested on the real holdout; one row per evaluator and
  release in ``records``.
* :func:`query_error` (``query_error``): mean absolute error of random 1-, 2- and 3-way
  range / point query answers; one row per query in ``records``.
* :func:`discriminator` (``discriminator``): ROC AUC of a gradient-boosting classifier
  telling real from synthetic records; one row per test record in ``records``.

Inputs are validated by :func:`~privacy_core.inputs.prepare_release_tables`, the
threat-free half of :func:`~privacy_core.inputs.prepare_review`.

Modules
-------
``evaluators``
    The models of ML affinity, their seeds and their scores.
``affinity``
    :func:`ml_affinity`.
``queries``
    :func:`query_error`.
``detection``
    :func:`discriminator`.
"""

from __future__ import annotations

from ..inputs import ReleaseTables, prepare_release_tables
from .affinity import MLA_MAX_TRAIN as MLA_MAX_TRAIN
from .affinity import TARGET_TRANSFORMS as TARGET_TRANSFORMS
from .affinity import ml_affinity
from .detection import discriminator
from .evaluators import (
    DEFAULT_EVALUATORS,
    EVALUATOR_LABELS,
    EVALUATORS,
    weighted_f1_from_confusion,
)
from .queries import query_error

__all__ = [
    "EVALUATORS",
    "EVALUATOR_LABELS",
    "DEFAULT_EVALUATORS",
    "ReleaseTables",
    "prepare_release_tables",
    "ml_affinity",
    "query_error",
    "discriminator",
    "weighted_f1_from_confusion",
]
