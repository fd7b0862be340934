"""RAPID's fit: the attacker suite trained on each release, applied to every real record.

:func:`rapid` is the measure's one expensive step, a pipeline of named steps:

1. check the options (:func:`~privacy_core.risk.rapid.options.check_fit_options`);
2. decide which records are scored and encode them
   (:func:`~privacy_core.risk.rapid.targets.scored_records`);
3. fit each attacker on each release, here one after another or as tasks on a Ray
   cluster, and keep each scored record's probabilities or prediction
   (:func:`_fit_attackers`);
4. draw the bootstrap weights once and aggregate the members (and the non-members) at
   the threshold (:func:`_results`).

Every other threshold, score variant and interval is re-aggregated from the result
(:meth:`~privacy_core.risk.rapid.result.RapidResult.at`) without refitting.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ...data import Schema
from ...errors import UntrustworthyResultWarning
from ...inputs import prepare_review
from ...parallel import map_unordered
from ...progress import ProgressFn
from ...stats import child_sequences
from ...threat import ThreatModel
from ..attackers import ATTACKER_LABELS, fit_predict
from .aggregation import aggregate
from .bootstrap import stored_bootstrap
from .options import DEFAULT_ATTACKERS, FitOptions, check_fit_options
from .result import RapidResult
from .scores import scores_from_primitives
from .targets import AttackerPredictions, ScoredRecords, scored_records


def rapid(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    schema: Schema | None = None,
    control: pd.DataFrame | None = None,
    attackers: Sequence[str] | str = DEFAULT_ATTACKERS,
    tau: float | None = None,
    epsilon: float | None = None,
    method: str = "marginal",
    error: str = "relative",
    delta: float = 0.01,
    bootstrap: int = 500,
    interval: str = "bootstrap",
    confidence: float = 0.95,
    numeric_missing: str = "median",
    n_trees: int = 500,
    forest_encoding: str = "one-hot",
    seed: int = 0,
    backend: str = "local",
    ray_address: str | None = None,
    progress: ProgressFn | None = None,
) -> RapidResult:
    """Fit the attacker suite on each synthetic release and score every real record.

    Parameters
    ----------
    real
        The original data (all of it is the target set, consensus R2).
    synthetic
        One release or several replicates of the same generator (averaged, R10).
    threat
        Quasi-identifiers (attacker's features) and the sensitive attribute (the first
        of ``threat.sensitive`` is the target).
    control
        Real holdout records the generator never saw. The same fitted attackers score
        them too (``result.control``), with the members' class shares as the baseline,
        and :meth:`RapidResult.members_vs_non_members` gives the difference (consensus
        R7). Holdout records whose sensitive class the real data never hold (or whose
        value is missing) cannot be scored and are counted in the control's parameters.
    attackers
        Any of ``rf``, ``xgb``, ``cart``, ``logit`` (lasso for continuous targets);
        default ``rf``, ``xgb``, ``logit`` (:data:`DEFAULT_ATTACKERS`, the paper's §4 suite).
    tau, epsilon
        Thresholds for categorical (gain above tau) / continuous (error below epsilon)
        targets; defaults 0.3 (1.0 for ``conditional``) and 0.10. ``epsilon`` is a
        proportion, not the paper's percentage: 0.10 means 10 %. For the ``relative``
        and ``symmetric`` errors it must be below 1 (a :class:`ParameterError` says so);
        for ``absolute`` it is in units of y, for ``normalized`` in SDs of y.
    method
        Categorical score: ``marginal`` (paper), ``conditional`` or ``nce``.
    error
        Continuous error: ``relative`` (paper), ``absolute``, ``normalized`` (by SD of
        y) or ``symmetric`` (R package default).
    delta
        Stabiliser of the relative / symmetric error denominators.
    bootstrap
        Percentile-bootstrap replicates over real records (0 to skip; no refit).
    interval
        Which interval becomes ``ci``: ``bootstrap``, ``wilson`` or ``clopper-pearson``.
    numeric_missing
        Missing numeric quasi-identifiers: ``median`` imputation or ``error``.
    n_trees
        Trees of the random-forest attacker (500 as in the paper).
    forest_encoding
        How the random forest sees a categorical quasi-identifier: ``one-hot`` (one
        column per category, as every other attacker) or ``codes`` (one column of level
        positions, categories sorted: ranger's default for an R factor, which the RAPID
        package's forest gets; the paper preset uses it). With ``codes`` a forest draws
        ⌊√p⌋ of the p quasi-identifiers at each split, not of their one-hot columns.
    seed
        Seeds the attackers and the bootstrap; same inputs and seed, same numbers.
    backend, ray_address
        ``"local"`` fits the attackers one after another here (each uses every core);
        ``"ray"`` sends each (release, attacker) fit to the Ray cluster at
        ``ray_address`` (``"local"`` starts one) and gives the same numbers.

    Returns
    -------
    RapidResult

    Notes
    -----
    ``rapid-attribute-inference.md`` Algorithm 1 and §2.5.
    """
    opts = check_fit_options(
        attackers=attackers,
        method=method,
        error=error,
        delta=delta,
        bootstrap=bootstrap,
        interval=interval,
        confidence=confidence,
        numeric_missing=numeric_missing,
        n_trees=n_trees,
        forest_encoding=forest_encoding,
        seed=seed,
        backend=backend,
    )
    data = prepare_review(
        real, synthetic, threat=threat, schema=schema, holdout=control, min_rows=10
    )
    kind = "categorical" if data.schema[threat.target].is_categorical else "continuous"
    threshold = opts.threshold(kind, tau=tau, epsilon=epsilon)
    records = scored_records(data, opts, kind)
    seeds = _child_seeds(opts.seed, n_fits=len(data.synthetic) * len(opts.attackers))
    fitted = _fit_attackers(
        records, data.synthetic, opts, seeds.fits, backend, ray_address, progress
    )
    result = _results(fitted, opts, seeds, threshold)
    _warn_if_one_class_dominates(records)
    return result


class _Seeds(NamedTuple):
    """The child seeds of one fit: one per (release, attacker) fit, then the bootstrap
    seeds of the members and of the control."""

    fits: list[int]
    members_bootstrap: int
    control_bootstrap: int


def _child_seeds(seed: int, *, n_fits: int) -> _Seeds:
    """``n_fits + 2`` children of ``seed``; a fit's seed fits a 31-bit integer (sklearn)."""
    children = child_sequences(seed, n_fits + 2)
    return _Seeds(
        fits=[int(c.generate_state(1)[0] % (2**31 - 1)) for c in children[:n_fits]],
        members_bootstrap=int(children[n_fits].generate_state(1)[0]),
        control_bootstrap=int(children[n_fits + 1].generate_state(1)[0]),
    )


# ---------------------------------------------------------------- the attacker fits
_Fit = tuple[int, int, str, int]  # (release, attacker index, attacker, seed)


@dataclass(eq=False)
class _AttackerFits:
    """The (release, attacker) fits of one :func:`rapid` call and what they leave."""

    records: ScoredRecords
    releases: Sequence[pd.DataFrame]
    attackers: tuple[str, ...]
    fits: list[_Fit]  # in (release, attacker) order
    shared: dict[str, Any]  # fit_predict's options common to every fit
    preds: AttackerPredictions
    # synthetic rows each release dropped for a missing continuous target
    dropped_rows: list[int] = field(default_factory=list)
    importances: pd.DataFrame = field(default_factory=pd.DataFrame)

    def run_here(self, progress: ProgressFn | None) -> None:
        """The fits one after another in this process (each attacker uses every core)."""
        n_rep = len(self.releases)
        n_att = len(self.fits) // n_rep
        # one release's encoding in memory at a time
        for m, syn in enumerate(self.releases):
            X_syn, y_syn = self.records.release_arrays(m, syn, self.dropped_rows)
            for _, j, att, att_seed in self.fits[m * n_att : (m + 1) * n_att]:
                if progress:
                    progress(
                        (m * n_att + j) / len(self.fits),
                        f"Fitting {ATTACKER_LABELS[att]} on release {m + 1}/{n_rep}",
                    )
                enc = self.records.encoding_of[att]
                X_target = self.records.X[enc]
                out = fit_predict(att, X_syn[enc], y_syn, X_target, seed=att_seed, **self.shared)
                self.preds.place(m, j, att, out, self.records)

    def run_on_cluster(
        self, backend: str, address: str | None, progress: ProgressFn | None
    ) -> None:
        """Every fit a task on the Ray cluster; placed in (release, attacker) order
        afterwards, so the numbers are the local run's."""
        context = {
            "releases": [
                self.records.release_arrays(m, syn, self.dropped_rows)
                for m, syn in enumerate(self.releases)
            ],
            "X_target": self.records.X,
            "encoding_of": self.records.encoding_of,
            "shared": self.shared,
        }
        fits = self.fits
        outs: dict[tuple[int, int], Any] = {}
        if progress:
            progress(0.0, f"{len(fits)} attacker fits on the Ray cluster")
        for m, j, out in map_unordered(
            _fit_task, fits, context=context, backend=backend, address=address
        ):
            outs[m, j] = out
            if progress:
                progress(len(outs) / len(fits), f"{len(outs)} of {len(fits)} attacker fits done")
        for m, j, att, _ in fits:
            self.preds.place(m, j, att, outs[m, j], self.records)


def _fit_task(item: _Fit, context: dict[str, Any]) -> tuple[int, int, Any]:
    """One attacker fit of :func:`rapid`: a task of :func:`privacy_core.parallel.map_unordered`."""
    m, j, att, att_seed = item
    X_syn, y_syn = context["releases"][m]
    enc = context["encoding_of"][att]
    out = fit_predict(
        att, X_syn[enc], y_syn, context["X_target"][enc], seed=att_seed, **context["shared"]
    )
    return m, j, out


def _fit_attackers(
    records: ScoredRecords,
    releases: Sequence[pd.DataFrame],
    opts: FitOptions,
    fit_seeds: list[int],
    backend: str,
    ray_address: str | None,
    progress: ProgressFn | None,
) -> _AttackerFits:
    """Every (release, attacker) fit, here (``backend="local"``) or on a Ray cluster."""
    n_att, n_rep = len(opts.attackers), len(releases)
    fitted = _AttackerFits(
        records=records,
        releases=releases,
        attackers=opts.attackers,
        fits=[
            (m, j, att, fit_seeds[m * n_att + j])
            for m in range(n_rep)
            for j, att in enumerate(opts.attackers)
        ],
        shared={
            "categorical": records.kind == "categorical",
            "n_classes": len(records.classes),
            "n_trees": opts.n_trees,
        },
        preds=AttackerPredictions.empty(records, n_att, n_rep),
    )
    if backend == "local":
        fitted.run_here(progress)
    else:
        fitted.run_on_cluster(backend, ray_address, progress)
    if progress:
        progress(1.0, "Scoring records")
    fitted.importances = fitted.preds.mean_importances()
    return fitted


# ---------------------------------------------------------------- the results
def _results(
    fitted: _AttackerFits, opts: FitOptions, seeds: _Seeds, threshold: float
) -> RapidResult:
    """The members' result at the threshold, with the non-members' as its control when
    there is a holdout; each with bootstrap weights drawn once and kept."""
    records = fitted.records
    boot, scheme = stored_bootstrap(records.n_members, opts.bootstrap, seeds.members_bootstrap)
    params = {
        "attackers": list(opts.attackers),
        "quasi_identifiers": records.quasi_identifiers,
        "sensitive": records.target,
        "kind": records.kind,
        "method": opts.method,
        "error": opts.error,
        "delta": opts.delta,
        "bootstrap": opts.bootstrap,
        "bootstrap_seed": seeds.members_bootstrap,
        "bootstrap_scheme": scheme,
        "interval": opts.interval,
        "confidence": opts.confidence,
        "numeric_missing": opts.numeric_missing,
        "imputed_missing": records.missing_counts,
        "n_trees": opts.n_trees,
        "forest_encoding": opts.forest_encoding,
        "seed": opts.seed,
        "n_real": records.n_members,
        "n_synthetic": [len(s) for s in fitted.releases],
        "n_replicates": len(fitted.releases),
        "excluded_targets_missing_value": records.n_without_target,
        "dropped_synthetic_rows_missing_target": fitted.dropped_rows,
    }
    members = slice(0, records.n_members)
    result = _scored_result(fitted, members, records.members, params, boot, threshold)
    if records.holdout is None:
        return result
    n_holdout = records.n - records.n_members
    ctrl_seed = seeds.control_bootstrap
    ctrl_boot, ctrl_scheme = stored_bootstrap(n_holdout, opts.bootstrap, ctrl_seed)
    ctrl_params = {
        **params,
        "role": "non-members (holdout)",
        "n_real": n_holdout,
        "bootstrap_seed": ctrl_seed,
        "bootstrap_scheme": ctrl_scheme,
        "excluded_holdout_unscorable": records.n_holdout_unscorable,
    }
    non_members = slice(records.n_members, records.n)
    control = _scored_result(
        fitted, non_members, records.holdout, ctrl_params, ctrl_boot, threshold
    )
    result = replace(result, control=control)
    result.params["n_holdout"] = n_holdout
    return result


def _scored_result(
    fitted: _AttackerFits,
    rows: slice,
    frame: pd.DataFrame,
    params: dict[str, Any],
    weights: np.ndarray | None,
    threshold: float,
) -> RapidResult:
    """The result of the scored records ``rows`` (of ``frame``): their stored primitives
    and bootstrap ``weights``, aggregated at ``threshold``."""
    records, preds = fitted.records, fitted.preds

    def part(a: np.ndarray | None) -> np.ndarray | None:
        return None if a is None else a[rows]

    shell = RapidResult(
        name="rapid",
        value=float("nan"),
        ci=None,
        params=params,
        goal="lower",
        bounds=(0.0, 1.0),
        kind=records.kind,
        threshold=threshold,
        attackers=fitted.attackers,
        record_index=frame.index.to_numpy(),
        quasi=frame[records.quasi_identifiers].reset_index(drop=True),
        y_true=records.y_true[rows],
        classes=records.classes,
        prevalence=records.prevalence,
        g=part(preds.g),
        pred_code=part(preds.pred_code),
        pred_conf=part(preds.pred_conf),
        proba=part(preds.proba),
        y_hat=part(preds.y_hat),
        y_scale=records.y_scale,
        importances=fitted.importances,
        boot_weights=weights,
        scores=np.zeros((0, 0, 0)),
    )
    return aggregate(shell, scores_from_primitives(shell, params), threshold, params)


def _warn_if_one_class_dominates(records: ScoredRecords) -> None:
    """RAPID's gains for the rare classes rest on few records when one class has over
    95 % of the real records: say so (at :func:`rapid`'s caller)."""
    if records.kind == "categorical" and float(records.prevalence.max()) > 0.95:
        warnings.warn(
            f"{records.target!r} is dominated by one class ({records.prevalence.max():.1%}); "
            "RAPID's gains for the rare classes rest on few records.",
            UntrustworthyResultWarning,
            stacklevel=3,
        )
