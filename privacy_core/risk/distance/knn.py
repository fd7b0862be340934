"""The k-NN privacy indicator: the DCR score with k-neighbourhood means, k = 1..k_max.

An *indicator*, not a disclosure measure (consensus R3). For each k, SRD_k(s) is the mean
distance from synthetic record s to its k nearest training records and RRD_k(h) the same
for holdout record h; the score at each k is that of
:func:`~privacy_core.risk.distance.dcr` (``variant="distance"``). One neighbour search
with k_max serves every k, and :meth:`KnnResult.at` re-aggregates at another alpha.

Notes
-----
``risk-insertion-framework.md`` §4.2.3 and Appendix B (k = 1 dominates in their
experiments).
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
from ...results import MetricResult
from ...threat import ThreatModel
from ...validation import check_choice, check_confidence, check_positive_int, check_seed
from .queries import check_max_queries, sample_queries
from .space import DCR_METRICS, DistanceSetup, check_k, distance_inputs, nearest, split_real
from .summary import DEFAULT_ALPHA, check_alpha, dcr_summary, with_alpha


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
        return _knn_aggregate(self, with_alpha(self.params, alpha, confidence))


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
    setup = distance_inputs(
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
    T, S = setup.encoded["real"], setup.encoded["synthetic"]
    params: dict[str, Any] = {
        "alpha": alpha,
        "k_max": k_max,
        "metric": metric,
        "columns": setup.columns,
        "bootstrap": bootstrap,
        "bootstrap_seed": setup.boot_seed,
        "confidence": confidence,
        "numeric_missing": numeric_missing,
        "seed": seed,
        "n_real": len(T),
        "n_synthetic": len(S),
        **setup.space_info,
    }
    query_real, ref_real = _real_reference(setup, params)
    check_k(k_max, {"training records": len(T), "reference real records": len(ref_real)}, "k_max")
    S_q, real_q, pos_s = sample_queries(S, query_real, max_queries, seed, params, len(T))
    d_s, i_s = nearest(S_q, T, k_max, metric)
    d_r, _ = nearest(real_q, ref_real, k_max, metric)
    ks = np.arange(1, k_max + 1)
    srd = np.cumsum(d_s, axis=1) / ks
    rrd = np.cumsum(d_r, axis=1) / ks
    shell = KnnResult(
        name="knn",
        value=float("nan"),
        ci=None,
        params=params,
        record_table=_records_table(setup, pos_s, i_s, srd),
        goal="lower",
        alpha=alpha,
        k_values=tuple(int(x) for x in ks),
        srd=srd,
        rrd=rrd,
    )
    return _knn_aggregate(shell, params)


def _real_reference(setup: DistanceSetup, params: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The real queries and their reference: the holdout against the training rows, or
    (without one) a seeded split of the training rows, with a warning."""
    T = setup.encoded["real"]
    if setup.data.holdout is not None:
        query_real = setup.encoded["holdout"]
        params.update(rrd_source="holdout", n_holdout=len(query_real))
        return query_real, T
    q_pos, r_pos = split_real(len(T), setup.split_seed)
    params.update(rrd_source="split", split_seed=setup.split_seed)
    warnings.warn(
        "No holdout table: the real-to-real distances come from a seeded split of the "
        "training data, so the k-NN scores are biased upward. Provide a holdout.",
        UntrustworthyResultWarning,
        stacklevel=3,  # the caller of dcr_knn
    )
    return T[q_pos], T[r_pos]


def _records_table(
    setup: DistanceSetup, pos_s: np.ndarray, i_s: np.ndarray, srd: np.ndarray
) -> pd.DataFrame:
    """One row per measured synthetic record: its nearest training record and SRD_k."""
    table = pd.DataFrame(
        {
            "record": setup.synthetic.index.to_numpy()[pos_s],
            "real_record": setup.data.real.index.to_numpy()[i_s[:, 0]],
        }
    )
    for j in range(srd.shape[1]):
        table[f"srd_k{j + 1}"] = srd[:, j]
    return table
