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
release that copies a share f_l (the calibration contract). Five measures read it, each
with its own targets and hits (:data:`SDC_MEASURES`):

- ``reproduced_uniques``: the rare records (f_k < k), their key reproduced (with the
  sensitive value, in its ``with_sensitive`` mode);
- ``individual_risk``: every record weighted by its r_k, so it reads the share of the real
  data's re-identification risk (sdcMicro's expected re-identifications) that the release
  reproduces beyond chance;
- ``sample_uniques``: the sample uniques (f_k = 1), their key reproduced;
- ``k_anonymity``: the records violating k-anonymity, their key on fewer than k release
  records (the release singles them out);
- ``l_diversity``: the records whose key group holds fewer than l distinct sensitive
  values, the release's group with their key holding their own value among fewer than l
  distinct ones (l = 2: that value alone).

Without a holdout the members' share is reported alone and cannot decide (what chance
reproduces is unknown). The interval is a bootstrap that resamples key groups, members
and non-members apart: a hit depends on the key, so a group's records are one draw. A
side of fewer than 30 key groups, or whose groups are all reproduced or none, is drawn
from its share's Jeffreys posterior instead, so that a small holdout widens the interval
rather than pinning the chance rate (``reproduction._bootstrap``).

Keys are compared exactly, in canonical form (numbers as they are): sdcMicro expects
categorical keys, and a continuous quasi-identifier makes nearly every record unique.
Recode it (age in years or bands) before the review to read it the way sdcMicro would.

The package: ``sdcmicro`` (sdcMicro's definitions: keys, frequencies, individual risk,
l-diversity, k-anonymity), ``pool`` (the pooled real records as the release sees them,
and each measure's rule: its targets and hits), ``reproduction`` (the body every measure
shares, :func:`sdc_reading`, and the first two measures) and ``classics`` (sample
uniques, k-anonymity and l-diversity read for a release). Every name is importable from
``privacy_core.risk.sdc``.
"""

from .classics import k_anonymity, l_diversity, sample_uniques
from .pool import SDC_MEASURES
from .reproduction import (
    N_BOOT,
    NO_HOLDOUT,
    individual_risk_reproduced,
    relative_reading,
    reproduced_uniques,
    sdc_reading,
    sdc_summary,
)
from .sdcmicro import (
    DEFAULT_K,
    DEFAULT_L,
    EXACT_MAX_F,
    METHODS,
    distinct_l_diversity,
    frequencies,
    individual_risk,
    k_anonymity_summary,
    row_keys,
)

__all__ = [
    "DEFAULT_K",
    "DEFAULT_L",
    "EXACT_MAX_F",
    "METHODS",
    "NO_HOLDOUT",
    "N_BOOT",
    "SDC_MEASURES",
    "distinct_l_diversity",
    "frequencies",
    "individual_risk",
    "individual_risk_reproduced",
    "k_anonymity",
    "k_anonymity_summary",
    "l_diversity",
    "relative_reading",
    "reproduced_uniques",
    "row_keys",
    "sample_uniques",
    "sdc_reading",
    "sdc_summary",
]
