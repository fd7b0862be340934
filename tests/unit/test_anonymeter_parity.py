"""Parity with Anonymeter 1.1.0: the same data, the same targets where possible, and risks
that lie inside each other's confidence intervals.

Data: simulated health microdata (training), a second draw of the same population
(control), and a CART release fitted on the canonical training table. Anonymeter is a
test requirement (``pip install --no-deps -r requirements-anonymeter.txt``); this module
imports it unconditionally so that a missing install fails the suite instead of skipping.

What is shared and what is not:

* univariate singling out: both attackers take *every* predicate that singles out a
  synthetic record (n_attacks = the number of such predicates), so they try the same
  predicates and must count the same successes exactly;
* multivariate singling out: predicates are drawn at random by each implementation from
  the same distribution; the check is the statistical one (fixed seeds);
* linkability and distance inference: every training and control record is a target
  (Anonymeter's ``n_attacks`` = the table size), so only nearest-neighbour tie-breaking
  and the random-guess baseline differ.
"""

import random
import warnings

import anonymeter  # noqa: F401  (must be installed: a missing install fails here)
import numpy as np
import polars as pl
import pytest
from anonymeter.evaluators import (
    InferenceEvaluator,
    LinkabilityEvaluator,
    SinglingOutEvaluator,
)

import privacy_core as pc
from privacy_core.risk.attacks import distance_inference, linkability, singling_out

N = 2000
THREAT = pc.ThreatModel(["age", "education", "gender", "income", "health"], ["disease"])
AUX_A, AUX_B = ["age", "education", "income"], ["gender", "health", "disease"]


@pytest.fixture(scope="module")
def tables():
    train = pc.simulate_health(N, seed=11)
    control = pc.simulate_health(N, seed=12)
    synthetic = pc.synthesize(
        pc.prepare_table(train, pc.infer_schema(train)), method="cart", seed=13
    )
    return train, control, synthetic


def _seed_anonymeter(seed: int) -> None:
    # Anonymeter's linkability and inference draw from numpy's / pandas' global generator.
    np.random.seed(seed)
    random.seed(seed)
    pl.set_random_seed(seed)


def _mutually_inside(ours, value: float, ci: tuple[float, float]) -> None:
    assert ci[0] <= ours.value <= ci[1], (ours.value, ci)
    assert ours.ci[0] <= value <= ours.ci[1], (value, ours.ci)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def test_singling_out_univariate_same_predicates_same_counts(tables):
    train, control, syn = tables
    # more than can exist (at most ~one per value and column), so every predicate is found
    everything = _quiet(
        singling_out,
        train,
        syn,
        threat=THREAT,
        holdout=control,
        mode="univariate",
        n_attacks=7 * N,
        seed=0,
    )
    n_all = everything.params["n_queries"]
    assert n_all > 300  # a substantial attack, not a handful of predicates
    ours = _quiet(
        singling_out,
        train,
        syn,
        threat=THREAT,
        holdout=control,
        mode="univariate",
        n_attacks=n_all,
        seed=1,
    )
    _seed_anonymeter(1)
    theirs = _quiet(
        lambda: SinglingOutEvaluator(
            ori=train, syn=syn, control=control, n_attacks=n_all, seed=1
        ).evaluate(mode="univariate")
    )
    res = _quiet(theirs.results)
    assert ours.n_success == res.n_success
    assert ours.n_control_success == res.n_control
    risk = _quiet(theirs.risk)
    assert ours.value == pytest.approx(risk.value, abs=1e-12)
    assert ours.ci == pytest.approx(risk.ci, abs=1e-12)
    assert 0.5 < ours.value < 0.99  # CART copies rare values: a clear, non-saturated risk


def test_singling_out_multivariate_within_each_others_interval(tables):
    train, control, syn = tables
    ours = _quiet(
        singling_out, train, syn, threat=THREAT, holdout=control, n_attacks=300, n_cols=3, seed=0
    )
    _seed_anonymeter(0)
    theirs = _quiet(
        lambda: SinglingOutEvaluator(
            ori=train, syn=syn, control=control, n_attacks=300, n_cols=3, seed=0
        ).evaluate(mode="multivariate")
    )
    risk = _quiet(theirs.risk)
    assert 0.05 < risk.value < 0.6 and 0.05 < ours.value < 0.6  # away from both bounds
    _mutually_inside(ours, risk.value, risk.ci)
    # the control attack is a real, non-empty comparison on both sides
    assert ours.n_control_success > 0 and _quiet(theirs.results).n_control > 0


@pytest.fixture(scope="module")
def linked(tables):
    """Both linkage attacks, run once for every k (each reading is taken at k)."""
    train, control, syn = tables
    ours = _quiet(
        linkability,
        train,
        syn,
        threat=THREAT,
        holdout=control,
        aux_cols=(AUX_A, AUX_B),
        n_attacks=None,
        n_neighbors=5,
        seed=0,
    )
    _seed_anonymeter(0)
    theirs = _quiet(
        lambda: LinkabilityEvaluator(
            ori=train, syn=syn, control=control, aux_cols=(AUX_A, AUX_B), n_attacks=N, n_neighbors=5
        ).evaluate(n_jobs=1)
    )
    return ours, theirs


@pytest.mark.parametrize("k", [1, 5])
def test_linkability_same_targets_within_each_others_interval(linked, k):
    ours, theirs = linked
    risk = _quiet(theirs.risk, n_neighbors=k)
    mine = ours.at(n_neighbors=k)
    assert mine.n_attacks == N and mine.n_control_attacks == N  # every record attacked
    assert risk.value > 0.02  # linking works beyond the control, on both sides
    _mutually_inside(mine, risk.value, risk.ci)
    # tie-breaking aside, the same targets give (almost) the same link counts
    res = _quiet(theirs.results, n_neighbors=k)
    assert abs(mine.n_success - res.n_success) <= 0.02 * N
    assert abs(mine.n_control_success - res.n_control) <= 0.02 * N


@pytest.mark.parametrize(
    "secret, aux, regression",
    [
        ("disease", ["age", "education", "gender", "income", "health"], False),
        ("income", ["age", "education", "gender", "health", "disease"], True),
    ],
)
def test_inference_same_targets_within_each_others_interval(tables, secret, aux, regression):
    train, control, syn = tables
    ours = _quiet(
        distance_inference,
        train,
        syn,
        threat=THREAT,
        holdout=control,
        aux_cols=aux,
        secret=secret,
        n_attacks=None,
        seed=0,
    )
    _seed_anonymeter(0)
    theirs = _quiet(
        lambda: InferenceEvaluator(
            ori=train,
            syn=syn,
            control=control,
            aux_cols=aux,
            secret=secret,
            n_attacks=N,
            regression=regression,
        ).evaluate(n_jobs=1)
    )
    risk = _quiet(theirs.risk)
    assert ours.params["regression"] is regression
    assert risk.value > 0.05 and ours.value > 0.05
    _mutually_inside(ours, risk.value, risk.ci)
    res = _quiet(theirs.results)
    assert abs(ours.n_success - res.n_success) <= 0.03 * N
