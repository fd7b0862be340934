"""Machine-learning affinity (``mla``): how much worse models get when trained on the release.

Contract
--------
:func:`ml_affinity` trains each evaluator (:mod:`.evaluators`) on the real table and on
each release, tests both on the real holdout, and returns a
:class:`~privacy_core.results.MetricResult` whose value is the mean relative gap of their
scores (lower is better); one row per evaluator and release in ``records``; the interval
is a percentile bootstrap over the holdout rows with the models kept fixed.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from sklearn.preprocessing import QuantileTransformer

from ..data import Schema
from ..encoding import TableEncoder
from ..errors import (
    ColumnNotFoundError,
    InsufficientDataError,
    ParameterError,
    UntrustworthyResultWarning,
)
from ..inputs import ReleaseTables, prepare_release_tables
from ..parallel import one_blas_thread
from ..progress import ProgressFn
from ..results import MetricResult
from ..stats import bootstrap_weights, percentile_interval
from ..threat import ThreatModel
from ..validation import check_choice, check_confidence, check_positive_int, check_seed
from .evaluators import (
    DEFAULT_EVALUATORS,
    EVALUATOR_LABELS,
    check_evaluators,
    fit_predict,
    integer_seeds,
    relative_gap,
    score_bootstrap,
)

__all__ = ["MLA_MAX_TRAIN", "TARGET_TRANSFORMS", "ml_affinity"]

# Training rows of each ML-affinity model, real and synthetic alike: beyond this a seeded
# sample (a register of a million rows would otherwise take a quarter of an hour and 8 GB
# on a 30-column table, for a learning curve that has long flattened).
MLA_MAX_TRAIN = 200_000
TARGET_TRANSFORMS = ("quantile", "none")
_BOOT_CHUNK_CELLS = 20_000_000  # bootstrap weights held at once (float32: 80 MB)


def ml_affinity(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    holdout: pd.DataFrame,
    target: str | None = None,
    threat: ThreatModel | None = None,
    schema: Schema | None = None,
    evaluators: Sequence[str] | str = DEFAULT_EVALUATORS,
    target_transform: str = "quantile",
    bootstrap: int = 200,
    confidence: float = 0.95,
    n_jobs: int = -1,
    max_train: int | None = MLA_MAX_TRAIN,
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> MetricResult:
    """Machine-learning affinity: how much worse models get when trained on the release.

    For each evaluator e, A(e_T) is its score when trained on the real table and A(e_S)
    when trained on the release, both tested on the real holdout; MLA is the mean over
    evaluators of |A(e_T) − A(e_S)| / A(e_T) (lower is better, 0 = same performance).

    Parameters
    ----------
    real
        The real training table (what the generator saw).
    synthetic
        One release or several replicates (gaps averaged over replicates).
    holdout
        Real rows the generator never saw: the test set of every evaluator.
    target
        The column to predict; default ``threat.target``. A categorical target is scored
        with support-weighted F1, a numeric one with RMSE.
    threat
        Optional threat model whose first sensitive attribute is the default target.
    evaluators
        Any of ``linear`` (logistic regression / ridge), ``tree``, ``rf`` (100 trees),
        ``xgb`` (100 rounds), ``mlp`` (64-64 units, early stopping; the slowest). The
        features are the other included columns, encoded by the one
        :class:`~privacy_core.encoding.TableEncoder` fitted on the real table.
    target_transform
        Numeric targets: ``quantile`` maps the target to a normal scale fitted on the real
        table before training and scoring (SynMeter's code, so RMSE is not dominated by a
        heavy tail); ``none`` keeps the raw scale.
    bootstrap
        Percentile-bootstrap replicates over holdout rows for ``ci`` (0 skips it): the
        trained models are kept fixed, so the interval is the test-set uncertainty.
    n_jobs
        Threads for the random forest (-1, the default: every core; the results do not
        depend on it). xgboost runs on one thread.
    max_train
        Training rows per model (default :data:`MLA_MAX_TRAIN`, 200,000; None = all): a
        longer real table is replaced by a seeded sample of this size, and each release
        is then capped to the same length. The test set (the holdout) is never sampled.
        ``params`` records ``n_real_used``.
    seed
        Seeds the evaluators (the real and the synthetic model of an evaluator share a
        seed), the subsamples of long tables and the bootstrap.

    Returns
    -------
    MetricResult
        ``name="mla"``, goal lower, bounds [0, inf). ``records``: one row per evaluator and
        release with ``score_real``, ``score_synthetic``, ``gap`` and ``relative_loss``
        (signed: positive when the release-trained model is worse, for F1 and RMSE
        alike). ``extra``: ``task``, ``score`` (``f1_weighted`` or ``rmse``),
        ``by_evaluator`` ({name: {value, ci, score_real, score_synthetic}}).

    Notes
    -----
    Du & Li §3.3, Definition 3.4 (Machine Learning Affinity), with the absolute value of
    SynMeter's code (``metric-reference.md`` §1c; the paper prints a signed difference,
    kept here as ``relative_loss``). As in the code, a release longer than the real table
    is subsampled (seeded) to its length, so both models see as many rows. An evaluator
    whose real-trained score is 0 has an undefined gap: it is left out with an
    :class:`UntrustworthyResultWarning`. A release with a single target class yields a
    constant prediction of that class.
    """
    seed = check_seed(seed)
    names = check_evaluators(evaluators)
    check_choice("target_transform", target_transform, TARGET_TRANSFORMS)
    bootstrap = check_positive_int("bootstrap", bootstrap, minimum=0)
    check_confidence(confidence)
    task = _mla_task(real, synthetic, holdout=holdout, target=target, threat=threat, schema=schema)
    if max_train is not None:
        max_train = check_positive_int("max_train", max_train, minimum=10)
    # evaluators, releases, bootstrap, then the real table's sample (appended last, so the
    # seeds of the rest are those of runs without it)
    seeds = integer_seeds(seed, len(names) + len(task.releases) + 2)
    model_seeds, release_seeds = seeds[: len(names)], seeds[len(names) : -2]
    boot_seed, sample_seed = seeds[-2], seeds[-1]
    train = task.train if max_train is None else _capped(task.train, max_train, sample_seed)
    capped = [_capped(f, len(train), s) for f, s in zip(task.releases, release_seeds, strict=True)]
    # the linear model's fit and the bootstrap's scores reduce through BLAS: on one BLAS
    # thread, so that the numbers do not follow the machine's core count
    with one_blas_thread():
        fits = _fit_evaluators(
            task, train, capped, names, target_transform, seed, model_seeds, n_jobs, progress
        )
        gaps = _mla_gaps(fits, names)
        ci, by_ci = _mla_intervals(fits, names, bootstrap, boot_seed, confidence)
    settings = {
        "target_transform": target_transform if not task.classification else None,
        "bootstrap": bootstrap,
        "confidence": confidence,
        "seed": seed,
    }
    result = _mla_result(task, names, train, capped, fits, gaps, ci, by_ci, settings, max_train)
    if progress:
        progress(1.0, "Machine-learning affinity done")
    return result


@dataclass(frozen=True)
class _MlaTask:
    """Checked inputs of ML affinity, each table with a value for the target."""

    data: ReleaseTables
    target: str
    features: list[str]
    classification: bool
    train: pd.DataFrame
    test: pd.DataFrame
    releases: list[pd.DataFrame]


def _mla_task(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    holdout: pd.DataFrame | None,
    target: str | None,
    threat: ThreatModel | None,
    schema: Schema | None,
) -> _MlaTask:
    """Checked inputs of ML affinity: prepared tables, target, features, task, training
    rows, test rows and releases, each table with a value for the target."""
    if holdout is None:
        raise ParameterError(
            "`holdout` is required: machine-learning affinity tests every evaluator on real "
            "rows the generator never saw. Give the holdout (control) table."
        )
    if target is None and threat is not None:
        target = threat.target
    if target is None:
        raise ParameterError(
            "`target` is required: name the column the evaluators predict "
            "(or give a threat model whose sensitive attribute it is)."
        )
    data = prepare_release_tables(real, synthetic, holdout=holdout, schema=schema, min_rows=10)
    if target not in data.schema.included:
        raise ColumnNotFoundError(
            f"`target` must be an included column ({', '.join(data.schema.included)}); "
            f"got {target!r}."
        )
    features = [c for c in data.schema.included if c != target]
    if not features:
        raise InsufficientDataError(
            f"Only the target {target!r} is usable; the evaluators need at least one feature."
        )
    classification = data.schema[target].is_categorical
    holdout_c: pd.DataFrame = data.holdout  # given, checked above

    def usable(frame: pd.DataFrame) -> pd.DataFrame:
        return frame if classification else frame[frame[target].notna()]

    train, test = usable(data.real), usable(holdout_c)
    releases = [usable(s) for s in data.synthetic]
    for label, frame in [
        ("real", train),
        ("holdout", test),
        *[(f"synthetic #{i + 1}", f) for i, f in enumerate(releases)],
    ]:
        if len(frame) < 10:
            raise InsufficientDataError(
                f"The {label} table has {len(frame)} row(s) with a value for {target!r}; "
                "machine-learning affinity needs 10."
            )
    return _MlaTask(data, target, features, classification, train, test, releases)


def _capped(frame: pd.DataFrame, n: int, seed: int) -> pd.DataFrame:
    """A release no longer than the real table (a seeded subsample, in order)."""
    if len(frame) <= n:
        return frame
    rng = np.random.default_rng(seed)
    return frame.iloc[np.sort(rng.choice(len(frame), size=n, replace=False))]


def _mla_targets(
    train: pd.DataFrame,
    test: pd.DataFrame,
    releases: list[pd.DataFrame],
    target: str,
    classification: bool,
    target_transform: str,
    seed: int,
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], int]:
    """(y_train, y_test, y per release, number of classes; 0 for a regression)."""
    if not classification:
        y_train = train[target].to_numpy(dtype=float)
        y_test = test[target].to_numpy(dtype=float)
        y_syn = [f[target].to_numpy(dtype=float) for f in releases]
        if target_transform == "quantile":
            qt = QuantileTransformer(
                output_distribution="normal",
                n_quantiles=int(max(min(len(y_train) / 30, 1000), 10)),
                random_state=seed,
            )
            qt.fit(y_train[:, None])
            y_train, y_test = (qt.transform(y[:, None])[:, 0] for y in (y_train, y_test))
            y_syn = [qt.transform(y[:, None])[:, 0] for y in y_syn]
        return y_train, y_test, y_syn, 0
    classes = sorted(
        set(train[target]) | set(test[target]) | set().union(*(set(f[target]) for f in releases))
    )
    if train[target].nunique() < 2:
        raise InsufficientDataError(
            f"The real table has a single class of {target!r}; there is nothing for the "
            "evaluators to learn. Choose a target with two or more classes."
        )

    def codes(frame: pd.DataFrame) -> np.ndarray:
        return pd.Categorical(frame[target], categories=classes).codes.astype(np.int64)

    y_syn = [codes(f) for f in releases]
    for m, y in enumerate(y_syn):
        if np.unique(y).size < 2:
            warnings.warn(
                f"Synthetic release #{m + 1} has a single class of {target!r}; its "
                "evaluators predict that class everywhere.",
                UntrustworthyResultWarning,
                stacklevel=4,  # the caller of ml_affinity
            )
    return codes(train), codes(test), y_syn, len(classes)


class _Fits(NamedTuple):
    """Each evaluator's predictions on the holdout: trained on the real rows
    (``pred_real``, evaluator x row) and on each release (``pred_syn``, evaluator x
    release x row)."""

    y_test: np.ndarray
    pred_real: np.ndarray
    pred_syn: np.ndarray
    classification: bool
    n_classes: int

    def scores(self, pred: np.ndarray, w: np.ndarray) -> np.ndarray:
        """The score of ``pred`` under each row of resampling weights ``w``."""
        return score_bootstrap(
            self.y_test, pred, w, classification=self.classification, n_classes=self.n_classes
        )


def _fit_evaluators(
    task: _MlaTask,
    train: pd.DataFrame,
    capped: list[pd.DataFrame],
    names: Sequence[str],
    target_transform: str,
    seed: int,
    model_seeds: Sequence[int],
    n_jobs: int,
    progress: ProgressFn | None,
) -> _Fits:
    """Encode the tables with the one encoder fitted on the real rows, then train every
    evaluator on the real rows and on each release (an evaluator's real and synthetic
    models share its seed) and predict the holdout."""
    encoder = TableEncoder(task.data.schema, columns=task.features).fit(train)
    X_train, X_test = encoder.transform(train), encoder.transform(task.test)
    X_syn = [encoder.transform(f) for f in capped]
    y_train, y_test, y_syn, n_classes = _mla_targets(
        train, task.test, capped, task.target, task.classification, target_transform, seed
    )
    n_rep = len(capped)
    pred_real = np.empty((len(names), len(y_test)))
    pred_syn = np.empty((len(names), n_rep, len(y_test)))
    total = len(names) * (1 + n_rep)
    step = 0
    for j, name in enumerate(names):
        for m in range(-1, n_rep):
            if progress:
                which = "real data" if m < 0 else f"release {m + 1}/{n_rep}"
                progress(step / total, f"Training {EVALUATOR_LABELS[name]} on {which}")
            X, y = (X_train, y_train) if m < 0 else (X_syn[m], y_syn[m])
            pred = fit_predict(
                name,
                X,
                y,
                X_test,
                classification=task.classification,
                seed=model_seeds[j],
                n_jobs=n_jobs,
            )
            if m < 0:
                pred_real[j] = pred
            else:
                pred_syn[j, m] = pred
            step += 1
    return _Fits(y_test, pred_real, pred_syn, task.classification, n_classes)


class _Gaps(NamedTuple):
    """Scores on the whole holdout (``s_real`` per evaluator, ``s_syn`` per evaluator and
    release), their relative gaps, and each evaluator's mean gap over releases."""

    s_real: np.ndarray
    s_syn: np.ndarray
    gap: np.ndarray
    per_eval: np.ndarray


