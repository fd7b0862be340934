"""Attribute inference: the nearest synthetic record's secret as a guess, and xgboost
trained on the release (members vs non-members)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ...data import Schema
from ...encoding import TableEncoder
from ...errors import (
    InsufficientDataError,
    ParameterError,
    ThreatModelError,
    UntrustworthyResultWarning,
)
from ...inputs import ReviewData
from ...stats import (
    bootstrap_weights,
)
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
    _attack_inputs,
    _categorical_summary,
    _check_n_attacks,
    _continuous_summary,
    _resolve_columns,
    _rngs,
    _sample_rows,
    _targets,
    _warn_no_control,
    _warn_untrustworthy,
    _with_summary,
)
from .knn import _knn_random_ties, attack_space


def _resolve_secret(data: ReviewData, secret: str | None, aux: list[str]) -> str:
    target = data.threat.target if secret is None else secret
    _resolve_columns(data, [target], "secret", [])
    if target in aux:
        raise ThreatModelError(
            f"The secret {target!r} is also an auxiliary column; the attacker cannot already "
            "know what it tries to learn. Remove it from aux_cols."
        )
    return target


def inference_success(
    guess: np.ndarray, truth: np.ndarray, *, regression: bool, tolerance: float = 0.05
) -> np.ndarray:
    """Whether each guess of a secret is correct.

    Categorical: equal. Numeric: |g - s| <= tolerance·|s|, relative to the *true* value
    with an absolute value (Anonymeter divides by the signed guess, so any negative guess
    counted as correct: the ``[code bug]`` of ``metric-reference.md`` §2); two missing
    values count as correct, as in Anonymeter.
    """
    if not regression:
        return np.asarray(guess, dtype=object) == np.asarray(truth, dtype=object)
    g = np.asarray(guess, dtype=float)
    s = np.asarray(truth, dtype=float)
    with np.errstate(invalid="ignore"):
        ok = np.abs(g - s) <= tolerance * np.abs(s)
    return ok | (np.isnan(g) & np.isnan(s))


def distance_inference(
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
    regression: bool | None = None,
    numeric_missing: str = "median",
    confidence: float = 0.95,
    space: str = "shared",
    embedding: Any = None,
    embedding_params: dict[str, Any] | None = None,
    seed: int = 0,
) -> AttackResult:
    """Distance-based attribute inference: the secret of the nearest synthetic record.

    Parameters
    ----------
    real, synthetic, holdout, threat, schema
        As :func:`singling_out`.
    aux_cols
        Columns the attacker knows; default the quasi-identifiers.
    secret
        The column to infer; default ``threat.target``.
    n_attacks
        Training (and control) targets, sampled without replacement; None (default) =
        every record (consensus R2; with 500 targets a private release read up to 0.2 by
        chance on 6,666 training rows, an interval of ±0.12 around it) up to 50,000 per
        side, a seeded sample above
        (:func:`~privacy_core.risk.neighbors.default_queries`: 20,000 against a
        million-row release; each target still searches the whole release;
        ``params["n_targets"]`` says how many).
    tolerance
        A numeric guess is correct when |g - s| <= tolerance·|s|.
    regression
        Treat the secret as numeric; default from the schema.
    numeric_missing, confidence, seed
        As :func:`linkability`.
    space, embedding, embedding_params
        ``shared`` (default) or ``contrastive``: the nearest synthetic record in the
        contrastive embedding of the attacker's columns (the others masked); see
        :func:`~privacy_core.risk.distance.dcr`.

    Returns
    -------
    AttackResult
        Named ``inference``. ``records``: ``guess`` (the neighbour's secret), ``truth``,
        ``success``, ``neighbor`` (its synthetic index label) and ``distance``. Baseline:
        secrets of random synthetic rows against an independent sample of training targets.

    Notes
    -----
    Giomi et al. (PoPETs 2023); ``risk-insertion-framework.md`` §4.3.3 (distance-based
    AIAs, k = 1) and §5.3.2; ``metric-reference.md`` §2 (with the tolerance bug fixed).
    """
    n_attacks = _check_n_attacks(n_attacks)
    tolerance = check_in_range("tolerance", tolerance, 0, 1e9)
    confidence = check_confidence(confidence)
    seed = check_seed(seed)
    data, syn, hold = _attack_inputs(real, synthetic, threat=threat, holdout=holdout, schema=schema)
    aux = _resolve_columns(data, aux_cols, "aux_cols", data.threat.quasi_identifiers)
    target = _resolve_secret(data, secret, aux)
    if regression is None:
        regression = bool(data.schema[target].is_numeric)
    elif regression and not data.schema[target].is_numeric:
        # its values (words, "(missing)") cannot be compared within a tolerance
        raise ParameterError(
            f"`regression=True` needs a numeric secret; {target!r} is "
            f"{data.schema[target].kind}. Leave `regression` unset to take the column's type."
        )
    rng_t, rng_c, rng_tie, rng_bt, rng_bg = _rngs(seed, 5)
    place, space_info = attack_space(
        data, aux, numeric_missing, space, embedding, embedding_params, seed
    )
    syn_x = place(syn, aux)
    perm = rng_tie.permutation(len(syn))
    as_type = float if regression else object
    syn_secret = syn[target].to_numpy(dtype=as_type)

    def attack(targets: pd.DataFrame, role: str) -> tuple[int, pd.DataFrame]:
        dist, idx = _knn_random_ties(place(targets, aux), syn_x, 1, perm)
        guess = syn_secret[idx[:, 0]]
        truth = targets[target].to_numpy(dtype=as_type)
        ok = inference_success(guess, truth, regression=regression, tolerance=tolerance)
        table = pd.DataFrame(
            {
                "record": targets.index.to_numpy(),
                "role": role,
                "guess": guess,
                "truth": truth,
                "success": ok,
                "neighbor": syn.index.to_numpy()[idx[:, 0]],
                "distance": dist[:, 0],
            }
        )
        return int(ok.sum()), table

    targets = _sample_rows(data.real, _targets(n_attacks, len(data.real), len(syn)), rng_t)
    k_t, table_t = attack(targets, "training")
    k_c, tables = None, [table_t]
    n_c = 0
    if hold is not None:
        ctrl_targets = _sample_rows(hold, _targets(n_attacks, len(hold), len(syn)), rng_c)
        k_c, table_c = attack(ctrl_targets, "control")
        n_c = len(ctrl_targets)
        tables.append(table_c)
    # random guess: secrets of random synthetic rows against independently drawn targets
    n_base = min(len(targets), len(syn))
    base_targets = _sample_rows(data.real, n_base, rng_bt)
    pick = rng_bg.choice(len(syn), size=n_base, replace=False)
    base_guess = syn_secret[pick]
    base_truth = base_targets[target].to_numpy(dtype=as_type)
    base_ok = inference_success(base_guess, base_truth, regression=regression, tolerance=tolerance)
    baseline_table = pd.DataFrame(
        {
            "record": base_targets.index.to_numpy(),
            "guess": base_guess,
            "truth": base_truth,
            "success": base_ok,
        }
    )
    params = {
        "aux_cols": aux,
        "secret": target,
        "regression": regression,
        "tolerance": tolerance,
        "n_attacks": n_attacks,
        "n_targets": len(targets),
        # every record was asked for, a seeded sample was attacked (register size)
        "targets_sampled": n_attacks is None and len(targets) < len(data.real),
        "n_control_targets": n_c if hold is not None else None,
        "numeric_missing": numeric_missing,
        "control": hold is not None,
        "confidence": confidence,
        "seed": seed,
        **space_info,
    }
    shell = AttackResult(
        name="inference",
        value=float("nan"),
        ci=None,
        params=params,
        record_table=pd.concat(tables, ignore_index=True),
        goal="lower",
        bounds=(0.0, 1.0),
        n_attacks=len(targets),
        n_success=k_t,
        n_control_attacks=n_c,
        n_control_success=k_c,
        n_baseline_attacks=n_base,
        n_baseline_success=int(base_ok.sum()),
        confidence=confidence,
        baseline_table=baseline_table,
    )
    result = _with_summary(shell, confidence)
    if hold is None:
        _warn_no_control("inference")
    _warn_untrustworthy(result, "inference")
    return result


# ============================================================================ ML inference
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
    n_attacks = _check_n_attacks(n_attacks)
    tolerance = check_in_range("tolerance", tolerance, 0, 1e9)
    n_bootstrap = check_positive_int("n_bootstrap", n_bootstrap)
    attacker = check_choice("attacker", attacker, tuple(XGB_VARIANTS))
    confidence = check_confidence(confidence)
    seed = check_seed(seed)
    data, syn, hold = _attack_inputs(real, synthetic, threat=threat, holdout=holdout, schema=schema)
    if hold is None:
        raise InsufficientDataError(
            "ML inference compares members with non-members and needs a holdout: real rows "
            "the generator never saw. Pass holdout=... (consensus R7: a relative attribute "
            "disclosure needs a non-member baseline)."
        )
    aux = _resolve_columns(data, aux_cols, "aux_cols", data.threat.quasi_identifiers)
    target = _resolve_secret(data, secret, aux)
    categorical = not data.schema[target].is_numeric
    rng_t, rng_c, rng_b, rng_boot, rng_model = _rngs(seed, 5)
    model_seed = int(rng_model.integers(0, 2**31 - 1))

    def usable(frame: pd.DataFrame) -> pd.DataFrame:
        return frame if categorical else frame[np.isfinite(frame[target].to_numpy(dtype=float))]

    syn_fit = usable(syn)
    if len(syn_fit) < 2:
        raise InsufficientDataError(
            f"The synthetic table has {len(syn_fit)} row(s) with a value of {target!r}; the "
            "attacker needs at least two to learn from."
        )
    targets = _sample_rows(usable(data.real), n_attacks, rng_t)
    ctrl_targets = _sample_rows(usable(hold), n_attacks, rng_c)
    if len(targets) == 0 or len(ctrl_targets) == 0:
        raise InsufficientDataError(f"No real or holdout rows have a value of {target!r}.")
    encoder = TableEncoder(data.schema, columns=aux, numeric_missing=numeric_missing).fit(data.real)
    x_syn = encoder.transform(syn_fit)
    x_targets = np.vstack([encoder.transform(targets), encoder.transform(ctrl_targets)])
    if categorical:
        classes = np.array(
            sorted(set(data.real[target]) | set(syn_fit[target]) | set(hold[target])), dtype=object
        )
        y_syn = np.searchsorted(classes, syn_fit[target].to_numpy(dtype=object))
        out = fit_predict(
            attacker,
            x_syn,
            y_syn,
            x_targets,
            categorical=True,
            n_classes=len(classes),
            seed=model_seed,
            n_jobs=n_jobs,
        )
        guesses = classes[out.prediction]
        truth_t = targets[target].to_numpy(dtype=object)
        truth_c = ctrl_targets[target].to_numpy(dtype=object)
    else:
        y_syn = syn_fit[target].to_numpy(dtype=float)
        out = fit_predict(
            attacker, x_syn, y_syn, x_targets, categorical=False, seed=model_seed, n_jobs=n_jobs
        )
        guesses = out.prediction
        truth_t = targets[target].to_numpy(dtype=float)
        truth_c = ctrl_targets[target].to_numpy(dtype=float)
    n_t, n_c = len(targets), len(ctrl_targets)
    guess_t, guess_c = guesses[:n_t], guesses[n_t:]
    syn_secret = syn_fit[target].to_numpy(dtype=object if categorical else float)
    base_guess = syn_secret[rng_b.choice(len(syn_secret), size=n_t, replace=n_t > len(syn_secret))]
    ok_t = inference_success(guess_t, truth_t, regression=not categorical, tolerance=tolerance)
    ok_c = inference_success(guess_c, truth_c, regression=not categorical, tolerance=tolerance)
    ok_b = inference_success(base_guess, truth_t, regression=not categorical, tolerance=tolerance)

    def table(
        frame: pd.DataFrame, role: str, guess: np.ndarray, truth: np.ndarray, ok: np.ndarray
    ) -> pd.DataFrame:
        cols: dict[str, Any] = {
            "record": frame.index.to_numpy(),
            "role": role,
            "guess": guess,
            "truth": truth,
            "success": ok,
        }
        if not categorical:
            cols["error"] = guess - truth
        return pd.DataFrame(cols)

    records = pd.concat(
        [
            table(targets, "training", guess_t, truth_t, ok_t),
            table(ctrl_targets, "control", guess_c, truth_c, ok_c),
        ],
        ignore_index=True,
    )
    baseline_table = table(targets, "baseline", base_guess, truth_t, ok_b)
    params = {
        "attacker": attacker,
        "aux_cols": aux,
        "secret": target,
        "kind": "categorical" if categorical else "continuous",
        "score": "accuracy" if categorical else "1 - RMSE/range",
        "n_attacks": n_attacks,
        "n_targets": n_t,
        "n_control_targets": n_c,
        "n_synthetic_rows_used": len(syn_fit),
        "tolerance": tolerance,
        "n_bootstrap": None if categorical else n_bootstrap,
        "numeric_missing": numeric_missing,
        "control": True,
        "confidence": confidence,
        "model_seed": model_seed,
        "seed": seed,
    }
    common: dict[str, Any] = {
        "name": "ml_inference",
        "value": float("nan"),
        "ci": None,
        "params": params,
        "record_table": records,
        "goal": "lower",
        "bounds": (0.0, 1.0),
        "n_attacks": n_t,
        "n_control_attacks": n_c,
        "n_baseline_attacks": n_t,
        "confidence": confidence,
        "baseline_table": baseline_table,
    }
    if categorical:
        shell = MLInferenceResult(
            **common,
            n_success=int(ok_t.sum()),
            n_control_success=int(ok_c.sum()),
            n_baseline_success=int(ok_b.sum()),
            kind="categorical",
        )
        # raw accuracies as scores and risk, Wilson for the intervals only
        result = _categorical_summary(shell, confidence)
    else:
        values = data.real[target].to_numpy(dtype=float)
        finite = values[np.isfinite(values)]
        spread = float(finite.max() - finite.min()) if finite.size else 0.0
        spread = spread if spread > 0 else 1.0
        sq = {
            "training": (guess_t - truth_t) ** 2,
            "control": (guess_c - truth_c) ** 2,
            "baseline": (base_guess - truth_t) ** 2,
        }
        scores = {k: float(1 - math.sqrt(v.mean()) / spread) for k, v in sq.items()}
        reps = {}
        for k, v in sq.items():
            w = bootstrap_weights(len(v), n_bootstrap, seed=int(rng_boot.integers(0, 2**31 - 1)))
            reps[k] = 1 - np.sqrt(w.astype(np.float64) @ v / len(v)) / spread
        shell = MLInferenceResult(
            **common,
            n_success=float(ok_t.sum()),
            n_control_success=float(ok_c.sum()),
            n_baseline_success=float(ok_b.sum()),
            kind="continuous",
            scores=scores,
            score_replicates=reps,
        )
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
        result = _continuous_summary(replace(shell, extra=extra), confidence)
    result = replace(
        result,
        extra={
            **result.extra,
            "beats_random_guess": bool(
                result.extra["absolute_score"] > result.extra["random_guess_score"]
            ),
            "beats_holdout": bool(result.extra["absolute_score"] > result.extra["holdout_score"]),
        },
    )
    ra, rb = result.extra["absolute_score"], result.extra["random_guess_score"]
    if not ra > rb:
        warnings.warn(
            f"The ML inference attack does no better than a random guess on members "
            f"(score {ra:.3f} vs {rb:.3f}); by consensus R8 this is not an attribute "
            "disclosure, whatever the relative risk.",
            UntrustworthyResultWarning,
            stacklevel=2,
        )
    if categorical:
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
            stacklevel=3,
        )
