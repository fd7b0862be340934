"""Identical match share (IMS): the share of synthetic rows that copy a training row.

An *indicator*, not a disclosure measure (consensus R3). Rows are matched by a hash
join on their canonical form (:func:`identical_rows`), and the same share for holdout
rows is the natural baseline (real data hold duplicates too).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...data import Schema
from ...inputs import prepare_review
from ...results import MetricResult
from ...stats import wilson_interval
from ...threat import ThreatModel
from ...validation import check_confidence, check_seed
from .release import analysis_columns, single_release


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
