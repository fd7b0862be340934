"""Attack results, their summaries and the warnings every attack shares.

The results keep every count an attack made, so that summaries (the control-baseline
risk, its interval, the random-guess baseline) are re-read cheaply at another confidence
level or, for linkability, at fewer neighbours. Who is attacked, and how the targets are
drawn, is in :mod:`~privacy_core.risk.attacks.targets`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ...errors import (
    ParameterError,
    UntrustworthyResultWarning,
)
from ...results import MetricResult
from ...stats import (
    bounded_estimate,
    bounded_interval,
    control_baseline_error,
    control_baseline_risk,
    percentile_interval,
    wilson_centre,
)
from ...validation import (
    check_confidence,
    check_in_range,
    check_positive_int,
)


# ============================================================================ results
@dataclass(frozen=True, eq=False)
class AttackResult(MetricResult):
    """Risk of one attack with its training, control and random-guess success counts.

    ``value`` and ``ci`` are the clipped control-baseline risk (or the clipped attack
    success rate when no holdout was given); ``baseline`` is the clipped random-guess
    success rate. ``records`` holds every guess on training and control targets,
    ``baseline_records`` the random guesses.
    """

    n_attacks: int = 0
    n_success: float = 0.0
    n_control_attacks: int = 0
    n_control_success: float | None = None
    n_baseline_attacks: int = 0
    n_baseline_success: float = 0.0
    confidence: float = 0.95
    baseline_table: pd.DataFrame | None = None
    # Share of the control reference that is holdout rows (singling out's ``mixture``
    # correction); below 1 the control-baseline risk is un-diluted (see ``undilute``).
    dilution: float = 1.0

    @property
    def baseline_records(self) -> pd.DataFrame | None:
        """The random-guess attacker's guesses and outcomes."""
        return self.baseline_table

    def rates(self) -> pd.DataFrame:
        """Success rates of the attack on training and control targets and of the random
        guess: columns series, successes, n, rate (Wilson centre), lower, upper."""
        rows = [
            ("training", self.n_success, self.n_attacks),
            ("control", self.n_control_success, self.n_control_attacks),
            ("baseline", self.n_baseline_success, self.n_baseline_attacks),
        ]
        out = []
        for series, k, n in rows:
            if k is None:
                continue
            rate, err = _wilson(k, n, self.confidence)
            _, (lo, hi) = bounded_estimate(rate, err)
            out.append(
                {
                    "series": series,
                    "successes": float(k),
                    "n": int(n),
                    "rate": rate,
                    "lower": lo,
                    "upper": hi,
                }
            )
        return pd.DataFrame(out, columns=["series", "successes", "n", "rate", "lower", "upper"])

    def at(self, *, confidence: float | None = None) -> AttackResult:
        """The same guesses summarised at another confidence level (no new attack)."""
        conf = self.confidence if confidence is None else check_confidence(confidence)
        return with_summary(self, conf)


