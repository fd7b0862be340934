"""Similarity indicators: identical match share (IMS) and distance to closest record (DCR).

Why one module: IMS, DCR and k-NN DCR share one encoding, one neighbour search and one
bootstrap; their readings are defined against each other.

Both are *indicators*, not disclosure measures: they say how close the release sits to
the training records, not what an attacker learns about anyone. The consensus framework
discourages reporting them on their own (recommendation R3): closeness does not imply
disclosure, several training records can share one close synthetic record, and closeness
on all columns says nothing about the sensitive ones. Read them next to an attack with a
control baseline (RAPID, the inference and membership attacks).

* :func:`identical_match_share` (``ims``): share of synthetic rows identical to a training
  row, with the same share for holdout rows as the natural baseline.
* :func:`dcr` (``dcr``): synthetic-to-real distances (SRD) against real-to-real distances
  (RRD) from a holdout; the share p of SRD below the alpha-th RRD percentile, the DCR
  ratio p / (alpha/100) and the privacy-risk score (p - alpha/100) / (1 - alpha/100).
* :func:`dcr_knn` (``knn``): the same score with k-neighbourhood means for k = 1..K.

Every neighbour search goes through :func:`privacy_core.risk.neighbors.nearest_neighbors`
(exact, chunked) on the one :class:`~privacy_core.encoding.TableEncoder` fitted on the
real table. The searches run once; :meth:`DcrResult.at` and :meth:`KnnResult.at`
re-aggregate at another alpha from the stored distances in milliseconds.

Notes
-----
``contrastive-embeddings.md`` §3.3 (equations 1-4); ``risk-insertion-framework.md``
§4.2.1-4.2.3 and §6.2.1; ``metric-reference.md`` §3a (the ratio variant and the
bootstrap, without its percentile bug); ``consensus-privacy-framework.md`` R3.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from ..data import Schema
from ..embedding import check_space, resolve_encoder
from ..encoding import TableEncoder
from ..errors import InsufficientDataError, ParameterError, UntrustworthyResultWarning
from ..inputs import ReviewData, prepare_review
from ..results import MetricResult, jsonable
from ..stats import (
    bootstrap_percentile,
    bootstrap_share_below,
    child_seeds,
    percentile_interval,
    wilson_interval,
)
from ..threat import ThreatModel
from ..validation import (
    check_choice,
    check_confidence,
    check_in_range,
    check_positive_int,
    check_seed,
)
from .neighbors import default_queries, nearest_neighbors

DCR_METRICS = ("euclidean", "gower")
DCR_VARIANTS = ("distance", "ratio")
DEFAULT_ALPHA = 2.0


# ============================================================================ shared helpers
def single_release(data: ReviewData, measure: str) -> pd.DataFrame:
    """The one synthetic table of a review (these measures evaluate one release)."""
    if len(data.synthetic) != 1:
        raise ParameterError(
            f"`{measure}` evaluates one synthetic release at a time; got "
            f"{len(data.synthetic)}. Call it once per release (and average the values "
            "over replicates of one generator)."
        )
    return data.synthetic[0]


def analysis_columns(schema: Schema, columns: Sequence[str] | None) -> list[str]:
    """The included columns to compare (all of them by default)."""
    if columns is None:
        return list(schema.included)
    cols = list(columns)
    if not cols:
        raise ParameterError("`columns` must name at least one column; got an empty list.")
    for c in cols:
        if c not in schema or not schema[c].included:
            raise ParameterError(
                f"`columns` must be included columns of the real table "
                f"({', '.join(schema.included)}); got {c!r}."
            )
    return cols


def _with_alpha(
    params: dict[str, Any], alpha: float | None, confidence: float | None
) -> dict[str, Any]:
    """A copy of a result's params with a new alpha and/or confidence, both validated."""
    out = dict(params)
    if alpha is not None:
        out["alpha"] = check_alpha(alpha)
    if confidence is not None:
        out["confidence"] = check_confidence(confidence)
    return out


def check_alpha(alpha: float) -> float:
    """Alpha is a percentage strictly between 0 and 100."""
    return check_in_range("alpha", alpha, 0, 100, low_inclusive=False, high_inclusive=False)


