"""One singling-out configuration, from the review's tables to its :class:`AttackResult`.

:func:`run_configuration` is a pipeline: code the tables once (distinct rows, rank
codes), draw the predicates (``multivariate``, ``univariate`` or around the release's
``outliers``), plan the control-size correction, count the predicates on the training,
control and random-guess sides, and summarise the counts with the control baseline.
The public entry point, with the papers' protocol and the contrastive targets, is
:func:`~privacy_core.risk.attacks.predicates.singling_out`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from ....data import Schema
from ....errors import ParameterError, UntrustworthyResultWarning
from ....inputs import ReviewData
from ....progress import ProgressFn
from ....stats import child_rngs
from ....threat import ThreatModel
from ....validation import check_confidence, check_positive_int, check_seed
from ..common import AttackResult, summarise_attack
from ..targets import attack_inputs, resolve_columns
from .bit_index import generator_index
from .coding import CodedTables, code_tables, describe_predicates
from .counting import count_matches
from .generation import above_median, multivariate_queries, random_queries, univariate_queries
from .outliers import outlier_order, outlier_queries
from .size_correction import SizeCorrection, control_successes, plan_size_correction

# Warnings point at the caller of singling_out: the stack above a warning issued by a
# helper of run_configuration is the helper, run_configuration and singling_out.
_CALLER_OF_SINGLING_OUT = 4


@dataclass(frozen=True)
class _Drawn:
    """The predicates a generator kept, how many it drew and why it stopped, and the
    parameters the generator adds to the result's ``params``."""

    queries: tuple[np.ndarray, np.ndarray, np.ndarray]
    attempts: int
    status: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def n_found(self) -> int:
        return len(self.queries[0])


@dataclass(frozen=True)
class _Counts:
    """Success counts of the three sides and every guess."""

    training: int
    control: float | None
    baseline: int
    dilution: float
    records: pd.DataFrame
    baseline_table: pd.DataFrame


def run_configuration(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None,
    schema: Schema | None,
    mode: str,
    columns: Sequence[str] | None,
    n_attacks: int | None,
    n_cols: int,
    max_attempts: int,
    size_correction: str,
    confidence: float,
    seed: int,
    space: str,
    embedding: Any,
    embedding_params: dict[str, Any] | None,
    progress: ProgressFn | None,
    **outliers: Any,
) -> AttackResult:
    """Singling out in one configuration (``mode`` ``multivariate``, ``univariate`` or
    ``outliers``; ``n_attacks`` already checked); the options are those of
    :func:`~privacy_core.risk.attacks.predicates.singling_out`, ``outliers`` the outlier
    search's ``n_bins`` and ``k``."""
    if mode in ("multivariate", "outliers"):  # univariate: one condition, whatever n_cols
        n_cols = check_positive_int("n_cols", n_cols)
    max_attempts = check_positive_int("max_attempts", max_attempts)
    confidence = check_confidence(confidence)
    seed = check_seed(seed)
    data, syn_full, hold = attack_inputs(
        real, synthetic, threat=threat, holdout=holdout, schema=schema
    )
    cols = resolve_columns(data, columns, "columns", data.schema.included)
    m = n_cols if mode in ("multivariate", "outliers") else 1
    if m > len(cols):
        raise ParameterError(
            f"`n_cols` must be at most the number of columns used ({len(cols)}); got {n_cols}."
        )
    tables = code_tables(data, syn_full, hold, cols)
    # `n_attacks` reaches here checked: None (one per record) or a positive int
    n_queries: int = tables.n_training if n_attacks is None else int(n_attacks)
    # the pre-filter's rows come from a stream of their own, so the predicates drawn do
    # not depend on whether the generator's bit index fits its budget
    rng_gen, rng_base, rng_size, rng_prefilter = child_rngs(seed, 4)
    if mode == "outliers":
        outlier_search = _OutlierSearch(data, syn_full, space, embedding, embedding_params, seed)
        drawn = outlier_search.draw(
            tables, cols, outliers, n_queries=n_queries, n_cols=m, rng=rng_gen, progress=progress
        )
    elif mode == "multivariate":
        drawn = _draw_multivariate(
            tables, n_queries, m, max_attempts, rng=rng_gen, rng_prefilter=rng_prefilter
        )
    else:
        drawn = _draw(
            univariate_queries(
                tables.synthetic, tables.coder.numeric, n_queries=n_queries, rng=rng_gen
            )
        )
    _warn_if_few_found(drawn, n_queries)
    plan = plan_size_correction(
        size_correction, tables.control, drawn.queries, tables.n_training, rng_size
    )
    base_q = random_queries(
        tables.synthetic, tables.coder.numeric, n_queries=n_queries, n_cols=m, rng=rng_base
    )
    counts = _count_sides(tables, plan, drawn.queries, base_q)
    params = {
        "mode": mode,
        "columns": cols,
        "n_attacks": n_queries,
        "n_cols": m,
        "max_attempts": max_attempts,
        "attempts": int(drawn.attempts),
        "generation": drawn.status,
        "n_queries": drawn.n_found,
        "size_correction": size_correction,
        **_size_params(tables, plan, counts),
        "confidence": confidence,
        "seed": seed,
        "space": "shared",
    }
    params.update(drawn.params)
    return _summarise(counts, params, n_queries, confidence, control=tables.control is not None)


