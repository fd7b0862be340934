"""Membership disclosure score: stability in the number of shadow models, and time.

Runs MDS with CART shadows on ``--rows`` simulated health records (holdout: an
independent draw of the same size) at m = 10, 20 and 40 shadow models, each with
``--seeds`` seeds, and prints per m: the relative reading (mean and spread over seeds),
the paper's raw max, the SELF and HALF references and the seconds per run. Then the
calibration line: leaky shadows at f_l = 0 and 1 (the contract's two ends) at the
default m.

With ``--overfit ROWS``: instead, the overfit risk model — autoregressive shadows
trained once past their optimum on halves of ROWS health records (validation loss on an
independent holdout of the same size) and read at f_o = ``--levels``: MDS should rise
with f_o (``mds_overfit_levels``, what the risk lab's overfit sweep runs).

Usage: python bench/bench_mds.py [--rows 10000] [--models 10,20,40] [--seeds 3]
           [--sets 5] [--records 2000] [--jobs 2]
       python bench/bench_mds.py --overfit 1200 [--levels 1,1.5,2] [--models 8]
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
    ap.add_argument("--overfit", type=int, default=0)
    ap.add_argument("--levels", default="1,1.5,2")
    args = ap.parse_args()
    if args.overfit:
        overfit(args)
        return
    real, hold, _ = pc.builtin_dataset("health", n=args.rows, seed=0)
    print(
        f"MDS, CART shadows, {args.rows:,} health rows (holdout {len(hold):,}), "
        f"{args.sets} tables per shadow, {args.records:,} records scored, "
        f"{args.jobs} worker(s)"
    )
    print(
        f"{'m':>4} {'relative (mean ± sd over seeds)':>34} {'raw max':>9} {'SELF':>7} "
        f"{'HALF':>7} {'s/run':>7}"
    )
    for m in (int(v) for v in args.models.split(",")):
        values, raws, selfs, halves, secs = [], [], [], [], []
        for seed in range(args.seeds):
            t = time.perf_counter()
            res = membership_disclosure_score(
                real,
                holdout=hold,
                shadow_models=m,
                shadow_sets=args.sets,
                records=args.records,
                n_jobs=args.jobs,
                bootstrap=200,
                seed=seed,
            )
            secs.append(time.perf_counter() - t)
            values.append(res.value)
            raws.append(res.raw_max)
            selfs.append(res.self_max)
            halves.append(res.half_max)
        print(
            f"{m:>4} {np.mean(values):>24.3f} ± {np.std(values, ddof=1):.3f}"
            f" {np.mean(raws):>9.4f} {np.mean(selfs):>7.4f} {np.mean(halves):>7.4f}"
            f" {np.mean(secs):>7.1f}",
            flush=True,
        )
    m0 = int(args.models.split(",")[0])
    for level in (0.0, 1.0):
        res = membership_disclosure_score(
            real,
            holdout=hold,
            shadow_models=m0,
            shadow_sets=args.sets,
            records=args.records,
            n_jobs=args.jobs,
            bootstrap=200,
            seed=0,
            **pc.leaky_shadow_options(level),
        )
        print(
            f"leaky shadows f_l = {level:g} (m = {m0}): relative {res.value:.3f} "
            f"[{res.ci[0]:.3f}, {res.ci[1]:.3f}]"
        )


def overfit(args: argparse.Namespace) -> None:
    from privacy_core.risk.mds import mds_overfit_levels

    real = pc.simulate_health(2 * args.overfit, kappa=1, seed=3)
    train, hold = real.iloc[: args.overfit], real.iloc[args.overfit :]
    levels = [float(v) for v in args.levels.split(",")]
    m = int(args.models.split(",")[0])
    records = min(args.records, args.overfit)
    print(
        f"MDS, overfit model: {m} autoregressive shadows on halves of {len(train):,} health "
        f"rows (holdout {len(hold):,}), {args.sets} tables each, {records:,} records, "
        f"{args.jobs} worker(s)"
    )
    for seed in range(args.seeds):
        t = time.perf_counter()
        res = mds_overfit_levels(
            train,
            levels,
            holdout=hold,
            shadow_models=m,
            shadow_sets=args.sets,
            records=records,
            n_jobs=args.jobs,
            shadow_params={"max_overfit_epochs": 200, "hidden": 64},
            bootstrap=200,
            seed=seed,
        )
        secs = time.perf_counter() - t
        cells = [
            f"f_o={lv:g}: {r.value:.3f} (raw {r.raw_max:.3f}, "
            f"{r.params['n_shadows_reached']}/{m} reached)"
            for lv, r in res.items()
        ]
        print(f"seed {seed}: " + "; ".join(cells) + f"  [{secs:.0f} s]", flush=True)


if __name__ == "__main__":
    main()