@dataclass(frozen=True, eq=False)
class LinkabilityResult(AttackResult):
    """Linkability risk at ``n_neighbors`` with everything needed for any k' <= k.

    ``link_rank`` (training targets), ``control_link_rank`` and ``baseline_link_rank``
    hold, per target, the smallest k' at which the k'-nearest synthetic neighbours on the
    two column sets share a record (0 = not linked within k).
    """

    n_neighbors: int = 1
    max_neighbors: int = 1
    link_rank: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    control_link_rank: np.ndarray | None = None
    baseline_link_rank: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def at(
        self,
        *,
        n_neighbors: int | None = None,
        confidence: float | None = None,
    ) -> LinkabilityResult:
        """Re-read the stored neighbour lists at k' <= k neighbours (no new search)."""
        k = (
            self.n_neighbors
            if n_neighbors is None
            else check_positive_int("n_neighbors", n_neighbors)
        )
        if k > self.max_neighbors:
            raise ParameterError(
                f"`n_neighbors` must be at most {self.max_neighbors}, the number searched; "
                f"got {k}. Rerun linkability with n_neighbors={k} to read it."
            )
        conf = self.confidence if confidence is None else check_confidence(confidence)
        k_a = count_linked(self.link_rank, k)
        k_c = None if self.control_link_rank is None else count_linked(self.control_link_rank, k)
        k_b = count_linked(self.baseline_link_rank, k)
        records = None
        if self.record_table is not None:
            records = self.record_table.copy()
            ok = (records["link_rank"] > 0) & (records["link_rank"] <= k)
            records["success"] = ok.to_numpy()
            guess = records["link"].to_numpy(dtype=object).copy()
            guess[~ok.to_numpy()] = None
            records["guess"] = guess
        baseline = None
        if self.baseline_table is not None:
            baseline = self.baseline_table.copy()
            baseline["success"] = (
                (baseline["link_rank"] > 0) & (baseline["link_rank"] <= k)
            ).to_numpy()
        params = {**self.params, "n_neighbors": k}
        shell = replace(
            self,
            n_neighbors=k,
            n_success=k_a,
            n_control_success=k_c,
            n_baseline_success=k_b,
            params=params,
            record_table=records,
            baseline_table=baseline,
        )
        return with_summary(shell, conf)  # type: ignore[return-value]

    def curve(self, max_neighbors: int | None = None) -> pd.DataFrame:
        """Risk, attack, control and baseline rates for k' = 1 .. max_neighbors."""
        top = (
            self.max_neighbors
            if max_neighbors is None
            else min(check_positive_int("max_neighbors", max_neighbors), self.max_neighbors)
        )
        rows = []
        for k in range(1, top + 1):
            r = self.at(n_neighbors=k)
            lower, upper = r.ci if r.ci is not None else (float("nan"), float("nan"))
            rows.append(
                {
                    "n_neighbors": k,
                    "risk": r.value,
                    "lower": lower,
                    "upper": upper,
                    "attack_rate": r.extra["attack_rate"],
                    "control_rate": r.extra["control_rate"],
                    "baseline_rate": r.extra["baseline_rate"],
                }
            )
        return pd.DataFrame(rows)


@dataclass(frozen=True, eq=False)
class MLInferenceResult(AttackResult):
    """ML attribute inference: relative risk with the absolute scores beside it (R7, R8).

    For a categorical secret the scores are raw accuracies k / n with Wilson intervals
    (the Wilson centre is used for nothing: see :func:`categorical_summary`); for a
    continuous one they are 1 - RMSE / range with percentile-bootstrap intervals (the
    replicates are stored so another confidence level is a cheap re-reading).
    """

    kind: str = "categorical"
    scores: dict[str, float] = field(default_factory=dict)
    score_replicates: dict[str, np.ndarray] = field(default_factory=dict)

    def rates(self) -> pd.DataFrame:
        """Scores on training, control and random-guess targets: columns series,
        successes, n, rate (raw accuracy, or 1 - RMSE/range), lower, upper."""
        if self.kind == "categorical":
            out = []
            for series, k, n in (
                ("training", self.n_success, self.n_attacks),
                ("control", self.n_control_success, self.n_control_attacks),
                ("baseline", self.n_baseline_success, self.n_baseline_attacks),
            ):
                rate, (lo, hi), _ = _accuracy(k, n, self.confidence)
                out.append(
                    {
                        "series": series,
                        "successes": float(k or 0),
                        "n": int(n),
                        "rate": rate,
                        "lower": lo,
                        "upper": hi,
                    }
                )
            return pd.DataFrame(out)
        a = (1 - self.confidence) / 2 * 100
        out = []
        for series, n in (
            ("training", self.n_attacks),
            ("control", self.n_control_attacks),
            ("baseline", self.n_baseline_attacks),
        ):
            reps = self.score_replicates[series]
            lo, hi = np.nanpercentile(reps, [a, 100 - a]) if reps.size else (np.nan, np.nan)
            out.append(
                {
                    "series": series,
                    "successes": np.nan,
                    "n": int(n),
                    "rate": self.scores[series],
                    "lower": float(lo),
                    "upper": float(hi),
                }
            )
        return pd.DataFrame(out)

    def at(self, *, confidence: float | None = None) -> MLInferenceResult:
        conf = self.confidence if confidence is None else check_confidence(confidence)
        if self.kind == "categorical":
            return categorical_summary(self, conf)
        return continuous_summary(self, conf)

    def assess(self, *, relative_threshold: float, absolute_threshold: float) -> bool:
        """Consensus R8: unacceptably high only when the relative risk exceeds its threshold
        *and* the absolute member score exceeds its own."""
        rel = check_in_range("relative_threshold", relative_threshold, -1e9, 1e9)
        ab = check_in_range("absolute_threshold", absolute_threshold, -1e9, 1e9)
        return bool(self.extra["relative_risk"] > rel and self.extra["absolute_score"] > ab)


