"""Reproduced rare combinations and reproduced individual risk: sdcMicro read for a release.

How many of the real table's *rare* key combinations the release reproduces (and
whether their sensitive values come along), or how much of the real records'
re-identification risk, compared between the training records (members) and the
holdout records (non-members) as RAPID and the attack risks do (consensus R7):

    reading = (p_members - p_non_members) / (1 - p_non_members)

0 on a release of unseen real rows, 1 on a copy of the training rows. Without a holdout
the members' share is reported alone and cannot decide. The package docstring
(:mod:`privacy_core.risk.sdc`) says why rarity is counted in the pooled real rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...data import Schema
from ...errors import InsufficientDataError, ParameterError
from ...inputs import ReviewData, prepare_review
from ...results import MetricResult
from ...stats import percentile_interval
from ...threat import ThreatModel
from ...validation import check_confidence, check_positive_int, check_seed
from ..distance import single_release
from .sdcmicro import (
    DEFAULT_K,
    METHODS,
    frequencies,
    individual_risk,
    k_anonymity_summary,
    row_keys,
)

N_BOOT = 500
NO_HOLDOUT = (
    "no holdout: what a fresh real sample would reproduce by chance is unknown, so the "
    "members' share alone cannot tell copying from chance; give real rows the generator "
    "never saw"
)


def relative_reading(p_members: Any, p_non_members: Any) -> Any:
    """(p_members - p_non_members) / (1 - p_non_members): 0 when the release reproduces
    members' rare keys no more often than non-members', 1 when it reproduces them all
    (NaN where non-members are all reproduced: nothing is left to tell them apart)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            np.asarray(p_non_members) < 1,
            (np.asarray(p_members) - p_non_members) / (1 - np.asarray(p_non_members)),
            np.nan,
        )


def _weights(frame: pd.DataFrame, column: str | None, qis: Sequence[str]) -> np.ndarray | None:
    if column is None:
        return None
    if column not in frame.columns:
        raise ParameterError(
            f"The weight column {column!r} is not in the real table; name a column of "
            "sampling weights or leave the weights out."
        )
    if column in qis:
        raise ParameterError(
            f"The weight column {column!r} is also a quasi-identifier; a sampling weight "
            "is not something an attacker knows: take it out of the quasi-identifiers."
        )
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
    if not np.all(np.isfinite(values)) or np.any(values < 1):
        raise ParameterError(
            f"The weight column {column!r} must hold sampling weights: numbers of at least "
            "1 (how many people each record stands for), none missing."
        )
    return values


def _bootstrap(
    members: np.ndarray,
    member_w: np.ndarray,
    others: np.ndarray | None,
    other_w: np.ndarray | None,
    *,
    n_boot: int,
    seed: int,
    confidence: float,
) -> tuple[float, float]:
    """Percentile interval of the reading, members and non-members resampled apart (the
    release is held fixed: the reading is conditional on it, as every measure's is)."""
    rng = np.random.default_rng(seed)

    def shares(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        # each replicate as resampling counts (O(n) memory, not n_boot x n)
        out = np.empty(n_boot)
        wx = w * x
        for b in range(n_boot):
            counts = np.bincount(rng.integers(0, len(x), len(x)), minlength=len(x))
            tot = float(counts @ w)
            out[b] = float(counts @ wx) / tot if tot > 0 else 0.0
        return out

    pm = shares(members, member_w)
    if others is None or other_w is None:
        lo, hi = percentile_interval(pm, confidence=confidence)
    else:
        lo, hi = percentile_interval(
            relative_reading(pm, shares(others, other_w)), confidence=confidence
        )
    return float(lo), float(hi)


def _reproduction(
    name: str,
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None,
    schema: Schema | None,
    k: int,
    with_sensitive: bool,
    weights: str | None,
    method: str,
    risk_weighted: bool,
    n_boot: int,
    confidence: float,
    seed: int,
) -> MetricResult:
    """The body of :func:`reproduced_uniques` and :func:`individual_risk_reproduced`:
    the pooled real records' keys and risks, the targets (the rare records, or every
    record weighted by its risk), the members' share reproduced read against the
    non-members', sdcMicro's summary of each table, and the records table."""
    seed = check_seed(seed)
    check_positive_int("k", k, minimum=2)
    check_positive_int("n_boot", n_boot)
    check_confidence(confidence)
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}; got {method!r}.")
    data = prepare_review(real, synthetic, threat=threat, holdout=holdout, schema=schema)
    syn = single_release(data, name)
    qis = list(data.threat.quasi_identifiers)
    pool = _pool(data, syn, real, holdout, weights, method, k)
    targets, weight = (
        (np.ones(len(pool.member), bool), pool.rk)
        if risk_weighted
        else (pool.rare, np.ones(len(pool.member)))
    )
    _check_targets(targets & pool.member, weight, risk_weighted, k, qis)
    hit = pool.with_value if with_sensitive else pool.reproduced
    value, ci, baseline, extra = _reading(
        targets, weight, hit, pool.member, data.holdout is not None, n_boot, seed, confidence
    )
    extra["sdc"] = _sdc_tables(pool, targets & pool.member, k, method, data.holdout is not None)
    params = {
        "k": k,
        "with_sensitive": with_sensitive,
        "weights": weights,
        "method": method,
        "quasi_identifiers": qis,
        "sensitive": list(data.threat.sensitive),
        "n_boot": n_boot,
        "confidence": confidence,
        "seed": seed,
        "n_real": len(data.real),
        "n_synthetic": len(syn),
        "n_holdout": None if data.holdout is None else len(data.holdout),
        "reading": "members against non-members" if baseline is not None else "members only",
    }
    return MetricResult(
        name=name,
        value=value,
        ci=(float(np.clip(ci[0], 0.0, 1.0)), float(np.clip(ci[1], 0.0, 1.0))),  # NaN stays
        params=params,
        record_table=_records_table(pool, targets),
        baseline=baseline,
        goal="lower",
        bounds=(0.0, 1.0),
        extra=extra,
    )


