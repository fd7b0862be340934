"""El Emam's partition membership attack, reported as F_rel (consensus R5).

An attack set holds members at the prevalence t (the sampling fraction); a record is
called a member when its quasi-identifiers (numerics in 20 equal-width bins fitted on
the release) are within Hamming distance h of a synthetic record; the F1 score is
reported relative to the naive attacker who calls everyone a member,
F_rel = (F - F_naive) / (1 - F_naive) with F_naive = 2t / (1 + t). The consensus
framework's conditions apply (R4): the attacker's targets are drawn from the population
the training data were sampled from (scenario A) or from a wider superpopulation (B).

Notes
-----
El Emam, Mosquera & Fang (JAMIA Open 2022); ``metric-reference.md`` §7;
``consensus-privacy-framework.md`` R4, R5 and Figure 3.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

from ...data import Schema
from ...errors import ParameterError, UntrustworthyResultWarning
from ...inputs import ReviewData, prepare_review
from ...results import MetricResult
from ...stats import percentile_interval
from ...threat import ThreatModel, membership_scenario_name
from ...validation import check_confidence, check_in_range, check_positive_int, check_seed
from ..distance import single_release
from ..neighbors import nearest_neighbors
from .members import require_holdout

DEFAULT_BINS = 20


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
    opts = _checked_partition_options(seed, h, beta, n_bins, n_repeats, attack_size, confidence)
    require_holdout(holdout, "membership_disclosure")
    data = prepare_review(
        real, synthetic, threat=threat, holdout=holdout, schema=schema, min_rows=1
    )
    syn = single_release(data, "membership_disclosure")
    hold: pd.DataFrame = data.holdout  # required above
    n_t, n_h = len(data.real), len(hold)
    setting = _attack_setting(threat, n_t, n_h, scenario, population_share, sampling_fraction)
    sizes = attack_sizes(setting.prevalence, n_t, n_h, opts.attack_size)
    d_train, d_hold = _partition_distances(data, syn, hold, setting, opts.n_bins)
    shell = _partition_shell(data, syn, hold, setting, opts, sizes, (d_train, d_hold))
    return _membership_aggregate(shell, shell.params)


@dataclass(frozen=True)
class _PartitionOptions:
    """The validated options of one partition attack."""

    seed: int
    h: int
    beta: float
    n_bins: int
    n_repeats: int
    attack_size: int | None
    confidence: float


def _checked_partition_options(
    seed: int,
    h: int,
    beta: float,
    n_bins: int,
    n_repeats: int,
    attack_size: int | None,
    confidence: float,
) -> _PartitionOptions:
    """Every option checked before any work."""
    seed = check_seed(seed)
    h = check_positive_int("h", h, minimum=0)
    beta = check_in_range("beta", beta, 0, np.inf, low_inclusive=False)
    n_bins = check_positive_int("n_bins", n_bins)
    n_repeats = check_positive_int("n_repeats", n_repeats)
    if attack_size is not None:
        attack_size = check_positive_int("attack_size", attack_size, minimum=2)
    check_confidence(confidence)
    return _PartitionOptions(seed, h, beta, n_bins, n_repeats, attack_size, confidence)


@dataclass(frozen=True)
class _AttackSetting:
    """What the attacker knows and whom it targets: the quasi-identifiers, the scenario,
    the population share (scenario B), the sampling fraction t and where it came from,
    and the members' prevalence among the targets."""

    quasi_identifiers: list[str]
    scenario: str
    share: float | None
    t: float
    source: str
    prevalence: float


def _attack_setting(
    threat: ThreatModel,
    n_t: int,
    n_h: int,
    scenario: str | None,
    population_share: float | None,
    sampling_fraction: float | None,
) -> _AttackSetting:
    """The scenario and prevalence, from the arguments, else the threat model, else (for
    t) the fallback |real| / (|real| + |holdout|) with a warning; scenario B warns that
    the holdout stands in for every non-member. Warnings name the caller's caller."""
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
        warnings.warn(fallback_message(t), UntrustworthyResultWarning, stacklevel=3)
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
            stacklevel=3,
        )
    qis = list(threat.quasi_identifiers)
    return _AttackSetting(qis, scenario, share, t, source, prevalence)


def _partition_distances(
    data: ReviewData,
    syn: pd.DataFrame,
    hold: pd.DataFrame,
    setting: _AttackSetting,
    n_bins: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Minimum Hamming distance of every training and holdout record to the release,
    over the binned quasi-identifiers."""
    frames = {"real": data.real, "synthetic": syn, "holdout": hold}
    codes = _binned_codes(frames, setting.quasi_identifiers, data.schema, n_bins)
    d_train = _min_hamming(codes["real"], codes["synthetic"])
    d_hold = _min_hamming(codes["holdout"], codes["synthetic"])
    return d_train, d_hold


def _partition_shell(
    data: ReviewData,
    syn: pd.DataFrame,
    hold: pd.DataFrame,
    setting: _AttackSetting,
    opts: _PartitionOptions,
    sizes: tuple[int, int],
    distances: tuple[np.ndarray, np.ndarray],
) -> MembershipResult:
    """The result before aggregation: the distances, the AUROC over every threshold,
    the records table and the params (:func:`_membership_aggregate` reads them)."""
    d_train, d_hold = distances
    n_t, n_h = len(data.real), len(hold)
    n_mem, n_non = sizes
    scenario = setting.scenario
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
        "quasi_identifiers": setting.quasi_identifiers,
        "sampling_fraction": setting.t,
        "sampling_fraction_source": setting.source,
        "scenario": scenario,
        "population_share": setting.share if scenario == "B" else None,
        "member_prevalence": setting.prevalence,
        "non_members": "holdout"
        if scenario == "A"
        else "holdout, standing in for in- and out-of-population non-members",
        "h": opts.h,
        "beta": opts.beta,
        "n_bins": opts.n_bins,
        "binning": "equal-width, fitted on synthetic",
        "n_repeats": opts.n_repeats,
        "attack_members": n_mem,
        "attack_non_members": n_non,
        "attack_size": n_mem + n_non,
        "confidence": opts.confidence,
        "seed": opts.seed,
        "n_real": n_t,
        "n_holdout": n_h,
        "n_synthetic": len(syn),
    }
    return MembershipResult(
        name="membership",
        value=float("nan"),
        ci=None,
        params=params,
        record_table=table,
        goal="lower",
        auroc=auroc,
        sampling_fraction=setting.t,
        distances_train=d_train,
        distances_holdout=d_hold,
    )


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


def attack_sizes(t: float, n_t: int, n_h: int, attack_size: int | None) -> tuple[int, int]:
    """Members and non-members of one attack set at prevalence t: ``attack_size``
    records, or as many as the tables allow (every holdout record and t / (1 - t) times
    as many members, or the reverse when the training table is the limit)."""
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
