"""The workspace: the loaded tables, their schema overrides and the threat model, as one
immutable value (no session state here: :mod:`ui.state` stores it).

The sampling-weight column is declared among the schema overrides, as the kind
:data:`WEIGHT`: every cache key built on the overrides (the canonical real table, the
generated releases, the evaluations) then changes with it, since the schema marks the
column excluded (``privacy_core.Schema.with_weight``) and the canonical tables leave it
out.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd
import streamlit as st

import privacy_core as pc
from privacy_core.sampling_weights import mark_weight_column

#: The override kind that declares the sampling-weight column (one column at most).
WEIGHT = "weight"


@dataclass(frozen=True)
class Table:
    """A loaded table with its name, origin and content fingerprint.

    ``group`` names the release group (candidate) a synthetic release belongs to: releases
    of one group are replicates of one generator configuration, averaged with mean and
    spread (consensus R10); different groups are candidates shown side by side. Empty: the
    release is a candidate of its own (named after the release).
    """

    name: str
    frame: pd.DataFrame
    origin: str  # "built-in", "upload" or "generated"
    fingerprint: str
    group: str = ""

    @classmethod
    def make(cls, name: str, frame: pd.DataFrame, origin: str, group: str = "") -> Table:
        return cls(
            name=name, frame=frame, origin=origin, fingerprint=pc.fingerprint(frame), group=group
        )

    @property
    def candidate(self) -> str:
        """The name of the release group this table belongs to."""
        return self.group or self.name


@dataclass(frozen=True)
class Workspace:
    """Everything the user has loaded and chosen; replaced whole on every change."""

    real: Table
    releases: tuple[Table, ...]
    holdout: Table | None
    quasi_identifiers: tuple[str, ...]
    sensitive: tuple[str, ...]
    overrides: tuple[tuple[str, str], ...] = ()
    dataset: str = "health"  # "health", "adult" or "upload"
    dataset_params: tuple[tuple[str, Any], ...] = ()
    settings: tuple[tuple[str, Any], ...] = field(default=())

    # ---------------------------------------------------------------- derived views
    @property
    def schema(self) -> pc.Schema:
        return _schema(self.real.fingerprint, self.real.frame, self.overrides)

    @property
    def weights(self) -> str | None:
        """The declared sampling-weight column, or None."""
        return next((c for c, k in self.overrides if k == WEIGHT), None)

    @property
    def threat(self) -> pc.ThreatModel:
        return pc.ThreatModel(self.quasi_identifiers, self.sensitive, weights=self.weights)

    def with_weights(self, column: str | None) -> Workspace:
        """This workspace with ``column`` as its sampling-weight column (None: none).

        The column's own type override, if any, gives way to the declaration; taking the
        declaration off gives the column its inferred type back."""
        kept = [(c, k) for c, k in self.overrides if k != WEIGHT and c != column]
        if column is not None:
            kept.append((column, WEIGHT))
        return replace(self, overrides=tuple(sorted(kept)))

    def weight_options(self) -> list[str]:
        """Columns that could be the sampling weight: numeric in the real table as loaded
        (the inferred type may be boolean or ID-like for weights such as 1 and 2, or one
        per record), neither a quasi-identifier nor sensitive. The engine checks the
        values when the choice is applied."""
        frame = self.real.frame
        taken = {*self.quasi_identifiers, *self.sensitive}
        return [
            str(c)
            for c in frame.columns
            if c not in taken
            and pd.api.types.is_numeric_dtype(frame[c].dtype)
            and not pd.api.types.is_bool_dtype(frame[c].dtype)
        ]

    @property
    def key(self) -> str:
        """Identifies the data + schema + threat model (for cache keys).

        The releases enter by content only, not by group name: a result is keyed by the
        releases it was computed on (a :meth:`group_view` holds one candidate's), so it
        survives other candidates coming and going and a renamed group.
        """
        parts = [
            self.real.fingerprint,
            *(t.fingerprint for t in self.releases),
            self.holdout.fingerprint if self.holdout else "-",
            repr(self.overrides),
            repr(self.quasi_identifiers),
            repr(self.sensitive),
        ]
        return "|".join(parts)

    # ----------------------------------------------------------- release groups
    def release_groups(self) -> dict[str, tuple[Table, ...]]:
        """The candidates: group name -> its releases, in the order first loaded."""
        groups: dict[str, list[Table]] = {}
        for t in self.releases:
            groups.setdefault(t.candidate, []).append(t)
        return {name: tuple(tables) for name, tables in groups.items()}

    def group_view(self, name: str) -> Workspace:
        """This workspace with the releases of one candidate only.

        Every cache key derives from :attr:`key`, which holds the releases' content and not
        their group names: a result computed on a candidate is found again under its view
        after other candidates are added or removed, or after a group is renamed.
        """
        groups = self.release_groups()
        if name not in groups:
            raise pc.ParameterError(f"No release group {name!r}; the groups are {list(groups)}.")
        return replace(self, releases=groups[name])

    def candidate_views(self) -> dict[str, Workspace]:
        """Group name -> :meth:`group_view`, one per candidate."""
        return {
            name: replace(self, releases=tables) for name, tables in self.release_groups().items()
        }

    def with_groups(self, groups: list[str] | tuple[str, ...]) -> Workspace:
        """The releases regrouped: ``groups[i]`` is release i's group name (blank: its own
        candidate). Content and keys stay the same; only the grouping changes."""
        if len(groups) != len(self.releases):
            raise pc.ParameterError(
                f"Give one group name per release: {len(self.releases)} "
                f"releases, {len(groups)} names received."
            )
        return replace(
            self,
            releases=tuple(
                replace(t, group=str(g).strip()) for t, g in zip(self.releases, groups, strict=True)
            ),
        )

    def setting(self, name: str, default: Any = None) -> Any:
        return dict(self.settings).get(name, default)

    def with_settings(self, **values: Any) -> Workspace:
        merged = {**dict(self.settings), **values}
        return replace(self, settings=tuple(sorted(merged.items())))

    def validate(self) -> list[str]:
        """Raise the engine's error if the workspace is not usable as a whole.

        Returns the notes worth showing the user: one message naming the categories of
        the releases and the holdout that the real table never holds (accepted, each as
        a category of its own; see ``privacy_core.UnseenCategoryWarning``).
        """
        schema = self.schema
        unseen: dict[str, dict[str, tuple[str, ...]]] = {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", pc.UnseenCategoryWarning)
            real_c = pc.prepare_table(self.real.frame, schema)
            self.threat.validate(schema, real_c)
            self.threat.validate_weights(
                self.real.frame, self.holdout.frame if self.holdout is not None else None
            )
            for t in self.releases:
                pc.conform_table(t.frame, schema, table=f"synthetic {t.name!r}")
            if self.holdout is not None:
                pc.conform_table(self.holdout.frame, schema, table=f"holdout {self.holdout.name!r}")
        for w in caught:
            if isinstance(w.message, pc.UnseenCategoryWarning):
                unseen.update(w.message.unseen)
        # one note for all tables rather than one per table
        return [pc.unseen_message(unseen)] if unseen else []


def declared_schema(real: pd.DataFrame, weights: str | None) -> pc.Schema:
    """The schema of a newly loaded real table with the declared weight column marked
    (the engine's message when ``real`` lacks it); the inference's warnings (excluded
    columns) reach the caller, which shows them as notes."""
    return mark_weight_column(pc.infer_schema(real), weights)


def _schema(
    fingerprint: str, frame: pd.DataFrame, overrides: tuple[tuple[str, str], ...]
) -> pc.Schema:
    return _schema_cached(fingerprint, frame, overrides)


@st.cache_data(show_spinner=False, max_entries=32)
def _schema_cached(
    fingerprint: str, _frame: pd.DataFrame, overrides: tuple[tuple[str, str], ...]
) -> pc.Schema:
    types = {c: k for c, k in overrides if k != WEIGHT}
    weight = next((c for c, k in overrides if k == WEIGHT), None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mark_weight_column(pc.infer_schema(_frame, types), weight)
