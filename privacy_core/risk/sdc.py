"""sdcMicro's classic risk measures on the quasi-identifiers, read for a synthetic release.

A statistics office reads these first (sdcMicro, sdcApp): how many records are
*sample-unique* on the key variables (the quasi-identifiers), how many violate
*k-anonymity* (their key combination occurs fewer than k times), each record's
*individual risk* of re-identification, and the *l-diversity* of the sensitive attribute
within each key combination. Definitions follow Templ, Kowarik & Meindl, "Statistical
Disclosure Control for Micro-Data Using the R Package sdcMicro", Journal of Statistical
Software 67(4), 2015 (functions ``freqCalc``, ``indivRisk``, ``kAnon``, ``ldiversity``):

- f_k: how many records of the sample share record i's key k (its combination of QIs);
- F_k: the estimated population frequency, the sum of the sampling weights of those
  records (without weights the sample is its own population: F_k = f_k);
- individual risk r_k (Benedetti & Franconi; :func:`individual_risk`), with p_k = f_k/F_k:
  f_k = 1: p/(1-p)·log(1/p); f_k = 2: p/(1-p) - (p/(1-p))²·log(1/p); f_k > 2 ("approx"):
  p/(f_k - (1-p)); and 1/f_k wherever F_k = f_k;
- distinct l-diversity: the number of distinct sensitive values among the records of a key.

For synthetic data the matching question (SDNist's "unique exact matches") is how many of
the real table's *rare* key combinations the release reproduces, and whether their
sensitive values come along. A fresh real sample reproduces some rare combinations by
chance, so the reading compares the training records (members) with the holdout records
(non-members), as RAPID and the attack risks do (consensus R7): rarity is counted in the
pooled real rows, where a record's membership is a coin flip independent of its key, so
an unseen release reproduces members' and non-members' rare keys equally often:

    reading = (p_members - p_non_members) / (1 - p_non_members)

0 on a release of unseen real rows, 1 on a copy of the training rows, f_l in between for a
release that copies a share f_l (the calibration contract). ``reproduced_uniques`` counts
the rare records; ``individual_risk`` weighs every record by its r_k, so it reads the
share of the real data's re-identification risk (sdcMicro's expected re-identifications)
that the release reproduces beyond chance. Without a holdout the members' share is
reported alone and cannot decide (what chance reproduces is unknown).

Keys are compared exactly, in canonical form (numbers as they are): sdcMicro expects
categorical keys, and a continuous quasi-identifier makes nearly every record unique.
Recode it (age in years or bands) before the review to read it the way sdcMicro would.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..data import Schema
from ..errors import InsufficientDataError, ParameterError
from ..inputs import prepare_review
from ..results import MetricResult
from ..stats import percentile_interval
from ..threat import ThreatModel
from ..validation import check_confidence, check_positive_int, check_seed
from .distance import single_release

METHODS = ("approx", "exact")
EXACT_MAX_F = 20  # the exact series is numerically stable up to here (float64)
DEFAULT_K = 3  # sdcMicro's kAnon default: a key shared by fewer than 3 records is rare
N_BOOT = 500
NO_HOLDOUT = (
    "no holdout: what a fresh real sample would reproduce by chance is unknown, so the "
    "members' share alone cannot tell copying from chance; give real rows the generator "
    "never saw"
)


# ============================================================================ sdcMicro
def row_keys(frame: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """One 64-bit key per row for its values in ``columns`` (equal rows, equal keys;
    missing equals missing), comparable across tables in the same canonical form."""
    if not len(columns):
        raise ParameterError("Key variables: name at least one quasi-identifier.")
    return pd.util.hash_pandas_object(frame[list(columns)], index=False).to_numpy()


def frequencies(
    keys: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """sdcMicro's ``freqCalc``: per record, f_k (records sharing its key) and F_k (the sum
    of their sampling weights; f_k itself without weights)."""
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    fk = counts[inverse].astype(float)
    if weights is None:
        return fk, fk.copy()
    w = np.asarray(weights, dtype=float)
    if w.shape != fk.shape or not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ParameterError(
            "Sampling weights must be one positive, finite number per record (a record's "
            "weight is how many people of the population it stands for)."
        )
    return fk, np.bincount(inverse, weights=w)[inverse]


def individual_risk(
    fk: np.ndarray, Fk: np.ndarray, *, method: str = "approx", qual: float = 1.0
) -> np.ndarray:
    """sdcMicro's ``indivRisk`` (survey data): each record's re-identification risk.

    With p_k = f_k / F_k: for f_k = 1, p/(1-p)·log(1/p); for f_k = 2,
    p/(1-p) - (p/(1-p))²·log(1/p); for f_k > 2 the approximation p/(f_k - (1-p)) or, with
    ``method="exact"``, Benedetti & Franconi's series; 1/f_k wherever F_k = f_k (the
    sample is the population there); everything times the correction ``qual``.

    References: Templ, Kowarik & Meindl (2015), JSS 67(4), §3.2; Franconi & Polettini
    (2004), "Individual risk estimation in mu-Argus: a review", PSD 2004, LNCS 3050.
    """
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}; got {method!r}.")
    fk = np.asarray(fk, dtype=float)
    Fk = np.asarray(Fk, dtype=float)
    if np.any(Fk < fk - 1e-9 * np.maximum(fk, 1)):
        raise ParameterError(
            "A key's estimated population frequency F_k is below its sample frequency f_k: "
            "sampling weights must be at least 1."
        )
    rk = np.zeros_like(fk)
    same = np.isclose(fk, Fk)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = fk / Fk
        odds = p / (1 - p)
        log_inv = np.log(1 / p)
        one = (fk == 1) & ~same
        two = (fk == 2) & ~same
        more = (fk > 2) & ~same
        rk[one] = odds[one] * log_inv[one]
        rk[two] = odds[two] - odds[two] ** 2 * log_inv[two]
        rk[more] = p[more] / (fk[more] - (1 - p[more]))
        if method == "exact":
            # the series cancels catastrophically for large f (and p**(1-f) overflows):
            # it is used up to EXACT_MAX_F, once per distinct (f, p); the approximation,
            # which it approaches, above
            small = more & (fk <= EXACT_MAX_F)
            cache: dict[tuple[float, float], float] = {}
            for i in np.flatnonzero(small):
                key = (float(fk[i]), float(p[i]))
                if key not in cache:
                    cache[key] = _exact_risk(int(fk[i]), float(p[i]))
                rk[i] = cache[key]
    rk[same] = 1 / fk[same]
    # a probability: the formulas stay in [0, 1] where they are stable
    return np.clip(rk, 0.0, 1.0) * qual


def _exact_risk(f: int, p: float) -> float:
    """Benedetti & Franconi's exact risk for f > 2 (sdcMicro's ``method = "exact"``)."""
    a = (p ** (1 - f) - 1) / (f - 1)

    def b(i: int) -> float:
        return (
            (f - 1 - i) ** 2
            / ((i + 1) * (f - 2 - i))
            * (p ** (i + 2 - f) - 1)
            / (p ** (i + 1 - f) - 1)
        )

    bb = 0.0
    for m in range(f - 2):
        prod = 1.0
        for m2 in range(m + 1):
            prod *= b(m2)
        bb += (-1) ** (m + 1) * prod
    return (p / (1 - p)) ** f * (a * (1 + bb) + (-1) ** f * math.log(p))


def distinct_l_diversity(keys: np.ndarray, sensitive: np.ndarray) -> np.ndarray:
    """sdcMicro's ``ldiversity`` (distinct): per record, how many distinct sensitive
    values the records sharing its key hold."""
    frame = pd.DataFrame({"k": keys, "s": sensitive})
    return frame.groupby("k")["s"].transform("nunique").to_numpy()


def k_anonymity_summary(keys: np.ndarray, k: int) -> dict[str, int]:
    """Sample uniques (f_k = 1) and records violating k-anonymity (f_k < k) of a table."""
    fk, _ = frequencies(keys)
    return {
        "records": int(len(keys)),
        "sample_uniques": int((fk == 1).sum()),
        "k_anonymity_violations": int((fk < k).sum()),
        "keys": int(len(np.unique(keys))),
    }


# ============================================================================ the measures
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
    seed = check_seed(seed)
    check_positive_int("k", k, minimum=2)
    check_positive_int("n_boot", n_boot)
    check_confidence(confidence)
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}; got {method!r}.")
    data = prepare_review(real, synthetic, threat=threat, holdout=holdout, schema=schema)
    syn = single_release(data, name)
    qis = list(data.threat.quasi_identifiers)
    sens = list(data.threat.sensitive)
    train, hold = data.real, data.holdout
    pool = train if hold is None else pd.concat([train, hold], ignore_index=True)
    member = np.r_[np.ones(len(train), bool), np.zeros(0 if hold is None else len(hold), bool)]
    # the raw tables carry the weights (the canonical form may have dropped the column)
    w_train = _weights(real, weights, qis)
    w_hold = _weights(holdout, weights, qis) if (weights and holdout is not None) else None
    w_pool = None if w_train is None else np.r_[w_train, w_hold if w_hold is not None else []]

    key_q = row_keys(pool, qis)
    key_qs = row_keys(pool, qis + sens)
    syn_q, syn_qs = row_keys(syn, qis), row_keys(syn, qis + sens)
    fk, Fk = frequencies(key_q, w_pool)
    rk = individual_risk(fk, Fk, method=method)
    rare = fk < k
    reproduced = np.isin(key_q, syn_q)
    with_value = np.isin(key_qs, syn_qs)
    hit = with_value if with_sensitive else reproduced
    # the release's records per reproduced key, and the distinct sensitive values among
    # them (l = 1: the release pins the sensitive value of everyone with that key)
    syn_frame = pd.DataFrame({"k": syn_q, "s": syn_qs})
    release_count = pd.Series(syn_q).value_counts()
    release_l = syn_frame.groupby("k")["s"].nunique()
    count = release_count.reindex(key_q).fillna(0).to_numpy(dtype=int)
    l_release = release_l.reindex(key_q).fillna(0).to_numpy(dtype=int)

    if risk_weighted:
        targets = np.ones(len(pool), bool)
        weight = rk
    else:
        targets = rare
        weight = np.ones(len(pool))
    mem_t, non_t = targets & member, targets & ~member
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

    def share(mask: np.ndarray) -> float:
        return float((weight[mask] * hit[mask]).sum() / weight[mask].sum())

    p_mem = share(mem_t)
    extra: dict[str, Any] = {"p_members": p_mem, "n_member_targets": int(mem_t.sum())}
    if hold is not None and non_t.any() and weight[non_t].sum() > 0:
        p_non = share(non_t)
        raw = float(relative_reading(p_mem, p_non))
        ci = _bootstrap(
            hit[mem_t].astype(float),
            weight[mem_t],
            hit[non_t].astype(float),
            weight[non_t],
            n_boot=n_boot,
            seed=seed,
            confidence=confidence,
        )
        extra.update(p_non_members=p_non, n_non_member_targets=int(non_t.sum()))
        baseline: float | None = p_non
    else:
        raw = p_mem
        ci = _bootstrap(
            hit[mem_t].astype(float),
            weight[mem_t],
            None,
            None,
            n_boot=n_boot,
            seed=seed,
            confidence=confidence,
        )
        extra["uninformative"] = (
            NO_HOLDOUT
            if hold is None
            else "no holdout record is a target here (no rare key combination among "
            "them, or all reproduced), so chance reproduction cannot be measured: give a "
            "larger holdout"
        )
        baseline = None
    value = float(np.clip(raw, 0.0, 1.0)) if math.isfinite(raw) else float("nan")
    extra["risk_unclipped"] = raw
    # sdcMicro's own summary of each table (sample uniques, k-anonymity violations), the
    # real table's global risk and its expected re-identifications (from the training
    # rows' own frequencies, as sdcMicro reads a released microdata file), and l-diversity
    # of the sensitive attribute within the reproduced rare combinations
    # the pooled keys are the training rows' then the holdout's: no second hashing
    train_q, hold_q = key_q[: len(train)], key_q[len(train) :]
    fk_t, Fk_t = frequencies(train_q, w_train)
    rk_t = individual_risk(fk_t, Fk_t, method=method)
    pinned = mem_t & reproduced & (l_release == 1)
    extra["sdc"] = {
        "k": k,
        "real": {
            **k_anonymity_summary(train_q, k),
            "global_risk": float(rk_t.mean()),
            "expected_reidentifications": float(rk_t.sum()),
        },
        "release": k_anonymity_summary(syn_q, k),
        **({"holdout": k_anonymity_summary(hold_q, k)} if hold is not None else {}),
        "rare_member_keys_reproduced": int((rare & member & reproduced).sum()),
        "rare_member_keys_reproduced_with_sensitive": int((rare & member & with_value).sum()),
        "reproduced_with_l_1": int((pinned & rare).sum()),
    }
    index = (
        train.index.to_numpy()
        if hold is None
        else np.concatenate([train.index.to_numpy(), hold.index.to_numpy()])
    )
    table = pd.DataFrame(
        {
            "record": index,
            "member": member,
            "f_k": fk.astype(int),
            "F_k": Fk,
            "individual_risk": rk,
            "rare": rare,
            "reproduced": reproduced,
            "reproduced_with_sensitive": with_value,
            "release_count": count,
            "l_diversity_release": l_release,
        }
    )
    table = table[targets].reset_index(drop=True)
    params = {
        "k": k,
        "with_sensitive": with_sensitive,
        "weights": weights,
        "method": method,
        "quasi_identifiers": qis,
        "sensitive": sens,
        "n_boot": n_boot,
        "confidence": confidence,
        "seed": seed,
        "n_real": len(train),
        "n_synthetic": len(syn),
        "n_holdout": None if hold is None else len(hold),
        "reading": "members against non-members" if baseline is not None else "members only",
    }
    return MetricResult(
        name=name,
        value=value,
        ci=(float(np.clip(ci[0], 0.0, 1.0)), float(np.clip(ci[1], 0.0, 1.0))),  # NaN stays
        params=params,
        record_table=table,
        baseline=baseline,
        goal="lower",
        bounds=(0.0, 1.0),
        extra=extra,
    )


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


__all__ = [
    "DEFAULT_K",
    "METHODS",
    "distinct_l_diversity",
    "frequencies",
    "individual_risk",
    "individual_risk_reproduced",
    "k_anonymity_summary",
    "reproduced_uniques",
    "row_keys",
    "sdc_summary",
]
