"""A corpus of bad inputs: each must fail (or be repaired) with the documented error.

Every failing case checks three things: the exact exception class, that it is a
``PrivacyCoreError`` (so the app and the command line can show it instead of a traceback),
and message fragments a user needs to fix the input (the column, the delimiter, the fix).
Files are written to ``tmp_path`` by the test itself.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest

from privacy_core import (
    MISSING,
    ColumnNotFoundError,
    DataLoadError,
    DataLoadWarning,
    InsufficientDataError,
    MissingValueError,
    PrivacyCoreError,
    SchemaError,
    SchemaMismatchError,
    SchemaWarning,
    TableEncoder,
    ThreatModel,
    ThreatModelError,
    UnseenCategoryWarning,
    conform_table,
    infer_schema,
    load_table,
    prepare_review,
    prepare_table,
    simulate_health,
)

HEALTH_CSV = (
    "gender,age,education,income,health,disease\n"
    "female,34,high,25000.5,71.2,healthy\n"
    "male,61,low,18000.25,40.9,hypertensive\n"
    "female,47,medium,31000.75,55.0,diabetic\n"
)


def _write(tmp_path: Path, name: str, content: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


def _parquet_bytes(frame: pl.DataFrame) -> bytes:
    buf = io.BytesIO()
    frame.write_parquet(buf)
    return buf.getvalue()


def _health_parquet() -> bytes:
    return _parquet_bytes(pl.from_pandas(simulate_health(50, seed=3)))


def _table(n: int = 40, seed: int = 0) -> pd.DataFrame:
    """A raw health table with the awkward columns users bring along."""
    frame = simulate_health(n, seed=seed)
    frame["all_missing"] = np.nan
    frame["constant"] = "same"
    frame["patient_id"] = [f"P{i:05d}" for i in range(n)]
    frame["record_no"] = np.arange(1000, 1000 + n)
    return frame


def _quiet(fn: Callable[[], object]) -> object:
    """Run without letting expected SchemaWarnings reach the test output."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchemaWarning)
        return fn()


def _review(threat: ThreatModel, **kwargs) -> Callable[[], object]:
    real = _table()
    return lambda: _quiet(lambda: prepare_review(real, real.copy(), threat=threat, **kwargs))


def _mismatched_release() -> Callable[[], object]:
    real = simulate_health(60, seed=0)
    schema = infer_schema(real)
    synthetic = real.drop(columns=["health"])  # missing column
    synthetic["extra"] = 1  # extra column
    synthetic["income"] = synthetic["income"].astype(object)
    synthetic.loc[3, "income"] = "lots"  # text in a numeric column
    synthetic.loc[5, "education"] = "phd"  # unseen category: a note, not a problem
    return lambda: conform_table(synthetic, schema)


def _encoder_with_missing_age(strategy: str) -> Callable[[], object]:
    real = simulate_health(30, seed=0)
    real.loc[[2, 7], "age"] = np.nan
    schema = infer_schema(real)
    canonical = prepare_table(real, schema)
    encoder = TableEncoder(schema, columns=["age", "education"], numeric_missing=strategy)
    return lambda: encoder.fit(canonical).transform(canonical)


def _single_class_sensitive() -> Callable[[], object]:
    real = simulate_health(40, seed=0)
    real["disease"] = "healthy"
    # Forced to categorical: otherwise the constant column is excluded before the check.
    schema = _quiet(lambda: infer_schema(real, overrides={"disease": "categorical"}))
    threat = ThreatModel(["age", "gender"], ["disease"])
    return lambda: prepare_review(real, real.copy(), threat=threat, schema=schema)


def _too_few(which: str) -> Callable[[], object]:
    real = simulate_health(40, seed=0)
    threat = ThreatModel(["age"], ["disease"])
    small = real.groupby("disease").head(2).head(5)  # several classes, so only size fails
    if which == "synthetic":
        return lambda: prepare_review(real, small, threat=threat, min_rows=10)
    if which == "holdout":
        return lambda: prepare_review(real, real, holdout=small, threat=threat, min_rows=10)
    return lambda: prepare_review(small, real, threat=threat, min_rows=10)


