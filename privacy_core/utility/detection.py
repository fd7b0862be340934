"""The real-vs-synthetic discriminator (``discriminator``): can a classifier tell them apart?

Contract
--------
:func:`discriminator` trains an xgboost classifier on equal numbers of real and synthetic
records (a seeded split that keeps identical records on one side,
:func:`grouped_split`) and returns a :class:`~privacy_core.results.MetricResult` whose
value is the held-out ROC AUC (0.5 ideal, above it lower is better), with one row per
test record in ``records`` and the share of the classifier's gain per source column.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

from ..data import Schema
from ..encoding import TableEncoder
from ..errors import InsufficientDataError, UntrustworthyResultWarning
from ..inputs import ReleaseTables, prepare_release_tables
from ..progress import ProgressFn
from ..results import MetricResult
from ..stats import bootstrap_auc, percentile_interval
from ..threat import ThreatModel
from ..validation import check_confidence, check_in_range, check_positive_int, check_seed
from .evaluators import integer_seeds

__all__ = ["discriminator", "grouped_split"]


def grouped_split(X: np.ndarray, test_size: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Seeded train / test split that keeps rows with identical features on one side.

    A record copied into the release would otherwise sit in training with the label
    "synthetic" while its real twin is tested: the classifier learns the copy and calls
    the real record synthetic, pushing the AUC below 0.5. Kept together, identical rows
    get identical predictions and count as indistinguishable (a tie).
    """
    _, group = np.unique(X, axis=0, return_inverse=True)
    group = group.ravel()
    rng = np.random.default_rng(seed)
    in_test = rng.random(int(group.max()) + 1) < test_size
    test = in_test[group]
    if test.all() or not test.any():  # a degenerate draw on a tiny table: split rows
        test = np.less(rng.random(X.shape[0]), test_size)
    return np.nonzero(~test)[0], np.nonzero(test)[0]