def identical_rows(query: pd.DataFrame, reference: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """For each query row, whether an identical reference row exists, and which one.

    A hash join on canonical rows (missing equals missing, -0.0 equals 0.0): 64-bit row
    hashes are matched with a sorted search, then every candidate pair is compared value
    by value, so a hash collision cannot create a false match.

    Returns
    -------
    flags, positions
        Boolean flags and the position (0-based) of one identical reference row, -1 if
        there is none.
    """
    h_q = pd.util.hash_pandas_object(query, index=False).to_numpy()
    h_r = pd.util.hash_pandas_object(reference, index=False).to_numpy()
    order = np.argsort(h_r, kind="stable")
    sorted_r = h_r[order]
    if len(sorted_r) == 0:
        return np.zeros(len(h_q), dtype=bool), np.full(len(h_q), -1)
    pos = np.minimum(np.searchsorted(sorted_r, h_q), len(sorted_r) - 1)
    cand = sorted_r[pos] == h_q
    ref_pos = np.where(cand, order[pos], -1)
    rows = np.nonzero(cand)[0]
    ok = np.ones(rows.size, dtype=bool)
    for c in query.columns:
        a = query[c].to_numpy()[rows]
        b = reference[c].to_numpy()[ref_pos[rows]]
        if a.dtype.kind == "f" or b.dtype.kind == "f":
            a = a.astype(float)
            b = b.astype(float)
            ok &= (a == b) | (np.isnan(a) & np.isnan(b))
        else:
            ok &= a == b
    flags = np.zeros(len(h_q), dtype=bool)
    flags[rows[ok]] = True
    return flags, np.where(flags, ref_pos, -1)


def encode_for_distance(
    data: ReviewData,
    columns: list[str],
    metric: str,
    numeric_missing: str,
    frames: dict[str, pd.DataFrame],
) -> tuple[dict[str, np.ndarray], TableEncoder]:
    """Encode frames with the encoder fitted on the real table, weighted for ``metric``.

    ``euclidean``: min-max numerics and one-hot categoricals as they come. ``gower``: the
    same encoding with one-hot features halved (two differing categories are then 1
    apart in L1) and every feature divided by the number of columns, so the L1 distance
    is the mean over columns of the range-scaled |difference| (numerics) and the 0/1
    mismatch (categoricals).
    """
    encoder = TableEncoder(data.schema, columns=columns, numeric_missing=numeric_missing).fit(
        data.real
    )
    weights = np.ones(encoder.n_features_, dtype=np.float64)
    if metric == "gower":
        for c in columns:
            if not data.schema[c].is_numeric:
                weights[encoder.slices_[c]] = 0.5
        weights /= len(columns)
    out = {}
    for name, frame in frames.items():
        x = encoder.transform(frame).astype(np.float64)
        out[name] = x * weights if metric == "gower" else x
    return out, encoder


def neighbor_metric(metric: str) -> str:
    return "l1" if metric == "gower" else "euclidean"


def _split_real(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Seeded split of the real rows: first floor(n/2) positions, then the rest."""
    perm = np.random.default_rng(seed).permutation(n)
    half = n // 2
    return np.sort(perm[:half]), np.sort(perm[half:])


def _boot_seeds(seed: int) -> tuple[int, int]:
    a, b = child_seeds(seed, 2)
    return a, b


def check_max_queries(
    max_queries: int | str | None, n_reference: int, n_columns: int | None = None
) -> int | None:
    """``"auto"`` (:func:`~privacy_core.risk.neighbors.default_queries` for this reference
    size and encoded width), None (every record) or a positive count."""
    if max_queries == "auto":
        return default_queries(n_reference, n_columns)
    if max_queries is None:
        return None
    return check_positive_int("max_queries", max_queries)


def query_sample(n: int, max_queries: int | None, seed: int, side: int) -> np.ndarray | None:
    """Sorted positions of a seeded sample of ``max_queries`` of ``n`` query records, or
    None when all of them are measured.

    Only the query side is sampled (:data:`~privacy_core.risk.neighbors.MAX_QUERIES`
    says why). ``side`` (0 synthetic, 1 real) gives each side its own draw; DCR and k-NN
    draw the same sample at the same seed, so they still share one neighbour search.
    """
    if max_queries is None or n <= max_queries:
        return None
    rng = np.random.default_rng(child_seeds(seed, 4)[2 + side])
    return np.sort(rng.choice(n, size=max_queries, replace=False))


def _sample_queries(
    S: np.ndarray,
    query_real: np.ndarray,
    max_queries: int | str | None,
    seed: int,
    params: dict[str, Any],
    n_reference: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The query records measured (all, or a seeded sample of each side) and the sampled
    synthetic positions; records the sample in ``params``. The bootstrap interval then
    resamples the measured records, so it carries the sampling's variance."""
    max_queries = check_max_queries(max_queries, n_reference, S.shape[1])
    pos_s = query_sample(len(S), max_queries, seed, 0)
    pos_r = query_sample(len(query_real), max_queries, seed, 1)
    params.update(
        max_queries=max_queries,
        query_sample=pos_s is not None or pos_r is not None,
        n_queries_synthetic=len(S) if pos_s is None else len(pos_s),
        n_queries_real=len(query_real) if pos_r is None else len(pos_r),
    )
    return (
        S if pos_s is None else S[pos_s],
        query_real if pos_r is None else query_real[pos_r],
        np.arange(len(S)) if pos_s is None else pos_s,
    )


@dataclass(frozen=True)
class DcrSummary:
    """The DCR aggregates at one alpha."""

    score: float
    ratio: float
    share_below: float
    threshold: float
    ci: tuple[float, float] | None


def dcr_summary(
    srd_sorted: np.ndarray,
    rrd_sorted: np.ndarray,
    *,
    alpha: float,
    n_boot: int,
    boot_seed: int,
    confidence: float,
) -> DcrSummary:
    """Score, ratio, share and bootstrap interval from sorted SRD and RRD arrays.

    q = the alpha-th percentile of RRD (``numpy.percentile``, linear); p = share of SRD
    strictly below q; ratio = p / a and score = (p - a) / (1 - a) with a = alpha / 100.
    The interval resamples SRD and RRD independently (as the reference code does) and
    takes the 2.5 / 97.5 percentiles of the score (for 95%).
    """
    a = alpha / 100.0
    if srd_sorted.size == 0 or rrd_sorted.size == 0:
        return DcrSummary(float("nan"), float("nan"), float("nan"), float("nan"), None)
    q = float(np.percentile(rrd_sorted, alpha))
    p = float(np.searchsorted(srd_sorted, q, side="left") / srd_sorted.size)
    ci = None
    if n_boot > 0:
        s_rrd, s_srd = _boot_seeds(boot_seed)
        q_b = bootstrap_percentile(rrd_sorted, alpha, n_boot=n_boot, seed=s_rrd, assume_sorted=True)
        p_b = bootstrap_share_below(srd_sorted, q_b, seed=s_srd, assume_sorted=True)
        lo, hi = percentile_interval((p_b - a) / (1 - a), confidence=confidence)
        ci = (float(lo), float(hi))
    return DcrSummary(score=(p - a) / (1 - a), ratio=p / a, share_below=p, threshold=q, ci=ci)


def _finite_sorted(x: np.ndarray) -> np.ndarray:
    return np.sort(x[np.isfinite(x)])


def _check_k(k: int, sizes: dict[str, int], name: str = "k") -> None:
    for label, size in sizes.items():
        if k > size:
            raise ParameterError(
                f"`{name}` must be at most {size} (the number of {label}); got {k}. Choose "
                f"a smaller {name}."
            )


def _distance_inputs(
    real: pd.DataFrame,
    synthetic: Any,
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None,
    schema: Schema | None,
    columns: Sequence[str] | None,
    metric: str,
    numeric_missing: str,
    seed: int,
    measure: str,
    space: str = "shared",
    embedding: Any = None,
    embedding_params: dict[str, Any] | None = None,
) -> tuple[ReviewData, pd.DataFrame, list[str], int, int, dict[str, np.ndarray], dict[str, Any]]:
    """Shared set-up of the DCR measures: validated inputs, one release, encoded tables
    (in the shared encoding or the contrastive embedding) and the space's params."""
    check_space(space)
    if space == "contrastive" and metric != "euclidean":
        raise ParameterError(
            "The contrastive embedding is a Euclidean space (unit vectors): use "
            f"metric='euclidean' with space='contrastive'; got {metric!r}."
        )
    data = prepare_review(
        real, synthetic, threat=threat, holdout=holdout, schema=schema, min_rows=1
    )
    syn = single_release(data, measure)
    cols = analysis_columns(data.schema, columns)
    split_seed, boot_seed = _boot_seeds(seed)
    frames = {"real": data.real, "synthetic": syn}
    if data.holdout is not None:
        frames["holdout"] = data.holdout
    if space == "contrastive":
        encoder = resolve_encoder(data, embedding, embedding_params, seed, cols)
        enc = {name: encoder.transform(frame, cols) for name, frame in frames.items()}
        info = {"space": "contrastive", "embedding": encoder.describe()}
    else:
        enc, _ = encode_for_distance(data, cols, metric, numeric_missing, frames)
        info = {"space": "shared"}
    return data, syn, cols, split_seed, boot_seed, enc, info


# ============================================================================ IMS
def identical_match_share(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    columns: Sequence[str] | None = None,
    confidence: float = 0.95,
    seed: int = 0,
) -> MetricResult:
    """Identical match share: the share of synthetic rows that copy a training row.

    An *indicator*, not a disclosure measure (consensus R3): a copied row discloses only
    if the row is rare and the copy can be recognised. Real data hold natural duplicates
    too, so the baseline is the same share for holdout rows (which the generator never
    saw) against the training rows.

    Parameters
    ----------
    real
        The training data (what the generator saw).
    synthetic
        One synthetic release.
    threat
        The threat model (validated; IMS itself compares all ``columns``).
    holdout
        Real rows the generator never saw; gives the baseline.
    columns
        Columns compared (default: every included column), in canonical form (numerics
        exactly equal, missing equal to missing).
    confidence
        Level of the Wilson interval.
    seed
        Recorded only (the measure is deterministic).

    Returns
    -------
    MetricResult
        ``name="ims"``; ``value`` = share of synthetic rows with an identical training
        row, ``ci`` Wilson, ``baseline`` = holdout share (None without holdout). Records:
        one row per synthetic record with ``match`` and ``real_record`` (index of an
        identical training row, -1 if none).

    Notes
    -----
    ``risk-insertion-framework.md`` §4.2.1 (IMS = |D ∩ D̂| / |D̂|); baseline as the
    control set of §5.3.2; ``metric-reference.md`` §8 (nickplas IMS, hash join).
    """
    seed = check_seed(seed)
    check_confidence(confidence)
    data = prepare_review(
        real, synthetic, threat=threat, holdout=holdout, schema=schema, min_rows=1
    )
    syn = single_release(data, "identical_match_share")
    cols = analysis_columns(data.schema, columns)
    flags, pos = identical_rows(syn[cols], data.real[cols])
    real_labels = data.real.index.to_numpy()
    k, n = int(flags.sum()), len(syn)
    baseline = None
    extra: dict[str, Any] = {"n_matches": k}
    if data.holdout is not None:
        h_flags, _ = identical_rows(data.holdout[cols], data.real[cols])
        baseline = float(h_flags.mean())
        extra["baseline_ci"] = list(
            wilson_interval(int(h_flags.sum()), len(h_flags), confidence=confidence)
        )
        extra["n_holdout_matches"] = int(h_flags.sum())
    table = pd.DataFrame(
        {
            "record": syn.index.to_numpy(),
            "match": flags,
            "real_record": np.where(flags, real_labels[np.maximum(pos, 0)], -1),
        }
    )
    params = {
        "columns": cols,
        "confidence": confidence,
        "seed": seed,
        "n_real": len(data.real),
        "n_synthetic": n,
        "n_holdout": None if data.holdout is None else len(data.holdout),
        "baseline": "holdout" if data.holdout is not None else None,
    }
    return MetricResult(
        name="ims",
        value=k / n,
        ci=wilson_interval(k, n, confidence=confidence),
        params=params,
        record_table=table,
        baseline=baseline,
        goal="lower",
        bounds=(0.0, 1.0),
        extra=extra,
    )


# ============================================================================ DCR
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
        return _dcr_aggregate(self, _with_alpha(self.params, alpha, confidence))

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


def _neighbors(
    query: np.ndarray, reference: np.ndarray, k: int, metric: str
) -> tuple[np.ndarray, np.ndarray]:
    return nearest_neighbors(query, reference, k=k, metric=neighbor_metric(metric))


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

    An *indicator*, not a disclosure measure (consensus R3): a synthetic record close to
    a training record is a reason to look, not evidence that anyone is identifiable.

    With ``variant="distance"`` (the papers' definition, default), SRD(s) is the distance
    from synthetic record s to its nearest training record and RRD(h) the distance from
    holdout record h to its nearest training record; with ``k > 1`` both are the mean
    distance to the k nearest training records (the k-NN indicator). Under no
    memorisation, synthetic and holdout records are exchangeable draws from the
    population, so about alpha percent of SRD fall below the alpha-th RRD percentile q.
    The measure reports the share p of SRD strictly below q, the DCR ratio p / a and the
    privacy-risk score (p - a) / (1 - a), a = alpha / 100: 0 = no closer than
    real-to-real, 1 = every synthetic record closer. The score is *not* clipped: under
    no memorisation its expectation is 0 and noise gives small negative values (the
    paper's own remark); its lower bound is -a / (1 - a).

    ``variant="ratio"`` is the reference code's normalised form (``metric-reference.md``
    §3a): for every training record t, SRD(t) = d_k(t, S) / d_k(t, T minus t) and
    RRD(t) = d_k(t, H) / d_k(t, T minus t) with d_k the distance to the k-th neighbour;
    non-finite ratios (0 / 0 from duplicates) are dropped and counted in ``params``.

    Parameters
    ----------
    real
        The training data T (what the generator saw).
    synthetic
        One synthetic release S.
    threat
        The threat model (validated; DCR compares all ``columns``).
    holdout
        Real rows H the generator never saw. Without it, RRD comes from a seeded split
        of T as in the reference code (T1 = floor(n/2) rows as queries, T2 = the rest as
        reference; ``params["rrd_source"] = "split"``) and an
        :class:`UntrustworthyResultWarning` is issued: T2 is half as large as T, so RRD
        runs larger than SRD and the score is biased upward (conservative).
    columns
        Columns compared (default: every included column).
    alpha
        Percentile of RRD, in percent, strictly between 0 and 100 (default 2).
    k
        Neighbours per record (1 = the plain DCR).
    metric
        ``euclidean`` on the shared encoding (min-max numerics, one-hot categoricals) or
        ``gower`` (mean over columns of range-scaled |difference| and 0/1 mismatch).
    variant
        ``distance`` (papers) or ``ratio`` (reference code).
    bootstrap
        Bootstrap replicates for the interval (0 = none); SRD and RRD are resampled
        independently and the 2.5 / 97.5 percentiles taken (for 95%).
    confidence
        Interval level.
    numeric_missing
        Missing numerics in the encoder: ``median`` imputation or ``error``.
    space
        ``shared`` (default): the engine's encoding (min-max, one-hot); ``contrastive``:
        the contrastive record embedding (:mod:`privacy_core.embedding`), trained on the
        training rows (cached), Euclidean only. ``params["space"]`` records it and
        ``params["embedding"]`` the encoder's hyperparameters and training.
    embedding, embedding_params
        A fitted :class:`~privacy_core.embedding.ContrastiveEncoder` to use, or the
        options of the one to train (:class:`~privacy_core.embedding.ContrastiveParams`).
    max_queries
        ``distance`` variant: when the release (or the holdout) has more records than
        this, a seeded sample of this many is measured, each against the whole training
        table (:func:`query_sample`); ``None`` measures every record. ``params`` records
        the count used, ``query_sample`` and ``n_queries_synthetic`` /
        ``n_queries_real``; the records table then lists the sampled synthetic records.
        ``"auto"`` (default, :func:`~privacy_core.risk.neighbors.default_queries`):
        every record up to 50,000, then 20,000 at a million training rows — 10^12
        distance pairs become 4 x 10^10.
    seed
        Seeds the bootstrap, the fallback split, the query sample (and the encoder);
        recorded in ``params``.

    Returns
    -------
    DcrResult
        ``name="dcr"``; ``value`` = score; ``extra`` has ``ratio`` and ``alpha``;
        ``srd``, ``rrd`` the per-record values of the measure, ``dcr_synthetic`` and
        ``dcr_holdout`` the plain nearest-training-record distances (for histograms);
        records: one row per synthetic record (``distance``) or training record
        (``ratio``) with the indices of the nearest synthetic and training records.
        ``at(alpha=...)`` re-aggregates without a new search.

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
    seed = check_seed(seed)
    alpha = check_alpha(alpha)
    k = check_positive_int("k", k)
    check_max_queries(max_queries, 1)  # a bad value fails before any work
    check_choice("metric", metric, DCR_METRICS)
    check_choice("variant", variant, DCR_VARIANTS)
    bootstrap = check_positive_int("bootstrap", bootstrap, minimum=0)
    check_confidence(confidence)
    data, syn, cols, split_seed, boot_seed, enc, space_info = _distance_inputs(
        real,
        synthetic,
        threat=threat,
        holdout=holdout,
        schema=schema,
        columns=columns,
        metric=metric,
        numeric_missing=numeric_missing,
        seed=seed,
        measure="dcr",
        space=space,
        embedding=embedding,
        embedding_params=embedding_params,
    )
    T, S = enc["real"], enc["synthetic"]
    real_labels = data.real.index.to_numpy()
    syn_labels = syn.index.to_numpy()
    params: dict[str, Any] = {
        "alpha": alpha,
        "k": k,
        "metric": metric,
        "variant": variant,
        "columns": cols,
        "bootstrap": bootstrap,
        "bootstrap_seed": boot_seed,
        "confidence": confidence,
        "numeric_missing": numeric_missing,
        "seed": seed,
        "n_real": len(T),
        "n_synthetic": len(S),
        **space_info,
    }
    if data.holdout is not None:
        H = enc["holdout"]
        params.update(rrd_source="holdout", n_holdout=len(H))
        query_real, ref_real = H, T
        ref_real_pos = np.arange(len(T))
    else:
        if len(T) < 4:
            raise InsufficientDataError(
                f"The real table has {len(T)} rows; splitting it for the real-to-real "
                "distances needs at least 4. Provide a holdout table."
            )
        q_pos, r_pos = _split_real(len(T), split_seed)
        params.update(
            rrd_source="split",
            split_seed=split_seed,
            n_split_query=len(q_pos),
            n_split_reference=len(r_pos),
        )
        query_real, ref_real = T[q_pos], T[r_pos]
        ref_real_pos = r_pos
        warnings.warn(
            "No holdout table: the real-to-real distances come from a seeded split of the "
            "training data, whose reference half is smaller than the training table, so the "
            "DCR score is biased upward. Provide a holdout of real rows the generator never "
            "saw for an unbiased comparison.",
            UntrustworthyResultWarning,
            stacklevel=2,
        )

    if variant == "distance":
        _check_k(k, {"training records": len(T), "reference real records": len(ref_real)})
        S_q, real_q, pos_s = _sample_queries(S, query_real, max_queries, seed, params, len(T))
        d_s, i_s = _neighbors(S_q, T, k, metric)
        d_r, _ = _neighbors(real_q, ref_real, k, metric)
        srd = d_s.mean(axis=1)
        rrd = d_r.mean(axis=1)
        dcr_syn, dcr_hold = d_s[:, 0], d_r[:, 0]
        table = pd.DataFrame(
            {
                "record": syn_labels[pos_s],
                "synthetic_record": syn_labels[pos_s],
                "real_record": real_labels[i_s[:, 0]],
                "srd": srd,
                "dcr": dcr_syn,
            }
        )
    else:
        srd, rrd, table, dropped = _ratio_variant(
            T,
            S,
            query_real,
            ref_real,
            k,
            metric,
            data.holdout is not None,
            real_labels,
            syn_labels,
            ref_real_pos,
        )
        params["dropped_nonfinite"] = dropped
        dcr_syn = _neighbors(S, T, 1, metric)[0][:, 0]
        dcr_hold = _neighbors(query_real, ref_real, 1, metric)[0][:, 0]
    shell = DcrResult(
        name="dcr",
        value=float("nan"),
        ci=None,
        params=params,
        record_table=table,
        goal="lower",
        alpha=alpha,
        k=k,
        variant=variant,
        srd=srd,
        rrd=rrd,
        dcr_synthetic=dcr_syn,
        dcr_holdout=dcr_hold,
        srd_sorted=_finite_sorted(srd),
        rrd_sorted=_finite_sorted(rrd),
    )
    result = _dcr_aggregate(shell, params)
    _warn_degenerate(result)
    return result


def _ratio_variant(
    T: np.ndarray,
    S: np.ndarray,
    query_real: np.ndarray,
    ref_real: np.ndarray,
    k: int,
    metric: str,
    has_holdout: bool,
    real_labels: np.ndarray,
    syn_labels: np.ndarray,
    ref_real_pos: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, pd.DataFrame, dict[str, int]]:
    nm = neighbor_metric(metric)
    sizes = {"synthetic records": len(S), "other training records": len(T) - 1}
    if has_holdout:
        sizes["holdout records"] = len(query_real)
    else:
        sizes["records in each half of the split"] = min(len(ref_real), len(query_real) - 1)
    _check_k(k, sizes)
    d_ts, i_ts = nearest_neighbors(T, S, k=k, metric=nm)
    d_tt, i_tt = nearest_neighbors(T, T, k=k, metric=nm, exclude_self=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        srd = d_ts[:, -1] / d_tt[:, -1]
        if has_holdout:
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


def _warn_degenerate(result: DcrResult) -> None:
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


# ============================================================================ k-NN indicator
@dataclass(frozen=True, eq=False)
class KnnResult(MetricResult):
    """The DCR score for k = 1..K (means of the k nearest training records).

    ``value`` is the largest score over k (the conservative envelope) and ``ci`` its
    interval; ``by_k`` holds every k. ``at(alpha=...)`` re-aggregates without a search.
    """

    alpha: float = DEFAULT_ALPHA
    k_values: tuple[int, ...] = ()
    best_k: int = 1
    by_k: pd.DataFrame = field(default_factory=pd.DataFrame)
    srd: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)), repr=False)
    rrd: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)), repr=False)

    def at(self, alpha: float | None = None, *, confidence: float | None = None) -> KnnResult:
        """The same neighbour distances aggregated at another alpha or confidence."""
        return _knn_aggregate(self, _with_alpha(self.params, alpha, confidence))


