"""The calibration gate on two data sets and several seeds: per measure and mode, the floor
estimate and its upper bound, the ceiling, the response gap against its band, the ratio
gap and the verdict (pass / fail / inconclusive) that ``summarise`` gives.

    python bench/bench_calibration_gate.py --seeds 201,202,203 [--data health,adult] \
        [--rows rows.csv]
    python bench/bench_calibration_gate.py --from-rows rows.csv

Prints one table per data set and seed; the calibration tables of docs/calibration.md come
from it. ``--rows`` keeps every calibration row (with its data set and seed), so that a
change of the gate can be re-read with ``--from-rows`` without running the measures again.
"""

from __future__ import annotations

import argparse
import time
import warnings

import pandas as pd

from privacy_core.calibration import calibrate, calibration_targets, summarise
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


def _print(title: str, summaries) -> None:
    print(f"\n## {title}")
    print(
        f"{'measure':34} {'floor':>6} {'upper':>6} {'ceil':>6} {'resp':>5} "
        f"{'band':>5} {'ratio':>5}  verdict"
    )
    for s in summaries:
        print(
            f"{s.key:34} {s.floor:6.3f} {s.floor_upper:6.3f} {s.ceiling:6.3f} "
            f"{s.response_gap:5.2f} {s.response_band:5.2f} {s.ratio_gap:5.2f}  "
            f"{s.verdict}" + ("" if s.verdict == "pass" else f" ({'; '.join(s.reasons)})")
        )


def _from_rows(path: str) -> None:
    """Re-read stored rows with the current gate (``summarise``)."""
    rows = pd.read_csv(path)
    for (data, seed), g in rows.groupby(["data", "seed"], sort=False):
        keys = [
            (m, d) for m, d in calibration_targets() if ((g.metric == m) & (g["mode"] == d)).any()
        ]
        _print(f"{data}, seed {seed} (stored rows)", [summarise(g, m, d) for m, d in keys])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="201,202,203")
    ap.add_argument("--data", default="health,adult")
    ap.add_argument("--levels", default="0,0.25,0.5,0.75,1")
    ap.add_argument("--metrics", default=None)
    ap.add_argument("--rows", default=None, help="write every calibration row to this CSV")
    ap.add_argument("--from-rows", default=None, help="re-read a --rows CSV; run nothing")
    args = ap.parse_args()
    if args.from_rows:
        _from_rows(args.from_rows)
        return
    levels = tuple(float(x) for x in args.levels.split(","))
    kept = []
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
            _print(f"{data}, seed {seed}: {len(real)} rows, {took:.0f} s", cal.summaries)
            kept.append(cal.rows.assign(data=data, seed=seed))
            if args.rows:  # after each run, so a stopped bench keeps what it measured
                pd.concat(kept).to_csv(args.rows, index=False)


if __name__ == "__main__":
    main()
