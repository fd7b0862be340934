"""Differentially private generators for the DP risk model.

:class:`DPMarginalGenerator` (``dp-mst``, default of the risk lab) is an MST-style
select-measure-generate synthesizer implemented here, seeded and fast:

1. every column is discretised on a *domain*: categorical levels; numeric columns cut
   into ``n_bins`` equal-width bins between bounds (plus a "missing" cell when the
   column has missing values);
2. the one-way marginal counts of all d columns are measured with the Gaussian
   mechanism (budget rho / 3);
3. a spanning tree over the columns is chosen with d - 1 rounds of the exponential
   mechanism (budget rho / 3), the quality of a candidate pair (a, b) being the L1
   distance between its true two-way counts and the product of the noisy one-way
   estimates (sensitivity 1), as in MST;
4. the two-way marginal counts on the d - 1 tree edges are measured with the Gaussian
   mechanism (budget rho / 3);
5. rows are drawn by ancestral sampling along the tree from the noisy tables (negative
   counts clipped to zero, rows renormalised) and decoded: a category, or a uniform
   draw inside the numeric bin (rounded for integer columns). This step only
   post-processes noisy measurements.

``structure="independent"`` spends the whole budget on the one-way marginals (no
selection, no pairs): the DP version of the HISTOGRAM baseline.

Privacy guarantee (stated precisely)
------------------------------------
Neighbouring tables differ by adding or removing one record. Each marginal count
vector has L2 sensitivity 1; a Gaussian measurement with noise sigma is
1 / (2 sigma^2)-zCDP, the exponential mechanism at epsilon_em is epsilon_em^2 / 8-zCDP,
and zCDP composes additively, so steps 2-4 are rho-zCDP in total, which implies
(epsilon, delta)-DP with epsilon = rho + 2 sqrt(rho ln(1 / delta)) (Bun & Steinke 2016,
Proposition 1.3); rho is chosen as the largest value meeting the requested (epsilon,
delta). Sampling any number of rows is post-processing. The guarantee holds **given a
public domain**: the category levels, which columns have missing values, and the numeric
bounds. Bounds passed in ``bounds`` are public by assumption; bounds read from the data
(the default, ``params()["domain"] == "data"``) and levels read from the data depend on
the records and are *not* covered -- with data-derived bounds a single extreme record
moves the bin edges. This is a teaching and research implementation: numpy's
floating-point Gaussian sampler is not hardened against floating-point side channels
(Mironov 2012); use OpenDP for a production release.

:class:`SmartNoiseGenerator` wraps OpenDP SmartNoise's MST and AIM
(``pip install --no-deps -r requirements-dp.txt``). Their noise comes from OpenDP's
cryptographic generator and their sampling from numpy's *global* generator, neither of
which takes a seed: the same seed does not give the same rows. They are offered for
comparison, never as the default. AIM is refused above ``max_rows`` rows (its fit takes
minutes even on a few thousand rows).

Notes
-----
``risk-insertion-framework.md`` §5.1.3 (DP risk model, epsilon in {1, 5, 10, 50, 100})
and §6.1 (AIM); McKenna, Miklau & Sheldon (2021), "Winning the NIST contest: a scalable
and general approach to differentially private synthetic data" (MST).
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..validation import check_choice, check_in_range, check_positive_int
from .base import Generator

DP_STRUCTURES = ("mst", "independent")
DEFAULT_DELTA = 1e-9


def zcdp_rho(epsilon: float, delta: float) -> float:
    """The largest rho with rho-zCDP => (epsilon, delta)-DP by Bun & Steinke's Prop. 1.3.

    Solves epsilon = rho + 2 sqrt(rho ln(1/delta)) for rho:
    sqrt(rho) = sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)).
    """
    epsilon = check_in_range("epsilon", epsilon, 0, math.inf, low_inclusive=False)
    delta = check_in_range("delta", delta, 0, 1, low_inclusive=False, high_inclusive=False)
    log_term = math.log(1 / delta)
    return (math.sqrt(log_term + epsilon) - math.sqrt(log_term)) ** 2


@dataclass
class _Domain:
    name: str
    numeric: bool
    levels: np.ndarray  # category levels, or bin edges (numeric)
    has_missing: bool
    integer: bool = False
    only_missing: bool = False  # a numeric column with no value at all: one cell

    @property
    def size(self) -> int:
        if self.only_missing:
            return 1
        base = len(self.levels) if not self.numeric else len(self.levels) - 1
        return base + (1 if self.has_missing else 0)

    def encode(self, s: pd.Series) -> np.ndarray:
        if self.only_missing:
            return np.zeros(len(s), dtype=np.int64)
        if not self.numeric:
            codes = pd.Index(self.levels).get_indexer(s.astype(str).to_numpy())
            # Levels outside a public domain are mapped to the first level (clamping).
            return np.where(codes < 0, 0, codes)
        x = s.to_numpy(dtype=float)
        miss = ~np.isfinite(x)
        edges = self.levels
        b = np.clip(
            np.searchsorted(
                edges, np.clip(np.where(miss, edges[0], x), edges[0], edges[-1]), side="right"
            )
            - 1,
            0,
            len(edges) - 2,
        )
        return np.where(miss & self.has_missing, len(edges) - 1, b)

    def decode(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if self.only_missing:
            return np.full(len(codes), np.nan)
        if not self.numeric:
            return self.levels[codes]
        edges = self.levels
        n_b = len(edges) - 1
        miss = codes >= n_b
        b = np.minimum(codes, n_b - 1)
        v = rng.uniform(edges[b], edges[b + 1])
        if self.integer:
            v = np.rint(v)
        return np.where(miss, np.nan, v)


class DPMarginalGenerator(Generator):
    """MST-style (epsilon, delta)-DP generator over one- and two-way marginals.

    Parameters
    ----------
    epsilon
        Privacy budget epsilon > 0.
    delta
        Privacy parameter delta in (0, 1); default 1e-9 (MST's default).
    structure
        ``mst`` (private spanning tree of two-way marginals) or ``independent``.
    n_bins
        Equal-width bins per numeric column.
    bounds
        ``{column: (low, high)}`` public bounds of numeric columns; values outside are
        clamped. Columns not given take their bounds from the data (not covered by the
        guarantee, see the module docstring).

    Notes
    -----
    ``risk-insertion-framework.md`` §5.1.3; McKenna et al. (2021), MST.
    """

    name = "dp-mst"

    def __init__(
        self,
        epsilon: float = 1.0,
        *,
        delta: float = DEFAULT_DELTA,
        structure: str = "mst",
        n_bins: int = 16,
        bounds: Mapping[str, tuple[float, float]] | None = None,
    ):
        self.epsilon = check_in_range("epsilon", epsilon, 0, math.inf, low_inclusive=False)
        self.delta = check_in_range("delta", delta, 0, 1, low_inclusive=False, high_inclusive=False)
        self.structure = check_choice("structure", structure, DP_STRUCTURES)
        self.n_bins = check_positive_int("n_bins", n_bins)
        self.bounds = dict(bounds or {})
        for col, b in self.bounds.items():
            if len(b) != 2 or not float(b[0]) < float(b[1]):
                raise ParameterError(
                    f"`bounds[{col!r}]` must be (low, high) with low < high; got {b!r}."
                )

    def params(self) -> dict[str, Any]:
        data_bounds = sorted(set(getattr(self, "data_bounded_", [])))
        return {
            "method": self.name,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "rho": zcdp_rho(self.epsilon, self.delta),
            "structure": self.structure,
            "n_bins": self.n_bins,
            "public_bounds": sorted(self.bounds),
            "domain": "data" if data_bounds else "public",
            "data_bounded_columns": data_bounds,
        }

    # ------------------------------------------------------------------ fit
    def _fit(self, real: pd.DataFrame) -> None:
        unknown = sorted(set(self.bounds) - set(self.columns_))
        if unknown:
            raise ParameterError(
                f"`bounds` names unknown column(s) {unknown}; columns: {', '.join(self.columns_)}."
            )
        self.domains_: list[_Domain] = []
        self.data_bounded_: list[str] = []
        for col in self.columns_:
            spec = self.schema_[col]
            s = real[col]
            if spec.is_numeric:
                x = s.to_numpy(dtype=float)
                finite = x[np.isfinite(x)]
                if col in self.bounds:
                    lo, hi = (float(v) for v in self.bounds[col])
                else:
                    self.data_bounded_.append(col)
                    lo = float(finite.min()) if finite.size else 0.0
                    hi = float(finite.max()) if finite.size else 1.0
                    if hi <= lo:
                        hi = lo + 1.0
                edges = np.linspace(lo, hi, self.n_bins + 1)
                self.domains_.append(
                    _Domain(
                        col,
                        True,
                        edges,
                        bool((~np.isfinite(x)).any()),
                        spec.integer,
                        only_missing=not finite.size and col not in self.bounds,
                    )
                )
            else:
                levels = np.array(sorted(map(str, pd.unique(s))), dtype=object)
                self.domains_.append(_Domain(col, False, levels, False))
        codes = np.column_stack([d.encode(real[d.name]) for d in self.domains_])
        rng = np.random.default_rng(self.seed_)
        rho = zcdp_rho(self.epsilon, self.delta)
        d = len(self.domains_)
        sizes = [dom.size for dom in self.domains_]
        if self.structure == "independent" or d == 1:
            sigma1 = math.sqrt(d / (2 * rho))
            self.one_way_ = [
                self._noisy(np.bincount(codes[:, i], minlength=sizes[i]), sigma1, rng)
                for i in range(d)
            ]
            self.edges_: list[tuple[int, int]] = []
            self.two_way_: dict[tuple[int, int], np.ndarray] = {}
            self.sigmas_ = {"one_way": sigma1}
            return
        rho_each = rho / 3
        sigma1 = math.sqrt(d / (2 * rho_each))
        self.one_way_ = [
            self._noisy(np.bincount(codes[:, i], minlength=sizes[i]), sigma1, rng) for i in range(d)
        ]
        self.edges_ = self._select_tree(codes, sizes, rho_each, rng)
        sigma2 = math.sqrt(len(self.edges_) / (2 * rho_each))
        self.two_way_ = {}
        for a, b in self.edges_:
            counts = np.bincount(
                codes[:, a] * sizes[b] + codes[:, b], minlength=sizes[a] * sizes[b]
            ).reshape(sizes[a], sizes[b])
            self.two_way_[(a, b)] = self._noisy(counts, sigma2, rng)
        eps_em = math.sqrt(8 * rho_each / max(d - 1, 1))
        self.sigmas_ = {"one_way": sigma1, "two_way": sigma2, "exp_mech_epsilon": eps_em}

    @staticmethod
    def _noisy(counts: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
        return counts.astype(float) + rng.normal(0.0, sigma, size=counts.shape)

    def _select_tree(
        self, codes: np.ndarray, sizes: list[int], rho_sel: float, rng: np.random.Generator
    ) -> list[tuple[int, int]]:
        d = len(sizes)
        probs = [np.clip(v, 0, None) for v in self.one_way_]
        total = float(np.mean([v.sum() for v in self.one_way_]))
        probs = [p / p.sum() if p.sum() > 0 else np.full(len(p), 1 / len(p)) for p in probs]
        quality: dict[tuple[int, int], float] = {}
        for a in range(d):
            for b in range(a + 1, d):
                counts = np.bincount(
                    codes[:, a] * sizes[b] + codes[:, b], minlength=sizes[a] * sizes[b]
                ).reshape(sizes[a], sizes[b])
                estimate = np.outer(probs[a], probs[b]) * max(total, 0.0)
                quality[(a, b)] = float(np.abs(counts - estimate).sum())
        eps_em = math.sqrt(8 * rho_sel / (d - 1))
        parent = list(range(d))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        edges: list[tuple[int, int]] = []
        for _ in range(d - 1):
            cand = [e for e in quality if find(e[0]) != find(e[1])]
            q = np.array([quality[e] for e in cand])
            # Exponential mechanism with sensitivity 1: P(e) ~ exp(eps * q / 2).
            logits = 0.5 * eps_em * (q - q.max())
            p = np.exp(logits)
            e = cand[int(rng.choice(len(cand), p=p / p.sum()))]
            edges.append(e)
            parent[find(e[0])] = find(e[1])
        return edges

    # ------------------------------------------------------------------ sample
    def _sample(self, n: int, seed: int) -> pd.DataFrame:
        rng = np.random.default_rng(seed)
        d = len(self.domains_)
        out = np.full((n, d), -1, dtype=np.int64)
        adjacency: dict[int, list[tuple[int, np.ndarray]]] = {i: [] for i in range(d)}
        for (a, b), table in self.two_way_.items():
            adjacency[a].append((b, table))  # rows: a, columns: b
            adjacency[b].append((a, table.T))
        done = np.zeros(d, dtype=bool)
        for root in range(d):
            if done[root]:
                continue
            out[:, root] = _draw(_normalised(self.one_way_[root]), n, rng)
            done[root] = True
            stack = [root]
            while stack:
                p = stack.pop()
                for c, table in adjacency[p]:
                    if done[c]:
                        continue
                    cond = np.clip(table, 0, None)
                    row_sums = cond.sum(axis=1, keepdims=True)
                    fallback = _normalised(self.one_way_[c])
                    cond = np.where(
                        row_sums > 0, cond / np.where(row_sums > 0, row_sums, 1), fallback[None, :]
                    )
                    out[:, c] = _draw_conditional(cond, out[:, p], rng)
                    done[c] = True
                    stack.append(c)
        return pd.DataFrame(
            {dom.name: dom.decode(out[:, i], rng) for i, dom in enumerate(self.domains_)}
        )


def _normalised(v: np.ndarray) -> np.ndarray:
    p = np.clip(v, 0, None)
    s = p.sum()
    return p / s if s > 0 else np.full(len(p), 1.0 / len(p))


def _draw(p: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.choice(len(p), size=n, p=p)


def _draw_conditional(cond: np.ndarray, given: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per row from the row of ``cond`` selected by ``given`` (inverse CDF)."""
    cdf = np.cumsum(cond, axis=1)
    cdf[:, -1] = 1.0
    u = rng.random(len(given))
    return (u[:, None] > cdf[given]).sum(axis=1)


# ============================================================================ SmartNoise
SMARTNOISE_METHODS = ("mst", "aim")


def smartnoise_available() -> bool:
    """Whether OpenDP SmartNoise (``snsynth``) and its dependencies can be imported."""
    return importlib.util.find_spec("snsynth") is not None


class SmartNoiseGenerator(Generator):
    """OpenDP SmartNoise MST or AIM behind the generator contract (not seed-reproducible).

    Numeric columns are binned into ``n_bins`` equal-width bins between ``bounds`` (or
    the data's range, not covered by the guarantee) with SmartNoise's ``BinTransformer``,
    so no budget is spent on bound estimation; categoricals use ``LabelTransformer``.

    Parameters
    ----------
    epsilon, delta
        Budget passed to SmartNoise.
    method
        ``mst`` or ``aim``.
    n_bins, bounds
        As :class:`DPMarginalGenerator`.
    max_rows
        AIM is refused above this many rows (its fit grows quickly with the data).

    Notes
    -----
    OpenDP's noise and SmartNoise's sampling take no seed: ``seed`` only shuffles the
    sampled rows; ``params()["reproducible"]`` is False.
    """

    def __init__(
        self,
        epsilon: float = 1.0,
        *,
        method: str = "mst",
        delta: float = DEFAULT_DELTA,
        n_bins: int = 16,
        bounds: Mapping[str, tuple[float, float]] | None = None,
        max_rows: int = 5000,
    ):
        self.epsilon = check_in_range("epsilon", epsilon, 0, math.inf, low_inclusive=False)
        self.method = check_choice("method", method, SMARTNOISE_METHODS)
        self.delta = check_in_range("delta", delta, 0, 1, low_inclusive=False, high_inclusive=False)
        self.n_bins = check_positive_int("n_bins", n_bins, minimum=2)
        self.bounds = dict(bounds or {})
        self.max_rows = check_positive_int("max_rows", max_rows)
        self.name = f"smartnoise-{self.method}"

    def params(self) -> dict[str, Any]:
        return {
            "method": self.name,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "n_bins": self.n_bins,
            "public_bounds": sorted(self.bounds),
            "reproducible": False,
        }

    def _fit(self, real: pd.DataFrame) -> None:
        if not smartnoise_available():
            raise ParameterError(
                "The SmartNoise generators need OpenDP SmartNoise: install it with "
                "`pip install --no-deps -r requirements-dp.txt`, or use 'dp-mst'."
            )
        if self.method == "aim" and len(real) > self.max_rows:
            raise ParameterError(
                f"AIM is limited to {self.max_rows} rows here (its fit takes minutes even "
                f"on a few thousand); got {len(real)}. Subsample the data, raise max_rows, "
                "or use 'smartnoise-mst' / 'dp-mst'."
            )
        import warnings

        from snsynth.transform import BinTransformer, LabelTransformer, TableTransformer

        transformers = []
        for col in self.columns_:
            if self.schema_[col].is_numeric:
                x = real[col].to_numpy(dtype=float)
                finite = x[np.isfinite(x)]
                lo, hi = self.bounds.get(col, (float(finite.min()), float(finite.max())))
                transformers.append(
                    BinTransformer(
                        bins=self.n_bins,
                        lower=float(lo),
                        upper=float(hi) if hi > lo else lo + 1.0,
                        nullable=bool((~np.isfinite(x)).any()),
                    )
                )
            else:
                transformers.append(LabelTransformer(nullable=False))
        if self.method == "mst":
            from snsynth.mst import MSTSynthesizer as Synth
        else:
            from snsynth.aim import AIMSynthesizer as Synth
        self.model_ = Synth(epsilon=float(self.epsilon), delta=float(self.delta))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.model_.fit(real, transformer=TableTransformer(transformers))

    def _sample(self, n: int, seed: int) -> pd.DataFrame:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = self.model_.sample(n)
        frame = (
            pd.DataFrame(out, columns=self.columns_) if not isinstance(out, pd.DataFrame) else out
        )
        for col in self.columns_:
            if not self.schema_[col].is_numeric:
                frame[col] = frame[col].astype(str)
        # SmartNoise returns rows grouped by value; shuffle them (seeded) into a sample.
        order = np.random.default_rng(seed).permutation(len(frame))
        return frame.iloc[order].reset_index(drop=True)


class DPIndependentGenerator(DPMarginalGenerator):
    """``dp-independent``: :class:`DPMarginalGenerator` with ``structure="independent"``."""

    name = "dp-independent"

    def __init__(
        self,
        epsilon: float = 1.0,
        *,
        delta: float = DEFAULT_DELTA,
        n_bins: int = 16,
        bounds: Mapping[str, tuple[float, float]] | None = None,
    ):
        super().__init__(
            epsilon, delta=delta, structure="independent", n_bins=n_bins, bounds=bounds
        )


class SmartNoiseMSTGenerator(SmartNoiseGenerator):
    """``smartnoise-mst``: OpenDP SmartNoise's MST (not seed-reproducible)."""

    def __init__(self, epsilon: float = 1.0, **kwargs: Any):
        super().__init__(epsilon, method="mst", **kwargs)


class SmartNoiseAIMGenerator(SmartNoiseGenerator):
    """``smartnoise-aim``: OpenDP SmartNoise's AIM (not seed-reproducible, size-capped)."""

    def __init__(self, epsilon: float = 1.0, **kwargs: Any):
        super().__init__(epsilon, method="aim", **kwargs)


__all__ = [
    "DP_STRUCTURES",
    "SMARTNOISE_METHODS",
    "DPIndependentGenerator",
    "DPMarginalGenerator",
    "SmartNoiseAIMGenerator",
    "SmartNoiseGenerator",
    "SmartNoiseMSTGenerator",
    "smartnoise_available",
    "zcdp_rho",
]
