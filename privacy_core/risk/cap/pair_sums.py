"""Sums of a kernel over the record pairs of one key class, in bounded chunks.

:func:`pair_sums` compares each query record with the records of its categorical-key
class only, in chunks of at most ``CAP_PAIR_BUDGET`` pairwise entries (x columns); the
kernels say what is summed: box matches (:func:`box_kernel`), the reference code's
triangular weights (:func:`triangular_kernel`) and its WEAP statistics
(:func:`weap_kernel`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .frames import Frame

CAP_PAIR_BUDGET = 4_000_000  # pairwise entries (x columns) held at once


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
