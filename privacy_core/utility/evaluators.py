"""The evaluators of machine-learning affinity: the models, their seeds and their scores.

Contract
--------
* :data:`EVALUATORS` names the models (``linear``, ``tree``, ``rf``, ``xgb``, ``mlp``);
  :func:`fit_predict` trains one, seeded, on a table and predicts another; a training set
  with a single class predicts that class without a model.
* :func:`score_bootstrap` scores predictions (support-weighted F1 for a classification,
  RMSE for a regression) under each row of a matrix of resampling weights, and
  :func:`relative_gap` is ML affinity's |A_T - A_S| / A_T.
* :func:`integer_seeds` derives the integer seeds sklearn and xgboost take.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning

from ..errors import ParameterError
from ..stats import child_seeds

__all__ = [
    "DEFAULT_EVALUATORS",
    "EVALUATORS",
    "EVALUATOR_LABELS",
    "check_evaluators",
    "fit_predict",
    "integer_seeds",
    "relative_gap",
    "score_bootstrap",
    "weighted_f1_from_confusion",
]

EVALUATORS = ("linear", "tree", "rf", "xgb", "mlp")
EVALUATOR_LABELS = {
    "linear": "Logistic regression / ridge",
    "tree": "Decision tree",
    "rf": "Random forest",
    "xgb": "Gradient boosting (xgboost)",
    "mlp": "Multilayer perceptron",
}
DEFAULT_EVALUATORS = ("linear", "tree", "rf", "xgb")


def integer_seeds(seed: int, k: int) -> list[int]:
    """``k`` child seeds of ``seed`` as integers below 2**31 - 1 (what sklearn takes)."""
    return [s % (2**31 - 1) for s in child_seeds(seed, k)]


def _make_model(name: str, *, classification: bool, seed: int, n_jobs: int) -> Any:
    if name == "linear":
        from sklearn.linear_model import LogisticRegression, Ridge

        return LogisticRegression(max_iter=500) if classification else Ridge(alpha=1.0)
    if name == "tree":
        from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

        cls = DecisionTreeClassifier if classification else DecisionTreeRegressor
        return cls(min_samples_leaf=5, random_state=seed)
    if name == "rf":
        from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

        cls = RandomForestClassifier if classification else RandomForestRegressor
        return cls(
            n_estimators=100,
            min_samples_leaf=2,
            max_features="sqrt",
            n_jobs=n_jobs,
            random_state=seed,
        )
    if name == "xgb":
        from xgboost import XGBClassifier, XGBRegressor

        cls = XGBClassifier if classification else XGBRegressor
        # one thread, as RAPID's attackers: xgboost's pool oversubscribes shared cores
        # (the risk lab's worker processes)
        return cls(
            n_estimators=100,
            max_depth=6,
            learning_rate=0.3,
            tree_method="hist",
            n_jobs=1,
            random_state=seed,
            verbosity=0,
        )
    from sklearn.neural_network import MLPClassifier, MLPRegressor

    cls = MLPClassifier if classification else MLPRegressor
    return cls(hidden_layer_sizes=(64, 64), early_stopping=True, max_iter=200, random_state=seed)


def check_evaluators(evaluators: Sequence[str] | str) -> tuple[str, ...]:
    """The evaluator names (a list or a comma-separated string), checked, without repeats."""
    names = (
        tuple(e.strip() for e in evaluators.split(","))
        if isinstance(evaluators, str)
        else tuple(evaluators)
    )
    bad = [e for e in names if e not in EVALUATORS]
    if bad or not names:
        raise ParameterError(
            f"Unknown evaluator(s) {bad or names!r}; choose from {', '.join(EVALUATORS)}."
        )
    return tuple(dict.fromkeys(names))


def fit_predict(
    name: str,
    X: np.ndarray,
    y: np.ndarray,
    X_test: np.ndarray,
    *,
    classification: bool,
    seed: int,
    n_jobs: int,
) -> np.ndarray:
    """Predictions on X_test (class codes for classification) of one trained evaluator."""
    if classification:
        present = np.unique(y)
        if present.size == 1:  # nothing to learn: every model would predict this class
            return np.full(X_test.shape[0], present[0])
        model = _make_model(name, classification=True, seed=seed, n_jobs=n_jobs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, np.searchsorted(present, y))
        return present[np.asarray(model.predict(X_test)).astype(np.int64)]
    model = _make_model(name, classification=False, seed=seed, n_jobs=n_jobs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    return np.asarray(model.predict(X_test), dtype=float)


def weighted_f1_from_confusion(confusion: np.ndarray) -> np.ndarray:
    """Support-weighted F1 from confusion counts ``(..., K, K)`` (true on axis -2).

    Equals ``sklearn.metrics.f1_score(average="weighted")``: per-class F1 = 2TP / (2TP +
    FP + FN), 0 when undefined, weighted by the true-class counts.
    """
    c = np.asarray(confusion, dtype=float)
    tp = np.diagonal(c, axis1=-2, axis2=-1)
    support = c.sum(axis=-1)
    predicted = c.sum(axis=-2)
    denom = support + predicted
    f1 = np.divide(2 * tp, denom, out=np.zeros_like(tp), where=denom > 0)
    total = support.sum(axis=-1)
    return np.divide((f1 * support).sum(axis=-1), total, out=np.zeros_like(total), where=total > 0)


def score_bootstrap(
    y: np.ndarray, pred: np.ndarray, weights: np.ndarray, *, classification: bool, n_classes: int
) -> np.ndarray:
    """The score (F1 or RMSE) under each row of resampling ``weights`` (B, n)."""
    n = y.shape[0]
    if classification:
        cell = y.astype(np.int64) * n_classes + pred.astype(np.int64)
        onehot = sparse.csr_matrix(
            (np.ones(n, dtype=np.float32), (np.arange(n), cell)), shape=(n, n_classes * n_classes)
        )
        conf = np.asarray((sparse.csr_matrix(weights) @ onehot).todense())
        return weighted_f1_from_confusion(conf.reshape(-1, n_classes, n_classes))
    sq = (y - pred) ** 2
    return np.sqrt(weights @ sq / n)


def relative_gap(score_real: np.ndarray, score_syn: np.ndarray) -> np.ndarray:
    """|A_T - A_S| / A_T; 0 when both are 0, NaN when only A_T is 0."""
    sr = np.asarray(score_real, dtype=float)
    ss = np.asarray(score_syn, dtype=float)
    diff = np.abs(sr - ss)
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = diff / sr
    return np.where(sr > 0, gap, np.where(diff == 0, 0.0, np.nan))
