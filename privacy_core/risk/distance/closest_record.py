"""Distance to closest record (DCR): synthetic-to-real against real-to-real distances.

An *indicator*, not a disclosure measure (consensus R3): a synthetic record close to a
training record is a reason to look, not evidence that anyone is identifiable.

With ``variant="distance"`` (the papers' definition, default), SRD(s) is the distance
from synthetic record s to its nearest training record and RRD(h) the distance from
holdout record h to its nearest training record; with ``k > 1`` both are the mean
distance to the k nearest training records (the k-NN indicator). Under no memorisation,
synthetic and holdout records are exchangeable draws from the population, so about
alpha percent of SRD fall below the alpha-th RRD percentile q. The measure reports the
share p of SRD strictly below q, the DCR ratio p / a and the privacy-risk score
(p - a) / (1 - a), a = alpha / 100: 0 = no closer than real-to-real, 1 = every synthetic
record closer. The score is *not* clipped: under no memorisation its expectation is 0
and noise gives small negative values (the paper's own remark); its lower bound is
-a / (1 - a).

``variant="ratio"`` is the reference code's normalised form (``metric-reference.md``
§3a): for every training record t, SRD(t) = d_k(t, S) / d_k(t, T minus t) and
RRD(t) = d_k(t, H) / d_k(t, T minus t) with d_k the distance to the k-th neighbour;
non-finite ratios (0 / 0 from duplicates) are dropped and counted in ``params``.

The searches run once; :meth:`DcrResult.at` re-aggregates the stored distances at
another alpha (:func:`~privacy_core.risk.distance.summary.dcr_summary`).

Notes
-----
``contrastive-embeddings.md`` §3.3 eq. 1-4; ``risk-insertion-framework.md`` §4.2.2-
4.2.3 (k-NN: means of neighbourhoods) and §6.2.1 (alpha = 2); ``metric-reference.md``
§3a (ratio variant, holdout variant, bootstrap without the 0.025 bug).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from ...data import Schema
from ...errors import UntrustworthyResultWarning
from ...results import MetricResult, jsonable
from ...threat import ThreatModel
from ...validation import check_choice, check_confidence, check_positive_int, check_seed
from ..neighbors import nearest_neighbors
from .queries import check_max_queries, sample_queries
from .space import (
    DCR_METRICS,
    DistanceSetup,
    check_k,
    distance_inputs,
    nearest,
    neighbor_metric,
    split_real,
)
from .summary import DEFAULT_ALPHA, check_alpha, dcr_summary, finite_sorted, with_alpha

DCR_VARIANTS = ("distance", "ratio")


@dataclass(frozen=True, eq=False)
class DcrResult(MetricResult):
    """DCR score at one alpha, with the distances needed to re-aggregate at another.

    ``value`` is the privacy-risk score (p - a) / (1 - a), a = alpha / 100: 0 when
    synthetic records are no closer to training records than holdout records are, 1 when
    all are closer than the alpha-th holdout percentile, negative (down to -a / (1 - a))
    when they are farther; negative values are sampling noise around 0 or a release far
    from the data, not "better than private".
    """

    alpha: float = DEFAULT_ALPHA
    k: int = 1
    variant: str = "distance"
    ratio: float = float("nan")
    share_below: float = float("nan")
    threshold: float = float("nan")
    srd: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    rrd: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    dcr_synthetic: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    dcr_holdout: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    srd_sorted: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    rrd_sorted: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)

    def at(self, alpha: float | None = None, *, confidence: float | None = None) -> DcrResult:
        """The same distances aggregated at another alpha (percent) or confidence."""
        return _dcr_aggregate(self, with_alpha(self.params, alpha, confidence))

    def curve(self, alphas: Sequence[float] | None = None) -> pd.DataFrame:
        """Score against alpha: columns alpha, value, lower, upper, share_below."""
        grid = np.arange(1, 11, dtype=float) if alphas is None else np.asarray(alphas, float)
        rows = []
        for a in grid:
            r = self.at(float(a))
            lo, hi = r.ci if r.ci is not None else (np.nan, np.nan)
            rows.append((float(a), r.value, lo, hi, r.share_below))
        return pd.DataFrame(rows, columns=["alpha", "value", "lower", "upper", "share_below"])

    @property
    def records(self) -> pd.DataFrame | None:
        """Per evaluated record: distances, neighbours and ``at_risk`` (SRD below q)."""
        if self.record_table is None:
            return None
        out = self.record_table.copy()
        out["at_risk"] = out["srd"].to_numpy() < self.threshold
        return out

    @property
    def uninformative(self) -> str:
        """Why the score cannot tell on this data ('' when it can): with α % of the
        real-to-real distances zero, no synthetic distance falls below the threshold,
        so even a full copy reads no risk."""
        if self.rrd_sorted.size and self.threshold == 0.0:
            return (
                f"at least {self.alpha:g}% of the real-to-real distances are zero (natural "
                "duplicates), so the DCR score cannot detect copies on this data"
            )
        return ""

    def to_dict(self, *, include_records: bool = False) -> dict[str, Any]:
        out = super().to_dict(include_records=include_records)
        if self.uninformative:
            out["uninformative"] = self.uninformative
        out.update(
            jsonable({"share_below": self.share_below, "threshold_distance": self.threshold})
        )
        return out


def _dcr_aggregate(res: DcrResult, params: dict[str, Any]) -> DcrResult:
    alpha = float(params["alpha"])
    s = dcr_summary(
        res.srd_sorted,
        res.rrd_sorted,
        alpha=alpha,
        n_boot=int(params["bootstrap"]),
        boot_seed=int(params["bootstrap_seed"]),
        confidence=float(params["confidence"]),
    )
    a = alpha / 100.0
    extra = {**res.extra, "ratio": s.ratio, "alpha": alpha}
    return replace(
        res,
        value=s.score,
        ci=s.ci,
        params=params,
        alpha=alpha,
        ratio=s.ratio,
        share_below=s.share_below,
        threshold=s.threshold,
        bounds=(-a / (1 - a), 1.0),
        extra=extra,
    )


def dcr(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    columns: Sequence[str] | None = None,
    alpha: float = DEFAULT_ALPHA,
    k: int = 1,
    metric: str = "euclidean",
    variant: str = "distance",
    bootstrap: int = 1000,
    confidence: float = 0.95,
    numeric_missing: str = "median",
    space: str = "shared",
    embedding: Any = None,
    embedding_params: dict[str, Any] | None = None,
    max_queries: int | str | None = "auto",
    seed: int = 0,
) -> DcrResult:
    """Distance to closest record: SRD against RRD at the alpha-th RRD percentile.

    An *indicator*, not a disclosure measure (consensus R3). SRD and RRD are the
    synthetic and holdout records' distances to their nearest training records (the
    ``distance`` variant; ``k > 1``: means over the k nearest) or the reference code's
    ratios (``ratio``); with p the share of SRD strictly below q, the alpha-th RRD
    percentile, and a = alpha / 100, the value is the privacy-risk score (p - a) / (1 - a),
    unclipped (down to -a / (1 - a)), and p / a the DCR ratio. The module docstring
    (:mod:`privacy_core.risk.distance.closest_record`) defines both variants in full.

    Parameters
    ----------
    real, synthetic
        The training data T (what the generator saw) and one synthetic release S.
    threat
        The threat model (validated; DCR compares all ``columns``).
    holdout
        Real rows H the generator never saw. Without it, RRD comes from a seeded split of
        T as in the reference code (T1 = floor(n/2) rows as queries, T2 = the rest as
        reference; ``params["rrd_source"] = "split"``) with an :class:`UntrustworthyResultWarning`:
        T2 is half as large as T, so RRD runs larger and the score is biased upward.
    columns
        Columns compared (default: every included column).
    alpha, k
        Percentile of RRD, in percent, strictly between 0 and 100 (default 2); neighbours
        per record (1 = the plain DCR).
    metric, variant
        ``euclidean`` on the shared encoding (min-max numerics, one-hot categoricals) or
        ``gower`` (mean over columns of range-scaled |difference| and 0/1 mismatch);
        ``distance`` (papers) or ``ratio`` (reference code).
    bootstrap, confidence
        Bootstrap replicates for the interval (0 = none) and its level; SRD and RRD are
        resampled independently and the 2.5 / 97.5 percentiles taken (for 95%).
    numeric_missing
        Missing numerics in the encoder: ``median`` imputation or ``error``.
    space
        ``shared`` (default): the engine's encoding; ``contrastive``: the contrastive record
        embedding (:mod:`privacy_core.embedding`), trained on the training rows (cached),
        Euclidean only; ``params["space"]`` and ``params["embedding"]`` record them.
    embedding, embedding_params
        A fitted :class:`~privacy_core.embedding.ContrastiveEncoder` to use, or the
        options of the one to train (:class:`~privacy_core.embedding.ContrastiveParams`).
    max_queries
        ``distance`` variant: when the release (or the holdout) has more records than
        this, a seeded sample of this many is measured, each against the whole training
        table (:func:`query_sample`); ``None`` measures every record. ``params`` records
        the count used, ``query_sample`` and ``n_queries_synthetic`` / ``n_queries_real``;
        the records table then lists the sampled synthetic records. ``"auto"`` (default,
        :func:`~privacy_core.risk.neighbors.default_queries`): every record up to 50,000,
        then 20,000 at a million training rows — 10^12 distance pairs become 4 x 10^10.
    seed
        Seeds the bootstrap, the fallback split, the query sample (and the encoder).

    Returns
    -------
    DcrResult
        ``name="dcr"``; ``value`` = score; ``extra`` has ``ratio`` and ``alpha``; ``srd``,
        ``rrd`` the per-record values of the measure, ``dcr_synthetic`` and ``dcr_holdout``
        the plain nearest-training-record distances (for histograms); records: one row per
        synthetic record (``distance``) or training record (``ratio``) with the indices of
        the nearest synthetic and training records. ``at(alpha=...)`` re-aggregates.

    Raises
    ------
    ParameterError
        alpha outside (0, 100), k larger than a reference table, unknown metric/variant.

    Notes
    -----
    ``contrastive-embeddings.md`` §3.3 eq. 1-4; ``risk-insertion-framework.md`` §4.2.2-
    4.2.3 (k-NN: means of neighbourhoods) and §6.2.1 (alpha = 2); ``metric-reference.md``
    §3a (ratio variant, holdout variant, bootstrap without the 0.025 bug).
    """
    opts = _checked_options(seed, alpha, k, max_queries, metric, variant, bootstrap, confidence)
    setup = distance_inputs(
        real,
        synthetic,
        threat=threat,
        holdout=holdout,
        schema=schema,
        columns=columns,
        metric=metric,
        numeric_missing=numeric_missing,
        seed=opts.seed,
        measure="dcr",
        space=space,
        embedding=embedding,
        embedding_params=embedding_params,
    )
    params = _dcr_params(setup, opts, numeric_missing)
    reference = _real_reference(setup, params)
    if variant == "distance":
        measured = _measure_distances(setup, reference, opts, params)
    else:
        measured = _measure_ratios(setup, reference, opts, params)
    result = _dcr_aggregate(_unaggregated(measured, opts, params), params)
    _warn_degenerate(result)
    return result


@dataclass(frozen=True)
class _DcrOptions:
    """The validated scalar options of one :func:`dcr` call."""

    seed: int
    alpha: float
    k: int
    max_queries: int | str | None
    metric: str
    variant: str
    bootstrap: int
    confidence: float


def _checked_options(
    seed: int,
    alpha: float,
    k: int,
    max_queries: int | str | None,
    metric: str,
    variant: str,
    bootstrap: int,
    confidence: float,
) -> _DcrOptions:
    """Every option checked before any work, in the order the errors are documented."""
    seed = check_seed(seed)
    alpha = check_alpha(alpha)
    k = check_positive_int("k", k)
    check_max_queries(max_queries, 1)  # a bad value fails before any work
    check_choice("metric", metric, DCR_METRICS)
    check_choice("variant", variant, DCR_VARIANTS)
    bootstrap = check_positive_int("bootstrap", bootstrap, minimum=0)
    check_confidence(confidence)
    return _DcrOptions(seed, alpha, k, max_queries, metric, variant, bootstrap, confidence)


def _dcr_params(setup: DistanceSetup, opts: _DcrOptions, numeric_missing: str) -> dict[str, Any]:
    """The params every DCR result records (the real-to-real source and the query
    sample are added as they are decided)."""
    return {
        "alpha": opts.alpha,
        "k": opts.k,
        "metric": opts.metric,
        "variant": opts.variant,
        "columns": setup.columns,
        "bootstrap": opts.bootstrap,
        "bootstrap_seed": setup.boot_seed,
        "confidence": opts.confidence,
        "numeric_missing": numeric_missing,
        "seed": opts.seed,
        "n_real": len(setup.encoded["real"]),
        "n_synthetic": len(setup.encoded["synthetic"]),
        **setup.space_info,
    }


@dataclass(frozen=True)
class _RealToReal:
    """The real records whose RRD is measured (``query``) and those they are measured
    against (``reference``): the holdout against T, or one half of T against the other."""

    query: np.ndarray
    reference: np.ndarray
    holdout: bool


def _real_reference(setup: DistanceSetup, params: dict[str, Any]) -> _RealToReal:
    """The holdout against the training rows, or (without one) a seeded split of the
    training rows, with a warning that the split biases the score upward."""
    T = setup.encoded["real"]
    if setup.data.holdout is not None:
        H = setup.encoded["holdout"]
        params.update(rrd_source="holdout", n_holdout=len(H))
        return _RealToReal(H, T, holdout=True)
    q_pos, r_pos = split_real(len(T), setup.split_seed)
    params.update(
        rrd_source="split",
        split_seed=setup.split_seed,
        n_split_query=len(q_pos),
        n_split_reference=len(r_pos),
    )
    warnings.warn(
        "No holdout table: the real-to-real distances come from a seeded split of the "
        "training data, whose reference half is smaller than the training table, so the "
        "DCR score is biased upward. Provide a holdout of real rows the generator never "
        "saw for an unbiased comparison.",
        UntrustworthyResultWarning,
        stacklevel=3,  # the caller of dcr
    )
    return _RealToReal(T[q_pos], T[r_pos], holdout=False)


@dataclass(frozen=True)
class _Measured:
    """Per-record values of the measure (SRD, RRD), the plain nearest-record distances
    and the records table, before aggregation."""

    srd: np.ndarray
    rrd: np.ndarray
    dcr_synthetic: np.ndarray
    dcr_holdout: np.ndarray
    table: pd.DataFrame


def _measure_distances(
    setup: DistanceSetup, reference: _RealToReal, opts: _DcrOptions, params: dict[str, Any]
) -> _Measured:
    """The ``distance`` variant: mean distance to the k nearest training records of each
    (sampled) synthetic record, and of each real query to its reference."""
    T, S = setup.encoded["real"], setup.encoded["synthetic"]
    sizes = {"training records": len(T), "reference real records": len(reference.reference)}
    check_k(opts.k, sizes)
    S_q, real_q, pos_s = sample_queries(
        S, reference.query, opts.max_queries, opts.seed, params, len(T)
    )
    d_s, i_s = nearest(S_q, T, opts.k, opts.metric)
    d_r, _ = nearest(real_q, reference.reference, opts.k, opts.metric)
    srd = d_s.mean(axis=1)
    syn_labels = setup.synthetic.index.to_numpy()
    table = pd.DataFrame(
        {
            "record": syn_labels[pos_s],
            "synthetic_record": syn_labels[pos_s],
            "real_record": setup.data.real.index.to_numpy()[i_s[:, 0]],
            "srd": srd,
            "dcr": d_s[:, 0],
        }
    )
    return _Measured(srd, d_r.mean(axis=1), d_s[:, 0], d_r[:, 0], table)


def _measure_ratios(
    setup: DistanceSetup, reference: _RealToReal, opts: _DcrOptions, params: dict[str, Any]
) -> _Measured:
    """The ``ratio`` variant, plus the plain nearest-record distances for histograms."""
    T, S = setup.encoded["real"], setup.encoded["synthetic"]
    srd, rrd, table, dropped = _ratio_variant(
        T,
        S,
        reference,
        opts.k,
        opts.metric,
        setup.data.real.index.to_numpy(),
        setup.synthetic.index.to_numpy(),
    )
    params["dropped_nonfinite"] = dropped
    dcr_syn = nearest(S, T, 1, opts.metric)[0][:, 0]
    dcr_hold = nearest(reference.query, reference.reference, 1, opts.metric)[0][:, 0]
    return _Measured(srd, rrd, dcr_syn, dcr_hold, table)


def _ratio_variant(
    T: np.ndarray,
    S: np.ndarray,
    reference: _RealToReal,
    k: int,
    metric: str,
    real_labels: np.ndarray,
    syn_labels: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, pd.DataFrame, dict[str, int]]:
    """SRD(t) = d_k(t, S) / d_k(t, T minus t) and RRD(t) = d_k(t, H) / d_k(t, T minus t)
    for every training record t (split: RRD(t1) = d_k(t1, T2) / d_k(t1, T1 minus t1));
    non-finite ratios become NaN and are counted."""
    query_real, ref_real = reference.query, reference.reference
    nm = neighbor_metric(metric)
    sizes = {"synthetic records": len(S), "other training records": len(T) - 1}
    if reference.holdout:
        sizes["holdout records"] = len(query_real)
    else:
        sizes["records in each half of the split"] = min(len(ref_real), len(query_real) - 1)
    check_k(k, sizes)
    d_ts, i_ts = nearest_neighbors(T, S, k=k, metric=nm)
    d_tt, i_tt = nearest_neighbors(T, T, k=k, metric=nm, exclude_self=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        srd = d_ts[:, -1] / d_tt[:, -1]
        if reference.holdout:
            d_th, _ = nearest_neighbors(T, query_real, k=k, metric=nm)
            rrd = d_th[:, -1] / d_tt[:, -1]
        else:
            # split: RRD(t1) = d_k(t1, T2) / d_k(t1, T1 minus t1)
            d_12, _ = nearest_neighbors(query_real, ref_real, k=k, metric=nm)
            d_11, _ = nearest_neighbors(query_real, query_real, k=k, metric=nm, exclude_self=True)
            rrd = d_12[:, -1] / d_11[:, -1]
    srd = np.where(np.isfinite(srd), srd, np.nan)
    rrd = np.where(np.isfinite(rrd), rrd, np.nan)
    table = pd.DataFrame(
        {
            "record": real_labels,
            "synthetic_record": syn_labels[i_ts[:, 0]],
            "real_record": real_labels,
            "real_neighbor": real_labels[i_tt[:, 0]],
            "d_synthetic": d_ts[:, -1],
            "d_real": d_tt[:, -1],
            "srd": srd,
        }
    )
    dropped = {"srd": int(np.isnan(srd).sum()), "rrd": int(np.isnan(rrd).sum())}
    return srd, rrd, table, dropped


def _unaggregated(measured: _Measured, opts: _DcrOptions, params: dict[str, Any]) -> DcrResult:
    """The result with its distances and no aggregate yet (:func:`_dcr_aggregate` adds it)."""
    return DcrResult(
        name="dcr",
        value=float("nan"),
        ci=None,
        params=params,
        record_table=measured.table,
        goal="lower",
        alpha=opts.alpha,
        k=opts.k,
        variant=opts.variant,
        srd=measured.srd,
        rrd=measured.rrd,
        dcr_synthetic=measured.dcr_synthetic,
        dcr_holdout=measured.dcr_holdout,
        srd_sorted=finite_sorted(measured.srd),
        rrd_sorted=finite_sorted(measured.rrd),
    )


def _warn_degenerate(result: DcrResult) -> None:
    """Warn when the score cannot detect copies (too many zero real-to-real distances)
    or when ratios were dropped; ``stacklevel`` points at the caller of :func:`dcr`."""
    if result.rrd_sorted.size and result.threshold == 0.0:
        warnings.warn(
            f"At least {result.alpha:g}% of the real-to-real distances are zero (holdout "
            "records with an exact copy in the training data), so no synthetic distance can "
            "fall below the threshold and the DCR score cannot detect copies. Compare the "
            "identical match share with its holdout baseline instead, or raise alpha.",
            UntrustworthyResultWarning,
            stacklevel=3,
        )
    dropped = result.params.get("dropped_nonfinite")
    if dropped and (dropped["srd"] or dropped["rrd"]):
        warnings.warn(
            f"{dropped['srd']} SRD and {dropped['rrd']} RRD ratio(s) were not finite "
            "(duplicate training records give 0 / 0) and were dropped.",
            UntrustworthyResultWarning,
            stacklevel=3,
        )