@dataclass(frozen=True)
class _Pool:
    """The pooled real records (training rows, then holdout rows) as the release sees
    them: membership, index labels, keys, frequencies, individual risks, rarity, whether
    the release reproduces each key (with and without the sensitive value), and the
    release's count and distinct sensitive values per key; the release's keys and the
    training rows' weights for sdcMicro's summary."""

    member: np.ndarray
    index: np.ndarray
    key_q: np.ndarray
    fk: np.ndarray
    Fk: np.ndarray
    rk: np.ndarray
    rare: np.ndarray
    reproduced: np.ndarray
    with_value: np.ndarray
    release_count: np.ndarray
    l_release: np.ndarray
    syn_q: np.ndarray
    w_train: np.ndarray | None


def _pool(
    data: ReviewData,
    syn: pd.DataFrame,
    real: pd.DataFrame,
    holdout: pd.DataFrame | None,
    weights: str | None,
    method: str,
    k: int,
) -> _Pool:
    """Key, frequency, risk and reproduction of every pooled real record; the weights
    come from the raw tables (the canonical form may have dropped the column)."""
    qis = list(data.threat.quasi_identifiers)
    sens = list(data.threat.sensitive)
    train, hold = data.real, data.holdout
    pool = train if hold is None else pd.concat([train, hold], ignore_index=True)
    member = np.r_[np.ones(len(train), bool), np.zeros(0 if hold is None else len(hold), bool)]
    w_train = _weights(real, weights, qis)
    w_hold = _weights(holdout, weights, qis) if (weights and holdout is not None) else None
    w_pool = None if w_train is None else np.r_[w_train, w_hold if w_hold is not None else []]

    key_q = row_keys(pool, qis)
    key_qs = row_keys(pool, qis + sens)
    syn_q, syn_qs = row_keys(syn, qis), row_keys(syn, qis + sens)
    fk, Fk = frequencies(key_q, w_pool)
    # the release's records per reproduced key, and the distinct sensitive values among
    # them (l = 1: the release pins the sensitive value of everyone with that key)
    syn_frame = pd.DataFrame({"k": syn_q, "s": syn_qs})
    release_count = pd.Series(syn_q).value_counts()
    release_l = syn_frame.groupby("k")["s"].nunique()
    index = (
        train.index.to_numpy()
        if hold is None
        else np.concatenate([train.index.to_numpy(), hold.index.to_numpy()])
    )
    return _Pool(
        member=member,
        index=index,
        key_q=key_q,
        fk=fk,
        Fk=Fk,
        rk=individual_risk(fk, Fk, method=method),
        rare=fk < k,
        reproduced=np.isin(key_q, syn_q),
        with_value=np.isin(key_qs, syn_qs),
        release_count=release_count.reindex(key_q).fillna(0).to_numpy(dtype=int),
        l_release=release_l.reindex(key_q).fillna(0).to_numpy(dtype=int),
        syn_q=syn_q,
        w_train=w_train,
    )


