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

Notes
-----
``risk-insertion-framework.md`` §4.3.3 (eq. 7) and §6.2.3 (radius 0.1, min-max scaled
numerics), Appendix E (radius); ``metric-reference.md`` §4 (TCAP, WEAP, GTCAP).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from ..data import Schema
from ..encoding import TableEncoder
from ..errors import ParameterError, UntrustworthyResultWarning
from ..inputs import prepare_review
from ..results import MetricResult
from ..stats import control_baseline_risk, percentile_interval
from ..threat import ThreatModel
from ..validation import (
    check_choice,
    check_confidence,
    check_in_range,
    check_positive_int,
    check_seed,
)
from .distance import single_release

GTCAP_WEIGHTINGS = ("box_pooled", "box_per_record", "triangular")
#: former names of a weighting, still accepted with a DeprecationWarning
DEPRECATED_WEIGHTINGS = {"sphere": "box_pooled"}
DEFAULT_RADIUS = 0.1
CAP_PAIR_BUDGET = 4_000_000  # pairwise entries (x columns) held at once
_MISSING_POSITION = -1e9  # scaled position of a missing numeric: beyond any radius


@dataclass(frozen=True)
class _Frame:
    """One table reduced to what GTCAP compares."""

    group: np.ndarray  # categorical-key class id (shared coding across frames)
    keys: np.ndarray  # (n, p) numeric keys, min-max scaled by the real range
    target_code: np.ndarray | None  # categorical target codes
    target_value: np.ndarray | None  # numeric target, scaled


@dataclass(frozen=True, eq=False)
class GtcapResult(MetricResult):
    """GTCAP risk with its two attribution rates and per-synthetic-record statistics."""

    g_train: float = float("nan")
    g_holdout: float = float("nan")
    raw_risk: float = float("nan")
    n_kept: int = 0
    #: ``box_pooled`` only: one row per training and holdout record with the number of kept
    #: synthetic records matching it (``matches``) and sharing its target (``correct``)
    attributions: pd.DataFrame = field(default_factory=pd.DataFrame)


