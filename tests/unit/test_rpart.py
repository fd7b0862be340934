"""The CART attacker prunes as rpart does: the minimal cost-complexity subtree on the
misclassification risk (RAPID package, model_type = "cart"), checked against every pruning
of small trees and against R's rpart's own leaves (tests/data/rpart_leaves.csv)."""

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privacy_core.risk.attackers import fit_predict
from privacy_core.risk.rpart import RpartClassifier


def _prunings(t, node):
    """Every pruned subtree below ``node``: lists of its leaves (node ids)."""
    if t.children_left[node] < 0:
        return [[node]]
    below = [
        a + b
        for a, b in itertools.product(
            _prunings(t, t.children_left[node]), _prunings(t, t.children_right[node])
        )
    ]
    return [[node], *below]


def _risk(t, node):
    v = t.value[node, 0]
    return round(t.weighted_n_node_samples[node] * (1 - v.max() / v.sum()), 6)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("cp", [0.0, 0.01, 0.03, 0.1])
def test_the_kept_tree_is_the_minimal_cost_complexity_subtree(seed, cp):
    """Against every pruning of a small tree: ours has the least R + alpha·|leaves| with
    R the misclassified records and alpha = cp·R(root), and among the cheapest the
    smallest (rpart prunes a tie)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + 0.7 * rng.normal(size=300) > 0).astype(int) + (X[:, 1] > 1).astype(int)
    model = RpartClassifier(cp=cp, max_depth=4, min_samples_split=20, min_samples_leaf=7)
    model.fit(X, y)
    t = model.tree.tree_
    alpha = cp * _risk(t, 0)
    costs = [
        (sum(_risk(t, n) for n in leaves) + alpha * len(leaves), len(leaves), sorted(leaves))
        for leaves in _prunings(t, 0)
    ]
    best = min(costs)
    ours = sorted(set(model.representative_[model.tree.apply(X)]))
    # every record lands in a leaf of the pruned tree: the leaves reached are ours
    assert ours == best[2], (ours, best)
    assert model.n_leaves_ == best[1]
    # probabilities are the class shares of the pruned leaf
    leaf = model.representative_[model.tree.apply(X)]
    for node in ours:
        share = np.bincount(y[leaf == node], minlength=3) / (leaf == node).sum()
        np.testing.assert_allclose(model.predict_proba(X[leaf == node])[0], share)


def test_a_split_that_changes_no_majority_is_pruned():
    """A split whose children keep the parent's majority class removes no
    misclassification: rpart prunes it at any cp > 0, and the CART attacker does too,
    where scikit-learn's Gini-based pruning keeps it (it sharpens the probabilities)."""
    rng = np.random.default_rng(0)
    x = rng.uniform(size=(2000, 1))
    # class 0 is the majority on both sides of 0.5, at 90 % and 60 %
    y = (rng.uniform(size=2000) < np.where(x[:, 0] < 0.5, 0.1, 0.4)).astype(int)
    model = RpartClassifier(cp=0.01).fit(x, y)
    assert model.n_leaves_ == 1
    np.testing.assert_allclose(model.predict_proba(x[:1])[0], np.bincount(y) / len(y))
    out = fit_predict("cart", x, y, x, categorical=True, n_classes=2)
    np.testing.assert_allclose(out.proba[0], np.bincount(y) / len(y))
    assert out.importance.sum() == 0  # no split left


# ------------------------------------------------------------- against rpart's own output
RPART_LEAVES = Path(__file__).resolve().parents[1] / "data" / "rpart_leaves.csv"


def _reference_table(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The tables rpart was run on (tests/data/rpart_leaves.R): 400 records, three
    normal features, three classes."""
    rng = np.random.default_rng(100 + seed)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + 0.7 * rng.normal(size=400) > 0).astype(int) + (X[:, 1] > 1).astype(int)
    return X, y


def _partition(labels: np.ndarray) -> set[frozenset[int]]:
    """The records grouped by leaf, whatever the leaves are called."""
    groups: dict[int, set[int]] = {}
    for i, leaf in enumerate(labels):
        groups.setdefault(int(leaf), set()).add(i)
    return {frozenset(g) for g in groups.values()}


def _rpart_cases() -> list[tuple[int, float, np.ndarray]]:
    ref = pd.read_csv(RPART_LEAVES, comment="#")
    return [
        (int(seed), float(cp), g.sort_values("row")["rpart_leaf"].to_numpy())
        for (seed, cp), g in ref.groupby(["seed", "cp"])
    ]


@pytest.mark.parametrize(("seed", "cp", "rpart_leaf"), _rpart_cases())
def test_the_leaves_are_rparts(seed, cp, rpart_leaf):
    """R's rpart 4.1.19 on the same records puts every record in the same leaf as ours, at
    cp 0, 0.01, 0.03 and 0.1 (16 trees of 2 to 20 leaves), so the probabilities (the
    leaf's class shares) are rpart's too. A Gini-based pruning (scikit-learn's ccp_alpha)
    or none at all keeps other leaves (tests/unit/test_mutants.py)."""
    X, y = _reference_table(seed)
    model = RpartClassifier(cp=cp).fit(X, y)
    ours = model.representative_[model.tree.apply(X)]
    assert _partition(ours) == _partition(rpart_leaf)
