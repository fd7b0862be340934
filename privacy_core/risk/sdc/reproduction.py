"""The body shared by sdcMicro's measures read for a release, and the first two of them.

Every one of them (:func:`reproduced_uniques`, :func:`individual_risk_reproduced` here;
``sample_uniques``, ``k_anonymity``, ``l_diversity`` in :mod:`.classics`) pools the real
records (training rows, then holdout rows), picks its *targets* among them (the rare
records, the sample uniques, every record weighted by its risk, ...) and the *hits* (the
targets the release discloses: their key reproduced, with their sensitive value, in a
group of the release that singles them out or pins their value), and compares the
training records (members) with the holdout records (non-members) as RAPID and the
attack risks do (consensus R7):

    reading = (p_members - p_non_members) / (1 - p_non_members)

0 on a release of unseen real rows, 1 on a copy of the training rows. Without a holdout
the members' share is reported alone and cannot decide. The package docstring
(:mod:`privacy_core.risk.sdc`) says why the targets are counted in the pooled real rows.
:func:`sdc_reading` is that body; each measure is a rule in :data:`SDC_MEASURES`
(:mod:`.pool`, with the pooled records the rules read).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...data import Schema
from ...errors import InsufficientDataError, ParameterError
from ...inputs import prepare_review
from ...results import MetricResult
from ...stats import percentile_interval
from ...threat import ThreatModel
from ...validation import check_confidence, check_positive_int, check_seed
from ..distance import single_release
from .pool import SDC_MEASURES, RecordPool, SdcOptions, pool_records
from .sdcmicro import (
    DEFAULT_K,
    DEFAULT_L,
    METHODS,
    distinct_l_diversity,
    frequencies,
    individual_risk,
    k_anonymity_summary,
)

N_BOOT = 500
# fewer key groups than this on a side of a reading: that side's share is drawn from its
# Jeffreys posterior, not resampled (see _bootstrap)
MIN_GROUPS = 30
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


Targets = tuple[np.ndarray, np.ndarray, np.ndarray]  # hits, weights, key groups


def drawn_from_posterior(n_groups: float, share: float) -> bool:
    """Whether a side of a reading, ``n_groups`` key groups (effective number) disclosed
    at ``share``, is too small or too unanimous for resampling to show its uncertainty:
    fewer than :data:`MIN_GROUPS` groups, or every group disclosed or none (see
    :func:`_bootstrap`)."""
    return n_groups > 0 and (n_groups < MIN_GROUPS or share in (0.0, 1.0))


def _bootstrap(
    members: Targets,
    others: Targets | None,
    *,
    n_boot: int,
    seed: int,
    confidence: float,
) -> tuple[float, float]:
    """Percentile interval of the reading, members and non-members resampled apart (the
    release is held fixed: the reading is conditional on it, as every measure's is).

    Each side resamples its key groups, not its records: a hit is a function of the key
    (and the sensitive value), so the records of one key group stand or fall together,
    and a large group (a homogeneous key group of l-diversity, a common key of the
    individual risk) counts as one draw, not as many independent ones. Where every group
    is one record the draws are the records' own, in their order.

    A side resting on few key groups, or whose groups all agree (every one disclosed, or
    none), cannot show its own uncertainty by resampling: three non-member targets, none
    disclosed, give a share of 0 in every replicate, and the reading's interval collapses
    onto the members' alone (s36's H1; on 1,600 health records with three QIs, a release
    of unseen rows read (0.25, 0.46) when none of a 100-row holdout's six targets was
    reproduced). Such a side's replicates are drawn from the Jeffreys posterior of its
    share instead, Beta(h + 1/2, n - h + 1/2) over its n key groups (Kish's effective
    number when groups weigh differently) of which h are disclosed; Brown, Cai and
    DasGupta (Statistical Science 2001) recommend the Jeffreys interval for a binomial
    share at small n (at 0 and n with the bound set to the share itself, which
    :func:`_reading` does by keeping the reading inside its interval). The other side's
    resampling, and a reading whose sides both rest on :data:`MIN_GROUPS` or more mixed
    groups, are unchanged."""
    rng = np.random.default_rng(seed)
    # a stream of its own, so the group resampling draws what it drew before
    rng_small = np.random.default_rng([seed, 1])

    def shares(x: np.ndarray, w: np.ndarray, key: np.ndarray) -> np.ndarray:
        # groups in order of first appearance; each replicate as resampling counts of
        # the groups (O(groups) memory, not n_boot x n)
        group, _ = pd.factorize(key)
        n_groups = int(group.max()) + 1
        gw = np.bincount(group, weights=w, minlength=n_groups)
        gwx = np.bincount(group, weights=w * x, minlength=n_groups)
        out = np.empty(n_boot)
        for b in range(n_boot):
            counts = np.bincount(rng.integers(0, n_groups, n_groups), minlength=n_groups)
            tot = float(counts @ gw)
            out[b] = float(counts @ gwx) / tot if tot > 0 else 0.0
        # A side drawn from its posterior still ran the loop above: skipping it would
        # move the shared stream, and the other side's resampling with it.
        total = float(gw.sum())
        n_eff = total**2 / float((gw**2).sum()) if total > 0 else 0.0
        share = float(gwx.sum()) / total if total > 0 else 0.0
        if drawn_from_posterior(n_eff, share):
            hits = share * n_eff
            out = rng_small.beta(hits + 0.5, n_eff - hits + 0.5, n_boot)
        return out

    pm = shares(*members)
    if others is None:
        lo, hi = percentile_interval(pm, confidence=confidence)
    else:
        lo, hi = percentile_interval(relative_reading(pm, shares(*others)), confidence=confidence)
    return float(lo), float(hi)


def sdc_reading(
    name: str,
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None,
    schema: Schema | None,
    k: int = DEFAULT_K,
    l: int = DEFAULT_L,  # noqa: E741 (sdcMicro's and the papers' name)
    with_sensitive: bool = False,
    weights: str | None = None,
    method: str = "approx",
    n_boot: int = N_BOOT,
    confidence: float = 0.95,
    seed: int = 0,
) -> MetricResult:
    """The body of every sdcMicro measure read for a release: the pooled real records'
    keys, frequencies and risks, the measure's targets and hits among them, the members'
    share disclosed read against the non-members', sdcMicro's summary of each table, and
    the records table.

    Parameters
    ----------
    name
        The measure, a key of :data:`SDC_MEASURES` (its rule and the options its
        ``params`` record).
    real, synthetic, threat, holdout, schema
        As :func:`reproduced_uniques`.
    k
        sdcMicro's k-anonymity (at least 2): a key shared by fewer than ``k`` pooled real
        records is rare.
    l
        Distinct l-diversity (at least 2): a key whose records hold fewer than ``l``
        distinct sensitive values is not l-diverse. ``k`` and ``l`` are checked for every
        measure: each reports sdcMicro's counts at both (``extra["sdc"]``).
    with_sensitive, weights, method
        As :func:`reproduced_uniques` (read by the measures whose rule uses them).
    n_boot, confidence, seed
        Bootstrap of the interval (members and non-members resampled apart).

    Returns
    -------
    MetricResult
        As :func:`reproduced_uniques`, with the measure's own targets and ``hit``.

    Raises
    ------
    ParameterError
        An unknown ``name`` or ``method``, ``k`` or ``l`` below 2, a bad weight column.
    InsufficientDataError
        No training record is a target of the measure (the message says what to change).
    """
    seed = check_seed(seed)
    check_positive_int("k", k, minimum=2)
    check_positive_int("l", l, minimum=2)
    check_positive_int("n_boot", n_boot)
    check_confidence(confidence)
    if name not in SDC_MEASURES:
        raise ParameterError(
            f"Unknown sdcMicro measure {name!r}; choose from {', '.join(SDC_MEASURES)}."
        )
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}; got {method!r}.")
    rule = SDC_MEASURES[name]
    data = prepare_review(real, synthetic, threat=threat, holdout=holdout, schema=schema)
    syn = single_release(data, name)
    qis = list(data.threat.quasi_identifiers)
    pool = pool_records(data, syn, real, holdout, weights, method, k)
    opts = SdcOptions(k, l, with_sensitive, tuple(qis), tuple(data.threat.sensitive))
    targets, weight, hit = rule.select(pool, opts)
    mem_t = targets & pool.member
    if not mem_t.any() or weight[mem_t].sum() <= 0:  # no member to read
        raise InsufficientDataError(rule.no_target(opts))
    value, ci, baseline, extra = _reading(
        targets,
        weight,
        hit,
        pool.member,
        pool.key_q,
        data.holdout is not None,
        n_boot,
        seed,
        confidence,
    )
    extra["sdc"] = _sdc_tables(pool, mem_t, opts, method, data.holdout is not None)
    options = {
        "k": k,
        "l": l,
        "with_sensitive": with_sensitive,
        "weights": weights,
        "method": method,
    }
    params = {
        **{key: options[key] for key in rule.options},
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
        record_table=_records_table(pool, targets, hit),
        baseline=baseline,
        goal="lower",
        bounds=(0.0, 1.0),
        extra=extra,
    )


def _reading(
    targets: np.ndarray,
    weight: np.ndarray,
    hit: np.ndarray,
    member: np.ndarray,
    key: np.ndarray,
    has_holdout: bool,
    n_boot: int,
    seed: int,
    confidence: float,
) -> tuple[float, tuple[float, float], float | None, dict[str, Any]]:
    """The clipped reading, its interval (``key``: each record's key group, what the
    bootstrap resamples), the baseline (the non-members' share, None when it cannot be
    measured) and the shares in ``extra``."""
    mem_t, non_t = targets & member, targets & ~member

    def share(mask: np.ndarray) -> float:
        return float((weight[mask] * hit[mask]).sum() / weight[mask].sum())

    p_mem = share(mem_t)
    extra: dict[str, Any] = {"p_members": p_mem, "n_member_targets": int(mem_t.sum())}
    members = (hit[mem_t].astype(float), weight[mem_t], key[mem_t])
    if has_holdout and non_t.any() and weight[non_t].sum() > 0:
        p_non = share(non_t)
        raw = float(relative_reading(p_mem, p_non))
        others = (hit[non_t].astype(float), weight[non_t], key[non_t])
        ci = _bootstrap(members, others, n_boot=n_boot, seed=seed, confidence=confidence)
        extra.update(p_non_members=p_non, n_non_member_targets=int(non_t.sum()))
        baseline: float | None = p_non
    else:
        raw = p_mem
        ci = _bootstrap(members, None, n_boot=n_boot, seed=seed, confidence=confidence)
        extra["uninformative"] = (
            NO_HOLDOUT
            if not has_holdout
            else "no holdout record is a target here (no rare key combination among "
            "them, or all reproduced), so chance reproduction cannot be measured: give a "
            "larger holdout"
        )
        baseline = None
    if not math.isfinite(raw):
        # every holdout target reproduced: nothing is left to tell copying from chance,
        # and no interval either (the posterior's draws below 1 would give one)
        ci = (float("nan"), float("nan"))
        extra["uninformative"] = (
            "the release reproduces every holdout target, so it cannot show whether it "
            "reproduces the training records any more often than chance: give a larger "
            "holdout"
        )
    else:
        # the interval holds the reading itself: a side drawn from its posterior at a
        # share of 0 or 1 reaches that share only in the limit (Brown, Cai and DasGupta's
        # modification of the Jeffreys interval at 0 and n)
        ci = (min(ci[0], raw), max(ci[1], raw))
    value = float(np.clip(raw, 0.0, 1.0)) if math.isfinite(raw) else float("nan")
    extra["risk_unclipped"] = raw
    return value, ci, baseline, extra


def _table_summary(keys: np.ndarray, sens_keys: np.ndarray, opts: SdcOptions) -> dict[str, int]:
    """sdcMicro's counts of one table, with the records whose key is not l-diverse."""
    return {
        **k_anonymity_summary(keys, opts.k),
        "l_diversity_violations": int((distinct_l_diversity(keys, sens_keys) < opts.l).sum()),
    }


