"""Membership inference: DOMIAS density ratio and the partition attack with F_rel.

Why one module: DOMIAS and the partition attack share the membership setting (members,
non-members, prevalence) and its validation; each is about half the module.

Both ask whether a release reveals that a record was in the training data, with training
records as members and holdout records (real, never seen by the generator) as
non-members. The consensus framework's conditions apply (R4): the attacker's targets are
drawn from the population the training data were sampled from, so membership tells the
attacker something only when being in the training data is itself sensitive.

* :func:`domias` (``domias``): the density ratio p_S(x) / p_R(x) of a kernel density
  fitted on the release and one fitted on a real reference set disjoint from every test
  record; AUC of the ratio for members against non-members, value = 2 AUC - 1 in
  (-1, 1), unclipped: below 0 the attack ranks non-members above members (no signal).
* :func:`membership_disclosure` (``membership``): El Emam's partition attack. An attack
  set holds members at the prevalence t (the sampling fraction); a record is called a
  member when its quasi-identifiers (numerics in 20 equal-width bins fitted on the
  release) are within Hamming distance h of a synthetic record; the F1 score is reported
  relative to the naive attacker who calls everyone a member, F_rel = (F - F_naive) /
  (1 - F_naive) with F_naive = 2t / (1 + t) (consensus R5).

Notes
-----
``risk-insertion-framework.md`` §4.3.1 and §6.2.2 (DOMIAS, normalised AUC);
``metric-reference.md`` §5 (DOMIAS) and §7 (F_rel); ``consensus-privacy-framework.md``
R4, R5 and Figure 3.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import gaussian_kde
from sklearn.metrics import roc_auc_score

from ..data import Schema
from ..encoding import TableEncoder
from ..errors import InsufficientDataError, ParameterError, UntrustworthyResultWarning
from ..inputs import prepare_review
from ..results import MetricResult
from ..stats import bootstrap_auc, child_seeds, kde_logpdf, percentile_interval
from ..threat import ThreatModel, membership_scenario_name
from ..validation import check_confidence, check_in_range, check_positive_int, check_seed
from .distance import analysis_columns, single_release
from .neighbors import nearest_neighbors

DEFAULT_BINS = 20


def _require_holdout(holdout: pd.DataFrame | None, measure: str) -> None:
    if holdout is None:
        raise ParameterError(
            f"`{measure}` needs a holdout: real rows the generator never saw, which are the "
            "non-members of the attack. Pass holdout=..."
        )


# ============================================================================ DOMIAS
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
    seed = check_seed(seed)
    check_in_range(
        "reference_fraction", reference_fraction, 0, 1, low_inclusive=False, high_inclusive=False
    )
    if max_rows is not None:
        max_rows = check_positive_int("max_rows", max_rows, minimum=10)
    bootstrap = check_positive_int("bootstrap", bootstrap, minimum=0)
    check_confidence(confidence)
    bandwidth = check_in_range("bandwidth", bandwidth, 0, 10, low_inclusive=False)
    _require_holdout(holdout, "domias")
    data = prepare_review(
        real, synthetic, threat=threat, holdout=holdout, schema=schema, min_rows=4
    )
    syn = single_release(data, "domias")
    hold: pd.DataFrame = data.holdout  # required above
    cols = analysis_columns(data.schema, threat.columns if columns is None else columns)
    s_split, s_sub, s_boot = child_seeds(seed, 3)
    n_ref = round(reference_fraction * len(hold))
    if n_ref < 2 or len(hold) - n_ref < 1:
        raise InsufficientDataError(
            f"The holdout has {len(hold)} rows; with reference_fraction={reference_fraction} "
            "it cannot give both a reference set (2 rows or more) and non-members. Provide a "
            "larger holdout."
        )
    perm = np.random.default_rng(s_split).permutation(len(hold))
    ref_pos, non_pos = np.sort(perm[:n_ref]), np.sort(perm[n_ref:])
    sub = np.random.default_rng(s_sub)
    syn_pos = _cap(len(syn), max_rows, sub)
    ref_pos = ref_pos[_cap(len(ref_pos), max_rows, sub)]
    mem_pos = _cap(len(data.real), max_rows, sub)
    non_pos = non_pos[_cap(len(non_pos), max_rows, sub)]

    encoder = TableEncoder(data.schema, columns=cols, numeric_missing=numeric_missing)
    encoder.fit(data.real)
    X_t = encoder.transform(data.real).astype(np.float64)
    X_s = encoder.transform(syn.iloc[syn_pos]).astype(np.float64)
    X_h = encoder.transform(hold).astype(np.float64)
    X_r, X_n, X_m = X_h[ref_pos], X_h[non_pos], X_t[mem_pos]
    basis, centre = _kde_basis(X_t, [X_s, X_r])
    if basis.shape[0] == 0:
        raise InsufficientDataError(
            "The encoded columns do not vary jointly in the training data, the release and "
            "the reference set; DOMIAS has nothing to compare. Use more columns."
        )

    def project(x: np.ndarray) -> np.ndarray:
        return (x - centre) @ basis.T

    kde_s = gaussian_kde(project(X_s).T)
    kde_r = gaussian_kde(project(X_r).T)
    if bandwidth != 1.0:
        for kde in (kde_s, kde_r):
            kde.set_bandwidth(kde.factor * bandwidth)
    test = np.vstack([X_m, X_n])
    z = project(test).T
    # scipy's densities, computed in BLAS tiles (equal to kde.logpdf to rounding, several
    # times faster: scipy's loop is single-threaded; issue 14)
    log_s = kde_logpdf(kde_s, z)
    log_r = kde_logpdf(kde_r, z)
    score = log_s - log_r
    labels = np.r_[np.ones(len(X_m), dtype=int), np.zeros(len(X_n), dtype=int)]
    auc = float(roc_auc_score(labels, score))
    ci = None
    if bootstrap > 0:
        boot = bootstrap_auc(score, labels, n_boot=bootstrap, seed=s_boot)
        lo, hi = percentile_interval(2 * boot - 1, confidence=confidence)
        ci = (float(lo), float(hi))
    accuracy = float(((score > np.median(score)) == labels.astype(bool)).mean())
    table = pd.DataFrame(
        {
            "record": np.r_[data.real.index.to_numpy()[mem_pos], hold.index.to_numpy()[non_pos]],
            "source": np.r_[np.full(len(X_m), "training"), np.full(len(X_n), "holdout")],
            "member": labels.astype(bool),
            "score": score,
            "log_p_synthetic": log_s,
            "log_p_reference": log_r,
        }
    )
    params = {
        "columns": cols,
        "reference_fraction": reference_fraction,
        "max_rows": max_rows,
        "bootstrap": bootstrap,
        "confidence": confidence,
        "numeric_missing": numeric_missing,
        "seed": seed,
        "split_seed": s_split,
        "subsample_seed": s_sub,
        "bootstrap_seed": s_boot,
        "n_members": len(X_m),
        "n_non_members": len(X_n),
        "n_reference": len(X_r),
        "n_synthetic_used": len(X_s),
        "kde_dimensions": int(basis.shape[0]),
        "encoded_dimensions": int(X_t.shape[1]),
        "density": "gaussian_kde (Scott)"
        if bandwidth == 1.0
        else f"gaussian_kde (Scott x {bandwidth:g})",
        "bandwidth": bandwidth,
    }
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
        dimensions=int(basis.shape[0]),
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


# ============================================================================ partition attack
@dataclass(frozen=True, eq=False)
class MembershipResult(MetricResult):
    """Partition-attack membership disclosure at one Hamming threshold h.

    ``value`` = mean F_rel over resampled attack sets; ``ci`` their 2.5 / 97.5 percentiles
    (for 95%). The stored per-record distances let :meth:`at` re-aggregate at another h
    or beta without a new search.
    """

    h: int = 0
    f_rel: float = float("nan")
    f_score: float = float("nan")
    f_naive: float = float("nan")
    auroc: float = float("nan")
    sampling_fraction: float = float("nan")
    distances_train: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    distances_holdout: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)

    def at(
        self, h: int | None = None, *, beta: float | None = None, confidence: float | None = None
    ) -> MembershipResult:
        """The same distances at another threshold h, F-beta or confidence level."""
        params = dict(self.params)
        if h is not None:
            params["h"] = check_positive_int("h", h, minimum=0)
        if beta is not None:
            params["beta"] = check_in_range("beta", beta, 0, np.inf, low_inclusive=False)
        if confidence is not None:
            params["confidence"] = check_confidence(confidence)
        return _membership_aggregate(self, params)

    def curve(self, thresholds: Sequence[int] | None = None) -> pd.DataFrame:
        """F_rel against h: columns h, value, lower, upper, f_score, precision, recall."""
        hs = range(len(self.params["quasi_identifiers"]) + 1) if thresholds is None else thresholds
        rows = []
        for h in hs:
            r = self.at(int(h))
            lo, hi = r.ci if r.ci is not None else (np.nan, np.nan)
            rows.append(
                (int(h), r.value, lo, hi, r.f_score, r.extra["precision"], r.extra["recall"])
            )
        return pd.DataFrame(
            rows, columns=["h", "value", "lower", "upper", "f_score", "precision", "recall"]
        )

    @property
    def records(self) -> pd.DataFrame | None:
        """Per training and holdout record: distance and the member call at h."""
        if self.record_table is None:
            return None
        out = self.record_table.copy()
        out["predicted_member"] = out["distance"].to_numpy() <= self.h
        return out


def f_naive(t: float, beta: float = 1.0) -> float:
    """F-beta of the naive attacker who calls everyone a member at prevalence t.

    Precision t, recall 1: F_beta = (1 + beta^2) t / (beta^2 t + 1), i.e. 2t / (1 + t)
    for F1 (``metric-reference.md`` §7; El Emam et al. 2022).
    """
    b2 = beta * beta
    return (1 + b2) * t / (b2 * t + 1)


def f_relative(f: float | np.ndarray, t: float, beta: float = 1.0) -> float | np.ndarray:
    """F_rel = (F - F_naive) / (1 - F_naive) (consensus R5)."""
    fn = f_naive(t, beta)
    return (f - fn) / (1 - fn)


def membership_disclosure(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    sampling_fraction: float | None = None,
    h: int = 0,
    beta: float = 1.0,
    scenario: str | None = None,
    population_share: float | None = None,
    n_bins: int = DEFAULT_BINS,
    n_repeats: int = 1000,
    attack_size: int | None = None,
    confidence: float = 0.95,
    seed: int = 0,
) -> MembershipResult:
    """El Emam's partition membership attack, reported as F_rel (consensus R5).

    Every training record (member) and holdout record (non-member) gets its minimum
    Hamming distance, over the quasi-identifiers, to the release: numerics are cut into
    ``n_bins`` equal-width bins fitted on the release (values outside its range fall in
    the end bins; missing is a bin of its own), categoricals are compared as they are. A
    record is called a member when that distance is at most h.

    An attack set holds members at the prevalence t (the sampling fraction: the share of
    the population in the training data), as large as the tables allow (all holdout
    records as non-members, t / (1 - t) times as many members, or the reverse if the
    training table is the limit), or ``attack_size`` records. Its members and
    non-members are drawn with replacement ``n_repeats`` times (the attack's counts are
    then binomial, drawn directly), so the spread over attack sets is a bootstrap
    interval; the value is the mean F_rel.

    Default h = 0 (exact match on every binned quasi-identifier): the reference code's
    h = 10 assumes many quasi-identifiers and calls everyone a member when there are
    fewer than 11; an exact match is the partition attack's natural "same class"
    criterion for any number of quasi-identifiers. ``auroc`` (from -distance, members
    against non-members, independent of prevalence) summarises every h at once, and
    :meth:`MembershipResult.at` gives any other h cheaply.

    Parameters
    ----------
    real
        The training data (members).
    synthetic
        One synthetic release.
    threat
        Quasi-identifiers = what the attacker matches on; ``threat.sampling_fraction`` is
        the prevalence t unless ``sampling_fraction`` is given.
    holdout
        Real rows the generator never saw (required): the non-members.
    sampling_fraction
        Prevalence t in (0, 1). When neither this nor the threat model gives it, t is
        taken as |real| / (|real| + |holdout|) with an :class:`UntrustworthyResultWarning`
        (recorded as ``params["sampling_fraction_source"]``).
    h
        Hamming threshold (integer >= 0; default 0).
    beta
        F-beta weight (1 = F1); above 1 recall (finding members) counts more, below 1
        precision (not accusing non-members) counts more (consensus Figure 3).
    scenario
        Whom the attacker targets (consensus framework, Figure 2, R4), default
        ``threat.membership_scenario`` ("A"): ``"A"`` targets drawn from the population
        the training data were sampled from, member prevalence t; ``"B"`` targets drawn
        from a wider superpopulation, member prevalence t x ``population_share``. In B
        the holdout stands in for every non-member, including targets outside the
        population (a warning says so).
    population_share
        Scenario B: the share of the superpopulation that belongs to the population, in
        (0, 1] (default ``threat.population_share``).
    n_bins
        Equal-width bins for numeric quasi-identifiers (default 20).
    n_repeats
        Resampled attack sets.
    attack_size
        Records per attack set (default: as many as the tables allow at prevalence t).
    confidence
        Interval level.
    seed
        Seeds the resampling.

    Returns
    -------
    MembershipResult
        ``name="membership"``; ``value`` = ``f_rel``; ``extra`` holds ``f_rel``, ``f1``
        (F-beta), ``f_naive``, ``precision``, ``recall``, ``auroc``, ``sampling_fraction``,
        ``member_prevalence``, ``scenario`` and ``h``; ``params`` record t and where it
        came from (``sampling_fraction_source``), h, beta, the scenario and the
        population share; records: one row per training and holdout record with its
        distance.

    Raises
    ------
    ParameterError
        No holdout; t not in (0, 1); an unknown scenario, or scenario B without a
        population share in (0, 1]; an attack set with no member or no non-member.

    Notes
    -----
    El Emam, Mosquera & Fang (JAMIA Open 2022); ``metric-reference.md`` §7;
    ``consensus-privacy-framework.md`` R4, R5 and Figure 3.
    """
    seed = check_seed(seed)
    h = check_positive_int("h", h, minimum=0)
    beta = check_in_range("beta", beta, 0, np.inf, low_inclusive=False)
    n_bins = check_positive_int("n_bins", n_bins)
    n_repeats = check_positive_int("n_repeats", n_repeats)
    if attack_size is not None:
        attack_size = check_positive_int("attack_size", attack_size, minimum=2)
    check_confidence(confidence)
    _require_holdout(holdout, "membership_disclosure")
    data = prepare_review(
        real, synthetic, threat=threat, holdout=holdout, schema=schema, min_rows=1
    )
    syn = single_release(data, "membership_disclosure")
    hold: pd.DataFrame = data.holdout  # required above
    n_t, n_h = len(data.real), len(hold)
    scenario = membership_scenario_name(
        threat.membership_scenario if scenario is None else scenario
    )
    share = threat.population_share if population_share is None else population_share
    if scenario == "B":
        if share is None:
            raise ParameterError(
                "Scenario B (targets drawn from a wider superpopulation) needs "
                "population_share: the share of that superpopulation that belongs to the "
                "population the training data were drawn from (e.g. the HIV prevalence "
                "among everyone the attacker might target)."
            )
        share = check_in_range("population_share", share, 0, 1, low_inclusive=False)
    t, source = sampling_fraction, "argument"
    if t is None and threat.sampling_fraction is not None:
        t, source = float(threat.sampling_fraction), "threat model"
    if t is None:
        t, source = n_t / (n_t + n_h), "assumed |real| / (|real| + |holdout|)"
        warnings.warn(fallback_message(t), UntrustworthyResultWarning, stacklevel=2)
    t = check_in_range("sampling_fraction", t, 0, 1, low_inclusive=False, high_inclusive=False)
    prevalence = t if scenario == "A" else t * share  # type: ignore[operator]
    if scenario == "B":
        warnings.warn(
            f"Scenario B: members are {prevalence:.3g} of the targets (t = {t:.3g} times the "
            f"population share {share:.3g}), but the holdout, drawn from the population, "
            "stands in for every non-member, including targets outside the population; "
            "if outsiders resemble the release less than the holdout does, F_rel "
            "understates the attack.",
            UntrustworthyResultWarning,
            stacklevel=2,
        )
    n_mem, n_non = _attack_sizes(prevalence, n_t, n_h, attack_size)

    qis = list(threat.quasi_identifiers)
    codes = _binned_codes(
        {"real": data.real, "synthetic": syn, "holdout": hold}, qis, data.schema, n_bins
    )
    d_train = _min_hamming(codes["real"], codes["synthetic"])
    d_hold = _min_hamming(codes["holdout"], codes["synthetic"])
    labels = np.r_[np.ones(n_t, dtype=int), np.zeros(n_h, dtype=int)]
    auroc = float(roc_auc_score(labels, -np.r_[d_train, d_hold]))
    table = pd.DataFrame(
        {
            "record": np.r_[data.real.index.to_numpy(), hold.index.to_numpy()],
            "source": np.r_[np.full(n_t, "training"), np.full(n_h, "holdout")],
            "member": labels.astype(bool),
            "distance": np.r_[d_train, d_hold],
        }
    )
    params = {
        "quasi_identifiers": qis,
        "sampling_fraction": t,
        "sampling_fraction_source": source,
        "scenario": scenario,
        "population_share": share if scenario == "B" else None,
        "member_prevalence": prevalence,
        "non_members": "holdout"
        if scenario == "A"
        else "holdout, standing in for in- and out-of-population non-members",
        "h": h,
        "beta": beta,
        "n_bins": n_bins,
        "binning": "equal-width, fitted on synthetic",
        "n_repeats": n_repeats,
        "attack_members": n_mem,
        "attack_non_members": n_non,
        "attack_size": n_mem + n_non,
        "confidence": confidence,
        "seed": seed,
        "n_real": n_t,
        "n_holdout": n_h,
        "n_synthetic": len(syn),
    }
    shell = MembershipResult(
        name="membership",
        value=float("nan"),
        ci=None,
        params=params,
        record_table=table,
        goal="lower",
        auroc=auroc,
        sampling_fraction=t,
        distances_train=d_train,
        distances_holdout=d_hold,
    )
    return _membership_aggregate(shell, params)


def fallback_message(t: float) -> str:
    """Why the fallback sampling fraction |T| / (|T| + |H|) is arbitrary, for the user."""
    return (
        f"The sampling fraction t (the share of the population that is in the training "
        f"data) was not given, so F_rel falls back to t = {t:.3g}, the training rows' share "
        "of training plus holdout. That number says how the real rows were split, not how "
        "much of the population the training data hold: it is an arbitrary prevalence of "
        "the kind the consensus framework warns against (R5, Figure 3), and F_rel moves "
        "with it. Set t (--sampling-fraction on the command line, the membership settings "
        "on the Data page, or ThreatModel(sampling_fraction=...))."
    )


def _attack_sizes(t: float, n_t: int, n_h: int, attack_size: int | None) -> tuple[int, int]:
    if attack_size is not None:
        n_mem = round(t * attack_size)
        n_non = attack_size - n_mem
    else:
        n_non = n_h
        n_mem = round(t / (1 - t) * n_h)
        if n_mem > n_t:
            n_mem = n_t
            n_non = round((1 - t) / t * n_t)
    if n_mem < 1 or n_non < 1:
        raise ParameterError(
            f"At prevalence t = {t:.3g} the attack set of {n_mem + n_non} records would hold "
            f"{n_mem} member(s) and {n_non} non-member(s); both are needed. Use a larger "
            "holdout (for small t) or training table, or set attack_size."
        )
    return n_mem, n_non


def _binned_codes(
    frames: dict[str, pd.DataFrame], qis: list[str], schema: Schema, n_bins: int
) -> dict[str, np.ndarray]:
    """Integer codes per quasi-identifier, shared across frames (numerics binned on S)."""
    names = list(frames)
    out = {n: np.zeros((len(frames[n]), len(qis)), dtype=np.int64) for n in names}
    for j, c in enumerate(qis):
        if schema[c].is_numeric:
            s = frames["synthetic"][c].to_numpy(dtype=float)
            finite = s[np.isfinite(s)]
            lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
            inner = np.linspace(lo, hi, n_bins + 1)[1:-1] if hi > lo else np.zeros(0)
            for n in names:
                x = frames[n][c].to_numpy(dtype=float)
                code = np.searchsorted(inner, x, side="right")
                out[n][:, j] = np.where(np.isnan(x), n_bins, code)  # missing: own bin
        else:
            joint = pd.concat([frames[n][c] for n in names], ignore_index=True)
            codes = pd.factorize(joint)[0]
            start = 0
            for n in names:
                out[n][:, j] = codes[start : start + len(frames[n])]
                start += len(frames[n])
    return out


def _min_hamming(query: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Minimum Hamming distance of each query code row to the reference rows.

    Rows are one-hot encoded per column, so the squared Euclidean distance of two rows is
    twice their Hamming distance; the search runs on distinct rows only.
    """
    q_u, q_inv = np.unique(query, axis=0, return_inverse=True)
    r_u = np.unique(reference, axis=0)
    widths = [
        int(max(q_u[:, j].max(initial=0), r_u[:, j].max(initial=0))) + 1
        for j in range(query.shape[1])
    ]
    offsets = np.r_[0, np.cumsum(widths)[:-1]]

    def one_hot(codes: np.ndarray) -> np.ndarray:
        m = np.zeros((len(codes), int(sum(widths))), dtype=np.float64)
        for j in range(codes.shape[1]):
            m[np.arange(len(codes)), offsets[j] + codes[:, j]] = 1.0
        return m

    d, _ = nearest_neighbors(one_hot(q_u), one_hot(r_u), k=1)
    ham = np.rint(d[:, 0] ** 2 / 2).astype(np.int64)
    return ham[q_inv.ravel()]