# (id, build(tmp_path) -> zero-argument call, exact exception class, message fragments)
ERROR_CASES = [
    # ----------------------------------------------------------------- files
    (
        "empty file",
        lambda t: lambda: load_table(_write(t, "empty.csv", b"")),
        DataLoadError,
        ["empty.csv", "empty"],
    ),
    (
        "whitespace only",
        lambda t: lambda: load_table(_write(t, "blank.csv", b" \n\n \r\n")),
        DataLoadError,
        ["blank.csv", "empty"],
    ),
    (
        "byte-order mark only",
        lambda t: lambda: load_table(_write(t, "bom.csv", b"\xef\xbb\xbf")),
        DataLoadError,
        ["bom.csv", "empty"],
    ),
    (
        "header only",
        lambda t: lambda: load_table(_write(t, "header.csv", b"age,gender,disease\n")),
        DataLoadError,
        ["header.csv", "3 columns", "no data rows"],
    ),
    (
        "header and blank lines",
        lambda t: lambda: load_table(_write(t, "header2.csv", b"age,gender\n\n\n")),
        DataLoadError,
        ["no data rows"],
    ),
    (
        "semicolon file read with a forced comma",
        lambda t: (
            lambda: load_table(
                _write(t, "semi.csv", HEALTH_CSV.replace(",", ";").encode()), delimiter=","
            )
        ),
        DataLoadError,
        ["semi.csv", "';'", "delimiter"],
    ),
    (
        "binary garbage",
        lambda t: (
            lambda: load_table(_write(t, "garbage.csv", np.random.default_rng(0).bytes(4000)))
        ),
        DataLoadError,
        ["garbage.csv", "binary"],
    ),
    (
        "NUL bytes in text",
        lambda t: lambda: load_table(_write(t, "nul.csv", b"age,sex\n34,\x00f\n61,m\n")),
        DataLoadError,
        ["nul.csv", "binary"],
    ),
    (
        "duplicate column names",
        lambda t: (
            lambda: load_table(
                _write(t, "dup.csv", b"age,income,sex,age,income\n1,2,f,3,4\n5,6,m,7,8\n")
            )
        ),
        DataLoadError,
        ["dup.csv", "duplicate", "'age'", "'income'", "Rename"],
    ),
    (
        "duplicate names after stripping spaces",
        lambda t: lambda: load_table(_write(t, "dup2.csv", b"age, age,sex\n1,2,f\n")),
        DataLoadError,
        ["duplicate", "'age'"],
    ),
    (
        "single column",
        lambda t: lambda: load_table(_write(t, "one.csv", b"age\n34\n61\n47\n")),
        DataLoadError,
        ["one.csv", "single column", "'age'", "delimiter"],
    ),
    (
        "empty column name",
        lambda t: lambda: load_table(_write(t, "noname.csv", b"age,,sex\n1,2,f\n")),
        DataLoadError,
        ["empty column name", "position 2"],
    ),
    (
        "ragged row",
        lambda t: lambda: load_table(_write(t, "ragged.csv", b"a,b,c\n1,2,3,4\n5,6,7\n")),
        DataLoadError,
        ["ragged.csv", "could not be parsed", "','"],
    ),
    (
        "truncated parquet",
        lambda t: (
            lambda: load_table(
                _write(t, "cut.parquet", _health_parquet()[: len(_health_parquet()) // 2])
            )
        ),
        DataLoadError,
        ["cut.parquet", "Parquet"],
    ),
    (
        "parquet magic then garbage",
        lambda t: (
            lambda: load_table(
                _write(t, "junk.bin", b"PAR1" + np.random.default_rng(1).bytes(500) + b"PAR1")
            )
        ),
        DataLoadError,
        ["junk.bin", "Parquet"],
    ),
    (
        "csv text named .parquet",
        lambda t: lambda: load_table(_write(t, "text.parquet", HEALTH_CSV.encode())),
        DataLoadError,
        ["text.parquet", "Parquet"],
    ),
    (
        "nested parquet column",
        lambda t: (
            lambda: load_table(
                _write(
                    t,
                    "nested.parquet",
                    _parquet_bytes(pl.DataFrame({"visits": [[1, 2], [3]], "sex": ["f", "m"]})),
                )
            )
        ),
        DataLoadError,
        ["nested.parquet", "'visits'", "nested"],
    ),
    (
        "file not found",
        lambda t: lambda: load_table(t / "nowhere.csv"),
        DataLoadError,
        ["nowhere.csv", "not found"],
    ),
    ("folder instead of file", lambda t: lambda: load_table(t), DataLoadError, ["folder"]),
    (
        "unsupported source object",
        lambda t: lambda: load_table(42),  # type: ignore[arg-type]
        DataLoadError,
        ["int", "path"],
    ),
    # ----------------------------------------------------------------- schemas
    (
        "override of an unknown column",
        lambda t: lambda: infer_schema(simulate_health(30), overrides={"agee": "numeric"}),
        ColumnNotFoundError,
        ["'agee'", "available columns", "age"],
    ),
    (
        "text column forced numeric",
        lambda t: lambda: infer_schema(simulate_health(30), overrides={"gender": "numeric"}),
        SchemaError,
        ["'gender'", "not numbers", "'female'"],
    ),
    (
        "three-valued column forced boolean",
        lambda t: lambda: infer_schema(simulate_health(30), overrides={"education": "boolean"}),
        SchemaError,
        ["'education'", "3 distinct values"],
    ),
    (
        "unknown type override",
        lambda t: lambda: infer_schema(simulate_health(30), overrides={"age": "date"}),
        SchemaError,
        ["'date'", "numeric, categorical, boolean, exclude"],
    ),
    (
        "table with no rows",
        lambda t: lambda: infer_schema(simulate_health(30).iloc[:0]),
        SchemaError,
        ["real", "no rows"],
    ),
    (
        "not a data frame",
        lambda t: lambda: infer_schema("data.csv"),  # type: ignore[arg-type]
        SchemaError,
        ["DataFrame", "str"],
    ),
    (
        "duplicate column names in a frame",
        lambda t: lambda: infer_schema(pd.DataFrame([[1, 2, 3]], columns=["a", "b", "a"])),
        SchemaError,
        ["duplicate", "a"],
    ),
    (
        "release with missing, extra and text values (and an unseen category)",
        lambda t: _mismatched_release(),
        SchemaMismatchError,
        ["3 problems", "'health'", "'extra'", "'lots'"],
    ),
    (
        "no synthetic table at all",
        lambda t: (
            lambda: prepare_review(
                simulate_health(30), [], threat=ThreatModel(["age"], ["disease"])
            )
        ),
        SchemaError,
        ["at least one synthetic"],
    ),
    # ----------------------------------------------------------------- threat model
    (
        "all-missing column as sensitive",
        lambda t: _review(ThreatModel(["age"], ["all_missing"])),
        ThreatModelError,
        ["'all_missing'", "excluded", "all values are missing", "change its type"],
    ),
    (
        "all-missing column as quasi-identifier",
        lambda t: _review(ThreatModel(["age", "all_missing"], ["disease"])),
        ThreatModelError,
        ["'all_missing'", "excluded"],
    ),
    (
        "constant column as sensitive",
        lambda t: _review(ThreatModel(["age"], ["constant"])),
        ThreatModelError,
        ["'constant'", "excluded", "single value 'same'"],
    ),
    (
        "text ID column as quasi-identifier",
        lambda t: _review(ThreatModel(["patient_id"], ["disease"])),
        ThreatModelError,
        ["'patient_id'", "excluded", "identifier"],
    ),
    (
        "integer ID column as sensitive",
        lambda t: _review(ThreatModel(["age"], ["record_no"])),
        ThreatModelError,
        ["'record_no'", "identifier"],
    ),
    (
        "single-class sensitive column",
        lambda t: _single_class_sensitive(),
        ThreatModelError,
        ["'disease'", "single class", "'healthy'", "two or more classes"],
    ),
    (
        "sensitive also a quasi-identifier",
        lambda t: lambda: ThreatModel(["age", "disease"], ["disease"]),
        ThreatModelError,
        ["'disease'", "both", "remove it"],
    ),
    (
        "unknown column in the threat model",
        lambda t: _review(ThreatModel(["agee"], ["disease"])),
        ThreatModelError,
        ["'agee'", "not in the real table", "available columns", "age"],
    ),
    (
        "no quasi-identifier",
        lambda t: lambda: ThreatModel([], ["disease"]),
        ThreatModelError,
        ["at least one quasi-identifier"],
    ),
    (
        "repeated quasi-identifier",
        lambda t: lambda: ThreatModel(["age", "age"], ["disease"]),
        ThreatModelError,
        ["repeats", "'age'"],
    ),
    (
        "sampling fraction out of range",
        lambda t: lambda: ThreatModel(["age"], ["disease"], sampling_fraction=1.5),
        ThreatModelError,
        ["(0, 1]", "1.5"],
    ),
    (
        "sampling fraction not a number",
        lambda t: lambda: ThreatModel(["age"], ["disease"], sampling_fraction="half"),
        ThreatModelError,
        ["(0, 1]", "'half'"],
    ),
    (
        "threat model given as a dict",
        lambda t: (
            lambda: prepare_review(
                simulate_health(30),
                simulate_health(30, seed=1),
                threat={"quasi_identifiers": ["age"], "sensitive": ["disease"]},
            )
        ),  # type: ignore[arg-type]
        ThreatModelError,
        ["ThreatModel", "dict"],
    ),
    # ----------------------------------------------------------------- missing values, size
    (
        "missing numeric quasi-identifier with the error strategy",
        lambda t: _encoder_with_missing_age("error"),
        MissingValueError,
        ["'age'", "2 missing", "'median'"],
    ),
    (
        "too few synthetic rows",
        lambda t: _too_few("synthetic"),
        InsufficientDataError,
        ["synthetic", "5 row(s)", "at least 10"],
    ),
    (
        "too few holdout rows",
        lambda t: _too_few("holdout"),
        InsufficientDataError,
        ["holdout", "5 row(s)", "at least 10"],
    ),
    (
        "too few real rows",
        lambda t: _too_few("real"),
        InsufficientDataError,
        ["real", "5 row(s)", "at least 10"],
    ),
]


@pytest.mark.parametrize(
    ("build", "expected", "fragments"),
    [pytest.param(b, e, f, id=i) for i, b, e, f in ERROR_CASES],
)
def test_bad_input_raises_documented_error(tmp_path, build, expected, fragments):
    call = build(tmp_path)
    # pytest.raises lets any other exception (KeyError, polars errors...) fail the test.
    with pytest.raises(expected) as excinfo:
        call()
    assert excinfo.type is expected
    assert isinstance(excinfo.value, PrivacyCoreError)
    assert isinstance(excinfo.value, ValueError)
    message = str(excinfo.value)
    missing = [f for f in fragments if f not in message]
    assert not missing, f"message {message!r} lacks {missing}"


def test_mismatch_lists_every_problem_at_once():
    with pytest.raises(SchemaMismatchError) as excinfo:
        _mismatched_release()()
    problems = excinfo.value.problems
    assert len(problems) == 3
    joined = "\n".join(problems)
    assert "missing column(s): 'health'" in joined
    assert "not in the real table: 'extra'" in joined
    assert any("'income'" in p and "non-numeric" in p and "'lots'" in p for p in problems)
    # a category the real data never holds is accepted (see the warning test below)
    assert "'phd'" not in joined


def test_mismatch_names_the_table():
    real = simulate_health(30)
    with pytest.raises(SchemaMismatchError, match="holdout"):
        conform_table(real.drop(columns=["age"]), infer_schema(real), table="holdout")


# --------------------------------------------------------------------- repaired with a warning
@pytest.mark.parametrize("table", ["synthetic", "holdout"])
def test_unseen_category_is_accepted_with_a_warning(table):
    real = simulate_health(60, seed=0)
    schema = infer_schema(real)
    other = real.copy()
    other.loc[5, "education"] = "phd"
    with pytest.warns(UnseenCategoryWarning, match="'education' has 'phd'") as record:
        out = conform_table(other, schema, table=table)
    assert out.loc[5, "education"] == "phd"
    assert record[0].message.unseen == {table: {"education": ("phd",)}}
    assert table in str(record[0].message) and "category of its own" in str(record[0].message)


def test_non_utf8_file_loads_with_a_warning(tmp_path):
    text = "name,city,n\nJos\u00e9,Z\u00fcrich,1\nRen\u00e9e,Gen\u00e8ve,2\n"
    path = _write(tmp_path, "latin.csv", text.encode("cp1252"))
    with pytest.warns(DataLoadWarning, match="not valid UTF-8") as record:
        frame = load_table(path)
    assert "cp1252" in str(record[0].message)
    assert frame["name"].tolist() == ["Jos\u00e9", "Ren\u00e9e"]
    assert frame["city"].tolist() == ["Z\u00fcrich", "Gen\u00e8ve"]


def test_utf8_with_bom_loads_silently(tmp_path):
    path = _write(tmp_path, "bom.csv", "\ufeffname,n\nJos\u00e9,1\nAnn,2\n".encode())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = load_table(path)
    assert list(frame.columns) == ["name", "n"]
    assert frame["name"].tolist() == ["Jos\u00e9", "Ann"]


def test_blank_lines_are_skipped_with_a_warning(tmp_path):
    path = _write(tmp_path, "gaps.csv", b"age,sex\n34,f\n\n61,m\n\n\n")
    with pytest.warns(DataLoadWarning, match="skipped 3 empty row"):
        frame = load_table(path)
    assert frame["age"].tolist() == [34, 61]
    assert frame["sex"].tolist() == ["f", "m"]


def test_leading_blank_line_before_header(tmp_path):
    frame = load_table(_write(tmp_path, "lead.csv", b"  \nage,sex\n34,f\n61,m\n"))
    assert list(frame.columns) == ["age", "sex"]
    assert frame["age"].tolist() == [34, 61]


@pytest.mark.parametrize(
    ("column", "note"),
    [
        ("all_missing", "all values are missing"),
        ("constant", "single value 'same'"),
        ("patient_id", "identifier"),
        ("record_no", "identifier"),
    ],
)
def test_useless_columns_are_excluded_with_a_warning(column, note):
    real = _table()
    with pytest.warns(SchemaWarning) as record:
        schema = infer_schema(real)
    messages = [str(w.message) for w in record if column in str(w.message)]
    assert len(messages) == 1 and note in messages[0]
    assert column in schema.excluded and column not in schema.included
    assert column not in prepare_table(real, schema).columns


def test_excluded_column_in_a_release_is_not_a_mismatch():
    real = _table()
    schema = _quiet(lambda: infer_schema(real))
    # A release without the ID column (generators drop it) is fine...
    out = conform_table(real.drop(columns=["patient_id", "all_missing"]), schema)
    assert list(out.columns) == schema.included


# --------------------------------------------------------------------- repaired silently
def test_semicolon_file_is_sniffed(tmp_path):
    path = _write(tmp_path, "semi.csv", HEALTH_CSV.replace(",", ";").encode())
    frame = load_table(path)
    assert list(frame.columns) == ["gender", "age", "education", "income", "health", "disease"]
    assert frame["age"].tolist() == [34, 61, 47]
    assert frame["income"].tolist() == [25000.5, 18000.25, 31000.75]


def test_tab_file_is_sniffed(tmp_path):
    frame = load_table(_write(tmp_path, "tab.tsv", HEALTH_CSV.replace(",", "\t").encode()))
    assert frame.shape == (3, 6)
    assert frame["disease"].tolist() == ["healthy", "hypertensive", "diabetic"]


def test_question_marks_and_na_are_missing(tmp_path):
    content = b"age,workclass,hours\n39,?,40\nNA,Private,NA\n50,N/A,?\n28,Private,\n"
    frame = load_table(_write(tmp_path, "na.csv", content))
    assert frame["age"].isna().tolist() == [False, True, False, False]
    assert frame["workclass"].isna().tolist() == [True, False, True, False]
    assert frame["hours"].isna().tolist() == [False, True, True, True]
    # The remaining numbers are numbers, not text.
    assert pd.api.types.is_float_dtype(frame["age"])
    assert frame["age"].dropna().tolist() == [39.0, 50.0, 28.0]


def test_adult_style_padded_values_are_stripped(tmp_path):
    content = (
        b"age, workclass, fnlwgt, income\n"
        b"39, State-gov, 77516, <=50K\n"
        b"50, Self-emp-not-inc, 83311, >50K\n"
        b"38, ?, 215646, <=50K\n"
    )
    frame = load_table(_write(tmp_path, "adult.csv", content))
    assert list(frame.columns) == ["age", "workclass", "fnlwgt", "income"]
    assert frame["workclass"].tolist()[:2] == ["State-gov", "Self-emp-not-inc"]
    assert pd.isna(frame["workclass"].iloc[2])  # " ?" is missing once stripped
    assert frame["income"].tolist() == ["<=50K", ">50K", "<=50K"]
    assert frame["fnlwgt"].tolist() == [77516, 83311, 215646]


def test_numbers_written_as_text_are_numbers(tmp_path):
    content = b'age,income,sex\n"34"," 2500.5 ",f\n"61","1800",m\n" 7 ",?,f\n'
    frame = load_table(_write(tmp_path, "quoted.csv", content))
    assert pd.api.types.is_integer_dtype(frame["age"])
    assert frame["age"].tolist() == [34, 61, 7]
    assert pd.api.types.is_float_dtype(frame["income"])
    assert frame["income"].iloc[:2].tolist() == [2500.5, 1800.0]
    assert pd.isna(frame["income"].iloc[2])
    schema = infer_schema(frame)
    assert schema["age"].kind == "numeric" and schema["income"].kind == "numeric"


def test_huge_integers_do_not_break_loading(tmp_path):
    content = b"account,balance,sex\n12345678901234567890,1.5,f\n2,3.5,m\n"
    frame = load_table(_write(tmp_path, "wide.csv", content))
    assert frame["account"].iloc[0] == pytest.approx(1.2345678901234567e19)
    assert frame["balance"].tolist() == [1.5, 3.5]


def test_missing_numeric_with_median_strategy_is_imputed():
    real = simulate_health(30, seed=0)
    real.loc[[2, 7], "age"] = np.nan
    schema = infer_schema(real)
    canonical = prepare_table(real, schema)
    encoder = TableEncoder(schema, columns=["age"], numeric_missing="median").fit(canonical)
    encoded = encoder.transform(canonical)
    observed = real["age"].dropna().to_numpy(dtype=float)
    expected = (np.median(observed) - observed.min()) / (observed.max() - observed.min())
    np.testing.assert_allclose(encoded[[2, 7], 0], expected, rtol=1e-6)
    assert encoder.n_missing(canonical) == {"age": 2}


def test_missing_categorical_values_become_a_level():
    real = simulate_health(30, seed=0)
    real.loc[[1, 4], "education"] = None
    schema = infer_schema(real)
    canonical = prepare_table(real, schema)
    assert canonical["education"].iloc[[1, 4]].tolist() == [MISSING, MISSING]
    assert MISSING in schema["education"].categories


def test_utf16_excel_unicode_text_is_read():
    import privacy_core as pc

    raw = "age\tcity\n31\tZürich\n45\tBern\n".encode("utf-16")
    frame = pc.load_table(raw, name="excel.txt")
    assert list(frame.columns) == ["age", "city"]
    assert frame["city"].tolist() == ["Zürich", "Bern"]


# ------------------------------------------------- found by tests/property/test_fuzz_inputs
# Each input below is a minimal form of a fuzzed file that was misread or refused with a
# misleading or parser-internal message before the loader was fixed.
def test_classic_mac_line_endings_are_read():
    # was: "has a header (9 columns) but no data rows" (polars ends lines at \n only)
    frame = load_table(b"age,sex,income\r31,m,100\r45,f,200\r50,f,300\r", name="mac.csv")
    assert list(frame.columns) == ["age", "sex", "income"]
    assert frame["age"].tolist() == [31, 45, 50]


def test_mixed_line_endings_and_quoted_line_break_are_read():
    # was: 1 row of 43 columns with made-up names (lone \r endings, a quoted \n in a value)
    frame = load_table(b'a|b\r1|"x\ny"\r3|4\r', name="mixed.csv")
    assert frame.shape == (2, 2)
    assert frame["b"].tolist() == ["x\ny", "4"]
    # was: "found more fields than defined in 'Schema'" (\r\n header, lone \r row ends)
    assert load_table(b"a,b\r\n1,2\r3,4\r\n", name="mixed2.csv")["a"].tolist() == [1, 3]


def test_quoted_header_name_with_a_line_break_keeps_its_name():
    frame = load_table(b'"a\nb",c\n1,2\n3,4\n', name="multi.csv")
    assert list(frame.columns) == ["a\nb", "c"]


@pytest.mark.parametrize(
    ("content", "fragments"),
    [
        # was: polars' "found more fields than defined in 'Schema'"
        (
            b"a\tb\n1\t2\n3\t4\textra\n",
            ["delimiter '\\t'", "line 3 has 3 fields but the header has 2 columns"],
        ),
        # was: polars' 'could not parse `"unclosed,,` as dtype `str` ...'
        (b'a,b\n1,2\n"unclosed,,\n', ['quote (") opened on line 3 is never closed']),
        (b'a,b\n1,2\n"x"y,3\n', ['line 3 has a quote (")', 'two quotes ("")']),
        # was: "has a header (2 columns) but no data rows"
        (b'a,"b,c\n1,2\n3,4\n', ['quote (") opened on line 1 is never closed']),
        (b'a,b"\n1,2\n', ["a quote (\") in the header 'a,b\"'", "remove it or close it"]),
        # was: "has an empty column name at position 3." without the cause
        (
            b"a,b,\n1,2,\n3,4,\n",
            ["empty column name at position 3", "header ends with the delimiter ','"],
        ),
        # was: "has a header (2 columns) but no data rows" without saying where they went
        (
            b"a,b\n?,NA\n,\n",
            ["no data rows", "2 row(s) are blank lines or have every cell missing"],
        ),
    ],
    ids=[
        "long row",
        "unclosed quote",
        "stray quote",
        "unclosed quote in header",
        "stray quote in header",
        "trailing delimiter",
        "every cell missing",
    ],
)
def test_malformed_csv_names_the_line_and_the_cause(content, fragments):
    with pytest.raises(DataLoadError) as excinfo:
        load_table(content, name="bad.csv")
    message = str(excinfo.value)
    assert message.startswith("bad.csv ")
    assert "Schema" not in message and "dtype" not in message  # no parser internals
    missing = [f for f in fragments if f not in message]
    assert not missing, f"message {message!r} lacks {missing}"


def test_excel_sep_line_sets_the_delimiter():
    # was: "has an empty column name at position 2" (the "sep=;" line read as the header)
    frame = load_table(b"sep=;\r\nage;sex\r\n34;f\r\n61;m\r\n", name="excel.csv")
    assert list(frame.columns) == ["age", "sex"]
    assert frame["age"].tolist() == [34, 61]


def test_constant_number_is_named_without_numpy_type():
    # was: "it has the single value np.int64(0)" in the warning and the threat-model error
    real = pd.DataFrame({"age": [0] * 5, "sex": list("fmfmf"), "dx": list("abcab")})
    with pytest.raises(ThreatModelError) as excinfo:
        prepare_review(real, real, threat=ThreatModel(["age"], ["dx"]))
    message = str(excinfo.value)
    assert "single value 0)" in message and "np." not in message


def test_distance_inference_as_regression_on_a_categorical_secret():
    # was: ValueError "could not convert string to float: 'no'" from pandas (found by
    # fuzzing the measures' options on a text secret)
    from privacy_core.errors import ParameterError
    from privacy_core.risk.attacks import distance_inference

    real, syn = simulate_health(40, seed=0), simulate_health(40, seed=1)
    with pytest.raises(ParameterError) as excinfo:
        distance_inference(
            real, syn, threat=ThreatModel(["age", "gender"], ["disease"]), regression=True
        )
    assert "`regression=True` needs a numeric secret" in str(excinfo.value)
    assert "'disease' is categorical" in str(excinfo.value)


def test_quote_running_on_from_the_header_names_the_header_line():
    # was: polars' 'could not parse ... as dtype `str`' (a doubled quote after the last name
    # keeps the header's quoted value open into line 2)
    with pytest.raises(DataLoadError) as excinfo:
        load_table(b'"city";"a b";"weight""\n"P1";"x";"P1"\n"P2";"y";"P2"\n', name="q.csv")
    assert "a quoted value that starts on line 1 runs on to line 2" in str(excinfo.value)
