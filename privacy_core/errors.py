"""Named exceptions and warnings of the engine.

Every error the engine raises for bad input is a subclass of :class:`PrivacyCoreError`
(itself a ``ValueError``), carries a message that says what was expected, what was
received and how to fix it, and is shown verbatim by the app and the command line.
"""

from __future__ import annotations


class PrivacyCoreError(ValueError):
    """Base class of every input error raised by privacy_core."""


class DataLoadError(PrivacyCoreError):
    """A file could not be read as a table (empty, malformed, unsupported format)."""


class SchemaError(PrivacyCoreError):
    """A table's columns or types are unusable (duplicates, wrong type override...)."""


class ColumnNotFoundError(SchemaError):
    """A column named by the user does not exist in the table."""


class SchemaMismatchError(SchemaError):
    """A synthetic or holdout table does not match the real table's schema.

    ``problems`` lists every mismatch found, so that all can be fixed at once.
    """

    def __init__(self, problems: list[str], *, table: str = "synthetic"):
        self.problems = list(problems)
        self.table = table
        bullet = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(
            f"The {table} table does not match the real table "
            f"({len(self.problems)} problem{'s' if len(self.problems) != 1 else ''}):\n{bullet}"
        )

    def __reduce__(self):  # pickled with its arguments (a scheduled task's error)
        return (_schema_mismatch, (self.problems, self.table))


def _schema_mismatch(problems: list[str], table: str) -> SchemaMismatchError:
    return SchemaMismatchError(problems, table=table)


class ThreatModelError(PrivacyCoreError):
    """The quasi-identifiers / sensitive attribute choice is invalid for the data."""


class MissingValueError(PrivacyCoreError):
    """Missing values where the chosen strategy does not allow them."""


class InsufficientDataError(PrivacyCoreError):
    """Too few rows (or classes) for the requested computation."""


class ParameterError(PrivacyCoreError):
    """A keyword argument is out of its documented range."""


class ComputeBackendError(PrivacyCoreError):
    """The compute backend (a Ray cluster) is missing or cannot be reached."""


class HistoryError(PrivacyCoreError):
    """The review database cannot be used: not a database, locked, unreachable, written by
    a newer product, holding other tables, or without the review asked for."""


class PrivacyCoreWarning(UserWarning):
    """Base class of the engine's warnings."""


class SchemaWarning(PrivacyCoreWarning):
    """A column was excluded or reinterpreted during schema inference."""


class DataLoadWarning(PrivacyCoreWarning):
    """A file was read, but with a fallback (encoding, delimiter...)."""


class UntrustworthyResultWarning(PrivacyCoreWarning):
    """A result could be computed but should not be trusted (tiny sample, no signal...)."""


class UnseenCategoryWarning(PrivacyCoreWarning):
    """A holdout or synthetic table holds categories the real table does not.

    Not an error: a holdout is a sample of the same population, so rare categories absent
    from the real sample are expected there, and a generator that invents a category is
    worth knowing about but still reviewable. Each such value is kept as a level of its
    own, appended after the real categories (see :meth:`~privacy_core.data.Schema.with_unseen`).

    ``unseen`` maps each table's label to ``{column: (category, ...)}``.
    """

    def __init__(
        self, message: str = "", *, unseen: dict[str, dict[str, tuple[str, ...]]] | None = None
    ):
        super().__init__(message)
        self.unseen = dict(unseen or {})