# ============================================================================ shared
def _wilson(k: float, n: float, confidence: float) -> tuple[float, float]:
    # Successes are clipped to [0, n]: a rescaled control count above n is what raises
    # Anonymeter's math domain error (issues #29 / #32).
    n = max(float(n), 0.0)
    if n == 0:
        return float("nan"), float("nan")
    return wilson_centre(min(max(float(k), 0.0), n), n, confidence=confidence)


def with_summary(result: AttackResult, confidence: float) -> AttackResult:
    """Fill value, ci, baseline and the rate keys of ``extra`` from the stored counts."""
    ra, ea = _wilson(result.n_success, result.n_attacks, confidence)
    rb, eb = _wilson(result.n_baseline_success, result.n_baseline_attacks, confidence)
    extra = dict(result.extra)
    extra.update(
        {
            "attack_rate": ra,
            "attack_ci": list(bounded_estimate(ra, ea)[1]),
            "baseline_rate": rb,
            "baseline_ci": list(bounded_estimate(rb, eb)[1]),
            "n_attacks": int(result.n_attacks),
            "n_success": float(result.n_success),
            "n_baseline_attacks": int(result.n_baseline_attacks),
            "n_baseline_success": float(result.n_baseline_success),
            "beats_baseline": bool(ra > rb),
            "confidence": confidence,
        }
    )
    if result.n_control_success is None:
        risk, err = ra, ea
        extra.update(
            {
                "control_rate": None,
                "control_ci": None,
                "n_control_attacks": 0,
                "n_control_success": None,
            }
        )
    else:
        rc, ec = _wilson(result.n_control_success, result.n_control_attacks, confidence)
        risk = control_baseline_risk(ra, rc)
        err = control_baseline_error(ra, ea, rc, ec)
        extra.update(
            {
                "control_rate": rc,
                "control_ci": list(bounded_estimate(rc, ec)[1]),
                "n_control_attacks": int(result.n_control_attacks),
                "n_control_success": float(result.n_control_success),
            }
        )
    if result.n_control_success is not None and result.dilution < 1:
        lo, hi = (undilute(x, result.dilution) for x in (risk - err, risk + err))
        extra.update({"risk_reference": risk, "reference_control_share": result.dilution})
        risk = undilute(risk, result.dilution)
        value, ci = bounded_interval(risk, lo, hi)
        err = (hi - lo) / 2
    else:
        value, ci = bounded_estimate(risk, err)
    extra.update({"risk_unclipped": risk, "risk_error": err})
    baseline = bounded_estimate(rb, eb)[0] if math.isfinite(rb) else None
    return replace(
        result, value=value, ci=ci, baseline=baseline, extra=extra, confidence=confidence
    )


def undilute(risk: float, rho: float) -> float:
    """Invert R_M = rho R / (1 - (1 - rho) R): the risk against a reference table whose
    share 1 - rho of rows comes from the training set (derivation in
    :mod:`~privacy_core.risk.attacks.predicates.size_correction`). Below 0 the map continues
    with its slope at 0 (1 / rho), so noise around 0 stays symmetric and monotone."""
    if not math.isfinite(risk):
        return risk
    if risk < 0:
        return risk / rho
    return risk / (rho + (1 - rho) * min(risk, 1.0))


