"""suggest_quasi_identifiers: the disclosure-control expert's default threat model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privacy_core import (
    ColumnNotFoundError,
    ParameterError,
    QISuggestion,
    builtin_dataset,
    infer_schema,
    simulate_health,
    suggest_quasi_identifiers,
)


def suggest(frame: pd.DataFrame, sensitive, **kw) -> QISuggestion:
    return suggest_quasi_identifiers(frame, infer_schema(frame), sensitive, **kw)


def test_health_suggests_demographics_not_measurements():
    real = simulate_health(1000, seed=0)
    s = suggest(real, "disease")
    assert s.columns == ("gender", "age", "education")
    assert not s.fallback and s.note == ""
    assert s["income"].category == s["health"].category == "continuous"
    assert s["disease"].category == "sensitive" and not s["disease"].suggested
    assert s["age"].n_unique == real["age"].nunique() and s["age"].demographic_term == "age"
    summary = s.summary()
    assert summary.startswith("Suggested quasi-identifiers: gender, age, education")
    assert "income and health were left out because they are continuous measurements" in summary


def test_adult_suggests_its_documented_quasi_identifiers():
    real, _, meta = builtin_dataset("adult", n=2000)
    s = suggest(real, "income")
    assert set(meta["quasi_identifiers"]) <= set(s.columns)
    assert {"age", "sex", "race", "marital-status", "education"} <= set(s.columns)
    for col in ("fnlwgt", "capital-gain", "capital-loss", "income"):
        assert col not in s.columns, s.reason(col)
    assert s["fnlwgt"].category == "continuous"
    # table order
    assert list(s.columns) == [c for c in real.columns if c in s.columns]


@pytest.mark.filterwarnings("ignore::privacy_core.SchemaWarning")
def test_id_columns_are_left_out():
    real = simulate_health(300, seed=1)
    real.insert(0, "record_id", [f"R{i:05d}" for i in range(len(real))])
    # nearly unique, so not excluded by the schema but still an identifier
    codes = [f"C{i}" for i in range(len(real))]
    codes[1] = codes[0]
    real["code"] = codes
    s = suggest(real, "disease")
    assert "record_id" not in s.columns and "code" not in s.columns
    assert s["code"].category in ("id-like", "excluded")
    assert s["record_id"].category in ("id-like", "excluded")
    assert s.columns == ("gender", "age", "education")


def test_no_demographic_names_falls_back_to_lowest_cardinality_with_a_note():
    rng = np.random.default_rng(0)
    n = 400
    real = pd.DataFrame(
        {
            "score": rng.normal(size=n).round(3),
            "colour": rng.choice(["red", "green", "blue", "cyan"], n),
            "flag": rng.choice(["y", "n"], n),
            "grade": rng.integers(0, 10, n),
            "level": rng.integers(0, 30, n),
            "outcome": rng.choice(["a", "b"], n),
        }
    )
    s = suggest(real, "outcome")
    assert s.fallback
    assert s.columns == ("colour", "flag", "grade")
    assert "no column is named like a demographic attribute" in s.note
    assert s.note in s.summary()
    assert all(s[c].category == "fallback" for c in s.columns)


@pytest.mark.parametrize(
    "name, demographic",
    [
        ("Age", True),
        ("age_group", True),
        ("AgeGroup", True),
        ("marital-status", True),
        ("native-country", True),
        ("ZIP", True),
        ("year_of_birth", True),
        ("Sex", True),
        ("stage", False),
        ("page", False),
        ("wage", False),
        ("sexual_health", False),
        ("zipper", False),
        ("hours-per-week", False),
    ],
)
def test_demographic_names_match_whole_words(name, demographic):
    real = pd.DataFrame({name: np.arange(40) % 4, "y": ["a", "b"] * 20})
    s = suggest(real, "y")
    assert (s[name].demographic_term != "") is demographic


def test_deterministic_and_row_order_free():
    real = simulate_health(500, seed=3)
    a = suggest(real, "disease")
    b = suggest(real.sample(frac=1.0, random_state=1), "disease")
    assert a == suggest(real, "disease")
    assert a.columns == b.columns and a.summary() == b.summary()


def test_bad_inputs_raise_named_errors():
    real = simulate_health(100, seed=0)
    schema = infer_schema(real)
    with pytest.raises(ColumnNotFoundError, match="nope"):
        suggest_quasi_identifiers(real, schema, "nope")
    with pytest.raises(ColumnNotFoundError, match="age"):
        suggest_quasi_identifiers(real.drop(columns="age"), schema, "disease")
    with pytest.raises(ParameterError, match="max_levels"):
        suggest_quasi_identifiers(real, schema, "disease", max_levels=0)
    with pytest.raises(ParameterError, match="id_fraction"):
        suggest_quasi_identifiers(real, schema, "disease", id_fraction=1.5)
