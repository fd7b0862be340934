"""GTCAP: generalised targeted correct attribution probability, with a holdout control.

An attacker who knows a target's quasi-identifiers looks for synthetic records that
match them and whose matching neighbourhood in the release agrees on the sensitive value
(a target-homogeneous class, WEAP = 1), and attributes that value to the target. GTCAP
is the share of such attributions that are correct on the training records, G_T; the
same attack on holdout records, G_H, is what the release teaches about anybody from the
population; the risk is the control-baseline form (G_T - G_H) / (1 - G_H).

Matching generalises TCAP's equality: categorical quasi-identifiers must be equal,
numeric ones must lie within ``radius`` on the min-max scale of the one encoder fitted on
the real table (a numeric target likewise). The paper calls this "membership in spheres
of given radius"; since every numeric column is compared on its own, the sphere is one of
the L-infinity norm, i.e. a box of half-width r per column, and the options are named for
that. Three weightings:

* ``box_pooled`` (default; called ``sphere`` before, still accepted with a
  DeprecationWarning): a record matches when every numeric key differs by less than the
  radius; WEAP keeps synthetic records whose matching synthetic records all share the
  target; G pools every (kept synthetic record, matching real record) pair:
  G = correct pairs / all pairs, so a synthetic record weighs by how many real records
  fall in its box.
* ``box_per_record`` (eq. 7 read literally): the same box matching and WEAP filter, then
  TCAP(X, s) = correct matches / matches for every kept synthetic record s with at least
  one match in X, and G = the mean of these per-record TCAPs (each kept distinct
  synthetic record weighs the same, however many real records its box holds).
* ``triangular`` (the reference code, ``metric-reference.md`` §4 GTCAP): the WEAP filter
  and the triangular weights w_k = mean over numeric keys of max(0, 1 - |d|/r) and
  w_tk = mean over numeric columns (target included) of the same, zero when a
  categorical target differs; score(s) = sum w_tk w_k / sum w_k and G = mean score over
  kept records (pooled counts when no column is numeric).

Unlike the reference code, the numerics are scaled by the real table's range for every
frame (scaling each frame by its own range makes the radius mean different things in T,
H and S), and a release without categorical keys is handled (the reference keeps nothing
then and reports 0).

The package: ``frames`` (each table reduced to key classes, scaled keys and the target),
``pair_sums`` (kernel sums over the pairs of a key class, in bounded chunks),
``weightings`` (the WEAP filter and the three weightings) and ``attribution`` (the
measure, its control-baseline risk and interval). Every name is importable from
``privacy_core.risk.cap``.

Notes
-----
``risk-insertion-framework.md`` §4.3.3 (eq. 7) and §6.2.3 (radius 0.1, min-max scaled
numerics), Appendix E (radius); ``metric-reference.md`` §4 (TCAP, WEAP, GTCAP).
"""

from .attribution import DEFAULT_RADIUS, GTCAP_MAX_QUERIES, GtcapResult, gtcap
from .pair_sums import CAP_PAIR_BUDGET, Kernel
from .weightings import DEPRECATED_WEIGHTINGS, GTCAP_WEIGHTINGS

__all__ = [
    "CAP_PAIR_BUDGET",
    "DEFAULT_RADIUS",
    "GTCAP_MAX_QUERIES",
    "DEPRECATED_WEIGHTINGS",
    "GTCAP_WEIGHTINGS",
    "GtcapResult",
    "Kernel",
    "gtcap",
]