def discriminator(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    schema: Schema | None = None,
    threat: ThreatModel | None = None,
    test_size: float = 0.3,
    max_rows: int | None = 20_000,
    n_estimators: int = 100,
    bootstrap: int = 500,
    confidence: float = 0.95,
    n_jobs: int = 1,
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> MetricResult:
    """How well a classifier tells real records from synthetic ones (ROC AUC).

    Equal numbers of real and synthetic records (the shorter table's length, at most
    ``max_rows`` each, seeded) are encoded by the one table encoder fitted on the real
    table, plus a missing-value indicator per numeric column with missing values (the
    encoder imputes them, which would hide a difference in missingness). An xgboost
    classifier is trained on a seeded split and scored on the held-out part; records with
    identical encoded values stay on the same side of the split, so an exact copy cannot
    teach the classifier that its real twin is synthetic.

    Parameters
    ----------
    schema
        Column kinds; inferred from ``real`` when omitted.
    threat
        Ignored (the classifier sees every column); accepted for one calling convention.
    test_size
        Share of the balanced table held out for scoring.
    max_rows
        Records per class at most (None: all).
    n_estimators
        Boosting rounds (depth 6, learning rate 0.3, histogram trees).
    bootstrap
        Stratified bootstrap replicates of the test predictions for ``ci`` (no refit).
    seed
        Seeds the balancing subsample, the split, the classifier and the bootstrap.

    Returns
    -------
    MetricResult
        ``name="discriminator"``, ``value`` = test AUC (mean over replicates), bounds
        [0, 1], ``baseline`` 0.5. The ideal is 0.5 (indistinguishable) and above it lower
        is better, so ``goal`` is ``lower``. ``extra``: ``auc``, ``accuracy`` (threshold
        0.5), ``advantage`` = max(0, 2·AUC − 1) (0 ideal, 1 fully distinguishable),
        ``below_chance`` (the whole interval lies below 0.5), ``by_replicate`` and
        ``importance`` (share of the classifier's gain per source column: what gives the
        release away). ``records``: one row per test record (``record`` = index in its
        input table, ``source``, ``replicate``, ``p_real``).

    Warns
    -----
    UntrustworthyResultWarning
        When the whole interval lies below 0.5. The real table is the generator's training
        data: near-copies of real records in the release make the real test records look
        synthetic (their near-copies were labelled synthetic in training) and the
        synthetic test records look real. That is a sign of memorisation, not of fidelity:
        read the privacy measures. On small tables the split alone can push the AUC a
        little below 0.5 (the two sides share a fixed pool of records).

    Notes
    -----
    Risk-insertion framework (``risk-insertion-framework.md``) Appendix G: an XGBoost
    classifier on equal numbers of real and synthetic records; the paper reports its
    accuracy (kept in ``extra``), the AUC is threshold-free and the headline here.
    """
    seed = check_seed(seed)
    check_in_range("test_size", test_size, 0, 1, low_inclusive=False, high_inclusive=False)
    if max_rows is not None:
        max_rows = check_positive_int("max_rows", max_rows, minimum=10)
    n_estimators = check_positive_int("n_estimators", n_estimators)
    bootstrap = check_positive_int("bootstrap", bootstrap, minimum=0)
    check_confidence(confidence)
    data = prepare_release_tables(real, synthetic, schema=schema, min_rows=10)
    features = _Features.of(data)
    n_rep = len(data.synthetic)
    seeds = integer_seeds(seed, 4 * n_rep)
    settings = _Settings(test_size, max_rows, n_estimators, bootstrap, n_jobs)
    fits = []
    for m, syn in enumerate(data.synthetic):
        if progress:
            progress(m / n_rep, f"Training the discriminator on release {m + 1}/{n_rep}")
        fits.append(_discriminate_release(data.real, syn, m, features, settings, seeds[4 * m :]))
    auc = float(np.mean([f.auc for f in fits]))
    ci = _auc_interval(fits, bootstrap, confidence)
    if ci is not None and ci[1] < 0.5:
        warnings.warn(
            f"The discriminator's AUC ({auc:.3f}, interval {ci[0]:.3f}-{ci[1]:.3f}) is below "
            "0.5: it does worse than chance on held-out records. Near-copies of real "
            "training records in the release cause this (memorisation: check the privacy "
            "measures), as can chance on small tables. It does not mean high fidelity.",
            UntrustworthyResultWarning,
            stacklevel=2,
        )
    params = {
        "test_size": test_size,
        "max_rows": max_rows,
        "n_estimators": n_estimators,
        "bootstrap": bootstrap,
        "confidence": confidence,
        "seed": seed,
        "n_real": len(data.real),
        "n_synthetic": [len(s) for s in data.synthetic],
        "n_replicates": n_rep,
        "missing_indicators": features.with_missing,
        "classifier": "xgboost (depth 6, learning rate 0.3)",
    }
    if progress:
        progress(1.0, "Discriminator done")
    return _discriminator_result(fits, auc, ci, params, data.schema.included)


class _Settings(NamedTuple):
    """The discriminator's options, as checked."""

    test_size: float
    max_rows: int | None
    n_estimators: int
    bootstrap: int
    n_jobs: int


class _Features(NamedTuple):
    """What the classifier sees: the shared encoding of the included columns plus a
    missing-value indicator per numeric column with missing values (the encoder imputes
    them, which would hide a difference in missingness)."""

    encoder: TableEncoder
    with_missing: list[str]
    columns: list[str]
    """The source column of each feature."""

    @classmethod
    def of(cls, data: ReleaseTables) -> _Features:
        """The features of the review's tables (the encoder fitted on the real table)."""
        cols = data.schema.included
        encoder = TableEncoder(data.schema).fit(data.real)
        numeric = [c for c in data.schema.numeric if c in cols]
        with_missing = [
            c
            for c in numeric
            if data.real[c].isna().any() or any(s[c].isna().any() for s in data.synthetic)
        ]
        return cls(encoder, with_missing, encoder.feature_columns() + with_missing)

    def encode(self, frame: pd.DataFrame) -> np.ndarray:
        X = self.encoder.transform(frame)
        if not self.with_missing:
            return X
        return np.hstack([X, frame[self.with_missing].isna().to_numpy(dtype=np.float32)])


class _ReleaseFit(NamedTuple):
    """One release's discriminator: its test AUC and accuracy, the bootstrap of its AUC
    (None without one), the gain per source column and one row per test record."""

    auc: float
    accuracy: float
    boot: np.ndarray | None
    importance: pd.Series
    records: pd.DataFrame


def _discriminate_release(
    real: pd.DataFrame,
    syn: pd.DataFrame,
    m: int,
    features: _Features,
    settings: _Settings,
    seeds: Sequence[int],
) -> _ReleaseFit:
    """Sample, split, train and score the discriminator of release ``m``; ``seeds`` are
    its four (sample, split, classifier, bootstrap)."""
    X, y, record = _balanced_sample(real, syn, features, settings.max_rows, seeds[0])
    tr, te = grouped_split(X, settings.test_size, seeds[1])
    if np.unique(y[te]).size < 2:
        raise InsufficientDataError(
            "The discriminator's held-out records are all real or all synthetic: the "
            f"tables have too few distinct rows ({len(np.unique(X, axis=0))}) to split "
            "into training and test. Give larger or more varied tables."
        )
    p, importances = _held_out_predictions(X, y, tr, te, settings, seeds[2], len(features.columns))
    boot = None
    if settings.bootstrap:
        boot = bootstrap_auc(p, y[te], n_boot=settings.bootstrap, seed=seeds[3])
    records = pd.DataFrame(
        {
            "record": record[te],
            "replicate": m,
            "source": np.where(y[te] == 1, "real", "synthetic"),
            "p_real": p,
        }
    )
    return _ReleaseFit(
        auc=float(roc_auc_score(y[te], p)),
        accuracy=float(np.mean((p > 0.5) == (y[te] == 1))),
        boot=boot,
        importance=pd.Series(importances, index=features.columns).groupby(level=0).sum(),
        records=records,
    )


def _balanced_sample(
    real: pd.DataFrame, syn: pd.DataFrame, features: _Features, max_rows: int | None, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Equal numbers of real and synthetic records (seeded, in table order), encoded:
    (features, label 1 for real, each record's index in its table)."""
    size = min(len(real), len(syn))
    if max_rows is not None:
        size = min(size, max_rows)
    rng = np.random.default_rng(seed)
    idx_r = np.sort(rng.choice(len(real), size=size, replace=False))
    idx_s = np.sort(rng.choice(len(syn), size=size, replace=False))
    X = np.vstack([features.encode(real.iloc[idx_r]), features.encode(syn.iloc[idx_s])])
    y = np.concatenate([np.ones(size, dtype=np.int64), np.zeros(size, dtype=np.int64)])
    record = np.concatenate([real.index.to_numpy()[idx_r], syn.index.to_numpy()[idx_s]])
    return X, y, record


def _held_out_predictions(
    X: np.ndarray,
    y: np.ndarray,
    tr: np.ndarray,
    te: np.ndarray,
    settings: _Settings,
    seed: int,
    n_features: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The classifier's probability that each test record is real, and its gain per
    feature."""
    from xgboost import XGBClassifier

    if np.unique(y[tr]).size < 2:
        # identical rows are kept on one side of the split, so a table of (nearly) one
        # repeated row can leave one class in training: with nothing to tell apart, a
        # classifier predicts the training share for every record (an AUC of 0.5)
        return np.full(len(te), float(y[tr].mean())), np.zeros(n_features)
    model = XGBClassifier(
        n_estimators=settings.n_estimators,
        max_depth=6,
        learning_rate=0.3,
        tree_method="hist",
        n_jobs=settings.n_jobs if settings.n_jobs > 0 else None,
        random_state=seed,
        verbosity=0,
    )
    model.fit(X[tr], y[tr])
    return model.predict_proba(X[te])[:, 1], model.feature_importances_


def _auc_interval(
    fits: list[_ReleaseFit], bootstrap: int, confidence: float
) -> tuple[float, float] | None:
    """Percentile interval of the mean AUC over releases (None without a bootstrap)."""
    if not bootstrap:
        return None
    boots = [f.boot for f in fits if f.boot is not None]  # every release has one here
    lo, hi = percentile_interval(np.mean(boots, axis=0), confidence=confidence)
    return (float(lo), float(hi))


def _discriminator_result(
    fits: list[_ReleaseFit],
    auc: float,
    ci: tuple[float, float] | None,
    params: dict[str, Any],
    columns: list[str],
) -> MetricResult:
    """The result: the AUC, its interval, the records, and the share of the classifier's
    gain per source column (averaged over releases)."""
    n_rep = len(fits)
    gain = pd.Series(0.0, index=pd.Index(columns))
    for fit in fits:
        imp = fit.importance
        gain = gain.add(imp.reindex(gain.index, fill_value=0.0) / n_rep, fill_value=0.0)
    total_gain = float(gain.sum())
    importance = (gain / total_gain if total_gain > 0 else gain).sort_values(ascending=False)
    extra = {
        "auc": auc,
        "accuracy": float(np.mean([f.accuracy for f in fits])),
        "advantage": max(0.0, 2 * auc - 1),
        "below_chance": bool(ci is not None and ci[1] < 0.5),
        "by_replicate": [{"auc": f.auc, "accuracy": f.accuracy} for f in fits],
        "importance": {str(k): float(v) for k, v in importance.items()},
    }
    return MetricResult(
        name="discriminator",
        value=auc,
        ci=ci,
        params=params,
        record_table=pd.concat([f.records for f in fits], ignore_index=True),
        baseline=0.5,
        goal="lower",
        bounds=(0.0, 1.0),
        extra=extra,
    )
