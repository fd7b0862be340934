"""Singling out's entry points: :func:`singling_out` (one configuration, the papers'
protocol, or the contrastive paper's outlier targets) and :func:`singling_out_outliers`.

The function only checks its options and routes them: a single configuration is run by
:func:`~privacy_core.risk.attacks.predicates.configuration.run_configuration`, the
papers' protocol runs one configuration per width and reads them as one
:class:`~privacy_core.risk.attacks.predicates.protocol.SinglingOutProtocolResult`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

import pandas as pd

from ....data import Schema
from ....errors import ParameterError
from ....progress import ProgressFn
from ....stats import child_seeds
from ....threat import ThreatModel
from ....validation import check_choice, check_confidence, check_positive_int, check_seed
from ..common import AttackResult
from ..targets import attack_inputs, check_n_attacks, resolve_columns
from .configuration import run_configuration
from .protocol import (
    PAPER_N_ATTACKS,
    PAPER_N_COLS,
    SinglingOutProtocolResult,
    found_denominator,
    protocol_label,
    protocol_summary,
)
from .size_correction import SIZE_CORRECTIONS

SINGLING_OUT_MODES = ("multivariate", "univariate", "paper")
DEFAULT_N_ATTACKS = 500


def singling_out(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    mode: str = "multivariate",
    columns: Sequence[str] | None = None,
    n_attacks: int | None | Literal["auto"] = "auto",
    n_cols: int = 3,
    max_attempts: int = 10_000_000,
    size_correction: str = "mixture",
    confidence: float = 0.95,
    seed: int = 0,
    space: str = "shared",
    embedding: Any = None,
    embedding_params: dict[str, Any] | None = None,
    progress: ProgressFn | None = None,
    **outliers: Any,
) -> AttackResult:
    """Singling-out risk: predicates isolating one synthetic record, tried on real data.

    Parameters
    ----------
    real, synthetic, holdout
        Training data, one synthetic release, and real rows the generator never saw (the
        control set; optional, see the module notes).
    threat, schema
        The threat model and (optionally) the schema; see ``prepare_review``.
    mode
        ``multivariate`` (``n_cols`` columns per predicate), ``univariate``, or ``paper``:
        the risk-insertion and contrastive papers' protocol, the univariate attack and the
        multivariate attack on every width from 3 to 12 columns (as many as there are
        columns), the highest risk reported (see :class:`SinglingOutProtocolResult`;
        ``n_cols`` is not used).
    columns
        Columns the predicates may use; default every analysed column (Anonymeter's use,
        and the setting of the risk-insertion experiments). Pass
        ``threat.quasi_identifiers`` for the QI-only reading of consensus R1.
    n_attacks
        Predicates to generate (the Wilson denominator, even when fewer are found, as
        Anonymeter). None: one per distinct training record. ``"auto"`` (default): 500
        (Anonymeter's default), 2,000 per configuration in ``paper`` mode (the papers'
        N_A, where a configuration that finds fewer predicates is scored on those it
        found: "at most 2,000 attacks").
    n_cols
        Conditions per multivariate predicate.
    max_attempts
        Cap on predicates drawn; drawing also stops after 100 rounds of 1,000 draws that
        add no new predicate (``params["generation"]`` says which).
    size_correction
        How the control count is made comparable when |control| != |training|:
        ``mixture`` (default; a reference table of the training size, made of the control
        rows and, when the control is smaller, a random remainder of training rows whose
        contribution is then inverted exactly), ``subsample`` (random subsets of equal
        size), ``fit`` (Anonymeter's fitted f(|T|)/f(|C|), for parity) or ``none`` (raw
        counts); see :mod:`~privacy_core.risk.attacks.predicates.size_correction`.
    confidence
        Level of the Wilson intervals.
    seed
        Seed of every random step (``SeedSequence`` children).
    space, embedding, embedding_params
        Where the predicates come from. ``shared`` (default): Anonymeter's generation,
        random synthetic rows and columns. ``contrastive``: the contrastive-embeddings
        paper's "SO + CL" (§4.2): the release's most isolated records in the contrastive
        embedding are the targets, each predicate a category or value bin of the target
        (see :func:`singling_out_outliers`), ``n_cols`` columns (one in ``univariate``
        mode; every width of the protocol in ``paper`` mode), and a configuration is
        scored on the predicates its targets gave (the paper's "at most N_A attacks").
        ``embedding`` is a fitted :class:`~privacy_core.embedding.ContrastiveEncoder` (else
        the cached one for the training rows), ``embedding_params`` its options.

    Returns
    -------
    AttackResult
        Named ``singling_out``. ``records``: one row per (predicate, role) with ``guess``
        the predicate text, ``truth`` the number of rows it matches, ``success`` (exactly
        one) and ``record`` the singled-out row's index label.

    Raises
    ------
    ParameterError
        Bad option values, ``n_cols`` larger than the number of columns, several releases.
    ThreatModelError
        ``columns`` names a column that is not analysed.

    Notes
    -----
    Giomi et al. (PoPETs 2023); ``risk-insertion-framework.md`` §4.3.1 (guesses as
    Bernoulli trials, Wilson interval) and §5.3.2 (control set); ``metric-reference.md``
    §2 (generation, baseline, size correction; the derivation of ``mixture`` is in
    :mod:`~privacy_core.risk.attacks.predicates.size_correction`). Training, synthetic and
    control tables are de-duplicated first, as in Anonymeter.
    """
    _check_mode(mode, space, outliers)
    common: dict[str, Any] = {
        "threat": threat,
        "holdout": holdout,
        "schema": schema,
        "columns": columns,
        "max_attempts": max_attempts,
        "size_correction": size_correction,
        "confidence": confidence,
        "seed": seed,
        "space": space,
        "embedding": embedding,
        "embedding_params": embedding_params,
        **outliers,  # the outlier search's options: empty unless mode is "outliers"
    }
    if space == "contrastive" and mode in ("univariate", "multivariate"):
        return _outlier_targeted(real, synthetic, mode, n_attacks, n_cols, progress, common)
    check_choice("size_correction", size_correction, SIZE_CORRECTIONS)
    n_attacks = _resolve_n_attacks(n_attacks, mode)
    if mode == "paper":
        return _paper_protocol(real, synthetic, n_attacks=n_attacks, **common)
    return run_configuration(
        real, synthetic, mode=mode, n_attacks=n_attacks, n_cols=n_cols, progress=progress, **common
    )


def _check_mode(mode: str, space: str, outliers: dict[str, Any]) -> None:
    """Check ``mode`` and ``space``, and that the outlier search's options come only with
    ``mode="outliers"``."""
    from ....embedding import check_space

    check_choice("mode", mode, (*SINGLING_OUT_MODES, "outliers"))
    check_space(space)
    if outliers and mode != "outliers":
        raise ParameterError(f"Unknown option(s) {sorted(outliers)} of singling_out.")


def _outlier_targeted(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    mode: str,
    n_attacks: int | None | Literal["auto"],
    n_cols: int,
    progress: ProgressFn | None,
    common: dict[str, Any],
) -> AttackResult:
    """SO + CL: the ``univariate`` or ``multivariate`` attack with the release's most
    isolated records in the embedding as targets, scored on the predicates they gave."""
    res = singling_out(
        real,
        synthetic,
        mode="outliers",
        n_attacks=DEFAULT_N_ATTACKS if n_attacks == "auto" else n_attacks,
        n_cols=1 if mode == "univariate" else n_cols,
        progress=progress,
        **common,
    )
    res = found_denominator(res)
    return replace(res, params={**res.params, "mode": mode, "targets": "outliers"})


def _resolve_n_attacks(n_attacks: int | None | Literal["auto"], mode: str) -> int | None:
    """``n_attacks`` checked, with ``"auto"`` read as the mode's default."""
    if isinstance(n_attacks, str):
        if n_attacks != "auto":
            raise ParameterError(
                f"`n_attacks` must be a positive integer, None (one per record) or 'auto'; "
                f"got {n_attacks!r}."
            )
        n_attacks = PAPER_N_ATTACKS if mode == "paper" else DEFAULT_N_ATTACKS
    return check_n_attacks(n_attacks)


def _paper_protocol(
    real: pd.DataFrame,
    synthetic: Any,
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None,
    schema: Schema | None,
    columns: Sequence[str] | None,
    n_attacks: int | None,
    max_attempts: int,
    size_correction: str,
    confidence: float,
    seed: int,
    space: str = "shared",
    embedding: Any = None,
    embedding_params: dict[str, Any] | None = None,
) -> SinglingOutProtocolResult:
    """Run every configuration of the papers' protocol (own child seed each) and keep the
    highest; see :func:`singling_out` (``mode="paper"``)."""
    confidence = check_confidence(confidence)
    seed = check_seed(seed)
    data, _, _ = attack_inputs(real, synthetic, threat=threat, holdout=holdout, schema=schema)
    n_columns = len(resolve_columns(data, columns, "columns", data.schema.included))
    widths = [w for w in PAPER_N_COLS if w <= n_columns]
    plan = [("univariate", 1)] + [("multivariate", w) for w in widths]
    seeds = child_seeds(seed, len(plan))
    configs, labels, caught_by = [], [], []
    for (mode, width), s in zip(plan, seeds, strict=True):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = singling_out(
                real,
                synthetic,
                threat=threat,
                holdout=holdout,
                schema=schema,
                mode=mode,
                columns=columns,
                n_attacks=n_attacks,
                n_cols=width,
                max_attempts=max_attempts,
                size_correction=size_correction,
                confidence=confidence,
                seed=s,
                space=space,
                embedding=embedding,
                embedding_params=embedding_params,
            )
        configs.append(found_denominator(res))
        labels.append(protocol_label(mode, width))
        caught_by.append(caught)
    params: dict[str, Any] = {
        "mode": "paper",
        "n_attacks": configs[0].n_attacks if n_attacks is None else n_attacks,
        "configurations": labels,
        "seed": seed,
        "configuration_seeds": seeds,
        "denominator": "predicates found",
        **{
            k: configs[0].params[k]
            for k in ("space", "embedding", "targets")
            if k in configs[0].params
        },
    }
    result = protocol_summary(configs, labels, confidence, params)
    # the reported configuration's own warnings (others' are in their table rows); the
    # "only k of n predicates" note is the protocol's "at most N_A", not a defect
    best = labels.index(result.params["reported_configuration"])
    for w in caught_by[best]:
        if issubclass(w.category, UserWarning) and "could be generated" not in str(w.message):
            warnings.warn(w.message, w.category, stacklevel=3)
    return result


def singling_out_outliers(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    columns: Sequence[str] | None = None,
    n_attacks: int | None = 2000,
    n_cols: int = 3,
    n_bins: int = 10,
    k: int = 5,
    space: str = "contrastive",
    embedding: Any = None,
    embedding_params: dict[str, Any] | None = None,
    size_correction: str = "mixture",
    confidence: float = 0.95,
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> AttackResult:
    """Outlier-targeted singling out (Plasencia Palacios et al., ``contrastive-
    embeddings.md`` §4.2): the release's most isolated records, found in the contrastive
    embedding (the mean distance to their ``k`` nearest synthetic neighbours), are the
    targets; each target's predicate takes ``n_cols`` random columns, a category as it is
    and a numeric value as its equal-width bin of the release's range (``n_bins`` bins).
    Predicates that single out one synthetic record are tried on the training and control
    rows exactly as :func:`singling_out` (Wilson intervals, the ``mixture`` size
    correction, the random-guess baseline); at most ``n_attacks`` (the paper's 2,000).

    ``space="shared"`` finds the isolated records in the shared encoding instead. The
    result is named ``singling_out_outliers``; ``params`` record the space, the encoder,
    ``n_bins`` and ``k``.
    """
    n_bins = check_positive_int("n_bins", n_bins, minimum=2)
    k = check_positive_int("k", k)
    res = singling_out(
        real,
        synthetic,
        threat=threat,
        holdout=holdout,
        schema=schema,
        mode="outliers",
        columns=columns,
        n_attacks=n_attacks,
        n_cols=n_cols,
        size_correction=size_correction,
        confidence=confidence,
        seed=seed,
        space=space,
        embedding=embedding,
        embedding_params=embedding_params,
        n_bins=n_bins,
        k=k,
        progress=progress,
    )
    # the paper's "at most 2,000 attacks": scored on the predicates the targets gave
    return replace(found_denominator(res), name="singling_out_outliers")
