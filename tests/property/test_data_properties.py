"""Properties of the data layer on small random mixed-type frames (hypothesis)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import mixed_frames

from privacy_core import (
    PrivacyCoreError,
    PrivacyCoreWarning,
    TableEncoder,
    conform_table,
    infer_schema,
    prepare_table,
)

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _schema_and_canonical(frame: pd.DataFrame):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyCoreWarning)
        schema = infer_schema(frame)
        return schema, prepare_table(frame, schema)


@SETTINGS
@given(mixed_frames())
def test_inference_raises_only_documented_errors(frame):
    try:
        schema, canonical = _schema_and_canonical(frame)
    except PrivacyCoreError:
        return
    assert list(canonical.columns) == schema.included
    assert len(canonical) == len(frame)
    for spec in schema.columns:
        if not spec.included:
            continue
        col = canonical[spec.name]
        if spec.is_numeric:
            assert col.dtype == np.float64
            assert not np.isinf(col.to_numpy()).any()
        else:
            assert col.dtype == object
            assert all(isinstance(v, str) for v in col)
            assert set(col) <= set(spec.categories)


@SETTINGS
@given(mixed_frames())
def test_conform_round_trips_the_canonical_form(frame):
    try:
        schema, canonical = _schema_and_canonical(frame)
    except PrivacyCoreError:
        return
    again = conform_table(canonical, schema)
    pd.testing.assert_frame_equal(again, canonical)
    # Conforming the raw table gives the same canonical form as preparing it.
    pd.testing.assert_frame_equal(conform_table(frame, schema), canonical)


@SETTINGS
@given(mixed_frames(), st.sampled_from(["median", "error"]))
def test_encoder_output_is_finite(frame, strategy):
    try:
        schema, canonical = _schema_and_canonical(frame)
    except PrivacyCoreError:
        return
    if not schema.included:
        return
    encoder = TableEncoder(schema, numeric_missing=strategy).fit(canonical)
    try:
        out = encoder.transform(canonical)
    except PrivacyCoreError:
        assert strategy == "error" and canonical[schema.numeric].isna().any().any()
        return
    assert out.shape == (len(frame), encoder.n_features_)
    assert np.isfinite(out).all()
    real_range = out[:, [encoder.slices_[c].start for c in schema.numeric]]
    assert ((real_range >= 0) & (real_range <= 1)).all()
    for col in schema.categorical:  # one level per record: every level was seen
        np.testing.assert_array_equal(out[:, encoder.slices_[col]].sum(axis=1), 1.0)
