"""Risk lab speed: a full leaky sweep and the overfit generator's training.

* leaky: 6 levels x 3 replicates x the fast privacy measures on ``--rows`` real records
  (default 20,000: each replicate splits them into thirds, so 6,667 training, control and
  release rows), on every core;
* overfit: the autoregressive generator trained to L* and on to f_o = 2 on
  ``--train-rows`` training rows (default 12,000, validation a quarter of that), one
  torch thread; prints epochs, kept checkpoints and their achieved ratios;
* the workshop default (leaky, 6 levels x 2 replicates on the 4,000-row demo), and the
  same with 9 measures (+ query error, discriminator) and 50 canaries, each run as the
  Risk lab page runs it (``ui.lab.plan_for_rows``: in-process when small) and printed
  next to the page's estimate.

Usage: python bench/bench_lab.py [--rows 20000] [--train-rows 12000] [--skip-overfit]
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import logging
import resource
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import privacy_core as pc
from privacy_core.experiments import sweep
from privacy_core.measures import measure_names
from privacy_core.synth.autoregressive import AutoregressiveGenerator

logging.getLogger("streamlit").setLevel(logging.ERROR)  # "no runtime" notes of ui imports
from ui.lab import LAB_DEFAULTS, format_seconds, plan_for_rows  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--train-rows", type=int, default=12_000)
    ap.add_argument("--skip-overfit", action="store_true")
    args = ap.parse_args()
    threat = pc.ThreatModel(["age", "education", "gender"], ["disease"])
    fast = measure_names("privacy", fast_only=True)

    train, hold, thr = pc.builtin_dataset("health", n=2000)
    demo = pd.concat([train, hold], ignore_index=True)
    default = LAB_DEFAULTS["leaky"]
    for name, settings in (
        ("workshop default", default),
        (
            "9 measures + 50 canaries",
            {
                **default,
                "canaries": 50,
                "measures": (*default["measures"], "query_error", "discriminator"),
            },
        ),
    ):
        plan = plan_for_rows("leaky", settings, len(demo))
        t = time.perf_counter()
        res = sweep(
            demo,
            risk_model="leaky",
            replicates=settings["replicates"],
            levels=settings["levels"],
            threat=pc.ThreatModel(**thr),
            measures=settings["measures"],
            canaries=settings["canaries"],
            seed=0,
            n_jobs=plan["n_jobs"],
        )
        print(
            f"{name} (4,000 demo rows, {plan['releases']} releases x "
            f"{len(settings['measures'])} measures, {res.params['n_jobs']} worker(s)): "
            f"{time.perf_counter() - t:.1f} s; the page estimates "
            f"{plan['seconds']:.1f} s ({format_seconds(plan['seconds'])})"
        )

    real = pc.simulate_health(args.rows, seed=0)
    t = time.perf_counter()
    res = sweep(real, risk_model="leaky", replicates=3, threat=threat, measures=fast, seed=0)
    dt = time.perf_counter() - t
    print(
        f"leaky sweep ({args.rows:,} rows, 6 levels x 3 replicates x {len(fast)} fast "
        f"measures = {len(res.rows)} values, {res.params['n_jobs']} workers): {dt:.1f} s "
        f"({dt / res.n_tasks:.1f} s per release)"
    )
    print(res.summary().pivot(index="measure", columns="level", values="mean").round(3).to_string())

    if not args.skip_overfit:
        n = args.train_rows
        frame = pc.simulate_health(n + n // 4, seed=1)
        canon = pc.prepare_table(frame, pc.infer_schema(frame))
        tr, va = canon.iloc[:n], canon.iloc[n:]
        gen = AutoregressiveGenerator(overfit_levels=(1.2, 1.4, 1.6, 1.8, 2.0))
        t = time.perf_counter()
        gen.fit(tr, validation=va, seed=0)
        dt = time.perf_counter() - t
        curve = gen.curve
        h = curve.history
        print(
            f"overfit training ({n:,} training rows, {len(va):,} validation): {dt:.1f} s; "
            f"L* = {curve.best_loss:.3f} at epoch {curve.best_epoch}; "
            f"{h['epoch'].max():.1f} epochs in all"
        )
        for c in curve.checkpoints:
            state = f"epoch {c.epoch:.2f}, ratio {c.ratio:.3f}" if c.reached else "NOT reached"
            print(f"  f_o = {c.level:g}: {state}")
        t = time.perf_counter()
        gen.sample(n, seed=0, level=2.0)
        print(f"sampling {n:,} rows from the f_o = 2 checkpoint: {time.perf_counter() - t:.2f} s")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the main process {peak:.0f} MB")


if __name__ == "__main__":
    main()
