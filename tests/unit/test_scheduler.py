"""The review scheduler: the measures of a review as tasks side by side, the longest first,
with the serial run's numbers (``privacy_core.scheduler``, ``evaluate(n_jobs=...)``).

Two workers run every test here, as on the two-core CI machine. A wrong scheduler caught
here: one that seeds each task by its position (numbers move with the worker count), one
that runs a task on other thread counts than the serial run (ML affinity moved in the
fourth digit on Adult), one that drops a task's warnings or its error, one that raises the
error of whichever task ended first instead of the serial run's first, one that lets a
task start workers of its own (a worker's fan-out must run in that worker)."""

import json
import warnings
from pathlib import Path

import pytest
from test_cli import run  # the in-process runner of the CLI contract tests

import privacy_core as pc
from privacy_core import parallel, scheduler
from privacy_core.datasets import simulate_health
from privacy_core.synth import synthesize

QIS = ["gender", "age", "education"]
# every family of measure: attribute inference (RAPID's attackers fan out themselves),
# distances, attacks, the contrastive encoder (torch), fidelity and utility models
PRIVACY = [
    "rapid",
    "ims",
    "dcr",
    "knn",
    "singling_out",
    "singling_out_outliers",
    "linkability",
    "inference",
    "ml_inference",
    "gtcap",
    "domias",
    "membership",
]
FIDELITY = ["wasserstein", "query_error", "discriminator", "mla"]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("scheduled")
    train = simulate_health(500, seed=21)
    simulate_health(200, seed=22).to_csv(d / "hold.csv", index=False)
    train.to_csv(d / "train.csv", index=False)
    synthesize(train, method="cart", seed=23).to_csv(d / "cart.csv", index=False)
    synthesize(train, method="histogram", seed=24).to_csv(d / "hist.csv", index=False)
    (d / "review.toml").write_text(
        'seed = 5\n[data]\nreal = "train.csv"\ncontrol = "hold.csv"\n'
        '[[release]]\npath = "cart.csv"\ngroup = "CART"\n'
        '[[release]]\npath = "hist.csv"\ngroup = "Histogram"\n'
        f'[threat]\nquasi_identifiers = {json.dumps(QIS)}\nsensitive = ["disease"]\n'
        f"[measures]\nprivacy = {json.dumps(PRIVACY)}\nfidelity = {json.dumps(FIDELITY)}\n"
    )
    return d


def _without_clock(doc):
    """The document less what a clock reads: when the report was made and the encoder's
    training seconds."""
    if isinstance(doc, dict):
        return {k: _without_clock(v) for k, v in doc.items() if k not in ("created", "seconds")}
    if isinstance(doc, list):
        return [_without_clock(v) for v in doc]
    return doc


def test_the_scheduled_review_gives_the_serial_reviews_json(files):
    docs = {}
    for jobs in ("1", "2"):
        out = run("review", "--config", str(files / "review.toml"), "--json", "-", "--n-jobs", jobs)
        assert out.returncode in (0, 3, 4), out.stderr
        docs[jobs] = json.loads(out.stdout)
    serial, scheduled = (_without_clock(docs[j]) for j in ("1", "2"))
    for name in ("CART", "Histogram"):
        metrics = scheduled["candidates"][name]["metrics"]
        assert set(metrics) >= set(PRIVACY) | set(FIDELITY)  # nothing dropped on the way
    # what was removed reads a clock; every number and verdict is equal
    assert json.dumps(serial, sort_keys=True) == json.dumps(scheduled, sort_keys=True)


def _inputs():
    real = simulate_health(300, seed=31)
    return (
        real,
        synthesize(real, method="cart", seed=32),
        simulate_health(150, seed=33),
        pc.ThreatModel(QIS, ["disease"]),
    )


def test_two_workers_and_the_serial_run_agree_and_report_both():
    real, syn, hold, threat = _inputs()
    names = ["ims", "dcr", "gtcap", "query_error"]
    one = pc.evaluate(real, syn, measures=names, threat=threat, holdout=hold, seed=4, n_jobs=1)
    two = pc.evaluate(real, syn, measures=names, threat=threat, holdout=hold, seed=4, n_jobs=2)
    assert (one.workers, two.workers) == (1, 2)
    assert list(two.results) == names  # the order asked, however they ended
    for n in names:
        assert one[n].to_dict() == two[n].to_dict()
    # each measure timed, in both runs (the bench's wall and CPU seconds)
    assert set(one.timings) == set(two.timings) == set(names)
    assert all(wall >= 0 and cpu >= 0 for wall, cpu in two.timings.values())


