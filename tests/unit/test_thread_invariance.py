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

A large local L1 search (distance-based inference, linkability) is split over the
process's threads (``privacy_core.risk.neighbors``); its neighbours and distances must be
one search's to the last bit. Wrong version caught: each block choosing its own indicator
columns (a column that is 0 or v in one block's rows but not in another's is then summed
in another order; checked by letting each block decide).
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
from privacy_core.risk import neighbors

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


def _mixed(rng: np.random.Generator, n: int, binary: int) -> np.ndarray:
    """Rows of the mixed attacker space: 8 one-hot groups of value 0.5 and 6 numeric
    columns, one of which (the space's column 23) is 0 or 0.5 in the first ``binary``
    rows only."""
    cats = np.zeros((n, 40))
    for g in range(8):
        cats[np.arange(n), g * 5 + rng.integers(0, 5, n)] = 0.5
    num = rng.random((n, 6)).round(2)
    num[:binary, 3] = 0.5 * (rng.random(binary) < 0.5)
    return np.hstack([cats[:, :20], num, cats[:, 20:]])


@pytest.mark.parametrize("k", [1, 4])
@pytest.mark.parametrize("exclude_self", [False, True])
def test_an_l1_search_split_over_threads_is_one_search_to_the_last_bit(k, exclude_self):
    rng = np.random.default_rng(81)
    # column 23 is an indicator in the reference and in the first half of the queries
    # only: the whole query table, like one search, sums it as a numeric column
    r = _mixed(rng, 3000, binary=3000 if not exclude_self else 1500)
    q = r.copy() if exclude_self else _mixed(rng, 2000, binary=1000)
    one = neighbors._search(q, r, k, "l1", exclude_self, 1 << 20)
    for threads in (2, 3):
        split = neighbors._threaded_search(q, r, k, exclude_self, 1 << 20, threads)
        assert np.array_equal(one[0], split[0]) and np.array_equal(one[1], split[1])


def test_distance_inference_with_its_search_on_one_and_two_threads_is_the_same(tables, monkeypatch):
    real, syn, hold, schema, threat = tables
    split = []
    real_split = neighbors._threaded_search

    def counted(*args, **kwargs):
        split.append(args[-1])
        return real_split(*args, **kwargs)

    monkeypatch.setattr(neighbors, "_threaded_search", counted)
    monkeypatch.setattr(neighbors, "THREAD_MIN_PAIRS", 0)
    out = []
    for threads in (1, 2):
        monkeypatch.setattr(neighbors, "_search_threads", lambda n, t=threads: t)
        neighbors.clear_neighbor_cache()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            review = pc.evaluate(
                real, syn, measures=["inference"], threat=threat, holdout=hold, schema=schema,
                seed=5,
            )  # fmt: skip
        out.append(_numbers(review["inference"]))
    assert split and set(split) == {2}  # the second run's searches were split
    assert out[0] == out[1]
