"""Properties of the fidelity measures on small random mixed-type tables.

Wasserstein fidelity is symmetric in its two tables, zero on identical inputs and within
its bounds marginal by marginal (1-way and categorical pairs in [0, 1], pairs with a
numeric column in [0, 2]); query error is zero on identical inputs and in [0, 1].
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import small_tables

from privacy_core.data import ColumnSpec, Schema
from privacy_core.fidelity import wasserstein_fidelity
from privacy_core.utility import query_error

SCHEMA = Schema(
    columns=(
        ColumnSpec("x1", "numeric"),
        ColumnSpec("x2", "numeric"),
        ColumnSpec("c", "categorical", categories=("p", "q", "r")),
        ColumnSpec("s", "categorical", categories=("a", "b")),
    )
)

SETTINGS = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


max_rows = st.one_of(st.none(), st.integers(2, 8))


@SETTINGS
@given(a=small_tables(low=-50.0), b=small_tables(low=-50.0), rows=max_rows, seed=st.integers(0, 3))
def test_wasserstein_is_symmetric(a, b, rows, seed):
    ab = wasserstein_fidelity(a, b, schema=SCHEMA, max_rows=rows, seed=seed)
    ba = wasserstein_fidelity(b, a, schema=SCHEMA, max_rows=rows, seed=seed)
    assert abs(ab.value - ba.value) < 1e-9
    np.testing.assert_allclose(ab.records["distance"], ba.records["distance"], atol=1e-9)


@SETTINGS
@given(a=small_tables(low=-50.0), rows=max_rows, seed=st.integers(0, 3))
def test_wasserstein_is_zero_on_identical_tables(a, rows, seed):
    res = wasserstein_fidelity(a, a.copy(), schema=SCHEMA, max_rows=rows, seed=seed)
    assert res.value == 0.0
    assert np.all(np.abs(res.records["distance"].to_numpy()) < 1e-12)


@SETTINGS
@given(a=small_tables(low=-50.0), b=small_tables(low=-50.0), rows=max_rows)
def test_wasserstein_within_bounds(a, b, rows):
    res = wasserstein_fidelity(a, b, schema=SCHEMA, max_rows=rows)
    lo, hi = res.bounds
    assert lo <= res.value <= hi
    table = res.records
    d = table["distance"].to_numpy()
    assert np.all(d >= -1e-12)
    closed = (table["ways"] == 1) | (table["family"] == "cat-cat")
    assert np.all(d[closed.to_numpy()] <= 1 + 1e-12)
    assert np.all(d <= 2 + 1e-12)


@SETTINGS
@given(a=small_tables(low=-50.0), b=small_tables(low=-50.0), seed=st.integers(0, 3))
def test_query_error_zero_on_identical_and_bounded(a, b, seed):
    same = query_error(a, a.copy(), schema=SCHEMA, n_queries=30, bootstrap=0, seed=seed)
    assert same.value == 0.0
    other = query_error(a, b, schema=SCHEMA, n_queries=30, bootstrap=0, seed=seed)
    assert 0.0 <= other.value <= 1.0
    assert other.records["error"].between(0, 1).all()
