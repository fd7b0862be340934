"""The threat model: which columns an attacker knows and which are secret.

Why one module: the threat model, its validation and the quasi-identifier suggestion
share one notion of which columns an attacker could know; split, the suggestion's rules
and the validation's would drift apart.

Consensus recommendation R1 (``consensus-privacy-framework.md``, Table 2): disclosure
measures are computed on quasi-identifiers chosen by the data controller.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import pandas as pd

from .data import Schema
from .errors import ColumnNotFoundError, ParameterError, ThreatModelError
from .sampling_weights import (
    check_weight_column,
    check_weight_name,
    mark_weight_column,
    weight_not_in_table,
)


@dataclass(frozen=True)
class ThreatModel:
    """Quasi-identifiers known to the attacker and the sensitive attribute(s).

    Parameters
    ----------
    quasi_identifiers
        Columns the attacker knows about a target (from external sources).
    sensitive
        Columns the attacker wants to learn. The first one is the default target of
        single-target measures such as RAPID.
    sampling_fraction
        Share of the population that is in the real (training) data, t, used by
        membership measures: in scenario A it is the member prevalence among the
        attacker's targets. ``None`` when unknown (membership measures then fall back to
        an arbitrary value and say so).
    membership_scenario
        Whom the attacker targets (consensus framework, Figure 2): ``"A"`` (default)
        targets drawn from the population the training data were sampled from (e.g.
        people with HIV; member prevalence t), ``"B"`` targets drawn from a wider
        superpopulation (e.g. everyone of that age in that city; member prevalence
        t x ``population_share``), where membership itself can reveal the sensitive
        trait.
    population_share
        Scenario B only: the share of the superpopulation that belongs to the population
        (e.g. the HIV prevalence among the superpopulation), in (0, 1].
    weights
        The sampling-weight column of the real (and holdout) table, or None: how many
        people of the population each record stands for (survey design information, not
        an attribute). The measures whose function takes ``weights`` (sdcMicro's
        individual risk and reproduced rare combinations) use it for F_k, the estimated
        population frequency of a key; every other measure leaves it out
        (:func:`mark_weight_column`), and a release need not have it. Neither a
        quasi-identifier nor sensitive.
    """

    quasi_identifiers: tuple[str, ...]
    sensitive: tuple[str, ...]
    sampling_fraction: float | None = None
    membership_scenario: str = "A"
    population_share: float | None = None
    weights: str | None = None

    def __init__(
        self,
        quasi_identifiers: Sequence[str] | str,
        sensitive: Sequence[str] | str,
        sampling_fraction: float | None = None,
        membership_scenario: str = "A",
        population_share: float | None = None,
        weights: str | None = None,
    ):
        # A bare string is one column, not a sequence of one-letter columns.
        if isinstance(quasi_identifiers, str):
            quasi_identifiers = (quasi_identifiers,)
        if isinstance(sensitive, str):
            sensitive = (sensitive,)
        object.__setattr__(self, "quasi_identifiers", tuple(quasi_identifiers))
        object.__setattr__(self, "sensitive", tuple(sensitive))
        object.__setattr__(self, "sampling_fraction", sampling_fraction)
        if not self.quasi_identifiers:
            raise ThreatModelError(
                "Choose at least one quasi-identifier: a column the attacker already knows."
            )
        if not self.sensitive:
            raise ThreatModelError(
                "Choose at least one sensitive attribute: the column the attacker wants to learn."
            )
        both = [c for c in self.sensitive if c in self.quasi_identifiers]
        if both:
            raise ThreatModelError(
                f"{', '.join(map(repr, both))} cannot be both a quasi-identifier and "
                "sensitive; remove it from one of the two lists."
            )
        for group, cols in (
            ("quasi-identifier", self.quasi_identifiers),
            ("sensitive attribute", self.sensitive),
        ):
            dup = sorted({c for c in cols if cols.count(c) > 1})
            if dup:
                raise ThreatModelError(f"{group} list repeats {', '.join(map(repr, dup))}.")
        object.__setattr__(
            self,
            "membership_scenario",
            check_membership_prevalence(sampling_fraction, membership_scenario, population_share),
        )
        object.__setattr__(self, "population_share", population_share)
        object.__setattr__(
            self, "weights", check_weight_name(weights, self.quasi_identifiers, self.sensitive)
        )

    @property
    def target(self) -> str:
        """The primary sensitive attribute."""
        return self.sensitive[0]

    @property
    def columns(self) -> list[str]:
        return [*self.quasi_identifiers, *self.sensitive]

    def validate(self, schema: Schema, real: pd.DataFrame | None = None) -> None:
        """Check the threat model against the real schema (and canonical real data).

        Raises
        ------
        ThreatModelError
            A column is unknown, excluded (ID-like / constant), or a categorical sensitive
            attribute has fewer than two classes; the weight column is not in the schema,
            or ``real`` holds it with values that are not sampling weights
            (:func:`check_weight_column`).
        """
        if self.weights is not None:
            if self.weights not in schema:
                raise ThreatModelError(weight_not_in_table(self.weights, "real"))
            if real is not None and self.weights in real.columns:
                check_weight_column(real, self.weights, quasi_identifiers=self.quasi_identifiers)
        for col in self.columns:
            if col not in schema:
                raise ThreatModelError(
                    f"Column {col!r} is not in the real table; available columns: "
                    f"{', '.join(schema.names)}."
                )
            spec = schema[col]
            if not spec.included:
                raise ThreatModelError(
                    f"Column {col!r} is excluded from the analysis ({spec.note}); "
                    "change its type on the data page to use it."
                )
        for col in self.sensitive:
            spec = schema[col]
            if spec.is_categorical:
                # "(missing)" counts as a class, as in the canonical data: a column that is
                # either "yes" or missing still discloses something.
                classes = list(spec.categories)
                if real is not None and col in real.columns:
                    classes = sorted(set(real[col].unique()))
                if len(classes) < 2:
                    raise ThreatModelError(
                        f"The sensitive column {col!r} has a single class "
                        f"({classes[0] if classes else 'none'!r}); an attacker learns nothing "
                        "from it. Choose a column with two or more classes."
                    )

    def to_dict(self) -> dict:
        return {
            "quasi_identifiers": list(self.quasi_identifiers),
            "sensitive": list(self.sensitive),
            "sampling_fraction": self.sampling_fraction,
            "membership_scenario": self.membership_scenario,
            "population_share": self.population_share,
            "weights": self.weights,
        }

    def validate_weights(self, real: pd.DataFrame, holdout: pd.DataFrame | None = None) -> None:
        """Check the sampling-weight column in the raw real table and the holdout (nothing
        when no column is declared).

        The canonical tables leave the weight column out (it is excluded from the
        analysis), so the check reads the tables as loaded.

        Raises
        ------
        ThreatModelError
            See :func:`check_weight_column`.
        """
        if self.weights is None:
            return
        check_weight_column(real, self.weights, quasi_identifiers=self.quasi_identifiers)
        if holdout is not None:
            check_weight_column(
                holdout, self.weights, quasi_identifiers=self.quasi_identifiers, table="holdout"
            )

    def analysis_schema(self, schema: Schema) -> Schema:
        """``schema`` with the declared weight column marked (:func:`mark_weight_column`)."""
        return mark_weight_column(schema, self.weights)


#: The consensus framework's two membership scenarios (Figure 2).
MEMBERSHIP_SCENARIOS = ("A", "B")


def membership_scenario_name(value: object, *, error: type[Exception] = ParameterError) -> str:
    """``"A"`` or ``"B"`` (case-insensitive), else ``error`` naming both."""
    name = value.strip().upper() if isinstance(value, str) else value
    if name not in MEMBERSHIP_SCENARIOS:
        raise error(
            f"The membership scenario must be 'A' (targets from the training data's own "
            f"population) or 'B' (targets from a wider superpopulation); got {value!r}."
        )
    return name


def check_membership_prevalence(
    sampling_fraction: float | None, scenario: object, population_share: float | None
) -> str:
    """Check the membership part of a threat model; return the scenario's name.

    Raises
    ------
    ThreatModelError
        t or the population share outside (0, 1], an unknown scenario, or scenario B
        without a population share.
    """
    if sampling_fraction is not None and not (0 < _as_fraction(sampling_fraction) <= 1):
        raise ThreatModelError(
            f"The sampling fraction must be in (0, 1]; got {sampling_fraction!r}."
        )
    name = membership_scenario_name(scenario, error=ThreatModelError)
    if population_share is not None and not (
        0 < _as_fraction(population_share, "population share") <= 1
    ):
        raise ThreatModelError(f"The population share must be in (0, 1]; got {population_share!r}.")
    if name == "B" and population_share is None:
        raise ThreatModelError(
            "Membership scenario B (targets from a wider superpopulation) needs the "
            "population share: the share of that superpopulation that belongs to the "
            "population the training data were drawn from."
        )
    return name


def _as_fraction(value: object, what: str = "sampling fraction") -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ThreatModelError(f"The {what} must be a number in (0, 1]; got {value!r}.") from None


# ---------------------------------------------------------------- suggested quasi-identifiers
# Words in a column name that mark an attribute an attacker can know from outside the data
# (registers, census tables, social media, acquaintance). Kept short on purpose: a long list
# matches too much by accident ("page" is not "age", which word boundaries already handle,
# but "status" or "type" would be). Matched as whole words of the normalised name.
DEMOGRAPHIC_TERMS: tuple[str, ...] = (
    "age",
    "sex",
    "gender",
    "race",
    "ethnicity",
    "ethnic",
    "marital",
    "education",
    "occupation",
    "region",
    "postcode",
    "post code",
    "postal code",
    "zip",
    "zipcode",
    "country",
    "nationality",
    "birth",
    "birthyear",
    "yob",
)
_DEMOGRAPHIC_RE = re.compile(
    r"\b("
    + "|".join(re.escape(t) for t in sorted(DEMOGRAPHIC_TERMS, key=len, reverse=True))
    + r")\b"
)


@dataclass(frozen=True)
class QIColumn:
    """Why one column is in or out of the suggested quasi-identifiers, and the figures used.

    Attributes
    ----------
    name
        The column.
    kind
        Its kind in the schema (``"numeric"``, ``"categorical"``, ``"boolean"``, ``"id"``,
        ``"constant"``).
    n_unique
        Distinct non-missing values in the real table.
    unique_fraction
        ``n_unique`` divided by the number of rows (1.0: every value is unique).
    demographic_term
        The demographic word its name matched, or ``""``.
    category
        Why it is in or out, as one word: ``"demographic"``, ``"demographic-high-cardinality"``,
        ``"fallback"``, ``"sensitive"``, ``"excluded"``, ``"id-like"``, ``"continuous"``,
        ``"high-cardinality"`` or ``"not-demographic"``.
    suggested
        Whether it is in the suggestion.
    reason
        One sentence for the user.
    """

    name: str
    kind: str
    n_unique: int
    unique_fraction: float
    demographic_term: str
    category: str
    suggested: bool
    reason: str


@dataclass(frozen=True)
class QISuggestion:
    """Suggested quasi-identifiers for a table, with the reason for every column.

    Attributes
    ----------
    columns
        The suggested quasi-identifiers, in table order.
    sensitive
        The sensitive column(s) the suggestion was made for.
    details
        One :class:`QIColumn` per column of the table, in table order.
    fallback
        True when no column qualified and the lowest-cardinality columns were taken.
    note
        Why the fallback was used (empty otherwise).
    max_levels, max_integer_levels, id_fraction, n_fallback
        The thresholds used (see :func:`suggest_quasi_identifiers`).
    """

    columns: tuple[str, ...]
    sensitive: tuple[str, ...]
    details: tuple[QIColumn, ...]
    fallback: bool
    note: str
    max_levels: int
    max_integer_levels: int
    id_fraction: float
    n_fallback: int

    def __getitem__(self, name: str) -> QIColumn:
        for d in self.details:
            if d.name == name:
                return d
        raise KeyError(name)

    def reason(self, name: str) -> str:
        """The sentence saying why ``name`` is in or out of the suggestion."""
        return self[name].reason

    @property
    def left_out(self) -> tuple[QIColumn, ...]:
        """Columns not suggested, other than the sensitive one(s)."""
        return tuple(d for d in self.details if not d.suggested and d.category != "sensitive")

    def summary(self) -> str:
        """A short explanation of the suggestion for the user, naming what was left out."""
        cols = ", ".join(self.columns)
        if self.fallback:
            head = f"Suggested quasi-identifiers: {cols} — {self.note}"
        else:
            head = (
                f"Suggested quasi-identifiers: {cols} — demographic, low-cardinality "
                "columns an attacker could know from outside."
            )
        # (singular, plural) wording of why each kind of column was left out
        groups = {
            "continuous": ("it is a continuous measurement", "they are continuous measurements"),
            "id-like": ("nearly every value is unique", "nearly every value is unique"),
            "high-cardinality": (
                "it has too many levels to be known from outside",
                "they have too many levels to be known from outside",
            ),
            "not-demographic": (
                "its name does not mark it as demographic or externally "
                "knowable (add it if an attacker could know it)",
                "their names do not mark them as demographic or externally "
                "knowable (add them if an attacker could know them)",
            ),
            "excluded": ("it is excluded from the analysis", "they are excluded from the analysis"),
        }
        parts = []
        for category, (one, several) in groups.items():
            names = [d.name for d in self.left_out if d.category == category]
            if names:
                verb, why = ("was", one) if len(names) == 1 else ("were", several)
                parts.append(f"{_join(names)} {verb} left out because {why}")
        return head + (" " + "; ".join(parts) + "." if parts else "")

    def to_frame(self) -> pd.DataFrame:
        """One row per column: the figures used and the reason."""
        return pd.DataFrame([vars(d) for d in self.details])


def suggest_quasi_identifiers(
    real: pd.DataFrame,
    schema: Schema,
    sensitive: Sequence[str] | str,
    *,
    max_levels: int = 50,
    max_integer_levels: int = 120,
    id_fraction: float = 0.95,
    n_fallback: int = 3,
) -> QISuggestion:
    """Suggest quasi-identifiers as a disclosure-control expert would.

    Quasi-identifiers are the attacker's background knowledge: attributes available from
    public sources or from knowing the person. Making every non-sensitive column a
    quasi-identifier (the implicit default of many tools) assumes an attacker who knows
    each person's exact income and health score, which makes nearly every record unique
    and saturates attacks such as singling out. This suggests the demographic, coarse,
    externally knowable columns instead, and says why for every column.

    Parameters
    ----------
    real
        The real table (raw or canonical); used for the number of distinct values.
    schema
        Its schema (``infer_schema``); columns it excludes are never suggested.
    sensitive
        The sensitive column(s); never suggested.
    max_levels
        A categorical column with more distinct values is high-cardinality.
    max_integer_levels
        A numeric column with more distinct values is a continuous measurement; up to it an
        integer column is coarse (ages have about 100 values).
    id_fraction
        A column with at least this share of unique values is ID-like.
    n_fallback
        How many of the lowest-cardinality columns to suggest when no column qualifies.

    Returns
    -------
    QISuggestion
        The suggested columns in table order, with the reason and figures for every column.

    Raises
    ------
    ColumnNotFoundError
        A sensitive column or a schema column is not in ``real``.
    ParameterError
        A threshold is out of range.

    Notes
    -----
    The rules, applied to every column the schema includes, in table order:

    1. The sensitive column(s) are never quasi-identifiers (what the attacker wants to
       learn is not what they know).
    2. A column whose name contains, as a whole word (case-insensitive; ``-``, ``_``,
       ``.`` and camelCase split words), one of :data:`DEMOGRAPHIC_TERMS` (age, sex,
       gender, race, ethnicity, marital, education, occupation, region, postcode, zip,
       country, nationality, birth...) is suggested: these are the attributes found in
       registers, census tables and social media. If it has many distinct values the
       reason says so and advises coarsening it (a postcode is still a quasi-identifier).
    3. Other columns are not suggested, with the reason: continuous measurements (a
       numeric column with more than ``max_integer_levels`` distinct values, such as
       income, a health score or a survey weight like ``fnlwgt``) and ID-like columns
       (at least ``id_fraction`` unique) are not background knowledge; high-cardinality
       categoricals (more than ``max_levels``) are rarely known exactly; low-cardinality
       columns without a demographic name are listed for the user to add if an attacker
       could know them.
    4. If no column qualifies, the ``n_fallback`` included non-sensitive columns with the
       fewest distinct values are suggested (ties in table order), and ``note`` says so.

    The result is deterministic. Consensus framework (``consensus-privacy-framework.md``):
    the glossary (Table 1) defines quasi-identifiers as attributes "assumed to be known by
    an adversary ... from public sources of information" or by acquaintance; Discussion,
    "The adversary's background knowledge", warns that metrics computed on entire records
    silently assume all attributes are quasi-identifiers and asks that the choice be made
    explicit; recommendation R1 (S1.1, Table 2) leaves it to the data controller, so this
    is a suggestion for them to accept or change. RAPID (``rapid-attribute-inference.md``,
    Sections 1.5 and 4) takes quasi-identifiers as what is known "from external sources",
    e.g. age, education and marital status on UCI Adult.
    """
    if isinstance(sensitive, str):
        sensitive = (sensitive,)
    sensitive = tuple(sensitive)
    _check_thresholds(max_levels, max_integer_levels, id_fraction, n_fallback)
    _check_columns(real, schema, sensitive)
    details = [
        _column_detail(
            real,
            schema,
            name,
            is_sensitive=name in sensitive,
            max_levels=max_levels,
            max_integer_levels=max_integer_levels,
            id_fraction=id_fraction,
        )
        for name in schema.names
    ]
    fallback = not any(d.suggested for d in details)
    note = ""
    if fallback:
        details, note = _with_fallback(details, n_fallback)
    return QISuggestion(
        columns=tuple(d.name for d in details if d.suggested),
        sensitive=sensitive,
        details=tuple(details),
        fallback=fallback,
        note=note,
        max_levels=max_levels,
        max_integer_levels=max_integer_levels,
        id_fraction=id_fraction,
        n_fallback=n_fallback,
    )


def _check_thresholds(
    max_levels: int, max_integer_levels: int, id_fraction: float, n_fallback: int
) -> None:
    """Refuse a threshold of :func:`suggest_quasi_identifiers` that is out of range."""
    if not (isinstance(max_levels, int) and max_levels >= 1):
        raise ParameterError(f"max_levels must be a positive integer; got {max_levels!r}.")
    if not (isinstance(max_integer_levels, int) and max_integer_levels >= 1):
        raise ParameterError(
            f"max_integer_levels must be a positive integer; got {max_integer_levels!r}."
        )
    if not (0 < id_fraction <= 1):
        raise ParameterError(f"id_fraction must be in (0, 1]; got {id_fraction!r}.")
    if not (isinstance(n_fallback, int) and n_fallback >= 1):
        raise ParameterError(f"n_fallback must be a positive integer; got {n_fallback!r}.")


def _check_columns(real: pd.DataFrame, schema: Schema, sensitive: tuple[str, ...]) -> None:
    """Refuse sensitive or schema columns that ``real`` lacks, and sensitive columns the
    schema lacks."""
    missing = [c for c in (*sensitive, *schema.names) if c not in real.columns]
    if missing:
        raise ColumnNotFoundError(
            f"Column(s) {', '.join(map(repr, dict.fromkeys(missing)))} are not in the real "
            f"table; its columns are: {', '.join(map(str, real.columns))}. Pass the table the "
            "schema was inferred from."
        )
    unknown = [c for c in sensitive if c not in schema]
    if unknown:
        raise ColumnNotFoundError(
            f"Sensitive column(s) {', '.join(map(repr, unknown))} are not in the schema."
        )


def _column_detail(
    real: pd.DataFrame,
    schema: Schema,
    name: str,
    *,
    is_sensitive: bool,
    max_levels: int,
    max_integer_levels: int,
    id_fraction: float,
) -> QIColumn:
    """One column's figures, category and reason (rules 1-3)."""
    spec = schema[name]
    n_unique = int(real[name].nunique(dropna=True))
    fraction = n_unique / max(len(real), 1)
    term = _demographic_term(name)
    category, reason = _judge(
        spec.kind,
        spec.integer,
        n_unique,
        fraction,
        term,
        is_sensitive=is_sensitive,
        note=spec.note,
        max_levels=max_levels,
        max_integer_levels=max_integer_levels,
        id_fraction=id_fraction,
    )
    return QIColumn(
        name=name,
        kind=spec.kind,
        n_unique=n_unique,
        unique_fraction=fraction,
        demographic_term=term,
        category=category,
        suggested=category.startswith("demographic"),
        reason=reason,
    )


