"""The contrastive paper's evaluation on the built-in data, plain versus contrastive.

Leaky evaluation (contrastive-embeddings.md §4.2, Figure 3): UCI Adult (a seeded
subsample) split into training, control and release pool; releases copy a share f_l of
the training records, without noise and with noise (sigma, lambda, p) = 0.05; DCR in the
shared encoding and in the contrastive embedding, singling out (multivariate, 3 columns)
and the outlier-targeted singling out. Overfitting evaluation (§4.2, Figure 4): the torch
autoregressive generator stopped at validation-loss ratios f_o on the health demo. Prints
one table per evaluation (value of each measure per level) and the time per measure.

Usage: python bench/bench_contrastive_paper.py [--rows 15000] [--levels 0,0.25,0.5,0.75,1]
           [--skip-overfit]
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import privacy_core as pc  # noqa: E402
from privacy_core.measures import measure_label  # noqa: E402

MEASURES = ["dcr", "dcr:contrastive", "singling_out", "singling_out_outliers"]


def table(res: pc.SweepResult) -> str:
    piv = res.rows.pivot_table(index="level", columns="measure", values="value")
    piv = piv[[m for m in MEASURES if m in piv.columns]]
    piv.columns = [measure_label(c) for c in piv.columns]
    return piv.round(3).to_string()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=15_000)
    ap.add_argument("--levels", default="0,0.25,0.5,0.75,1")
    ap.add_argument("--skip-overfit", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    levels = [float(v) for v in args.levels.split(",")]
    adult, _, spec = pc.builtin_dataset("adult", n=args.rows, seed=0)
    threat = pc.ThreatModel(list(spec["quasi_identifiers"]), list(spec["sensitive"]))
    for noise in ((0.0, 0.0, 0.0), (0.05, 0.05, 0.05)):
        t = time.perf_counter()
        res = pc.sweep(
            adult,
            risk_model="leaky",
            levels=levels,
            measures=MEASURES,
            replicates=1,
            threat=threat,
            seed=0,
            n_jobs=1,
            noise={"sigma": noise[0], "lam": noise[1], "p": noise[2]},
        )
        print(
            f"\nLeaky, Adult {len(adult):,} rows (thirds of {res.rows['n_training'].iloc[0]:,}),"
            f" noise (sigma, lambda, p) = {noise}: {time.perf_counter() - t:.0f} s"
        )
        print(table(res))
    if args.skip_overfit:
        return
    real = pc.simulate_health(3000, kappa=1, seed=0)
    health = pc.ThreatModel(["age", "education", "gender"], ["disease"])
    t = time.perf_counter()
    res = pc.sweep(
        real,
        risk_model="overfit",
        levels=[1.0, 1.5, 2.0],
        measures=MEASURES,
        replicates=1,
        threat=health,
        seed=0,
        n_jobs=1,
    )
    print(
        f"\nOverfit, health {len(real):,} rows, autoregressive generator: "
        f"{time.perf_counter() - t:.0f} s"
    )
    print(table(res))


if __name__ == "__main__":
    main()
