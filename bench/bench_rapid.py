"""RAPID speed: fitting the attacker suite at 10k and 50k records, and the engine time to
re-aggregate at a new threshold (what a slider move costs; target < 50 ms at 50k).

Usage: python bench/bench_rapid.py [--sizes 10000,50000] [--repeats 20]
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import privacy_core as pc  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,50000")
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args()
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
        print(f"{n:>7} re-aggregate at new tau (3 attackers, bootstrap 500 CI): "
              f"median {np.median(times) * 1e3:.1f} ms, max {np.max(times) * 1e3:.1f} ms "
              f"(target < 50 ms); per-record table {records_dt * 1e3:.1f} ms")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main()
