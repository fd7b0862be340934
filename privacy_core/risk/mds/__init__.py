"""Membership disclosure score (MDS) with shadow synthesizers.

Du & Li, "Systematic Assessment of Tabular Data Synthesis"
(``systematic-assessment-fidelity-mds.md``) §5; the reference code's details are in
``metric-reference.md`` §1b. MDS asks of a *generating method*, not of one release: how
much does adding or removing one record change what the method emits near it?

m shadow synthesizers are trained on seeded halves of the real table such that every
record is a member of exactly ⌊m/2⌋ of them (``argsort(U, axis=0) < ⌊m/2⌋`` over a
uniform m x N matrix). Each shadow emits ``shadow_sets`` tables the size of its training
half. The distance of a record x to a table S is its nearest-neighbour distance on the
engine's shared encoder (min-max numerics, one-hot categoricals, fitted on the real
table) divided by √p, p the number of original columns. d̄_i(x) is the mean over shadow
i's tables, and DS(x) = |mean of d̄_i(x) over the shadows x trained | − mean over the
others|. MDS = max_x DS(x): the record a membership attacker would target.

Two references from the paper's baselines are computed with the same shadows' splits:
SELF (each shadow emits its training half: the worst case) and HALF (each shadow emits
real records it never saw, drawn from the holdout: what a release that tells nothing
about its members reads, i.e. the noise floor). The raw MDS is a distance whose scale
depends on the table; the *relative* reading (T − T0) / (T_SELF − T0) puts it on the
calibration contract's scale: about 0 for a method that emits unseen records, 1 for one
that copies its training data, rising with the share it copies. Three choices make it
stable with the few shadow models an interactive review can afford (the paper's code
uses 100 tables per shadow):

- T is a mean over the most exposed ``tail`` share of records (1 %; the max below 100
  records) rather than the max, a maximum of noise: the max's relative reading moved by
  ±0.1 between seeds at f_l = 0 (10 shadows, 2 tables, 1,500 records), the 1 % tail mean
  by ±0.05.
- Each record enters by its *confident* disclosure, the lower 97.5 % bound (Welch,
  Student t) of mean OUT − mean IN, floored at 0: a record counts only as far as the
  shadows establish that its presence brings the emitted data closer.
- T0, the noise floor, is the larger of HALF's tail and the method's own tail with IN
  and OUT relabelled at random (``NULL_PERMUTATIONS`` times): a generator whose tables
  vary wildly from shadow to shadow (DP-MST at epsilon 0.1) otherwise reads above SELF
  by chance. When even SELF does not rise above that floor the reading is NaN
  (uninformative at this number of shadows), never a number that looks like a risk.

The paper's max and its relative reading against HALF and SELF are reported alongside
(``raw_max``, ``relative_max``).

The package, one module per part of the method: ``shadows`` (the membership matrix and
what each shadow, SELF and HALF emit), ``disclosure`` (per-record scores, the tail,
null and relative readings, the bootstrap), ``result`` (:class:`MdsResult` and how one
is assembled from the distances) and ``score`` (the public functions: checks, set-up,
the parallel run). Every name is importable from ``privacy_core.risk.mds``.
"""

from .disclosure import (
    CONFIDENT_LEVEL,
    FLAG_LEVEL,
    NULL_PERMUTATIONS,
    DisclosureScores,
    disclosure_scores,
    tail_mean,
)
from .result import MdsResult, mds_reading
from .score import (
    DEFAULT_MAX_ROWS,
    DEFAULT_RECORDS,
    DEFAULT_SHADOW_MODELS,
    DEFAULT_SHADOW_SETS,
    MAX_COLUMNS,
    READINGS,
    mds_overfit_levels,
    membership_disclosure_score,
)
from .shadows import mds_membership

__all__ = [
    "CONFIDENT_LEVEL",
    "DEFAULT_MAX_ROWS",
    "DEFAULT_RECORDS",
    "DEFAULT_SHADOW_MODELS",
    "DEFAULT_SHADOW_SETS",
    "DisclosureScores",
    "FLAG_LEVEL",
    "MAX_COLUMNS",
    "MdsResult",
    "NULL_PERMUTATIONS",
    "READINGS",
    "disclosure_scores",
    "mds_membership",
    "mds_overfit_levels",
    "mds_reading",
    "membership_disclosure_score",
    "tail_mean",
]
