"""Categories a holdout or synthetic table holds and the real table does not.

A holdout is another sample of the same population, so rare categories missing from the
real sample are normal there; a generator may invent one. Neither is refused: the value
becomes a category of its own, appended after the real categories, announced by an
:class:`UnseenCategoryWarning`, and every measure treats it as unequal to every real
category and equal to itself.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from privacy_core import (
    SchemaMismatchError,
    TableEncoder,
    UnseenCategoryWarning,
    conform_table,
    infer_schema,
    prepare_review,
    wasserstein_fidelity,
)
from privacy_core.data import prepare_table_coded
from privacy_core.evaluation import evaluate_measures
from privacy_core.inputs import prepare_release_tables
from privacy_core.measures import MEASURES
from privacy_core.risk.attacks import singling_out
from privacy_core.risk.distance import identical_match_share
from privacy_core.utility import query_error

NEW = "doctorate"  # an education level the simulation never draws
OTHER_NEW = "phd"
SMALL = {"n_attacks": 40}
# options that keep every registered measure quick on 300 rows
QUICK: dict[str, dict] = {
    "rapid": {"n_trees": 20, "bootstrap": 20, "attackers": ("rf",)},
    "knn": {"k_max": 3},
    "singling_out": SMALL,
    "linkability": SMALL,
    "inference": SMALL,
    "ml_inference": SMALL,
    "gtcap": {"bootstrap": 20},
    "domias": {"bootstrap": 20},
    "wasserstein": {"max_rows": 200},
    "mla": {"bootstrap": 20},
    "query_error": {"bootstrap": 20},
    "discriminator": {"bootstrap": 20},
}


def _with_level(
    frame: pd.DataFrame, rows: slice | list[int], value: str, column: str = "education"
) -> pd.DataFrame:
    out = frame.copy()
    out.loc[out.index[rows], column] = value
    return out


def _review(real, synthetic, threat, holdout=None):
    with pytest.warns(UnseenCategoryWarning) as record:
        data = prepare_review(real, synthetic, threat=threat, holdout=holdout)
    unseen = [w.message for w in record if isinstance(w.message, UnseenCategoryWarning)]
    assert len(unseen) == 1, "one warning per review, naming every table"
    return data, unseen[0]


def _quiet_measures(real, synthetic, threat, holdout, names):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_measures(
            real, synthetic, names=names, threat=threat, holdout=holdout, seed=0, options=QUICK
        )


# --------------------------------------------------------------------- holdout
def test_unseen_holdout_category_warns_instead_of_refusing(health_real, health_threat):
    holdout = _with_level(health_real, slice(0, 10), NEW)
    data, warning = _review(health_real, health_real, health_threat, holdout)
    message = str(warning)
    for fragment in (
        "holdout",
        "'education'",
        f"'{NEW}'",
        "category of its own",
        "never equals a real category",
        "expected",
    ):
        assert fragment in message, f"{fragment!r} missing from {message!r}"
    assert warning.unseen == {"holdout": {"education": (NEW,)}}
    assert isinstance(warning, UserWarning)
    assert data.holdout["education"].iloc[:10].eq(NEW).all()  # kept, not dropped


def test_unseen_level_is_appended_and_real_codes_keep_their_positions(
    health_real, health_schema, health_threat
):
    holdout = _with_level(health_real, slice(0, 10), NEW)
    data, _ = _review(health_real, health_real, health_threat, holdout)
    spec = data.schema["education"]
    real_levels = health_schema["education"].categories
    assert spec.categories == (*real_levels, NEW)
    assert spec.unseen == (NEW,) and spec.real_categories == real_levels
    assert health_schema["education"].unseen == ()  # the given schema is not modified
    _, before = prepare_table_coded(health_real, health_schema)
    np.testing.assert_array_equal(data.codes_of(data.real)["education"], before["education"])
    codes = data.codes_of(data.holdout)["education"]
    np.testing.assert_array_equal(codes[:10], len(real_levels))  # one code, its own
    np.testing.assert_array_equal(codes[10:], before["education"][10:])
    assert not np.isin(codes[:10], data.codes_of(data.real)["education"]).any()


def test_encoder_gives_the_unseen_level_a_column_of_its_own(health_real, health_threat):
    holdout = _with_level(_with_level(health_real, slice(0, 10), NEW), [10, 11], OTHER_NEW)
    data, _ = _review(health_real, health_real, health_threat, holdout)
    encoder = TableEncoder(data.schema, columns=["education"]).fit(data.real)
    assert encoder.feature_names()[-2:] == [f"education={NEW}", f"education={OTHER_NEW}"]
    x_real = encoder.transform(data.real)
    x_hold = encoder.transform(data.holdout)
    assert not x_real[:, -2:].any()  # all zeros on the real rows
    l1 = np.abs(x_hold[:, None, :] - x_real[None, :, :]).sum(axis=2)
    # an unseen value is as far from every real category as two real categories are
    assert (l1[:12] == 2).all()
    assert set(np.unique(np.abs(x_real[:, None] - x_real[None, :]).sum(axis=2))) == {0, 2}
    # rows with the same unseen value are equal; two different unseen values are not
    assert np.abs(x_hold[0] - x_hold[1]).sum() == 0
    assert np.abs(x_hold[0] - x_hold[10]).sum() == 2


def test_measures_treat_an_unseen_holdout_value_as_unequal_to_every_real_one(
    health_real, health_threat
):
    # the holdout copies the training rows; ten of them with a new education level
    holdout = _with_level(health_real, slice(0, 10), NEW)
    with pytest.warns(UnseenCategoryWarning):
        ims = identical_match_share(health_real, health_real, threat=health_threat, holdout=holdout)
    assert ims.extra["n_holdout_matches"] == len(health_real) - 10
    assert ims.baseline == pytest.approx(1 - 10 / len(health_real))


@pytest.mark.parametrize("name", list(MEASURES))
def test_every_measure_runs_with_an_unseen_holdout_category(
    name, health_real, health_holdout, health_threat, make_health
):
    holdout = _with_level(health_holdout, slice(0, 15), NEW)
    release = make_health(300, 1.0, 7)
    result = _quiet_measures(health_real, release, health_threat, holdout, [name])[name]
    assert np.isfinite(result.value)


# --------------------------------------------------------------------- synthetic
def test_unseen_synthetic_category_warns_and_is_kept(health_real, health_threat):
    synthetic = _with_level(health_real, slice(0, 10), NEW)
    data, warning = _review(health_real, synthetic, health_threat)
    message = str(warning)
    for fragment in ("synthetic", "'education'", f"'{NEW}'", "invented"):
        assert fragment in message
    assert warning.unseen == {"synthetic": {"education": (NEW,)}}
    assert data.schema["education"].unseen == (NEW,)
    assert data.synthetic[0]["education"].iloc[:10].eq(NEW).all()


def test_measures_treat_an_unseen_synthetic_value_as_unequal_to_every_real_one(
    health_real, health_threat
):
    n = len(health_real)
    synthetic = _with_level(health_real, slice(0, 10), NEW)
    with pytest.warns(UnseenCategoryWarning):
        ims = identical_match_share(health_real, synthetic, threat=health_threat)
    assert ims.value == pytest.approx(1 - 10 / n)  # the changed rows copy no real row
    # the education marginal moves 10 rows from real levels to a level of its own
    with pytest.warns(UnseenCategoryWarning):
        fid = wasserstein_fidelity(health_real, synthetic, columns=["education"])
    assert fid.extra["by_marginal"]["education"] == pytest.approx(10 / n)
    # a point query on a real level never counts the unseen value
    with pytest.warns(UnseenCategoryWarning):
        qe = query_error(health_real, synthetic, ways=(1,), n_queries=200, bootstrap=0)
    rows = qe.records[qe.records["columns"] == "education"]
    assert len(rows) and (rows["real"] - rows["synthetic"] >= -1e-12).all()
    assert not rows["condition"].str.contains(NEW).any()  # queries ask about real levels


def test_singling_out_predicate_on_an_unseen_value_matches_no_real_row(health_real, health_threat):
    synthetic = _with_level(health_real, [0], NEW)  # a value held by one synthetic row
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = singling_out(
            health_real, synthetic, threat=health_threat, mode="univariate", n_attacks=2000, seed=0
        )
    rows = result.records[result.records["guess"] == f"education == '{NEW}'"]
    assert len(rows) == 1
    assert rows["truth"].iloc[0] == 0 and not rows["success"].iloc[0]


def test_same_unseen_value_shares_one_code_across_tables(health_real, health_threat):
    # the holdout knows only the later of two new levels: its own code must be moved
    holdout = _with_level(health_real, slice(0, 5), OTHER_NEW)
    synthetic = _with_level(_with_level(health_real, slice(0, 5), OTHER_NEW), slice(5, 8), NEW)
    data, warning = _review(health_real, synthetic, health_threat, holdout)
    assert warning.unseen == {
        "synthetic": {"education": (NEW, OTHER_NEW)},
        "holdout": {"education": (OTHER_NEW,)},
    }
    spec = data.schema["education"]
    assert spec.unseen == (NEW, OTHER_NEW)
    k = len(spec.real_categories)
    hold = data.codes_of(data.holdout)["education"]
    syn = data.codes_of(data.synthetic[0])["education"]
    np.testing.assert_array_equal(hold[:5], k + 1)
    np.testing.assert_array_equal(syn[:5], k + 1)
    np.testing.assert_array_equal(syn[5:8], k)
    for frame in (data.real, data.synthetic[0], data.holdout):
        labels = np.asarray(spec.categories, dtype=object)[data.codes_of(frame)["education"]]
        np.testing.assert_array_equal(labels, frame["education"].to_numpy())


@pytest.mark.parametrize("name", list(MEASURES))
def test_every_measure_runs_with_an_unseen_synthetic_category(
    name, health_real, health_holdout, health_threat, make_health
):
    release = make_health(300, 1.0, 7)
    release = _with_level(release, slice(0, 10), NEW)
    release = _with_level(release, slice(10, 15), "cured", column="disease")  # the target
    result = _quiet_measures(health_real, release, health_threat, health_holdout, [name])[name]
    assert np.isfinite(result.value)


# --------------------------------------------------------------------- still errors
def test_other_mismatches_stay_errors_and_win_over_the_note(health_real, health_schema):
    release = _with_level(health_real, slice(0, 3), NEW).drop(columns=["age"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnseenCategoryWarning)  # no note before the error
        with pytest.raises(SchemaMismatchError) as excinfo:
            conform_table(release, health_schema, table="holdout")
    assert excinfo.value.problems == ["missing column(s): 'age'"]


def test_a_schema_extended_once_needs_no_second_note(health_real, health_threat):
    holdout = _with_level(health_real, slice(0, 10), NEW)
    data, _ = _review(health_real, health_real, health_threat, holdout)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnseenCategoryWarning)
        again = prepare_release_tables(
            data.real, list(data.synthetic), holdout=data.holdout, schema=data.schema
        )
    assert again.schema is data.schema
    np.testing.assert_array_equal(
        again.codes_of(again.holdout)["education"], data.codes_of(data.holdout)["education"]
    )


def test_levels_the_real_table_holds_are_not_reported_as_unseen(health_real, health_threat):
    # a schema inferred on part of the real rows (as the risk lab's pooled tables have)
    part = health_real.iloc[10:]
    real = _with_level(health_real, slice(0, 10), NEW)
    holdout = _with_level(health_real, slice(0, 5), NEW)
    synthetic = _with_level(health_real, slice(0, 5), OTHER_NEW)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = infer_schema(part)
    with pytest.warns(UnseenCategoryWarning) as record:
        data = prepare_review(real, synthetic, threat=health_threat, holdout=holdout, schema=schema)
    (warning,) = [w.message for w in record]
    assert warning.unseen == {"synthetic": {"education": (OTHER_NEW,)}}
    assert NEW in data.schema["education"].categories  # still a level every table codes
    encoder = TableEncoder(data.schema, columns=["education"]).fit(data.real)
    names = encoder.feature_names()
    assert len(names) == len(set(names))
