"""sdcMicro's definitions on the key variables (Templ, Kowarik & Meindl, JSS 67(4), 2015).

Per record: f_k, how many records of the sample share its key (``freqCalc``); F_k, the
sum of their sampling weights; the individual risk r_k of re-identification
(``indivRisk``, Benedetti & Franconi); the distinct l-diversity of the sensitive
attribute among the records of its key (``ldiversity``); and per table the sample
uniques and the k-anonymity violations (``kAnon``). Keys are compared exactly, in
canonical form.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...errors import ParameterError

METHODS = ("approx", "exact")
EXACT_MAX_F = 20  # the exact series is numerically stable up to here (float64)
DEFAULT_K = 3  # sdcMicro's kAnon default: a key shared by fewer than 3 records is rare
# distinct l-diversity below 2: every record of the key holds the same sensitive value, so
# knowing the key discloses it (the homogeneity attack; Machanavajjhala et al. 2007)
DEFAULT_L = 2


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
