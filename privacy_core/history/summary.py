"""One stored review as a row of the history list, with its headline numbers.

Contract
--------
:class:`ReviewSummary` is what :meth:`~privacy_core.history.ReviewStore.list` returns per
review: the indexed columns and, per candidate, the values of the
:data:`HEADLINE_METRICS` the review computed (:func:`headline`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ..results import jsonable
from ..scorecard import headline as measure_headline

__all__ = ["HEADLINE_METRICS", "ReviewSummary", "headline"]

# Measures shown in a review's one-line summary, when the review has them.
HEADLINE_METRICS = (
    "rapid",
    "singling_out",
    "linkability",
    "inference",
    "membership",
    "dcr",
    "ims",
    "wasserstein",
    "discriminator",
)


@dataclass(frozen=True)
class ReviewSummary:
    """One stored review as a row of the history list.

    ``headline`` maps each candidate to its values of :data:`HEADLINE_METRICS` (those the
    review computed); ``version`` is the product that computed it.
    """

    id: int
    created: str
    decision: str
    reviewer: str
    real_fingerprint: str
    synthetic_fingerprints: tuple[str, ...]
    candidates: tuple[str, ...]
    headline: dict[str, dict[str, float | None]]
    version: str
    n_alternatives: int = 0
    inputs_key: str = ""
    numbers_key: str = ""
    owner: str = ""  # the signed-in identity that saved it; "" for the local single user

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types (tuples become lists)."""
        return jsonable(asdict(self))


def headline(doc: Mapping[str, Any]) -> dict[str, dict[str, float | None]]:
    """``{candidate: {measure: value}}`` of the :data:`HEADLINE_METRICS` a document has:
    each measure's headline as the scorecard reads it (RAPID's is the strongest attacker's,
    as on the Overview and in the opened review, not the attackers' mean)."""

    def value(measure: str, metric: Mapping[str, Any]) -> float | None:
        head = measure_headline(measure, metric)
        return None if head is None else head.value

    return {
        str(c.get("name")): {
            m: value(m, (c.get("metrics") or {})[m])
            for m in HEADLINE_METRICS
            if m in (c.get("metrics") or {})
        }
        for c in doc.get("candidates") or []
    }
