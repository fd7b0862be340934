"""What the contrastive encoder's step budget costs: training time, how well it matches
two maskings, and how much of the outlier ranking it keeps.

The issue-14 Adult set-up (the genuine table split 2:1 with the review bench's seed, one
CART release of the training rows). For each budget of optimisation steps (``0``: none,
100 epochs with early stopping, the reference), the encoder is trained on the training rows
and the release is ranked by isolation as the outlier-targeted singling out ranks it (mean
distance to the 5 nearest other synthetic records in the embedding). Printed per budget:
seconds, epochs, the validation share of matched views, and against the reference the
Spearman correlation of the isolation scores and the overlap of the 2,000 most isolated.

Usage: python bench/bench_encoder_budget.py [--steps 250,500,1000,2000,0] [--seed 0]
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import privacy_core as pc  # noqa: E402
from privacy_core.embedding import ContrastiveEncoder  # noqa: E402
from privacy_core.risk.neighbors import nearest_neighbors  # noqa: E402


def adult_release(seed: int):
    """The issue-14 Adult set-up: the genuine table split 2:1 with ``seed``, its schema and
    one CART release of the training rows."""
    adult = pc.load_adult()
    pick = np.random.default_rng(seed).permutation(len(adult))
    real = adult.iloc[np.sort(pick[: len(adult) * 2 // 3])].reset_index(drop=True)
    schema = pc.infer_schema(real)
    return real, schema, pc.synthesize(pc.prepare_table(real, schema), method="cart", seed=seed)


def isolation(encoder: ContrastiveEncoder, syn) -> np.ndarray:
    """Each release record's isolation as the outlier-targeted singling out ranks it: its
    mean distance to the 5 nearest other release records in the embedding."""
    x = encoder.transform(syn)
    d, _ = nearest_neighbors(x, x, k=5, exclude_self=True)
    return d.mean(axis=1)


def print_agreement(scores: dict, ref_key, label=str) -> None:
    """Against ``scores[ref_key]``: each ranking's Spearman correlation and the overlap of
    the 2,000 most isolated records."""
    ref = scores[ref_key]
    top = set(np.argsort(-ref)[:2000])
    for key, s in scores.items():
        overlap = len(top & set(np.argsort(-s)[:2000])) / 2000
        print(
            f"{label(key)}: isolation Spearman {spearmanr(s, ref)[0]:.3f} against "
            f"{label(ref_key)}, top-2,000 overlap {overlap:.2f}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", default="250,500,1000,2000,0")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    budgets = [int(s) or None for s in args.steps.split(",")]
    real, schema, syn = adult_release(args.seed)
    scores = {}
    for steps in budgets:
        t = time.perf_counter()
        enc = ContrastiveEncoder(schema, params={"max_steps": steps}).fit(real, seed=args.seed)
        seconds = time.perf_counter() - t
        scores[steps] = isolation(enc, syn)
        print(
            f"max_steps {steps or 'none':>5}: {seconds:6.1f} s, {len(enc.history_):3d} epochs, "
            f"views matched {enc.history_[-1]['validation_accuracy']:.3f}",
            flush=True,
        )
    if None in scores:
        print_agreement(scores, None, label=lambda steps: f"max_steps {steps or 'none':>5}")


if __name__ == "__main__":
    main()