def summarise_attack(shell: AttackResult, attack: str, *, stacklevel: int = 4) -> AttackResult:
    """``shell``'s counts summarised at its confidence (:func:`with_summary`), with the
    warnings when it had no control targets or cannot be trusted. ``stacklevel`` 4 points
    at the caller of the attack function that calls this."""
    result = with_summary(shell, shell.confidence)
    if shell.n_control_success is None:
        warn_no_control(attack, stacklevel=stacklevel)
    warn_untrustworthy(result, attack, stacklevel=stacklevel)
    return result


def warn_untrustworthy(result: AttackResult, attack: str, *, stacklevel: int = 3) -> None:
    """Warn when ``result`` cannot be trusted: the attack does not beat its random guess,
    or it succeeds on every control target. ``stacklevel`` 3 points at the caller of the
    attack function that calls this."""
    ex = result.extra
    ra, rb = ex.get("attack_rate"), ex.get("baseline_rate")
    if ra is not None and rb is not None and not ra > rb:
        warnings.warn(
            f"The {attack} attack does no better than its random-guess baseline "
            f"(success {ra:.3f} vs baseline {rb:.3f}); the risk estimate cannot be trusted "
            "as evidence either way.",
            UntrustworthyResultWarning,
            stacklevel=stacklevel,
        )
    if (
        result.n_control_success is not None
        and result.n_control_attacks > 0
        and result.n_control_success >= result.n_control_attacks
    ):
        warnings.warn(
            f"The {attack} attack succeeds on every control target, so what it learns about "
            "members cannot be told apart from what it learns about anyone; the relative "
            "risk is near 0 by construction. Read the absolute success rate "
            "(extra['attack_rate']) instead.",
            UntrustworthyResultWarning,
            stacklevel=stacklevel,
        )


def warn_no_control(attack: str, *, stacklevel: int = 3) -> None:
    """Warn that without a holdout the risk is the absolute success rate."""
    warnings.warn(
        f"No holdout was given: the {attack} risk is the absolute attack success rate, which "
        "also counts what the release teaches about the population (non-members). Give "
        "real rows the generator never saw as `holdout` for the control baseline "
        "(risk-insertion framework §5.3.2; consensus R7).",
        UntrustworthyResultWarning,
        stacklevel=stacklevel,
    )


def count_linked(rank: np.ndarray, k: int) -> int:
    """Targets linked within ``k`` neighbours (a link rank in 1..k)."""
    return int(((rank > 0) & (rank <= k)).sum())


def _accuracy(
    k: float | None, n: float, confidence: float
) -> tuple[float, tuple[float, float], float]:
    """Raw accuracy k / n, its Wilson interval and the Wilson half-width."""
    if k is None or n <= 0:
        return float("nan"), (float("nan"), float("nan")), float("nan")
    centre, err = _wilson(k, n, confidence)
    _, ci = bounded_estimate(centre, err)  # centre ± half-width is the Wilson interval
    return min(max(float(k), 0.0), float(n)) / float(n), ci, err


