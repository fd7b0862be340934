"""Attack-based privacy measures with control baselines.

Four simulated attackers hold the synthetic release and try to learn about real people:

* :func:`singling_out` writes predicates that isolate one synthetic record and checks
  whether they isolate exactly one real record (identity disclosure, WP29 "singling out");
* :func:`linkability` links two partial views of a real record through their nearest
  synthetic neighbours (WP29 "linkability");
* :func:`distance_inference` guesses a secret from the nearest synthetic record on the
  known columns (attribute inference by local neighbourhood);
* :func:`ml_inference` trains gradient boosting on the release and predicts the secret
  (attribute inference, "inference-on-synthetic").

Contract
--------
Every measure is a pure function ``name(real, synthetic, *, threat, holdout=None,
schema=None, ..., seed=0)`` that starts with :func:`~privacy_core.inputs.prepare_review`
and returns a frozen :class:`AttackResult` (or subclass). The same attack runs against
*training* targets (rows of ``real``, which the generator saw) and *control* targets
(rows of ``holdout``, which it did not). With Anonymeter's Wilson centres r = (k + z²/2) /
(n + z²) the risk is R = (r_train - r_control) / (1 - r_control), its half-width follows by
error propagation, and value and interval are clipped to [0, 1]: what the attack learns
about members beyond what it learns about the population. ``baseline`` is the clipped
success rate of a random-guess attacker; a :class:`UntrustworthyResultWarning` is issued
when the attack does not beat it.

Without a holdout, singling out, linkability and distance inference still run: the value
is then the absolute attack success rate, ``params["control"]`` is False and a warning says
that the figure mixes membership leakage with population-level inference. ML inference
needs the holdout (its definition is relative) and raises
:class:`~privacy_core.errors.InsufficientDataError` without it.

Every guess is kept: ``result.records`` has one row per training or control target
(``record`` = the row's index label in its input table, ``role`` = ``training`` or
``control``, ``guess``, ``truth``, ``success``), and ``result.baseline_records`` the
random guesses. Intervals at another confidence level (``result.at(confidence=...)``) and
linkability at fewer neighbours (``result.at(n_neighbors=...)``) are cheap re-readings.

Departures from Anonymeter (``metric-reference.md`` §2), all deliberate:

* seeded ``numpy.random.SeedSequence`` children for every random step (Anonymeter's
  linkability and inference use the global / an unseeded generator);
* distance inference judges a numeric guess correct when |g - s| <= tol·|s| (relative to
  the true value, with abs), fixing the signed-denominator ``[code bug]``;
* nearest-neighbour ties are broken uniformly at random (a seeded permutation of the
  synthetic rows, drawn separately for each search) rather than by sort order;
* distances use the engine's one encoder (numerics scaled by the *real* range, one-hot
  categoricals weighted 1/2 so a mismatch adds 1 under L1, numeric missing values imputed
  by the real median) instead of Anonymeter's per-call joint range and NaN rules;
* singling-out predicates are evaluated on rank-coded columns (one coding of every table,
  reusing the categorical codes from canonicalisation): one-condition predicates by a
  histogram and its cumulative sum, longer ones by bitsets or vectorised masks; query
  generation also stops when 100 consecutive batches add no new predicate.

Notes
-----
Giomi et al. (PoPETs 2023), Anonymeter; ``risk-insertion-framework.md`` §4.3.1-4.3.3
(the attacks), §5.3.2 (the control-set baseline, equation 8); ``consensus-privacy-
framework.md`` R2 (all records: ``n_attacks=None``), R6-R8 and Figure 4 (relative and
absolute attribute-disclosure readings); ``metric-reference.md`` §2 and §8 (ML inference
as in the aindo companion code: XGBoost on S, risk (r_T - r_H) / (1 - r_H)).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np
import pandas as pd
from scipy.optimize import curve_fit

from ..data import Schema
from ..encoding import TableEncoder
from ..errors import (
    InsufficientDataError,
    ParameterError,
    ThreatModelError,
    UntrustworthyResultWarning,
)
from ..inputs import ReviewData, prepare_review
from ..results import MetricResult
from ..stats import (
    bootstrap_weights,
    bounded_estimate,
    control_baseline_error,
    control_baseline_risk,
    percentile_interval,
    wilson_centre,
)
from ..threat import ThreatModel
from ..validation import (
    check_choice,
    check_confidence,
    check_in_range,
    check_positive_int,
    check_seed,
)
from .attackers import fit_predict
from .neighbors import nearest_neighbors

SINGLING_OUT_MODES = ("multivariate", "univariate")
SIZE_CORRECTIONS = ("subsample", "fit", "none")
ROLES = ("training", "control")
# L1 distance blocks of ~2M entries stay in cache; the module default is tuned for memory.
_KNN_BLOCK = 1 << 21
_QUERY_BATCH = 1000  # predicates drawn per round (as Anonymeter)
_SATURATION_BATCHES = 100  # stop drawing after this many rounds without a new predicate
_MASK_BLOCK = 1 << 20  # predicate x row mask entries evaluated at once
_BITSET_BUDGET = 512 << 20  # bytes for the generator's bit index; masks beyond it
_MIN_PREFILTER_ROWS = 1024  # smaller row subsets reject too little to be worth it
_MAX_GROUPS = 256  # category combinations searched separately by the kNN speed-up


# ============================================================================ results
@dataclass(frozen=True, eq=False)
class AttackResult(MetricResult):
    """Risk of one attack with its training, control and random-guess success counts.

    ``value`` and ``ci`` are the clipped control-baseline risk (or the clipped attack
    success rate when no holdout was given); ``baseline`` is the clipped random-guess
    success rate. ``records`` holds every guess on training and control targets,
    ``baseline_records`` the random guesses.
    """

    n_attacks: int = 0
    n_success: float = 0.0
    n_control_attacks: int = 0
    n_control_success: float | None = None
    n_baseline_attacks: int = 0
    n_baseline_success: float = 0.0
    confidence: float = 0.95
    baseline_table: pd.DataFrame | None = None

    @property
    def baseline_records(self) -> pd.DataFrame | None:
        """The random-guess attacker's guesses and outcomes."""
        return self.baseline_table

    def rates(self) -> pd.DataFrame:
        """Success rates of the attack on training and control targets and of the random
        guess: columns series, successes, n, rate (Wilson centre), lower, upper."""
        rows = [("training", self.n_success, self.n_attacks),
                ("control", self.n_control_success, self.n_control_attacks),
                ("baseline", self.n_baseline_success, self.n_baseline_attacks)]
        out = []
        for series, k, n in rows:
            if k is None:
                continue
            rate, err = _wilson(k, n, self.confidence)
            _, (lo, hi) = bounded_estimate(rate, err)
            out.append({"series": series, "successes": float(k), "n": int(n), "rate": rate,
                        "lower": lo, "upper": hi})
        return pd.DataFrame(out, columns=["series", "successes", "n", "rate", "lower", "upper"])

    def at(self, *, confidence: float | None = None) -> AttackResult:
        """The same guesses summarised at another confidence level (no new attack)."""
        conf = self.confidence if confidence is None else check_confidence(confidence)
        return _with_summary(self, conf)


@dataclass(frozen=True, eq=False)
class LinkabilityResult(AttackResult):
    """Linkability risk at ``n_neighbors`` with everything needed for any k' <= k.

    ``link_rank`` (training targets), ``control_link_rank`` and ``baseline_link_rank``
    hold, per target, the smallest k' at which the k'-nearest synthetic neighbours on the
    two column sets share a record (0 = not linked within k).
    """

    n_neighbors: int = 1
    max_neighbors: int = 1
    link_rank: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    control_link_rank: np.ndarray | None = None
    baseline_link_rank: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def at(self, *, n_neighbors: int | None = None,  # type: ignore[override]
           confidence: float | None = None) -> LinkabilityResult:
        """Re-read the stored neighbour lists at k' <= k neighbours (no new search)."""
        k = self.n_neighbors if n_neighbors is None else check_positive_int(
            "n_neighbors", n_neighbors)
        if k > self.max_neighbors:
            raise ParameterError(
                f"`n_neighbors` must be at most {self.max_neighbors}, the number searched; "
                f"got {k}. Rerun linkability with n_neighbors={k} to read it.")
        conf = self.confidence if confidence is None else check_confidence(confidence)
        k_a = _linked(self.link_rank, k)
        k_c = None if self.control_link_rank is None else _linked(self.control_link_rank, k)
        k_b = _linked(self.baseline_link_rank, k)
        records = None
        if self.record_table is not None:
            records = self.record_table.copy()
            ok = (records["link_rank"] > 0) & (records["link_rank"] <= k)
            records["success"] = ok.to_numpy()
            guess = records["link"].to_numpy(dtype=object).copy()
            guess[~ok.to_numpy()] = None
            records["guess"] = guess
        baseline = None
        if self.baseline_table is not None:
            baseline = self.baseline_table.copy()
            baseline["success"] = ((baseline["link_rank"] > 0)
                                   & (baseline["link_rank"] <= k)).to_numpy()
        params = {**self.params, "n_neighbors": k}
        shell = replace(self, n_neighbors=k, n_success=k_a, n_control_success=k_c,
                        n_baseline_success=k_b, params=params, record_table=records,
                        baseline_table=baseline)
        return _with_summary(shell, conf)  # type: ignore[return-value]

    def curve(self, max_neighbors: int | None = None) -> pd.DataFrame:
        """Risk, attack, control and baseline rates for k' = 1 .. max_neighbors."""
        top = self.max_neighbors if max_neighbors is None else min(
            check_positive_int("max_neighbors", max_neighbors), self.max_neighbors)
        rows = []
        for k in range(1, top + 1):
            r = self.at(n_neighbors=k)
            rows.append({"n_neighbors": k, "risk": r.value, "lower": r.ci[0],  # type: ignore[index]
                         "upper": r.ci[1], "attack_rate": r.extra["attack_rate"],  # type: ignore[index]
                         "control_rate": r.extra["control_rate"],
                         "baseline_rate": r.extra["baseline_rate"]})
        return pd.DataFrame(rows)


