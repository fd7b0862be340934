"""What every sub-command shares: the error, the parser class, loading, the threat model,
the JSON payload and the shared options."""

from __future__ import annotations

import argparse
import csv
import json
import sys
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

import pandas as pd

from ..data import MISSING, Schema, infer_schema, load_table
from ..errors import PrivacyCoreError
from ..exports import safe_csv
from ..results import MetricResult, jsonable
from ..sampling_weights import check_weight_column, mark_weight_column
from ..threat import ThreatModel


class CLIError(PrivacyCoreError):
    """Bad command-line usage."""


class CommandParser(argparse.ArgumentParser):
    """The parser of the command line and its sub-commands: a usage error is one line on
    stderr and exit 2."""

    def error(self, message: str) -> NoReturn:  # one line, exit 2, no usage dump
        sys.stderr.write(f"error: {message} (see `{self.prog} --help`)\n")
        sys.exit(2)


# ----------------------------------------------------------------------------- helpers
def csv_list(text: str | None) -> list[str]:
    """Comma-separated names; a name holding a comma is quoted as in a CSV file
    (``--qi 'age,"city, region"'``)."""
    if not text:
        return []
    try:
        fields = next(csv.reader([text], skipinitialspace=True))
    except csv.Error as exc:
        raise CLIError(f"cannot read the list {text!r}: {exc}.") from None
    return [t.strip() for t in fields if t.strip()]


def load_input(path: str, label: str) -> pd.DataFrame:
    """The table at ``path`` (CSV or Parquet); ``--label`` is required."""
    if not path:
        raise CLIError(f"--{label} is required.")
    return load_table(path)


REPORT_SUFFIXES = (".html", ".htm", ".pdf")


def check_report_path(out: str) -> None:
    """A report's output path, checked before any computation: an HTML or PDF file in a
    folder that exists."""
    path = Path(out)
    if path.suffix.lower() not in REPORT_SUFFIXES:
        raise CLIError(f"--out must end in .html or .pdf (the report's format); got {out!r}.")
    parent = path.expanduser().parent
    if not parent.is_dir():
        raise CLIError(
            f"--out {out!r}: the folder {str(parent)!r} does not exist; create it first."
        )
    if path.is_dir():
        raise CLIError(f"--out {out!r} is a folder; give a file name ending in .html or .pdf.")


def write_table(frame: pd.DataFrame, out: str) -> None:
    """Write a table as Parquet, or as a CSV safe to open in a spreadsheet."""
    path = Path(out)
    export = frame.copy()
    for col in export.columns:
        if export[col].dtype == object:
            export[col] = export[col].where(export[col] != MISSING, None)
    try:
        if path.suffix.lower() == ".parquet":
            export.to_parquet(path, index=False)
        else:
            # a CSV is opened in spreadsheets: its text cells must not start formulas
            path.write_text(safe_csv(export), encoding="utf-8", newline="")
    except OSError as exc:
        raise CLIError(f"cannot write {out!r}: {exc.strerror or exc}") from None


