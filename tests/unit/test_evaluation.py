"""The one evaluation path: warnings reach the caller once each and are listed on the
review; a failing measure is collected or raised; the registry's options are checked."""

from __future__ import annotations

import warnings

import pytest

import privacy_core as pc
from privacy_core.errors import ParameterError, UntrustworthyResultWarning
from privacy_core.evaluation import evaluate
from privacy_core.measures import MEASURES, MeasureSpec
from privacy_core.results import MetricResult


def _warning_measure(real, synthetic, *, seed=0, schema=None):
    for _ in range(3):  # the same warning, three times from one place
        warnings.warn("the release is odd", UntrustworthyResultWarning, stacklevel=1)
    warnings.warn("an internal detail", DeprecationWarning, stacklevel=1)
    return MetricResult(name="fake", value=0.5, ci=(0.4, 0.6), params={"seed": seed})


@pytest.fixture
def fake_measure(monkeypatch):
    spec = MeasureSpec(
        "fake",
        "Fake",
        "privacy",
        _warning_measure,
        False,
        True,
        needs_threat=False,
        uses_holdout=False,
    )
    monkeypatch.setitem(MEASURES, "fake", spec)
    return spec


@pytest.fixture(scope="module")
def tables():
    real = pc.simulate_health(200, seed=0)
    return real, real.sample(frac=1, random_state=1)


def test_warnings_reach_the_caller_once_and_are_listed(fake_measure, tables):
    real, syn = tables
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        review = evaluate(real, syn, measures=["fake"])
    odd = [w for w in seen if str(w.message) == "the release is odd"]
    assert len(odd) == 1 and odd[0].category is UntrustworthyResultWarning
    assert odd[0].filename == __file__  # where the measure warned, not evaluation.py
    # the review lists the user-facing warnings only, once each
    assert review.warnings == ("the release is odd",)
    assert review["fake"].value == 0.5


def test_module_filters_still_apply_to_passed_on_warnings(fake_measure, tables):
    real, syn = tables
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", module=__name__)  # this test module warned
        evaluate(real, syn, measures=["fake"])
    assert not [w for w in seen if str(w.message) == "the release is odd"]


def test_a_failing_measure_is_raised_or_collected(fake_measure, tables):
    real, syn = tables
    with pytest.raises(ParameterError, match="holdout"):
        evaluate(real, syn, measures=["fake", "domias"])
    review = evaluate(real, syn, measures=["fake", "domias"], errors="collect")
    assert list(review.results) == ["fake"] and list(review.failures) == ["domias"]
