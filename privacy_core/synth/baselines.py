"""Reference generators: HISTOGRAM, HALF and SELF.

* HISTOGRAM draws every column independently from its marginal (numerics quantile-binned
  into min(#unique, 100) bins and decoded to bin centres, as SynMeter's PGM baseline):
  the fidelity lower bound.
* HALF returns rows of a random half of the real data: the fidelity upper bound a real
  sample of the same population can reach. It is a reference only when compared with the
  *other* half (:func:`half_split`): against the full table it would be compared with
  rows it contains, and read about twice too well.
* SELF returns the real data itself: the worst case for every privacy measure.

Notes
-----
``metric-reference.md`` §1f (SynMeter baselines, Du & Li 2024 §7.2).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .base import Generator

_MAX_BINS = 100


class HistogramGenerator(Generator):
    name = "histogram"

    def _fit(self, real: pd.DataFrame) -> None:
        self.marginals_ = {}
        for col in self.columns_:
            s = real[col]
            if self.schema_[col].is_numeric:
                x = s.to_numpy(dtype=float)
                finite = x[np.isfinite(x)]
                n_bins = max(1, min(len(np.unique(finite)), _MAX_BINS))
                edges = (
                    np.unique(np.quantile(finite, np.linspace(0, 1, n_bins + 1)))
                    if finite.size
                    else finite
                )
                if finite.size == 0:  # all missing in this table: draw missing only
                    centres = np.array([np.nan])
                    probs = np.ones(1)
                elif len(edges) < 2:
                    centres = edges.copy()
                    probs = np.ones(1)
                else:
                    idx = np.clip(
                        np.searchsorted(edges, finite, side="right") - 1, 0, len(edges) - 2
                    )
                    probs = np.bincount(idx, minlength=len(edges) - 1).astype(float)
                    centres = (edges[:-1] + edges[1:]) / 2
                    if self.schema_[col].integer:
                        centres = np.rint(centres)
                missing = 1 - len(finite) / len(x)
                self.marginals_[col] = ("num", centres, probs / probs.sum(), missing)
            else:
                vc = s.value_counts(normalize=True, sort=False)
                self.marginals_[col] = (
                    "cat",
                    vc.index.to_numpy(dtype=object),
                    vc.to_numpy(dtype=float),
                    0.0,
                )

    def _sample(self, n: int, seed: int) -> pd.DataFrame:
        rng = np.random.default_rng(seed)
        out = {}
        for col in self.columns_:
            kind, values, probs, missing = self.marginals_[col]
            draw = values[rng.choice(len(values), size=n, p=probs)]
            if kind == "num":
                draw = draw.astype(float)
                if missing > 0:
                    draw[rng.random(n) < missing] = np.nan
            out[col] = draw
        return pd.DataFrame(out)


class HalfGenerator(Generator):
    """Rows of a seeded random half of the real table (``half_``, floor(n/2) rows).

    ``other_half_index_`` holds the positions of the other half, the table HALF must be
    compared with (:func:`half_split`). Its default size is the half itself, drawn without
    replacement; more rows than the half repeat rows.
    """

    name = "half"

    def _fit(self, real: pd.DataFrame) -> None:
        rng = np.random.default_rng(self.seed_)
        order = rng.permutation(len(real))
        self.half_ = real.iloc[np.sort(order[: len(real) // 2])].reset_index(drop=True)
        self.other_half_index_ = np.sort(order[len(real) // 2 :])

    def default_size(self) -> int:
        return len(self.half_)

    def _sample(self, n: int, seed: int) -> pd.DataFrame:
        if n <= len(self.half_):  # without replacement, in the half's order
            rng = np.random.default_rng(seed)
            return self.half_.iloc[np.sort(rng.choice(len(self.half_), size=n, replace=False))]
        rng = np.random.default_rng(seed)
        return self.half_.iloc[rng.choice(len(self.half_), size=n, replace=True)]


def half_split(real: pd.DataFrame, *, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The HALF reference: two disjoint random halves of ``real``, (reference, release).

    The release is the HALF generator's half (``HalfGenerator.half_``, floor(n/2) rows);
    the reference is the other half, the table the release is compared with in place of
    the real data. Every HALF in the engine and the app is built here, so the fidelity
    page and the risk-utility map read the same two tables for one seed.

    Parameters
    ----------
    real
        The real table in canonical form (at least 2 rows).
    seed
        Seeds the split (same seed, same halves).

    Returns
    -------
    tuple of pandas.DataFrame
        ``(reference, release)``, each with a fresh 0..m-1 index.

    Notes
    -----
    Du & Li, Systematic Assessment of Tabular Data Synthesis
    (``systematic-assessment-fidelity-mds.md``) §7.2: "HALF randomly divides the real
    data into two equal parts: one serving as the training dataset, and the other as the
    synthetic data"; ``metric-reference.md`` §1f.
    """
    gen = HalfGenerator()
    gen.fit(real, seed=seed)
    reference = real.reset_index(drop=True).iloc[gen.other_half_index_].reset_index(drop=True)
    return reference, gen.half_.copy()


class SelfGenerator(Generator):
    name = "self"

    def _fit(self, real: pd.DataFrame) -> None:
        self.real_ = real

    def _sample(self, n: int, seed: int) -> pd.DataFrame:
        if n == len(self.real_):
            return self.real_.copy()
        rng = np.random.default_rng(seed)
        return self.real_.iloc[rng.choice(len(self.real_), size=n, replace=n > len(self.real_))]