def _check_targets(
    mem_t: np.ndarray, weight: np.ndarray, risk_weighted: bool, k: int, qis: list[str]
) -> None:
    """A member must be a target (with a positive risk, when weighted by risk)."""
    if not mem_t.any() or (risk_weighted and weight[mem_t].sum() <= 0):
        raise InsufficientDataError(
            f"No record of the real table has a key combination shared by fewer than {k} "
            f"records on the quasi-identifiers ({', '.join(qis)}): there is no rare "
            "combination a release could reproduce. Use more quasi-identifiers or a "
            "larger k."
            if not risk_weighted
            else "Every record's individual risk is 0 on these quasi-identifiers: there is "
            "no re-identification risk for a release to reproduce."
        )


def _reading(
    targets: np.ndarray,
    weight: np.ndarray,
    hit: np.ndarray,
    member: np.ndarray,
    has_holdout: bool,
    n_boot: int,
    seed: int,
    confidence: float,
) -> tuple[float, tuple[float, float], float | None, dict[str, Any]]:
    """The clipped reading, its interval, the baseline (the non-members' share, None
    when it cannot be measured) and the shares in ``extra``."""
    mem_t, non_t = targets & member, targets & ~member

    def share(mask: np.ndarray) -> float:
        return float((weight[mask] * hit[mask]).sum() / weight[mask].sum())

    p_mem = share(mem_t)
    extra: dict[str, Any] = {"p_members": p_mem, "n_member_targets": int(mem_t.sum())}
    members = (hit[mem_t].astype(float), weight[mem_t])
    if has_holdout and non_t.any() and weight[non_t].sum() > 0:
        p_non = share(non_t)
        raw = float(relative_reading(p_mem, p_non))
        others = (hit[non_t].astype(float), weight[non_t])
        ci = _bootstrap(*members, *others, n_boot=n_boot, seed=seed, confidence=confidence)
        extra.update(p_non_members=p_non, n_non_member_targets=int(non_t.sum()))
        baseline: float | None = p_non
    else:
        raw = p_mem
        ci = _bootstrap(*members, None, None, n_boot=n_boot, seed=seed, confidence=confidence)
        extra["uninformative"] = (
            NO_HOLDOUT
            if not has_holdout
            else "no holdout record is a target here (no rare key combination among "
            "them, or all reproduced), so chance reproduction cannot be measured: give a "
            "larger holdout"
        )
        baseline = None
    value = float(np.clip(raw, 0.0, 1.0)) if math.isfinite(raw) else float("nan")
    extra["risk_unclipped"] = raw
    return value, ci, baseline, extra


def _sdc_tables(
    pool: _Pool, mem_t: np.ndarray, k: int, method: str, has_holdout: bool
) -> dict[str, Any]:
    """sdcMicro's own summary of each table (sample uniques, k-anonymity violations), the
    real table's global risk and its expected re-identifications (from the training
    rows' own frequencies, as sdcMicro reads a released microdata file), and
    l-diversity of the sensitive attribute within the reproduced rare combinations."""
    # the pooled keys are the training rows' then the holdout's: no second hashing
    n_train = int(pool.member.sum())
    train_q, hold_q = pool.key_q[:n_train], pool.key_q[n_train:]
    fk_t, Fk_t = frequencies(train_q, pool.w_train)
    rk_t = individual_risk(fk_t, Fk_t, method=method)
    pinned = mem_t & pool.reproduced & (pool.l_release == 1)
    rare_members = pool.rare & pool.member
    return {
        "k": k,
        "real": {
            **k_anonymity_summary(train_q, k),
            "global_risk": float(rk_t.mean()),
            "expected_reidentifications": float(rk_t.sum()),
        },
        "release": k_anonymity_summary(pool.syn_q, k),
        **({"holdout": k_anonymity_summary(hold_q, k)} if has_holdout else {}),
        "rare_member_keys_reproduced": int((rare_members & pool.reproduced).sum()),
        "rare_member_keys_reproduced_with_sensitive": int((rare_members & pool.with_value).sum()),
        "reproduced_with_l_1": int((pinned & pool.rare).sum()),
    }


def _records_table(pool: _Pool, targets: np.ndarray) -> pd.DataFrame:
    """One row per target: its key's frequencies, risk, rarity and reproduction."""
    table = pd.DataFrame(
        {
            "record": pool.index,
            "member": pool.member,
            "f_k": pool.fk.astype(int),
            "F_k": pool.Fk,
            "individual_risk": pool.rk,
            "rare": pool.rare,
            "reproduced": pool.reproduced,
            "reproduced_with_sensitive": pool.with_value,
            "release_count": pool.release_count,
            "l_diversity_release": pool.l_release,
        }
    )
    return table[targets].reset_index(drop=True)


