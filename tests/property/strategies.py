"""The hypothesis strategies the property tests share: small mixed tables for the measures
(two numeric columns, one with missing values, a categorical one and a binary secret) and
messy frames for the data layer."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from privacy_core.data import MISSING

TABLE_COLUMNS = ("x1", "x2", "c", "s")


@st.composite
def small_tables(
    draw, min_rows: int = 2, max_rows: int = 15, *, low: float = 0.0, both_classes: bool = False
) -> pd.DataFrame:
    """Columns x1 (numeric), x2 (numeric with NaN), c (3 levels) and s (the secret, 2
    levels; ``both_classes`` puts each level in the first two rows). Numbers in
    [``low``, 100], with small integers drawn often so that ties and exact matches occur."""
    value = st.one_of(st.integers(0, 5).map(float), st.floats(low, 100, allow_nan=False))
    n = draw(st.integers(min_rows, max_rows))
    x1 = draw(st.lists(value, min_size=n, max_size=n))
    x2 = draw(st.lists(st.one_of(value, st.just(float("nan"))), min_size=n, max_size=n))
    c = draw(st.lists(st.sampled_from("pqr"), min_size=n, max_size=n))
    s = draw(st.lists(st.sampled_from("ab"), min_size=n, max_size=n))
    if both_classes:
        s[:2] = ["a", "b"]
    return pd.DataFrame({"x1": x1, "x2": x2, "c": c, "s": s})


_floats = st.one_of(
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
    st.just(np.nan),
    st.just(np.inf),
)
_words = st.one_of(st.sampled_from(["a", "b", "c", " d ", "é", "", MISSING]), st.none())


@st.composite
def mixed_frames(draw) -> pd.DataFrame:
    """1-5 columns of ints, floats (with NaN/inf), text (with None), bools, or a mix."""
    n = draw(st.integers(min_value=1, max_value=30))
    kinds = draw(
        st.lists(
            st.sampled_from(["int", "float", "text", "bool", "mixed", "small"]),
            min_size=1,
            max_size=5,
        )
    )
    columns = {}
    for i, kind in enumerate(kinds):
        if kind == "int":
            values = draw(st.lists(st.integers(-(10**6), 10**6), min_size=n, max_size=n))
        elif kind == "small":  # few distinct integers: boolean / categorical territory
            values = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
        elif kind == "float":
            values = draw(st.lists(_floats, min_size=n, max_size=n))
        elif kind == "text":
            values = draw(st.lists(_words, min_size=n, max_size=n))
        elif kind == "bool":
            values = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        else:
            values = draw(
                st.lists(st.one_of(_words, st.integers(0, 3), _floats), min_size=n, max_size=n)
            )
        columns[f"{kind}{i}"] = pd.Series(values, dtype=None if kind != "mixed" else object)
    return pd.DataFrame(columns)
