"""Data layer: loading, schema inference, overrides, canonical form, conformance."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest

from privacy_core import (
    MISSING,
    ColumnNotFoundError,
    DataLoadWarning,
    SchemaError,
    SchemaWarning,
    UnseenCategoryWarning,
    canonical_schema,
    conform_table,
    fingerprint,
    infer_schema,
    load_table,
    prepare_table,
)

N = 30  # above the 20-row threshold of ID detection


def _infer(frame: pd.DataFrame, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchemaWarning)
        return infer_schema(frame, **kwargs)


def _kinds(frame: pd.DataFrame, **kwargs) -> dict[str, str]:
    schema = _infer(frame, **kwargs)
    return {c.name: c.kind for c in schema.columns}


# --------------------------------------------------------------------- loading
def test_load_table_accepts_path_bytes_and_file_objects(tmp_path, health_real):
    path = tmp_path / "health.csv"
    health_real.to_csv(path, index=False)
    from_path = load_table(path)
    from_str = load_table(str(path))
    from_bytes = load_table(path.read_bytes(), name="health.csv")
    from_file = load_table(io.BytesIO(path.read_bytes()))
    for frame in (from_str, from_bytes, from_file):
        pd.testing.assert_frame_equal(frame, from_path)
    assert list(from_path.columns) == list(health_real.columns)
    np.testing.assert_allclose(from_path["income"], health_real["income"])
    assert from_path["disease"].tolist() == health_real["disease"].tolist()


def test_codes_with_leading_zeros_stay_text():
    rows = "\n".join(f"{z},{i % 3},{i}" for i, z in enumerate(["01234", "20000", "00700"] * 10))
    frame = load_table(("zip,group,n\n" + rows + "\n").encode(), name="codes.csv")
    assert frame["zip"].tolist()[:3] == ["01234", "20000", "00700"]
    assert frame["group"].dtype == np.int64 and frame["n"].dtype == np.int64
    assert _kinds(frame)["zip"] == "categorical"


def test_decimal_commas_are_read_in_semicolon_files_only():
    content = b"x;y;label\n1,5;1.234,56;a\n-2,25;7;b\n3;1.000;c\n"
    with pytest.warns(DataLoadWarning, match=r"'x', 'y'.*decimal commas"):
        frame = load_table(content, name="eu.csv")
    assert frame["x"].tolist() == [1.5, -2.25, 3.0]
    assert frame["y"].tolist() == [1234.56, 7.0, 1000.0]  # 1.000 beside commas: a thousand
    # with commas as delimiter, a quoted "1,234" is a thousands separator: left as text
    us = load_table(b'x,label\n"1,234",a\n"2,500",b\n', name="us.csv")
    assert us["x"].tolist() == ["1,234", "2,500"]


def test_text_booleans_and_oversized_integers():
    frame = load_table(b"flag,big,n\ntrue,12345678901234567890,1\nFALSE,2,2\n", name="b.csv")
    assert frame["flag"].dtype == bool and frame["flag"].tolist() == [True, False]
    assert frame["big"].dtype == np.float64 and frame["n"].dtype == np.int64


def test_parquet_round_trip(tmp_path, health_real):
    path = tmp_path / "health.parquet"
    pl.from_pandas(health_real).write_parquet(path)
    frame = load_table(path)
    assert frame.shape == health_real.shape
    assert frame["age"].tolist() == health_real["age"].tolist()
    assert frame["education"].tolist() == health_real["education"].tolist()


def test_parquet_is_detected_by_content_not_name(health_real):
    buf = io.BytesIO()
    pl.from_pandas(health_real).write_parquet(buf)
    frame = load_table(buf.getvalue(), name="upload.csv")
    assert frame.shape == health_real.shape


# --------------------------------------------------------------------- inference
def test_health_table_kinds(health_schema):
    kinds = {c.name: c.kind for c in health_schema.columns}
    assert kinds == {
        "gender": "categorical",
        "age": "numeric",
        "education": "categorical",
        "income": "numeric",
        "health": "numeric",
        "disease": "categorical",
    }
    assert health_schema["age"].integer and not health_schema["income"].integer
    assert health_schema["education"].categories == ("high", "low", "medium")
    assert health_schema.n_rows == 300
    assert health_schema.numeric == ["age", "income", "health"]
    assert health_schema.categorical == ["gender", "education", "disease"]


@pytest.mark.parametrize(
    ("values", "kind", "integer"),
    [
        (np.arange(N) % 7, "numeric", True),  # integers, repeated
        (np.linspace(0.5, 3.5, N) % 1.3, "numeric", False),  # floats
        (np.arange(N) % 2, "boolean", None),  # 0/1
        (np.arange(N) % 2 == 0, "boolean", None),  # True/False
        ((np.arange(N) % 2).astype(float), "boolean", None),  # 0.0/1.0
        (np.array(["a", "b", "c"] * (N // 3), dtype=object), "categorical", None),
        (np.array([f"id{i}" for i in range(N)], dtype=object), "id", False),  # unique text
        (np.arange(N) + 5000, "id", True),  # unique integers
        (np.linspace(0.1, 9.9, N) + 0.01, "numeric", False),  # unique floats stay numeric
        (np.full(N, 4.0), "constant", None),
        (np.full(N, np.nan), "constant", None),
    ],
    ids=[
        "int",
        "float",
        "zero-one",
        "true-false",
        "zero-one-float",
        "text",
        "text-id",
        "int-id",
        "unique-float",
        "constant",
        "all-missing",
    ],
)
def test_column_kind(values, kind, integer):
    frame = pd.DataFrame({"x": values, "other": np.arange(N) % 3})
    spec = _infer(frame)["x"]
    assert spec.kind == kind
    if kind in ("numeric", "id"):
        assert spec.integer is integer


def test_ids_need_twenty_rows():
    small = pd.DataFrame({"x": [f"id{i}" for i in range(19)], "y": np.arange(19) % 3})
    big = pd.DataFrame({"x": [f"id{i}" for i in range(20)], "y": np.arange(20) % 3})
    assert _kinds(small)["x"] == "categorical"
    assert _kinds(big)["x"] == "id"


def test_unique_column_with_a_missing_value_is_not_an_id():
    values = [f"id{i}" for i in range(N)]
    values[3] = None
    assert _kinds(pd.DataFrame({"x": values, "y": np.arange(N) % 3}))["x"] == "categorical"


def test_missing_counts_and_categories():
    frame = pd.DataFrame({"c": ["a", None, "b", "a"] * 5, "n": [1.5, np.nan, 2.5, 3.5] * 5})
    schema = _infer(frame)
    assert schema["c"].n_missing == 5 and schema["n"].n_missing == 5
    assert schema["c"].categories == tuple(sorted(["a", "b", MISSING]))
    assert schema["c"].n_unique == 2


def test_schema_lookup_and_export(health_schema):
    with pytest.raises(ColumnNotFoundError, match="'nope'.*available columns: gender"):
        health_schema["nope"]
    assert "age" in health_schema and "nope" not in health_schema
    table = health_schema.to_frame()
    assert table["name"].tolist() == health_schema.names
    assert table.loc[table["name"] == "education", "n_categories"].item() == 3
    as_dict = health_schema.to_dict()
    assert as_dict["n_rows"] == 300 and len(as_dict["columns"]) == 6


# --------------------------------------------------------------------- overrides
def test_override_integer_to_categorical(health_real):
    schema = _infer(health_real, overrides={"age": "categorical"})
    assert schema["age"].kind == "categorical"
    assert schema["age"].note == "set by the user"
    canonical = prepare_table(health_real, schema)
    assert canonical["age"].dtype == object
    assert canonical["age"].iloc[0] == str(health_real["age"].iloc[0])
    assert set(canonical["age"]) <= set(schema["age"].categories)


def test_override_text_numbers_to_numeric():
    frame = pd.DataFrame({"code": ["1", "2", "3.5", None] * 8, "y": np.arange(32) % 3})
    assert _kinds(frame)["code"] == "categorical"
    schema = _infer(frame, overrides={"code": "numeric"})
    assert schema["code"].kind == "numeric" and not schema["code"].integer
    canonical = prepare_table(frame, schema)
    assert canonical["code"].dtype == np.float64
    assert canonical["code"].iloc[:3].tolist() == [1.0, 2.0, 3.5]
    assert np.isnan(canonical["code"].iloc[3])


def test_override_to_numeric_with_text_values_fails():
    frame = pd.DataFrame({"code": ["1", "2", "x", "y"] * 8, "y": np.arange(32) % 3})
    with pytest.raises(SchemaError, match=r"'code' cannot be numeric: 16 value\(s\)"):
        _infer(frame, overrides={"code": "numeric"})


def test_override_exclude(health_real):
    schema = _infer(health_real, overrides={"income": "exclude"})
    assert "income" in schema.excluded
    assert "income" not in prepare_table(health_real, schema).columns
    assert schema.overrides == {"income": "exclude"}


def test_override_id_back_in():
    frame = pd.DataFrame({"year": np.arange(1990, 1990 + N), "y": np.arange(N) % 3})
    assert _kinds(frame)["year"] == "id"
    schema = _infer(frame, overrides={"year": "numeric"})
    assert schema["year"].kind == "numeric" and schema["year"].integer


def test_override_suppresses_the_exclusion_warning():
    frame = pd.DataFrame({"k": np.full(N, "x"), "y": np.arange(N) % 3})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        schema = infer_schema(frame, overrides={"k": "categorical"})
    assert schema["k"].kind == "categorical"


# --------------------------------------------------------------------- canonical form
def test_prepare_table_canonical_form():
    raw = pd.DataFrame(
        {
            "age": [30, 41, None, 52] * 6,
            "sex": ["f", "m", None, "f"] * 6,
            "smoker": [True, False, True, None] * 6,
            "id": [f"r{i}" for i in range(24)],
        }
    )
    schema = _infer(raw)
    canonical = prepare_table(raw, schema)
    assert list(canonical.columns) == ["age", "sex", "smoker"]  # the ID is dropped
    assert canonical["age"].dtype == np.float64
    assert np.isnan(canonical["age"].iloc[2]) and canonical["age"].iloc[0] == 30.0
    assert canonical["sex"].dtype == object
    assert canonical["sex"].tolist()[:4] == ["f", "m", MISSING, "f"]
    assert canonical["smoker"].tolist()[:4] == ["True", "False", "True", MISSING]
    assert all(isinstance(v, str) for v in canonical["sex"])
    pd.testing.assert_index_equal(canonical.index, raw.index)


def test_zero_one_columns_become_string_levels():
    raw = pd.DataFrame({"flag": [0, 1, 1, 0] * 6, "x": np.linspace(0, 1, 24)})
    canonical = prepare_table(raw, _infer(raw))
    assert canonical["flag"].tolist()[:4] == ["0", "1", "1", "0"]


def test_infinities_are_missing_in_canonical_form():
    raw = pd.DataFrame({"x": [1.5, np.inf, -np.inf, 2.5] * 6, "y": ["a", "b"] * 12})
    schema = _infer(raw)
    canonical = prepare_table(raw, schema)
    assert canonical["x"].isna().tolist()[:4] == [False, True, True, False]
    assert conform_table(raw, schema)["x"].isna().sum() == 12


def test_prepare_keeps_the_input_index(health_real, health_schema):
    shuffled = health_real.sample(frac=1.0, random_state=3)
    canonical = prepare_table(shuffled, health_schema)
    pd.testing.assert_index_equal(canonical.index, shuffled.index)


def test_integer_column_names_are_accepted():
    raw = pd.DataFrame({0: [1.5, 2.5, 3.5, 4.5] * 6, 1: ["a", "b", "a", "c"] * 6})
    schema = _infer(raw)
    assert schema.names == ["0", "1"]
    canonical = prepare_table(raw, schema)
    assert list(canonical.columns) == ["0", "1"]
    pd.testing.assert_frame_equal(conform_table(raw, schema), canonical)


def test_prepare_reports_a_missing_schema_column(health_real, health_schema):
    with pytest.raises(ColumnNotFoundError, match="'health'"):
        prepare_table(health_real.drop(columns=["health"]), health_schema)


# --------------------------------------------------------------------- conformance
def test_conform_returns_canonical_frame_in_schema_order(
    health_real, health_schema, health_canonical
):
    reordered = health_real[list(reversed(health_real.columns))]
    out = conform_table(reordered, health_schema)
    assert list(out.columns) == health_schema.included
    pd.testing.assert_frame_equal(out, health_canonical)


def test_conform_accepts_numbers_as_text_in_numeric_columns(health_real, health_schema):
    release = health_real.copy()
    release["age"] = release["age"].astype(str)
    out = conform_table(release, health_schema)
    assert out["age"].dtype == np.float64
    np.testing.assert_array_equal(out["age"].to_numpy(), health_real["age"].to_numpy(float))


def test_conform_matches_numeric_levels_written_differently():
    real = pd.DataFrame({"flag": [0, 1] * 12, "x": np.linspace(0, 1, 24)})
    schema = _infer(real)
    release = pd.DataFrame({"flag": [1.0, 0.0] * 12, "x": np.linspace(0, 2, 24)})
    out = conform_table(release, schema)
    assert out["flag"].tolist()[:2] == ["1", "0"]


def test_conform_reports_many_unseen_categories_briefly(health_real, health_schema):
    release = health_real.copy()
    release["education"] = [f"level{i}" for i in range(len(release))]
    with pytest.warns(UnseenCategoryWarning) as record:
        out = conform_table(release, health_schema)
    (warning,) = record
    message = str(warning.message)
    assert "column 'education' has 'level0'" in message and "and 295 more" in message
    assert len(warning.message.unseen["synthetic"]["education"]) == len(release)
    assert out["education"].tolist() == release["education"].tolist()


def test_schema_with_unseen_appends_after_the_real_categories(health_schema):
    extended = health_schema.with_unseen({"education": ["zzz", "aaa", "high"]})
    spec = extended["education"]
    real = health_schema["education"].categories
    assert spec.categories == (*real, "aaa", "zzz")  # known "high" ignored, new ones sorted
    assert spec.unseen == ("aaa", "zzz") and spec.real_categories == real
    assert extended.with_unseen({"education": ["aaa"]}) is extended  # nothing new
    assert health_schema.with_unseen({}) is health_schema
    with pytest.raises(SchemaError, match="'age' is not categorical"):
        health_schema.with_unseen({"age": ["x"]})


def test_conform_rejects_a_release_with_no_rows(health_schema, health_real):
    with pytest.raises(SchemaError, match="synthetic table has no rows"):
        conform_table(health_real.iloc[:0], health_schema)


# --------------------------------------------------------------------- helpers
def test_fingerprint_tracks_content(health_canonical):
    same = fingerprint(health_canonical.copy())
    assert fingerprint(health_canonical) == same and len(same) == 16
    changed = health_canonical.copy()
    changed.loc[changed.index[0], "age"] += 1
    assert fingerprint(changed) != same
    assert fingerprint(health_canonical.rename(columns={"age": "years"})) != same


def test_canonical_schema_reads_kinds_from_dtypes(health_canonical, health_schema):
    schema = canonical_schema(health_canonical)
    assert schema.numeric == health_schema.numeric
    assert schema.categorical == health_schema.categorical
    assert schema["age"].integer and not schema["income"].integer
    assert schema["disease"].categories == health_schema["disease"].categories