def _knn_aggregate(res: KnnResult, params: dict[str, Any]) -> KnnResult:
    alpha = float(params["alpha"])
    rows = []
    for j, kk in enumerate(res.k_values):
        s = dcr_summary(
            np.sort(res.srd[:, j]),
            np.sort(res.rrd[:, j]),
            alpha=alpha,
            n_boot=int(params["bootstrap"]),
            boot_seed=int(params["bootstrap_seed"]) + j,
            confidence=float(params["confidence"]),
        )
        lo, hi = s.ci if s.ci is not None else (np.nan, np.nan)
        rows.append(
            {
                "k": kk,
                "value": s.score,
                "lower": lo,
                "upper": hi,
                "ratio": s.ratio,
                "share_below": s.share_below,
                "threshold": s.threshold,
            }
        )
    by_k = pd.DataFrame(rows)
    best = int(by_k["value"].to_numpy().argmax())
    best_row = by_k.iloc[best]
    ci = (
        None
        if np.isnan(best_row["lower"])
        else (float(best_row["lower"]), float(best_row["upper"]))
    )
    a = alpha / 100.0
    extra = {
        "alpha": alpha,
        "best_k": int(best_row["k"]),
        "by_k": {
            str(int(r["k"])): {"value": r["value"], "ci": [r["lower"], r["upper"]]}
            for _, r in by_k.iterrows()
        },
    }
    return replace(
        res,
        value=float(best_row["value"]),
        ci=ci,
        params=params,
        alpha=alpha,
        best_k=int(best_row["k"]),
        by_k=by_k,
        bounds=(-a / (1 - a), 1.0),
        extra=extra,
    )