def _membership_aggregate(res: MembershipResult, params: dict[str, Any]) -> MembershipResult:
    h, beta = int(params["h"]), float(params["beta"])
    t = float(params["sampling_fraction"])
    n_mem, n_non = int(params["attack_members"]), int(params["attack_non_members"])
    p_t = float((res.distances_train <= h).mean())
    p_h = float((res.distances_holdout <= h).mean())
    # one attack set: members and non-members drawn with replacement, so the numbers of
    # member calls among them are binomial; drawn directly for every repeat
    rng = np.random.default_rng(int(params["seed"]))
    tp = rng.binomial(n_mem, p_t, size=int(params["n_repeats"])).astype(float)
    fp = rng.binomial(n_non, p_h, size=int(params["n_repeats"])).astype(float)
    fn = n_mem - tp
    b2 = beta * beta
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.where(tp > 0, (1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp), 0.0)
    prevalence = n_mem / (n_mem + n_non)
    fn_naive = f_naive(prevalence, beta)
    rel = (f - fn_naive) / (1 - fn_naive)
    lo, hi = percentile_interval(rel, confidence=float(params["confidence"]))
    precision = float(np.mean(np.divide(tp, tp + fp, out=np.zeros_like(tp), where=tp + fp > 0)))
    recall = float(np.mean(tp / n_mem))
    value = float(rel.mean())
    extra = {
        "f_rel": value,
        "f1": float(f.mean()),
        "f_naive": fn_naive,
        "precision": precision,
        "recall": recall,
        "auroc": res.auroc,
        "sampling_fraction": t,
        "member_prevalence": float(params["member_prevalence"]),
        "scenario": params["scenario"],
        "attack_prevalence": prevalence,
        "h": h,
    }
    return replace(
        res,
        value=value,
        ci=(float(lo), float(hi)),
        params=params,
        h=h,
        f_rel=value,
        f_score=float(f.mean()),
        f_naive=fn_naive,
        bounds=(-fn_naive / (1 - fn_naive), 1.0),
        extra=extra,
    )
