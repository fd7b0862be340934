"""Follow one real record across every measure: per-record flags, agreement, neighbours.

Each measure keeps its per-record table in its own terms (a synthetic row that copies a
real one, a training target an attack got right, a member a membership attack picked).
This module maps them onto one question — *is this real training record flagged?* — so
the app can list the records flagged by most measures, show how the measures agree,
and put a record next to its nearest synthetic rows.

Mapping (a real training record is flagged when ...):

* ``rapid``: it is at risk (strongest attacker, current threshold);
* ``ims``: a synthetic row is identical to it;
* ``dcr`` / ``knn``: it is the nearest training record of a synthetic row closer than the
  alpha-percentile of real-to-real distances;
* ``singling_out``, ``linkability``: the attack succeeded on it as a training target;
* ``inference``, ``ml_inference``: the attack succeeded on it as a training target *beyond
  the base rate* (risk-insertion framework §5.3.3): a correct guess that non-members get
  just as often comes from the population's patterns, not from this record. Distance
  inference counts a hit only when the guessing synthetic row is closer to the record
  than the nearest synthetic row is to 95 % of the control (non-member) targets; ML
  inference only when the guess is one that is wrong for most non-members it is made for
  (categorical) or the error is below the 5th percentile of the non-members' errors
  (continuous). Without control targets every hit counts.
* ``membership``: it is a member predicted to be a member (only when the attack beats
  the naive guesser, F_rel > 0: otherwise it calls nearly everyone a member);
* ``domias``: it is a member whose density-ratio score exceeds the 95th percentile of the
  non-members' scores;
* ``reproduced_uniques``, ``individual_risk``: its key combination is rare and the
  release reproduces it (with the sensitive value, in that mode);
* ``sample_uniques``, ``k_anonymity``, ``l_diversity``: the measure counts it as
  disclosed (its records table's ``hit``: a sample unique reproduced, a k-anonymity
  violation the release singles out, a value the release's key group pins down).

GTCAP attributes risk to synthetic key groups, not to real records, and is left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..data import Schema
from ..encoding import TableEncoder
from ..errors import ParameterError
from ..results import MetricResult
from .neighbors import nearest_neighbors

_ATTACKS = ("singling_out", "singling_out_outliers", "linkability", "inference", "ml_inference")
# sdcMicro's classics whose records table says which targets the release discloses
_SDC_HITS = ("sample_uniques", "k_anonymity", "l_diversity")


def _flagged_records(name: str, result: MetricResult) -> np.ndarray | None:
    rec = result.records
    if rec is None or len(rec) == 0:
        return None
    if name == "rapid":
        return rec.loc[rec["at_risk"], "record"].to_numpy()
    if name == "ims":
        return rec.loc[rec["match"] & (rec["real_record"] >= 0), "real_record"].to_numpy()
    if name == "dcr" and "at_risk" in rec:
        return rec.loc[rec["at_risk"], "real_record"].to_numpy()
    if name in _ATTACKS:
        hit = rec["success"].astype(bool) & (rec["role"] == "training")
        control = rec[rec["role"] == "control"]
        if name in ("inference", "ml_inference") and len(control):
            hit &= _beyond_base_rate(name, rec, control)
        return rec.loc[hit, "record"].to_numpy()
    if name == "membership":
        if not result.value > 0:  # the attack does not beat a naive guesser: no signal
            return None
        return rec.loc[
            rec["member"].astype(bool) & rec["predicted_member"].astype(bool), "record"
        ].to_numpy()
    if name == "mds":  # a confident disclosure beyond what the noise floor reaches
        if "flagged" not in rec:
            return None
        return rec.loc[rec["flagged"].astype(bool), "record"].to_numpy()
    if name in ("reproduced_uniques", "individual_risk"):
        # training records whose rare key combination the release reproduces (with the
        # sensitive value too in that mode)
        col = "reproduced_with_sensitive" if result.params.get("with_sensitive") else "reproduced"
        hit = rec["member"].astype(bool) & rec["rare"].astype(bool) & rec[col].astype(bool)
        return rec.loc[hit, "record"].to_numpy()
    if name in _SDC_HITS:
        return rec.loc[rec["member"].astype(bool) & rec["hit"].astype(bool), "record"].to_numpy()
    if name == "domias":
        members = rec["member"].astype(bool)
        cut = np.nanpercentile(rec.loc[~members, "score"], 95) if (~members).any() else np.inf
        return rec.loc[members & (rec["score"] > cut), "record"].to_numpy()
    return None


def _beyond_base_rate(name: str, rec: pd.DataFrame, control: pd.DataFrame) -> pd.Series:
    """Which guesses are not explained by what the release teaches about anyone."""
    if name == "inference" and "distance" in rec:
        cut = float(np.nanpercentile(control["distance"].to_numpy(dtype=float), 5))
        return rec["distance"].astype(float) < cut
    if "error" in rec:  # continuous ML inference
        cut = float(np.nanpercentile(np.abs(control["error"].to_numpy(dtype=float)), 5))
        return rec["error"].astype(float).abs() < cut
    # categorical: the share of non-members for whom this guess was right
    right = control.groupby(control["guess"].astype(str))["success"].mean()
    share = rec["guess"].astype(str).map(right).fillna(0.0)
    return share < 0.5


def record_flags(results: Mapping[str, MetricResult], real_index: Sequence) -> pd.DataFrame:
    """One row per real training record, one boolean column per measure that flags
    records, plus ``n_flags``; sorted by ``n_flags`` (most flagged first)."""
    index = pd.Index(real_index)
    out = pd.DataFrame(index=index)
    for name, result in results.items():
        flagged = _flagged_records(name, result)
        if flagged is None:
            continue
        out[name] = index.isin(pd.unique(flagged))
    out["n_flags"] = out.sum(axis=1).astype(int) if len(out.columns) else 0
    out.index.name = "record"
    return out.sort_values("n_flags", ascending=False, kind="stable")


def flag_agreement(flags: pd.DataFrame) -> pd.DataFrame:
    """Pairwise agreement of measures' per-record flags (phi coefficient, i.e. Pearson
    correlation of the 0/1 flags); NaN where a measure flags all or no records
    (:func:`flag_agreement_reasons` says which)."""
    cols = [c for c in flags.columns if c != "n_flags"]
    x = flags[cols].astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return x.corr()


def _constant_flag(flags: pd.DataFrame, column: str) -> str | None:
    """``"flags no record"`` / ``"flags every record"`` when the column does not vary."""
    values = flags[column].astype(bool)
    if len(values) == 0 or not values.any():
        return "flags no record"
    if values.all():
        return "flags every record"
    return None


def flag_agreement_reasons(flags: pd.DataFrame) -> pd.DataFrame:
    """Why each undefined cell of :func:`flag_agreement` is undefined ("" where defined).

    The phi coefficient divides by the spread of both measures' flags: when a measure
    flags no record (or every record) its flags do not vary and no agreement with it can
    be measured, e.g. "linkability flags no record, so agreement is undefined".
    """
    cols = [c for c in flags.columns if c != "n_flags"]
    constant = {c: _constant_flag(flags, c) for c in cols}
    out = pd.DataFrame("", index=cols, columns=cols, dtype=object)
    for a in cols:
        for b in cols:
            parts = [f"{c} {constant[c]}" for c in dict.fromkeys((a, b)) if constant[c]]
            if parts:
                out.loc[a, b] = " and ".join(parts) + ", so agreement is undefined"
    return out


#: The default shortlist: records that at least this many measures flag.
SHORTLIST_MIN_FLAGS = 2


def flag_shortlist(flags: pd.DataFrame, *, min_flags: int = SHORTLIST_MIN_FLAGS) -> pd.DataFrame:
    """The records flagged by at least ``min_flags`` measures, most flagged first.

    One measure's flag alone is common (each measure has its own false positives, and
    attribute-inference measures flag many records on strongly dependent data); records
    that several measures point at independently are the few to look at first.
    """
    if min_flags < 1:
        raise ParameterError(f"`min_flags` must be at least 1; got {min_flags!r}.")
    part = flags[flags["n_flags"] >= min_flags]
    return part.sort_values("n_flags", ascending=False, kind="stable")


def nearest_synthetic_records(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    record: object,
    *,
    schema: Schema,
    columns: Sequence[str] | None = None,
    k: int = 5,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The k synthetic rows nearest to one real record (shared encoder, Euclidean).

    Returns the table (the real record first, then its neighbours with their distance
    and synthetic row index) and a same-shaped boolean table marking the cells that
    differ from the real record.
    """
    if record not in real.index:
        raise ParameterError(f"Record {record!r} is not in the real table.")
    cols = list(columns or schema.included)
    encoder = TableEncoder(schema, columns=cols).fit(real)
    query = encoder.transform(real.loc[[record]])
    dist, idx = nearest_neighbors(query, encoder.transform(synthetic), k=min(k, len(synthetic)))
    neighbours = synthetic.iloc[idx[0]][cols]
    table = pd.concat([real.loc[[record], cols], neighbours], ignore_index=True)
    table.insert(0, "row", ["real"] + [f"synthetic #{i}" for i in synthetic.index[idx[0]]])
    table.insert(1, "distance", np.concatenate([[0.0], dist[0]]))
    real_values = real.loc[record, cols]
    differs = pd.DataFrame(False, index=table.index, columns=table.columns)
    for c in cols:
        a = table[c].iloc[1:]
        b = real_values[c]
        if pd.api.types.is_numeric_dtype(table[c].dtype):
            diff = ~np.isclose(a.astype(float), float(b), equal_nan=True)
        else:
            diff = a.astype(str) != str(b)
        differs.loc[1:, c] = np.asarray(diff)
    return table, differs