def threat_from_args(args: argparse.Namespace, real: pd.DataFrame) -> ThreatModel:
    """The threat model of ``--qi``, ``--sensitive`` and ``--weights`` (QIs default to
    every other kept column but the weight column), with the membership prevalence flags
    where the command has them. The weight column is checked in ``real`` here, before any
    computation, with the engine's messages."""
    qis = csv_list(args.qi)
    sensitive = csv_list(args.sensitive)
    weights = getattr(args, "weights", None)
    if not sensitive:
        raise CLIError("--sensitive is required: the column the attacker wants to learn.")
    # named columns must exist, whichever measures run (the app lists only real columns)
    for option, names in (("--sensitive", sensitive), ("--qi", qis)):
        missing = [c for c in names if c not in real.columns]
        if missing:
            raise CLIError(
                f"{option}: {', '.join(map(repr, missing))} is not in the real table; its "
                f"columns are {', '.join(map(str, real.columns))}."
            )
    if not qis:
        # every other column the schema keeps: ID-like and constant columns are excluded
        # by inference (an attacker's "knowledge" of a row number is not a QI)
        # nor is the sampling weight: survey design information, not an attribute
        kept = set(infer_schema(real).included) - {weights}
        qis = [c for c in real.columns if c not in sensitive and c in kept]
        if not qis:
            constant = [c for c in real.columns if c not in sensitive and real[c].nunique() <= 1]
            if constant and len(constant) == len(real.columns) - len(sensitive):
                raise CLIError(
                    "Every column other than the sensitive one is constant (one value in "
                    "every row), so none can tell people apart as a quasi-identifier: give "
                    "a table whose columns vary."
                )
            raise CLIError("No column is left to be a quasi-identifier: name them with --qi.")
        excluded = [
            c for c in real.columns if c not in sensitive and c not in kept and c != weights
        ]
        if excluded:
            print(
                f"note: quasi-identifiers default to every other column; excluded as "
                f"ID-like or constant: {', '.join(map(str, excluded))}",
                file=sys.stderr,
            )
    # membership prevalence (consensus R4, R5): only the commands with the flags set them
    threat = ThreatModel(
        qis,
        sensitive,
        sampling_fraction=getattr(args, "sampling_fraction", None),
        membership_scenario=getattr(args, "scenario", None) or "A",
        population_share=getattr(args, "population_share", None),
        weights=weights,
    )
    threat.validate_weights(real)
    return threat


def weights_schema(args: argparse.Namespace, real: pd.DataFrame) -> Schema | None:
    """The analysis schema of a command run without a threat model but with ``--weights``
    (``fidelity`` without ``--sensitive``): the weight column checked and marked, so the
    measures leave it out as they do under a threat model; None without ``--weights``."""
    weights = getattr(args, "weights", None)
    if weights is None:
        return None
    check_weight_column(real, weights)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the measures warn about the table themselves
        return mark_weight_column(infer_schema(real), weights)


def membership_options(args: argparse.Namespace) -> dict[str, Any]:
    """The membership measure's options from ``--h`` and ``--beta``."""
    return {"h": args.h, "beta": args.beta}


def note_fallback(args: argparse.Namespace, names: Sequence[str]) -> None:
    """Say when membership F_rel uses the arbitrary fallback t. ``privacy`` and ``report``
    pass on the measure's own warning (with the value of t); ``calibrate`` records the
    measures' warnings as notes instead, so it warns here, printed after a successful
    run like every warning."""
    if "membership" in names and args.sampling_fraction is None:
        from ..errors import UntrustworthyResultWarning

        warnings.warn(
            "no --sampling-fraction given: membership F_rel falls back to t = |training| / "
            "(|training| + |holdout|) in every calibration cell. That says how the real "
            "rows were split, not the share of the population in the training data, so "
            "it is arbitrary (consensus R5, Figure 3).",
            UntrustworthyResultWarning,
            stacklevel=2,
        )


def emit(args: argparse.Namespace, payload: dict[str, Any], summary: str) -> None:
    """Write the JSON payload to ``--json`` (``-``: stdout, instead of the summary) and
    the human summary to stdout."""
    # strict JSON (no bare NaN / Infinity tokens): jsonable maps them to null
    text = json.dumps(jsonable(payload), indent=2, allow_nan=False)
    if args.json == "-":
        sys.stdout.write(text + "\n")
        return
    if args.json:
        try:
            Path(args.json).write_text(text + "\n")
        except OSError as exc:
            raise CLIError(f"cannot write {args.json!r}: {exc.strerror or exc}") from None
    sys.stdout.write(summary + "\n")


def metrics_payload(
    command: str,
    real: pd.DataFrame,
    synthetic: Sequence[pd.DataFrame],
    seed: int,
    metrics: Mapping[str, MetricResult | dict],
) -> dict[str, Any]:
    """The JSON of an evaluating command: its inputs' sizes, seed and measures."""
    return {
        "command": command,
        "n_real": len(real),
        "n_synthetic": [len(s) for s in synthetic],
        "seed": seed,
        "metrics": {
            name: (m.to_dict() if hasattr(m, "to_dict") else m) for name, m in metrics.items()
        },
    }