def _sdc_tables(
    pool: RecordPool, mem_t: np.ndarray, opts: SdcOptions, method: str, has_holdout: bool
) -> dict[str, Any]:
    """sdcMicro's own summary of each table (sample uniques, k-anonymity and distinct
    l-diversity violations), the real table's global risk and its expected
    re-identifications (from the training rows' own frequencies, as sdcMicro reads a
    released microdata file), and l-diversity of the sensitive attribute within the
    reproduced rare combinations."""
    # the pooled keys are the training rows' then the holdout's: no second hashing
    n_train = int(pool.member.sum())
    train_q, hold_q = pool.key_q[:n_train], pool.key_q[n_train:]
    train_qs, hold_qs = pool.key_qs[:n_train], pool.key_qs[n_train:]
    fk_t, Fk_t = frequencies(train_q, pool.w_train)
    rk_t = individual_risk(fk_t, Fk_t, method=method)
    pinned = mem_t & pool.reproduced & (pool.l_release == 1)
    rare_members = pool.rare & pool.member
    return {
        "k": opts.k,
        "l": opts.l,
        "real": {
            **_table_summary(train_q, train_qs, opts),
            "global_risk": float(rk_t.mean()),
            "expected_reidentifications": float(rk_t.sum()),
        },
        "release": _table_summary(pool.syn_q, pool.syn_qs, opts),
        **({"holdout": _table_summary(hold_q, hold_qs, opts)} if has_holdout else {}),
        "rare_member_keys_reproduced": int((rare_members & pool.reproduced).sum()),
        "rare_member_keys_reproduced_with_sensitive": int((rare_members & pool.with_value).sum()),
        "reproduced_with_l_1": int((pinned & pool.rare).sum()),
    }


