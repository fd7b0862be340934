"""How the cost of a review grows with the table: time and peak memory per CLI command.

For each size n (default 50,000, 200,000 and 1,000,000 rows) the script writes a
simulated real table of n rows, a holdout of n/4 rows the generator never saw and a
HISTOGRAM release of n rows (Parquet, in a temporary folder), then runs each command as a
user would, ``python -m privacy_core <command> --real … --synthetic … --control …
--json``, in a process of its own, and reads that process's own peak RSS (``os.wait4``).
Each command has ``--timeout`` seconds (default 600: issue 14's 10-minute target); a
command that runs out is reported as such (with the measure it was in), not waited for.
``privacy`` and ``fidelity`` run with ``--verbose``, so their slowest measures are listed.

After the table it prints, per command, the exponent b of time ≈ a·n^b fitted to the
sizes that finished (b ≈ 1: linear; b ≈ 2: quadratic) and what the fit predicts at 10
million rows on this machine.

Usage:
  python bench/bench_scaling.py [--table health|wide] [--sizes 50000,200000,1000000]
      [--commands rapid,privacy,fidelity] [--timeout 600] [--privacy-metrics a,b,…]
      [--privacy-n-jobs 1] [--qis documented|all]

``health`` is the RAPID paper's 6-column simulation (disease sensitive, age, gender and
education known); ``wide`` is :func:`privacy_core.simulate_wide` (30 mixed columns with
missing values, diagnosis group sensitive). ``--qis documented`` (default) takes the
table's documented threat model (health: three categorical-like QIs); ``--qis all`` makes
every column but the sensitive one a quasi-identifier (health: five, income and health
continuous), the threat model that drives the attackers' memory (issue 33). Every figure
is printed with the threat model it was measured with. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import privacy_core as pc  # noqa: E402
from privacy_core.datasets import HEALTH_DEFAULT_THREAT, WIDE_DEFAULT_THREAT  # noqa: E402


def tables(kind: str, n: int, folder: Path) -> dict[str, Path]:
    """Real, holdout and a HISTOGRAM release of ``n`` rows, written as Parquet."""
    make = (
        (lambda m, s: pc.simulate_health(m, kappa=1.0, seed=s))
        if kind == "health"
        else (lambda m, s: pc.simulate_wide(m, seed=s))
    )
    real, hold = make(n, 0), make(max(n // 4, 10), 1)
    syn = pc.synthesize(pc.prepare_table(real, pc.infer_schema(real)), method="histogram", seed=2)
    paths = {name: folder / f"{kind}_{n}_{name}.parquet" for name in ("real", "hold", "syn")}
    for name, frame in zip(paths, (real, hold, syn), strict=True):
        frame.to_parquet(paths[name], index=False)
    return paths


def run(cmd: list[str], timeout: float, log: Path) -> tuple[str, float, float, dict[str, float]]:
    """(status, seconds, peak RSS in GB, seconds per measure) of one command in a process
    of its own; its stderr goes to ``log`` (a pipe left unread could block it)."""
    t = time.perf_counter()
    with log.open("w") as err:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)
        deadline = t + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                status = None
                break
            time.sleep(0.2)
    seconds = time.perf_counter() - t
    lines = log.read_text(errors="replace").splitlines()
    # --verbose: "  <measure>: <seconds> s" when a measure ends
    per_measure = {
        m.group(1): float(m.group(2))
        for m in (re.fullmatch(r"  (\w+): ([\d.]+) s", line) for line in lines)
        if m
    }
    if status is None:
        started = [line[:-4] for line in lines if line.endswith(" ...")]
        state = "timeout" + (f" (in {started[-1]})" if started else "")
    else:
        code = os.waitstatus_to_exitcode(status)
        state = "ok" if code == 0 else f"exit {code}: {lines[-1] if lines else ''}"[:80]
    return state, seconds, usage.ru_maxrss / 1e6, per_measure


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", choices=["health", "wide"], default="health")
    ap.add_argument("--sizes", default="50000,200000,1000000")
    ap.add_argument("--commands", default="rapid,privacy,fidelity")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument(
        "--privacy-n-jobs",
        type=int,
        default=1,
        help="privacy's --n-jobs: MDS's shadow generators on this many cores (-1 = all)",
    )
    ap.add_argument(
        "--privacy-metrics", default="", help="privacy's --metrics (default: every measure)"
    )
    ap.add_argument("--qis", choices=["documented", "all"], default="documented")
    args = ap.parse_args()
    threat = dict(HEALTH_DEFAULT_THREAT if args.table == "health" else WIDE_DEFAULT_THREAT)
    sizes = [int(s) for s in args.sizes.split(",")]
    commands = args.commands.split(",")
    rows: list[tuple[int, str, str, float, float]] = []
    print(
        f"table={args.table}  cores={len(os.sched_getaffinity(0))}  "
        f"timeout={args.timeout:.0f} s  quasi-identifiers={args.qis}",
        flush=True,
    )
    print(f"{'rows':>10}  {'command':9} {'seconds':>8} {'peak GB':>8}  status", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            t = time.perf_counter()
            paths = tables(args.table, n, Path(tmp))
            if args.qis == "all":
                columns = pc.load_table(paths["real"]).columns
                threat["quasi_identifiers"] = [c for c in columns if c not in threat["sensitive"]]
            print(f"{n:>10,}  (tables written in {time.perf_counter() - t:.1f} s)", flush=True)
            for command in commands:
                cmd = [
                    sys.executable,
                    "-m",
                    "privacy_core",
                    command,
                    "--real",
                    str(paths["real"]),
                    "--synthetic",
                    str(paths["syn"]),
                    "--control",
                    str(paths["hold"]),
                    "--qi",
                    ",".join(threat["quasi_identifiers"]),
                    "--sensitive",
                    ",".join(threat["sensitive"]),
                    "--json",
                    str(Path(tmp) / "out.json"),
                ]
                if command == "privacy" and args.privacy_metrics:
                    cmd += ["--metrics", args.privacy_metrics]
                if command == "privacy":
                    cmd += ["--n-jobs", str(args.privacy_n_jobs)]
                if command in ("privacy", "fidelity"):
                    cmd.append("--verbose")
                status, seconds, peak, per = run(cmd, args.timeout, Path(tmp) / "stderr.log")
                rows.append((n, command, status, seconds, peak))
                if command == commands[0]:
                    print(f"{'':>10}  QIs: {', '.join(threat['quasi_identifiers'])}", flush=True)
                slowest = sorted(per.items(), key=lambda kv: -kv[1])[:4]
                detail = ", ".join(f"{m} {s:.0f} s" for m, s in slowest)
                print(
                    f"{n:>10,}  {command:9} {seconds:8.1f} {peak:8.2f}  {status}"
                    + (f"  (slowest: {detail})" if detail else ""),
                    flush=True,
                )
    print("\nfitted growth, time ~ a * n^b over the sizes that finished:")
    for command in commands:
        done = [(n, s) for n, c, st, s, _ in rows if c == command and st == "ok"]
        if len(done) < 2:
            print(f"  {command:9} fewer than two sizes finished: no fit")
            continue
        b, log_a = np.polyfit(np.log([n for n, _ in done]), np.log([s for _, s in done]), 1)
        at_10m = np.exp(log_a) * 1e7**b
        print(f"  {command:9} b = {b:.2f}; 10,000,000 rows predicted {at_10m / 60:.0f} min")


if __name__ == "__main__":
    main()
