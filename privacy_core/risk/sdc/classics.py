"""Sample uniques, k-anonymity and l-diversity: sdcMicro's classic counts read for a release.

A statistics office counts, on the key variables (the quasi-identifiers), the records
that are *sample-unique* (``freqCalc``: f_k = 1), those that violate *k-anonymity*
(``kAnon``: f_k < k) and those whose key group is not *l-diverse* in the sensitive
attribute (``ldiversity``: fewer than l distinct values), Templ, Kowarik & Meindl, JSS
67(4), 2015. For a synthetic release the question is not how many such records the real
table holds (the release does not publish them) but how many of them the release
*discloses*, beyond what a fresh real sample would: each measure here picks its targets
among the pooled real records (training rows and holdout rows, counted together, as
:mod:`privacy_core.risk.sdc` explains) and asks of each whether the release discloses it,
then reads the members' share against the non-members' (consensus R7):

    reading = (p_members - p_non_members) / (1 - p_non_members)

- :func:`sample_uniques`: a sample unique is disclosed when the release reproduces its
  key (sdcMicro's sample uniques; SDNist's "unique exact matches" on the QIs);
- :func:`k_anonymity`: a record violating k-anonymity is disclosed when the release has
  its key on fewer than k of its own records: the release violates k-anonymity there
  too and singles the person out (a key reproduced k or more times hides them in a
  crowd, which :func:`reproduced_uniques` still counts);
- :func:`l_diversity`: a record whose key group holds fewer than l distinct sensitive
  values is disclosed when the release's records with that key hold its own value among
  fewer than l distinct ones (l = 2: its value and no other, the homogeneity attack).

Each reads 0 on a release of unseen real rows and 1 on a copy of the training rows (a
training record's group in the copy is a subset of its pooled group: as rare, as
homogeneous, and with its value). The body they share, and the per-record arrays, are
:func:`privacy_core.risk.sdc.reproduction.sdc_reading`'s.

Sampling weights have no part in them: sdcMicro's sample uniques, k-anonymity and
l-diversity count the records of the sample, whatever each stands for in the population
(weights enter its individual risk only, :func:`individual_risk_reproduced`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ...data import Schema
from ...results import MetricResult
from ...threat import ThreatModel
from .reproduction import N_BOOT, sdc_reading
from .sdcmicro import DEFAULT_K, DEFAULT_L


def sample_uniques(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    n_boot: int = N_BOOT,
    confidence: float = 0.95,
    seed: int = 0,
) -> MetricResult:
    """Sample uniques reproduced: the share of the real table's sample-unique records
    whose key the release reproduces, beyond a fresh real sample.

    Targets: the pooled real records whose key (their combination of quasi-identifiers)
    no other pooled record shares (f_k = 1). Hit: a release record has that key. On a
    copy of the training rows every member unique is reproduced (1); a release of unseen
    real rows reproduces members' and non-members' uniques equally often (0). It is
    :func:`reproduced_uniques` at its strictest rarity (k = 2), under sdcMicro's name.

    Parameters
    ----------
    real, synthetic, holdout
        Training rows, one release, and real rows the generator never saw (the
        non-members that say what chance reproduces).
    threat
        The quasi-identifiers are the key variables.
    schema
        The columns' types (inferred from ``real`` when not given).
    n_boot, confidence, seed
        Bootstrap of the interval (members and non-members resampled apart).

    Returns
    -------
    MetricResult
        ``name="sample_uniques"``; ``value`` = (p_members - p_non_members) /
        (1 - p_non_members), clipped to [0, 1] (``extra["risk_unclipped"]`` the
        estimate), its bootstrap interval, ``baseline`` p_non_members (None without a
        holdout: ``extra["uninformative"]`` then says why the members' share cannot
        decide). Records: one row per target (``record``: the real row's index label;
        ``member``: training or holdout) with f_k, its key group's distinct l-diversity
        in the real rows (``l_diversity_real``), whether the release reproduces its key
        (and with the sensitive value: ``reproduced_with_sensitive``), how many release
        records share the key (``release_count``) and their distinct sensitive values
        (``l_diversity_release``), and ``hit``: whether this measure counts it as
        disclosed. ``extra["sdc"]``: sdcMicro's counts of the real table, the release
        and the holdout (sample uniques, k-anonymity and l-diversity violations).

    Notes
    -----
    No sampling weights: sdcMicro counts the sample's uniques. Templ, Kowarik & Meindl
    (2015), JSS 67(4), ``freqCalc`` and ``measure_risk`` (sample uniques); members against
    non-members as consensus R7 (``consensus-privacy-framework.md``).
    """
    return sdc_reading(
        "sample_uniques",
        real,
        synthetic,
        threat=threat,
        holdout=holdout,
        schema=schema,
        n_boot=n_boot,
        confidence=confidence,
        seed=seed,
    )


def k_anonymity(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    k: int = DEFAULT_K,
    n_boot: int = N_BOOT,
    confidence: float = 0.95,
    seed: int = 0,
) -> MetricResult:
    """k-anonymity violations reproduced: the share of the real records violating
    k-anonymity that the release singles out, beyond a fresh real sample.

    Targets: the pooled real records whose key fewer than ``k`` pooled records share
    (sdcMicro's ``kAnon``). Hit: the release has that key on at least one and fewer than
    ``k`` of its own records, so it violates k-anonymity for the person too (SDNist's
    unique exact match, widened to k). Unlike :func:`reproduced_uniques`, a rare key the
    release repeats ``k`` times or more is not counted: there the person hides among
    ``k`` release records. On a copy of the training rows a member's key occurs in the
    release as often as in the training rows, fewer than ``k`` times (1); unseen real
    rows single out members and non-members equally often (0).

    Parameters
    ----------
    real, synthetic, holdout, threat, schema
        As :func:`sample_uniques`.
    k
        sdcMicro's k (3 by default, at least 2): a key shared by fewer than ``k`` records
        violates k-anonymity, in the real rows and in the release alike.
    n_boot, confidence, seed
        Bootstrap of the interval (members and non-members resampled apart).

    Returns
    -------
    MetricResult
        ``name="k_anonymity"``, otherwise as :func:`sample_uniques`; ``params["k"]``.

    Notes
    -----
    No sampling weights: sdcMicro's k-anonymity counts the sample's records. Templ,
    Kowarik & Meindl (2015), JSS 67(4), ``kAnon``; Sweeney (2002), "k-anonymity: a model
    for protecting privacy"; members against non-members as consensus R7.
    """
    return sdc_reading(
        "k_anonymity",
        real,
        synthetic,
        threat=threat,
        holdout=holdout,
        schema=schema,
        k=k,
        n_boot=n_boot,
        confidence=confidence,
        seed=seed,
    )


def l_diversity(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    l: int = DEFAULT_L,  # noqa: E741 (sdcMicro's and the paper's name)
    n_boot: int = N_BOOT,
    confidence: float = 0.95,
    seed: int = 0,
) -> MetricResult:
    """l-diversity violations disclosed: the share of the real records in a key group
    that is not l-diverse whose sensitive value the release pins down, beyond a fresh
    real sample.

    Targets: the pooled real records whose key group holds fewer than ``l`` distinct
    sensitive values (sdcMicro's distinct ``ldiversity``; with the default l = 2, a group
    whose records all share one value, the sample uniques among them). Hit: the release's
    records with that key hold the record's own sensitive value among fewer than ``l``
    distinct values (l = 2: that value and no other), so whoever knows the person's
    quasi-identifiers reads their value off the release (the homogeneity attack). A
    release group with another value, or several, does not disclose it. On a copy of the
    training rows a member's group is a subset of its pooled group, as homogeneous and
    with its value (1); unseen real rows pin members' and non-members' values equally
    often (0), large homogeneous groups (a value the population's pattern gives away)
    included.

    Parameters
    ----------
    real, synthetic, holdout, threat, schema
        As :func:`sample_uniques`; the sensitive attribute(s) of ``threat`` are the
        values compared (several sensitive columns: their combination).
    l
        Distinct l-diversity (2 by default, at least 2): a key group with fewer than
        ``l`` distinct sensitive values is not l-diverse.
    n_boot, confidence, seed
        Bootstrap of the interval (members and non-members resampled apart).

    Returns
    -------
    MetricResult
        ``name="l_diversity"``, otherwise as :func:`sample_uniques`; ``params["l"]``.

    Notes
    -----
    No sampling weights: sdcMicro's l-diversity counts the sample's records. Values are
    compared exactly (a continuous sensitive attribute is nearly always distinct: recode
    it first). Templ, Kowarik & Meindl (2015), JSS 67(4), ``ldiversity``;
    Machanavajjhala et al. (2007), "l-diversity: privacy beyond k-anonymity", ACM TKDD
    1(1); members against non-members as consensus R7.
    """
    return sdc_reading(
        "l_diversity",
        real,
        synthetic,
        threat=threat,
        holdout=holdout,
        schema=schema,
        l=l,
        n_boot=n_boot,
        confidence=confidence,
        seed=seed,
    )