def _draw(generated: tuple[Any, ...]) -> _Drawn:
    """A generator's ``(cols, ops, vals, attempts, status)`` as :class:`_Drawn`."""
    *queries, attempts, status = generated
    return _Drawn(cast(tuple[np.ndarray, np.ndarray, np.ndarray], tuple(queries)), attempts, status)


def _draw_multivariate(
    tables: CodedTables,
    n_queries: int,
    n_cols: int,
    max_attempts: int,
    *,
    rng: np.random.Generator,
    rng_prefilter: np.random.Generator,
) -> _Drawn:
    """Anonymeter's multivariate predicates, counted on the release's bit index."""
    above = above_median(tables.coder, tables.synthetic)
    bits = generator_index(tables.synthetic, tables.coder.numeric, above, rng_prefilter)
    return _draw(
        multivariate_queries(
            tables.synthetic,
            tables.coder.numeric,
            above,
            n_queries=n_queries,
            n_cols=n_cols,
            max_attempts=max_attempts,
            rng=rng,
            bits=bits,
        )
    )


@dataclass(frozen=True)
class _OutlierSearch:
    """Where the outlier search finds the release's most isolated records."""

    data: ReviewData
    synthetic: pd.DataFrame
    space: str
    embedding: Any
    embedding_params: dict[str, Any] | None
    seed: int

    def draw(
        self,
        tables: CodedTables,
        columns: list[str],
        options: dict[str, Any],
        *,
        n_queries: int,
        n_cols: int,
        rng: np.random.Generator,
        progress: ProgressFn | None,
    ) -> _Drawn:
        """Predicates around the distinct synthetic rows, most isolated first (``options``:
        the search's ``n_bins``, default 10, and ``k``, default 5)."""
        n_bins, k = int(options.get("n_bins", 10)), int(options.get("k", 5))
        order, space_info = outlier_order(
            self.synthetic.iloc[tables.synthetic_rows],
            columns,
            self.data,
            self.space,
            self.embedding,
            self.embedding_params,
            k,
            self.seed,
            # the encoder's training is most of the attack's time
            None if progress is None else lambda f, msg: progress(0.9 * f, msg),
        )
        if progress:
            progress(0.9, "searching the predicates that single out the most isolated records")
        drawn = _draw(
            outlier_queries(
                tables.synthetic,
                tables.coder,
                order,
                n_queries=n_queries,
                n_cols=n_cols,
                n_bins=n_bins,
                rng=rng,
            )
        )
        params = {**space_info, "n_bins": n_bins, "k": k}
        return _Drawn(drawn.queries, drawn.attempts, drawn.status, params)


def _warn_if_few_found(drawn: _Drawn, n_queries: int) -> None:
    if drawn.n_found < n_queries:
        warnings.warn(
            f"Only {drawn.n_found} of the {n_queries} requested singling-out predicates could "
            f"be generated ({drawn.status}); unfound predicates count as failures, so the risk "
            "may be underestimated.",
            UntrustworthyResultWarning,
            stacklevel=_CALLER_OF_SINGLING_OUT,
        )


