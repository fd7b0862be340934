"""Command line: ``python -m privacy_core COMMAND [options]``.

Contract (DESIGN.md): exit 0 on success; exit 2 on bad input with one line on stderr that
begins ``error:``; never a traceback for bad input. Evaluating commands print JSON of the
shape ``{"command", "n_real", "n_synthetic", "seed", "metrics": {...}}`` to ``--json``
(``-`` for stdout) and a short human summary otherwise.

The package owns every sub-command and nothing in the engine imports it: ``common`` holds
what the commands share, ``parsers`` each sub-command's arguments, ``commands`` the
evaluating ones, ``sweep`` the risk-insertion sweep; this module builds the parser and runs
a command.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence

from ..errors import PrivacyCoreError
from .common import CLIError, CommandParser
from .parsers import REGISTER
from .sweep import register_sweep


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser: one sub-command per task, each added by its
    ``register_*`` function (:mod:`.parsers`, :mod:`.sweep`)."""
    parser = CommandParser(
        prog="python -m privacy_core", description="Risk-utility review of synthetic tabular data."
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=CommandParser)
    for register in REGISTER:
        register(sub)
    register_sweep(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            code = args.func(args)
        except PrivacyCoreError as exc:
            message = " ".join(str(exc).split())
            sys.stderr.write(f"error: {message}\n")
            return 2
        except MemoryError:
            sys.stderr.write("error: out of memory; subsample the inputs and try again.\n")
            return 2
    shown: set[str] = set()
    for w in caught:  # each measure re-validates the inputs: say each note once
        if issubclass(w.category, UserWarning) and str(w.message) not in shown:
            shown.add(str(w.message))
            sys.stderr.write(f"warning: {w.message}\n")
    return code


__all__ = ["CLIError", "build_parser", "main"]
