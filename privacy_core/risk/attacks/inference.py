"""Distance-based attribute inference: the nearest synthetic record's secret as a guess
(:func:`distance_inference`).

A pipeline: check the options, place the release in the attack's space, attack the
training and control targets (:func:`~privacy_core.risk.attacks.targets.attack_both_sides`),
draw the random-guess baseline, summarise. :func:`inference_success` and
:func:`ml_inference` (the ML attack, in :mod:`~privacy_core.risk.attacks.model_inference`)
are importable from here too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...data import Schema
from ...errors import ParameterError
from ...inputs import ReviewData
from ...stats import child_rngs
from ...threat import ThreatModel
from ...validation import check_confidence, check_in_range, check_seed
from .common import AttackResult, summarise_attack
from .knn import MixedSpace, attack_space, knn_random_ties
from .model_inference import ml_inference
from .secret import inference_success, resolve_secret
from .targets import attack_both_sides, attack_inputs, check_n_attacks, resolve_columns, sample_rows

__all__ = ["distance_inference", "inference_success", "ml_inference"]


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
    n_attacks = check_n_attacks(n_attacks)
    tolerance = check_in_range("tolerance", tolerance, 0, 1e9)
    confidence = check_confidence(confidence)
    seed = check_seed(seed)
    data, syn, hold = attack_inputs(real, synthetic, threat=threat, holdout=holdout, schema=schema)
    aux = resolve_columns(data, aux_cols, "aux_cols", data.threat.quasi_identifiers)
    target = resolve_secret(data, secret, aux)
    regression = _resolve_regression(data, target, regression)
    rng_t, rng_c, rng_tie, rng_bt, rng_bg = child_rngs(seed, 5)
    place, space_info = attack_space(
        data, aux, numeric_missing, space, embedding, embedding_params, seed
    )
    guesser = _NearestSecret.of(syn, place, aux, target, rng_tie, regression, tolerance)
    sides = attack_both_sides(
        guesser.attack, data.real, hold, (rng_t, rng_c), n_attacks=n_attacks, n_release=len(syn)
    )
    # random guess: secrets of random synthetic rows against independently drawn targets
    n_base = min(sides.n_training, len(syn))
    k_base, baseline_table = guesser.random_guess(data.real, n_base, rng_bt, rng_bg)
    params = {
        "aux_cols": aux,
        "secret": target,
        "regression": regression,
        "tolerance": tolerance,
        "n_attacks": n_attacks,
        "n_targets": sides.n_training,
        # every record was asked for, a seeded sample was attacked (register size)
        "targets_sampled": n_attacks is None and sides.n_training < len(data.real),
        "n_control_targets": sides.n_control,
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
        record_table=sides.records,
        goal="lower",
        bounds=(0.0, 1.0),
        n_attacks=sides.n_training,
        n_success=sides.training,
        n_control_attacks=sides.n_control or 0,
        n_control_success=sides.control,
        n_baseline_attacks=n_base,
        n_baseline_success=k_base,
        confidence=confidence,
        baseline_table=baseline_table,
    )
    return summarise_attack(shell, "inference")


def _resolve_regression(data: ReviewData, target: str, regression: bool | None) -> bool:
    """Whether the secret is guessed as a number: the schema's type unless given."""
    if regression is None:
        return bool(data.schema[target].is_numeric)
    if regression and not data.schema[target].is_numeric:
        # its values (words, "(missing)") cannot be compared within a tolerance
        raise ParameterError(
            f"`regression=True` needs a numeric secret; {target!r} is "
            f"{data.schema[target].kind}. Leave `regression` unset to take the column's type."
        )
    return regression


@dataclass(frozen=True)
class _NearestSecret:
    """The distance-based attacker: the release placed in the attack's space (``syn_x``,
    ties broken by the order ``perm``), guessing each target's secret as that of its
    nearest synthetic record."""

    synthetic: pd.DataFrame
    place: Callable[[pd.DataFrame, list[str]], MixedSpace]
    syn_x: MixedSpace
    perm: np.ndarray
    syn_secret: np.ndarray
    aux: list[str]
    target: str
    regression: bool
    tolerance: float

    @classmethod
    def of(
        cls,
        synthetic: pd.DataFrame,
        place: Callable[[pd.DataFrame, list[str]], MixedSpace],
        aux: list[str],
        target: str,
        rng_ties: np.random.Generator,
        regression: bool,
        tolerance: float,
    ) -> _NearestSecret:
        """The attacker of a release, its ties broken by a permutation drawn from
        ``rng_ties``."""
        syn_x = place(synthetic, aux)
        perm = rng_ties.permutation(len(synthetic))
        syn_secret = synthetic[target].to_numpy(dtype=float if regression else object)
        return cls(synthetic, place, syn_x, perm, syn_secret, aux, target, regression, tolerance)

    def secrets(self, frame: pd.DataFrame) -> np.ndarray:
        return frame[self.target].to_numpy(dtype=float if self.regression else object)

    def judge(self, guess: np.ndarray, truth: np.ndarray) -> np.ndarray:
        return inference_success(guess, truth, regression=self.regression, tolerance=self.tolerance)

    def attack(self, targets: pd.DataFrame, role: str) -> tuple[int, pd.DataFrame]:
        """Successes on ``targets`` and one row per target: guess, truth, neighbour."""
        dist, idx = knn_random_ties(self.place(targets, self.aux), self.syn_x, 1, self.perm)
        guess = self.syn_secret[idx[:, 0]]
        truth = self.secrets(targets)
        ok = self.judge(guess, truth)
        table = pd.DataFrame(
            {
                "record": targets.index.to_numpy(),
                "role": role,
                "guess": guess,
                "truth": truth,
                "success": ok,
                "neighbor": self.synthetic.index.to_numpy()[idx[:, 0]],
                "distance": dist[:, 0],
            }
        )
        return int(ok.sum()), table

    def random_guess(
        self,
        real: pd.DataFrame,
        n: int,
        rng_targets: np.random.Generator,
        rng_guesses: np.random.Generator,
    ) -> tuple[int, pd.DataFrame]:
        """The baseline: secrets of ``n`` random synthetic rows against ``n`` real targets
        drawn independently of the attack's; its successes and one row per guess."""
        base_targets = sample_rows(real, n, rng_targets)
        pick = rng_guesses.choice(len(self.synthetic), size=n, replace=False)
        guess = self.syn_secret[pick]
        truth = self.secrets(base_targets)
        ok = self.judge(guess, truth)
        table = pd.DataFrame(
            {
                "record": base_targets.index.to_numpy(),
                "guess": guess,
                "truth": truth,
                "success": ok,
            }
        )
        return int(ok.sum()), table
