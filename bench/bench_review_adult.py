"""The whole review of UCI Adult on this machine, scheduled on every core and serial.

The issue-33 set-up: the genuine Adult table split 80:20 into training (39,073 rows) and
holdout (9,769), one CART release of the training rows, the five documented
quasi-identifiers (age, sex, race, marital-status, education) and the sensitive income.
The review is what the `privacy` command runs by default (every privacy measure but
RAPID), `rapid` and `fidelity` (every fidelity measure): one `evaluate` call, its
measures scheduled side by side on every usable core (`privacy_core.scheduler`), then
the same call one measure after another as the baseline.

Printed: each measure's wall and CPU seconds in the scheduled run, the whole review's
wall time both ways, the parallel efficiency (the serial run's seconds ÷ (scheduled wall
× cores)), and the time to the Overview's quick scorecard (`QUICK_REVIEW`, scheduled).
Targets (issue 33): whole review ≤ 100 s on 2 cores and ≤ 30 s on 16; quick scorecard
≤ 10 s on 2 cores. Whether the two runs gave the same numbers is printed too.

Usage: python bench/bench_review_adult.py [--seed 0] [--with-mds] [--no-serial]
Prints figures; asserts nothing. Pin cores with `taskset -c 0,1` for a 2-core baseline.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import privacy_core as pc
from privacy_core.measures import QUICK_REVIEW, measure_names
from privacy_core.parallel import usable_cores
from privacy_core.review import measure_options


def _numbers(review: pc.Review, only: str | None = None) -> str:
    """The results (or measure ``only``'s) as JSON less the clocks' fields."""

    def strip(d):
        if isinstance(d, dict):
            return {k: strip(v) for k, v in d.items() if k != "seconds"}
        if isinstance(d, list):
            return [strip(v) for v in d]
        return d

    results = {n: r.to_dict() for n, r in review.results.items() if only in (None, n)}
    return json.dumps(strip(results), sort_keys=True, default=str)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--with-mds", action="store_true", help="add MDS (its own shadow models)")
    ap.add_argument("--no-serial", action="store_true", help="skip the serial baseline")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    adult = pc.load_adult()
    pick = np.random.default_rng(args.seed).permutation(len(adult))
    n_train = round(len(adult) * 0.8)
    real = adult.iloc[np.sort(pick[:n_train])].reset_index(drop=True)
    hold = adult.iloc[np.sort(pick[n_train:])].reset_index(drop=True)
    schema = pc.infer_schema(real)
    t = time.perf_counter()
    syn = pc.synthesize(pc.prepare_table(real, schema), method="cart", seed=args.seed)
    cores = usable_cores()
    print(
        f"Adult: {len(real):,} training, {len(hold):,} holdout, CART release "
        f"{len(syn):,} rows ({time.perf_counter() - t:.1f} s to synthesize); "
        f"{cores} usable cores"
    )
    threat = pc.ThreatModel(["age", "sex", "race", "marital-status", "education"], ["income"])
    names = [n for n in measure_names("privacy") if n != "mds"] + measure_names("fidelity")
    if args.with_mds:
        names.append("mds")
    options = measure_options(len(real))

    def review(measures: list[str], n_jobs: int) -> tuple[pc.Review, float]:
        t0 = time.perf_counter()
        out = pc.evaluate(
            real,
            syn,
            measures=measures,
            threat=threat,
            holdout=hold,
            schema=schema,
            seed=args.seed,
            options=options,
            n_jobs=n_jobs,
        )
        return out, time.perf_counter() - t0

    quick, quick_s = review(list(QUICK_REVIEW), -1)
    print(
        f"quick scorecard ({len(QUICK_REVIEW)} measures, {quick.workers} workers): "
        f"{quick_s:.1f} s (target ≤ 10 s on 2 cores)",
        flush=True,
    )
    for name, (w, c) in sorted(quick.timings.items(), key=lambda kv: -kv[1][0])[:4]:
        print(f"  {name:<22} {w:7.1f} s wall {c:7.1f} s CPU")
    scheduled, wall = review(names, -1)
    print(f"whole review scheduled on {scheduled.workers} workers: {wall:.1f} s", flush=True)
    for name, (w, c) in sorted(scheduled.timings.items(), key=lambda kv: -kv[1][0]):
        print(f"  {name:<22} {w:7.1f} s wall {c:7.1f} s CPU   value {scheduled[name].value:.4f}")
    task_sum = sum(w for w, _ in scheduled.timings.values())
    print(f"  the tasks' wall seconds add up to {task_sum:.1f} s")
    if not args.no_serial:
        serial, serial_s = review(names, 1)
        print(
            f"whole review serial: {serial_s:.1f} s · speed-up {serial_s / wall:.2f}× · "
            f"parallel efficiency {serial_s / (wall * cores):.2f} "
            f"(serial ÷ (scheduled wall × {cores} cores)) · same numbers: "
            f"{_numbers(serial) == _numbers(scheduled)}"
        )
        differ = [n for n in names if _numbers(serial, n) != _numbers(scheduled, n)]
        if differ:
            print(f"  measures whose numbers differ: {', '.join(differ)}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    print(f"peak RSS of the main process {peak:.2f} GB (workers are separate processes)")


if __name__ == "__main__":
    main()