def metrics_summary(metrics: dict[str, MetricResult]) -> str:
    """One line per measure: value, interval and direction."""
    lines = []
    for name, m in metrics.items():
        ci = f" [{m.ci[0]:.3f}, {m.ci[1]:.3f}]" if m.ci else ""
        lines.append(f"{name}: {m.value:.4f}{ci} ({m.goal} is better)")
        if name == "singling_out" and "mode" in m.params:
            from ..risk.attacks.predicates import describe_configuration

            # (several releases combine into a plain MetricResult with the same params)
            lines[-1] += f"; {describe_configuration(m)}"
    return "\n".join(lines)


def float_list(text: str | None, option: str) -> list[float] | None:
    """Comma-separated numbers of ``option``; None when not given."""
    if not text:
        return None
    try:
        return [float(v) for v in csv_list(text)]
    except ValueError:
        raise CLIError(f"{option} must be comma-separated numbers; got {text!r}.") from None


def checked_gtcap_weighting(args: argparse.Namespace) -> str:
    """``--gtcap-weighting``, with a deprecated name replaced (and said on stderr)."""
    from ..risk.cap import DEPRECATED_WEIGHTINGS

    name = args.gtcap_weighting
    if name in DEPRECATED_WEIGHTINGS:  # the engine's DeprecationWarning is not shown here
        new = DEPRECATED_WEIGHTINGS[name]
        sys.stderr.write(
            f"warning: --gtcap-weighting {name} is deprecated: it is a box of "
            f"half-width radius per column pooled over records; use {new}.\n"
        )
        return new
    return name


def add_membership_arguments(p: argparse.ArgumentParser) -> None:
    """The membership prevalence flags (consensus R4, R5)."""
    g = p.add_argument_group(
        "membership prevalence (consensus R4, R5, Figure 3)",
        "Who the attacker targets decides how many of the targets are members, and F_rel "
        "is relative to a naive attacker who calls every target a member.",
    )
    g.add_argument(
        "--sampling-fraction",
        type=float,
        default=None,
        metavar="T",
        help="t: the share of the population that is in the training data, "
        "in (0, 1); e.g. 0.05 when the training data hold 5%% of the "
        "patients the attacker might target. Without it F_rel falls back "
        "to |training| / (|training| + |holdout|), which only says how the "
        "real rows were split and is arbitrary",
    )
    g.add_argument(
        "--h",
        type=int,
        default=0,
        metavar="H",
        help="matching tolerance: a target is called a member when at most H of "
        "its binned quasi-identifiers differ from some synthetic record "
        "(default 0: an exact match)",
    )
    g.add_argument(
        "--beta",
        type=float,
        default=1.0,
        help="weight of recall against precision in the F-beta score: 1 = F1; "
        "0.5 when wrongly calling a non-member a member is costly, 2 when "
        "missing a member is (default 1)",
    )
    g.add_argument(
        "--scenario",
        type=str.upper,
        default="A",
        choices=["A", "B"],
        help="A: targets drawn from the population the training data were "
        "sampled from (member prevalence t); B: targets drawn from a wider "
        "superpopulation, where membership itself can reveal the sensitive "
        "trait (member prevalence t x --population-share)",
    )
    g.add_argument(
        "--population-share",
        type=float,
        default=None,
        metavar="P",
        help="scenario B: the share of the superpopulation that belongs to the "
        "training data's population, in (0, 1]",
    )


