"""Every measure declares how its cost is bounded in rows and in columns (a design rule:
sampling with a wider interval, a cap, or a plain statement that there is none), and the
numbers that statement quotes are the engine's current constants and defaults, so the
text cannot drift from the code. Reads the registry only: no measure runs.
"""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import pytest

from privacy_core.embedding import ContrastiveParams
from privacy_core.fidelity import DEFAULT_MAX_PAIRS, DEFAULT_MAX_ROWS
from privacy_core.measures import MEASURES
from privacy_core.review import EVERY_RECORD_MAX_ROWS, attack_targets
from privacy_core.risk import mds
from privacy_core.risk.attackers import UNREGULARISED_XGB
from privacy_core.risk.attacks.predicates import (
    DEFAULT_N_ATTACKS,
    singling_out,
    singling_out_outliers,
)
from privacy_core.risk.cap import CAP_PAIR_BUDGET, GTCAP_MAX_QUERIES
from privacy_core.risk.distance import dcr_knn
from privacy_core.risk.membership import DEFAULT_BINS, domias
from privacy_core.risk.neighbors import BUDGET_COLUMNS, MAX_QUERIES, MIN_QUERIES, PAIR_BUDGET
from privacy_core.risk.rapid import rapid
from privacy_core.risk.sdc import N_BOOT
from privacy_core.utility import DEFAULT_EVALUATORS, MLA_MAX_TRAIN, discriminator, query_error

ROOT = Path(__file__).resolve().parents[2]


def _default(function, name):
    return inspect.signature(function).parameters[name].default


def _n(value: int) -> str:
    """A number as the budgets write it (thousands separated by commas)."""
    return f"{value:,}"


_QUERIES = [_n(MAX_QUERIES), _n(MIN_QUERIES)]
_SDC = [_n(N_BOOT)]

# the numbers each budget quotes, from the constants and defaults the measure runs with
CITED: dict[str, list[str]] = {
    "rapid": [f"{_default(rapid, 'n_trees')}-tree"],
    "dcr": [*_QUERIES, _n(PAIR_BUDGET), f"beyond {BUDGET_COLUMNS}"],
    "knn": [*_QUERIES, _n(PAIR_BUDGET), f"{_default(dcr_knn, 'k_max')} nearest"],
    "singling_out": [
        f"{_n(DEFAULT_N_ATTACKS)} predicates",
        f"{_n(_default(singling_out, 'max_attempts'))} draws",
        f"{_default(singling_out, 'n_cols')} per predicate",
    ],
    "singling_out_outliers": [
        f"{_n(ContrastiveParams.max_rows)} rows",
        f"{_n(ContrastiveParams.max_steps)} steps",
        f"{_n(MAX_QUERIES)} synthetic rows",
        f"{_n(_default(singling_out_outliers, 'n_attacks'))} predicates",
        f"from {_default(singling_out_outliers, 'n_cols')} columns",
    ],
    "linkability": _QUERIES,
    "inference": _QUERIES,
    "reproduced_uniques": _SDC,
    "individual_risk": _SDC,
    "sample_uniques": _SDC,
    "k_anonymity": _SDC,
    "l_diversity": _SDC,
    "ml_inference": [
        f"{UNREGULARISED_XGB['n_estimators']} rounds",
        f"depth {UNREGULARISED_XGB['max_depth']}",
        # the review's sampling of attack targets (privacy_core.review.attack_targets)
        f"{attack_targets(EVERY_RECORD_MAX_ROWS + 1)} targets above "
        f"{_n(EVERY_RECORD_MAX_ROWS)} rows",
    ],
    "gtcap": [f"up to {_n(GTCAP_MAX_QUERIES)} distinct synthetic records", _n(CAP_PAIR_BUDGET)],
    "domias": [f"at most {_n(_default(domias, 'max_rows'))} per set"],
    "membership": [f"{DEFAULT_BINS} bins"],
    "mds": [
        f"{_n(mds.DEFAULT_MAX_ROWS)} distinct",
        f"{mds.DEFAULT_SHADOW_MODELS} CART shadows",
        f"{mds.DEFAULT_SHADOW_SETS} tables",
        f"{_n(mds.DEFAULT_RECORDS)} records",
        f"at most {mds.MAX_COLUMNS} (a seeded sample",
    ],
    "wasserstein": [
        f"subsample of {_n(DEFAULT_MAX_ROWS)} rows",
        f"at most {_n(DEFAULT_MAX_PAIRS)} column pairs",
    ],
    "mla": [f"at most {_n(MLA_MAX_TRAIN)} real rows", f"{len(DEFAULT_EVALUATORS)} evaluators"],
    "query_error": [
        f"{_n(_default(query_error, 'n_queries'))} queries",
        ", ".join(map(str, _default(query_error, "ways"))),
    ],
    "discriminator": [
        f"at most {_n(_default(discriminator, 'max_rows'))} records per class",
        f"{_default(discriminator, 'n_estimators')} rounds",
    ],
}


