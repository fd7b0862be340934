"""The whole review of UCI Adult on this machine: every measure's time, and the total.

The issue-14 set-up: the genuine Adult table split 2:1 into training (32,561 rows) and
holdout (16,281), one CART release of the training rows; then, in one process, what the
`privacy` command runs by default (every privacy measure but RAPID; MDS apart, since it
fits shadow generators of its own), `rapid` (default attackers) and `fidelity` (every
fidelity measure), each measure timed on its own. Target: privacy + rapid + fidelity
≤ 30 s on 2 cores.

Usage: python bench/bench_review_adult.py [--seed 0] [--with-mds]
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import privacy_core as pc
from privacy_core.measures import evaluate_measures, get_measure, measure_names


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--with-mds", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    adult = pc.load_adult()
    pick = np.random.default_rng(args.seed).permutation(len(adult))
    n_train = len(adult) * 2 // 3
    real = adult.iloc[np.sort(pick[:n_train])].reset_index(drop=True)
    hold = adult.iloc[np.sort(pick[n_train:])].reset_index(drop=True)
    schema = pc.infer_schema(real)
    t = time.perf_counter()
    syn = pc.synthesize(pc.prepare_table(real, schema), method="cart", seed=args.seed)
    print(f"Adult: {len(real):,} training, {len(hold):,} holdout, CART release "
          f"{len(syn):,} rows ({time.perf_counter() - t:.1f} s to synthesize)")
    threat = pc.ThreatModel(["age", "sex", "race", "marital-status", "education"], ["income"])
    privacy = [n for n in measure_names("privacy") if n not in ("rapid", "mds")]
    if args.with_mds:
        privacy.append("mds")
    groups = {"privacy": privacy, "rapid": ["rapid"], "fidelity": measure_names("fidelity")}
    totals = {}
    for group, names in groups.items():
        totals[group] = 0.0
        for name in names:
            spec = get_measure(name)
            t = time.perf_counter()
            res = evaluate_measures(real, syn, names=[name],
                                    threat=threat if spec.needs_threat else None,
                                    holdout=hold, schema=schema, seed=args.seed)[name]
            secs = time.perf_counter() - t
            totals[group] += secs
            print(f"  {group:>8} {name:<22} {secs:7.1f} s   value {res.value:.4f}", flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    print(" · ".join(f"{g} {s:.1f} s" for g, s in totals.items())
          + f" · whole review {sum(totals.values()):.1f} s (target 30 s) · peak RSS "
            f"{peak:.2f} GB")


if __name__ == "__main__":
    main()