def _records_table(pool: RecordPool, targets: np.ndarray, hit: np.ndarray) -> pd.DataFrame:
    """One row per target: its key's frequencies, risk, rarity, l-diversity, its
    reproduction in the release and whether the measure counts it as disclosed (``hit``)."""
    table = pd.DataFrame(
        {
            "record": pool.index,
            "member": pool.member,
            "f_k": pool.fk.astype(int),
            "F_k": pool.Fk,
            "individual_risk": pool.rk,
            "rare": pool.rare,
            "l_diversity_real": pool.l_real,
            "reproduced": pool.reproduced,
            "reproduced_with_sensitive": pool.with_value,
            "release_count": pool.release_count,
            "l_diversity_release": pool.l_release,
            "hit": hit,
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
    return sdc_reading(
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
    return sdc_reading(
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
        n_boot=n_boot,
        confidence=confidence,
        seed=seed,
    )


def sdc_summary(result: MetricResult) -> pd.DataFrame:
    """sdcMicro's summary of each table a reproduction result saw, one column per table
    (real, release, holdout) and one row per count: records, distinct key combinations,
    sample uniques, k-anonymity violations and distinct l-diversity violations (the
    Privacy page, exports)."""
    sdc = result.extra.get("sdc") or {}
    rows = {
        "records": "records",
        "keys": "key combinations",
        "sample_uniques": "sample uniques",
        "k_anonymity_violations": f"violating {sdc.get('k', '')}-anonymity",
    }
    tables = [t for t in ("real", "release", "holdout") if t in sdc]
    # a result stored before the l-diversity counts were added has none
    if tables and all("l_diversity_violations" in sdc[t] for t in tables):
        rows["l_diversity_violations"] = f"violating distinct {sdc.get('l', '')}-diversity"
    return pd.DataFrame(
        {
            "count": list(rows.values()),
            **{t: [int(sdc[t][key]) for key in rows] for t in tables},
        }
    )