def _count_sides(
    tables: CodedTables,
    plan: SizeCorrection,
    queries: tuple[np.ndarray, ...],
    base_queries: tuple[np.ndarray, ...],
) -> _Counts:
    """Count the predicates on the training rows, the control rows (corrected for their
    size) and, for the random guess, ``base_queries`` on the training rows."""
    coder = tables.coder
    guesses = describe_predicates(coder, queries)
    ori_eval = tables.training[:, plan.training_rows]
    ori_labels = tables.training_labels[plan.training_rows]
    counts_t, first_t = count_matches(ori_eval, *queries)
    records = [_guess_table(guesses, ori_labels, counts_t, first_t, "training")]
    k_ctrl: float | None = None
    dilution = 1.0
    if tables.control is not None:
        rows = cast(np.ndarray, plan.control_rows)  # set together with the control
        labels = cast(np.ndarray, tables.control_labels)[rows]
        counts_c, first_c = count_matches(tables.control[:, rows], *queries)
        control_table = _guess_table(guesses, labels, counts_c, first_c, "control")
        k_ctrl, dilution, p_ref = control_successes(plan, counts_t, counts_c)
        if p_ref is not None:
            control_table["p_reference"] = p_ref
        records.append(control_table)
    counts_b, first_b = count_matches(ori_eval, *base_queries)
    base_guesses = describe_predicates(coder, base_queries)
    return _Counts(
        training=int((counts_t == 1).sum()),
        control=k_ctrl,
        baseline=int((counts_b == 1).sum()),
        dilution=dilution,
        records=pd.concat(records, ignore_index=True),
        baseline_table=_guess_table(base_guesses, ori_labels, counts_b, first_b, "baseline"),
    )


def _guess_table(
    guesses: list[str], labels: np.ndarray, counts: np.ndarray, first: np.ndarray, role: str
) -> pd.DataFrame:
    """One row per predicate: its text, the rows it matches and the row it singles out."""
    hit = counts == 1
    record = np.empty(len(counts), dtype=object)
    record[:] = None
    record[hit] = labels[first[hit]]
    return pd.DataFrame(
        {
            "record": record,
            "role": role,
            "query": np.arange(len(counts)),
            "guess": guesses,
            "truth": counts,
            "success": hit,
        }
    )


def _size_params(tables: CodedTables, plan: SizeCorrection, counts: _Counts) -> dict[str, Any]:
    """The ``params`` entries that say how the table sizes were made comparable."""
    return {
        "size_correction_applied": plan.applied,
        "control_correction_factor": plan.factor,
        "reference_control_share": counts.dilution,
        "n_training_rows": tables.n_training,
        "n_synthetic_rows": tables.synthetic.shape[1],
        "n_control_rows": tables.n_control,
        "n_training_evaluated": len(plan.training_rows),
        "n_control_evaluated": None if plan.control_rows is None else len(plan.control_rows),
        "control": tables.n_control is not None,
    }


def _summarise(
    counts: _Counts, params: dict[str, Any], n_queries: int, confidence: float, *, control: bool
) -> AttackResult:
    """The result from the counts (every predicate asked for is an attack), with the
    warnings when there is no control or the attack cannot be trusted."""
    shell = AttackResult(
        name="singling_out",
        value=float("nan"),
        ci=None,
        params=params,
        record_table=counts.records,
        goal="lower",
        bounds=(0.0, 1.0),
        n_attacks=n_queries,
        n_success=counts.training,
        n_control_attacks=n_queries if control else 0,
        n_control_success=counts.control,
        n_baseline_attacks=n_queries,
        n_baseline_success=counts.baseline,
        confidence=confidence,
        baseline_table=counts.baseline_table,
        dilution=counts.dilution,
    )
    # two frames deeper than a helper: summarise_attack and the warning function
    return summarise_attack(shell, "singling-out", stacklevel=_CALLER_OF_SINGLING_OUT + 2)
