"""The pooled real records as a release sees them, and what each sdcMicro measure counts.

:func:`pool_records` hashes the training and holdout rows (pooled, training first) on
their key (the quasi-identifiers) and on key plus sensitive values, counts sdcMicro's
frequencies, individual risks and distinct l-diversity among them, and looks each key up
in the release: reproduced, with the record's sensitive value, on how many release
records, among how many distinct sensitive values. :data:`SDC_MEASURES` holds each
measure's rule over that pool: which records are its targets, their weights, and which
the release discloses (its hits). :func:`privacy_core.risk.sdc.reproduction.sdc_reading`
reads a rule members against non-members.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...errors import ParameterError
from ...inputs import ReviewData
from ...sampling_weights import check_weight_column
from .sdcmicro import distinct_l_diversity, frequencies, individual_risk, row_keys


def _weights(
    frame: pd.DataFrame, column: str | None, qis: Sequence[str], table: str = "real"
) -> np.ndarray | None:
    """The checked sampling weights of ``frame`` (the one check the threat model, the
    review's inputs and the command line share), or None without a weight column."""
    if column is None:
        return None
    return check_weight_column(
        frame, column, quasi_identifiers=qis, table=table, error=ParameterError
    )


@dataclass(frozen=True)
class RecordPool:
    """The pooled real records (training rows, then holdout rows) as the release sees
    them: membership, index labels, keys (on the quasi-identifiers, and with the
    sensitive values), frequencies, individual risks, rarity, distinct l-diversity in the
    pooled real rows, whether the release reproduces each key (with and without the
    sensitive value), and the release's count and distinct sensitive values per key; the
    release's keys and the training rows' weights for sdcMicro's summary."""

    member: np.ndarray
    index: np.ndarray
    key_q: np.ndarray
    key_qs: np.ndarray
    fk: np.ndarray
    Fk: np.ndarray
    rk: np.ndarray
    rare: np.ndarray
    l_real: np.ndarray
    reproduced: np.ndarray
    with_value: np.ndarray
    release_count: np.ndarray
    l_release: np.ndarray
    syn_q: np.ndarray
    syn_qs: np.ndarray
    w_train: np.ndarray | None


def pool_records(
    data: ReviewData,
    syn: pd.DataFrame,
    real: pd.DataFrame,
    holdout: pd.DataFrame | None,
    weights: str | None,
    method: str,
    k: int,
) -> RecordPool:
    """Key, frequency, risk and reproduction of every pooled real record.

    Parameters
    ----------
    data
        The review's canonical tables (training rows, holdout rows, threat model).
    syn
        The one release, in canonical form.
    real, holdout
        The raw tables the sampling weights are read from (the canonical form may have
        dropped the weight column).
    weights
        The sampling-weight column, or None (F_k = f_k).
    method
        sdcMicro's ``indivRisk`` method for the per-record risk.
    k
        A key shared by fewer than ``k`` pooled records is rare.

    Returns
    -------
    RecordPool
        One entry per pooled record, training rows first.
    """
    qis = list(data.threat.quasi_identifiers)
    sens = list(data.threat.sensitive)
    train, hold = data.real, data.holdout
    pool = train if hold is None else pd.concat([train, hold], ignore_index=True)
    member = np.r_[np.ones(len(train), bool), np.zeros(0 if hold is None else len(hold), bool)]
    w_train = _weights(real, weights, qis)
    w_hold = (
        _weights(holdout, weights, qis, table="holdout")
        if (weights and holdout is not None)
        else None
    )
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
    return RecordPool(
        member=member,
        index=index,
        key_q=key_q,
        key_qs=key_qs,
        fk=fk,
        Fk=Fk,
        rk=individual_risk(fk, Fk, method=method),
        rare=fk < k,
        # the (key, sensitive) hash stands for the sensitive values within a key
        l_real=distinct_l_diversity(key_q, key_qs),
        reproduced=np.isin(key_q, syn_q),
        with_value=np.isin(key_qs, syn_qs),
        release_count=release_count.reindex(key_q).fillna(0).to_numpy(dtype=int),
        l_release=release_l.reindex(key_q).fillna(0).to_numpy(dtype=int),
        syn_q=syn_q,
        syn_qs=syn_qs,
        w_train=w_train,
    )


# ----------------------------------------------------------------- the measures' rules
# Each rule returns, per pooled real record: whether it is a target, its weight among
# the targets, and whether the release discloses it (a hit).
Selection = tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class SdcOptions:
    """The options a rule reads: sdcMicro's k and l, the ``with_sensitive`` mode, and the
    threat model's quasi-identifiers and sensitive attributes (for its messages)."""

    k: int
    l: int  # noqa: E741 (sdcMicro's and the papers' name)
    with_sensitive: bool
    quasi_identifiers: tuple[str, ...]
    sensitive: tuple[str, ...]


def _rare_reproduced(pool: RecordPool, opts: SdcOptions) -> Selection:
    """reproduced_uniques: the rare records (f_k < k), hit when the release has their key
    (and their sensitive value, ``with_sensitive``)."""
    hit = pool.with_value if opts.with_sensitive else pool.reproduced
    return pool.rare, np.ones(len(pool.member)), hit


def _risk_reproduced(pool: RecordPool, opts: SdcOptions) -> Selection:
    """individual_risk: every record weighted by its r_k, hit when its key is reproduced."""
    return np.ones(len(pool.member), bool), pool.rk, pool.reproduced


def _uniques_reproduced(pool: RecordPool, opts: SdcOptions) -> Selection:
    """sample_uniques: the sample uniques (f_k = 1), hit when their key is reproduced."""
    return pool.fk == 1, np.ones(len(pool.member)), pool.reproduced


def _singled_out(pool: RecordPool, opts: SdcOptions) -> Selection:
    """k_anonymity: the records violating k-anonymity (f_k < k), hit when the release
    has their key on fewer than k of its own records (it violates k-anonymity there too)."""
    hit = pool.reproduced & (pool.release_count < opts.k)
    return pool.rare, np.ones(len(pool.member)), hit


def _value_pinned(pool: RecordPool, opts: SdcOptions) -> Selection:
    """l_diversity: the records whose key holds fewer than l distinct sensitive values in
    the pooled real rows, hit when the release's records with that key hold the record's
    own value among fewer than l distinct ones (with l = 2: that value and no other)."""
    hit = pool.with_value & (pool.l_release < opts.l)
    return pool.l_real < opts.l, np.ones(len(pool.member)), hit


def _no_rare(opts: SdcOptions) -> str:
    return (
        f"No record of the real table has a key combination shared by fewer than {opts.k} "
        f"records on the quasi-identifiers ({', '.join(opts.quasi_identifiers)}): every "
        f"record is {opts.k}-anonymous, so there is no rare combination a release could "
        "reproduce. Use more quasi-identifiers or a larger k."
    )


def _no_risk(opts: SdcOptions) -> str:
    return (
        "Every record's individual risk is 0 on these quasi-identifiers: there is no "
        "re-identification risk for a release to reproduce."
    )


def _no_unique(opts: SdcOptions) -> str:
    return (
        "No record of the real table is a sample unique on the quasi-identifiers "
        f"({', '.join(opts.quasi_identifiers)}): every key combination is shared by at "
        "least two records, so "
        "there is no unique a release could reproduce. Use more quasi-identifiers, or read "
        "k_anonymity (rare combinations) instead."
    )


def _no_homogeneous(opts: SdcOptions) -> str:
    return (
        "Every key combination of the real table on the quasi-identifiers "
        f"({', '.join(opts.quasi_identifiers)}) holds at least {opts.l} distinct values "
        f"of {', '.join(opts.sensitive)}: "
        "the table is l-diverse, so no group's sensitive value could be disclosed by a "
        "release. Use more quasi-identifiers or a larger l."
    )


@dataclass(frozen=True)
class SdcMeasure:
    """One sdcMicro measure read for a release: the options its ``params`` record, its
    rule (targets, their weights, hits) and what it says when no member is a target."""

    options: tuple[str, ...]
    select: Callable[[RecordPool, SdcOptions], Selection]
    no_target: Callable[[SdcOptions], str]


SDC_MEASURES: dict[str, SdcMeasure] = {
    "reproduced_uniques": SdcMeasure(
        ("k", "with_sensitive", "weights", "method"), _rare_reproduced, _no_rare
    ),
    "individual_risk": SdcMeasure(
        ("k", "with_sensitive", "weights", "method"), _risk_reproduced, _no_risk
    ),
    "sample_uniques": SdcMeasure((), _uniques_reproduced, _no_unique),
    "k_anonymity": SdcMeasure(("k",), _singled_out, _no_rare),
    "l_diversity": SdcMeasure(("l",), _value_pinned, _no_homogeneous),
}
