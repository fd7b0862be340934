"""Who sees what in the review history: the signed-in reviewer, visibility and sharing.

Contract
--------
* A store opened for a signed-in :class:`Reviewer` saves each review under that
  reviewer's identity (its ``owner``) and reads only the reviews the reviewer owns or that
  were shared with them (with them by name, or with one of their teams);
  ``team_visible=True`` is the operator's policy that everyone signed in sees the whole
  history. A store opened without a reviewer is the single-user local tool: it sees every
  review, or with ``local_only`` only those the local user saved (owner ``""``).
* :func:`visible_to` limits a query to those reviews; :func:`grantee` is the ``shares``
  entry of one person (``user:<id>``) or one team (``team:<name>``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from ..errors import ParameterError
from .schema import REVIEWS, SHARES

__all__ = ["Reviewer", "grantee", "visible_to"]


@dataclass(frozen=True)
class Reviewer:
    """Who reads and writes the history: the signed-in identity.

    Parameters
    ----------
    id
        A stable identity from the sign-in provider (its e-mail address or subject); it is
        the owner recorded with every review this reviewer saves.
    name
        How to show the reviewer (defaults to ``id``).
    teams
        The teams the provider says the reviewer belongs to; a review shared with a team
        is visible to its members.
    """

    id: str
    name: str = ""
    teams: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id.strip():
            raise ParameterError("a reviewer needs a non-empty identity (id).")
        if len(self.id) > 320:
            raise ParameterError(
                f"a reviewer's identity is at most 320 characters; got {len(self.id)}."
            )
        object.__setattr__(self, "teams", tuple(str(t) for t in self.teams if str(t).strip()))

    @property
    def shown(self) -> str:
        return self.name or self.id

    def grantees(self) -> tuple[str, ...]:
        """The share entries that give this reviewer access."""
        return (f"user:{self.id}", *(f"team:{t}" for t in self.teams))


def visible_to(
    query: Any, reviewer: Reviewer | None, *, team_visible: bool, local_only: bool
) -> Any:
    """``query`` limited to the reviews ``reviewer`` may read (see the module's contract)."""
    if reviewer is None:
        return query.where(REVIEWS.c.owner == "") if local_only else query
    if team_visible:
        return query
    shared = sa.select(SHARES.c.review_id).where(SHARES.c.grantee.in_(reviewer.grantees()))
    return query.where(sa.or_(REVIEWS.c.owner == reviewer.id, REVIEWS.c.id.in_(shared)))


def grantee(*, user: str | None, team: str | None) -> str:
    """The share entry (``user:<id>`` or ``team:<name>``) of exactly one of ``user`` and
    ``team``.

    Raises
    ------
    ParameterError
        Neither or both are given, or the one given is empty or longer than 320
        characters.
    """
    if (user is None) == (team is None):
        raise ParameterError("share a review with one user or one team: give user= or team=.")
    who = str(user if user is not None else team).strip()
    if not who or len(who) > 320:
        raise ParameterError(
            "the user or team to share with must be a non-empty name of at most 320 characters."
        )
    return f"{'user' if user is not None else 'team'}:{who}"
