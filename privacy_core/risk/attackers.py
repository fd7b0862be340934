"""The attacker suite: models trained on a release to predict a secret from QIs.

Each attacker is a scikit-learn style estimator fitted on the encoded quasi-identifiers
of the synthetic data and applied to the real records. Categorical targets get class
probabilities over the *real* class list (a class absent from the release gets
probability 0); continuous targets get point predictions.

Attackers (RAPID paper §4, §5.6 Table 1): ``rf`` random forest (500 trees, probabilities,
as ranger), ``xgb`` gradient boosting (xgboost, 100 rounds), ``cart`` a single decision
tree (rpart's defaults: at least 20 rows to split, 7 per leaf, complexity 0.01, pruned on
misclassification as rpart prunes: :mod:`.rpart`), ``logit``
L1-penalised logistic regression for categorical targets and the lasso for continuous ones.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LassoCV, LogisticRegression
from sklearn.tree import DecisionTreeRegressor

from ..errors import ParameterError, UntrustworthyResultWarning
from .rpart import RpartClassifier

ATTACKERS = ("rf", "xgb", "cart", "logit")
# ML inference's default attacker (not one of RAPID's): xgboost without regularisation or
# capacity caps that act as one (no L2 penalty, no minimum leaf weight, deep trees, fine
# histogram bins), so it can memorise a release that copies its training rows. The
# default xgboost (depth 6, 256 bins, lambda 1) reads a full copy of 6,666 records as
# only 0.55; this one reads it as 0.999, and unseen rows as 0.02 (calibration contract).
UNREGULARISED_XGB = {
    "n_estimators": 50,
    "max_depth": 10,
    "max_bin": 1024,
    "learning_rate": 0.5,
    "min_child_weight": 0.0,
    "reg_lambda": 0.0,
}
DEFAULT_XGB = {"n_estimators": 100, "max_depth": 6, "learning_rate": 0.3}
XGB_VARIANTS = {"xgb": DEFAULT_XGB, "xgb-unregularised": UNREGULARISED_XGB}
# xgboost runs single-threaded: on 2 shared cores its thread pool oversubscribes (fits took
# 10-100x longer under load), and boosting on QIs is fast enough on one core.
ATTACKER_LABELS = {
    "rf": "Random forest",
    "xgb": "Gradient boosting (xgboost)",
    "cart": "Decision tree (CART)",
    "logit": "L1 logistic / lasso",
}
# rpart.control's defaults (minsplit 20, minbucket round(20/3) = 7, cp 0.01), which the
# RAPID package's model_type = "cart" uses. rpart's cp is relative to the root node's
# risk: for a class, its misclassified records (RpartClassifier prunes on them); for a
# number, its sum of squares, which is scikit-learn's impurity times the node size, so
# the regression tree's absolute alpha is cp times the root variance (_cart_alpha).
CART_PARAMS = {"min_samples_split": 20, "min_samples_leaf": 7, "max_depth": 30}
CART_CP = 0.01
# The random forest grows each tree on a bootstrap sample of at most this many release
# rows. Fully grown trees hold about one leaf per few training rows: at a million rows
# with continuous quasi-identifiers, 500 trees took 12 GB (issue 33). Above the cap each
# tree sees a seeded subsample, as in a subsampled forest, so memory stops growing with
# the release while 500 trees still see every row many times over; at or below it (every
# table of the calibration runs and the papers' experiments) nothing changes.
RF_MAX_SAMPLES = 100_000


def rf_max_samples(n_rows: int) -> int | None:
    """The forest's bootstrap size for a release of ``n_rows``: scikit-learn's default
    (``None``, n rows) up to :data:`RF_MAX_SAMPLES`, then the cap."""
    return None if n_rows <= RF_MAX_SAMPLES else RF_MAX_SAMPLES


def _cart_alpha(y: np.ndarray) -> float:
    return CART_CP * float(np.var(y))


@dataclass(frozen=True)
class AttackerOutput:
    """What one fitted attacker says about the target records."""

    proba: np.ndarray | None  # (n_targets, n_classes) for categorical targets
    prediction: np.ndarray  # class codes (categorical) or values (continuous)
    importance: np.ndarray  # per encoded feature, non-negative, sums to 1 (or all 0)


def check_attackers(attackers: Sequence[str] | str) -> tuple[str, ...]:
    names = (
        tuple(a.strip() for a in attackers.split(","))
        if isinstance(attackers, str)
        else tuple(attackers)
    )
    bad = [a for a in names if a not in ATTACKERS]
    if bad or not names:
        raise ParameterError(
            f"Unknown attacker(s) {bad or names!r}; choose from {', '.join(ATTACKERS)}."
        )
    return names


def _normalise(imp: np.ndarray) -> np.ndarray:
    imp = np.abs(np.asarray(imp, dtype=float))
    total = imp.sum()
    return imp / total if total > 0 else imp


def fit_predict(
    attacker: str,
    X_train: np.ndarray,
    y_train: np.ndarray,
    X_target: np.ndarray,
    *,
    categorical: bool,
    n_classes: int = 0,
    n_trees: int = 500,
    seed: int = 0,
    n_jobs: int = -1,
) -> AttackerOutput:
    """Fit ``attacker`` on (X_train, y_train) and predict X_target.

    For categorical targets ``y_train`` holds integer class codes in [0, n_classes).
    """
    if categorical:
        return _fit_classifier(
            attacker,
            X_train,
            y_train.astype(np.int64),
            X_target,
            n_classes=n_classes,
            n_trees=n_trees,
            seed=seed,
            n_jobs=n_jobs,
        )
    return _fit_regressor(
        attacker,
        X_train,
        y_train.astype(float),
        X_target,
        n_trees=n_trees,
        seed=seed,
        n_jobs=n_jobs,
    )


def _fit_classifier(
    attacker: str,
    X: np.ndarray,
    y: np.ndarray,
    X_t: np.ndarray,
    *,
    n_classes: int,
    n_trees: int,
    seed: int,
    n_jobs: int,
) -> AttackerOutput:
    present = np.unique(y)
    proba = np.zeros((X_t.shape[0], n_classes), dtype=np.float64)
    if present.size == 1:
        warnings.warn(
            "The release has a single class of the sensitive attribute; the attacker "
            "predicts it with certainty.",
            UntrustworthyResultWarning,
            stacklevel=3,
        )
        if present[0] >= 0:  # -1: a class the real data never hold (invented by the release)
            proba[:, present[0]] = 1.0
        return AttackerOutput(proba, np.full(X_t.shape[0], present[0]), np.zeros(X.shape[1]))
    # Models see contiguous labels; map back to the real class list afterwards.
    remap = np.searchsorted(present, y)
    if attacker == "rf":
        model = RandomForestClassifier(
            n_estimators=n_trees,
            max_features="sqrt",
            min_samples_split=10,
            max_samples=rf_max_samples(len(X)),
            n_jobs=n_jobs,
            random_state=seed,
        )
        model.fit(X, remap)
        importance = model.feature_importances_
    elif attacker in XGB_VARIANTS:
        from xgboost import XGBClassifier

        model = XGBClassifier(
            **XGB_VARIANTS[attacker], tree_method="hist", n_jobs=1, random_state=seed, verbosity=0
        )
        model.fit(X, remap)
        importance = model.feature_importances_
    elif attacker == "cart":
        model = RpartClassifier(cp=CART_CP, **CART_PARAMS, random_state=seed)
        model.fit(X, remap)
        importance = model.feature_importances_
    elif attacker == "logit":
        model = LogisticRegression(
            l1_ratio=1.0, solver="saga", C=1.0, max_iter=300, tol=1e-3, random_state=seed
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, remap)
        importance = np.abs(model.coef_).sum(axis=0)
    else:
        raise ParameterError(f"Unknown attacker {attacker!r}; choose from {', '.join(ATTACKERS)}.")
    # Parallel tree averaging sums in thread order; rounding makes reruns bit-identical.
    p = np.round(model.predict_proba(X_t), 12)
    # a class the real data never hold (code -1, invented by the release) is learnt as a
    # class of its own but has no column among the real classes: its probability is dropped
    keep = present >= 0
    proba[:, present[keep]] = p[:, keep]
    return AttackerOutput(proba, proba.argmax(axis=1), _normalise(importance))


def _fit_regressor(
    attacker: str,
    X: np.ndarray,
    y: np.ndarray,
    X_t: np.ndarray,
    *,
    n_trees: int,
    seed: int,
    n_jobs: int,
) -> AttackerOutput:
    if attacker == "rf":
        model = RandomForestRegressor(
            n_estimators=n_trees,
            max_features=1 / 3,
            min_samples_split=5,
            max_samples=rf_max_samples(len(X)),
            n_jobs=n_jobs,
            random_state=seed,
        )
        model.fit(X, y)
        importance = model.feature_importances_
    elif attacker in XGB_VARIANTS:
        from xgboost import XGBRegressor

        model = XGBRegressor(
            **XGB_VARIANTS[attacker], tree_method="hist", n_jobs=1, random_state=seed, verbosity=0
        )
        model.fit(X, y)
        importance = model.feature_importances_
    elif attacker == "cart":
        model = DecisionTreeRegressor(**CART_PARAMS, random_state=seed, ccp_alpha=_cart_alpha(y))
        model.fit(X, y)
        importance = model.feature_importances_
    elif attacker == "logit":
        model = LassoCV(cv=3, random_state=seed, max_iter=2000)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, y)
        importance = np.abs(model.coef_)
    else:
        raise ParameterError(f"Unknown attacker {attacker!r}; choose from {', '.join(ATTACKERS)}.")
    prediction = np.round(model.predict(X_t).astype(float), 10)
    return AttackerOutput(None, prediction, _normalise(importance))