@dataclass(frozen=True, eq=False)
class MLInferenceResult(AttackResult):
    """ML attribute inference: relative risk with the absolute scores beside it (R7, R8).

    For a categorical secret the scores are accuracies with Wilson intervals; for a
    continuous one they are 1 - RMSE / range with percentile-bootstrap intervals (the
    replicates are stored so another confidence level is a cheap re-reading).
    """

    kind: str = "categorical"
    scores: dict[str, float] = field(default_factory=dict)
    score_replicates: dict[str, np.ndarray] = field(default_factory=dict)

    def rates(self) -> pd.DataFrame:
        if self.kind == "categorical":
            return super().rates()
        a = (1 - self.confidence) / 2 * 100
        out = []
        for series, n in (("training", self.n_attacks), ("control", self.n_control_attacks),
                          ("baseline", self.n_baseline_attacks)):
            reps = self.score_replicates[series]
            lo, hi = np.nanpercentile(reps, [a, 100 - a]) if reps.size else (np.nan, np.nan)
            out.append({"series": series, "successes": np.nan, "n": int(n),
                        "rate": self.scores[series], "lower": float(lo), "upper": float(hi)})
        return pd.DataFrame(out)

    def at(self, *, confidence: float | None = None) -> MLInferenceResult:  # type: ignore[override]
        conf = self.confidence if confidence is None else check_confidence(confidence)
        if self.kind == "categorical":
            return _with_summary(self, conf)  # type: ignore[return-value]
        return _continuous_summary(self, conf)

    def assess(self, *, relative_threshold: float, absolute_threshold: float) -> bool:
        """Consensus R8: unacceptably high only when the relative risk exceeds its threshold
        *and* the absolute member score exceeds its own."""
        rel = check_in_range("relative_threshold", relative_threshold, -1e9, 1e9)
        ab = check_in_range("absolute_threshold", absolute_threshold, -1e9, 1e9)
        return bool(self.extra["relative_risk"] > rel and self.extra["absolute_score"] > ab)


# ============================================================================ shared
def _wilson(k: float, n: float, confidence: float) -> tuple[float, float]:
    # Successes are clipped to [0, n]: a rescaled control count above n is what raises
    # Anonymeter's math domain error (issues #29 / #32).
    n = max(float(n), 0.0)
    if n == 0:
        return float("nan"), float("nan")
    return wilson_centre(min(max(float(k), 0.0), n), n, confidence=confidence)


def _with_summary(result: AttackResult, confidence: float) -> AttackResult:
    """Fill value, ci, baseline and the rate keys of ``extra`` from the stored counts."""
    ra, ea = _wilson(result.n_success, result.n_attacks, confidence)
    rb, eb = _wilson(result.n_baseline_success, result.n_baseline_attacks, confidence)
    extra = dict(result.extra)
    extra.update({
        "attack_rate": ra, "attack_ci": list(bounded_estimate(ra, ea)[1]),
        "baseline_rate": rb, "baseline_ci": list(bounded_estimate(rb, eb)[1]),
        "n_attacks": int(result.n_attacks), "n_success": float(result.n_success),
        "n_baseline_attacks": int(result.n_baseline_attacks),
        "n_baseline_success": float(result.n_baseline_success),
        "beats_baseline": bool(ra > rb), "confidence": confidence,
    })
    if result.n_control_success is None:
        risk, err = ra, ea
        extra.update({"control_rate": None, "control_ci": None, "n_control_attacks": 0,
                      "n_control_success": None})
    else:
        rc, ec = _wilson(result.n_control_success, result.n_control_attacks, confidence)
        risk = control_baseline_risk(ra, rc)
        err = control_baseline_error(ra, ea, rc, ec)
        extra.update({"control_rate": rc, "control_ci": list(bounded_estimate(rc, ec)[1]),
                      "n_control_attacks": int(result.n_control_attacks),
                      "n_control_success": float(result.n_control_success)})
    value, ci = bounded_estimate(risk, err)
    extra.update({"risk_unclipped": risk, "risk_error": err})
    baseline = bounded_estimate(rb, eb)[0] if math.isfinite(rb) else None
    return replace(result, value=value, ci=ci, baseline=baseline, extra=extra,
                   confidence=confidence)


def _warn_untrustworthy(result: AttackResult, attack: str) -> None:
    ex = result.extra
    ra, rb = ex.get("attack_rate"), ex.get("baseline_rate")
    if ra is not None and rb is not None and not ra > rb:
        warnings.warn(
            f"The {attack} attack does no better than its random-guess baseline "
            f"(success {ra:.3f} vs baseline {rb:.3f}); the risk estimate cannot be trusted "
            "as evidence either way.", UntrustworthyResultWarning, stacklevel=3)
    if result.n_control_success is not None and result.n_control_attacks > 0 and \
            result.n_control_success >= result.n_control_attacks:
        warnings.warn(
            f"The {attack} attack succeeds on every control target, so what it learns about "
            "members cannot be told apart from what it learns about anyone; the relative "
            "risk is near 0 by construction. Read the absolute success rate "
            "(extra['attack_rate']) instead.", UntrustworthyResultWarning, stacklevel=3)


def _warn_no_control(attack: str) -> None:
    warnings.warn(
        f"No holdout was given: the {attack} risk is the absolute attack success rate, which "
        "also counts what the release teaches about the population (non-members). Give "
        "real rows the generator never saw as `holdout` for the control baseline "
        "(risk-insertion framework §5.3.2; consensus R7).",
        UntrustworthyResultWarning, stacklevel=3)


def _check_n_attacks(n_attacks: int | None) -> int | None:
    return None if n_attacks is None else check_positive_int("n_attacks", n_attacks)


def _single_release(data: ReviewData) -> pd.DataFrame:
    if len(data.synthetic) != 1:
        raise ParameterError(
            f"Attacks evaluate one synthetic release at a time; got {len(data.synthetic)}. "
            "Call the measure once per release (consensus R10 asks for each release and "
            "their average).")
    return data.synthetic[0]


def _rngs(seed: int, n: int) -> list[np.random.Generator]:
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]


def _sample_rows(frame: pd.DataFrame, n: int | None, rng: np.random.Generator) -> pd.DataFrame:
    """``n`` rows without replacement in input order (all rows for None or n >= len)."""
    if n is None or n >= len(frame):
        return frame
    return frame.iloc[_sample_positions(len(frame), n, rng)]


def _check_holdout(data: ReviewData) -> pd.DataFrame | None:
    if data.holdout is not None and len(data.holdout) == 0:
        raise InsufficientDataError("The holdout table has no rows; give at least one.")
    return data.holdout


def _resolve_columns(data: ReviewData, columns: Sequence[str] | None, name: str,
                     default: Sequence[str]) -> list[str]:
    cols = list(default) if columns is None else (
        [columns] if isinstance(columns, str) else list(columns))
    if not cols:
        raise ParameterError(f"`{name}` must name at least one column; got an empty list.")
    for c in cols:
        if c not in data.schema or not data.schema[c].included:
            raise ThreatModelError(
                f"`{name}` names {c!r}, which is not an analysed column of the real table; "
                f"available: {', '.join(data.schema.included)}.")
    dup = sorted({c for c in cols if cols.count(c) > 1})
    if dup:
        raise ParameterError(f"`{name}` repeats {', '.join(map(repr, dup))}.")
    return cols


