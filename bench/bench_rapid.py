"""RAPID speed: fitting the attacker suite at 10k and 50k records, and the engine time to
re-aggregate at a new threshold (what a slider move costs; target < 50 ms at 50k).

Usage: python bench/bench_rapid.py [--sizes 10000,50000] [--repeats 20]
Prints figures; asserts nothing.

The paper's simulation study (RAPID §5, :data:`privacy_core.risk.rapid.PAPER_PRESET`):

    python bench/bench_rapid.py --paper table1 --sims 50       # Table 1 (kappa 10, RF/xgb/CART)
    python bench/bench_rapid.py --paper fig5a --sims 10        # Fig. 5a (kappa 0 ... 100, RF)
    python bench/bench_rapid.py --paper fig5b --sims 10        # Fig. 5b (tau 0.05 ... 0.95)

print mean, SD and SE over simulations of RAPID and accuracy per attacker, next to the
oracle (Bayes-optimal attacker: the true Appendix A disease probabilities).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import privacy_core as pc  # noqa: E402

PAPER_RUNS = {
    "table1": {"kappas": (10.0,), "taus": (0.3,), "attackers": ("rf", "xgb", "cart")},
    "fig5a": {
        "kappas": (0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0),
        "taus": (0.3,),
        "attackers": ("rf",),
    },
    "fig5b": {
        "kappas": (0.0, 5.0, 10.0, 20.0, 50.0),
        "taus": tuple(round(0.05 * k, 2) for k in range(1, 20)),
        "attackers": ("rf",),
    },
}


def paper(run: str, sims: int, n_trees: int) -> None:
    spec = PAPER_RUNS[run]
    t = time.perf_counter()
    study = pc.rapid_paper_study(
        spec["kappas"],
        n_sims=sims,
        taus=spec["taus"],
        attackers=spec["attackers"],
        n_trees=n_trees,
        seed=0,
    )
    summary = pc.summarize_paper_study(study)
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(summary.round(4).to_string(index=False))
    print(f"{sims} simulations per cell, {n_trees} trees: {time.perf_counter() - t:.0f} s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,50000")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--paper", choices=sorted(PAPER_RUNS), default=None)
    ap.add_argument("--sims", type=int, default=10)
    ap.add_argument("--n-trees", type=int, default=500)
    args = ap.parse_args()
    if args.paper:
        paper(args.paper, args.sims, args.n_trees)
        return
    threat = pc.ThreatModel(["age", "education", "gender"], ["disease"])
    print(f"{'n':>7} {'attacker':>8} {'fit+score s':>12}")
    for n in [int(s) for s in args.sizes.split(",")]:
        real = pc.simulate_health(n, kappa=1.0, seed=0)
        canon = pc.prepare_table(real, pc.infer_schema(real))
        syn = pc.synthesize(canon, method="cart", seed=1)
        total = 0.0
        for att in pc.ATTACKERS:
            t = time.perf_counter()
            pc.rapid(real, syn, threat=threat, attackers=(att,), bootstrap=0, seed=0)
            dt = time.perf_counter() - t
            total += dt
            print(f"{n:>7} {att:>8} {dt:>12.2f}")
        t = time.perf_counter()
        res = pc.rapid(real, syn, threat=threat, bootstrap=500, seed=0)
        suite = time.perf_counter() - t
        print(f"{n:>7} {'suite':>8} {suite:>12.2f}   (rf+xgb+logit with 500 bootstrap weights)")
        times = []
        for tau in np.linspace(0.05, 0.95, args.repeats):
            t = time.perf_counter()
            moved = res.at(float(tau))
            times.append(time.perf_counter() - t)
        records_t = time.perf_counter()
        _ = moved.records
        records_dt = time.perf_counter() - records_t
        print(
            f"{n:>7} re-aggregate at new tau (3 attackers, bootstrap 500 CI): "
            f"median {np.median(times) * 1e3:.1f} ms, max {np.max(times) * 1e3:.1f} ms "
            f"(target < 50 ms); per-record table {records_dt * 1e3:.1f} ms"
        )
        for method in ("conditional", "nce"):
            t = time.perf_counter()
            res.at(method=method)
            first = time.perf_counter() - t  # the variant's scores and index: once per fit
            steps = []
            for tau in np.linspace(0.05, 0.95, args.repeats):
                t = time.perf_counter()
                res.at(float(tau), method=method)
                steps.append(time.perf_counter() - t)
            print(
                f"{n:>7} re-aggregate, {method} score: first switch {first * 1e3:.0f} ms, "
                f"then median {np.median(steps) * 1e3:.1f} ms, max {np.max(steps) * 1e3:.1f} ms"
            )
        fresh = res.at(0.31)
        fresh.memo.clear()
        t = time.perf_counter()
        fresh.curve()
        ms = (time.perf_counter() - t) * 1e3
        print(f"{n:>7} threshold curve (41 thresholds, cold): {ms:.0f} ms")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main()
