"""Membership disclosure score: stability in the number of shadow models, and time.

Runs MDS with CART shadows on ``--rows`` simulated health records (holdout: an
independent draw of the same size) at m = 10, 20 and 40 shadow models, each with
``--seeds`` seeds, and prints per m: the relative reading (mean and spread over seeds),
the paper's raw max, the SELF and HALF references and the seconds per run. Then the
calibration line: leaky shadows at f_l = 0 and 1 (the contract's two ends) at the
default m.

Usage: python bench/bench_mds.py [--rows 10000] [--models 10,20,40] [--seeds 3]
           [--sets 5] [--records 2000] [--jobs 2]
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import privacy_core as pc
from privacy_core.risk.mds import membership_disclosure_score


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--models", default="10,20,40")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--sets", type=int, default=5)
    ap.add_argument("--records", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    real, hold, _ = pc.builtin_dataset("health", n=args.rows, seed=0)
    print(f"MDS, CART shadows, {args.rows:,} health rows (holdout {len(hold):,}), "
          f"{args.sets} tables per shadow, {args.records:,} records scored, "
          f"{args.jobs} worker(s)")
    print(f"{'m':>4} {'relative (mean ± sd over seeds)':>34} {'raw max':>9} {'SELF':>7} "
          f"{'HALF':>7} {'s/run':>7}")
    for m in (int(v) for v in args.models.split(",")):
        values, raws, selfs, halves, secs = [], [], [], [], []
        for seed in range(args.seeds):
            t = time.perf_counter()
            res = membership_disclosure_score(
                real, holdout=hold, shadow_models=m, shadow_sets=args.sets,
                records=args.records, n_jobs=args.jobs, bootstrap=200, seed=seed)
            secs.append(time.perf_counter() - t)
            values.append(res.value)
            raws.append(res.raw_max)
            selfs.append(res.self_max)
            halves.append(res.half_max)
        print(f"{m:>4} {np.mean(values):>24.3f} ± {np.std(values, ddof=1):.3f}"
              f" {np.mean(raws):>9.4f} {np.mean(selfs):>7.4f} {np.mean(halves):>7.4f}"
              f" {np.mean(secs):>7.1f}", flush=True)
    m0 = int(args.models.split(",")[0])
    for level in (0.0, 1.0):
        res = membership_disclosure_score(
            real, holdout=hold, shadow_models=m0, shadow_sets=args.sets, records=args.records,
            n_jobs=args.jobs, bootstrap=200, seed=0, **pc.leaky_shadow_options(level))
        print(f"leaky shadows f_l = {level:g} (m = {m0}): relative {res.value:.3f} "
              f"[{res.ci[0]:.3f}, {res.ci[1]:.3f}]")


if __name__ == "__main__":
    main()
