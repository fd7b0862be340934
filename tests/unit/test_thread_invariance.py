"""A measure's numbers do not depend on how many threads BLAS has (issue 33).

The scheduler gives each side-by-side task a share of the cores' threads
(``privacy_core.scheduler.thread_share``), and a laptop, a 16-core server and a task
have different thread counts; the same inputs and seed must still give the same numbers.
OpenBLAS splits a dot product of more than 10,000 elements, and a logistic regression's
reductions, across its threads and adds the partial sums in an order that follows their
number. ML affinity runs its fits on one BLAS thread
(``privacy_core.parallel.one_blas_thread``), and 1-D Wasserstein adds on one thread.

Wrong versions caught: ML affinity fitted on the process's BLAS threads (its value moved
in the fourth digit between one and two threads on these tables; checked by removing the
block), DOMIAS's density ratio on them (the AUC's seventh digit on Adult; checked the same
way), and scipy's 1-D Wasserstein, whose last step is a BLAS dot product (a marginal's
last digit; checked by putting it back).
"""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest
from scipy.stats import wasserstein_distance
from threadpoolctl import threadpool_limits

import privacy_core as pc
from privacy_core import scheduler
from privacy_core.fidelity import wasserstein_1d

# more than 10,000 values in scipy's 1-D Wasserstein dot product (both tables' values)
N_ROWS = 8000


def _numbers(result) -> str:
    """The result's JSON less its clocks (every ``"seconds"`` entry)."""
    text = json.dumps(result.to_dict(), sort_keys=True, default=str)
    return re.sub(r'"seconds": [^,}]+', "", text)


@pytest.fixture(scope="module")
def tables():
    """8,000 rows of UCI Adult (seeded), 2,000 holdout rows, a CART release: the size at
    which one and two BLAS threads gave ML affinity different values."""
    adult = pc.load_adult()
    pick = np.random.default_rng(71).permutation(len(adult))
    real = adult.iloc[np.sort(pick[:N_ROWS])].reset_index(drop=True)
    hold = adult.iloc[np.sort(pick[N_ROWS : N_ROWS + N_ROWS // 4])].reset_index(drop=True)
    schema = pc.infer_schema(real)
    syn = pc.synthesize(pc.prepare_table(real, schema), method="cart", seed=73)
    threat = pc.ThreatModel(["age", "sex", "race", "marital-status", "education"], ["income"])
    return real, syn, hold, schema, threat


def test_ml_affinity_on_one_and_two_blas_threads_gives_the_same_numbers(tables):
    measure = "mla"
    real, syn, hold, schema, threat = tables
    out = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads, user_api="blas"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            review = pc.evaluate(
                real, syn, measures=[measure], threat=threat, holdout=hold, schema=schema, seed=5
            )
        out.append(_numbers(review[measure]))
    assert out[0] == out[1]


def test_domias_on_the_whole_of_adult_on_one_and_two_blas_threads_is_the_same():
    """DOMIAS's covariance and kernel sums over 39,000 rows (at 8,000 they agree anyway);
    the release is a seeded resample of the training rows, which needs no generator."""
    adult = pc.load_adult()
    pick = np.random.default_rng(75).permutation(len(adult))
    real = adult.iloc[np.sort(pick[:39_000])].reset_index(drop=True)
    hold = adult.iloc[np.sort(pick[39_000:])].reset_index(drop=True)
    syn = real.sample(len(real), replace=True, random_state=76).reset_index(drop=True)
    threat = pc.ThreatModel(["age", "sex", "race", "marital-status", "education"], ["income"])
    out = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads, user_api="blas"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            review = pc.evaluate(
                real, syn, measures=["domias"], threat=threat, holdout=hold, seed=5
            )
        out.append(_numbers(review["domias"]))
    assert out[0] == out[1]


def test_one_dimensional_wasserstein_on_one_and_two_blas_threads_is_the_same():
    """Wasserstein's 1-D marginals (the measure on these tables spends 40 s on its 2-D
    ones): scipy's value, on any thread count."""
    rng = np.random.default_rng(74)
    u, v = rng.random(N_ROWS), rng.beta(2, 3, N_ROWS - 500)
    values = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads, user_api="blas"):
            values.append(wasserstein_1d(u, v))
    assert values[0] == values[1]
    assert values[0] == pytest.approx(wasserstein_distance(u, v), abs=1e-12)


def test_a_task_gets_its_share_of_each_librarys_threads():
    assert scheduler.thread_share({"blas": 16, "openmp": 16, "torch": 8}, 16) == {
        "blas": 1,
        "openmp": 1,
        "torch": 1,
    }
    assert scheduler.thread_share({"blas": 16, "openmp": 2}, 4) == {"blas": 4, "openmp": 1}
    assert scheduler.thread_share({"blas": 2}, 1) == {"blas": 2}
