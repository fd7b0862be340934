"""Contrastive record embeddings on UCI Adult: training time and what it changes.

Trains the encoder (default options: 256 units, batches of 512, at most 100 epochs,
patience 10, 2 torch threads) on the built-in Adult training split (39,073 rows, 15
columns -> 10 dimensions), then runs DCR and distance-based inference on a CART release
in both distance spaces.

Usage: python bench/bench_embedding.py [--rows N] [--epochs 100]
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
from privacy_core.risk.attacks import distance_inference  # noqa: E402
from privacy_core.risk.distance import dcr  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=None, help="training rows (default: all)")
    ap.add_argument("--epochs", type=int, default=100)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    train, hold, threat_spec = pc.builtin_dataset("adult", n=args.rows, seed=0)
    schema = pc.infer_schema(train)
    real = pc.prepare_table(train, schema)
    t = time.perf_counter()
    last = [0.0]

    def progress(fraction: float, message: str) -> None:
        if time.perf_counter() - last[0] > 15:
            print(f"  {time.perf_counter() - t:6.0f} s  {message}", flush=True)
            last[0] = time.perf_counter()

    enc = pc.contrastive_encoder(
        real, schema, params={"max_epochs": args.epochs}, seed=0, progress=progress
    )
    d = enc.describe()
    print(
        f"Adult: {len(real):,} training rows, {len(enc.columns)} columns -> dimension "
        f"{d['dimension']}; {d['epochs']} epochs (best {d['best_epoch']}), "
        f"{time.perf_counter() - t:.1f} s; validation loss {d['validation_loss']:.3f}; "
        f"a record's two views matched among a batch of {d['batch_size']} "
        f"{d['validation_accuracy']:.1%} of the time (chance {1 / d['batch_size']:.1%})"
    )
    release = pc.synthesize(real, method="cart", seed=1)
    threat = pc.ThreatModel(list(threat_spec["quasi_identifiers"]), list(threat_spec["sensitive"]))
    for space in ("shared", "contrastive"):
        t = time.perf_counter()
        r = dcr(
            real, release, threat=threat, holdout=hold, space=space, embedding=enc, bootstrap=200
        )
        a = distance_inference(
            real, release, threat=threat, holdout=hold, space=space, embedding=enc
        )
        print(
            f"{space:>11}: DCR {r.value:.3f} [{r.ci[0]:.3f}, {r.ci[1]:.3f}], inference "
            f"{a.value:.3f} [{a.ci[0]:.3f}, {a.ci[1]:.3f}] ({time.perf_counter() - t:.1f} s)"
        )


if __name__ == "__main__":
    main()
