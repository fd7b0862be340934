"""The one table encoder: min-max by the real range, one-hot over real categories."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from privacy_core import (
    MISSING,
    MissingValueError,
    ParameterError,
    SchemaError,
    TableEncoder,
    canonical_schema,
    infer_schema,
)


@pytest.fixture
def tiny() -> pd.DataFrame:
    """Canonical table small enough to check every encoded cell by hand."""
    return pd.DataFrame(
        {
            "x": [10.0, 20.0, 30.0, np.nan],
            "c": ["b", "a", MISSING, "b"],
            "y": [1.0, 1.0, 3.0, 5.0],
        }
    )


@pytest.fixture
def encoder(tiny) -> TableEncoder:
    return TableEncoder(canonical_schema(tiny)).fit(tiny)


def test_layout_names_and_slices(encoder):
    assert encoder.feature_names() == ["x", f"c={MISSING}", "c=a", "c=b", "y"]
    assert encoder.feature_columns() == ["x", "c", "c", "c", "y"]
    assert encoder.slices_ == {"x": slice(0, 1), "c": slice(1, 4), "y": slice(4, 5)}
    assert encoder.n_features_ == 5
    assert encoder.feature_names(["y", "c"]) == ["y", f"c={MISSING}", "c=a", "c=b"]


def test_every_cell(encoder, tiny):
    expected = np.array(
        [
            # x (median 20 imputed for NaN), c one-hot ((missing), a, b), y
            [0.0, 0, 0, 1, 0.0],
            [0.5, 0, 1, 0, 0.0],
            [1.0, 1, 0, 0, 0.5],
            [0.5, 0, 0, 1, 1.0],
        ],
        dtype=np.float32,
    )
    out = encoder.transform(tiny)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, expected, atol=1e-7)


def test_codes_give_one_column_of_level_positions(tiny):
    """``categorical="codes"``: a categorical is one column of its level's position among
    the sorted real levels (as R's factor codes), -1 for a level the schema does not know;
    numerics as with one-hot."""
    codes = TableEncoder(canonical_schema(tiny), categorical="codes").fit(tiny)
    assert codes.feature_names() == ["x", "c", "y"]
    assert codes.feature_columns() == ["x", "c", "y"]
    np.testing.assert_allclose(codes.transform(tiny)[:, 1], [2, 1, 0, 2])  # (missing), a, b
    np.testing.assert_allclose(
        codes.transform(tiny)[:, [0, 2]], [[0, 0], [0.5, 0], [1, 0.5], [0.5, 1]]
    )
    other = pd.DataFrame({"x": [10.0], "c": ["zz"], "y": [1.0]})
    assert codes.transform(other)[0, 1] == -1
    with pytest.raises(ParameterError, match="categorical"):
        TableEncoder(canonical_schema(tiny), categorical="ordinal")


def test_scale_comes_from_the_real_data_only(encoder):
    synthetic = pd.DataFrame({"x": [0.0, 40.0], "c": ["a", "a"], "y": [9.0, 1.0]})
    out = encoder.transform(synthetic)
    np.testing.assert_allclose(out[:, 0], [-0.5, 1.5])  # outside [0, 1] is kept
    np.testing.assert_allclose(out[:, 4], [2.0, 0.0])
    assert encoder.minimum_ == {"x": 10.0, "y": 1.0}
    assert encoder.scale_ == {"x": 20.0, "y": 4.0}


def test_unseen_category_encodes_as_zeros(encoder):
    synthetic = pd.DataFrame({"x": [10.0], "c": ["zzz"], "y": [1.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no reliance on deprecated pandas behaviour
        out = encoder.transform(synthetic)
    np.testing.assert_array_equal(out[0, encoder.slices_["c"]], [0, 0, 0])


def test_column_subset_in_the_requested_order(encoder, tiny):
    full = encoder.transform(tiny)
    part = encoder.transform(tiny, ["y", "x"])
    np.testing.assert_array_equal(part, full[:, [4, 0]])


def test_encoder_restricted_to_columns(tiny):
    enc = TableEncoder(canonical_schema(tiny), columns=["c"]).fit(tiny)
    assert enc.feature_names() == [f"c={MISSING}", "c=a", "c=b"]
    assert enc.transform(tiny).shape == (4, 3)


def test_constant_numeric_column_has_unit_scale():
    frame = pd.DataFrame({"k": [7.0, 7.0, 7.0], "c": ["a", "b", "a"]})
    enc = TableEncoder(canonical_schema(frame)).fit(frame)
    np.testing.assert_array_equal(enc.transform(frame)[:, 0], [0.0, 0.0, 0.0])
    assert enc.scale_["k"] == 1.0


def test_median_imputation_is_recorded(encoder, tiny):
    assert encoder.median_["x"] == 20.0
    assert encoder.n_missing(tiny) == {"x": 1}
    assert encoder.n_missing(tiny.fillna(0)) == {}


def test_error_strategy_rejects_missing_numerics(tiny):
    enc = TableEncoder(canonical_schema(tiny), numeric_missing="error").fit(tiny)
    with pytest.raises(MissingValueError, match="'x' has 1 missing value"):
        enc.transform(tiny)
    # Columns without missing values still encode under the strict strategy.
    assert enc.transform(tiny, ["c", "y"]).shape == (4, 4)


def test_real_data_encodes_into_the_unit_box(health_schema, health_canonical):
    enc = TableEncoder(health_schema).fit(health_canonical)
    out = enc.transform(health_canonical)
    assert out.shape == (300, 3 + 2 + 3 + 3)
    assert out.min() == 0.0 and out.max() == 1.0
    for col in health_schema.numeric:  # each numeric reaches both ends of its range
        block = out[:, enc.slices_[col]]
        assert block.min() == 0.0 and block.max() == 1.0
    for col in health_schema.categorical:  # exactly one level per record
        np.testing.assert_array_equal(out[:, enc.slices_[col]].sum(axis=1), 1.0)


def test_bad_arguments(tiny, health_schema):
    with pytest.raises(ParameterError, match="numeric_missing"):
        TableEncoder(canonical_schema(tiny), numeric_missing="mean")
    with pytest.raises(SchemaError, match="'nope'"):
        TableEncoder(canonical_schema(tiny), columns=["nope"])
    enc = TableEncoder(canonical_schema(tiny)).fit(tiny)
    with pytest.raises(SchemaError, match="not fitted on column"):
        enc.transform(tiny, ["nope"])
    with pytest.raises(RuntimeError, match="before fit"):
        TableEncoder(canonical_schema(tiny)).transform(tiny)


def test_excluded_column_cannot_be_encoded(health_real):
    schema = infer_schema(health_real, overrides={"income": "exclude"})
    with pytest.raises(SchemaError, match="'income' is excluded"):
        TableEncoder(schema, columns=["age", "income"])
