"""DCR speed and memory: the engine's `dcr` end to end against a plain NumPy brute force.

Builds n training, n synthetic and n holdout rows (the simulated health data; default
n = 50,000), then times

* ``dcr``: from the raw tables (validation, encoding, the two exact chunked neighbour
  searches S->T and H->T, the score, a 1,000-replicate bootstrap interval and the
  per-record table), and
* a tiled-GEMM reference on the same encoded matrices, in float64 and in float32: the
  full pairwise distance matrix in row blocks (|q|^2 + |r|^2 - 2 q.r), the row minima,
  the percentile and the share - the simplest correct NumPy code for the same two
  searches,

prints the times, the ratio to the faster reference (issue 14: within 1.5x), the scores
(they must agree), peak traced memory of each (tracemalloc, in a second run so that
tracing does not distort the timings), the process's peak RSS, and the time of a slider
move (``result.at(alpha=...)``; target < 50 ms).

Usage: python bench/bench_dcr.py [--n 50000] [--block 1000] [--skip-memory]
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import privacy_core as pc
from privacy_core.encoding import TableEncoder
from privacy_core.risk.distance import dcr


def brute_force_min_distances(
    query: np.ndarray, reference: np.ndarray, block: int, dtype=np.float64
) -> np.ndarray:
    """Nearest-reference Euclidean distance of every query row, block by block."""
    q = query.astype(dtype)
    r = reference.astype(dtype)
    r_sq = (r * r).sum(axis=1)
    out = np.empty(len(q))
    for start in range(0, len(q), block):
        qb = q[start : start + block]
        d2 = (qb * qb).sum(axis=1)[:, None] + r_sq[None, :] - 2.0 * (qb @ r.T)
        out[start : start + block] = np.sqrt(np.maximum(d2.min(axis=1), 0.0))
    return out


def brute_force_score(
    T: np.ndarray, S: np.ndarray, H: np.ndarray, alpha: float, block: int, dtype=np.float64
) -> float:
    srd = brute_force_min_distances(S, T, block, dtype)
    rrd = brute_force_min_distances(H, T, block, dtype)
    a = alpha / 100
    p = float((srd < np.percentile(rrd, alpha)).mean())
    return (p - a) / (1 - a)


def traced_peak_mb(fn) -> tuple[object, float]:
    tracemalloc.start()
    tracemalloc.reset_peak()
    out = fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, peak / 2**20


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50_000)
    ap.add_argument("--block", type=int, default=1000, help="reference rows per block")
    ap.add_argument("--alpha", type=float, default=2.0)
    ap.add_argument("--skip-memory", action="store_true")
    args = ap.parse_args()
    n = args.n
    threat = pc.ThreatModel(["age", "education", "gender"], ["disease"])
    train = pc.simulate_health(n, seed=1)
    synthetic = pc.simulate_health(n, seed=2)
    holdout = pc.simulate_health(n, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = pc.infer_schema(train)
    enc = TableEncoder(schema).fit(pc.prepare_table(train, schema))
    T = enc.transform(pc.prepare_table(train, schema))
    S = enc.transform(pc.conform_table(synthetic, schema))
    H = enc.transform(pc.conform_table(holdout, schema))
    print(f"n = {n:,} training, synthetic and holdout rows; {T.shape[1]} encoded features")

    t = time.perf_counter()
    res = dcr(
        train, synthetic, threat=threat, holdout=holdout, alpha=args.alpha, schema=schema, seed=0
    )
    ours = time.perf_counter() - t
    refs = {}
    for dtype in (np.float64, np.float32):
        t = time.perf_counter()
        score = brute_force_score(T, S, H, args.alpha, args.block, dtype)
        refs[np.dtype(dtype).name] = (time.perf_counter() - t, score)
    print(
        f"dcr (end to end, bootstrap 1000): {ours:8.2f} s   score {res.value:+.5f} "
        f"CI [{res.ci[0]:+.4f}, {res.ci[1]:+.4f}]"
    )
    for name, (seconds, score) in refs.items():
        print(f"tiled-GEMM NumPy reference, {name}: {seconds:8.2f} s   score {score:+.5f}")
    fastest = min(seconds for seconds, _ in refs.values())
    print(
        f"ratio ours / fastest reference: {ours / fastest:.2f} (issue 14's target <= 1.5; "
        "ours includes validation, encoding, the bootstrap and the per-record table)"
    )

    alphas = np.linspace(1, 10, 19)
    times = []
    for a in alphas:
        t = time.perf_counter()
        res.at(alpha=float(a))
        times.append(time.perf_counter() - t)
    print(
        f"slider: result.at(alpha=...) median {np.median(times) * 1e3:.1f} ms, "
        f"max {np.max(times) * 1e3:.1f} ms (target < 50 ms)"
    )

    if not args.skip_memory:
        _, ours_mb = traced_peak_mb(
            lambda: dcr(
                train,
                synthetic,
                threat=threat,
                holdout=holdout,
                alpha=args.alpha,
                schema=schema,
                seed=0,
            )
        )
        _, ref_mb = traced_peak_mb(lambda: brute_force_score(T, S, H, args.alpha, args.block))
        print(
            f"peak traced memory: dcr {ours_mb:.0f} MB, reference {ref_mb:.0f} MB "
            f"(reference block {args.block} x {n:,} distances)"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the process {peak:.0f} MB")


if __name__ == "__main__":
    main()