def categorical_summary(result: MLInferenceResult, confidence: float) -> MLInferenceResult:
    """Value, interval and scores of a categorical ML inference from its counts.

    The scores are the raw accuracies r = k / n, which is what the framework's ML
    inference reports (``metric-reference.md`` §8, ``risk-insertion-framework.md``
    §4.3.3); their intervals are Wilson intervals. The relative risk is
    (r_T - r_H) / (1 - r_H) of the *raw* accuracies, with the half-width propagated from
    the two Wilson half-widths (:func:`~privacy_core.stats.control_baseline_error`), so
    the reported risk is the one computed from the reported scores. The Anonymeter-style
    attacks (:func:`with_summary`) instead take the Wilson centre as the point estimate;
    here that would shrink a perfect attack (r_T = 1 on a full copy) below 1 and make the
    headline disagree with the accuracies shown beside it (consensus R7, R8). When the
    attacker is right on every non-member (r_H = 1) the ratio is undefined: the value is
    0 (no member advantage can show), ``relative_risk`` NaN, and the interval runs from
    0 to the ratio at the Wilson extremes (upper r_T, lower r_H).
    """
    ra, ci_a, ea = _accuracy(result.n_success, result.n_attacks, confidence)
    rc, ci_c, ec = _accuracy(result.n_control_success, result.n_control_attacks, confidence)
    rb, ci_b, _ = _accuracy(result.n_baseline_success, result.n_baseline_attacks, confidence)
    risk = control_baseline_risk(ra, rc)
    err = control_baseline_error(ra, ea, rc, ec)
    ci: tuple[float, float] | None
    value, ci = bounded_estimate(risk, err)
    if rc >= 1 and math.isfinite(ra):
        # Every non-member guessed right: (r_T - r_H) / (1 - r_H) is 0/0 or below 0, so
        # no member advantage can be measured. Read 0, with the interval's upper end from
        # the extremes of the two Wilson intervals (often 1: the data cannot tell).
        # (The Wilson centres would keep r_H < 1, but they report a different accuracy
        # than the one shown, and near the edge their ratio is arbitrary.)
        risk, err = float("nan"), float("nan")
        rc_low = ci_c[0]
        upper = (ci_a[1] - rc_low) / (1 - rc_low) if rc_low < 1 else 1.0
        value, ci = 0.0, (0.0, float(min(max(upper, 0.0), 1.0)))
    scores = {"training": ra, "control": rc, "baseline": rb}
    extra = dict(result.extra)
    extra.update(
        {
            "attack_rate": ra,
            "attack_ci": list(ci_a),
            "control_rate": rc,
            "control_ci": list(ci_c),
            "baseline_rate": rb,
            "baseline_ci": list(ci_b),
            "n_attacks": int(result.n_attacks),
            "n_success": float(result.n_success),
            "n_control_attacks": int(result.n_control_attacks),
            "n_control_success": float(result.n_control_success or 0),
            "n_baseline_attacks": int(result.n_baseline_attacks),
            "n_baseline_success": float(result.n_baseline_success),
            "beats_baseline": bool(ra > rb),
            "confidence": confidence,
            "risk_unclipped": risk,
            "risk_error": err,
            "relative_risk": risk,
            "absolute_score": ra,
            "holdout_score": rc,
            "random_guess_score": rb,
            "score_name": "accuracy",
            "score_interval": "wilson",
        }
    )
    if not math.isfinite(ra) or not math.isfinite(rc):
        value, ci = float("nan"), None
    return replace(
        result, value=value, ci=ci, baseline=rb, scores=scores, extra=extra, confidence=confidence
    )


def continuous_summary(result: MLInferenceResult, confidence: float) -> MLInferenceResult:
    """Value and interval of a continuous ML inference from its scores: the relative risk
    of the 1 - RMSE/range scores, with a percentile interval of the bootstrap replicates'
    risks."""
    reps = result.score_replicates
    s_t, s_h = result.scores["training"], result.scores["control"]
    risk = control_baseline_risk(s_t, s_h)
    with np.errstate(divide="ignore", invalid="ignore"):
        boot = np.where(
            reps["control"] < 1,
            (reps["training"] - reps["control"]) / (1 - reps["control"]),
            np.nan,
        )
    lo, hi = (
        (float(v) for v in percentile_interval(boot, confidence=confidence))
        if np.isfinite(boot).any()
        else (float("nan"), float("nan"))
    )
    value, ci = bounded_interval(risk, lo, hi)
    extra = dict(result.extra)
    extra.update(
        {
            "relative_risk": risk,
            "risk_unclipped": risk,
            "confidence": confidence,
            "relative_ci": None if ci is None else [float(lo), float(hi)],
        }
    )
    return replace(
        result,
        value=value,
        ci=ci,
        baseline=result.scores["baseline"],
        confidence=confidence,
        extra=extra,
    )
