"""The threat model and the review entry point that validates it."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest

from privacy_core import (
    MISSING,
    ReviewData,
    SchemaMismatchError,
    SchemaWarning,
    ThreatModel,
    ThreatModelError,
    infer_schema,
    prepare_review,
    prepare_table,
)


def test_fields_and_target(health_threat):
    assert health_threat.quasi_identifiers == ("age", "education", "gender")
    assert health_threat.sensitive == ("disease",)
    assert health_threat.target == "disease"
    assert health_threat.columns == ["age", "education", "gender", "disease"]
    assert health_threat.sampling_fraction is None


def test_strings_are_single_columns():
    threat = ThreatModel("age", "disease")
    assert threat.quasi_identifiers == ("age",)
    assert threat.sensitive == ("disease",)


def test_several_sensitive_columns_target_the_first():
    threat = ThreatModel(["age"], ["income", "disease"], sampling_fraction=0.25)
    assert threat.target == "income"
    assert threat.to_dict() == {
        "quasi_identifiers": ["age"],
        "sensitive": ["income", "disease"],
        "sampling_fraction": 0.25,
        "membership_scenario": "A",
        "population_share": None,
        "weights": None,
    }


def test_membership_scenario_and_population_share():
    b = ThreatModel(
        ["age"], ["disease"], sampling_fraction=0.1, membership_scenario="b", population_share=0.02
    )
    assert b.membership_scenario == "B" and b.population_share == 0.02
    assert b.to_dict()["membership_scenario"] == "B"
    assert dataclasses.replace(b, membership_scenario="A").membership_scenario == "A"
    with pytest.raises(ThreatModelError, match="population share"):
        ThreatModel(["age"], ["disease"], membership_scenario="B")
    with pytest.raises(ThreatModelError, match="scenario must be 'A'"):
        ThreatModel(["age"], ["disease"], membership_scenario="C")
    for share in (0, 1.5, "many"):
        with pytest.raises(ThreatModelError, match="population share"):
            ThreatModel(["age"], ["disease"], membership_scenario="B", population_share=share)


def test_is_frozen_and_hashable(health_threat):
    with pytest.raises(dataclasses.FrozenInstanceError):
        health_threat.sensitive = ("income",)  # type: ignore[misc]
    assert health_threat == ThreatModel(["age", "education", "gender"], ["disease"])
    assert len({health_threat, ThreatModel(["age", "education", "gender"], "disease")}) == 1


@pytest.mark.parametrize("fraction", [0, -0.1, 1.01, float("nan")])
def test_sampling_fraction_outside_unit_interval(fraction):
    with pytest.raises(ThreatModelError, match="sampling fraction"):
        ThreatModel(["age"], ["disease"], sampling_fraction=fraction)


def test_sampling_fraction_of_one_is_allowed():
    assert ThreatModel(["age"], ["disease"], sampling_fraction=1).sampling_fraction == 1


def test_no_sensitive_column():
    with pytest.raises(ThreatModelError, match="at least one sensitive"):
        ThreatModel(["age"], [])


def test_repeated_sensitive_column():
    with pytest.raises(ThreatModelError, match="sensitive attribute list repeats 'disease'"):
        ThreatModel(["age"], ["disease", "disease"])


def test_validate_passes_for_the_paper_threat_model(health_threat, health_schema, health_canonical):
    """The paper's threat model is valid on its table, and validate does read the table it
    is given: the same model on a table without one of its columns is refused, naming it."""
    assert health_threat.validate(health_schema) is None
    assert health_threat.validate(health_schema, health_canonical) is None
    qi = health_threat.quasi_identifiers[0]
    without = infer_schema(health_canonical.drop(columns=qi))
    with pytest.raises(ThreatModelError, match=f"Column '{qi}' is not in the real table"):
        health_threat.validate(without)


def test_numeric_sensitive_column_is_valid(health_schema):
    """A numeric sensitive column needs no class count (a check that counted its distinct
    values as classes would still pass; one that required a categorical would not)."""
    assert health_schema["income"].is_numeric
    threat = ThreatModel(["age", "gender"], ["income"])
    assert threat.validate(health_schema) is None
    assert threat.sensitive == ("income",)


def test_single_class_is_checked_on_the_data_given(health_real, health_schema):
    # The schema has three classes, but the (sub)table handed over has one.
    only_healthy = health_real[health_real["disease"] == "healthy"]
    with pytest.raises(ThreatModelError, match="single class \\('healthy'\\)"):
        ThreatModel(["age"], ["disease"]).validate(
            health_schema, prepare_table(only_healthy, health_schema)
        )


def test_missing_is_a_class_of_the_sensitive_column():
    # Either "yes" or not recorded: an attacker who infers the level still learns something.
    real = pd.DataFrame({"age": np.arange(40) % 9, "flag": ["yes", None] * 20})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchemaWarning)
        schema = infer_schema(real)
    threat = ThreatModel(["age"], ["flag"])
    threat.validate(schema)
    data = prepare_review(real, real, threat=threat, schema=schema)
    assert set(data.real["flag"]) == {"yes", MISSING}


def test_prepare_review_returns_canonical_tables(
    health_real, health_holdout, health_threat, health_canonical, health_synthetic
):
    data = prepare_review(
        health_real,
        [health_synthetic, health_synthetic.head(100)],
        threat=health_threat,
        holdout=health_holdout,
    )
    assert isinstance(data, ReviewData)
    assert data.threat is health_threat
    pd.testing.assert_frame_equal(data.real, health_canonical)
    assert len(data.synthetic) == 2 and len(data.synthetic[1]) == 100
    assert data.holdout is not None and len(data.holdout) == len(health_holdout)
    for frame in (*data.synthetic, data.holdout):
        assert list(frame.columns) == data.schema.included


def test_prepare_review_uses_a_given_schema(health_real, health_threat):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchemaWarning)
        schema = infer_schema(health_real, overrides={"income": "exclude"})
    data = prepare_review(health_real, health_real, threat=health_threat, schema=schema)
    assert "income" not in data.real.columns
    assert data.schema is schema


def test_prepare_review_names_the_release_at_fault(health_real, health_threat):
    bad = health_real.drop(columns=["age"])
    with pytest.raises(SchemaMismatchError, match="synthetic #2 table does not match"):
        prepare_review(health_real, [health_real, bad], threat=health_threat)