def test_a_failing_measure_is_the_serial_runs_failure_and_the_others_still_run():
    real, syn, _, threat = _inputs()
    # no holdout: MDS and DOMIAS cannot run; the serial run meets DOMIAS first
    names = ["ims", "domias", "dcr", "mds"]
    with pytest.raises(pc.ParameterError, match="DOMIAS|domias") as serial:
        pc.evaluate(real, syn, measures=names, threat=threat, seed=4, n_jobs=1)
    with pytest.raises(pc.ParameterError) as scheduled:
        pc.evaluate(real, syn, measures=names, threat=threat, seed=4, n_jobs=2)
    assert str(scheduled.value) == str(serial.value)
    collected = pc.evaluate(
        real, syn, measures=names, threat=threat, seed=4, n_jobs=2, errors="collect"
    )
    assert list(collected.results) == ["ims", "dcr"]
    assert list(collected.failures) == ["domias", "mds"]


def test_a_workers_warnings_reach_the_caller():
    real, syn, _, threat = _inputs()
    # DCR without a holdout warns that its reference is a split of the training rows
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        review = pc.evaluate(real, syn, measures=["ims", "dcr"], threat=threat, seed=4, n_jobs=2)
    assert review.workers == 2
    assert any("No holdout table" in str(w.message) for w in caught)
    assert any("No holdout table" in w for w in review.warnings)


def test_a_task_runs_with_the_thread_counts_of_the_process_that_scheduled_it():
    from threadpoolctl import threadpool_info, threadpool_limits

    def counts():
        return {i["user_api"]: i["num_threads"] for i in threadpool_info()}

    here = scheduler.thread_settings()
    assert here  # BLAS (numpy) at least
    with threadpool_limits(limits=1):
        inside = scheduler.run_task("x", counts, threads=here).result
    # the task ran on the scheduling process's counts, whatever its worker had
    assert all(inside[api] == n for api, n in here.items() if api in inside)


def test_longest_first_and_small_work_stays_in_process():
    cost = {"a": 1.0, "b": 30.0, "c": 5.0}
    assert scheduler.longest_first(["a", "b", "c", "d"], cost) == ["b", "c", "a", "d"]
    # "every core" on a small table: no workers to start; asked for two: two
    assert scheduler.workers(-1, 5, estimate_s=scheduler.POOL_MIN_SECONDS / 2) == 1
    assert scheduler.workers(2, 5, estimate_s=0.1) == 2
    assert scheduler.workers(-1, 5, estimate_s=10 * scheduler.POOL_MIN_SECONDS) == min(
        parallel.usable_cores(), 5
    )
    with pytest.raises(pc.ParameterError, match="n_jobs"):
        scheduler.workers(0, 5)
    # a task's own fan-out runs in its worker
    assert parallel.effective_jobs(-1, 8) == min(parallel.usable_cores(), 8)
    with parallel.one_worker():
        assert parallel.effective_jobs(-1, 8) == 1
    outcome = scheduler.run_task(
        "x", lambda: parallel.effective_jobs(4, 8), threads=scheduler.thread_settings()
    )
    assert outcome.result == 1 and outcome.error is None
    assert parallel.effective_jobs(4, 8) == 4  # and only inside it


def test_the_cli_refuses_zero_workers(files):
    """``privacy`` and ``calibrate`` (whose cells take the same option) exit 2 with the
    engine's message."""
    threat = ["--qi", ",".join(QIS), "--sensitive", "disease"]
    for command in (
        ["privacy", "--synthetic", str(files / "cart.csv"), "--metrics", "ims,dcr"],
        ["calibrate", "--metrics", "ims"],
    ):
        out = run(*command, "--real", str(files / "train.csv"), *threat, "--n-jobs", "0")
        assert out.returncode == 2, command
        assert "n_jobs" in out.stderr and "Traceback" not in out.stderr


def test_a_scheduled_task_searches_where_the_review_was_told_to(monkeypatch):
    """``--ray`` sets the neighbour-search backend in the scheduling process (a context
    variable); a worker process or a Ray task starts without it, so the scheduler hands it
    over and each task re-enters it. Catches a task that searches locally while the
    review was sent to a cluster (issue 33)."""
    from privacy_core import evaluation
    from privacy_core.risk import neighbors

    seen = []
    monkeypatch.setattr(
        evaluation, "_call", lambda *a, **k: seen.append(neighbors.current_search_backend())
    )

    def capture(names, task, *, context, **kwargs):
        import contextvars

        # the workers' side, here, each in an empty context as a fresh worker starts
        yield from (contextvars.Context().run(task, n, context) for n in names)

    monkeypatch.setattr(evaluation.scheduler, "run_measures", capture)
    real, syn, _, threat = _inputs()
    with neighbors.search_backend("ray", "10.0.0.1:6379"):
        evaluation.evaluate(real, syn, measures=["ims", "dcr"], threat=threat, seed=1, n_jobs=2)
    assert neighbors.current_search_backend() == ("local", None)  # outside the block
    with neighbors.search_backend("local"):
        # a task scheduled from a local review searches locally even in a process whose
        # own context says otherwise
        ctx = evaluation._Context(real, [syn], threat, None, None, 1, {}, search=("local", None))
        with neighbors.search_backend("ray", "elsewhere"):
            evaluation._measure_task("ims", ctx)
    assert seen == [("ray", "10.0.0.1:6379")] * 2 + [("local", None)]
