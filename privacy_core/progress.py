"""The progress callback every long computation takes: ``progress(fraction, message)`` with
``fraction`` in [0, 1]; the app draws it as a progress bar, the command line ignores it."""

from __future__ import annotations

from collections.abc import Callable

ProgressFn = Callable[[float, str], None]
