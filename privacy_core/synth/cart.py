"""Sequential CART synthesizer in the style of synthpop's ``syn(method = "cart")``.

Columns are visited in order. The first is drawn from its marginal; each next column is
drawn from the *donors* in the leaf of a tree fitted on the real data's previous columns:
a synthetic row is dropped down the tree on its already-synthesised values and takes the
real value of a random real record in the leaf it lands in. The minimum leaf size
(synthpop's ``minbucket``, default 5) is the privacy knob: small leaves copy real values
from few donors.

Notes
-----
Nowok, Raab & Dibben (2016), synthpop; used as the synthesizer in the RAPID paper.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from ..encoding import TableEncoder
from ..validation import check_positive_int
from .base import Generator


class CartGenerator(Generator):
    name = "cart"

    def __init__(self, min_leaf: int = 5, max_depth: int | None = None):
        self.min_leaf = check_positive_int("min_leaf", min_leaf)
        self.max_depth = max_depth

    def params(self) -> dict:
        return {"method": self.name, "min_leaf": self.min_leaf, "max_depth": self.max_depth}

    def _fit(self, real: pd.DataFrame) -> None:
        self.encoder_ = TableEncoder(self.schema_).fit(real)
        self.first_values_ = real[self.columns_[0]].to_numpy()
        self.steps_ = []
        features = [self.encoder_.transform(real, [self.columns_[0]])]
        rng = np.random.default_rng(self.seed_)
        for col in self.columns_[1:]:
            X = np.hstack(features)
            y = real[col]
            if self.schema_[col].is_numeric:
                target = y.to_numpy(dtype=float)
                finite = np.isfinite(target)
                # The tree needs a value everywhere; donors keep the real (missing) values.
                fill = float(np.median(target[finite])) if finite.any() else 0.0
                target = np.where(finite, target, fill)
                tree = DecisionTreeRegressor(
                    min_samples_leaf=self.min_leaf,
                    max_depth=self.max_depth,
                    random_state=int(rng.integers(2**31 - 1)),
                )
            else:
                target = y.to_numpy()
                tree = DecisionTreeClassifier(
                    min_samples_leaf=self.min_leaf,
                    max_depth=self.max_depth,
                    random_state=int(rng.integers(2**31 - 1)),
                )
            tree.fit(X, target)
            leaves = tree.apply(X)
            order = np.argsort(leaves, kind="stable")
            sorted_leaves = leaves[order]
            n_nodes = tree.tree_.node_count
            start = np.searchsorted(sorted_leaves, np.arange(n_nodes), side="left")
            count = np.searchsorted(sorted_leaves, np.arange(n_nodes), side="right") - start
            self.steps_.append(
                {
                    "column": col,
                    "tree": tree,
                    "donors": y.to_numpy()[order],
                    "start": start,
                    "count": count,
                }
            )
            features.append(self.encoder_.transform(real, [col]))

    def _sample(self, n: int, seed: int) -> pd.DataFrame:
        rng = np.random.default_rng(seed)
        first = self.columns_[0]
        out = {first: self.first_values_[rng.integers(0, len(self.first_values_), size=n)]}
        frame = pd.DataFrame(out)
        features = [self.encoder_.transform(frame, [first])]
        for step in self.steps_:
            X = np.hstack(features)
            leaf = step["tree"].apply(X)
            pick = step["start"][leaf] + np.floor(rng.random(n) * step["count"][leaf]).astype(
                np.int64
            )
            frame[step["column"]] = step["donors"][pick]
            features.append(self.encoder_.transform(frame, [step["column"]]))
        for col in self.columns_:
            if self.schema_[col].is_numeric:
                frame[col] = frame[col].astype("float64")
            else:
                frame[col] = frame[col].astype(object)
        return frame