def reproduced_uniques(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    k: int = DEFAULT_K,
    with_sensitive: bool = False,
    weights: str | None = None,
    method: str = "approx",
    n_boot: int = N_BOOT,
    confidence: float = 0.95,
    seed: int = 0,
) -> MetricResult:
    """Reproduced rare combinations: how many of the real table's rare key combinations
    (shared by fewer than ``k`` records on the quasi-identifiers) the release reproduces,
    beyond what a fresh real sample reproduces by chance.

    Parameters
    ----------
    real, synthetic, holdout
        Training rows, one release, and real rows the generator never saw (the
        non-members that say what chance reproduces).
    threat
        The quasi-identifiers are the key variables; the sensitive attribute is what
        ``with_sensitive`` requires to come along.
    k
        A combination shared by fewer than ``k`` of the pooled real records is rare
        (sdcMicro's k-anonymity; 3 by default).
    with_sensitive
        Count a rare record as reproduced only when a release record has its key *and*
        its sensitive value (SDNist's unique exact match on QIs and target).
    weights, method
        Sampling-weight column and ``indivRisk`` method, for the per-record individual
        risk and the real table's global risk reported beside the reading.
    n_boot, confidence, seed
        Bootstrap of the interval (members and non-members resampled apart).

    Returns
    -------
    MetricResult
        ``name="reproduced_uniques"``; ``value`` = (p_members - p_non_members) /
        (1 - p_non_members), clipped to [0, 1] (``risk_unclipped`` the estimate);
        ``baseline`` p_non_members. Records: one row per rare real record (``member``:
        training or holdout) with f_k, F_k, its individual risk, whether the release
        reproduces its key (with and without the sensitive value), how many release
        records share the key and their distinct sensitive values (l-diversity).
        ``extra["sdc"]``: sample uniques and k-anonymity violations of the real table,
        the release and the holdout; the real table's global risk.

    Notes
    -----
    Templ, Kowarik & Meindl (2015), JSS 67(4): ``freqCalc``, ``kAnon``, ``ldiversity``;
    members against non-members as consensus R7 (``consensus-privacy-framework.md``).
    """
    return _reproduction(
        "reproduced_uniques",
        real,
        synthetic,
        threat=threat,
        holdout=holdout,
        schema=schema,
        k=k,
        with_sensitive=with_sensitive,
        weights=weights,
        method=method,
        risk_weighted=False,
        n_boot=n_boot,
        confidence=confidence,
        seed=seed,
    )


def individual_risk_reproduced(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    k: int = DEFAULT_K,
    weights: str | None = None,
    method: str = "approx",
    n_boot: int = N_BOOT,
    confidence: float = 0.95,
    seed: int = 0,
) -> MetricResult:
    """Individual risk reproduced: the share of the real records' re-identification risk
    (sdcMicro's individual risk r_k, summed: the expected re-identifications) whose key
    the release reproduces, beyond a fresh real sample.

    Every pooled real record counts with its weight r_k (:func:`individual_risk`, from the
    pooled records' frequencies and, when ``weights`` names a column, their sampling
    weights), so a reproduced unique weighs far more than a reproduced common key. The
    reading is (R_members - R_non_members) / (1 - R_non_members), R the risk-weighted share
    reproduced; ``extra["sdc"]`` holds the real table's own global risk (mean r_k) and
    expected re-identifications as sdcMicro reports them for the training rows.

    Returns
    -------
    MetricResult
        ``name="individual_risk"``; records: every pooled real record with f_k, F_k, r_k
        and whether the release reproduces its key. Otherwise as
        :func:`reproduced_uniques`.

    Notes
    -----
    Templ, Kowarik & Meindl (2015), JSS 67(4), ``indivRisk`` and ``measure_risk``;
    Franconi & Polettini (2004).
    """
    return _reproduction(
        "individual_risk",
        real,
        synthetic,
        threat=threat,
        holdout=holdout,
        schema=schema,
        k=k,
        with_sensitive=False,
        weights=weights,
        method=method,
        risk_weighted=True,
        n_boot=n_boot,
        confidence=confidence,
        seed=seed,
    )


def sdc_summary(result: MetricResult) -> pd.DataFrame:
    """sdcMicro's summary of each table a reproduction result saw, one column per table
    (real, release, holdout) and one row per count: records, distinct key combinations,
    sample uniques and k-anonymity violations (the Privacy page, exports)."""
    sdc = result.extra.get("sdc") or {}
    rows = {
        "records": "records",
        "keys": "key combinations",
        "sample_uniques": "sample uniques",
        "k_anonymity_violations": f"violating {sdc.get('k', '')}-anonymity",
    }
    tables = [t for t in ("real", "release", "holdout") if t in sdc]
    return pd.DataFrame(
        {
            "count": list(rows.values()),
            **{t: [int(sdc[t][key]) for key in rows] for t in tables},
        }
    )
