"""The ``sweep`` sub-command: the risk-insertion sweep of :mod:`privacy_core.experiments`."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..data import load_table
from ..experiments import DP_GENERATORS, RISK_MODELS, sweep
from .common import CLIError, add_shared_arguments, csv_list, emit, load_input, threat_from_args


def register_sweep(subparsers: Any, name: str = "sweep") -> None:
    """Add the ``sweep`` subcommand to the command line's subparsers.

    ``python -m privacy_core sweep --real R.csv [--control C.csv] --sensitive S
    [--qi ...] --risk-model leaky|overfit|dp --levels L,L,... --metrics a,b,...
    --replicates R [--seed S] [--json PATH]`` prints ``{"command": "sweep", "n_real",
    "n_synthetic": [], "seed", "rows": [...]}``. ``--control`` rows are added to the real
    records the sweep splits (the sweep makes its own training / control split).
    """
    p = subparsers.add_parser(
        name, help="risk-insertion sweep: measure responses to leaks, overfitting or DP budgets"
    )
    add_shared_arguments(p)
    p.add_argument("--risk-model", default="leaky", choices=list(RISK_MODELS))
    p.add_argument(
        "--levels",
        default=None,
        help="comma-separated levels (default: f_l 0,0.2,...,1; f_o 1,1.2,...,2; "
        "epsilon 1,5,10,50,100)",
    )
    p.add_argument(
        "--metrics",
        default=None,
        help="comma-separated measures (default: the fast privacy measures)",
    )
    p.add_argument("--replicates", type=int, default=3)
    p.add_argument(
        "--generator",
        default=None,
        choices=list(DP_GENERATORS),
        help="DP generator (dp risk model)",
    )
    p.add_argument(
        "--noise",
        default=None,
        help="leaky noise 'sigma,lam,p' on inserted records (e.g. 0.05,0,0.05)",
    )
    p.add_argument("--outlier-fraction", type=float, default=0.0)
    p.add_argument("--canaries", type=int, default=0)
    p.add_argument("--n-jobs", type=int, default=-1)
    p.add_argument(
        "--singling-out-mode",
        default=None,
        choices=["multivariate", "univariate", "paper"],
        help="singling-out predicates (default multivariate, 3 columns, 500); "
        "'paper': the risk-insertion paper's protocol, the highest risk over "
        "univariate and 3-12 columns with 2,000 predicates each",
    )
    p.set_defaults(func=_cmd_sweep)


def _cmd_sweep(args: Any) -> int:
    real = load_input(args.real, "real")
    if args.synthetic:
        raise CLIError(
            "sweep makes its own releases; --synthetic is not used (give the real "
            "data with --real, and optionally more real rows with --control)."
        )
    if args.control:
        control = load_table(args.control)
        if list(control.columns) != list(real.columns):
            raise CLIError("--control must have the same columns as --real.")
        real = pd.concat([real, control], ignore_index=True)
    threat = threat_from_args(args, real)
    levels = None
    if args.levels:
        try:
            levels = [float(v) for v in csv_list(args.levels)]
        except ValueError:
            raise CLIError(
                f"--levels must be comma-separated numbers; got {args.levels!r}."
            ) from None
    noise = None
    if args.noise:
        try:
            sigma, lam, p = (float(v) for v in csv_list(args.noise))
        except ValueError:
            raise CLIError(
                f"--noise must be three numbers 'sigma,lam,p'; got {args.noise!r}."
            ) from None
        noise = {"sigma": sigma, "lam": lam, "p": p}
    metrics = csv_list(args.metrics) or None
    options = {"singling_out": {"mode": args.singling_out_mode}} if args.singling_out_mode else None
    result = sweep(
        real,
        risk_model=args.risk_model,
        levels=levels,
        measures=metrics,
        replicates=args.replicates,
        threat=threat,
        seed=args.seed,
        noise=noise,
        generator=args.generator,
        outlier_fraction=args.outlier_fraction,
        canaries=args.canaries,
        options=options,
        n_jobs=args.n_jobs,
    )
    payload = {
        "command": "sweep",
        "n_real": len(real),
        "n_synthetic": [],
        "seed": args.seed,
        **result.to_dict(),
    }
    summary = result.summary()
    lines = [
        (
            f"{args.risk_model} sweep, {result.replicates} replicate(s), "
            f"{result.params['seconds']:.1f} s"
        )
    ]
    for measure, g in summary.groupby("measure", sort=False):
        cells = ", ".join(
            f"{result.level_name}={lv:g}: {m:.3f}"
            for lv, m in zip(g["level"], g["mean"], strict=True)
        )
        lines.append(f"  {measure}: {cells}")
    emit(args, payload, "\n".join(lines))
    return 0
