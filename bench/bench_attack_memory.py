"""Peak memory of the Anonymeter-style attacks against Anonymeter 1.1.0 (issue 14: no
measure above 2x Anonymeter's peak).

The tables (simulated health data: training, an independent control draw, a CART release
of the training table) are written once as Parquet. Each attack then runs in a fresh
process of its own, which reads them, notes its peak RSS so far, runs the one attack at
equal n_attacks and reports how far its peak RSS rose above that (``ru_maxrss``: the
attack's own working memory, interpreter, imports and tables excluded alike on both
sides).

Usage: python bench/bench_attack_memory.py [--n 50000] [--attacks 500]
Needs ``pip install --no-deps -r requirements-anonymeter.txt``. Prints figures; asserts
nothing.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CASES = ("singling out, multivariate", "singling out, univariate", "linkability", "inference")
AUX = ["age", "education", "gender", "income", "health"]
AUX_A, AUX_B = ["age", "education", "income"], ["gender", "health", "disease"]


def run_one(case: str, side: str, folder: Path, n_attacks: int) -> float:
    """In the child: MB by which the peak RSS rose while ``case`` ran on ``side``."""
    import pandas as pd

    train, control, syn = (pd.read_parquet(folder / f"{t}.parquet") for t in ("t", "c", "s"))
    if side == "anonymeter":
        from anonymeter.evaluators import (
            InferenceEvaluator,
            LinkabilityEvaluator,
            SinglingOutEvaluator,
        )
    else:
        import privacy_core as pc
        from privacy_core.risk.attacks import distance_inference, linkability, singling_out

        threat = pc.ThreatModel(AUX, ["disease"])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kw = {"n_attacks": n_attacks}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if side == "anonymeter":
            evaluators = {
                "singling out, multivariate": lambda: SinglingOutEvaluator(
                    ori=train, syn=syn, control=control, seed=0, **kw
                ).evaluate(mode="multivariate"),
                "singling out, univariate": lambda: SinglingOutEvaluator(
                    ori=train, syn=syn, control=control, seed=0, **kw
                ).evaluate(mode="univariate"),
                "linkability": lambda: LinkabilityEvaluator(
                    ori=train, syn=syn, control=control, aux_cols=(AUX_A, AUX_B), **kw
                ).evaluate(n_jobs=1),
                "inference": lambda: InferenceEvaluator(
                    ori=train, syn=syn, control=control, aux_cols=AUX, secret="disease", **kw
                ).evaluate(n_jobs=1),
            }
        else:
            common = {"threat": threat, "holdout": control, "seed": 0, **kw}
            evaluators = {
                "singling out, multivariate": lambda: singling_out(train, syn, **common),
                "singling out, univariate": lambda: singling_out(
                    train, syn, mode="univariate", **common
                ),
                "linkability": lambda: linkability(
                    train, syn, aux_cols=(AUX_A, AUX_B), n_neighbors=1, **common
                ),
                "inference": lambda: distance_inference(train, syn, **common),
            }
        evaluators[case]()
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return (after - before) / 1024  # ru_maxrss is in KB on Linux


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50_000)
    ap.add_argument("--attacks", type=int, default=500)
    ap.add_argument("--child", nargs=3, metavar=("CASE", "SIDE", "FOLDER"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        case, side, folder = args.child
        print(json.dumps(run_one(case, side, Path(folder), args.attacks)))
        return
    import privacy_core as pc

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        train = pc.simulate_health(args.n, seed=1)
        control = pc.simulate_health(args.n, seed=2)
        syn = pc.synthesize(pc.prepare_table(train, pc.infer_schema(train)), method="cart", seed=3)
        for name, frame in (("t", train), ("c", control), ("s", syn)):
            frame.to_parquet(folder / f"{name}.parquet", index=False)
        print(f"rows: training {args.n}, control {args.n}, CART release; n_attacks {args.attacks}")
        print(f"{'attack':28} {'ours MB':>8} {'Anonymeter MB':>14} {'ratio':>6}")
        for case in CASES:
            mb = {}
            for side in ("ours", "anonymeter"):
                out = subprocess.run(
                    [sys.executable, __file__, "--attacks", str(args.attacks), "--child"]
                    + [case, side, str(folder)],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                mb[side] = float(out.stdout.strip().splitlines()[-1])
            ratio = mb["ours"] / max(mb["anonymeter"], 1e-9)
            print(f"{case:28} {mb['ours']:8.0f} {mb['anonymeter']:14.0f} {ratio:6.2f}")
        print("target: every ratio <= 2")


if __name__ == "__main__":
    main()
