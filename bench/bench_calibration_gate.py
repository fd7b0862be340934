"""The calibration gate on two data sets and several seeds: per measure and mode, the floor
estimate and its upper bound, the ceiling, the response gap against its band, the ratio
gap and the verdict (pass / fail / inconclusive) that ``summarise`` gives.

    python bench/bench_calibration_gate.py --seeds 201,202,203 [--data health,adult]

Prints one table per data set and seed; the calibration tables of docs/calibration.md come from it.
"""

from __future__ import annotations

import argparse
import time
import warnings

from privacy_core.calibration import calibrate
from privacy_core.datasets import builtin_dataset, simulate_health
from privacy_core.threat import ThreatModel


def _data(name: str, seed: int):
    if name == "health":
        real = simulate_health(4500, kappa=1, seed=seed)
        return real, ThreatModel([c for c in real.columns if c != "disease"], ["disease"])
    train, _, threat = builtin_dataset("adult", n=4500, seed=seed)
    # as for the health simulation: the attacker knows every other column (the
    # risk-insertion experiments' worst case), so a copy is exploitable at all
    sensitive = list(threat["sensitive"])
    return train, ThreatModel([c for c in train.columns if c not in sensitive], sensitive)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="201,202,203")
    ap.add_argument("--data", default="health,adult")
    ap.add_argument("--levels", default="0,0.25,0.5,0.75,1")
    ap.add_argument("--metrics", default=None)
    args = ap.parse_args()
    levels = tuple(float(x) for x in args.levels.split(","))
    for data in args.data.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            real, threat = _data(data, seed)
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cal = calibrate(
                    real,
                    threat=threat,
                    levels=levels,
                    ratios=(1.0, 4.0),
                    measures=args.metrics.split(",") if args.metrics else None,
                    options={"rapid": {"bootstrap": 50, "n_trees": 100}},
                    seed=seed,
                )
            took = time.perf_counter() - start
            print(f"\n## {data}, seed {seed}: {len(real)} rows, {took:.0f} s")
            print(
                f"{'measure':34} {'floor':>6} {'upper':>6} {'ceil':>6} {'resp':>5} "
                f"{'band':>5} {'ratio':>5}  verdict"
            )
            for s in cal.summaries:
                print(
                    f"{s.key:34} {s.floor:6.3f} {s.floor_upper:6.3f} {s.ceiling:6.3f} "
                    f"{s.response_gap:5.2f} {s.response_band:5.2f} {s.ratio_gap:5.2f}  "
                    f"{s.verdict}" + ("" if s.verdict == "pass" else f" ({'; '.join(s.reasons)})")
                )


if __name__ == "__main__":
    main()
