"""DOMIAS's density step: the tiled BLAS log-density against scipy's own, same run.

Fits DOMIAS on ``--rows`` simulated health records (holdout of the same size) with a CART
release, twice in one process: with ``privacy_core.stats.kde_logpdf`` (the engine's) and
with ``scipy.stats.gaussian_kde.logpdf`` (the reference), and prints both times, their
ratio and whether the value and interval are identical (issue 14: DOMIAS spent 38 of its
40 s on Adult in scipy's single-threaded ``logpdf``).

Usage: python bench/bench_domias.py [--rows 32561] [--seed 0]
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import privacy_core as pc
from privacy_core.risk.membership import density_ratio as membership


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=32_561)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    real, hold, _ = pc.builtin_dataset("health", n=args.rows, seed=args.seed)
    syn = pc.synthesize(pc.prepare_table(real, pc.infer_schema(real)), method="cart", seed=1)
    threat = pc.ThreatModel(["age", "gender", "education"], ["disease"])
    runs = {}
    for name, density in (
        ("tiled (engine)", membership.kde_logpdf),
        ("scipy logpdf", lambda kde, z: kde.logpdf(z)),
    ):
        membership.kde_logpdf = density
        t = time.perf_counter()
        res = membership.domias(real, syn, threat=threat, holdout=hold, seed=args.seed)
        runs[name] = (time.perf_counter() - t, res)
        print(f"{name:>15}: {runs[name][0]:6.1f} s  value {res.value:.6f}  ci {res.ci}", flush=True)
    (t_ours, a), (t_ref, b) = runs.values()
    print(
        f"{len(real):,} training rows, {len(syn):,} synthetic, {len(hold):,} holdout: "
        f"tiled / scipy = {t_ours / t_ref:.2f}; identical value and interval: "
        f"{a.value == b.value and a.ci == b.ci}"
    )


if __name__ == "__main__":
    main()
