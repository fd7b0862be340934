"""ML attribute inference: xgboost trained on the release, scored on members (training
targets) against non-members (holdout targets) (:func:`ml_inference`).

A pipeline: check the options and the targets, fit the attacker and
guess every secret, draw the random guess, build the per-record tables, summarise
(raw accuracies for a categorical secret, 1 - RMSE/range with bootstrap intervals for a
continuous one), and check the consensus R8 reading (members guessed better than at
random).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ...data import Schema
from ...encoding import TableEncoder
from ...errors import InsufficientDataError, UntrustworthyResultWarning
from ...inputs import ReviewData
from ...stats import bootstrap_weights, child_rngs
from ...threat import ThreatModel
from ...validation import (
    check_choice,
    check_confidence,
    check_in_range,
    check_positive_int,
    check_seed,
)
from ..attackers import XGB_VARIANTS, fit_predict
from .common import (
    AttackResult,
    MLInferenceResult,
    categorical_summary,
    continuous_summary,
)
from .secret import inference_success, resolve_secret
from .targets import attack_inputs, check_n_attacks, resolve_columns, sample_rows


def ml_inference(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    aux_cols: Sequence[str] | None = None,
    secret: str | None = None,
    n_attacks: int | None = None,
    tolerance: float = 0.05,
    n_bootstrap: int = 1000,
    attacker: str = "xgb-unregularised",
    numeric_missing: str = "median",
    confidence: float = 0.95,
    n_jobs: int = -1,
    seed: int = 0,
) -> MLInferenceResult:
    """ML attribute inference: gradient boosting trained on the release, scored on members
    (training targets) against non-members (holdout targets).

    Parameters
    ----------
    real, synthetic, threat, schema
        As :func:`singling_out`.
    holdout
        Required: the non-member targets.
    aux_cols, secret
        Attacker's inputs (default the quasi-identifiers) and the column to infer (default
        ``threat.target``).
    n_attacks
        Targets drawn from each of training and holdout; None (default) = every record
        (consensus R2).
    tolerance
        Per-record correctness of a continuous guess in ``records`` (|g - s| <= tol·|s|);
        the headline score does not use it.
    n_bootstrap
        Bootstrap replicates of the continuous scores' intervals.
    attacker
        ``xgb-unregularised`` (default): xgboost with no L2 penalty, no minimum leaf
        weight, depth 10 and 1,024 histogram bins, the framework's "default unregularized
        XGBoost" (§6.2.3) made able to memorise, so that a full copy reads about 1.
        ``xgb``: the default xgboost (depth 6, 256 bins, lambda 1; RAPID's attacker),
        whose capacity caps it: a full copy of 6,666 health records reads 0.55.
    numeric_missing, confidence
        As :func:`linkability`.
    n_jobs
        Threads for xgboost (-1: all).
    seed
        Seed of target sampling, the model, the baseline and the bootstrap.

    Returns
    -------
    MLInferenceResult
        Named ``ml_inference``; ``value`` = clipped relative risk (r_T - r_H)/(1 - r_H)
        with r the raw accuracy k / n (categorical; Wilson intervals for the accuracies,
        their half-widths propagated to the risk's interval) or 1 - RMSE/range
        (continuous; range of the real secret); ``scores`` holds the three scores and
        ``extra`` ``relative_risk``, ``absolute_score`` (r_T), ``holdout_score`` (r_H) and
        ``random_guess_score`` side by side (consensus R7, R8;
        :meth:`MLInferenceResult.assess`). ``baseline``: the random guess (secrets of
        random synthetic rows).

    Raises
    ------
    InsufficientDataError
        No holdout, or no usable synthetic rows for the secret.

    Notes
    -----
    ``metric-reference.md`` §8 (aindo companion code: XGBoost on S, risk (r_T - r_H) /
    (1 - r_H)); ``risk-insertion-framework.md`` §4.3.3 (ML-based AIAs);
    ``consensus-privacy-framework.md`` R6-R8 and Figure 4.
    """
    n_attacks = check_n_attacks(n_attacks)
    tolerance = check_in_range("tolerance", tolerance, 0, 1e9)
    n_bootstrap = check_positive_int("n_bootstrap", n_bootstrap)
    attacker = check_choice("attacker", attacker, tuple(XGB_VARIANTS))
    confidence = check_confidence(confidence)
    seed = check_seed(seed)
    data, syn, hold = attack_inputs(real, synthetic, threat=threat, holdout=holdout, schema=schema)
    task = _ml_task(data, syn, hold, aux_cols, secret, n_attacks, seed)
    guesses = _ml_guesses(task, attacker, numeric_missing, tolerance, n_jobs)
    params = {
        "attacker": attacker,
        "aux_cols": task.aux,
        "secret": task.target,
        "kind": task.kind,
        "score": "accuracy" if task.categorical else "1 - RMSE/range",
        "n_attacks": n_attacks,
        "n_targets": len(task.targets),
        "n_control_targets": len(task.ctrl_targets),
        "n_synthetic_rows_used": len(task.syn_fit),
        "tolerance": tolerance,
        "n_bootstrap": None if task.categorical else n_bootstrap,
        "numeric_missing": numeric_missing,
        "control": True,
        "confidence": confidence,
        "model_seed": task.model_seed,
        "seed": seed,
    }
    shell = _ml_shell(task, guesses, params, confidence)
    if task.categorical:
        # raw accuracies as scores and risk, Wilson for the intervals only
        result = categorical_summary(shell, confidence)
    else:
        result = _continuous_result(task, guesses, shell, n_bootstrap, confidence)
    return _with_member_checks(result)


@dataclass(frozen=True)
class _MLTask:
    """What the ML attacker works on: the release rows it learns from (those with a value
    of the secret), the member and non-member targets, and the seeds of the model, the
    random guess and the bootstrap."""

    data: ReviewData
    holdout: pd.DataFrame
    aux: list[str]
    target: str
    categorical: bool
    syn_fit: pd.DataFrame
    targets: pd.DataFrame
    ctrl_targets: pd.DataFrame
    model_seed: int
    rng_baseline: np.random.Generator
    rng_bootstrap: np.random.Generator

    @property
    def kind(self) -> str:
        return "categorical" if self.categorical else "continuous"

    def secrets(self, frame: pd.DataFrame) -> np.ndarray:
        return frame[self.target].to_numpy(dtype=object if self.categorical else float)


def _ml_task(
    data: ReviewData,
    syn: pd.DataFrame,
    hold: pd.DataFrame | None,
    aux_cols: Sequence[str] | None,
    secret: str | None,
    n_attacks: int | None,
    seed: int,
) -> _MLTask:
    """The attacker's columns, secret, training rows and targets, checked to be usable."""
    if hold is None:
        raise InsufficientDataError(
            "ML inference compares members with non-members and needs a holdout: real rows "
            "the generator never saw. Pass holdout=... (consensus R7: a relative attribute "
            "disclosure needs a non-member baseline)."
        )
    aux = resolve_columns(data, aux_cols, "aux_cols", data.threat.quasi_identifiers)
    target = resolve_secret(data, secret, aux)
    categorical = not data.schema[target].is_numeric
    rng_t, rng_c, rng_b, rng_boot, rng_model = child_rngs(seed, 5)
    model_seed = int(rng_model.integers(0, 2**31 - 1))

    def usable(frame: pd.DataFrame) -> pd.DataFrame:
        return frame if categorical else frame[np.isfinite(frame[target].to_numpy(dtype=float))]

    syn_fit = usable(syn)
    if len(syn_fit) < 2:
        raise InsufficientDataError(
            f"The synthetic table has {len(syn_fit)} row(s) with a value of {target!r}; the "
            "attacker needs at least two to learn from."
        )
    targets = sample_rows(usable(data.real), n_attacks, rng_t)
    ctrl_targets = sample_rows(usable(hold), n_attacks, rng_c)
    if len(targets) == 0 or len(ctrl_targets) == 0:
        raise InsufficientDataError(f"No real or holdout rows have a value of {target!r}.")
    return _MLTask(
        data,
        hold,
        aux,
        target,
        categorical,
        syn_fit,
        targets,
        ctrl_targets,
        model_seed,
        rng_b,
        rng_boot,
    )


@dataclass(frozen=True)
class _Guesses:
    """The guesses, truths and their correctness per series: ``training`` and ``control``
    (the model's guesses on members and non-members) and ``baseline`` (secrets of random
    synthetic rows, scored on the training targets)."""

    guess: dict[str, np.ndarray]
    truth: dict[str, np.ndarray]
    ok: dict[str, np.ndarray]


def _ml_guesses(
    task: _MLTask, attacker: str, numeric_missing: str, tolerance: float, n_jobs: int
) -> _Guesses:
    """Fit the attacker on the release, guess every target's secret, draw the random
    guess, and judge them all."""
    guesses = _model_predictions(task, attacker, numeric_missing, n_jobs)
    n_t = len(task.targets)
    syn_secret = task.secrets(task.syn_fit)
    pick = task.rng_baseline.choice(len(syn_secret), size=n_t, replace=n_t > len(syn_secret))
    truth_t = task.secrets(task.targets)
    guess = {"training": guesses[:n_t], "control": guesses[n_t:], "baseline": syn_secret[pick]}
    truth = {"training": truth_t, "control": task.secrets(task.ctrl_targets), "baseline": truth_t}
    ok = {
        k: inference_success(
            guess[k], truth[k], regression=not task.categorical, tolerance=tolerance
        )
        for k in ("training", "control", "baseline")
    }
    return _Guesses(guess, truth, ok)


def _model_predictions(
    task: _MLTask, attacker: str, numeric_missing: str, n_jobs: int
) -> np.ndarray:
    """The attacker's guesses of the training targets' secrets, then the control
    targets': a classifier over every level seen in the three tables, or a regressor."""
    data, target, syn_fit = task.data, task.target, task.syn_fit
    encoder = TableEncoder(data.schema, columns=task.aux, numeric_missing=numeric_missing).fit(
        data.real
    )
    x_syn = encoder.transform(syn_fit)
    x_targets = np.vstack([encoder.transform(task.targets), encoder.transform(task.ctrl_targets)])
    if not task.categorical:
        y_syn = syn_fit[target].to_numpy(dtype=float)
        out = fit_predict(
            attacker,
            x_syn,
            y_syn,
            x_targets,
            categorical=False,
            seed=task.model_seed,
            n_jobs=n_jobs,
        )
        return out.prediction
    classes = np.array(
        sorted(set(data.real[target]) | set(syn_fit[target]) | set(task.holdout[target])),
        dtype=object,
    )
    y_syn = np.searchsorted(classes, syn_fit[target].to_numpy(dtype=object))
    out = fit_predict(
        attacker,
        x_syn,
        y_syn,
        x_targets,
        categorical=True,
        n_classes=len(classes),
        seed=task.model_seed,
        n_jobs=n_jobs,
    )
    return classes[out.prediction]


def _ml_shell(
    task: _MLTask, guesses: _Guesses, params: dict[str, Any], confidence: float
) -> MLInferenceResult:
    """The result before its summary: counts, every guess and the random guesses."""

    def table(frame: pd.DataFrame, series: str, role: str) -> pd.DataFrame:
        guess, truth = guesses.guess[series], guesses.truth[series]
        cols: dict[str, Any] = {
            "record": frame.index.to_numpy(),
            "role": role,
            "guess": guess,
            "truth": truth,
            "success": guesses.ok[series],
        }
        if not task.categorical:
            cols["error"] = guess - truth
        return pd.DataFrame(cols)

    records = pd.concat(
        [
            table(task.targets, "training", "training"),
            table(task.ctrl_targets, "control", "control"),
        ],
        ignore_index=True,
    )
    n_t = len(task.targets)
    # counts are integers for a categorical secret, floats for a continuous one
    count = int if task.categorical else float
    return MLInferenceResult(
        name="ml_inference",
        value=float("nan"),
        ci=None,
        params=params,
        record_table=records,
        goal="lower",
        bounds=(0.0, 1.0),
        n_attacks=n_t,
        n_control_attacks=len(task.ctrl_targets),
        n_baseline_attacks=n_t,
        confidence=confidence,
        baseline_table=table(task.targets, "baseline", "baseline"),
        n_success=count(guesses.ok["training"].sum()),
        n_control_success=count(guesses.ok["control"].sum()),
        n_baseline_success=count(guesses.ok["baseline"].sum()),
        kind=task.kind,
    )


def _continuous_result(
    task: _MLTask,
    guesses: _Guesses,
    shell: MLInferenceResult,
    n_bootstrap: int,
    confidence: float,
) -> MLInferenceResult:
    """Scores 1 - RMSE/range (range of the real secret) with bootstrap replicates, and
    the relative risk read from them."""
    values = task.data.real[task.target].to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    spread = float(finite.max() - finite.min()) if finite.size else 0.0
    spread = spread if spread > 0 else 1.0
    sq = {
        k: (guesses.guess[k] - guesses.truth[k]) ** 2 for k in ("training", "control", "baseline")
    }
    scores = {k: float(1 - math.sqrt(v.mean()) / spread) for k, v in sq.items()}
    reps = {}
    for k, v in sq.items():
        seed = int(task.rng_bootstrap.integers(0, 2**31 - 1))
        w = bootstrap_weights(len(v), n_bootstrap, seed=seed)
        reps[k] = 1 - np.sqrt(w.astype(np.float64) @ v / len(v)) / spread
    extra = {
        "absolute_score": scores["training"],
        "holdout_score": scores["control"],
        "random_guess_score": scores["baseline"],
        "score_name": "1 - RMSE/range",
        "attack_rate": scores["training"],
        "control_rate": scores["control"],
        "baseline_rate": scores["baseline"],
        "secret_range": spread,
        "beats_baseline": bool(scores["training"] > scores["baseline"]),
    }
    shell = replace(shell, scores=scores, score_replicates=reps, extra=extra)
    return continuous_summary(shell, confidence)


def _with_member_checks(result: MLInferenceResult) -> MLInferenceResult:
    """Add whether members are guessed better than at random and than non-members, and
    warn (consensus R8) when the attack does no better than a random guess."""
    ex = result.extra
    result = replace(
        result,
        extra={
            **ex,
            "beats_random_guess": bool(ex["absolute_score"] > ex["random_guess_score"]),
            "beats_holdout": bool(ex["absolute_score"] > ex["holdout_score"]),
        },
    )
    ra, rb = result.extra["absolute_score"], result.extra["random_guess_score"]
    if not ra > rb:
        warnings.warn(
            f"The ML inference attack does no better than a random guess on members "
            f"(score {ra:.3f} vs {rb:.3f}); by consensus R8 this is not an attribute "
            "disclosure, whatever the relative risk.",
            UntrustworthyResultWarning,
            stacklevel=3,  # the caller of ml_inference
        )
    if result.kind == "categorical":
        _warn_untrustworthy_control_only(result)
    return result


def _warn_untrustworthy_control_only(result: AttackResult) -> None:
    if (
        result.n_control_success is not None
        and result.n_control_attacks > 0
        and result.n_control_success >= result.n_control_attacks
    ):
        warnings.warn(
            "The ML attacker is right on every holdout target; the relative risk is near 0 by "
            "construction. Read the absolute score instead.",
            UntrustworthyResultWarning,
            stacklevel=4,  # the caller of ml_inference
        )