def gtcap(
    real: pd.DataFrame,
    synthetic: pd.DataFrame | Sequence[pd.DataFrame],
    *,
    threat: ThreatModel,
    holdout: pd.DataFrame | None = None,
    schema: Schema | None = None,
    radius: float = DEFAULT_RADIUS,
    weighting: str = "box_pooled",
    bootstrap: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> GtcapResult:
    """GTCAP attribute-disclosure risk of a release, relative to a holdout control.

    Parameters
    ----------
    real
        The training data T.
    synthetic
        One synthetic release S.
    threat
        Keys = ``threat.quasi_identifiers``; target = ``threat.target``.
    holdout
        Real rows H the generator never saw (required: they are the control).
    radius
        Matching radius on the min-max scale of numeric columns, > 0 (default 0.1).
    weighting
        ``box_pooled`` (default: pairs pooled over kept synthetic records),
        ``box_per_record`` (the mean of eq. 7's per-synthetic-record TCAP) or
        ``triangular`` (reference code); see the module docstring. ``sphere``, the former
        name of ``box_pooled``, is accepted with a DeprecationWarning.
    bootstrap
        Replicates of the percentile interval (0 = none). ``box_pooled``: the training
        and holdout records are resampled independently, the release held fixed (G is a
        ratio of per-real-record sums); ``box_per_record`` and ``triangular``: the kept
        synthetic records are resampled (G is a mean over them), T and H held fixed.
    confidence
        Interval level.
    seed
        Seeds the bootstrap; recorded in ``params``. Missing values: a missing numeric
        matches only another missing value of the same column (as the reference code's
        out-of-range fill does); a missing category is a level of its own.

    Returns
    -------
    GtcapResult
        ``name="gtcap"``; ``value`` = (G_T - G_H) / (1 - G_H) clipped to [0, 1]
        (``raw_risk`` unclipped; 0 when no synthetic record passes the WEAP filter);
        ``g_train``, ``g_holdout``; records: one row per distinct synthetic record (on
        keys and target) with ``record`` (its first row in the release), ``copies``,
        ``weap``, ``kept`` and, for T and H, the matches, correct matches and score
        (``box_per_record``: ``score_train`` / ``score_holdout`` are the per-record TCAPs
        of eq. 7 whose mean over kept records is G, NaN without a match);
        ``attributions`` (``box_pooled``) the same counts per training and holdout record.

    Raises
    ------
    ParameterError
        No holdout, radius not positive, unknown weighting.

    Notes
    -----
    ``risk-insertion-framework.md`` §4.3.3, §5.3.2 (control baseline), §6.2.3;
    ``metric-reference.md`` §4 GTCAP.
    """
    seed = check_seed(seed)
    radius = check_in_range("radius", radius, 0, np.inf, low_inclusive=False)
    weighting = _check_weighting(weighting)
    bootstrap = check_positive_int("bootstrap", bootstrap, minimum=0)
    check_confidence(confidence)
    if holdout is None:
        raise ParameterError(
            "`gtcap` needs a holdout: real rows the generator never saw, to measure what "
            "the attack achieves on non-members (the control). Pass holdout=..."
        )
    data = prepare_review(
        real, synthetic, threat=threat, holdout=holdout, schema=schema, min_rows=1
    )
    syn = single_release(data, "gtcap")
    keys = list(threat.quasi_identifiers)
    target = threat.target
    cat_keys = [c for c in keys if not data.schema[c].is_numeric]
    num_keys = [c for c in keys if data.schema[c].is_numeric]
    target_numeric = data.schema[target].is_numeric
    num_cols = num_keys + ([target] if target_numeric else [])
    frames = _reduce_frames(
        {"real": data.real, "synthetic": syn, "holdout": data.holdout},
        data.schema,
        cat_keys,
        num_keys,
        target,
        target_numeric,
        data.real,
    )
    uniq_pos, copies = _distinct_rows(frames["synthetic"])
    U = _subset(frames["synthetic"], uniq_pos)
    has_numeric = bool(num_cols)

    # per[name] = (a, b) per distinct synthetic record with G = sum_kept a / sum_kept b;
    # shown[name] = (correct matches, matches, score) for the per-record table
    per: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    shown: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    if weighting in ("box_pooled", "box_per_record"):
        stats_u = _pair_sums(U, U, _box_kernel(radius))
        kept = stats_u["num"] == stats_u["den"]
        weap = stats_u["num"] / stats_u["den"]
        for name in ("real", "holdout"):
            st = _pair_sums(U, frames[name], _box_kernel(radius))
            tcap = _ratio(st["num"], st["den"])
            if weighting == "box_pooled":
                per[name] = (st["num"], st["den"])
            else:  # mean of the defined per-record TCAPs: sum tcap / number defined
                defined = st["den"] > 0
                per[name] = (np.where(defined, tcap, 0.0), defined.astype(np.float64))
            shown[name] = (st["num"], st["den"], tcap)
    else:
        stats_u = _pair_sums(U, U, _weap_kernel(radius))
        kept = stats_u["n_tk"] == stats_u["n_k"]
        if has_numeric:
            kept &= (stats_u["c_k"] > 0) & (stats_u["c_tk"] >= stats_u["c_k"] - 1e-9)
        weap = stats_u["n_tk"] / stats_u["n_k"]
        for name in ("real", "holdout"):
            st = _pair_sums(U, frames[name], _triangular_kernel(radius))
            if has_numeric:
                score = np.divide(
                    st["num"], st["den"], out=np.zeros_like(st["num"]), where=st["den"] > 0
                )
                per[name] = (score, np.ones_like(score))
            else:
                score = _ratio(st["count_t"], st["count"])
                per[name] = (st["count_t"], st["count"])
            shown[name] = (st["count_t"], st["count"], score)

    g_t = _pooled(per["real"], kept)
    g_h = _pooled(per["holdout"], kept)
    n_kept = int(kept.sum())
    raw = control_baseline_risk(g_t, g_h) if np.isfinite(g_t) and np.isfinite(g_h) else np.nan
    if n_kept == 0:
        raw = 0.0
        warnings.warn(
            "No synthetic record passed the WEAP filter (no target-homogeneous match class "
            f"at radius {radius:g}); the attack makes no attribution and GTCAP is 0.",
            UntrustworthyResultWarning,
            stacklevel=2,
        )
    elif not np.isfinite(raw):
        warnings.warn(
            "GTCAP is undefined: the kept synthetic records match no training or holdout "
            "record, or the control attack is always correct (G_H = 1).",
            UntrustworthyResultWarning,
            stacklevel=2,
        )
    value = float(np.clip(raw, 0.0, 1.0)) if np.isfinite(raw) else float("nan")
    boot_seed = int(np.random.SeedSequence(seed).generate_state(1)[0])
    attributions = pd.DataFrame()
    if n_kept == 0:
        ci = (0.0, 0.0) if bootstrap > 0 else None
    elif weighting == "box_pooled":
        # G pools (kept synthetic, real) pairs, so it is also a ratio of per-real-record
        # sums: resample the attacked training and holdout records, the release fixed
        K = _subset(U, np.flatnonzero(kept))
        per_real = {}
        for name in ("real", "holdout"):
            st = _pair_sums(frames[name], K, _box_kernel(radius))
            per_real[name] = (st["num"], st["den"])
        ci = _bootstrap_ci(
            per_real["real"],
            per_real["holdout"],
            paired=False,
            n_boot=bootstrap,
            seed=boot_seed,
            confidence=confidence,
        )
        control = cast(pd.DataFrame, data.holdout)  # checked above
        attributions = pd.DataFrame(
            {
                "record": np.r_[data.real.index.to_numpy(), control.index.to_numpy()],
                "source": np.r_[
                    np.full(len(data.real), "training"), np.full(len(control), "holdout")
                ],
                "matches": np.r_[per_real["real"][1], per_real["holdout"][1]],
                "correct": np.r_[per_real["real"][0], per_real["holdout"][0]],
            }
        )
    else:
        ci = _bootstrap_ci(
            tuple(x[kept] for x in per["real"]),
            tuple(x[kept] for x in per["holdout"]),
            paired=True,
            n_boot=bootstrap,
            seed=boot_seed,
            confidence=confidence,
        )

    syn_labels = syn.index.to_numpy()
    table = pd.DataFrame(
        {"record": syn_labels[uniq_pos], "copies": copies, "weap": weap, "kept": kept}
    )
    for name, label in (("real", "train"), ("holdout", "holdout")):
        correct, matches, score = shown[name]
        table[f"matches_{label}"] = matches
        table[f"correct_{label}"] = correct
        table[f"score_{label}"] = score
    params: dict[str, Any] = {
        "quasi_identifiers": keys,
        "sensitive": target,
        "radius": radius,
        "weighting": weighting,
        "numeric_columns": num_cols,
        "bootstrap": bootstrap,
        "bootstrap_seed": boot_seed,
        "confidence": confidence,
        "matching": "box (L-infinity ball of half-width radius per numeric column)",
        "aggregation": {
            "box_pooled": "pooled (kept synthetic, real) pairs",
            "box_per_record": "mean of per-synthetic-record TCAP (eq. 7)",
            "triangular": "mean of triangular-weighted scores",
        }[weighting],
        "numeric_missing": "matches missing only",
        "seed": seed,
        "n_real": len(data.real),
        "n_synthetic": len(syn),
        "n_holdout": len(data.holdout),  # type: ignore[arg-type]
        "n_distinct_synthetic": len(uniq_pos),
        "interval": (
            "bootstrap over training and holdout records (release fixed)"
            if weighting == "box_pooled"
            else "bootstrap over kept synthetic records (real tables fixed)"
        ),
    }
    extra = {"g_train": g_t, "g_holdout": g_h, "raw_risk": raw, "n_kept": n_kept}
    return GtcapResult(
        name="gtcap",
        value=value,
        ci=ci,
        params=params,
        record_table=table,
        goal="lower",
        bounds=(0.0, 1.0),
        extra=extra,
        g_train=g_t,
        g_holdout=g_h,
        raw_risk=float(raw),
        n_kept=n_kept,
        attributions=attributions,
    )


def _check_weighting(weighting: str) -> str:
    """The weighting's current name; a former name works but warns."""
    if isinstance(weighting, str) and weighting in DEPRECATED_WEIGHTINGS:
        new = DEPRECATED_WEIGHTINGS[weighting]
        warnings.warn(
            f"GTCAP weighting {weighting!r} is now called {new!r}: its 'sphere' is a box "
            "of half-width radius per numeric column (the L-infinity ball), pooled over "
            f"records. Pass weighting={new!r}; {weighting!r} will be removed.",
            DeprecationWarning,
            stacklevel=3,
        )
        return new
    check_choice("weighting", weighting, GTCAP_WEIGHTINGS)
    return weighting


# ============================================================================ preparation
def _reduce_frames(
    frames: dict[str, pd.DataFrame],
    schema: Schema,
    cat_keys: list[str],
    num_keys: list[str],
    target: str,
    target_numeric: bool,
    real: pd.DataFrame,
) -> dict[str, _Frame]:
    names = list(frames)
    sizes = [len(frames[n]) for n in names]
    bounds = np.cumsum([0, *sizes])
    num_cols = num_keys + ([target] if target_numeric else [])
    encoded: dict[str, np.ndarray] = {}
    if num_cols:
        enc = TableEncoder(schema, columns=num_cols).fit(real)
        for n in names:
            x = enc.transform(frames[n]).astype(np.float64)
            # the encoder imputes; put missing values far outside every radius instead,
            # so that missing matches missing and nothing else
            missing = frames[n][num_cols].isna().to_numpy()
            x[missing] = _MISSING_POSITION
            encoded[n] = x
    if cat_keys:
        codes = np.column_stack(
            [
                pd.factorize(pd.concat([frames[n][c] for n in names], ignore_index=True))[0]
                for c in cat_keys
            ]
        )
        group_all = np.unique(codes, axis=0, return_inverse=True)[1].ravel()
    else:
        group_all = np.zeros(int(bounds[-1]), dtype=np.int64)
    if not target_numeric:
        t_all = pd.factorize(pd.concat([frames[n][target] for n in names], ignore_index=True))[0]
    out = {}
    p = len(num_keys)
    for j, n in enumerate(names):
        sl = slice(bounds[j], bounds[j + 1])
        x = encoded.get(n, np.zeros((sizes[j], 0)))
        out[n] = _Frame(
            group=group_all[sl],
            keys=np.ascontiguousarray(x[:, :p]),
            target_code=None if target_numeric else t_all[sl],
            target_value=x[:, p] if target_numeric else None,
        )
    return out


def _distinct_rows(f: _Frame) -> tuple[np.ndarray, np.ndarray]:
    """First positions and multiplicities of the distinct (group, keys, target) rows."""
    t = f.target_value if f.target_value is not None else f.target_code
    mat = np.column_stack([f.group.astype(np.float64), f.keys, np.asarray(t, np.float64)])
    _, first, counts = np.unique(mat, axis=0, return_index=True, return_counts=True)
    order = np.argsort(first)
    return first[order], counts[order]


def _subset(f: _Frame, pos: np.ndarray) -> _Frame:
    return _Frame(
        group=f.group[pos],
        keys=f.keys[pos],
        target_code=None if f.target_code is None else f.target_code[pos],
        target_value=None if f.target_value is None else f.target_value[pos],
    )


# ============================================================================ pair sums
Kernel = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool], dict[str, np.ndarray]]


