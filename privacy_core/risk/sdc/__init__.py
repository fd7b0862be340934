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

The package: ``sdcmicro`` (sdcMicro's definitions: keys, frequencies, individual risk,
l-diversity, k-anonymity) and ``reproduction`` (the two measures that read them for a
release, members against non-members). Every name is importable from
``privacy_core.risk.sdc``.
"""

from .reproduction import (
    N_BOOT,
    NO_HOLDOUT,
    individual_risk_reproduced,
    relative_reading,
    reproduced_uniques,
    sdc_summary,
)
from .sdcmicro import (
    DEFAULT_K,
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
    "EXACT_MAX_F",
    "METHODS",
    "NO_HOLDOUT",
    "N_BOOT",
    "distinct_l_diversity",
    "frequencies",
    "individual_risk",
    "individual_risk_reproduced",
    "k_anonymity_summary",
    "relative_reading",
    "reproduced_uniques",
    "row_keys",
    "sdc_summary",
]
