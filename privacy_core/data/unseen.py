"""Categories never seen in the real data: the note that names them, and its warning.

Contract
--------
:func:`unseen_message` names every table, column and (up to five per column) category a
holdout or synthetic table holds that the real table does not, and says how they are
treated; :func:`warn_unseen` issues it as an
:class:`~privacy_core.errors.UnseenCategoryWarning` carrying the categories.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

from ..errors import UnseenCategoryWarning

__all__ = ["unseen_message", "warn_unseen"]

_MAX_SHOWN = 5  # categories listed per column; the rest are counted


def unseen_message(unseen: Mapping[str, Mapping[str, Sequence[str]]]) -> str:
    """The note on categories never seen in the real data, naming every table, column and
    (up to five per column) category, and how they are treated.

    ``unseen`` maps a table's label (e.g. ``"holdout"``) to ``{column: categories}``.
    """
    parts = []
    for table, columns in unseen.items():
        shown = []
        for col, levels in columns.items():
            listed = ", ".join(map(repr, list(levels)[:_MAX_SHOWN]))
            more = f" and {len(levels) - _MAX_SHOWN} more" if len(levels) > _MAX_SHOWN else ""
            shown.append(f"column {col!r} has {listed}{more}")
        parts.append(f"The {table} table: {'; '.join(shown)}.")
    tables = set(unseen)
    why = []
    if any(t.startswith("holdout") for t in tables):
        why.append(
            " A holdout is another sample of the same population, so rare categories "
            "absent from the real sample are expected there."
        )
    if any(not t.startswith("holdout") for t in tables):
        why.append(" A synthetic release with such categories holds values its generator invented.")
    return (
        "Categories never seen in the real data. " + " ".join(parts) + " "
        "Each is kept as a category of its own, placed after the real categories: it never "
        "equals a real category, rows with the same unseen value equal each other, and the "
        "shared encoder gives it a one-hot column of its own." + "".join(why)
    )


def warn_unseen(unseen: Mapping[str, Mapping[str, Sequence[str]]], *, stacklevel: int = 2) -> None:
    """Issue the :class:`UnseenCategoryWarning` of :func:`unseen_message`."""
    warnings.warn(
        UnseenCategoryWarning(
            unseen_message(unseen),
            unseen={t: {c: tuple(v) for c, v in cols.items()} for t, cols in unseen.items()},
        ),
        stacklevel=stacklevel + 1,
    )
