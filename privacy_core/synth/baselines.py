"""Reference generators: HISTOGRAM, HALF and SELF.

* HISTOGRAM draws every column independently from its marginal (numerics quantile-binned
  into min(#unique, 100) bins and decoded to bin centres, as SynMeter's PGM baseline):
  the fidelity lower bound.
* HALF returns rows of a random half of the real data: the fidelity upper bound a real
  sample of the same population can reach.
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
                edges = (np.unique(np.quantile(finite, np.linspace(0, 1, n_bins + 1)))
                         if finite.size else finite)
                if finite.size == 0:  # all missing in this table: draw missing only
                    centres = np.array([np.nan])
                    probs = np.ones(1)
                elif len(edges) < 2:
                    centres = edges.copy()
                    probs = np.ones(1)
                else:
                    idx = np.clip(np.searchsorted(edges, finite, side="right") - 1, 0,
                                  len(edges) - 2)
                    probs = np.bincount(idx, minlength=len(edges) - 1).astype(float)
                    centres = (edges[:-1] + edges[1:]) / 2
                    if self.schema_[col].integer:
                        centres = np.rint(centres)
                missing = 1 - len(finite) / len(x)
                self.marginals_[col] = ("num", centres, probs / probs.sum(), missing)
            else:
                vc = s.value_counts(normalize=True, sort=False)
                self.marginals_[col] = ("cat", vc.index.to_numpy(dtype=object),
                                        vc.to_numpy(dtype=float), 0.0)

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
    name = "half"

    def _fit(self, real: pd.DataFrame) -> None:
        rng = np.random.default_rng(self.seed_)
        order = rng.permutation(len(real))
        self.half_ = real.iloc[np.sort(order[: len(real) // 2])].reset_index(drop=True)
        self.other_half_index_ = np.sort(order[len(real) // 2:])

    def _sample(self, n: int, seed: int) -> pd.DataFrame:
        rng = np.random.default_rng(seed)
        replace = n > len(self.half_)
        return self.half_.iloc[rng.choice(len(self.half_), size=n, replace=replace)]


class SelfGenerator(Generator):
    name = "self"

    def _fit(self, real: pd.DataFrame) -> None:
        self.real_ = real

    def _sample(self, n: int, seed: int) -> pd.DataFrame:
        if n == len(self.real_):
            return self.real_.copy()
        rng = np.random.default_rng(seed)
        return self.real_.iloc[rng.choice(len(self.real_), size=n, replace=n > len(self.real_))]
