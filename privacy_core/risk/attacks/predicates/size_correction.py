"""How singling out makes the control count comparable with the training count.

A predicate's chance of singling out a row depends on the size of the table it is tried
on, so when |control| != |training| the control rate must be read at the training size
n_T. The options of ``singling_out(size_correction=...)`` (:data:`SIZE_CORRECTIONS`):

* ``mixture`` (default) compares the training set with a reference table of the same
  size, made of the control rows and, when the control is smaller, a random remainder of
  training rows whose contribution is then inverted exactly (below);
* ``subsample`` evaluates training and control on random subsets of equal size (the
  larger one subsampled, seeded; under-reads a copy by |C|/|T| when the control is
  smaller);
* ``fit`` is Anonymeter's correction f(|T|)/f(|C|) fitted by ``curve_fit`` on control
  subsamples (Anonymeter parity; extrapolating to a larger table over-reads an
  independent release: 0.19 at 20,000 / 5,000 rows); a failed fit falls back to
  ``mixture`` with a warning;
* ``none`` uses raw counts.

*The ``mixture`` size correction.* With a control of n_C >= n_T rows the reference is a
random n_T-subset of the control, averaged exactly over all such subsets
(hypergeometric). With n_C < n_T no estimate of the n_T-size rate can come from the
control alone without a model of how the rate grows with the table (the ``fit`` option's
model, which over-reads private releases). Instead the reference table M is the control
plus a random subset R of n_T - n_C training rows, averaged exactly over R. M holds n_T
rows of the population, so when the release is independent of the training records
E[r_M] = E[r_T] and the risk is 0 in expectation. When the release memorises training
records, each memorised target is in R with probability 1 - rho, rho = n_C / n_T, and
then counts in r_M as it does in r_T; otherwise M is a fresh sample. Writing phi*Delta
for the memorised predicates' share times their excess success, r_T = p + phi*Delta and
r_M = p + (1 - rho)*phi*Delta, so the measured risk is
R_M = (r_T - r_M) / (1 - r_M) = rho R / (1 - (1 - rho) R), with R = phi*Delta / (1 - p)
the risk against a fresh reference of n_T rows. The reported risk inverts this:
R = R_M / (rho + (1 - rho) R_M) (:func:`~privacy_core.risk.attacks.common.undilute`),
applied to the estimate and to both interval ends. It is exact at both ends (0 for an
independent release, 1 for a copy, at any size ratio); the price of a small control is a
wider interval (the slope of the inversion at 0 is 1/rho).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy.optimize import curve_fit
from scipy.stats import hypergeom

from ....errors import UntrustworthyResultWarning
from ..targets import sample_positions
from .counting import count_matches

SIZE_CORRECTIONS = ("mixture", "subsample", "fit", "none")


def _so_probability_integral(n: Any, w: float) -> Any:
    """Integral over [0, w] of n·x·(1-x)^(n-1), the chance that a query of weight x singles
    out one of n rows (Cohen & Nissim 2020; Anonymeter)."""
    return (1 - (n * w + 1) * (1 - w) ** n) / (n + 1)


def _size_correction_factor(
    ctrl_codes: np.ndarray,
    queries: tuple[np.ndarray, ...],
    n_training: int,
    rng: np.random.Generator,
) -> float:
    """Anonymeter's correction f(|T|) / f(|C|): successes on control subsamples of 10 sizes
    x 5 repeats, fitted by ``norm · integral(n, w)``."""
    n_ctrl = ctrl_codes.shape[1]
    sizes, wins = [], []
    for n_rows in np.linspace(min(1000, n_ctrl), n_ctrl, 10).astype(int):
        for _ in range(5):
            pick = rng.choice(n_ctrl, size=n_rows, replace=False)
            counts, _ = count_matches(ctrl_codes[:, pick], *queries)
            sizes.append(n_rows)
            wins.append(int((counts == 1).sum()))
    x, y = np.array(sizes, dtype=float), np.array(wins, dtype=float)

    def model(n: np.ndarray, w: float, norm: float) -> np.ndarray:
        return norm * _so_probability_integral(n, w)

    w0 = 1 / x.max()
    popt, _ = curve_fit(
        model, x, y, p0=(w0, 1 / _so_probability_integral(x.max(), w0)), bounds=(0, (1, np.inf))
    )
    denom = model(np.array(float(n_ctrl)), *popt)
    if not np.isfinite(denom) or denom <= 0:
        raise RuntimeError("degenerate size-correction fit")
    return float(model(np.array(float(n_training)), *popt) / denom)


def reference_probabilities(
    counts_t: np.ndarray, counts_c: np.ndarray, n_training: int, n_control: int
) -> tuple[np.ndarray, float]:
    """Per predicate, the exact probability that it singles out a row of a reference table
    as large as the training set, and the share of that table that is holdout rows.

    Holdout at least as large as training: the reference is a uniform random subset of the
    holdout of the training size, averaged exactly (hypergeometric), so no sampling noise is
    added. Smaller holdout: the reference is the holdout plus a uniform random subset of
    ``n_training - n_control`` training rows; a predicate matching ``c_C`` holdout rows and
    ``c_T`` training rows singles out one of its rows with probability
    ``[c_C = 0] P(H = 1) + [c_C = 1] P(H = 0)``, H ~ Hypergeometric(n_training, c_T,
    n_training - n_control). The returned share rho = n_control / n_training is what
    :func:`~privacy_core.risk.attacks.common.undilute` inverts.
    """
    c_c = counts_c.astype(np.int64)
    if n_control >= n_training:
        return hypergeom.pmf(1, n_control, c_c, n_training), 1.0
    draws = n_training - n_control
    c_t = counts_t.astype(np.int64)
    p = np.where(
        c_c == 0,
        hypergeom.pmf(1, n_training, c_t, draws),
        np.where(c_c == 1, hypergeom.pmf(0, n_training, c_t, draws), 0.0),
    )
    return p, n_control / n_training


@dataclass(frozen=True)
class SizeCorrection:
    """The correction one attack applies: ``applied`` (``none``, ``fit``, ``subsample`` or
    ``mixture``), the positions of the training and control rows the predicates are
    counted on (all of them, or the equal-size subsets of ``subsample``) and the factor
    ``fit`` multiplies the control count by."""

    applied: str
    training_rows: np.ndarray
    control_rows: np.ndarray | None
    factor: float = 1.0


def plan_size_correction(
    size_correction: str,
    control: np.ndarray | None,
    queries: tuple[np.ndarray, ...],
    n_training: int,
    rng: np.random.Generator,
) -> SizeCorrection:
    """The correction for a control of ``control.shape[1]`` rows against ``n_training``
    (none without a control or at equal sizes); ``rng`` draws the ``fit`` subsamples or
    the ``subsample`` rows."""
    n_control = None if control is None else control.shape[1]
    plan = SizeCorrection(
        "none", np.arange(n_training), None if n_control is None else np.arange(n_control)
    )
    if control is None or n_control is None or n_control == n_training:
        return plan
    method = size_correction
    if method == "fit" and len(queries[0]):
        factor = _fitted_factor(control, queries, n_training, rng)
        if factor is not None:
            return replace(plan, applied="fit", factor=factor)
        method = "mixture"
    if method == "subsample":
        size = min(n_training, n_control)
        if n_training > size:
            return replace(
                plan, applied="subsample", training_rows=sample_positions(n_training, size, rng)
            )
        return replace(
            plan, applied="subsample", control_rows=sample_positions(n_control, size, rng)
        )
    return replace(plan, applied="mixture") if method == "mixture" else plan


def _fitted_factor(
    control: np.ndarray,
    queries: tuple[np.ndarray, ...],
    n_training: int,
    rng: np.random.Generator,
) -> float | None:
    """Anonymeter's factor, or None (with a warning) when its fit fails."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _size_correction_factor(control, queries, n_training, rng)
    except (RuntimeError, ValueError) as exc:
        warnings.warn(
            f"The control-size correction fit failed ({exc}); falling back to "
            "the mixture reference.",
            UntrustworthyResultWarning,
            # the caller of singling_out (via plan_size_correction and run_configuration)
            stacklevel=5,
        )
        return None


def control_successes(
    plan: SizeCorrection, counts_t: np.ndarray, counts_c: np.ndarray
) -> tuple[float, float, np.ndarray | None]:
    """The control's success count at the training size, the share of the reference that
    is control rows (below 1 only for ``mixture`` with a smaller control) and, for
    ``mixture``, each predicate's probability of singling out a reference row."""
    if plan.applied == "mixture" and plan.control_rows is not None:
        p_ref, dilution = reference_probabilities(
            counts_t, counts_c, len(plan.training_rows), len(plan.control_rows)
        )
        return float(p_ref.sum()), dilution, p_ref
    return float((counts_c == 1).sum()) * plan.factor, 1.0, None
