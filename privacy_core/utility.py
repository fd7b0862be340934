"""Utility: machine-learning affinity, query error and the real-vs-synthetic discriminator.

Why one module: the three utility measures share the evaluators' encoding, the seeds and
the bootstrap of their intervals.

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
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import QuantileTransformer

from .data import Schema
from .encoding import TableEncoder
from .errors import (
    ColumnNotFoundError,
    InsufficientDataError,
    ParameterError,
    UntrustworthyResultWarning,
)
from .inputs import ReleaseTables, prepare_release_tables
from .progress import ProgressFn
from .results import MetricResult
from .stats import bootstrap_auc, bootstrap_weights, child_rngs, child_seeds, percentile_interval
from .threat import ThreatModel
from .validation import (
    check_choice,
    check_confidence,
    check_in_range,
    check_positive_int,
    check_seed,
)

EVALUATORS = ("linear", "tree", "rf", "xgb", "mlp")
EVALUATOR_LABELS = {
    "linear": "Logistic regression / ridge",
    "tree": "Decision tree",
    "rf": "Random forest",
    "xgb": "Gradient boosting (xgboost)",
    "mlp": "Multilayer perceptron",
}
DEFAULT_EVALUATORS = ("linear", "tree", "rf", "xgb")
# Training rows of each ML-affinity model, real and synthetic alike: beyond this a seeded
# sample (a register of a million rows would otherwise take a quarter of an hour and 8 GB
# on a 30-column table, for a learning curve that has long flattened).
MLA_MAX_TRAIN = 200_000
TARGET_TRANSFORMS = ("quantile", "none")
_BOOT_CHUNK_CELLS = 20_000_000  # bootstrap weights held at once (float32: 80 MB)


def _seeds(seed: int, k: int) -> list[int]:
    return [s % (2**31 - 1) for s in child_seeds(seed, k)]


# ============================================================================ ML affinity
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


def _check_evaluators(evaluators: Sequence[str] | str) -> tuple[str, ...]:
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


def _fit_predict(
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


def _score_bootstrap(
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


def _relative_gap(score_real: np.ndarray, score_syn: np.ndarray) -> np.ndarray:
    """|A_T - A_S| / A_T; 0 when both are 0, NaN when only A_T is 0."""
    sr = np.asarray(score_real, dtype=float)
    ss = np.asarray(score_syn, dtype=float)
    diff = np.abs(sr - ss)
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = diff / sr
    return np.where(sr > 0, gap, np.where(diff == 0, 0.0, np.nan))


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
    names = _check_evaluators(evaluators)
    check_choice("target_transform", target_transform, TARGET_TRANSFORMS)
    bootstrap = check_positive_int("bootstrap", bootstrap, minimum=0)
    check_confidence(confidence)
    data, target, features, classification, train, test, releases = _mla_tables(
        real, synthetic, holdout=holdout, target=target, threat=threat, schema=schema
    )
    if max_train is not None:
        max_train = check_positive_int("max_train", max_train, minimum=10)
    # evaluators, releases, bootstrap, then the real table's sample (appended last, so the
    # seeds of the rest are those of runs without it)
    seeds = _seeds(seed, len(names) + len(releases) + 2)
    boot_seed = seeds[len(names) + len(releases)]
    n_real = len(train)
    if max_train is not None:
        train = _capped(train, max_train, seeds[-1])
    capped = [_capped(frame, len(train), seeds[len(names) + m]) for m, frame in enumerate(releases)]
    encoder = TableEncoder(data.schema, columns=features).fit(train)
    X_train, X_test = encoder.transform(train), encoder.transform(test)
    X_syn = [encoder.transform(f) for f in capped]
    y_train, y_test, y_syn, n_classes = _mla_targets(
        train, test, capped, target, classification, target_transform, seed
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
            pred = _fit_predict(
                name, X, y, X_test, classification=classification, seed=seeds[j], n_jobs=n_jobs
            )
            if m < 0:
                pred_real[j] = pred
            else:
                pred_syn[j, m] = pred
            step += 1

    def scores(pred: np.ndarray, w: np.ndarray) -> np.ndarray:
        return _score_bootstrap(y_test, pred, w, classification=classification, n_classes=n_classes)

    unit = np.ones((1, len(y_test)), dtype=np.float32)
    s_real = np.array([scores(pred_real[j], unit)[0] for j in range(len(names))])
    s_syn = np.array(
        [[scores(pred_syn[j, m], unit)[0] for m in range(n_rep)] for j in range(len(names))]
    )
    gap = _relative_gap(s_real[:, None], s_syn)  # (E, M)
    per_eval = gap.mean(axis=1)
    undefined = [names[j] for j in range(len(names)) if np.isnan(per_eval[j])]
    if undefined:
        warnings.warn(
            f"Evaluator(s) {', '.join(undefined)} score 0 when trained on the real data; "
            "their relative gap is undefined and left out of MLA.",
            UntrustworthyResultWarning,
            stacklevel=2,
        )
    value = float(np.nanmean(per_eval)) if np.isfinite(per_eval).any() else float("nan")
    ci, by_ci = _mla_intervals(
        scores, pred_real, pred_syn, names, len(y_test), bootstrap, boot_seed, confidence
    )

    sign = 1.0 if classification else -1.0
    rows = []
    for j, name in enumerate(names):
        for m in range(n_rep):
            sr, ss = float(s_real[j]), float(s_syn[j, m])
            rows.append(
                {
                    "evaluator": name,
                    "label": EVALUATOR_LABELS[name],
                    "replicate": m,
                    "score": "f1_weighted" if classification else "rmse",
                    "score_real": sr,
                    "score_synthetic": ss,
                    "gap": float(gap[j, m]),
                    "relative_loss": sign * (sr - ss) / sr if sr > 0 else float("nan"),
                }
            )
    table = pd.DataFrame(rows)
    params = {
        "target": target,
        "task": "classification" if classification else "regression",
        "evaluators": list(names),
        "features": features,
        "target_transform": target_transform if not classification else None,
        "bootstrap": bootstrap,
        "confidence": confidence,
        "seed": seed,
        "n_real": n_real,
        "n_real_used": len(train),
        "max_train": max_train,
        "n_holdout": len(test),
        "n_synthetic": [len(s) for s in data.synthetic],
        "n_synthetic_used": [len(f) for f in capped],
        "n_replicates": n_rep,
        "n_classes": n_classes,
    }
    extra = {
        "task": params["task"],
        "score": "f1_weighted" if classification else "rmse",
        "by_evaluator": {
            name: {
                "value": float(per_eval[j]),
                "ci": list(by_ci[name]) if name in by_ci else None,
                "score_real": float(s_real[j]),
                "score_synthetic": float(s_syn[j].mean()),
            }
            for j, name in enumerate(names)
        },
    }
    if progress:
        progress(1.0, "Machine-learning affinity done")
    return MetricResult(
        name="mla",
        value=value,
        ci=ci,
        params=params,
        record_table=table,
        goal="lower",
        bounds=(0.0, float("inf")),
        extra=extra,
    )


def _mla_tables(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    holdout: pd.DataFrame | None,
    target: str | None,
    threat: ThreatModel | None,
    schema: Schema | None,
) -> tuple[Any, str, list[str], bool, pd.DataFrame, pd.DataFrame, list[pd.DataFrame]]:
    """Checked inputs of ML affinity: (prepared tables, target, features, classification,
    training rows, test rows, releases), each table with a value for the target."""
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
    return data, target, features, classification, train, test, releases


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
                stacklevel=3,
            )
    return codes(train), codes(test), y_syn, len(classes)


def _mla_intervals(
    scores: Callable[[np.ndarray, np.ndarray], np.ndarray],
    pred_real: np.ndarray,
    pred_syn: np.ndarray,
    names: Sequence[str],
    n: int,
    bootstrap: int,
    boot_seed: int,
    confidence: float,
) -> tuple[tuple[float, float] | None, dict[str, tuple[float, float]]]:
    """Percentile-bootstrap intervals over the holdout rows: of MLA and of each evaluator's
    gap (the fits are not repeated; the test rows are resampled)."""
    if not bootstrap:
        return None, {}
    n_rep = pred_syn.shape[1]
    boot_gap = np.empty((bootstrap, len(names)))
    chunk = max(1, _BOOT_CHUNK_CELLS // max(n, 1))
    for start in range(0, bootstrap, chunk):
        size = min(chunk, bootstrap - start)
        w = bootstrap_weights(n, size, seed=boot_seed + start)
        for j in range(len(names)):
            br = scores(pred_real[j], w)
            bs = np.column_stack([scores(pred_syn[j, m], w) for m in range(n_rep)])
            boot_gap[start : start + size, j] = _relative_gap(br[:, None], bs).mean(axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = percentile_interval(np.nanmean(boot_gap, axis=1), confidence=confidence)
        lo_e, hi_e = percentile_interval(boot_gap, confidence=confidence)
    by_ci = {name: (float(lo_e[j]), float(hi_e[j])) for j, name in enumerate(names)}
    return (float(lo), float(hi)), by_ci


# ============================================================================ query error
def _query_matrix(
    frame: pd.DataFrame, columns: Sequence[str], schema: Schema, categories: dict[str, list[str]]
) -> np.ndarray:
    """Every column as float: numerics raw (NaN missing), categoricals as level codes."""
    out = np.empty((len(frame), len(columns)))
    for j, c in enumerate(columns):
        if schema[c].is_numeric:
            out[:, j] = frame[c].to_numpy(dtype=float)
        else:
            # -1 for a value outside ``categories`` (a synthetic category the real data
            # never holds): it meets no point condition
            out[:, j] = pd.Index(categories[c]).get_indexer(frame[c].astype(str))
    return out


def _answer(X: np.ndarray, cols: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Share of rows of X meeting every condition lo <= x <= hi, for each query (row)."""
    n_q, k = cols.shape
    out = np.empty(n_q)
    chunk = max(1, 4_000_000 // max(X.shape[0] * k, 1))
    for start in range(0, n_q, chunk):
        sl = slice(start, start + chunk)
        vals = X[:, cols[sl].ravel()].reshape(X.shape[0], -1, k)  # (n, q, k)
        with np.errstate(invalid="ignore"):
            ok = (vals >= lo[sl][None]) & (vals <= hi[sl][None])
        out[sl] = ok.all(axis=2).mean(axis=0)
    return out


def query_error(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    schema: Schema | None = None,
    threat: ThreatModel | None = None,
    n_queries: int = 1000,
    ways: Sequence[int] = (1, 2, 3),
    bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> MetricResult:
    """Mean absolute error of random k-way range / point query answers.

    For each k in ``ways``, ``n_queries`` queries are drawn: k distinct columns uniformly;
    a categorical column gets a point condition x = v with v uniform over its real
    levels; a numeric column gets a range lo <= x <= hi with lo ~ U(min, max) and
    hi ~ U(lo, max) over the real range. A query's answer is the share of rows meeting
    every condition (a missing numeric value meets none); its error is the absolute
    difference between the real and the synthetic answer (averaged over replicates).

    Parameters
    ----------
    schema
        Column kinds; inferred from ``real`` when omitted.
    threat
        Ignored (queries involve every column); accepted for one calling convention.
    n_queries
        Queries per k.
    ways
        Query orders k; orders above the number of columns are skipped (recorded in
        ``params["ways"]``).
    bootstrap
        Percentile-bootstrap replicates over queries (resampled within each k) for ``ci``.
    seed
        Seeds the queries and the bootstrap.

    Returns
    -------
    MetricResult
        ``name="query_error"``, value = mean over k of err_k, goal lower, bounds [0, 1];
        ``records``: one row per query (``query``, ``k``, ``columns``, ``condition``,
        ``real``, ``synthetic``, ``error``); ``extra["by_way"]`` = {k: err_k}.

    Notes
    -----
    Du & Li §3.3, Definition 3.5; ``metric-reference.md`` §1d, with a seeded generator
    instead of the reference code's time-based seeds.
    """
    seed = check_seed(seed)
    n_queries = check_positive_int("n_queries", n_queries)
    bootstrap = check_positive_int("bootstrap", bootstrap, minimum=0)
    check_confidence(confidence)
    ways_t = tuple(sorted({check_positive_int("ways", k) for k in ways}))
    if not ways_t:
        raise ParameterError("`ways` must list at least one query order, e.g. (1, 2, 3).")
    data = prepare_release_tables(real, synthetic, schema=schema, min_rows=1)
    cols = data.schema.included
    usable = tuple(k for k in ways_t if k <= len(cols))
    if not usable:
        raise ParameterError(f"`ways` {ways_t} all exceed the number of columns ({len(cols)}).")
    # the real levels only (not the schema's appended unseen ones): a point query asks
    # about the real distribution; a synthetic value the real data never holds codes as
    # -1 and so meets no point condition
    categories = {
        c: sorted(set(map(str, data.schema[c].real_categories)) | set(data.real[c].astype(str)))
        for c in cols
        if not data.schema[c].is_numeric
    }
    X_real = _query_matrix(data.real, cols, data.schema, categories)
    X_syn = [_query_matrix(s, cols, data.schema, categories) for s in data.synthetic]
    is_num = np.array([data.schema[c].is_numeric for c in cols])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        col_min = np.where(is_num, np.nanmin(np.where(is_num, X_real, 0), axis=0), 0)
        col_max = np.where(is_num, np.nanmax(np.where(is_num, X_real, 0), axis=0), 0)
    n_levels = np.array([len(categories[c]) if c in categories else 0 for c in cols])

    rng = child_rngs(seed, 2)[0]
    frames, by_way, errors_by_way = [], {}, []
    next_id = 0
    for k in usable:
        sel = np.argsort(rng.random((n_queries, len(cols))), axis=1)[:, :k]  # k distinct
        u1, u2, uv = rng.random((3, n_queries, k))
        lo_num = col_min[sel] + u1 * (col_max[sel] - col_min[sel])
        hi_num = lo_num + u2 * (col_max[sel] - lo_num)
        level = np.floor(uv * np.maximum(n_levels[sel], 1)).astype(np.int64)
        num = is_num[sel]
        lo = np.where(num, lo_num, level)
        hi = np.where(num, hi_num, level)
        mu_real = _answer(X_real, sel, lo, hi)
        mu_syn = np.column_stack([_answer(X, sel, lo, hi) for X in X_syn])
        err = np.abs(mu_real[:, None] - mu_syn).mean(axis=1)
        by_way[k] = float(err.mean())
        errors_by_way.append(err)
        frames.append(
            pd.DataFrame(
                {
                    "query": np.arange(next_id, next_id + n_queries),
                    "k": k,
                    "columns": [", ".join(cols[i] for i in row) for row in sel],
                    "condition": [
                        _describe(cols, row, lo[q], hi[q], num[q], categories)
                        for q, row in enumerate(sel)
                    ],
                    "real": mu_real,
                    "synthetic": mu_syn.mean(axis=1),
                    "error": err,
                }
            )
        )
        next_id += n_queries
    value = float(np.mean(list(by_way.values())))
    ci = None
    if bootstrap:
        boot_seed = child_seeds(seed, 2)[1]
        boot = np.zeros(bootstrap)
        for i, err in enumerate(errors_by_way):
            w = bootstrap_weights(len(err), bootstrap, seed=boot_seed + i)
            boot += (w @ err.astype(np.float32)) / len(err)
        lo_b, hi_b = percentile_interval(boot / len(errors_by_way), confidence=confidence)
        ci = (float(lo_b), float(hi_b))
    params = {
        "n_queries": n_queries,
        "ways": list(usable),
        "bootstrap": bootstrap,
        "confidence": confidence,
        "seed": seed,
        "columns": cols,
        "n_real": len(data.real),
        "n_synthetic": [len(s) for s in data.synthetic],
        "n_replicates": len(data.synthetic),
    }
    return MetricResult(
        name="query_error",
        value=value,
        ci=ci,
        params=params,
        record_table=pd.concat(frames, ignore_index=True),
        goal="lower",
        bounds=(0.0, 1.0),
        extra={"by_way": by_way},
    )


def _describe(
    cols: Sequence[str],
    row: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    num: np.ndarray,
    categories: dict[str, list[str]],
) -> str:
    parts = []
    for j, i in enumerate(row):
        c = cols[i]
        if num[j]:
            parts.append(f"{c} in [{lo[j]:.4g}, {hi[j]:.4g}]")
        else:
            parts.append(f"{c} = {categories[c][int(lo[j])]}")
    return " & ".join(parts)


# ============================================================================ discriminator
def _grouped_split(X: np.ndarray, test_size: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
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
    from xgboost import XGBClassifier

    seed = check_seed(seed)
    check_in_range("test_size", test_size, 0, 1, low_inclusive=False, high_inclusive=False)
    if max_rows is not None:
        max_rows = check_positive_int("max_rows", max_rows, minimum=10)
    n_estimators = check_positive_int("n_estimators", n_estimators)
    bootstrap = check_positive_int("bootstrap", bootstrap, minimum=0)
    check_confidence(confidence)
    data = prepare_release_tables(real, synthetic, schema=schema, min_rows=10)
    cols = data.schema.included
    encoder = TableEncoder(data.schema).fit(data.real)
    numeric = [c for c in data.schema.numeric if c in cols]
    with_missing = [
        c
        for c in numeric
        if data.real[c].isna().any() or any(s[c].isna().any() for s in data.synthetic)
    ]
    feature_cols = encoder.feature_columns() + with_missing

    def encode(frame: pd.DataFrame) -> np.ndarray:
        X = encoder.transform(frame)
        if not with_missing:
            return X
        return np.hstack([X, frame[with_missing].isna().to_numpy(dtype=np.float32)])

    n_rep = len(data.synthetic)
    seeds = _seeds(seed, 4 * n_rep)
    aucs, accs, boots, frames = [], [], [], []
    gain = pd.Series(0.0, index=pd.Index(cols))
    for m, syn in enumerate(data.synthetic):
        if progress:
            progress(m / n_rep, f"Training the discriminator on release {m + 1}/{n_rep}")
        size = min(len(data.real), len(syn))
        if max_rows is not None:
            size = min(size, max_rows)
        rng = np.random.default_rng(seeds[4 * m])
        idx_r = np.sort(rng.choice(len(data.real), size=size, replace=False))
        idx_s = np.sort(rng.choice(len(syn), size=size, replace=False))
        X = np.vstack([encode(data.real.iloc[idx_r]), encode(syn.iloc[idx_s])])
        y = np.concatenate([np.ones(size, dtype=np.int64), np.zeros(size, dtype=np.int64)])
        record = np.concatenate([data.real.index.to_numpy()[idx_r], syn.index.to_numpy()[idx_s]])
        tr, te = _grouped_split(X, test_size, seeds[4 * m + 1])
        if np.unique(y[te]).size < 2:
            raise InsufficientDataError(
                "The discriminator's held-out records are all real or all synthetic: the "
                f"tables have too few distinct rows ({len(np.unique(X, axis=0))}) to split "
                "into training and test. Give larger or more varied tables."
            )
        if np.unique(y[tr]).size < 2:
            # identical rows are kept on one side of the split, so a table of (nearly) one
            # repeated row can leave one class in training: with nothing to tell apart, a
            # classifier predicts the training share for every record (an AUC of 0.5)
            p = np.full(len(te), float(y[tr].mean()))
            importances = np.zeros(len(feature_cols))
        else:
            model = XGBClassifier(
                n_estimators=n_estimators,
                max_depth=6,
                learning_rate=0.3,
                tree_method="hist",
                n_jobs=n_jobs if n_jobs > 0 else None,
                random_state=seeds[4 * m + 2],
                verbosity=0,
            )
            model.fit(X[tr], y[tr])
            p = model.predict_proba(X[te])[:, 1]
            importances = model.feature_importances_
        aucs.append(float(roc_auc_score(y[te], p)))
        accs.append(float(np.mean((p > 0.5) == (y[te] == 1))))
        if bootstrap:
            boots.append(bootstrap_auc(p, y[te], n_boot=bootstrap, seed=seeds[4 * m + 3]))
        imp = pd.Series(importances, index=feature_cols).groupby(level=0).sum()
        gain = gain.add(imp.reindex(gain.index, fill_value=0.0) / n_rep, fill_value=0.0)
        frames.append(
            pd.DataFrame(
                {
                    "record": record[te],
                    "replicate": m,
                    "source": np.where(y[te] == 1, "real", "synthetic"),
                    "p_real": p,
                }
            )
        )
    auc = float(np.mean(aucs))
    ci = None
    if bootstrap:
        lo, hi = percentile_interval(np.mean(boots, axis=0), confidence=confidence)
        ci = (float(lo), float(hi))
    below = ci is not None and ci[1] < 0.5
    if ci is not None and below:
        warnings.warn(
            f"The discriminator's AUC ({auc:.3f}, interval {ci[0]:.3f}-{ci[1]:.3f}) is below "
            "0.5: it does worse than chance on held-out records. Near-copies of real "
            "training records in the release cause this (memorisation: check the privacy "
            "measures), as can chance on small tables. It does not mean high fidelity.",
            UntrustworthyResultWarning,
            stacklevel=2,
        )
    total_gain = float(gain.sum())
    importance = (gain / total_gain if total_gain > 0 else gain).sort_values(ascending=False)
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
        "missing_indicators": with_missing,
        "classifier": "xgboost (depth 6, learning rate 0.3)",
    }
    extra = {
        "auc": auc,
        "accuracy": float(np.mean(accs)),
        "advantage": max(0.0, 2 * auc - 1),
        "below_chance": bool(below),
        "by_replicate": [{"auc": a, "accuracy": c} for a, c in zip(aucs, accs, strict=True)],
        "importance": {str(k): float(v) for k, v in importance.items()},
    }
    if progress:
        progress(1.0, "Discriminator done")
    return MetricResult(
        name="discriminator",
        value=auc,
        ci=ci,
        params=params,
        record_table=pd.concat(frames, ignore_index=True),
        baseline=0.5,
        goal="lower",
        bounds=(0.0, 1.0),
        extra=extra,
    )


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
