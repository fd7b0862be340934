"""Membership inference: DOMIAS density ratio and the partition attack with F_rel.

Both ask whether a release reveals that a record was in the training data, with training
records as members and holdout records (real, never seen by the generator) as
non-members. The consensus framework's conditions apply (R4): the attacker's targets are
drawn from the population the training data were sampled from, so membership tells the
attacker something only when being in the training data is itself sensitive.

* :func:`domias` (``domias``): the density ratio p_S(x) / p_R(x) of a kernel density
  fitted on the release and one fitted on a real reference set disjoint from every test
  record; AUC of the ratio for members against non-members, value = 2 AUC - 1 in
  (-1, 1), unclipped: below 0 the attack ranks non-members above members (no signal).
* :func:`membership_disclosure` (``membership``): El Emam's partition attack. An attack
  set holds members at the prevalence t (the sampling fraction); a record is called a
  member when its quasi-identifiers (numerics in 20 equal-width bins fitted on the
  release) are within Hamming distance h of a synthetic record; the F1 score is reported
  relative to the naive attacker who calls everyone a member, F_rel = (F - F_naive) /
  (1 - F_naive) with F_naive = 2t / (1 + t) (consensus R5).

Notes
-----
``risk-insertion-framework.md`` §4.3.1 and §6.2.2 (DOMIAS, normalised AUC);
``metric-reference.md`` §5 (DOMIAS) and §7 (F_rel); ``consensus-privacy-framework.md``
R4, R5 and Figure 3.

The package, one module per attack: ``density_ratio`` (DOMIAS) and ``partition`` (the
partition attack and F_rel), with ``members`` for what both require of the holdout.
Every name is importable from ``privacy_core.risk.membership``.
"""

from .density_ratio import DomiasResult, domias, domias_reading
from .members import require_holdout
from .partition import (
    DEFAULT_BINS,
    MembershipResult,
    attack_sizes,
    f_naive,
    f_relative,
    fallback_message,
    membership_disclosure,
)

__all__ = [
    "DEFAULT_BINS",
    "DomiasResult",
    "MembershipResult",
    "attack_sizes",
    "domias",
    "domias_reading",
    "f_naive",
    "f_relative",
    "fallback_message",
    "membership_disclosure",
    "require_holdout",
]
