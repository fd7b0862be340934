"""Register-size review (issue 14): the wide simulation, and nearest-neighbour measures that
sample only their query side above MAX_QUERIES while staying calibrated."""

import contextlib
import io
import json
import warnings
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
from privacy_core.cli import main as cli_main
from privacy_core.errors import ParameterError
from privacy_core.risk import neighbors
from privacy_core.risk.attacks.inference import distance_inference as inference
from privacy_core.risk.attacks.linkage import linkability
from privacy_core.risk.distance import dcr, dcr_knn, query_sample


def run(*args: str):
    """The CLI's main in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(list(args))
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


THREAT = pc.ThreatModel(["age", "gender", "education"], ["disease"])
# the attacks' calibrated ends need an attacker who can tell records apart (DESIGN.md's
# calibration contract: every other column known)
THREAT_ALL = pc.ThreatModel(["gender", "age", "education", "income", "health"], ["disease"])


# ---------------------------------------------------------------- the wide simulation
def test_wide_simulation_is_thirty_mixed_columns_with_missing_values():
    frame = pc.simulate_wide(3000, seed=4)
    assert frame.shape == (3000, 30)
    schema = pc.infer_schema(frame)
    kinds = {c.name: c.kind for c in schema.columns}
    # every column is usable: none constant, none an identifier
    assert set(kinds.values()) <= {"numeric", "categorical", "boolean"}
    n_cat = sum(k != "numeric" for k in kinds.values())
    assert 12 <= n_cat <= 18 and 30 - n_cat >= 12
    missing = frame.isna().mean()
    assert (missing > 0).sum() >= 6 and missing.max() < 0.25
    # missing income depends on the socio-economic factor, visible through wealth
    assert frame["income"].isna().sum() > 0


def test_wide_simulation_is_seeded_and_its_columns_depend_on_each_other():
    a, b = pc.simulate_wide(2000, seed=1), pc.simulate_wide(2000, seed=1)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(pc.simulate_wide(2000, seed=2))
    big = pc.simulate_wide(20_000, seed=0)
    # age drives retirement and the diagnosis group; ses drives education and income
    retired = big["employment"] == "retired"
    assert big.loc[retired, "age"].mean() > big.loc[~retired, "age"].mean() + 10
    tertiary = big["education"] == "tertiary"
    assert big.loc[tertiary, "income"].median() > big.loc[~tertiary, "income"].median()


def test_wide_table_reviews_end_to_end_with_its_default_threat():
    real = pc.simulate_wide(1500, seed=0)
    hold = pc.simulate_wide(500, seed=1)
    canon = pc.prepare_table(real, pc.infer_schema(real))
    syn = pc.synthesize(canon, method="histogram", seed=0)
    threat = pc.ThreatModel(
        list(pc.datasets.WIDE_DEFAULT_THREAT["quasi_identifiers"]),
        list(pc.datasets.WIDE_DEFAULT_THREAT["sensitive"]),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = pc.evaluate_measures(
            real, [syn], names=["dcr", "inference", "rapid"], threat=threat, holdout=hold
        )
    for name, r in results.items():
        assert np.isfinite(r.value), name
        assert r.ci is not None, name


def test_cli_demo_data_writes_the_wide_table(tmp_path):
    out = tmp_path / "wide.csv"
    proc = run("demo-data", "--wide", "--n", "300", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "30 columns" in proc.stdout
    assert pd.read_csv(out).shape == (300, 30)


# ---------------------------------------------------------------- query-side sampling
def test_query_sample_is_seeded_sorted_and_only_above_the_limit():
    assert query_sample(100, 100, seed=0, side=0) is None
    assert query_sample(100, None, seed=0, side=0) is None
    a = query_sample(1000, 50, seed=3, side=0)
    assert len(a) == 50 and len(set(a)) == 50 and np.all(np.diff(a) > 0)
    np.testing.assert_array_equal(a, query_sample(1000, 50, seed=3, side=0))
    assert not np.array_equal(a, query_sample(1000, 50, seed=3, side=1))


@pytest.fixture(scope="module")
def tables():
    real = pc.simulate_health(3000, seed=0)
    return real, pc.simulate_health(1000, seed=1), pc.simulate_health(3000, seed=2)


@pytest.mark.parametrize("measure", [dcr, dcr_knn])
def test_sampled_queries_keep_the_calibrated_ends(tables, measure):
    """A copy still reads 1 (each sampled synthetic record has its twin among *all*
    training records) and unseen rows still read about 0: the contract holds when only
    the query side is sampled."""
    real, hold, unseen = tables
    copy = measure(real, real, threat=THREAT, holdout=hold, max_queries=400, seed=1)
    fresh = measure(real, unseen, threat=THREAT, holdout=hold, max_queries=400, seed=1)
    assert copy.value == pytest.approx(1.0)
    assert abs(fresh.value) < 0.05 and fresh.ci[0] <= 0.0 <= fresh.ci[1] + 0.01
    assert copy.params["query_sample"] is True
    assert copy.params["n_queries_synthetic"] == 400 == copy.params["n_queries_real"]
    assert len(copy.records) == 400


def test_sampled_interval_is_wider_than_the_full_one(tables):
    real, hold, unseen = tables
    full = dcr(real, unseen, threat=THREAT, holdout=hold, max_queries=None, seed=1)
    sampled = dcr(real, unseen, threat=THREAT, holdout=hold, max_queries=300, seed=1)
    assert full.params["query_sample"] is False
    assert full.params["n_queries_synthetic"] == 3000
    width = lambda r: r.ci[1] - r.ci[0]  # noqa: E731
    assert width(sampled) > width(full)


def test_the_default_sample_shrinks_with_the_reference_table():
    assert neighbors.default_queries(50_000) == 50_000
    assert neighbors.default_queries(400_000) == 50_000
    assert neighbors.default_queries(1_000_000) == 20_000
    assert neighbors.default_queries(10_000_000) == neighbors.MIN_QUERIES
    # queries x reference stays near the budget in between
    n = 800_000
    assert neighbors.default_queries(n) * n <= neighbors.PAIR_BUDGET


def test_the_default_sample_shrinks_with_the_encoded_width():
    # up to BUDGET_COLUMNS a pair costs the same: narrow tables are unchanged
    assert neighbors.default_queries(1_000_000, 11) == 20_000
    assert neighbors.default_queries(1_000_000, neighbors.BUDGET_COLUMNS) == 20_000
    # the wide simulation's 126 encoded columns: a quarter of the pairs, above the floor
    assert neighbors.default_queries(200_000, 126) == 25_396
    assert neighbors.default_queries(1_000_000, 126) == neighbors.MIN_QUERIES
    # Adult-sized references are still measured whole, however wide
    assert neighbors.default_queries(32_561, 110) == neighbors.MAX_QUERIES


def test_dcr_sizes_its_default_sample_by_the_encoded_width(tables, monkeypatch):
    real, hold, unseen = tables
    # budgets scaled down to this 3,000-row table: 1,000 queries at up to BUDGET_COLUMNS
    monkeypatch.setattr(neighbors, "MIN_QUERIES", 10)
    monkeypatch.setattr(neighbors, "PAIR_BUDGET", 1000 * len(real))
    narrow = dcr(real, unseen, threat=THREAT, holdout=hold, seed=1)
    width = 11  # health's shared encoding: 3 numerics and 8 category levels
    assert narrow.params["max_queries"] == 1000
    monkeypatch.setattr(neighbors, "BUDGET_COLUMNS", 4)
    wide = dcr(real, unseen, threat=THREAT, holdout=hold, seed=1)
    assert wide.params["max_queries"] == 1000 * 4 // width
    assert wide.params["n_queries_synthetic"] == 1000 * 4 // width


def test_below_the_limit_nothing_changes(tables):
    real, hold, unseen = tables
    a = dcr(real, unseen, threat=THREAT, holdout=hold, max_queries=None, seed=2)
    b = dcr(real, unseen, threat=THREAT, holdout=hold, seed=2)  # default "auto"
    assert b.params["max_queries"] == 50_000 and b.params["query_sample"] is False
    assert a.value == b.value and a.ci == b.ci
    np.testing.assert_array_equal(a.srd, b.srd)


def test_dcr_and_knn_share_the_sampled_search(tables):
    real, hold, unseen = tables
    neighbors.clear_neighbor_cache()
    k = dcr_knn(real, unseen, threat=THREAT, holdout=hold, max_queries=500, k_max=3, seed=5)
    d = dcr(real, unseen, threat=THREAT, holdout=hold, max_queries=500, seed=5)
    np.testing.assert_allclose(d.srd, k.srd[:, 0])
    assert d.value == pytest.approx(k.by_k.loc[0, "value"])


def test_bad_max_queries_is_refused(tables):
    real, hold, unseen = tables
    with pytest.raises(ParameterError, match="max_queries"):
        dcr(real, unseen, threat=THREAT, holdout=hold, max_queries=0)


@pytest.mark.parametrize("attack", [inference, linkability])
def test_attacks_sample_targets_above_the_limit_and_stay_calibrated(tables, attack, monkeypatch):
    """With n_attacks=None every record is a target up to MAX_QUERIES; above it a seeded
    sample, each matched against the whole release (a copy is still found)."""
    monkeypatch.setattr(neighbors, "MAX_QUERIES", 600)
    real, hold, unseen = tables
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        copy = attack(real, real, threat=THREAT_ALL, holdout=hold, seed=0)
        fresh = attack(real, unseen, threat=THREAT_ALL, holdout=hold, seed=0)
    assert copy.params["n_targets"] == 600 and copy.n_attacks == 600
    assert copy.value > 0.95
    assert fresh.value < 0.1


def test_cli_privacy_takes_max_queries(tmp_path):
    real = pc.simulate_health(600, seed=0)
    syn = pc.simulate_health(600, seed=9)
    real.to_csv(tmp_path / "r.csv", index=False)
    syn.to_csv(tmp_path / "s.csv", index=False)
    args = [
        "privacy",
        "--real",
        str(tmp_path / "r.csv"),
        "--synthetic",
        str(tmp_path / "s.csv"),
        "--sensitive",
        "disease",
        "--json",
        "-",
    ]
    proc = run(*args, "--metrics", "dcr,knn", "--max-queries", "200")
    assert proc.returncode == 0, proc.stderr
    metrics = json.loads(proc.stdout)["metrics"]
    assert metrics["dcr"]["params"]["n_queries_synthetic"] == 200
    assert metrics["knn"]["params"]["max_queries"] == 200
    proc = run(*args, "--metrics", "dcr", "--max-queries", "0")
    assert proc.returncode == 0, proc.stderr
    dcr_all = json.loads(proc.stdout)["metrics"]["dcr"]
    assert dcr_all["params"]["n_queries_synthetic"] == 600


def test_the_privacy_card_says_when_a_sample_was_measured(tables, monkeypatch):
    from ui.privacy import card_text

    real, hold, unseen = tables
    sampled = dcr(real, unseen, threat=THREAT, holdout=hold, max_queries=300, seed=1)
    assert "seeded sample of 300 synthetic and 300 real" in card_text("dcr", sampled).interval
    whole = dcr(real, unseen, threat=THREAT, holdout=hold, seed=1)
    assert "sample" not in card_text("dcr", whole).interval
    monkeypatch.setattr(neighbors, "MAX_QUERIES", 500)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        attacked = inference(real, unseen, threat=THREAT_ALL, holdout=hold, seed=0)
    assert attacked.params["targets_sampled"] is True
    assert "500 targets, a seeded sample" in card_text("inference", attacked).interval


# ---------------------------------------------------------------- the search itself
@pytest.mark.parametrize("k", [2, 5, 9])
def test_threshold_selection_picks_what_k_argmin_passes_pick(k):
    """Same columns in the same order, ties (lower column first) and masked self
    entries included."""
    rng = np.random.default_rng(k)
    block = rng.integers(0, 6, size=(40, 5000)).astype(float)  # ties everywhere
    block[np.arange(40), np.arange(40)] = np.inf
    np.testing.assert_array_equal(
        neighbors._smallest_by_threshold(block.copy(), k),
        neighbors._smallest_by_argmin(block.copy(), k),
    )
    smooth = rng.random((30, 4000))
    np.testing.assert_array_equal(
        neighbors._smallest_by_threshold(smooth.copy(), k),
        neighbors._smallest_by_argmin(smooth.copy(), k),
    )


@pytest.mark.parametrize("metric", ["euclidean", "l1"])
def test_search_matches_scipy_on_tied_data(metric):
    from scipy.spatial.distance import cdist

    rng = np.random.default_rng(3)
    r = rng.integers(0, 3, size=(6000, 4)).astype(float) / 2
    q = rng.integers(0, 3, size=(500, 4)).astype(float) / 2
    d, i = neighbors._search(q, r, 5, metric, False, 1 << 20)
    full = cdist(q, r, "euclidean" if metric == "euclidean" else "cityblock")
    order = np.lexsort((np.broadcast_to(np.arange(len(r)), full.shape), full), axis=1)[:, :5]
    np.testing.assert_array_equal(i, order)
    np.testing.assert_allclose(d, np.take_along_axis(full, order, axis=1), atol=1e-12)


def test_cli_verbose_writes_each_measures_time_to_stderr(tmp_path):
    real = pc.simulate_health(300, seed=0)
    real.to_csv(tmp_path / "r.csv", index=False)
    pc.simulate_health(300, seed=9).to_csv(tmp_path / "s.csv", index=False)
    base = ["--real", str(tmp_path / "r.csv"), "--synthetic", str(tmp_path / "s.csv")]
    proc = run("privacy", *base, "--sensitive", "disease", "--metrics", "ims,dcr", "-v")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert "ims ..." in lines and "dcr ..." in lines
    # each measure's wall and CPU seconds, then how many workers ran them
    assert any(
        line.startswith("  dcr: ") and "s wall" in line and line.endswith(" s CPU")
        for line in lines
    )
    assert any("measures on 1 worker(s)" in line for line in lines)
    quiet = run("privacy", *base, "--sensitive", "disease", "--metrics", "ims")
    assert "ims ..." not in quiet.stderr


# ---------------------------------------------------------------- outlier targets
def test_outlier_ranking_of_a_sample_is_the_full_ranking_restricted_to_it(monkeypatch):
    """Each sampled row's isolation is measured against every synthetic row, so the
    sampled ranking is exactly the full one with the other rows left out."""
    from privacy_core.inputs import prepare_review
    from privacy_core.risk.attacks.predicates.outliers import outlier_order

    real = pc.simulate_health(1500, seed=0)
    syn = pc.simulate_health(1500, seed=5)
    data = prepare_review(real, [syn], threat=THREAT)
    cols = list(data.schema.included)
    full, info_full = outlier_order(data.synthetic[0], cols, data, "shared", None, None, 5, 7)
    monkeypatch.setattr(neighbors, "MAX_QUERIES", 400)
    part, info = outlier_order(data.synthetic[0], cols, data, "shared", None, None, 5, 7)
    assert info["n_ranked"] == 400 and info_full["n_ranked"] == 1500
    np.testing.assert_array_equal(part, full[np.isin(full, part)])


def test_outlier_singling_out_on_a_sampled_ranking_keeps_the_calibrated_ends(monkeypatch):
    from privacy_core.risk.attacks.predicates import singling_out_outliers

    monkeypatch.setattr(neighbors, "MAX_QUERIES", 500)
    real = pc.simulate_health(3000, seed=0)
    hold = pc.simulate_health(1000, seed=1)
    kw = dict(threat=THREAT_ALL, holdout=hold, space="shared", n_attacks=300, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        copy = singling_out_outliers(real, real, **kw)
        fresh = singling_out_outliers(real, pc.simulate_health(3000, seed=2), **kw)
    assert copy.params["n_ranked"] == 500
    assert copy.value > 0.9
    # 300 predicates on 3,000 rows are noisy (0.0-0.29 over seeds, full ranking or
    # sampled): the contract's small-sample alternative, an interval that reaches 0
    assert fresh.ci[0] == 0.0 and fresh.value < 0.35


def test_category_only_neighbours_are_those_of_a_full_search():
    """Linkability's half of category columns: the first k rows of the query's own
    combination in the random order, as a full search ranks them (ties by that order)."""
    from privacy_core.inputs import prepare_review
    from privacy_core.risk.attacks.knn import attack_space, knn_random_ties

    cols = ["gender", "education"]
    real, syn = pc.simulate_health(3000, seed=0), pc.simulate_health(3000, seed=4)
    data = prepare_review(real, [syn], threat=pc.ThreatModel(cols, ["disease"]))
    place, _ = attack_space(data, cols, "median", "shared", None, None, 0)
    q, r = place(data.real.iloc[:500], cols), place(data.synthetic[0], cols)
    assert r.numeric.shape[1] == 0
    perm = np.random.default_rng(1).permutation(len(data.synthetic[0]))
    d, i = knn_random_ties(q, r, 4, perm)
    d_full, i_full = neighbors.nearest_neighbors(q.full, r.full[perm], k=4, metric=r.metric)
    np.testing.assert_array_equal(i, perm[i_full])
    np.testing.assert_array_equal(d, d_full)


def test_ml_affinity_trains_on_a_seeded_sample_above_max_train():
    """At register size each ML-affinity model trains on a seeded sample (real and
    release alike); below the cap nothing changes, and the test set is never sampled."""
    real = pc.simulate_health(1200, kappa=1.0, seed=0)
    hold = pc.simulate_health(400, kappa=1.0, seed=1)
    syn = pc.simulate_health(1500, kappa=1.0, seed=2)
    kw = dict(holdout=hold, target="disease", evaluators=("linear", "tree"), bootstrap=50, seed=3)
    from privacy_core.utility import ml_affinity

    full = ml_affinity(real, syn, max_train=None, **kw)
    default = ml_affinity(real, syn, **kw)  # 1,200 rows: under the default cap
    assert (default.value, default.ci) == (full.value, full.ci)
    assert default.params["n_real_used"] == 1200
    capped = ml_affinity(real, syn, max_train=500, **kw)
    again = ml_affinity(real, syn, max_train=500, **kw)
    assert capped.params["n_real"] == 1200 and capped.params["n_real_used"] == 500
    assert capped.params["n_synthetic_used"] == [500] and capped.params["n_holdout"] == 400
    assert (capped.value, capped.ci) == (again.value, again.ci)  # seeded
    assert capped.value != full.value
    with pytest.raises(pc.ParameterError, match="max_train"):
        ml_affinity(real, syn, max_train=0, **kw)
