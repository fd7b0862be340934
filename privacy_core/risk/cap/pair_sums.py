"""Sums of a kernel over the record pairs of one key class, in bounded chunks.

:func:`pair_sums` compares each query record with the records of its categorical-key
class only, in chunks of at most ``CAP_PAIR_BUDGET`` pairwise entries (x columns); the
kernels say what is summed: box matches (:func:`box_kernel`), the reference code's
triangular weights (:func:`triangular_kernel`) and its WEAP statistics
(:func:`weap_kernel`).

:func:`box_sums` gives the box kernel's sums exactly, counted with k-d trees in the large
classes: a million records with three numeric keys fall into a few classes of 10^5
records each, 10^10 pairs per class to broadcast, while a tree visits only the matches.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .frames import Frame

CAP_PAIR_BUDGET = 4_000_000  # pairwise entries (x columns) held at once
# below this many query x class pairs the broadcast is as fast as building a tree
TREE_MIN_PAIRS = 4_000_000


Kernel = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool], dict[str, np.ndarray]]


def pair_sums(U: Frame, X: Frame, kernel: Kernel) -> dict[str, np.ndarray]:
    """Per query record, sums of ``kernel`` over the records of X in its key class.

    Records are compared only within the same categorical-key class; within a class the
    queries are processed in chunks so that chunk x class x columns stays bounded.
    """
    numeric_target = X.target_value is not None
    t_u = U.target_value if numeric_target else U.target_code
    t_x = X.target_value if numeric_target else X.target_code
    out: dict[str, np.ndarray] = {}
    width = U.keys.shape[1] + 1
    for rows, xi in _class_pairs(U, X):
        chunk = _chunk(len(xi), width)
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


def box_sums(U: Frame, X: Frame, radius: float) -> dict[str, np.ndarray]:
    """``pair_sums(U, X, box_kernel(radius))``, the same counts, with the large classes
    counted by k-d trees.

    A match is every numeric key closer than ``radius`` (and, for a numeric target, the
    target too): a Chebyshev distance below the radius, which a tree answers as "at most
    the float just below the radius" — the same comparison of the same differences as
    the broadcast, so the counts are equal, not approximately equal (a test checks it on
    ties at the radius). Small classes, tables without numeric keys and non-finite keys
    take the broadcast.
    """
    if not U.keys.shape[1] or not (np.isfinite(U.keys).all() and np.isfinite(X.keys).all()):
        return pair_sums(U, X, box_kernel(radius))
    numeric_target = X.target_value is not None
    t_u = U.target_value if numeric_target else U.target_code
    t_x = X.target_value if numeric_target else X.target_code
    if numeric_target and not (np.isfinite(t_u).all() and np.isfinite(t_x).all()):  # type: ignore[arg-type]
        return pair_sums(U, X, box_kernel(radius))
    den = np.zeros(len(U.group))
    num = np.zeros(len(U.group))
    kernel = box_kernel(radius)
    for rows, xi in _class_pairs(U, X):
        if len(rows) * len(xi) < TREE_MIN_PAIRS:
            chunk = _chunk(len(xi), U.keys.shape[1] + 1)
            for c in range(0, len(rows), chunk):
                ui = rows[c : c + chunk]
                got = kernel(U.keys[ui], X.keys[xi], t_u[ui], t_x[xi], numeric_target)  # type: ignore[index]
                den[ui], num[ui] = got["den"], got["num"]
            continue
        den[rows] = _tree_counts(X.keys[xi], U.keys[rows], radius)
        if numeric_target:
            pts = np.column_stack([X.keys[xi], t_x[xi]])  # type: ignore[index]
            num[rows] = _tree_counts(pts, np.column_stack([U.keys[rows], t_u[rows]]), radius)  # type: ignore[index]
            continue
        for code in np.unique(t_u[rows]):  # type: ignore[index]
            q = rows[t_u[rows] == code]  # type: ignore[index]
            ref = xi[t_x[xi] == code]  # type: ignore[index]
            if len(ref):
                num[q] = _tree_counts(X.keys[ref], U.keys[q], radius)
    return {"den": den, "num": num}


def _class_pairs(U: Frame, X: Frame):
    """Per categorical-key class of U: its rows' positions in U and X's rows in it."""
    x_order = np.argsort(X.group, kind="stable")
    x_groups = X.group[x_order]
    u_order = np.argsort(U.group, kind="stable")
    u_groups = U.group[u_order]
    starts = np.flatnonzero(np.r_[True, u_groups[1:] != u_groups[:-1]])
    stops = np.r_[starts[1:], len(u_groups)]
    for a, b in zip(starts, stops, strict=True):
        g = u_groups[a]
        lo, hi = np.searchsorted(x_groups, g, "left"), np.searchsorted(x_groups, g, "right")
        yield u_order[a:b], x_order[lo:hi]


def _chunk(n_reference: int, width: int) -> int:
    """Queries per broadcast so that queries x reference x columns stays in the budget."""
    return max(1, CAP_PAIR_BUDGET // max(1, n_reference * width))


def _tree_counts(reference: np.ndarray, queries: np.ndarray, radius: float) -> np.ndarray:
    """For each query, the reference points with every coordinate closer than ``radius``."""
    from scipy.spatial import cKDTree

    if not len(reference):
        return np.zeros(len(queries))
    tree = cKDTree(reference)
    below = np.nextafter(radius, 0.0)  # "< radius" as "<= the float just below it"
    counts = tree.query_ball_point(queries, below, p=np.inf, return_length=True)
    return np.asarray(counts, dtype=np.float64)


def _target_match(t_u: np.ndarray, t_x: np.ndarray, numeric: bool, radius: float) -> np.ndarray:
    if numeric:
        return np.abs(t_u[:, None] - t_x[None, :]) < radius
    return t_u[:, None] == t_x[None, :]


def box_kernel(radius: float) -> Kernel:
    """Box matches: ``den`` the matching records (every numeric key closer than the
    radius), ``num`` those that also share the target."""

    def kernel(
        ku: np.ndarray, kx: np.ndarray, tu: np.ndarray, tx: np.ndarray, numeric: bool
    ) -> dict[str, np.ndarray]:
        tm = _target_match(tu, tx, numeric, radius)
        if ku.shape[1]:
            km = (np.abs(ku[:, None, :] - kx[None, :, :]) < radius).all(axis=2)
            return {"den": km.sum(axis=1).astype(float), "num": (km & tm).sum(axis=1).astype(float)}
        return {"den": np.full(len(ku), float(len(kx))), "num": tm.sum(axis=1).astype(float)}

    return kernel


def triangular_kernel(radius: float) -> Kernel:
    """The reference code's triangular weights: ``num`` = sum w_tk w_k, ``den`` = sum w_k,
    and the plain and target-sharing counts (``count``, ``count_t``)."""

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


def weap_kernel(radius: float) -> Kernel:
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