def add_mds_arguments(p: argparse.ArgumentParser) -> None:
    """The membership disclosure score's flags, ``--ray`` among them."""
    g = p.add_argument_group("membership disclosure score (mds; needs --control)")
    g.add_argument(
        "--shadow-method",
        default="cart",
        help="the built-in generator each shadow model is (cart, autoregressive, "
        "histogram, dp-mst, ...; default cart)",
    )
    g.add_argument(
        "--shadow-models",
        type=int,
        default=10,
        help="shadow models m; every record trains floor(m/2) of them (10)",
    )
    g.add_argument("--shadow-sets", type=int, default=5, help="tables each shadow model emits (5)")
    g.add_argument(
        "--mds-records",
        type=int,
        default=2000,
        help="records whose disclosure score is computed, a seeded subsample (2000)",
    )
    g.add_argument(
        "--mds-reading",
        default="relative",
        choices=["relative", "max"],
        help="relative: (MDS - HALF) / (SELF - HALF), 0 = emits unseen records, "
        "1 = copies; max: the paper's raw distance",
    )
    add_ray_argument(
        g,
        "the shadow models of mds, the attacker fits of rapid and the nearest-neighbour "
        "searches of over 2e9 pairs (in query blocks)",
    )


def add_device_argument(p: argparse.ArgumentParser) -> None:
    """``--device``: where the contrastive encoder trains."""
    p.add_argument(
        "--device",
        default="auto",
        choices=["auto", "cpu", "cuda"],
        help="where the contrastive encoder trains (outlier-targeted singling out, "
        "--space contrastive): auto = a GPU when torch sees one (default); the result's "
        "params record the device used",
    )


def add_jobs_argument(p: argparse.ArgumentParser, help: str | None = None) -> None:
    """``--n-jobs``: worker processes for the measures (or what ``help`` says)."""
    p.add_argument(
        "--n-jobs",
        type=int,
        default=1,
        help=help
        or "worker processes: the measures run side by side, the longest first, each on "
        "its share of the threads, and a measure run alone fans its own work out (MDS's "
        "shadow models); 1 = one after another (the default), -1 = every usable core "
        "(one after another when the data is too small to gain); the numbers do not "
        "change",
    )


def add_ray_argument(p: argparse.ArgumentParser | argparse._ArgumentGroup, what: str) -> None:
    """``--ray ADDRESS``: run ``what`` as tasks on a Ray cluster."""
    p.add_argument(
        "--ray",
        default=None,
        metavar="ADDRESS",
        help=f"run {what} as tasks on this Ray cluster ('local' starts one here, "
        "'auto' joins the cluster this machine belongs to; e.g. ray://head:10001); "
        "same numbers as without it",
    )


def ray_options(args: argparse.Namespace) -> dict[str, Any]:
    """``backend`` / ``ray_address`` keywords of the engine from ``--ray`` (local for a
    command without the option)."""
    address = getattr(args, "ray", None)
    return {"backend": "ray" if address else "local", "ray_address": address}


def mds_options(args: argparse.Namespace) -> dict[str, Any]:
    """The membership disclosure score's options from its flags."""
    return {
        "shadow_method": args.shadow_method,
        "shadow_models": args.shadow_models,
        "shadow_sets": args.shadow_sets,
        "records": args.mds_records,
        "reading": args.mds_reading,
        "n_jobs": args.n_jobs,
        **ray_options(args),
    }


def add_shared_arguments(p: argparse.ArgumentParser) -> None:
    """The inputs, threat model, seed and ``--json`` every evaluating command takes."""
    p.add_argument("--real", help="original / training data (CSV or Parquet)")
    p.add_argument(
        "--synthetic",
        action="append",
        default=[],
        help="synthetic release (repeat for several releases or replicates)",
    )
    p.add_argument("--control", help="real holdout rows the generator never saw")
    p.add_argument("--qi", help="quasi-identifiers, comma separated (default: all but sensitive)")
    p.add_argument("--sensitive", help="sensitive attribute(s), comma separated")
    p.add_argument(
        "--weights",
        default=None,
        metavar="COL",
        help="sampling-weight column of --real and --control: how many people each "
        "record stands for (numbers >= 1). sdcMicro's individual_risk and "
        "reproduced_uniques use it for F_k; every other measure leaves it out, and a "
        "release need not have it (default: none, F_k = f_k)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="write the JSON result to PATH ('-' for stdout)")