def _with_fallback(details: list[QIColumn], n_fallback: int) -> tuple[list[QIColumn], str]:
    """Rule 4: the ``n_fallback`` included non-sensitive columns with the fewest distinct
    values suggested, and the note that says so."""
    pool = [d for d in details if d.category not in ("sensitive", "excluded")]
    # stable sort: ties keep table order, so the result is deterministic
    chosen = {d.name for d in sorted(pool, key=lambda d: d.n_unique)[:n_fallback]}
    note = (
        f"no column is named like a demographic attribute (age, sex, education, "
        f"region...), so the {len(chosen)} columns with the fewest distinct values "
        "were taken; check that an attacker could know them."
    )
    details = [
        replace(
            d,
            suggested=True,
            category="fallback",
            reason=f"Fallback: one of the {len(chosen)} columns with the fewest "
            f"distinct values ({d.n_unique}), since no column has a "
            "demographic name.",
        )
        if d.name in chosen
        else d
        for d in details
    ]
    return details, note


def _demographic_term(name: str) -> str:
    """The demographic word in a column name, or "" (whole words, any case or separator)."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", str(name))  # camelCase -> camel Case
    words = re.sub(r"[^0-9a-z]+", " ", words.lower())
    match = _DEMOGRAPHIC_RE.search(words)
    return match.group(1) if match else ""


def _judge(
    kind: str,
    integer: bool,
    n_unique: int,
    fraction: float,
    term: str,
    *,
    is_sensitive: bool,
    note: str,
    max_levels: int,
    max_integer_levels: int,
    id_fraction: float,
) -> tuple[str, str]:
    """The category and reason of one column (rules 1-3 of suggest_quasi_identifiers)."""
    if is_sensitive:
        return "sensitive", (
            "Sensitive: what the attacker wants to learn, so not part of what they know."
        )
    if kind not in ("numeric", "categorical", "boolean"):
        return "excluded", f"Excluded from the analysis ({note or kind})."
    numeric = kind == "numeric"
    limit = max_integer_levels if numeric else max_levels
    many = n_unique > limit
    values = f"{n_unique:,} distinct values"
    if term:
        if many or fraction >= id_fraction:
            return "demographic-high-cardinality", (
                f"Demographic ('{term}') and so knowable from outside, but its {values} make "
                "many records unique; consider coarsening it."
            )
        return "demographic", (
            f"Demographic ('{term}'), {values}: an attacker can know it "
            "from registers, census tables or social media."
        )
    if numeric and (many or not integer):
        # a measurement, however unique its values: income is not an identifier
        return "continuous", (
            f"A continuous measurement ({values}"
            + ("" if integer else ", not whole numbers")
            + "): an attacker rarely knows it exactly from outside"
            + (
                ", and with it almost every record is unique."
                if fraction >= id_fraction or many
                else "."
            )
        )
    if fraction >= id_fraction:
        return "id-like", (
            f"ID-like: {fraction:.0%} of its values are unique, which says "
            "nothing an attacker knows about a group of people."
        )
    if many:
        return "high-cardinality", (
            f"{values} — more than {max_levels} levels, rarely known exactly from outside."
        )
    return "not-demographic", (
        f"Coarse ({values}), but its name does not mark it as "
        "demographic or externally knowable; add it if an attacker "
        "could know it."
    )


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
