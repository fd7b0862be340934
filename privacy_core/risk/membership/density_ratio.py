"""DOMIAS: membership inference by the density ratio p_S(x) / p_R(x).

The density of a kernel density estimate fitted on the release against one fitted on a
real reference set (part of the holdout) disjoint from every test record; the AUC of
the ratio for members (training rows) against non-members (the rest of the holdout),
reported as 2 AUC - 1 in (-1, 1), unclipped: below 0 the attack ranks non-members above
members (no signal).

Notes
-----
van Breugel et al. (AISTATS 2023); ``risk-insertion-framework.md`` §4.3.1 and §6.2.2
(normalised AUC); ``metric-reference.md`` §5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import gaussian_kde
from sklearn.metrics import roc_auc_score

from ...data import Schema
from ...encoding import TableEncoder
from ...errors import InsufficientDataError
from ...inputs import ReviewData, prepare_review
from ...parallel import one_blas_thread
from ...results import MetricResult
from ...stats import bootstrap_auc, child_seeds, kde_logpdf, percentile_interval
from ...threat import ThreatModel
from ...validation import check_confidence, check_in_range, check_positive_int, check_seed
from ..distance import analysis_columns, single_release
from .members import require_holdout


@dataclass(frozen=True, eq=False)
class DomiasResult(MetricResult):
    """DOMIAS normalised AUC 2 AUC - 1 (unclipped) with the raw AUC and the scores."""

    auc: float = float("nan")
    dimensions: int = 0


def domias(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    columns: Sequence[str] | None = None,
    reference_fraction: float = 0.5,
    max_rows: int | None = 10_000,
    bootstrap: int = 1000,
    confidence: float = 0.95,
    numeric_missing: str = "median",
    bandwidth: float = 1.0,
    seed: int = 0,
) -> DomiasResult:
    """DOMIAS membership inference by the density ratio p_S(x) / p_R(x).

    The holdout is split (seeded) into a reference set R, on which p_R is fitted, and the
    non-members; members are the training rows. Both densities are Gaussian kernel
    density estimates (``scipy.stats.gaussian_kde``, Scott's bandwidth) on the shared
    encoding (min-max numerics, one-hot categoricals) of the quasi-identifiers and
    sensitive columns. One-hot blocks make that encoding's covariance singular (each
    block sums to one), and a release or reference set can lack variation in some
    direction, so the encoding is first projected onto the principal subspace of the
    training rows and then restricted to the directions in which both the release and the
    reference set vary (the number kept is ``params["kde_dimensions"]``). The KDE is
    affine-equivariant, so the projection changes only the dropped, degenerate
    directions. Scores are log p_S - log p_R (the log of the DOMIAS ratio, monotone in
    it, without its 1e-10 offset).

    Parameters
    ----------
    real
        The training data (members).
    synthetic
        One synthetic release.
    threat
        Its quasi-identifiers and sensitive columns are the attack's features.
    holdout
        Real rows the generator never saw (required): non-members and reference set.
    columns
        Override of the feature columns (default ``threat.columns``).
    reference_fraction
        Share of the holdout used as the reference set R, in (0, 1); the rest are the
        non-members (default 0.5).
    max_rows
        Upper bound on rows per set (release, reference, members, non-members), each
        subsampled with the seed when larger; the KDE costs O(test x fitted rows).
        ``None`` = no bound.
    bootstrap
        Replicates of the stratified bootstrap of the AUC (0 = no interval).
    confidence
        Interval level.
    numeric_missing
        Missing numerics in the encoder: ``median`` imputation or ``error``.
    bandwidth
        Multiplier of Scott's bandwidth factor for both densities (default 1: the
        reference implementation's ``gaussian_kde``). Smaller values let the release's
        density peak at copied records: on 6,666 health records a full copy reads 0.17 at
        1, 0.33 at 0.5 and 0.45 at 0.25, unseen rows about 0 at each; the measure stays
        capped well below 1 (see the registry's calibration note).
    seed
        Seeds the split, the subsampling and the bootstrap.

    Returns
    -------
    DomiasResult
        ``name="domias"``; ``value`` = 2 AUC - 1, unclipped, bounds (-1, 1): 0 is an
        attack no better than chance and a negative value one that ranks non-members
        above members (no membership signal); ``ci`` the percentile bootstrap of the same
        unclipped quantity; ``auc`` raw AUC (also in ``extra``); ``extra["reading"]`` one
        sentence saying which of these the value is (:func:`domias_reading`); records:
        one row per test record with ``record`` (index in its own table), ``source``
        (training / holdout), ``member``, ``score`` and the two log densities.

    Raises
    ------
    ParameterError
        No holdout, or a parameter out of range.
    InsufficientDataError
        Too few rows to fit the densities.

    Notes
    -----
    van Breugel et al. (AISTATS 2023); ``metric-reference.md`` §5 (KDE variant);
    ``risk-insertion-framework.md`` §6.2.2 and Table 2, which reports the normalised AUC
    unclipped (negative values at no risk, e.g. -0.0066 on Texas). Clipping at 0, as
    ``metric-reference.md`` §5 suggests for a [0, 1] risk, would bias the value upward
    when there is no risk (the mean of max(0, X) exceeds that of X) and hide below-chance
    attacks; the value is kept unclipped for that reason.
    """
    opts = _checked_domias_options(
        seed, reference_fraction, max_rows, bootstrap, confidence, numeric_missing, bandwidth
    )
    require_holdout(holdout, "domias")
    data = prepare_review(
        real, synthetic, threat=threat, holdout=holdout, schema=schema, min_rows=4
    )
    syn = single_release(data, "domias")
    cols = analysis_columns(data.schema, threat.columns if columns is None else columns)
    seeds = child_seeds(opts.seed, 3)  # the split, the subsamples, the bootstrap
    sets = _domias_sets(data, syn, cols, opts, seeds)
    # the projection's covariance and the kernel sums reduce through BLAS: on one BLAS
    # thread, so that the AUC does not follow the machine's core count (Adult's read
    # 0.0071806 on one thread and 0.0071805 on two)
    with one_blas_thread():
        density = _log_density_ratio(sets, opts.bandwidth)
        auc = float(roc_auc_score(density.labels, density.score))
        ci = _normalised_auc_interval(density, opts, seeds[2])
    params = _domias_params(cols, opts, seeds, sets, density)
    return _domias_result(sets, density, auc, ci, params)


@dataclass(frozen=True)
class _DomiasOptions:
    """The options of one DOMIAS run as they are recorded (the checked ones validated)."""

    seed: int
    reference_fraction: float
    max_rows: int | None
    bootstrap: int
    confidence: float
    numeric_missing: str
    bandwidth: float


def _checked_domias_options(
    seed: int,
    reference_fraction: float,
    max_rows: int | None,
    bootstrap: int,
    confidence: float,
    numeric_missing: str,
    bandwidth: float,
) -> _DomiasOptions:
    """Every option checked before any work."""
    seed = check_seed(seed)
    check_in_range(
        "reference_fraction", reference_fraction, 0, 1, low_inclusive=False, high_inclusive=False
    )
    if max_rows is not None:
        max_rows = check_positive_int("max_rows", max_rows, minimum=10)
    bootstrap = check_positive_int("bootstrap", bootstrap, minimum=0)
    check_confidence(confidence)
    bandwidth = check_in_range("bandwidth", bandwidth, 0, 10, low_inclusive=False)
    return _DomiasOptions(
        seed, reference_fraction, max_rows, bootstrap, confidence, numeric_missing, bandwidth
    )


@dataclass(frozen=True)
class _DomiasSets:
    """The encoded sets of one DOMIAS run: all training rows (the KDE basis), the release
    and the reference set (the two densities), the members and non-members (the test
    records) with their index labels."""

    train: np.ndarray
    synthetic: np.ndarray
    reference: np.ndarray
    members: np.ndarray
    non_members: np.ndarray
    member_records: np.ndarray
    non_member_records: np.ndarray


def _domias_sets(
    data: ReviewData,
    syn: pd.DataFrame,
    cols: list[str],
    opts: _DomiasOptions,
    seeds: Sequence[int],
) -> _DomiasSets:
    """Split the holdout (seeded) into the reference set and the non-members, cap every
    set at ``max_rows`` (seeded subsamples) and encode them on the shared encoding."""
    hold: pd.DataFrame = data.holdout  # required by the caller
    s_split, s_sub = seeds[0], seeds[1]
    n_ref = round(opts.reference_fraction * len(hold))
    if n_ref < 2 or len(hold) - n_ref < 1:
        raise InsufficientDataError(
            f"The holdout has {len(hold)} rows; with reference_fraction="
            f"{opts.reference_fraction} it cannot give both a reference set (2 rows or more) "
            "and non-members. Provide a larger holdout."
        )
    perm = np.random.default_rng(s_split).permutation(len(hold))
    ref_pos, non_pos = np.sort(perm[:n_ref]), np.sort(perm[n_ref:])
    sub = np.random.default_rng(s_sub)
    max_rows = opts.max_rows
    syn_pos = _cap(len(syn), max_rows, sub)
    ref_pos = ref_pos[_cap(len(ref_pos), max_rows, sub)]
    mem_pos = _cap(len(data.real), max_rows, sub)
    non_pos = non_pos[_cap(len(non_pos), max_rows, sub)]
    encoder = TableEncoder(data.schema, columns=cols, numeric_missing=opts.numeric_missing)
    encoder.fit(data.real)
    X_t = encoder.transform(data.real).astype(np.float64)
    X_s = encoder.transform(syn.iloc[syn_pos]).astype(np.float64)
    X_h = encoder.transform(hold).astype(np.float64)
    return _DomiasSets(
        train=X_t,
        synthetic=X_s,
        reference=X_h[ref_pos],
        members=X_t[mem_pos],
        non_members=X_h[non_pos],
        member_records=data.real.index.to_numpy()[mem_pos],
        non_member_records=hold.index.to_numpy()[non_pos],
    )


@dataclass(frozen=True)
class _Density:
    """Per test record (members first): the log densities, their difference (the
    score) and the member labels; ``dimensions`` kept by the KDE basis."""

    log_synthetic: np.ndarray
    log_reference: np.ndarray
    score: np.ndarray
    labels: np.ndarray
    dimensions: int


def _log_density_ratio(sets: _DomiasSets, bandwidth: float) -> _Density:
    """log p_S - log p_R of every test record, both densities Gaussian KDEs on the
    subspace where the training rows, the release and the reference set all vary."""
    basis, centre = _kde_basis(sets.train, [sets.synthetic, sets.reference])
    if basis.shape[0] == 0:
        raise InsufficientDataError(
            "The encoded columns do not vary jointly in the training data, the release and "
            "the reference set; DOMIAS has nothing to compare. Use more columns."
        )

    def project(x: np.ndarray) -> np.ndarray:
        return (x - centre) @ basis.T

    kde_s = gaussian_kde(project(sets.synthetic).T)
    kde_r = gaussian_kde(project(sets.reference).T)
    if bandwidth != 1.0:
        for kde in (kde_s, kde_r):
            kde.set_bandwidth(kde.factor * bandwidth)
    test = np.vstack([sets.members, sets.non_members])
    z = project(test).T
    # scipy's densities, computed in BLAS tiles (equal to kde.logpdf to rounding, several
    # times faster: scipy's loop is single-threaded; issue 14)
    log_s = kde_logpdf(kde_s, z)
    log_r = kde_logpdf(kde_r, z)
    n_m, n_n = len(sets.members), len(sets.non_members)
    labels = np.r_[np.ones(n_m, dtype=int), np.zeros(n_n, dtype=int)]
    return _Density(log_s, log_r, log_s - log_r, labels, int(basis.shape[0]))


def _normalised_auc_interval(
    density: _Density, opts: _DomiasOptions, seed: int
) -> tuple[float, float] | None:
    """Percentile interval of 2 AUC - 1 over a stratified bootstrap (None without one)."""
    if opts.bootstrap <= 0:
        return None
    boot = bootstrap_auc(density.score, density.labels, n_boot=opts.bootstrap, seed=seed)
    lo, hi = percentile_interval(2 * boot - 1, confidence=opts.confidence)
    return (float(lo), float(hi))


def _domias_params(
    cols: list[str],
    opts: _DomiasOptions,
    seeds: Sequence[int],
    sets: _DomiasSets,
    density: _Density,
) -> dict[str, Any]:
    """What a DOMIAS result records: its options, seeds, set sizes and the KDE's space."""
    return {
        "columns": cols,
        "reference_fraction": opts.reference_fraction,
        "max_rows": opts.max_rows,
        "bootstrap": opts.bootstrap,
        "confidence": opts.confidence,
        "numeric_missing": opts.numeric_missing,
        "seed": opts.seed,
        "split_seed": seeds[0],
        "subsample_seed": seeds[1],
        "bootstrap_seed": seeds[2],
        "n_members": len(sets.members),
        "n_non_members": len(sets.non_members),
        "n_reference": len(sets.reference),
        "n_synthetic_used": len(sets.synthetic),
        "kde_dimensions": density.dimensions,
        "encoded_dimensions": int(sets.train.shape[1]),
        "density": "gaussian_kde (Scott)"
        if opts.bandwidth == 1.0
        else f"gaussian_kde (Scott x {opts.bandwidth:g})",
        "bandwidth": opts.bandwidth,
    }


def _domias_result(
    sets: _DomiasSets,
    density: _Density,
    auc: float,
    ci: tuple[float, float] | None,
    params: dict[str, Any],
) -> DomiasResult:
    """The result: 2 AUC - 1 with its interval, and one record per test record."""
    labels, score = density.labels, density.score
    accuracy = float(((score > np.median(score)) == labels.astype(bool)).mean())
    n_m, n_n = len(sets.members), len(sets.non_members)
    table = pd.DataFrame(
        {
            "record": np.r_[sets.member_records, sets.non_member_records],
            "source": np.r_[np.full(n_m, "training"), np.full(n_n, "holdout")],
            "member": labels.astype(bool),
            "score": score,
            "log_p_synthetic": density.log_synthetic,
            "log_p_reference": density.log_reference,
        }
    )
    value = 2 * auc - 1
    return DomiasResult(
        name="domias",
        value=value,
        ci=ci,
        params=params,
        record_table=table,
        goal="lower",
        bounds=(-1.0, 1.0),
        extra={"auc": auc, "accuracy_at_median": accuracy, "reading": domias_reading(value, ci)},
        auc=auc,
        dimensions=density.dimensions,
    )


def domias_reading(value: float, ci: tuple[float, float] | None = None) -> str:
    """One sentence on what a normalised DOMIAS AUC says about membership.

    The interval, when given, decides between "no evidence" and a signal: a value whose
    interval contains 0 is read as chance whatever its sign.
    """
    if not np.isfinite(value):
        return "undefined: the attack could not rank members against non-members"
    if ci is not None and np.all(np.isfinite(ci)) and ci[0] <= 0 <= ci[1]:
        return (
            "indistinguishable from 0: the attack does no better than chance — no membership signal"
        )
    if value < 0:
        return "below 0: the attack ranks non-members above members — no membership signal"
    if value == 0:
        return "0: the attack does no better than chance — no membership signal"
    return (
        f"above 0: the release's density is higher at members than at non-members "
        f"(AUC {(value + 1) / 2:.3f}) — a membership signal"
    )


def _cap(n: int, max_rows: int | None, rng: np.random.Generator) -> np.ndarray:
    if max_rows is None or n <= max_rows:
        return np.arange(n)
    return np.sort(rng.choice(n, size=max_rows, replace=False))


def _kde_basis(
    train: np.ndarray, fitted: list[np.ndarray], rel_tol: float = 1e-9
) -> tuple[np.ndarray, np.ndarray]:
    """Orthonormal rows spanning the directions where every fitted set varies.

    Start from the principal subspace of the training encoding (rank-revealing SVD), then
    for each set to be fitted by a KDE keep only the eigen-directions of its covariance
    (within the current subspace) with non-negligible variance.
    """
    centre = train.mean(axis=0)
    _, sv, vt = np.linalg.svd(train - centre, full_matrices=False)
    basis = vt[sv > rel_tol * max(sv.max(initial=0.0), 1e-300) * max(train.shape)]
    for x in fitted:
        if basis.shape[0] == 0:
            break
        y = (x - x.mean(axis=0)) @ basis.T
        cov = y.T @ y / max(len(x) - 1, 1)
        ev, vec = np.linalg.eigh(cov)
        keep = ev > rel_tol * max(ev.max(initial=0.0), 1e-300) * 1e3
        basis = vec[:, keep].T @ basis
    return basis, centre
