"""Time of the calibration matrix (every registered privacy measure and mode x leak levels
x training:holdout ratios) on simulated health data, with the per-measure share.

Usage: python bench/bench_calibration.py [--n 20000] [--levels 0,0.25,0.5,0.75,1]
           [--ratios 1,2,4] [--seed 0]
``--n`` is the number of real rows; the calibration uses a third of them as training rows
(as many as unseen release rows, the rest as holdout reservoir). Prints figures; asserts
nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from privacy_core.calibration import calibrate  # noqa: E402
from privacy_core.datasets import simulate_health  # noqa: E402
from privacy_core.threat import ThreatModel  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--levels", default="0,0.25,0.5,0.75,1")
    ap.add_argument("--ratios", default="1,2,4")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    real = simulate_health(args.n, kappa=1, seed=args.seed)
    threat = ThreatModel([c for c in real.columns if c != "disease"], ["disease"])
    levels = [float(v) for v in args.levels.split(",")]
    ratios = [float(v) for v in args.ratios.split(",")]
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = calibrate(real, threat=threat, levels=levels, ratios=ratios, seed=args.seed)
    total = time.perf_counter() - t0
    print(
        f"calibration matrix: {args.n} real rows -> {res.params['n_training']} training, "
        f"{len(levels)} levels x {len(ratios)} ratios, {len(res.summaries)} measure modes: "
        f"{total:.1f} s"
    )
    # cells of measures without a holdout are computed once per level and repeated
    per = (
        res.rows.drop_duplicates(["metric", "mode", "level", "seconds"])
        .groupby(["metric", "mode"])["seconds"]
        .sum()
        .sort_values(ascending=False)
    )
    for (metric, mode), sec in per.items():
        name = metric if mode == "default" else f"{metric}:{mode}"
        print(f"  {name:<28} {sec:7.1f} s  ({100 * sec / total:4.1f} %)")
    print(
        res.summary_frame()[["key", "floor", "ceiling", "slope", "ratio_gap", "pass"]]
        .round(3)
        .to_string(index=False)
    )


if __name__ == "__main__":
    main()