def _mla_gaps(fits: _Fits, names: Sequence[str]) -> _Gaps:
    """Score every model on the whole holdout and take the relative gaps; an evaluator
    whose real-trained score is 0 is left out with a warning."""
    n_rep = fits.pred_syn.shape[1]
    unit = np.ones((1, len(fits.y_test)), dtype=np.float32)
    s_real = np.array([fits.scores(fits.pred_real[j], unit)[0] for j in range(len(names))])
    s_syn = np.array(
        [
            [fits.scores(fits.pred_syn[j, m], unit)[0] for m in range(n_rep)]
            for j in range(len(names))
        ]
    )
    gap = relative_gap(s_real[:, None], s_syn)  # (E, M)
    per_eval = gap.mean(axis=1)
    undefined = [names[j] for j in range(len(names)) if np.isnan(per_eval[j])]
    if undefined:
        warnings.warn(
            f"Evaluator(s) {', '.join(undefined)} score 0 when trained on the real data; "
            "their relative gap is undefined and left out of MLA.",
            UntrustworthyResultWarning,
            stacklevel=3,  # the caller of ml_affinity
        )
    return _Gaps(s_real, s_syn, gap, per_eval)


def _mla_intervals(
    fits: _Fits, names: Sequence[str], bootstrap: int, boot_seed: int, confidence: float
) -> tuple[tuple[float, float] | None, dict[str, tuple[float, float]]]:
    """Percentile-bootstrap intervals over the holdout rows: of MLA and of each evaluator's
    gap (the fits are not repeated; the test rows are resampled)."""
    if not bootstrap:
        return None, {}
    scores, pred_real, pred_syn, n = fits.scores, fits.pred_real, fits.pred_syn, len(fits.y_test)
    n_rep = pred_syn.shape[1]
    boot_gap = np.empty((bootstrap, len(names)))
    chunk = max(1, _BOOT_CHUNK_CELLS // max(n, 1))
    for start in range(0, bootstrap, chunk):
        size = min(chunk, bootstrap - start)
        w = bootstrap_weights(n, size, seed=boot_seed + start)
        for j in range(len(names)):
            br = scores(pred_real[j], w)
            bs = np.column_stack([scores(pred_syn[j, m], w) for m in range(n_rep)])
            boot_gap[start : start + size, j] = relative_gap(br[:, None], bs).mean(axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = percentile_interval(np.nanmean(boot_gap, axis=1), confidence=confidence)
        lo_e, hi_e = percentile_interval(boot_gap, confidence=confidence)
    by_ci = {name: (float(lo_e[j]), float(hi_e[j])) for j, name in enumerate(names)}
    return (float(lo), float(hi)), by_ci


def _mla_records(names: Sequence[str], gaps: _Gaps, classification: bool) -> pd.DataFrame:
    """One row per evaluator and release: both scores, the gap and the signed loss."""
    sign = 1.0 if classification else -1.0
    rows = []
    for j, name in enumerate(names):
        for m in range(gaps.s_syn.shape[1]):
            sr, ss = float(gaps.s_real[j]), float(gaps.s_syn[j, m])
            rows.append(
                {
                    "evaluator": name,
                    "label": EVALUATOR_LABELS[name],
                    "replicate": m,
                    "score": "f1_weighted" if classification else "rmse",
                    "score_real": sr,
                    "score_synthetic": ss,
                    "gap": float(gaps.gap[j, m]),
                    "relative_loss": sign * (sr - ss) / sr if sr > 0 else float("nan"),
                }
            )
    return pd.DataFrame(rows)


def _mla_result(
    task: _MlaTask,
    names: Sequence[str],
    train: pd.DataFrame,
    capped: list[pd.DataFrame],
    fits: _Fits,
    gaps: _Gaps,
    ci: tuple[float, float] | None,
    by_ci: dict[str, tuple[float, float]],
    settings: dict[str, Any],
    max_train: int | None,
) -> MetricResult:
    """The result: the mean gap over evaluators, its interval, the records and the
    parameters used."""
    classification = task.classification
    per_eval = gaps.per_eval
    value = float(np.nanmean(per_eval)) if np.isfinite(per_eval).any() else float("nan")
    params = {
        "target": task.target,
        "task": "classification" if classification else "regression",
        "evaluators": list(names),
        "features": task.features,
        "target_transform": settings["target_transform"],
        "bootstrap": settings["bootstrap"],
        "confidence": settings["confidence"],
        "seed": settings["seed"],
        "n_real": len(task.train),
        "n_real_used": len(train),
        "max_train": max_train,
        "n_holdout": len(task.test),
        "n_synthetic": [len(s) for s in task.data.synthetic],
        "n_synthetic_used": [len(f) for f in capped],
        "n_replicates": len(capped),
        "n_classes": fits.n_classes,
    }
    extra = {
        "task": params["task"],
        "score": "f1_weighted" if classification else "rmse",
        "by_evaluator": {
            name: {
                "value": float(per_eval[j]),
                "ci": list(by_ci[name]) if name in by_ci else None,
                "score_real": float(gaps.s_real[j]),
                "score_synthetic": float(gaps.s_syn[j].mean()),
            }
            for j, name in enumerate(names)
        },
    }
    return MetricResult(
        name="mla",
        value=value,
        ci=ci,
        params=params,
        record_table=_mla_records(names, gaps, classification),
        goal="lower",
        bounds=(0.0, float("inf")),
        extra=extra,
    )