def dcr_knn(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    columns: Sequence[str] | None = None,
    k_max: int = 5,
    alpha: float = DEFAULT_ALPHA,
    metric: str = "euclidean",
    bootstrap: int = 1000,
    confidence: float = 0.95,
    numeric_missing: str = "median",
    space: str = "shared",
    embedding: Any = None,
    embedding_params: dict[str, Any] | None = None,
    max_queries: int | str | None = "auto",
    seed: int = 0,
) -> KnnResult:
    """k-NN privacy indicator: the DCR score with k-neighbourhood means, k = 1..k_max.

    An *indicator*, not a disclosure measure (consensus R3). For each k, SRD_k(s) is the
    mean distance from synthetic record s to its k nearest training records and RRD_k(h)
    the same for holdout record h; the score is that of :func:`dcr` (``variant=
    "distance"``). One neighbour search with k_max serves every k.

    Parameters
    ----------
    k_max
        Largest neighbourhood (at least 1, at most the number of training records).

    Other Parameters
    ----------------
    real, synthetic, threat, holdout, schema, columns, alpha, metric, bootstrap
        As :func:`dcr`; likewise ``confidence``, ``numeric_missing``, ``space``,
        ``embedding``, ``embedding_params``, ``max_queries`` and ``seed`` (without a
        holdout, the same seeded split and warning; the same query sample above
        ``max_queries``).

    Returns
    -------
    KnnResult
        ``name="knn"``; ``value`` = the largest score over k (conservative), ``by_k`` a
        table of k, value, lower, upper, ratio, share_below, threshold; ``extra`` holds
        ``alpha``, ``best_k`` and ``by_k``. Records: one row per synthetic record with
        the nearest training record and ``srd_k1`` .. ``srd_kK``.

    Notes
    -----
    ``risk-insertion-framework.md`` §4.2.3 and Appendix B (k = 1 dominates in their
    experiments).
    """
    seed = check_seed(seed)
    alpha = check_alpha(alpha)
    k_max = check_positive_int("k_max", k_max)
    check_max_queries(max_queries, 1)  # a bad value fails before any work
    check_choice("metric", metric, DCR_METRICS)
    bootstrap = check_positive_int("bootstrap", bootstrap, minimum=0)
    check_confidence(confidence)
    data, syn, cols, split_seed, boot_seed, enc, space_info = _distance_inputs(
        real,
        synthetic,
        threat=threat,
        holdout=holdout,
        schema=schema,
        columns=columns,
        metric=metric,
        numeric_missing=numeric_missing,
        seed=seed,
        measure="dcr_knn",
        space=space,
        embedding=embedding,
        embedding_params=embedding_params,
    )
    T, S = enc["real"], enc["synthetic"]
    params: dict[str, Any] = {
        "alpha": alpha,
        "k_max": k_max,
        "metric": metric,
        "columns": cols,
        "bootstrap": bootstrap,
        "bootstrap_seed": boot_seed,
        "confidence": confidence,
        "numeric_missing": numeric_missing,
        "seed": seed,
        "n_real": len(T),
        "n_synthetic": len(S),
        **space_info,
    }
    if data.holdout is not None:
        query_real, ref_real = enc["holdout"], T
        params.update(rrd_source="holdout", n_holdout=len(query_real))
    else:
        if len(T) < 4:
            raise InsufficientDataError(
                f"The real table has {len(T)} rows; splitting it for the real-to-real "
                "distances needs at least 4. Provide a holdout table."
            )
        q_pos, r_pos = _split_real(len(T), split_seed)
        query_real, ref_real = T[q_pos], T[r_pos]
        params.update(rrd_source="split", split_seed=split_seed)
        warnings.warn(
            "No holdout table: the real-to-real distances come from a seeded split of the "
            "training data, so the k-NN scores are biased upward. Provide a holdout.",
            UntrustworthyResultWarning,
            stacklevel=2,
        )
    _check_k(k_max, {"training records": len(T), "reference real records": len(ref_real)}, "k_max")
    S_q, real_q, pos_s = _sample_queries(S, query_real, max_queries, seed, params, len(T))
    d_s, i_s = _neighbors(S_q, T, k_max, metric)
    d_r, _ = _neighbors(real_q, ref_real, k_max, metric)
    ks = np.arange(1, k_max + 1)
    srd = np.cumsum(d_s, axis=1) / ks
    rrd = np.cumsum(d_r, axis=1) / ks
    table = pd.DataFrame(
        {
            "record": syn.index.to_numpy()[pos_s],
            "real_record": data.real.index.to_numpy()[i_s[:, 0]],
        }
    )
    for j, kk in enumerate(ks):
        table[f"srd_k{kk}"] = srd[:, j]
    shell = KnnResult(
        name="knn",
        value=float("nan"),
        ci=None,
        params=params,
        record_table=table,
        goal="lower",
        alpha=alpha,
        k_values=tuple(int(x) for x in ks),
        srd=srd,
        rrd=rrd,
    )
    return _knn_aggregate(shell, params)
