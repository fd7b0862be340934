"""Attack speed against Anonymeter 1.1.0 at equal n_attacks: singling out, linkability and
distance-based inference on simulated health data (training, an independent control draw,
a CART release of the training table).

Usage: python bench/bench_attacks.py [--n 15000] [--attacks 500] [--repeats 3]
           [--anonymeter-jobs -2]
Needs ``pip install --no-deps -r requirements-anonymeter.txt``. Times are the best of
``--repeats`` runs, end to end (our input validation included); Anonymeter's numba
functions are compiled once by a warm-up before timing (the compile time is printed).
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import polars as pl  # noqa: E402
from anonymeter.evaluators import (  # noqa: E402
    InferenceEvaluator,
    LinkabilityEvaluator,
    SinglingOutEvaluator,
)

import privacy_core as pc  # noqa: E402
from privacy_core.risk.attacks import (  # noqa: E402
    distance_inference,
    linkability,
    singling_out,
)

THREAT = pc.ThreatModel(["age", "education", "gender", "income", "health"], ["disease"])
AUX_A, AUX_B = ["age", "education", "income"], ["gender", "health", "disease"]
AUX = ["age", "education", "gender", "income", "health"]


def best_of(repeats: int, fn):
    times, out = [], None
    for r in range(repeats):
        np.random.seed(r)
        random.seed(r)
        pl.set_random_seed(r)
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def fmt(value: float, ci: tuple[float, float]) -> str:
    return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=15_000)
    ap.add_argument("--attacks", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument(
        "--anonymeter-jobs",
        type=int,
        default=-2,
        help="n_jobs for Anonymeter's neighbour search (its default is -2)",
    )
    args = ap.parse_args()
    n, k_att, jobs = args.n, args.attacks, args.anonymeter_jobs
    train = pc.simulate_health(n, seed=1)
    control = pc.simulate_health(n, seed=2)
    syn = pc.synthesize(pc.prepare_table(train, pc.infer_schema(train)), method="cart", seed=3)
    print(
        f"rows: training {n}, control {n}, synthetic {len(syn)}; n_attacks {k_att}; "
        f"cores {os.cpu_count()}; Anonymeter n_jobs {jobs}"
    )

    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        InferenceEvaluator(
            ori=train.head(50), syn=syn.head(50), aux_cols=AUX, secret="disease", n_attacks=10
        ).evaluate(n_jobs=1)
    print(f"Anonymeter numba warm-up (compile): {time.perf_counter() - t:.1f} s\n")

    cases = [
        (
            "singling out, multivariate (n_cols=3)",
            lambda: singling_out(
                train, syn, threat=THREAT, holdout=control, n_attacks=k_att, seed=0
            ),
            lambda: (
                SinglingOutEvaluator(ori=train, syn=syn, control=control, n_attacks=k_att, seed=0)
                .evaluate(mode="multivariate")
                .risk()
            ),
        ),
        (
            "singling out, univariate",
            lambda: singling_out(
                train,
                syn,
                threat=THREAT,
                holdout=control,
                n_attacks=k_att,
                mode="univariate",
                seed=0,
            ),
            lambda: (
                SinglingOutEvaluator(ori=train, syn=syn, control=control, n_attacks=k_att, seed=0)
                .evaluate(mode="univariate")
                .risk()
            ),
        ),
        (
            "linkability (k=1)",
            lambda: linkability(
                train,
                syn,
                threat=THREAT,
                holdout=control,
                aux_cols=(AUX_A, AUX_B),
                n_attacks=k_att,
                n_neighbors=1,
                seed=0,
            ),
            lambda: (
                LinkabilityEvaluator(
                    ori=train,
                    syn=syn,
                    control=control,
                    aux_cols=(AUX_A, AUX_B),
                    n_attacks=k_att,
                    n_neighbors=1,
                )
                .evaluate(n_jobs=jobs)
                .risk()
            ),
        ),
        (
            "linkability (k=10)",
            lambda: linkability(
                train,
                syn,
                threat=THREAT,
                holdout=control,
                aux_cols=(AUX_A, AUX_B),
                n_attacks=k_att,
                n_neighbors=10,
                seed=0,
            ),
            lambda: (
                LinkabilityEvaluator(
                    ori=train,
                    syn=syn,
                    control=control,
                    aux_cols=(AUX_A, AUX_B),
                    n_attacks=k_att,
                    n_neighbors=10,
                )
                .evaluate(n_jobs=jobs)
                .risk()
            ),
        ),
        (
            "inference (secret: disease)",
            lambda: distance_inference(
                train, syn, threat=THREAT, holdout=control, aux_cols=AUX, n_attacks=k_att, seed=0
            ),
            lambda: (
                InferenceEvaluator(
                    ori=train,
                    syn=syn,
                    control=control,
                    aux_cols=AUX,
                    secret="disease",
                    n_attacks=k_att,
                )
                .evaluate(n_jobs=jobs)
                .risk()
            ),
        ),
    ]
    header = (
        f"{'attack':<40} {'ours s':>8} {'anonymeter s':>13} {'speed-up':>9}   "
        f"{'our risk [95% CI]':<24} anonymeter risk [95% CI]"
    )
    print(header)
    print("-" * len(header))
    ratios = []
    for name, ours_fn, theirs_fn in cases:
        t_ours, ours = best_of(args.repeats, ours_fn)
        t_theirs, theirs = best_of(max(1, min(args.repeats, 2)), theirs_fn)
        ratios.append(t_theirs / t_ours)
        print(
            f"{name:<40} {t_ours:>8.3f} {t_theirs:>13.3f} {t_theirs / t_ours:>8.1f}x   "
            f"{fmt(ours.value, ours.ci):<24} {fmt(theirs.value, theirs.ci)}"
        )
    print(f"\ngeometric-mean speed-up: {float(np.exp(np.mean(np.log(ratios)))):.1f}x")
    t_prep, _ = best_of(
        args.repeats, lambda: pc.prepare_review(train, syn, threat=THREAT, holdout=control)
    )
    print(
        f"of our times, input validation and canonicalisation (prepare_review): "
        f"{t_prep:.3f} s per call"
    )


if __name__ == "__main__":
    main()
