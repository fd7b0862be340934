"""Benchmark: Wasserstein fidelity on the full UCI Adult table against a CART release.

48,842 rows, 15 columns: 15 one-way and all 105 two-way marginals. Prints the wall time
of the measure (data loading and synthesis excluded), the subsample size of the
network-simplex marginals, the slowest marginal families and the peak memory.

Run: ``python bench/bench_fidelity.py [--max-rows N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from privacy_core import infer_schema, load_adult, prepare_table  # noqa: E402
from privacy_core.fidelity import DEFAULT_MAX_ROWS, wasserstein_fidelity  # noqa: E402
from privacy_core.synth import synthesize  # noqa: E402


def peak_rss_mb() -> float:
    # ru_maxrss is in kilobytes on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-rows", type=int, default=DEFAULT_MAX_ROWS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--trace",
        action="store_true",
        help="also measure the Python-level peak with tracemalloc (slower)",
    )
    args = parser.parse_args()

    t0 = time.perf_counter()
    adult = load_adult()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = infer_schema(adult)
    real = prepare_table(adult, schema)
    t1 = time.perf_counter()
    release = synthesize(real, method="cart", seed=args.seed)
    t2 = time.perf_counter()
    print(
        f"data: {len(real):,} rows x {real.shape[1]} columns (load {t1 - t0:.1f} s); "
        f"CART release {len(release):,} rows ({t2 - t1:.1f} s)"
    )

    rss_before = peak_rss_mb()
    if args.trace:
        tracemalloc.start()
    start, cpu_start = time.perf_counter(), time.process_time()
    result = wasserstein_fidelity(
        real, release, schema=schema, max_rows=args.max_rows, seed=args.seed
    )
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    traced = tracemalloc.get_traced_memory()[1] / 2**20 if args.trace else None
    if args.trace:
        tracemalloc.stop()

    p = result.params
    table = result.records
    print(
        f"wasserstein fidelity = {result.value:.4f} (paper's mean over marginals "
        f"{result.extra['mean_all']:.4f}); families: "
        + ", ".join(f"{k} {v:.4f}" for k, v in result.extra["families"].items())
    )
    print(
        f"marginals: {p['n_marginals']} ({(table['ways'] == 1).sum()} one-way, "
        f"{(table['ways'] == 2).sum()} two-way); subsample for the network simplex: "
        f"{p['subsample_rows']['real']:,} real / {p['subsample_rows']['synthetic'][0]:,} "
        f"synthetic rows (max_rows={p['max_rows']}), {p['n_subsampled_marginals']} "
        "marginals on it"
    )
    load = os.getloadavg()[0]
    print(
        f"wall time: {wall:.1f} s (CPU {cpu:.1f} s; load average {load:.1f} on "
        f"{os.cpu_count()} cores: other work on the machine inflates the wall time)"
    )
    print(
        f"peak RSS: {peak_rss_mb():.0f} MB (process; {rss_before:.0f} MB before the measure)"
        + (f"; tracemalloc peak {traced:.0f} MB" if traced is not None else "")
    )
    print("worst marginals:")
    print(result.worst(5)[["marginal", "family", "distance"]].to_string(index=False))


if __name__ == "__main__":
    main()
