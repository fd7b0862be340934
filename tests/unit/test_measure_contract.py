"""The contract every registered measure keeps (scikit-learn's ``test_common`` is the model):
run through the one evaluation path, each returns a result object with the aggregate, its
interval and parameters, per-record values with a unique index, the same numbers for the
same seed, a value within its declared bounds, the same aggregate when the input rows are
reordered (or, for measures that draw samples, a reading that agrees within the
intervals), and a PrivacyCoreError for bad input. A new measure added to the registry is
checked here without a line of new test code.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
from privacy_core.errors import PrivacyCoreError
from privacy_core.evaluation import evaluate
from privacy_core.measures import MEASURES
from privacy_core.results import MetricResult

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

# small settings so that every measure runs in seconds; the contract does not depend on them
FAST = {
    "rapid": {"attackers": "logit"},
    # with 4 shadow models on 400 rows SELF may not rise above the noise floor, and the
    # relative reading is NaN by design (one column order in two); 8 decide
    "mds": {"shadow_models": 8, "shadow_sets": 1, "records": 100},
    "mla": {"bootstrap": 20},
    "singling_out": {"n_attacks": 100},
    "singling_out_outliers": {"n_attacks": 50},
    "domias": {"bootstrap": 20},
    "gtcap": {"bootstrap": 20},
    "discriminator": {"bootstrap": 20},
}

# Measures whose value rests on a seeded random draw over row positions (attack targets,
# predicates, density or shadow-model splits, train/test splits): reordering the rows is
# another draw of the same experiment, so the two readings must agree within their
# intervals rather than to the last digit. Every other measure must not move at all.
SAMPLED = {
    "singling_out": "predicates and targets are drawn from the rows",
    "inference": "attack targets are drawn from the rows",
    "domias": "the holdout is split into reference and evaluation rows by a permutation",
    "mds": "shadow-model splits are drawn from the rows",
    "mla": "the evaluators' random forests draw bootstrap samples by row position",
}


@pytest.fixture(scope="module")
def tables():
    real = pc.simulate_health(400, kappa=1.0, seed=0)
    holdout = pc.simulate_health(400, kappa=1.0, seed=1)
    syn = pc.synthesize(pc.prepare_table(real, pc.infer_schema(real)), method="cart", seed=2)
    threat = pc.ThreatModel(["age", "education", "gender"], ["disease"])
    return real, syn, holdout, threat


def _run(name, real, syn, holdout, threat, *, seed=3) -> MetricResult:
    return evaluate(
        real,
        syn,
        measures=[name],
        threat=threat,
        holdout=holdout,
        seed=seed,
        options={name: FAST.get(name, {})},
    )[name]


def _same(a: MetricResult, b: MetricResult) -> bool:
    def eq(x, y):
        return (x is None and y is None) or (
            x is not None and y is not None and np.allclose(x, y, equal_nan=True, rtol=0, atol=0)
        )

    return eq(a.value, b.value) and eq(a.ci, b.ci)


@pytest.fixture(scope="module")
def results(tables):
    real, syn, holdout, threat = tables
    return {name: _run(name, real, syn, holdout, threat) for name in MEASURES}


def test_every_measure_is_checked_and_every_sampled_exemption_is_a_measure():
    assert set(SAMPLED) <= set(MEASURES)
    assert len(MEASURES) >= 17


@pytest.mark.parametrize("name", list(MEASURES))
def test_result_object_aggregate_interval_and_parameters(name, results):
    res = results[name]
    assert isinstance(res, MetricResult)
    assert res.name
    assert isinstance(res.value, float) and math.isfinite(res.value)
    lo, hi = res.bounds
    assert lo - 1e-9 <= res.value <= hi + 1e-9, (res.value, res.bounds)
    if res.ci is not None:
        assert res.ci[0] <= res.value + 1e-9 and res.value - 1e-9 <= res.ci[1], (res.value, res.ci)
    assert res.goal in ("lower", "higher")
    spec = MEASURES[name]  # the registry's goal and envelope of bounds hold the result's
    assert spec.bounds[0] <= lo and hi <= spec.bounds[1], (res.bounds, spec.bounds)
    if spec.goal.direction != "target":
        assert res.goal == spec.goal.direction
    assert isinstance(res.params, dict) and res.params
    assert res.to_dict()["value"] == pytest.approx(res.value)


@pytest.mark.parametrize("name", list(MEASURES))
def test_per_record_values_have_a_unique_index(name, results):
    records = results[name].records
    assert records is not None and len(records) > 0
    assert records.index.is_unique


@pytest.mark.parametrize("name", list(MEASURES))
def test_same_seed_same_result_another_seed_runs(name, tables, results):
    real, syn, holdout, threat = tables
    again = _run(name, real, syn, holdout, threat)
    assert _same(again, results[name])
    other = _run(name, real, syn, holdout, threat, seed=4)
    assert math.isfinite(other.value)


@pytest.mark.parametrize("name", list(MEASURES))
def test_row_order_does_not_change_the_aggregate(name, tables, results):
    real, syn, holdout, threat = tables
    shuffled = _run(
        name,
        real.sample(frac=1, random_state=1),
        syn.sample(frac=1, random_state=2),
        holdout.sample(frac=1, random_state=3),
        threat,
    )
    base = results[name]
    if name not in SAMPLED:
        assert shuffled.value == pytest.approx(base.value, abs=1e-9)
        return
    # another draw of the same experiment: the readings agree within their intervals
    assert base.ci is not None and shuffled.ci is not None
    assert shuffled.ci[0] <= base.ci[1] and base.ci[0] <= shuffled.ci[1], (base.ci, shuffled.ci)


@pytest.mark.parametrize("name", list(MEASURES))
def test_bad_input_raises_a_privacy_core_error(name, tables):
    real, syn, holdout, threat = tables
    with pytest.raises(PrivacyCoreError):  # a release that lacks a column of the real table
        _run(name, real, syn.drop(columns=["income"]), holdout, threat)
    with pytest.raises(PrivacyCoreError):  # an empty release
        _run(name, real, syn.iloc[:0], holdout, threat)
    # a seed that is not one, given to the measure itself (evaluate checks it first)
    kwargs = {"seed": -1, **FAST.get(name, {})}
    if MEASURES[name].needs_threat or MEASURES[name].uses_threat:
        kwargs["threat"] = threat
    if MEASURES[name].needs_holdout or MEASURES[name].uses_holdout:
        kwargs[MEASURES[name].holdout_keyword] = holdout  # RAPID calls it ``control``
    with pytest.raises(PrivacyCoreError):
        MEASURES[name].function(real, syn, **kwargs)


def test_sampled_measures_really_depend_on_the_draw(tables, results):
    """The exemption list is not a blanket: each listed measure does move with row order
    (otherwise it belongs with the exact ones)."""
    real, syn, holdout, threat = tables
    moved = []
    for name in SAMPLED:
        shuffled = _run(
            name,
            real.sample(frac=1, random_state=1),
            syn.sample(frac=1, random_state=2),
            holdout.sample(frac=1, random_state=3),
            threat,
        )
        moved.append(shuffled.value != results[name].value)
    assert all(moved), dict(zip(SAMPLED, moved, strict=True))


def test_frames_are_not_modified(tables):
    real, syn, holdout, threat = tables
    before = [t.copy() for t in (real, syn, holdout)]
    for name in MEASURES:
        _run(name, real, syn, holdout, threat)
    for a, b in zip(before, (real, syn, holdout), strict=True):
        pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("name", list(MEASURES))
def test_columns_are_matched_by_name_not_position(name, tables, results):
    """A release and a holdout whose columns come in another order than the real table's
    read exactly the same (a measure that zipped the real and the synthetic columns by
    position would compare age with income here and read another number)."""
    real, syn, holdout, threat = tables
    reverse = list(real.columns)[::-1]
    rotated = list(real.columns)[1:] + [real.columns[0]]
    other = _run(name, real, syn[reverse], holdout[rotated], threat)
    assert _same(other, results[name]), (other.value, results[name].value)


# Measures whose model is built over the real table's columns in their order: reordering
# them is another draw of the same experiment (like reordering rows for SAMPLED), so the
# readings agree within their intervals. Every other measure must not move at all.
COLUMN_DRAWN = {
    "singling_out_outliers": "the contrastive encoder's layers are initialised column by column",
    "mds": "the shadow models' encoder and splits follow the column order",
    "query_error": "the random range queries draw their columns by position",
    "discriminator": "xgboost breaks ties between equally good splits by feature position",
}


@pytest.mark.parametrize("name", list(MEASURES))
def test_the_real_tables_column_order_does_not_change_the_reading(name, tables, results):
    real, syn, holdout, threat = tables
    reverse = list(real.columns)[::-1]
    other = _run(name, real[reverse], syn[reverse], holdout[reverse], threat)
    base = results[name]
    if name not in COLUMN_DRAWN and name not in SAMPLED:
        assert other.value == pytest.approx(base.value, abs=1e-9), (other.value, base.value)
        return
    assert base.ci is not None and other.ci is not None
    assert other.ci[0] <= base.ci[1] and base.ci[0] <= other.ci[1], (base.ci, other.ci)


def test_column_drawn_measures_really_depend_on_the_order(tables, results):
    """The exemption list is not a blanket: each listed measure does move."""
    real, syn, holdout, threat = tables
    reverse = list(real.columns)[::-1]
    moved = {
        name: _run(name, real[reverse], syn[reverse], holdout[reverse], threat).value
        != results[name].value
        for name in COLUMN_DRAWN
    }
    assert all(moved.values()), moved


@pytest.mark.parametrize("name", list(MEASURES))
def test_index_labels_do_not_change_the_aggregate(name, tables, results):
    """The tables' index labels are names, not positions: string labels, and integer labels
    that do not start at 0 and repeat across the tables, read the same; the per-record
    table still has a unique index."""
    real, syn, holdout, threat = tables
    relabelled = _run(
        name,
        real.set_axis([f"r{i}" for i in range(len(real))]),
        syn.set_axis(np.arange(len(syn)) + 1000),
        holdout.set_axis(np.arange(len(holdout)) + 1000),
        threat,
    )
    assert relabelled.value == pytest.approx(results[name].value, abs=1e-9)
    assert relabelled.records is not None and relabelled.records.index.is_unique


@pytest.mark.parametrize("name", list(MEASURES))
def test_column_types_do_not_change_the_aggregate(name, tables, results):
    """The same values in other pandas types read the same: text as ``category`` and as
    the ``string`` type, whole numbers as the nullable ``Int64`` (what a parquet file or
    another reader hands over)."""
    real, syn, holdout, threat = tables

    def retype(t: pd.DataFrame) -> pd.DataFrame:
        return t.astype(
            {"gender": "category", "education": "string", "disease": "category", "age": "Int64"}
        )

    other = _run(name, retype(real), retype(syn), retype(holdout), threat)
    assert other.value == pytest.approx(results[name].value, abs=1e-9)


@pytest.mark.parametrize("name", list(MEASURES))
def test_one_release_reads_as_a_one_item_list(name, tables, results):
    """A release given alone and the same release as a list of one are the same input (no
    averaging over a list, no second code path that reads it otherwise)."""
    real, syn, holdout, threat = tables
    listed = _run(name, real, [syn], holdout, threat)
    assert _same(listed, results[name])