def _pair_sums(U: _Frame, X: _Frame, kernel: Kernel) -> dict[str, np.ndarray]:
    """Per query record, sums of ``kernel`` over the records of X in its key class.

    Records are compared only within the same categorical-key class; within a class the
    queries are processed in chunks so that chunk x class x columns stays bounded.
    """
    numeric_target = X.target_value is not None
    t_u = U.target_value if numeric_target else U.target_code
    t_x = X.target_value if numeric_target else X.target_code
    out: dict[str, np.ndarray] = {}
    x_order = np.argsort(X.group, kind="stable")
    x_groups = X.group[x_order]
    u_order = np.argsort(U.group, kind="stable")
    u_groups = U.group[u_order]
    starts = np.flatnonzero(np.r_[True, u_groups[1:] != u_groups[:-1]])
    stops = np.r_[starts[1:], len(u_groups)]
    width = max(1, U.keys.shape[1] + 1)
    for a, b in zip(starts, stops, strict=True):
        g = u_groups[a]
        lo, hi = np.searchsorted(x_groups, g, "left"), np.searchsorted(x_groups, g, "right")
        xi = x_order[lo:hi]
        rows = u_order[a:b]
        chunk = max(1, CAP_PAIR_BUDGET // max(1, len(xi) * width))
        for c in range(0, len(rows), chunk):
            ui = rows[c : c + chunk]
            res = kernel(U.keys[ui], X.keys[xi], t_u[ui], t_x[xi], numeric_target)  # type: ignore[index]
            for name, v in res.items():
                if name not in out:
                    out[name] = np.zeros(len(U.group), dtype=np.float64)
                out[name][ui] = v
    if not out:  # no queries at all
        return {}
    return out


def _target_match(t_u: np.ndarray, t_x: np.ndarray, numeric: bool, radius: float) -> np.ndarray:
    if numeric:
        return np.abs(t_u[:, None] - t_x[None, :]) < radius
    return t_u[:, None] == t_x[None, :]


def _box_kernel(radius: float) -> Kernel:
    def kernel(
        ku: np.ndarray, kx: np.ndarray, tu: np.ndarray, tx: np.ndarray, numeric: bool
    ) -> dict[str, np.ndarray]:
        tm = _target_match(tu, tx, numeric, radius)
        if ku.shape[1]:
            km = (np.abs(ku[:, None, :] - kx[None, :, :]) < radius).all(axis=2)
            return {"den": km.sum(axis=1).astype(float), "num": (km & tm).sum(axis=1).astype(float)}
        return {"den": np.full(len(ku), float(len(kx))), "num": tm.sum(axis=1).astype(float)}

    return kernel


def _triangular_kernel(radius: float) -> Kernel:
    def kernel(
        ku: np.ndarray, kx: np.ndarray, tu: np.ndarray, tx: np.ndarray, numeric: bool
    ) -> dict[str, np.ndarray]:
        p = ku.shape[1]
        if p:
            tri = np.maximum(0.0, 1.0 - np.abs(ku[:, None, :] - kx[None, :, :]) / radius)
            key_sum = tri.sum(axis=2)
            wk = key_sum / p
        else:
            key_sum = np.zeros((len(ku), len(kx)))
            wk = np.ones((len(ku), len(kx)))
        if numeric:
            tt = np.maximum(0.0, 1.0 - np.abs(tu[:, None] - tx[None, :]) / radius)
            wtk = (key_sum + tt) / (p + 1)
            same = np.ones_like(wk, dtype=bool)
        else:
            same = tu[:, None] == tx[None, :]
            wtk = np.where(same, wk, 0.0)
        return {
            "num": (wtk * wk).sum(axis=1),
            "den": wk.sum(axis=1),
            "count": np.full(len(ku), float(len(kx))),
            "count_t": same.sum(axis=1).astype(float),
        }

    return kernel


def _weap_kernel(radius: float) -> Kernel:
    """The reference WEAP statistics of synthetic records against the release itself."""

    def kernel(
        ku: np.ndarray, kx: np.ndarray, tu: np.ndarray, tx: np.ndarray, numeric: bool
    ) -> dict[str, np.ndarray]:
        p = ku.shape[1]
        same_t = np.ones((len(ku), len(kx)), dtype=bool) if numeric else tu[:, None] == tx[None, :]
        n_k = np.full(len(ku), float(len(kx)))
        n_tk = same_t.sum(axis=1).astype(float)
        close = np.abs(ku[:, None, :] - kx[None, :, :]) < radius if p else None
        c_k = close.mean(axis=2).sum(axis=1) if close is not None else n_k.copy()
        if numeric:
            ct = np.abs(tu[:, None] - tx[None, :]) < radius
            both = (close.sum(axis=2) if close is not None else 0) + ct
            c_tk = (both / (p + 1)).sum(axis=1)
        elif p:
            c_tk = np.where(same_t, close.mean(axis=2), 0.0).sum(axis=1)  # type: ignore[union-attr]
        else:
            c_tk = n_tk.copy()
        return {"n_k": n_k, "n_tk": n_tk, "c_k": c_k, "c_tk": c_tk}

    return kernel


# ============================================================================ aggregation
def _ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a / b with NaN where b is 0 (no match: no attribution to score)."""
    return np.divide(a, b, out=np.full(a.shape, np.nan), where=b > 0)


def _pooled(ab: tuple[np.ndarray, np.ndarray], kept: np.ndarray) -> float:
    a, b = ab
    den = float(b[kept].sum())
    return float(a[kept].sum() / den) if den > 0 else float("nan")


def _bootstrap_ci(
    train: tuple[np.ndarray, np.ndarray],
    hold: tuple[np.ndarray, np.ndarray],
    *,
    paired: bool,
    n_boot: int,
    seed: int,
    confidence: float,
) -> tuple[float, float] | None:
    """Percentile interval of the clipped risk with G = (w . a) / (w . b) per side.

    ``paired``: both sides are per synthetic record and share one resample; otherwise
    the sides are per training / holdout record and are resampled independently.
    """
    if n_boot <= 0:
        return None
    rng = np.random.default_rng(seed)
    n_t, n_h = len(train[0]), len(hold[0])
    risks = np.empty(n_boot)
    chunk = max(1, min(n_boot, 25_000_000 // max(n_t + n_h, 1)))
    for start in range(0, n_boot, chunk):
        size = min(chunk, n_boot - start)
        w_t = rng.multinomial(n_t, np.full(n_t, 1.0 / n_t), size=size).astype(np.float64)
        w_h = (
            w_t
            if paired
            else rng.multinomial(n_h, np.full(n_h, 1.0 / n_h), size=size).astype(np.float64)
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            g_t = (w_t @ train[0]) / (w_t @ train[1])
            g_h = (w_h @ hold[0]) / (w_h @ hold[1])
            risks[start : start + size] = (g_t - g_h) / (1 - g_h)
    risks = np.clip(risks, 0.0, 1.0)
    if not np.isfinite(risks).any():
        return None
    lo, hi = percentile_interval(risks, confidence=confidence)
    return (float(lo), float(hi))
