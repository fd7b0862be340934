"""The progress callback every long computation takes: ``progress(fraction, message)`` with
``fraction`` in [0, 1]; the app draws it as a progress bar, the command line ignores it."""

from __future__ import annotations

from collections.abc import Callable

ProgressFn = Callable[[float, str], None]


def share(progress: ProgressFn | None, i: int, k: int, label: str) -> ProgressFn | None:
    """The progress of step i of k, reported as its share of the whole (step i announced
    at its start): a step that reports its own progress reports into its slice."""
    if progress is None:
        return None
    progress(i / max(k, 1), label)

    def sub(fraction: float, message: str) -> None:
        progress((i + min(max(fraction, 0.0), 1.0)) / k, f"{label}: {message}")

    return sub