@pytest.mark.parametrize("name", list(MEASURES))
def test_every_measure_states_its_bound_in_rows_and_columns(name):
    budget = MEASURES[name].budget
    assert budget.strip(), f"{name} declares no cost bound"
    text = budget.lower()
    assert "row" in text, f"{name}'s budget says nothing about rows: {budget!r}"
    assert "column" in text, f"{name}'s budget says nothing about columns: {budget!r}"
    assert len(budget) <= 320, f"{name}'s budget is {len(budget)} characters; keep it short"


def test_every_measure_is_in_the_table_of_cited_numbers():
    """A measure added to the registry gets its numbers checked here too (``ims`` quotes
    none: its hash join needs no bound)."""
    assert set(CITED) | {"ims"} == set(MEASURES)


@pytest.mark.parametrize("name", list(CITED))
def test_the_numbers_a_budget_quotes_are_the_codes_current_ones(name):
    budget = MEASURES[name].budget
    missing = [value for value in CITED[name] if value not in budget]
    assert missing == [], f"{name}'s budget lacks {missing}: {budget!r}"


def test_the_measures_page_shows_each_cost_bound():
    spec = importlib.util.spec_from_file_location("measures_hook", ROOT / "docs/hooks/measures.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    for name, measure in MEASURES.items():
        section = hook._section(name, measure)
        assert f"- **Cost bound:** {measure.budget}" in section.splitlines(), name


@pytest.mark.parametrize("categorical", [True, False])
def test_the_forest_grows_each_tree_on_at_most_its_sample_cap(monkeypatch, categorical):
    """RAPID's random forest bounds its memory at scale: above RF_MAX_SAMPLES release rows
    each tree is grown on a bootstrap sample of that size (issue 33: 12 GB at a million
    rows), at or below it on scikit-learn's full bootstrap as before. Catches a cap that
    is never applied (the capped forest's trees keep their full size) and one applied at
    or below the cap (the numbers of every small review would move)."""
    import numpy as np

    from privacy_core.risk import attackers

    rng = np.random.default_rng(3)
    X = rng.random((600, 4))
    y = (X[:, 0] + 0.3 * rng.random(600) > 0.6).astype(int) if categorical else X[:, 0] * 2
    forests = []
    base = attackers.RandomForestClassifier if categorical else attackers.RandomForestRegressor

    class Recorded(base):  # type: ignore[misc, valid-type]
        def fit(self, *args, **kwargs):
            forests.append(self)
            return super().fit(*args, **kwargs)

    name = "RandomForestClassifier" if categorical else "RandomForestRegressor"
    monkeypatch.setattr(attackers, name, Recorded)
    kw = dict(categorical=categorical, n_classes=2, n_trees=20, seed=1, n_jobs=1)
    full = attackers.fit_predict("rf", X, y, X, **kw)
    monkeypatch.setattr(attackers, "RF_MAX_SAMPLES", 600)  # 600 rows: at the cap, unchanged
    same = attackers.fit_predict("rf", X, y, X, **kw)
    assert np.array_equal(same.prediction, full.prediction)
    monkeypatch.setattr(attackers, "RF_MAX_SAMPLES", 60)
    attackers.fit_predict("rf", X, y, X, **kw)
    nodes = [np.mean([t.tree_.node_count for t in f.estimators_]) for f in forests]
    assert forests[0].max_samples is None and forests[2].max_samples == 60
    assert nodes[2] < nodes[0] / 3  # the capped trees are grown on a tenth of the rows
