"""A classification tree pruned as R's ``rpart`` prunes it.

The RAPID package's ``cart`` attacker is ``rpart(method = "class")`` with its defaults.
rpart grows with the Gini index, like scikit-learn, but prunes by cost-complexity on the
*misclassification* risk: a split survives only if it (with its subtree) removes more
misclassified records than ``cp`` times the root's. scikit-learn's ``ccp_alpha`` prunes on
the Gini impurity instead, which keeps splits that sharpen the class probabilities without
changing any node's majority class; rpart removes those, and its leaf probabilities are
the class shares of larger groups. RAPID reads those probabilities, so the difference
shows in the paper's Table 1 (docs/papers.md).
"""

from __future__ import annotations

import numpy as np
from sklearn.tree import DecisionTreeClassifier


class RpartClassifier:
    """``rpart(method = "class")``: a Gini-grown tree (scikit-learn's, with rpart's size
    limits) cut back to the minimal cost-complexity subtree at ``alpha = cp ·
    R(root)``, with R a node's misclassified records; ties prune, as rpart's ``<=``."""

    def __init__(
        self,
        *,
        cp: float = 0.01,
        min_samples_split: int = 20,
        min_samples_leaf: int = 7,
        max_depth: int = 30,
        random_state: int = 0,
    ) -> None:
        self.cp = cp
        self.tree = DecisionTreeClassifier(
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            max_depth=max_depth,
            random_state=random_state,
        )

    def fit(self, X: np.ndarray, y: np.ndarray) -> RpartClassifier:
        t = self.tree.fit(X, y).tree_
        left, right = t.children_left, t.children_right
        n = t.weighted_n_node_samples.astype(float)
        counts = t.value[:, 0, :] / t.value[:, 0, :].sum(axis=1, keepdims=True)
        self.proba_ = counts
        # misclassified records; rounded, so that a split that removes none ties exactly
        risk = np.round(n * (1.0 - counts.max(axis=1)), 6)
        alpha = self.cp * risk[0]
        # bottom-up (a child's id is always larger than its parent's): the cheapest cost of
        # each subtree, R(leaves) + alpha·|leaves|, and whether collapsing it is as cheap
        cost = risk + alpha
        collapsed = np.zeros(t.node_count, dtype=bool)
        for i in range(t.node_count - 1, -1, -1):
            if left[i] < 0:
                continue
            below = cost[left[i]] + cost[right[i]]
            if risk[i] + alpha <= below:
                collapsed[i] = True
            else:
                cost[i] = below
        # each node's representative: its highest collapsed ancestor, or itself
        rep = np.arange(t.node_count)
        for i in range(t.node_count):
            if left[i] >= 0:
                r = rep[i] if collapsed[rep[i]] else None
                rep[left[i]] = left[i] if r is None else r
                rep[right[i]] = right[i] if r is None else r
        self.representative_ = rep
        own = rep == np.arange(t.node_count)  # nodes of the pruned tree
        kept = own & (left >= 0) & ~collapsed  # its splits
        self.n_leaves_ = int((own & ((left < 0) | collapsed)).sum())
        # importance: the Gini decrease of the splits that remain, as scikit-learn counts it
        imp = t.impurity * n
        gain = np.zeros(X.shape[1])
        idx = np.nonzero(kept)[0]
        np.add.at(gain, t.feature[idx], imp[idx] - imp[left[idx]] - imp[right[idx]])
        self.feature_importances_ = gain / gain.sum() if gain.sum() > 0 else gain
        self.n_features_in_ = X.shape[1]
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return self.proba_[self.representative_[self.tree.apply(X)]]