# ============================================================================ distances
def _gower_matrix(encoder: TableEncoder, frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """Range-scaled numerics and one-hot categoricals weighted 1/2: under L1 a category
    mismatch adds exactly 1 (two half-weight indicators differ), as Anonymeter's
    Gower-like distance."""
    x = encoder.transform(frame, columns).astype(np.float64)
    cat = np.array([not encoder.schema[c].is_numeric for c in encoder.feature_columns(columns)])
    if cat.any():
        x[:, cat] *= 0.5
    return x


@dataclass
class _MixedSpace:
    """One table in the attacker's mixed-type space: the Gower matrix, its numeric part and
    a group id per row (the combination of its category levels)."""

    full: np.ndarray
    numeric: np.ndarray
    group: np.ndarray

    @classmethod
    def of(cls, encoder: TableEncoder, frame: pd.DataFrame, columns: list[str]) -> _MixedSpace:
        full = _gower_matrix(encoder, frame, columns)
        is_num = np.array([encoder.schema[c].is_numeric for c in encoder.feature_columns(columns)])
        group = np.zeros(len(frame), dtype=np.int64)
        for c in columns:
            if not encoder.schema[c].is_numeric:
                cats = encoder.categories_[c]
                codes = pd.Categorical(frame[c].to_numpy(dtype=object), categories=cats).codes
                group = group * (len(cats) + 1) + codes.astype(np.int64) + 1
        return cls(full, np.ascontiguousarray(full[:, is_num]), group)


def _knn_random_ties(query: _MixedSpace, reference: _MixedSpace, k: int,
                     perm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact k nearest reference rows under the mixed L1 distance, ties broken by the
    random order ``perm``.

    Speed-up, still exact: a reference row of another category combination is at least 1
    away (one mismatch), so when the k-th neighbour found among the rows of the query's
    own combination (numeric columns only) is closer than 1, no other row can enter the
    list; the remaining queries get a full search. Both searches rank ties by position in
    ``perm``, so the result is the one of a single full search.
    """
    ref_full, ref_num, ref_group = reference.full[perm], reference.numeric[perm], \
        reference.group[perm]
    n_q = len(query.full)
    dist = np.empty((n_q, k))
    idx = np.empty((n_q, k), dtype=np.int64)
    todo = np.ones(n_q, dtype=bool)
    groups = np.unique(query.group)
    single = np.unique(ref_group).size == 1
    if groups.size <= _MAX_GROUPS and (single or ref_num.shape[1] > 0):
        order = np.argsort(ref_group, kind="stable")  # keeps the random order within groups
        sorted_group = ref_group[order]
        for g in groups:
            lo, hi = np.searchsorted(sorted_group, [g, g + 1])
            if hi - lo < k:
                continue
            members = order[lo:hi]
            rows = np.flatnonzero(query.group == g)
            d, i = nearest_neighbors(query.numeric[rows], ref_num[members], k=k, metric="l1",
                                     max_block=_KNN_BLOCK)
            ok = np.ones(len(rows), dtype=bool) if single else d[:, -1] < 1.0
            dist[rows[ok]] = d[ok]
            idx[rows[ok]] = members[i[ok]]
            todo[rows[ok]] = False
    if todo.any():
        d, i = nearest_neighbors(query.full[todo], ref_full, k=k, metric="l1",
                                 max_block=_KNN_BLOCK)
        dist[todo] = d
        idx[todo] = i
    return dist, perm[idx]


# ============================================================================ singling out
# Predicate operators; every condition is coded as a rank interval [lo, hi] (negated for
# "!="), with -1 the rank of a missing numeric value.
_EQ, _NE, _GT, _LT, _GE, _LE, _ISNA, _NOTNA = range(8)
_SYMBOL = {_EQ: "==", _NE: "!=", _GT: ">", _LT: "<", _GE: ">=", _LE: "<="}
_TOP = np.iinfo(np.int32).max


@dataclass
class _RankCoder:
    """Per-column dense ranks over the union of values in the tables (missing = -1).

    Comparisons between ranks are the comparisons between values, so predicates can be
    evaluated on int32 arrays.
    """

    columns: list[str]
    numeric: np.ndarray
    universe: list[np.ndarray]

    @classmethod
    def fit_codes(cls, schema: Schema, columns: list[str], frames: Sequence[pd.DataFrame],
                  known: Sequence[Mapping[str, np.ndarray]] = ()
                  ) -> tuple[_RankCoder, list[np.ndarray]]:
        """The coder of ``frames`` and each frame's (n_columns, n_rows) int32 codes.

        A categorical column whose level positions every frame already has in ``known``
        (from canonicalisation, :meth:`ReviewData.codes_of`) is used as is, with the
        schema's sorted levels as its universe. Any other column takes one hash pass over
        the stacked column (``pd.factorize``; missing -> -1) and a sort of the distinct
        values only: the tables are canonical (no infinities), so the factorized distinct
        values are exactly the universe.
        """
        numeric = np.array([schema[c].is_numeric for c in columns])
        bounds = np.cumsum([0, *(len(f) for f in frames)])
        out = [np.empty((len(columns), len(f)), dtype=np.int32) for f in frames]
        universe = []
        for j, (c, is_num) in enumerate(zip(columns, numeric)):
            if not is_num and len(known) == len(frames) and all(c in k for k in known):
                for o, k in zip(out, known):
                    o[j] = k[c]
                universe.append(np.array(schema[c].categories, dtype=object))
                continue
            stacked = np.concatenate([f[c].to_numpy(dtype=float if is_num else object)
                                      for f in frames])
            codes, distinct = pd.factorize(stacked)
            distinct = np.asarray(distinct, dtype=float if is_num else str)
            order = np.argsort(distinct)  # distinct values: no ties, any sort is exact
            rank = np.empty(distinct.size + 1, dtype=np.int32)
            rank[order] = np.arange(distinct.size, dtype=np.int32)
            rank[-1] = -1  # code -1 (missing) indexes the last slot
            coded = rank[codes]
            for i, o in enumerate(out):
                o[j] = coded[bounds[i]:bounds[i + 1]]
            sorted_values = distinct[order]
            universe.append(sorted_values if is_num else sorted_values.astype(object))
        return cls(list(columns), numeric, universe), out

    def subset(self, positions: Sequence[int]) -> _RankCoder:
        return _RankCoder([self.columns[i] for i in positions], self.numeric[list(positions)],
                          [self.universe[i] for i in positions])

    def describe(self, cols: np.ndarray, ops: np.ndarray, vals: np.ndarray) -> str:
        parts = []
        for c, o, v in zip(cols, ops, vals):
            name = self.columns[c]
            if o == _ISNA:
                parts.append(f"{name} is missing")
            elif o == _NOTNA:
                parts.append(f"{name} is not missing")
            else:
                value = self.universe[c][v]
                text = f"{float(value):.10g}" if self.numeric[c] else repr(str(value))
                parts.append(f"{name} {_SYMBOL[int(o)]} {text}")
        return " & ".join(parts)


def _intervals(ops: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rank interval [lo, hi] and negation flag of each condition."""
    v = vals.astype(np.int64)
    lo = np.select([ops == _GT, ops == _LT, ops == _LE, ops == _ISNA, ops == _NOTNA],
                   [v + 1, 0, 0, -1, 0], default=v)
    hi = np.select([ops == _GT, ops == _GE, ops == _LT, ops == _ISNA, ops == _NOTNA],
                   [_TOP, _TOP, v - 1, -1, _TOP], default=v)
    return lo, hi, ops == _NE


def _count_matches(codes: np.ndarray, cols: np.ndarray, ops: np.ndarray, vals: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Rows matched by each predicate (a conjunction of conditions), and one matched row.

    ``codes`` is (n_columns, n_rows); ``cols``, ``ops``, ``vals`` are (n_predicates,
    n_conditions). Returns counts and the position of a matching row (-1 if none).
    """
    n_rows = codes.shape[1]
    n_q, m = cols.shape
    counts = np.zeros(n_q, dtype=np.int64)
    first = np.full(n_q, -1, dtype=np.int64)
    if n_q == 0 or n_rows == 0:
        return counts, first
    lo, hi, neg = _intervals(ops, vals)
    if m == 1:
        for c in np.unique(cols[:, 0]):
            sel = cols[:, 0] == c
            counts[sel], first[sel] = _interval_counts(codes[c], lo[sel, 0], hi[sel, 0],
                                                       neg[sel, 0])
        return counts, first
    chunk = max(1, _MASK_BLOCK // n_rows)
    for start in range(0, n_q, chunk):
        sl = slice(start, min(n_q, start + chunk))
        mask = _condition_mask(codes, cols[sl, 0], lo[sl, 0], hi[sl, 0], neg[sl, 0])
        for j in range(1, m):
            mask &= _condition_mask(codes, cols[sl, j], lo[sl, j], hi[sl, j], neg[sl, j])
        c = np.count_nonzero(mask, axis=1)
        counts[sl] = c
        first[sl] = np.where(c > 0, mask.argmax(axis=1), -1)
    return counts, first


def _interval_counts(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, neg: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Counts and a matching row of one-condition predicates ``[lo, hi]`` (negated where
    ``neg``) on one coded column.

    Codes are dense ranks, so a histogram of the column (slot 0: missing, rank r: slot
    r + 1) and its cumulative sum answer every interval in O(1): no pass over the rows per
    predicate. (One histogram over all columns at once was slower: its larger temporaries
    cost more than the per-column calls save.)
    """
    n = x.size
    top = int(max(x.max(initial=-1), lo.max(initial=-1), hi[hi < _TOP].max(initial=-1))) + 1
    shifted = x.astype(np.intp) + 1
    hist = np.bincount(shifted, minlength=top + 1)
    cum = np.concatenate([[0], np.cumsum(hist)])  # cum[k]: rows in slots < k
    a = np.clip(lo + 1, 0, top + 1)
    b = np.clip(hi + 1, -1, top)
    inside = np.where(b >= a, cum[b + 1] - cum[np.minimum(a, b + 1)], 0)
    counts = np.where(neg, (n - hist[0]) - inside, inside)
    row_of = np.full(top + 1, -1, dtype=np.int64)
    row_of[shifted] = np.arange(n)  # a row holding each slot's value
    # the first occupied slot from a; for "!= v", the first occupied slot other than v's
    slot = np.searchsorted(cum, cum[a], side="right") - 1
    occupied = np.flatnonzero(hist[1:]) + 1
    if neg.any() and occupied.size:
        other = occupied[1] if occupied.size > 1 else occupied[0]
        slot = np.where(neg, np.where(occupied[0] != a, occupied[0], other), slot)
    first = np.where(counts > 0, row_of[np.clip(slot, 0, top)], -1)
    return counts, first


def _condition_mask(codes: np.ndarray, cols: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                    neg: np.ndarray) -> np.ndarray:
    """(n_predicates, n_rows) truth of one condition of each predicate."""
    x = codes[cols]  # gathered column values
    cond = x >= lo[:, None]
    cond &= x <= hi[:, None]
    if neg.any():
        cond[neg] = ~cond[neg] & (x[neg] >= 0)
    return cond


class _BitIndex:
    """Bitsets of the synthetic rows matching each generator condition, for fast counting.

    A multivariate predicate's condition on one column depends only on the drawn value
    (``>=``/``<=`` by its side of the median, ``==`` for categoricals, ``is missing``), so
    each (column, value) gets one bitset over the synthetic rows, built by cumulative ORs
    over the sorted values. A predicate's match count is then the popcount of the AND of
    its ``n_cols`` bitsets: a few kilobytes per predicate instead of a pass over the table.

    ``rows`` restricts the bitsets to a subset of the synthetic rows (for tables whose
    full index would not fit in memory): counts are then over that subset, a lower bound
    of the full counts, used to discard predicates that match two or more rows.
    """

    def __init__(self, syn_codes: np.ndarray, numeric: np.ndarray, above: list[np.ndarray],
                 rows: np.ndarray | None = None):
        self.exact = rows is None
        sub = syn_codes if rows is None else syn_codes[:, rows]
        n_rows = sub.shape[1]
        n_words = -(-n_rows // 64)
        pos = np.arange(n_rows)
        bit = np.left_shift(np.uint64(1), (pos % 64).astype(np.uint64))
        blocks, self.present, offsets, start = [], [], [], 0
        for c in range(syn_codes.shape[0]):
            # one bitset per value present anywhere in the release (row 0: missing)
            present = np.unique(syn_codes[c][syn_codes[c] >= 0])
            local = np.where(sub[c] >= 0, np.searchsorted(present, sub[c]) + 1, 0)
            exact = np.zeros((present.size + 1, n_words), dtype=np.uint64)
            np.bitwise_or.at(exact, (local, pos // 64), bit)
            if numeric[c] and present.size:
                values = exact[1:]
                ge = np.bitwise_or.accumulate(values[::-1], axis=0)[::-1]
                le = np.bitwise_or.accumulate(values, axis=0)
                exact[1:] = np.where(above[c][present][:, None], ge, le)
            blocks.append(exact)
            self.present.append(present)
            offsets.append(start)
            start += present.size + 1
        self.table = np.concatenate(blocks)
        self.offsets = np.array(offsets, dtype=np.int64)

    @staticmethod
    def rows_within(syn_codes: np.ndarray, budget: int) -> int:
        """Most rows whose index (plus the cumulative copies of the largest column) fits
        in ``budget`` bytes."""
        sizes = [np.unique(x).size + 1 for x in syn_codes]
        per_word = (sum(sizes) + 2 * max(sizes, default=0)) * 8
        return int(budget // max(per_word, 1)) * 64

    def counts(self, cols: np.ndarray, vals: np.ndarray) -> np.ndarray:
        local = np.zeros(cols.shape, dtype=np.int64)
        for c in np.unique(cols):
            at = cols == c
            v = vals[at]
            local[at] = np.where(v >= 0, np.searchsorted(self.present[c], v) + 1, 0)
        ids = self.offsets[cols] + local
        acc = self.table[ids[:, 0]].copy()
        for j in range(1, ids.shape[1]):
            acc &= self.table[ids[:, j]]
        return np.bitwise_count(acc).sum(axis=1, dtype=np.int64)


def _generator_index(syn_codes: np.ndarray, numeric: np.ndarray, above: list[np.ndarray],
                     rng: np.random.Generator) -> _BitIndex | None:
    """The exact bit index when it fits the memory budget, else one over a random subset
    of rows (a pre-filter), else none."""
    n_rows = syn_codes.shape[1]
    fit = _BitIndex.rows_within(syn_codes, _BITSET_BUDGET)
    if fit >= n_rows:
        return _BitIndex(syn_codes, numeric, above)
    if fit < _MIN_PREFILTER_ROWS:
        return None
    return _BitIndex(syn_codes, numeric, above,
                     rows=np.sort(rng.choice(n_rows, size=fit, replace=False)))


def _multivariate_queries(syn_codes: np.ndarray, numeric: np.ndarray, above: list[np.ndarray],
                          *, n_queries: int, n_cols: int, max_attempts: int,
                          rng: np.random.Generator, bits: _BitIndex | None = None
                          ) -> tuple[Any, ...]:
    """Predicates from random synthetic records that single out exactly one of them.

    For a random record and ``n_cols`` random columns: numeric ``>= v`` when v is above
    the column's synthetic median, ``<= v`` otherwise, ``is missing`` for NaN;
    categorical ``== v``. Kept when it matches exactly one synthetic row and was not
    kept before (``metric-reference.md`` §2, Anonymeter's multivariate generator).
    """
    n_col_total, n_syn = syn_codes.shape
    kept_c: list[np.ndarray] = []
    kept_o: list[np.ndarray] = []
    kept_v: list[np.ndarray] = []
    seen: set[bytes] = set()
    attempts = idle = 0
    status = "complete"
    while len(kept_c) < n_queries:
        if attempts >= max_attempts:
            status = "max_attempts"
            break
        if idle >= _SATURATION_BATCHES:
            status = "saturated"
            break
        b = min(_QUERY_BATCH, max_attempts - attempts)
        rows = rng.integers(0, n_syn, size=b)
        cols = np.sort(np.argsort(rng.random((b, n_col_total)), axis=1)[:, :n_cols], axis=1)
        vals = syn_codes[cols, rows[:, None]]
        ops = np.full(cols.shape, _EQ, dtype=np.int8)
        for c in np.flatnonzero(numeric):
            at = cols == c
            if not at.any():
                continue
            v = vals[at]
            ops[at] = np.where(v < 0, _ISNA, np.where(above[c][np.maximum(v, 0)], _GE, _LE))
        if bits is None:
            counts = _count_matches(syn_codes, cols, ops, vals)[0]
        elif bits.exact:
            counts = bits.counts(cols, vals)
        else:
            # two matches in the subset mean two in the release: only the rest is counted
            counts = bits.counts(cols, vals)
            maybe = np.flatnonzero(counts <= 1)
            counts[maybe] = _count_matches(syn_codes, cols[maybe], ops[maybe], vals[maybe])[0]
        attempts += b
        added = 0
        for i in np.flatnonzero(counts == 1):
            key = cols[i].tobytes() + ops[i].tobytes() + vals[i].tobytes()
            if key in seen:
                continue
            seen.add(key)
            kept_c.append(cols[i])
            kept_o.append(ops[i])
            kept_v.append(vals[i])
            added += 1
            if len(kept_c) >= n_queries:
                break
        idle = 0 if added else idle + 1
    return (*_stack(kept_c, kept_o, kept_v, n_cols), attempts, status)


def _univariate_queries(syn_codes: np.ndarray, numeric: np.ndarray, *, n_queries: int,
                        rng: np.random.Generator) -> tuple[Any, ...]:
    """Single-column predicates from rare synthetic values: ``is missing`` when exactly one
    value is missing, ``<= min`` and ``>= max`` of numerics, ``== v`` for values seen once;
    shuffled and kept when they match exactly one synthetic row (Anonymeter's univariate
    generator)."""
    parts: list[np.ndarray] = []
    for c in range(syn_codes.shape[0]):
        hist = np.bincount(syn_codes[c].astype(np.intp) + 1)  # slot 0: missing
        present = np.flatnonzero(hist[1:])
        # (column, operator, value, matches exactly one synthetic row)
        if numeric[c]:
            if hist[0] == 1:
                parts.append(np.array([[c, _ISNA, -1, 1]]))
            if present.size:
                lo, hi = present[0], present[-1]
                parts.append(np.array([[c, _LE, lo, hist[lo + 1] == 1],
                                       [c, _GE, hi, hist[hi + 1] == 1]]))
        once = np.flatnonzero(hist[1:] == 1)
        parts.append(np.column_stack([np.full(once.size, c), np.full(once.size, _EQ), once,
                                      np.ones(once.size, dtype=np.int64)]))
    cands = np.concatenate(parts).astype(np.int64) if parts else np.zeros((0, 4), np.int64)
    if not len(cands):
        return (*_stack([], [], [], 1), 0, "complete")
    arr = cands[rng.permutation(len(cands))]
    # candidates are distinct by construction ("<= min" and "== min" are two predicates)
    keep = np.flatnonzero(arr[:, 3] == 1)[:n_queries]
    cols, ops, vals = arr[keep, :1], arr[keep, 1:2].astype(np.int8), arr[keep, 2:3]
    status = "complete" if keep.size >= n_queries else "exhausted"
    return cols, ops, vals.astype(np.int32), len(cands), status


def _stack(c: list, o: list, v: list, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not c:
        return (np.zeros((0, m), dtype=np.int64), np.zeros((0, m), dtype=np.int8),
                np.zeros((0, m), dtype=np.int32))
    return np.array(c, dtype=np.int64), np.array(o, dtype=np.int8), np.array(v, dtype=np.int32)


def _random_queries(syn_codes: np.ndarray, numeric: np.ndarray, *, n_queries: int, n_cols: int,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The random-guess baseline: random columns, a random synthetic value of each and a
    random operator (categorical ==/!=, numeric any comparison; missing -> is (not)
    missing), not filtered on the synthetic data."""
    n_col_total = syn_codes.shape[0]
    cols = np.sort(np.argsort(rng.random((n_queries, n_col_total)), axis=1)[:, :n_cols], axis=1)
    vals = np.zeros(cols.shape, dtype=np.int32)
    ops = np.zeros(cols.shape, dtype=np.int8)
    numeric_ops = np.array([_EQ, _NE, _GT, _LT, _GE, _LE], dtype=np.int8)
    for c in range(n_col_total):
        at = cols == c
        n_at = int(at.sum())
        if not n_at:
            continue
        uniq = np.flatnonzero(np.bincount(syn_codes[c].astype(np.intp) + 1)) - 1  # sorted
        vals[at] = uniq[rng.integers(0, uniq.size, size=n_at)]
        pool = numeric_ops if numeric[c] else numeric_ops[:2]
        ops[at] = pool[rng.integers(0, pool.size, size=n_at)]
    missing = vals < 0
    ops[missing] = np.where(ops[missing] == _EQ, _ISNA, _NOTNA)
    return cols, ops, vals


def _so_probability_integral(n: Any, w: float) -> Any:
    """Integral over [0, w] of n·x·(1-x)^(n-1), the chance that a query of weight x singles
    out one of n rows (Cohen & Nissim 2020; Anonymeter)."""
    return (1 - (n * w + 1) * (1 - w) ** n) / (n + 1)


def _size_correction_factor(ctrl_codes: np.ndarray, queries: tuple[np.ndarray, ...],
                            n_training: int, rng: np.random.Generator) -> float:
    """Anonymeter's correction f(|T|) / f(|C|): successes on control subsamples of 10 sizes
    x 5 repeats, fitted by ``norm · integral(n, w)``."""
    n_ctrl = ctrl_codes.shape[1]
    sizes, wins = [], []
    for n_rows in np.linspace(min(1000, n_ctrl), n_ctrl, 10).astype(int):
        for _ in range(5):
            pick = rng.choice(n_ctrl, size=n_rows, replace=False)
            counts, _ = _count_matches(ctrl_codes[:, pick], *queries)
            sizes.append(n_rows)
            wins.append(int((counts == 1).sum()))
    x, y = np.array(sizes, dtype=float), np.array(wins, dtype=float)

    def model(n: np.ndarray, w: float, norm: float) -> np.ndarray:
        return norm * _so_probability_integral(n, w)

    w0 = 1 / x.max()
    popt, _ = curve_fit(model, x, y, p0=(w0, 1 / _so_probability_integral(x.max(), w0)),
                        bounds=(0, (1, np.inf)))
    denom = model(np.array(float(n_ctrl)), *popt)
    if not np.isfinite(denom) or denom <= 0:
        raise RuntimeError("degenerate size-correction fit")
    return float(model(np.array(float(n_training)), *popt) / denom)


def _so_table(guesses: list[str], labels: np.ndarray, counts: np.ndarray, first: np.ndarray,
              role: str) -> pd.DataFrame:
    hit = counts == 1
    record = np.empty(len(counts), dtype=object)
    record[:] = None
    record[hit] = labels[first[hit]]
    return pd.DataFrame({
        "record": record, "role": role, "query": np.arange(len(counts)),
        "guess": guesses, "truth": counts, "success": hit,
    })


def _describe_all(coder: _RankCoder, queries: tuple[np.ndarray, ...]) -> list[str]:
    """Each predicate's text, as :meth:`_RankCoder.describe` (conditions are formatted once
    per distinct (column, operator, value))."""
    cols, ops, vals = queries
    if not len(cols):
        return []
    keys = cols * 16 + ops  # 8 operators
    conds = np.empty(cols.shape, dtype=object)
    for key in np.unique(keys):
        at = keys == key
        c, o = divmod(int(key), 16)
        name = coder.columns[c]
        if o == _ISNA:
            conds[at] = f"{name} is missing"
        elif o == _NOTNA:
            conds[at] = f"{name} is not missing"
        else:
            head = f"{name} {_SYMBOL[o]} "
            values = coder.universe[c][vals[at]]
            conds[at] = [head + (f"{float(v):.10g}" if coder.numeric[c] else repr(str(v)))
                         for v in values]
    if cols.shape[1] == 1:
        return conds[:, 0].tolist()
    return [" & ".join(row) for row in conds.tolist()]


def _distinct_rows(codes: np.ndarray, universe_sizes: Sequence[int]) -> np.ndarray:
    """Positions of the first occurrence of each distinct row of coded columns (in order;
    as ``DataFrame.drop_duplicates``: equal codes are equal values, missing included)."""
    key = np.zeros(codes.shape[1], dtype=np.int64)
    bound = 1  # key < bound
    for x, size in zip(codes, universe_sizes):
        width = int(size) + 1  # ranks and "missing"
        if bound > (1 << 62) // width:
            key = pd.factorize(key)[0].astype(np.int64)  # re-densify before overflow
            bound = int(key.max(initial=0)) + 1
        key = key * width + (x.astype(np.int64) + 1)
        bound *= width
    return np.flatnonzero(~pd.Series(key).duplicated().to_numpy())


def _sample_positions(n_rows: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """:func:`_sample_rows` on positions: ``n`` of ``n_rows`` without replacement, in order."""
    if n >= n_rows:
        return np.arange(n_rows)
    return np.sort(rng.choice(n_rows, size=n, replace=False))


def singling_out(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    mode: str = "multivariate",
    columns: Sequence[str] | None = None,
    n_attacks: int | None = 500,
    n_cols: int = 3,
    max_attempts: int = 10_000_000,
    size_correction: str = "subsample",
    confidence: float = 0.95,
    seed: int = 0,
) -> AttackResult:
    """Singling-out risk: predicates isolating one synthetic record, tried on real data.

    Parameters
    ----------
    real, synthetic, holdout
        Training data, one synthetic release, and real rows the generator never saw (the
        control set; optional, see the module notes).
    threat, schema
        The threat model and (optionally) the schema; see ``prepare_review``.
    mode
        ``multivariate`` (``n_cols`` columns per predicate) or ``univariate``.
    columns
        Columns the predicates may use; default every analysed column (Anonymeter's use,
        and the setting of the risk-insertion experiments). Pass
        ``threat.quasi_identifiers`` for the QI-only reading of consensus R1.
    n_attacks
        Predicates to generate (the Wilson denominator, even when fewer are found, as
        Anonymeter). None: one per distinct training record.
    n_cols
        Conditions per multivariate predicate.
    max_attempts
        Cap on predicates drawn; drawing also stops after 100 rounds of 1,000 draws that
        add no new predicate (``params["generation"]`` says which).
    size_correction
        How the control count is made comparable when |control| != |training|:
        ``subsample`` (default) evaluates training and control on random subsets of equal
        size (the larger one subsampled, seeded); ``fit`` is Anonymeter's correction
        f(|T|)/f(|C|) fitted by ``curve_fit`` on control subsamples (falls back to
        ``subsample`` with a warning if the fit fails); ``none`` uses raw counts.
    confidence
        Level of the Wilson intervals.
    seed
        Seed of every random step (``SeedSequence`` children).

    Returns
    -------
    AttackResult
        Named ``singling_out``. ``records``: one row per (predicate, role) with ``guess``
        the predicate text, ``truth`` the number of rows it matches, ``success`` (exactly
        one) and ``record`` the singled-out row's index label.

    Raises
    ------
    ParameterError
        Bad option values, ``n_cols`` larger than the number of columns, several releases.
    ThreatModelError
        ``columns`` names a column that is not analysed.

    Notes
    -----
    Giomi et al. (PoPETs 2023); ``risk-insertion-framework.md`` §4.3.1 (guesses as
    Bernoulli trials, Wilson interval) and §5.3.2 (control set); ``metric-reference.md``
    §2 (generation, baseline, size correction). Training, synthetic and control tables are
    de-duplicated first, as in Anonymeter.
    """
    check_choice("mode", mode, SINGLING_OUT_MODES)
    check_choice("size_correction", size_correction, SIZE_CORRECTIONS)
    n_attacks = _check_n_attacks(n_attacks)
    n_cols = check_positive_int("n_cols", n_cols)
    max_attempts = check_positive_int("max_attempts", max_attempts)
    confidence = check_confidence(confidence)
    seed = check_seed(seed)
    data = prepare_review(real, synthetic, threat=threat, holdout=holdout, schema=schema)
    syn_full = _single_release(data)
    hold = _check_holdout(data)
    cols = _resolve_columns(data, columns, "columns", data.schema.included)
    m = n_cols if mode == "multivariate" else 1
    if m > len(cols):
        raise ParameterError(
            f"`n_cols` must be at most the number of columns used ({len(cols)}); got {n_cols}.")
    # every table is coded once; de-duplication (over all analysed columns, as Anonymeter)
    # and every predicate count then work on the int32 codes
    included = data.schema.included
    frames = [data.real, syn_full] + ([hold] if hold is not None else [])
    full_coder, coded = _RankCoder.fit_codes(data.schema, included, frames,
                                             [data.codes_of(f) for f in frames])
    sizes = [len(u) for u in full_coder.universe]
    distinct = [_distinct_rows(x, sizes) for x in coded]
    on_cols = [included.index(c) for c in cols]
    coder = full_coder.subset(on_cols)
    if on_cols != list(range(len(included))):
        coded = [x[on_cols] for x in coded]
    ori_codes, syn_codes, *rest = [x[:, keep] for x, keep in zip(coded, distinct)]
    ctrl_codes = rest[0] if rest else None
    ori_labels = data.real.index.to_numpy()[distinct[0]]
    ctrl_labels = hold.index.to_numpy()[distinct[2]] if hold is not None else None
    n_ori, n_syn = ori_codes.shape[1], syn_codes.shape[1]
    n_ctrl = None if ctrl_codes is None else ctrl_codes.shape[1]
    if n_attacks is None:
        n_attacks = n_ori
    rng_gen, rng_base, rng_size = _rngs(seed, 3)

    if mode == "multivariate":
        above = []
        for j, c in enumerate(cols):
            if coder.numeric[j]:
                x = coder.universe[j][syn_codes[j][syn_codes[j] >= 0]]
                med = float(np.median(x)) if x.size else np.inf
                above.append(coder.universe[j] > med)
            else:
                above.append(np.zeros(0, dtype=bool))
        bits = _generator_index(syn_codes, coder.numeric, above, rng_gen)
        *queries, attempts, status = _multivariate_queries(
            syn_codes, coder.numeric, above, n_queries=n_attacks, n_cols=m,
            max_attempts=max_attempts, rng=rng_gen, bits=bits)
    else:
        *queries, attempts, status = _univariate_queries(
            syn_codes, coder.numeric, n_queries=n_attacks, rng=rng_gen)
    queries_t = tuple(queries)
    n_found = len(queries_t[0])
    if n_found < n_attacks:
        warnings.warn(
            f"Only {n_found} of the {n_attacks} requested singling-out predicates could be "
            f"generated ({status}); unfound predicates count as failures, so the risk may be "
            "underestimated.", UntrustworthyResultWarning, stacklevel=2)

    # make the control count comparable when the tables differ in size
    ori_pick = np.arange(n_ori)
    ctrl_pick = None if n_ctrl is None else np.arange(n_ctrl)
    correction = 1.0
    applied = "none"
    method = size_correction
    if n_ctrl is not None and n_ctrl != n_ori and method == "fit" and n_found:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                correction = _size_correction_factor(ctrl_codes, queries_t, n_ori, rng_size)
            applied = "fit"
        except (RuntimeError, ValueError) as exc:
            warnings.warn(f"The control-size correction fit failed ({exc}); falling back to "
                          "equal-size subsamples.", UntrustworthyResultWarning, stacklevel=2)
            method = "subsample"
    if n_ctrl is not None and n_ctrl != n_ori and method == "subsample":
        size = min(n_ori, n_ctrl)
        if n_ori > size:
            ori_pick = _sample_positions(n_ori, size, rng_size)
        else:
            ctrl_pick = _sample_positions(n_ctrl, size, rng_size)
        applied = "subsample"

    guesses = _describe_all(coder, queries_t)
    ori_eval, ori_eval_labels = ori_codes[:, ori_pick], ori_labels[ori_pick]
    counts_t, first_t = _count_matches(ori_eval, *queries_t)
    k_train = int((counts_t == 1).sum())
    records = [_so_table(guesses, ori_eval_labels, counts_t, first_t, "training")]
    k_ctrl: float | None = None
    if ctrl_codes is not None:
        counts_c, first_c = _count_matches(ctrl_codes[:, ctrl_pick], *queries_t)
        k_ctrl = float((counts_c == 1).sum()) * correction
        records.append(_so_table(guesses, ctrl_labels[ctrl_pick], counts_c, first_c,
                                 "control"))

    base_q = _random_queries(syn_codes, coder.numeric, n_queries=n_attacks, n_cols=m, rng=rng_base)
    counts_b, first_b = _count_matches(ori_eval, *base_q)
    baseline_table = _so_table(_describe_all(coder, base_q), ori_eval_labels, counts_b,
                               first_b, "baseline")

    params = {
        "mode": mode, "columns": cols, "n_attacks": n_attacks, "n_cols": m,
        "max_attempts": max_attempts, "attempts": int(attempts), "generation": status,
        "n_queries": n_found, "size_correction": size_correction,
        "size_correction_applied": applied, "control_correction_factor": correction,
        "n_training_rows": n_ori, "n_synthetic_rows": n_syn, "n_control_rows": n_ctrl,
        "n_training_evaluated": len(ori_pick),
        "n_control_evaluated": None if ctrl_pick is None else len(ctrl_pick),
        "control": n_ctrl is not None, "confidence": confidence, "seed": seed,
    }
    shell = AttackResult(
        name="singling_out", value=float("nan"), ci=None, params=params,
        record_table=pd.concat(records, ignore_index=True), goal="lower", bounds=(0.0, 1.0),
        n_attacks=n_attacks, n_success=k_train,
        n_control_attacks=n_attacks if n_ctrl is not None else 0, n_control_success=k_ctrl,
        n_baseline_attacks=n_attacks, n_baseline_success=int((counts_b == 1).sum()),
        confidence=confidence, baseline_table=baseline_table)
    result = _with_summary(shell, confidence)
    if n_ctrl is None:
        _warn_no_control("singling-out")
    _warn_untrustworthy(result, "singling-out")
    return result


# ============================================================================ linkability
def _link_rank(idx_a: np.ndarray, idx_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Smallest k' whose top-k' neighbour sets intersect (0 if none within k), and the
    position in ``idx_a`` of the linking record."""
    k = idx_a.shape[1]
    eq = idx_a[:, :, None] == idx_b[:, None, :]
    ranks = np.maximum.outer(np.arange(k), np.arange(k)) + 1
    rank = np.where(eq, ranks[None], k + 1).reshape(len(idx_a), -1)
    best = rank.argmin(axis=1)
    r = rank[np.arange(len(idx_a)), best]
    return np.where(r <= k, r, 0), best // k


def _linked(rank: np.ndarray, k: int) -> int:
    return int(((rank > 0) & (rank <= k)).sum())


def _random_neighbours(n_syn: int, n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """k distinct random synthetic rows per attack, in random order."""
    out = rng.integers(0, n_syn, size=(n, k))
    if k > 1:
        while True:
            srt = np.sort(out, axis=1)
            bad = np.flatnonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1))
            if bad.size == 0:
                break
            out[bad] = rng.integers(0, n_syn, size=(bad.size, k)) if 2 * k < n_syn else \
                np.array([rng.choice(n_syn, size=k, replace=False) for _ in bad])
    return out


def linkability(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    aux_cols: tuple[Sequence[str], Sequence[str]] | None = None,
    n_attacks: int | None = 500,
    n_neighbors: int = 1,
    numeric_missing: str = "median",
    confidence: float = 0.95,
    seed: int = 0,
) -> LinkabilityResult:
    """Linkability risk: can the release re-join two partial views of a real record?

    For each target the k nearest synthetic records are found using only the columns A,
    then only the columns B (mixed distance: range-scaled numeric differences plus one per
    category mismatch, summed); the target is linked when the two neighbour sets share a
    record.

    Parameters
    ----------
    real, synthetic, holdout, threat, schema
        As :func:`singling_out`.
    aux_cols
        ``(A, B)``, two disjoint, non-empty column lists. Default: the quasi-identifiers
        split in two halves (the first ceil(q/2) and the rest).
    n_attacks
        Training (and control) targets, sampled without replacement; None = every record
        (consensus R2).
    n_neighbors
        k. Results for any k' <= k are re-read with ``result.at(n_neighbors=k')``.
    numeric_missing
        Encoder strategy for numeric missing values (``median`` or ``error``).
    confidence, seed
        Interval level; seed of target sampling, tie-breaking and the baseline.

    Returns
    -------
    LinkabilityResult
        Named ``linkability``; ``records`` has ``neighbors_a`` / ``neighbors_b`` (synthetic
        index labels), ``link_rank`` (smallest k' that links, 0 = none), ``guess`` (the
        linking synthetic record) and ``success``.

    Notes
    -----
    Giomi et al. (PoPETs 2023); ``risk-insertion-framework.md`` §4.3.2;
    ``metric-reference.md`` §2 (baseline: two independent draws of k random synthetic
    rows per attack).
    """
    n_attacks = _check_n_attacks(n_attacks)
    n_neighbors = check_positive_int("n_neighbors", n_neighbors)
    confidence = check_confidence(confidence)
    seed = check_seed(seed)
    data = prepare_review(real, synthetic, threat=threat, holdout=holdout, schema=schema)
    syn = _single_release(data)
    hold = _check_holdout(data)
    if aux_cols is None:
        qis = list(data.threat.quasi_identifiers)
        if len(qis) < 2:
            raise ThreatModelError(
                "Linkability splits the quasi-identifiers into two sets and needs at least "
                f"two; the threat model has {len(qis)}. Add a quasi-identifier or pass "
                "aux_cols=(A, B).")
        half = math.ceil(len(qis) / 2)
        aux_cols = (qis[:half], qis[half:])
    if not isinstance(aux_cols, (tuple, list)) or len(aux_cols) != 2:
        raise ParameterError(f"`aux_cols` must be a pair (A, B) of column lists; got {aux_cols!r}.")
    cols_a = _resolve_columns(data, aux_cols[0], "aux_cols[0]", [])
    cols_b = _resolve_columns(data, aux_cols[1], "aux_cols[1]", [])
    both = sorted(set(cols_a) & set(cols_b))
    if both:
        raise ParameterError(
            f"The two column sets of `aux_cols` must be disjoint; both contain "
            f"{', '.join(map(repr, both))}.")
    if n_neighbors > len(syn):
        raise ParameterError(
            f"`n_neighbors` must be at most the number of synthetic rows ({len(syn)}); "
            f"got {n_neighbors}.")
    rng_t, rng_c, rng_a, rng_b, rng_base = _rngs(seed, 5)
    encoder = TableEncoder(data.schema, columns=cols_a + cols_b,
                           numeric_missing=numeric_missing).fit(data.real)
    syn_a = _MixedSpace.of(encoder, syn, cols_a)
    syn_b = _MixedSpace.of(encoder, syn, cols_b)
    perm_a, perm_b = rng_a.permutation(len(syn)), rng_b.permutation(len(syn))
    syn_labels = syn.index.to_numpy()

    def attack(targets: pd.DataFrame, role: str) -> tuple[np.ndarray, pd.DataFrame]:
        _, idx_a = _knn_random_ties(_MixedSpace.of(encoder, targets, cols_a), syn_a,
                                    n_neighbors, perm_a)
        _, idx_b = _knn_random_ties(_MixedSpace.of(encoder, targets, cols_b), syn_b,
                                    n_neighbors, perm_b)
        rank, pos = _link_rank(idx_a, idx_b)
        link = np.empty(len(rank), dtype=object)
        link[:] = None
        hit = rank > 0
        link[hit] = syn_labels[idx_a[np.flatnonzero(hit), pos[hit]]]
        table = pd.DataFrame({
            "record": targets.index.to_numpy(), "role": role,
            "neighbors_a": list(map(tuple, syn_labels[idx_a])),
            "neighbors_b": list(map(tuple, syn_labels[idx_b])),
            "link_rank": rank, "link": link, "guess": link, "truth": targets.index.to_numpy(),
            "success": hit,
        })
        return rank, table

    targets = _sample_rows(data.real, n_attacks, rng_t)
    rank_t, table_t = attack(targets, "training")
    rank_c, tables = None, [table_t]
    if hold is not None:
        rank_c, table_c = attack(_sample_rows(hold, n_attacks, rng_c), "control")
        tables.append(table_c)
    n_base = len(targets)
    base_a = _random_neighbours(len(syn), n_base, n_neighbors, rng_base)
    base_b = _random_neighbours(len(syn), n_base, n_neighbors, rng_base)
    rank_base, _ = _link_rank(base_a, base_b)
    baseline_table = pd.DataFrame({
        "attack": np.arange(n_base), "neighbors_a": list(map(tuple, syn_labels[base_a])),
        "neighbors_b": list(map(tuple, syn_labels[base_b])), "link_rank": rank_base,
        "success": rank_base > 0})
    params = {
        "aux_cols": [cols_a, cols_b], "n_attacks": n_attacks, "n_neighbors": n_neighbors,
        "n_targets": len(targets), "n_control_targets": None if rank_c is None else len(rank_c),
        "numeric_missing": numeric_missing, "distance": "l1 (range-scaled numerics + "
        "category mismatches)", "control": hold is not None, "confidence": confidence,
        "seed": seed,
    }
    shell = LinkabilityResult(
        name="linkability", value=float("nan"), ci=None, params=params,
        record_table=pd.concat(tables, ignore_index=True), goal="lower", bounds=(0.0, 1.0),
        n_attacks=len(targets), n_success=_linked(rank_t, n_neighbors),
        n_control_attacks=0 if rank_c is None else len(rank_c),
        n_control_success=None if rank_c is None else _linked(rank_c, n_neighbors),
        n_baseline_attacks=n_base, n_baseline_success=_linked(rank_base, n_neighbors),
        confidence=confidence, baseline_table=baseline_table, n_neighbors=n_neighbors,
        max_neighbors=n_neighbors, link_rank=rank_t, control_link_rank=rank_c,
        baseline_link_rank=rank_base)
    result = _with_summary(shell, confidence)
    if hold is None:
        _warn_no_control("linkability")
    _warn_untrustworthy(result, "linkability")
    return result  # type: ignore[return-value]


# ============================================================================ inference
def _resolve_secret(data: ReviewData, secret: str | None, aux: list[str]) -> str:
    target = data.threat.target if secret is None else secret
    _resolve_columns(data, [target], "secret", [])
    if target in aux:
        raise ThreatModelError(
            f"The secret {target!r} is also an auxiliary column; the attacker cannot already "
            "know what it tries to learn. Remove it from aux_cols.")
    return target


def inference_success(guess: np.ndarray, truth: np.ndarray, *, regression: bool,
                      tolerance: float = 0.05) -> np.ndarray:
    """Whether each guess of a secret is correct.

    Categorical: equal. Numeric: |g - s| <= tolerance·|s|, relative to the *true* value
    with an absolute value (Anonymeter divides by the signed guess, so any negative guess
    counted as correct: the ``[code bug]`` of ``metric-reference.md`` §2); two missing
    values count as correct, as in Anonymeter.
    """
    if not regression:
        return np.asarray(guess, dtype=object) == np.asarray(truth, dtype=object)
    g = np.asarray(guess, dtype=float)
    s = np.asarray(truth, dtype=float)
    with np.errstate(invalid="ignore"):
        ok = np.abs(g - s) <= tolerance * np.abs(s)
    return ok | (np.isnan(g) & np.isnan(s))


def distance_inference(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    aux_cols: Sequence[str] | None = None,
    secret: str | None = None,
    n_attacks: int | None = 500,
    tolerance: float = 0.05,
    regression: bool | None = None,
    numeric_missing: str = "median",
    confidence: float = 0.95,
    seed: int = 0,
) -> AttackResult:
    """Distance-based attribute inference: the secret of the nearest synthetic record.

    Parameters
    ----------
    real, synthetic, holdout, threat, schema
        As :func:`singling_out`.
    aux_cols
        Columns the attacker knows; default the quasi-identifiers.
    secret
        The column to infer; default ``threat.target``.
    n_attacks
        Training (and control) targets, sampled without replacement; None = every record.
    tolerance
        A numeric guess is correct when |g - s| <= tolerance·|s|.
    regression
        Treat the secret as numeric; default from the schema.
    numeric_missing, confidence, seed
        As :func:`linkability`.

    Returns
    -------
    AttackResult
        Named ``inference``. ``records``: ``guess`` (the neighbour's secret), ``truth``,
        ``success``, ``neighbor`` (its synthetic index label) and ``distance``. Baseline:
        secrets of random synthetic rows against an independent sample of training targets.

    Notes
    -----
    Giomi et al. (PoPETs 2023); ``risk-insertion-framework.md`` §4.3.3 (distance-based
    AIAs, k = 1) and §5.3.2; ``metric-reference.md`` §2 (with the tolerance bug fixed).
    """
    n_attacks = _check_n_attacks(n_attacks)
    tolerance = check_in_range("tolerance", tolerance, 0, 1e9)
    confidence = check_confidence(confidence)
    seed = check_seed(seed)
    data = prepare_review(real, synthetic, threat=threat, holdout=holdout, schema=schema)
    syn = _single_release(data)
    hold = _check_holdout(data)
    aux = _resolve_columns(data, aux_cols, "aux_cols", data.threat.quasi_identifiers)
    target = _resolve_secret(data, secret, aux)
    if regression is None:
        regression = bool(data.schema[target].is_numeric)
    rng_t, rng_c, rng_tie, rng_bt, rng_bg = _rngs(seed, 5)
    encoder = TableEncoder(data.schema, columns=aux, numeric_missing=numeric_missing).fit(data.real)
    syn_x = _MixedSpace.of(encoder, syn, aux)
    perm = rng_tie.permutation(len(syn))
    as_type = float if regression else object
    syn_secret = syn[target].to_numpy(dtype=as_type)

    def attack(targets: pd.DataFrame, role: str) -> tuple[int, pd.DataFrame]:
        dist, idx = _knn_random_ties(_MixedSpace.of(encoder, targets, aux), syn_x, 1, perm)
        guess = syn_secret[idx[:, 0]]
        truth = targets[target].to_numpy(dtype=as_type)
        ok = inference_success(guess, truth, regression=regression, tolerance=tolerance)
        table = pd.DataFrame({
            "record": targets.index.to_numpy(), "role": role, "guess": guess, "truth": truth,
            "success": ok, "neighbor": syn.index.to_numpy()[idx[:, 0]], "distance": dist[:, 0]})
        return int(ok.sum()), table

    targets = _sample_rows(data.real, n_attacks, rng_t)
    k_t, table_t = attack(targets, "training")
    k_c, tables = None, [table_t]
    n_c = 0
    if hold is not None:
        ctrl_targets = _sample_rows(hold, n_attacks, rng_c)
        k_c, table_c = attack(ctrl_targets, "control")
        n_c = len(ctrl_targets)
        tables.append(table_c)
    # random guess: secrets of random synthetic rows against independently drawn targets
    n_base = min(len(targets), len(syn))
    base_targets = _sample_rows(data.real, n_base, rng_bt)
    pick = rng_bg.choice(len(syn), size=n_base, replace=False)
    base_guess = syn_secret[pick]
    base_truth = base_targets[target].to_numpy(dtype=as_type)
    base_ok = inference_success(base_guess, base_truth, regression=regression, tolerance=tolerance)
    baseline_table = pd.DataFrame({"record": base_targets.index.to_numpy(), "guess": base_guess,
                                   "truth": base_truth, "success": base_ok})
    params = {
        "aux_cols": aux, "secret": target, "regression": regression, "tolerance": tolerance,
        "n_attacks": n_attacks, "n_targets": len(targets),
        "n_control_targets": n_c if hold is not None else None,
        "numeric_missing": numeric_missing, "control": hold is not None,
        "confidence": confidence, "seed": seed,
    }
    shell = AttackResult(
        name="inference", value=float("nan"), ci=None, params=params,
        record_table=pd.concat(tables, ignore_index=True), goal="lower", bounds=(0.0, 1.0),
        n_attacks=len(targets), n_success=k_t, n_control_attacks=n_c, n_control_success=k_c,
        n_baseline_attacks=n_base, n_baseline_success=int(base_ok.sum()),
        confidence=confidence, baseline_table=baseline_table)
    result = _with_summary(shell, confidence)
    if hold is None:
        _warn_no_control("inference")
    _warn_untrustworthy(result, "inference")
    return result


# ============================================================================ ML inference
def _continuous_summary(result: MLInferenceResult, confidence: float) -> MLInferenceResult:
    reps = result.score_replicates
    s_t, s_h = result.scores["training"], result.scores["control"]
    risk = control_baseline_risk(s_t, s_h)
    with np.errstate(divide="ignore", invalid="ignore"):
        boot = np.where(reps["control"] < 1, (reps["training"] - reps["control"])
                        / (1 - reps["control"]), np.nan)
    lo, hi = (float(v) for v in percentile_interval(boot, confidence=confidence)) \
        if np.isfinite(boot).any() else (float("nan"), float("nan"))
    clip = (lambda x: float(min(max(x, 0.0), 1.0)))
    value = clip(risk) if math.isfinite(risk) else float("nan")
    ci = (clip(lo), clip(hi)) if math.isfinite(lo) and math.isfinite(hi) else None
    extra = dict(result.extra)
    extra.update({"relative_risk": risk, "risk_unclipped": risk, "confidence": confidence,
                  "relative_ci": None if ci is None else [float(lo), float(hi)]})
    return replace(result, value=value, ci=ci, baseline=result.scores["baseline"],
                   confidence=confidence, extra=extra)


def ml_inference(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    aux_cols: Sequence[str] | None = None,
    secret: str | None = None,
    n_attacks: int | None = 500,
    tolerance: float = 0.05,
    n_bootstrap: int = 1000,
    numeric_missing: str = "median",
    confidence: float = 0.95,
    n_jobs: int = -1,
    seed: int = 0,
) -> MLInferenceResult:
    """ML attribute inference: gradient boosting trained on the release, scored on members
    (training targets) against non-members (holdout targets).

    Parameters
    ----------
    real, synthetic, threat, schema
        As :func:`singling_out`.
    holdout
        Required: the non-member targets.
    aux_cols, secret
        Attacker's inputs (default the quasi-identifiers) and the column to infer (default
        ``threat.target``).
    n_attacks
        Targets drawn from each of training and holdout; None = every record.
    tolerance
        Per-record correctness of a continuous guess in ``records`` (|g - s| <= tol·|s|);
        the headline score does not use it.
    n_bootstrap
        Bootstrap replicates of the continuous scores' intervals.
    numeric_missing, confidence
        As :func:`linkability`.
    n_jobs
        Threads for xgboost (-1: all).
    seed
        Seed of target sampling, the model, the baseline and the bootstrap.

    Returns
    -------
    MLInferenceResult
        Named ``ml_inference``; ``value`` = clipped relative risk (r_T - r_H)/(1 - r_H)
        with r the accuracy (categorical) or 1 - RMSE/range (continuous; range of the real
        secret); ``extra`` holds ``relative_risk``, ``absolute_score`` (r_T),
        ``holdout_score`` (r_H) and ``random_guess_score`` side by side (consensus R7, R8;
        :meth:`MLInferenceResult.assess`). ``baseline``: the random guess (secrets of
        random synthetic rows).

    Raises
    ------
    InsufficientDataError
        No holdout, or no usable synthetic rows for the secret.

    Notes
    -----
    ``metric-reference.md`` §8 (aindo companion code: XGBoost on S, risk (r_T - r_H) /
    (1 - r_H)); ``risk-insertion-framework.md`` §4.3.3 (ML-based AIAs);
    ``consensus-privacy-framework.md`` R6-R8 and Figure 4.
    """
    n_attacks = _check_n_attacks(n_attacks)
    tolerance = check_in_range("tolerance", tolerance, 0, 1e9)
    n_bootstrap = check_positive_int("n_bootstrap", n_bootstrap)
    confidence = check_confidence(confidence)
    seed = check_seed(seed)
    data = prepare_review(real, synthetic, threat=threat, holdout=holdout, schema=schema)
    syn = _single_release(data)
    hold = _check_holdout(data)
    if hold is None:
        raise InsufficientDataError(
            "ML inference compares members with non-members and needs a holdout: real rows "
            "the generator never saw. Pass holdout=... (consensus R7: a relative attribute "
            "disclosure needs a non-member baseline).")
    aux = _resolve_columns(data, aux_cols, "aux_cols", data.threat.quasi_identifiers)
    target = _resolve_secret(data, secret, aux)
    categorical = not data.schema[target].is_numeric
    rng_t, rng_c, rng_b, rng_boot, rng_model = _rngs(seed, 5)
    model_seed = int(rng_model.integers(0, 2**31 - 1))

    def usable(frame: pd.DataFrame) -> pd.DataFrame:
        return frame if categorical else frame[np.isfinite(frame[target].to_numpy(dtype=float))]

    syn_fit = usable(syn)
    if len(syn_fit) < 2:
        raise InsufficientDataError(
            f"The synthetic table has {len(syn_fit)} row(s) with a value of {target!r}; the "
            "attacker needs at least two to learn from.")
    targets = _sample_rows(usable(data.real), n_attacks, rng_t)
    ctrl_targets = _sample_rows(usable(hold), n_attacks, rng_c)
    if len(targets) == 0 or len(ctrl_targets) == 0:
        raise InsufficientDataError(f"No real or holdout rows have a value of {target!r}.")
    encoder = TableEncoder(data.schema, columns=aux, numeric_missing=numeric_missing).fit(data.real)
    x_syn = encoder.transform(syn_fit)
    x_targets = np.vstack([encoder.transform(targets), encoder.transform(ctrl_targets)])
    if categorical:
        classes = np.array(sorted(set(data.real[target]) | set(syn_fit[target])
                                  | set(hold[target])), dtype=object)
        y_syn = np.searchsorted(classes, syn_fit[target].to_numpy(dtype=object))
        out = fit_predict("xgb", x_syn, y_syn, x_targets, categorical=True,
                          n_classes=len(classes), seed=model_seed, n_jobs=n_jobs)
        guesses = classes[out.prediction]
        truth_t = targets[target].to_numpy(dtype=object)
        truth_c = ctrl_targets[target].to_numpy(dtype=object)
    else:
        y_syn = syn_fit[target].to_numpy(dtype=float)
        out = fit_predict("xgb", x_syn, y_syn, x_targets, categorical=False, seed=model_seed,
                          n_jobs=n_jobs)
        guesses = out.prediction
        truth_t = targets[target].to_numpy(dtype=float)
        truth_c = ctrl_targets[target].to_numpy(dtype=float)
    n_t, n_c = len(targets), len(ctrl_targets)
    guess_t, guess_c = guesses[:n_t], guesses[n_t:]
    syn_secret = syn_fit[target].to_numpy(dtype=object if categorical else float)
    base_guess = syn_secret[rng_b.choice(len(syn_secret), size=n_t,
                                         replace=n_t > len(syn_secret))]
    ok_t = inference_success(guess_t, truth_t, regression=not categorical, tolerance=tolerance)
    ok_c = inference_success(guess_c, truth_c, regression=not categorical, tolerance=tolerance)
    ok_b = inference_success(base_guess, truth_t, regression=not categorical, tolerance=tolerance)

    def table(frame: pd.DataFrame, role: str, guess: np.ndarray, truth: np.ndarray,
              ok: np.ndarray) -> pd.DataFrame:
        cols: dict[str, Any] = {"record": frame.index.to_numpy(), "role": role,
                                "guess": guess, "truth": truth, "success": ok}
        if not categorical:
            cols["error"] = guess - truth
        return pd.DataFrame(cols)

    records = pd.concat([table(targets, "training", guess_t, truth_t, ok_t),
                         table(ctrl_targets, "control", guess_c, truth_c, ok_c)],
                        ignore_index=True)
    baseline_table = table(targets, "baseline", base_guess, truth_t, ok_b)
    params = {
        "attacker": "xgb", "aux_cols": aux, "secret": target,
        "kind": "categorical" if categorical else "continuous",
        "score": "accuracy" if categorical else "1 - RMSE/range",
        "n_attacks": n_attacks, "n_targets": n_t, "n_control_targets": n_c,
        "n_synthetic_rows_used": len(syn_fit), "tolerance": tolerance,
        "n_bootstrap": None if categorical else n_bootstrap, "numeric_missing": numeric_missing,
        "control": True, "confidence": confidence, "model_seed": model_seed, "seed": seed,
    }
    common: dict[str, Any] = {
        "name": "ml_inference", "value": float("nan"), "ci": None, "params": params,
        "record_table": records, "goal": "lower", "bounds": (0.0, 1.0), "n_attacks": n_t,
        "n_control_attacks": n_c, "n_baseline_attacks": n_t, "confidence": confidence,
        "baseline_table": baseline_table}
    if categorical:
        shell = MLInferenceResult(**common, n_success=int(ok_t.sum()),
                                  n_control_success=int(ok_c.sum()),
                                  n_baseline_success=int(ok_b.sum()), kind="categorical")
        result = cast(MLInferenceResult, _with_summary(shell, confidence))
        ex = result.extra
        scores = {"training": ex["attack_rate"], "control": ex["control_rate"],
                  "baseline": ex["baseline_rate"]}
        extra = {**ex, "relative_risk": ex["risk_unclipped"], "absolute_score": scores["training"],
                 "holdout_score": scores["control"], "random_guess_score": scores["baseline"],
                 "score_name": "accuracy"}
        result = replace(result, scores=scores, extra=extra)
    else:
        values = data.real[target].to_numpy(dtype=float)
        finite = values[np.isfinite(values)]
        spread = float(finite.max() - finite.min()) if finite.size else 0.0
        spread = spread if spread > 0 else 1.0
        sq = {"training": (guess_t - truth_t) ** 2, "control": (guess_c - truth_c) ** 2,
              "baseline": (base_guess - truth_t) ** 2}
        scores = {k: float(1 - math.sqrt(v.mean()) / spread) for k, v in sq.items()}
        reps = {}
        for k, v in sq.items():
            w = bootstrap_weights(len(v), n_bootstrap, seed=int(rng_boot.integers(0, 2**31 - 1)))
            reps[k] = 1 - np.sqrt(w.astype(np.float64) @ v / len(v)) / spread
        shell = MLInferenceResult(**common, n_success=float(ok_t.sum()),
                                  n_control_success=float(ok_c.sum()),
                                  n_baseline_success=float(ok_b.sum()), kind="continuous",
                                  scores=scores, score_replicates=reps)
        extra = {"absolute_score": scores["training"], "holdout_score": scores["control"],
                 "random_guess_score": scores["baseline"], "score_name": "1 - RMSE/range",
                 "attack_rate": scores["training"], "control_rate": scores["control"],
                 "baseline_rate": scores["baseline"], "secret_range": spread,
                 "beats_baseline": bool(scores["training"] > scores["baseline"])}
        result = _continuous_summary(replace(shell, extra=extra), confidence)
    result = replace(result, extra={
        **result.extra,
        "beats_random_guess": bool(result.extra["absolute_score"]
                                   > result.extra["random_guess_score"]),
        "beats_holdout": bool(result.extra["absolute_score"] > result.extra["holdout_score"])})
    ra, rb = result.extra["absolute_score"], result.extra["random_guess_score"]
    if not ra > rb:
        warnings.warn(
            f"The ML inference attack does no better than a random guess on members "
            f"(score {ra:.3f} vs {rb:.3f}); by consensus R8 this is not an attribute "
            "disclosure, whatever the relative risk.", UntrustworthyResultWarning, stacklevel=2)
    if categorical:
        _warn_untrustworthy_control_only(result)
    return result


def _warn_untrustworthy_control_only(result: AttackResult) -> None:
    if result.n_control_success is not None and result.n_control_attacks > 0 and \
            result.n_control_success >= result.n_control_attacks:
        warnings.warn(
            "The ML attacker is right on every holdout target; the relative risk is near 0 by "
            "construction. Read the absolute score instead.", UntrustworthyResultWarning,
            stacklevel=3)


__all__ = [
    "SINGLING_OUT_MODES", "SIZE_CORRECTIONS", "AttackResult", "LinkabilityResult",
    "MLInferenceResult", "distance_inference", "inference_success", "linkability",
    "ml_inference", "singling_out",
]
