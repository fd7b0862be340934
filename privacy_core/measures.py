"""The registry of every measure: one place that knows their names, needs and cost.

Why one module: the registry is one table that the command line, the app, the risk lab and
the documentation all read (each measure's function, calibration contract, cost and cost
bound side by side); split, a measure would be described in several places.

The command line (``privacy``, ``fidelity``, ``sweep``), the app's pages and the risk lab
all look measures up here, so a measure added to the engine is added here once. Each entry
holds the measure's function itself, its label, goal, what it needs, its cost and how that
cost is bounded in rows and columns.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from .embedding import ContrastiveParams
from .errors import ParameterError
from .fidelity import DEFAULT_MAX_PAIRS, DEFAULT_MAX_ROWS, wasserstein_fidelity
from .results import MetricResult
from .risk.attackers import UNREGULARISED_XGB
from .risk.attacks import (
    distance_inference,
    linkability,
    ml_inference,
    singling_out,
    singling_out_outliers,
)
from .risk.attacks.predicates import DEFAULT_N_ATTACKS
from .risk.cap import CAP_PAIR_BUDGET, GTCAP_MAX_QUERIES, gtcap
from .risk.distance import dcr, dcr_knn, identical_match_share
from .risk.mds import DEFAULT_MAX_ROWS as MDS_MAX_ROWS
from .risk.mds import (
    DEFAULT_RECORDS,
    DEFAULT_SHADOW_MODELS,
    DEFAULT_SHADOW_SETS,
    membership_disclosure_score,
)
from .risk.mds import MAX_COLUMNS as MDS_MAX_COLUMNS
from .risk.membership import DEFAULT_BINS, domias, membership_disclosure
from .risk.neighbors import BUDGET_COLUMNS, MAX_QUERIES, MIN_QUERIES, PAIR_BUDGET
from .risk.rapid import rapid
from .risk.sdc import (
    DEFAULT_K,
    DEFAULT_L,
    N_BOOT,
    individual_risk_reproduced,
    k_anonymity,
    l_diversity,
    reproduced_uniques,
    sample_uniques,
)
from .utility import (
    DEFAULT_EVALUATORS,
    MLA_MAX_TRAIN,
    discriminator,
    ml_affinity,
    query_error,
)


@dataclass(frozen=True)
class MeasureGoal:
    """Which way a measure's headline improves, and the value that means "ideal"."""

    direction: Literal["lower", "higher", "target"]
    ideal: float


# a risk or a loss: 0 = no risk / no difference
LOWER = MeasureGoal("lower", 0.0)


@dataclass(frozen=True)
class MeasureSpec:
    """How to call one measure."""

    name: str
    label: str
    family: Literal["privacy", "fidelity"]
    function: Callable[..., MetricResult]
    needs_holdout: bool
    fast: bool
    needs_threat: bool = True
    uses_threat: bool = False  # takes an optional threat model (ML affinity: its target)
    description: str = ""
    uses_holdout: bool = True  # takes an optional holdout (as its control / reference)
    replicates_native: bool = False  # accepts a list of releases itself
    # a similarity indicator, not a disclosure measure (consensus R3)
    indicator: bool = False
    # Calibration contract (DESIGN.md): the variants a measure is checked in, a ceiling
    # promised on a full copy when the measure's definition caps it below 0.9, and the
    # reason a measure is not expected to read 0 on unseen real rows (absolute measures).
    modes: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = (("default", ()),)
    documented_ceiling: float | None = None
    calibration_note: str = ""
    absolute: bool = False
    # False for a measure known not to meet the contract on every data set; its
    # calibration_note says why, and the app shows it with an "uncalibrated" badge
    calibrated: bool = True
    # "generator": the measure scores the generating method through shadow models of its
    # own (MDS), not the release it is given; experiments drive those shadows instead
    evaluates: Literal["release", "generator"] = "release"
    # measures this one runs before when both are asked for: its neighbour search (with
    # more neighbours) then serves theirs from the search cache (risk.neighbors)
    before: tuple[str, ...] = ()
    # which way the headline improves (a result's ``goal`` says only "lower" or "higher":
    # the discriminator's AUC is best at 0.5 and worse on either side)
    goal: MeasureGoal = LOWER
    # the widest range the value can take; a result's own ``bounds`` lie inside it (DCR's
    # and F_rel's lower ends depend on the data)
    bounds: tuple[float, float] = (0.0, 1.0)
    # the keyword the measure's function takes the holdout by (RAPID: ``control``, its
    # non-members, consensus R7)
    holdout_keyword: str = "holdout"
    # Calibration contract: how far the normalised reading (v - floor) / (ceiling - floor)
    # may stray from the inserted risk f_l between the ends (a linear response keeps 0)
    response_band: float = 0.25
    # rough seconds on Adult (39,073 rows, 2 cores): the scheduler starts the longest first
    cost: float = 1.0
    # how the measure's cost is bounded in rows and in columns at its defaults (a seeded
    # sample with a wider interval, a cap, or, said plainly, no bound), one or two short
    # sentences shown on the documentation's measures page; the numbers come from the
    # engine's constants and defaults (tests/unit/test_measure_budgets.py)
    budget: str = ""

    def mode_options(self, mode: str) -> dict[str, Any]:
        """Keyword arguments of one calibration mode (``default`` for measures with one)."""
        for name, opts in self.modes:
            if name == mode:
                return dict(opts)
        raise ParameterError(
            f"{self.label} has no mode {mode!r}; choose from {', '.join(m for m, _ in self.modes)}."
        )

    def calibration_mode(self, params: dict[str, Any]) -> str:
        """The mode a result was computed in, read from its ``params`` (``default`` when
        no other mode's options all match)."""
        for name, opts in self.modes:
            if name != "default" and opts and all(params.get(k) == v for k, v in opts):
                return name
        return "default" if "default" in self.mode_names else self.modes[0][0]

    @property
    def varies_with_holdout(self) -> bool:
        """Whether the training:holdout ratio can move the reading (the calibration's
        ratio check): a measure that reads the holdout as its reference; an absolute
        measure (RAPID's headline) or one of the generator (MDS) does not."""
        return self.uses_holdout and not self.absolute and self.evaluates != "generator"

    @property
    def mode_names(self) -> tuple[str, ...]:
        return tuple(m for m, _ in self.modes)

    @property
    def target(self) -> str:
        """``module:function``, the function's import path (for messages and docs)."""
        module = self.function.__module__.removeprefix("privacy_core.")
        return f"{module}:{self.function.__name__}"


def _m(
    name: str,
    label: str,
    family: Literal["privacy", "fidelity"],
    function: Callable[..., MetricResult],
    *,
    holdout: bool,
    fast: bool,
    threat: bool = True,
    uses_threat: bool = False,
    description: str = "",
    uses_holdout: bool = True,
    native: bool = False,
    indicator: bool = False,
    modes: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = (("default", ()),),
    documented_ceiling: float | None = None,
    calibration_note: str = "",
    absolute: bool = False,
    calibrated: bool = True,
    evaluates: Literal["release", "generator"] = "release",
    before: tuple[str, ...] = (),
    goal: MeasureGoal = LOWER,
    bounds: tuple[float, float] = (0.0, 1.0),
    holdout_keyword: str = "holdout",
    response_band: float = 0.25,
    cost: float = 1.0,
    budget: str = "",
) -> MeasureSpec:
    return MeasureSpec(
        name,
        label,
        family,
        function,
        holdout,
        fast,
        threat,
        uses_threat,
        description,
        uses_holdout,
        native,
        indicator,
        modes,
        documented_ceiling,
        calibration_note,
        absolute,
        calibrated,
        evaluates,
        before,
        goal,
        bounds,
        holdout_keyword,
        response_band,
        cost,
        budget,
    )


# the distance measures run in the shared encoding (default) or the contrastive embedding
# (privacy_core.embedding), and are calibrated in both
_SPACES: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = (
    ("default", ()),
    ("contrastive", (("space", "contrastive"),)),
)

# Singling out responds convexly to the leak: a leaked record is singled out only when a
# predicate drawn from the release isolates it among the real rows, and the share of such
# predicates grows faster than the share of leaked rows. Measured on the health simulation
# and Adult (every other column known, 4,500 rows, seeds 201-203, levels 0-1 in quarters),
# the normalised reading strays from f_l by up to 0.29 (contrastive targets) and 0.22-0.27
# (outlier targets), against 0.00-0.17 for the other measures: its band is 0.35.
SINGLING_OUT_BAND = 0.35


def _default(function: Callable[..., Any], name: str) -> Any:
    """The default of one of ``function``'s keywords: a number a budget quotes where the
    engine has no constant for it, read from the signature so the text follows the code."""
    return inspect.signature(function).parameters[name].default


# Cost bounds (``MeasureSpec.budget``), read from the engine's constants and defaults.
# The nearest-neighbour measures sample their query side only (risk.neighbors.MAX_QUERIES
# says why): every sampled query is still searched against the whole reference table.
_QUERY_ROWS = (
    f"up to {MAX_QUERIES:,} query records per side (a seeded sample above; fewer, down to "
    f"{MIN_QUERIES:,}, so that queries × training rows stay near {PAIR_BUDGET:,})"
)
_TARGET_ROWS = (
    f"every training and control record up to {MAX_QUERIES:,} per side (a seeded sample "
    f"above; down to {MIN_QUERIES:,} against a very large release)"
)
_SDC_BUDGET = (
    f"Rows: every training and holdout row, hashed on its key and counted (O(n log n)), "
    f"plus {N_BOOT} bootstrap replicates of O(n) each. Columns: the quasi-identifiers (and "
    "the sensitive columns), hashed once: linear."
)

MEASURES: dict[str, MeasureSpec] = {
    m.name: m
    for m in [
        _m(
            "rapid",
            "RAPID attribute inference",
            "privacy",
            rapid,
            holdout=False,
            # with a holdout, the same attackers score non-members too: the relative
            # reading (members minus non-members, R7) that decides the verdict
            uses_holdout=True,
            holdout_keyword="control",
            native=True,
            absolute=True,
            calibrated=False,
            calibration_note="RAPID is an absolute risk (consensus R8): on unseen real rows it "
            "reads how well the population's own patterns reveal the secret, "
            "not 0. Read it against the HALF reference (a fresh real sample); "
            "the relative reading is the members-minus-non-members difference.",
            fast=False,
            cost=11,
            description="Share of real records whose secret an attacker trained on the "
            "release predicts confidently beyond the base rate.",
            budget=f"Rows: each attacker ({_default(rapid, 'n_trees')}-tree random forest, "
            "xgboost, L1 logit / lasso) trains on every synthetic row and scores every real "
            "and control record: no row cap. Columns: the quasi-identifiers (one-hot); no "
            "cap, the fits grow with their encoded width.",
        ),
        _m(
            "ims",
            "Identical match share",
            "privacy",
            identical_match_share,
            holdout=False,
            fast=True,
            cost=0.3,
            indicator=True,
            description="Share of synthetic rows that copy a real row.",
            budget="Rows: every row, by a hash join (hashing and a sorted search, "
            "O((n + m) log n)): no cap needed. Columns: every included column, hashed once: "
            "linear.",
        ),
        _m(
            "dcr",
            "DCR (SRD vs RRD)",
            "privacy",
            dcr,
            bounds=(-math.inf, 1.0),
            holdout=False,
            fast=True,
            cost=0.6,
            indicator=True,
            modes=_SPACES,
            description=(
                "Are synthetic rows closer to training rows than real rows are to each other?"
            ),
            budget=f"Rows: {_QUERY_ROWS}, each searched exactly against every training "
            f"row. Columns: every encoded column; beyond {BUDGET_COLUMNS} the pair budget "
            "shrinks in proportion.",
        ),
        _m(
            "knn",
            "DCR k-NN variants",
            "privacy",
            dcr_knn,
            bounds=(-math.inf, 1.0),
            holdout=False,
            fast=False,
            cost=4,
            indicator=True,
            modes=_SPACES,
            before=("dcr",),
            description="DCR with the distance to the k nearest training rows, k = 1..K.",
            budget=f"Rows: as DCR, {_QUERY_ROWS}, each against every training row, in one "
            f"search of the {_default(dcr_knn, 'k_max')} nearest that DCR reuses. Columns: "
            "every encoded column, as DCR.",
        ),
        _m(
            "singling_out",
            "Singling out",
            "privacy",
            singling_out,
            holdout=False,
            fast=True,
            cost=3,
            response_band=SINGLING_OUT_BAND,
            modes=(
                ("univariate", (("mode", "univariate"), ("space", "shared"))),
                ("multivariate", (("mode", "multivariate"), ("space", "shared"))),
                # the papers' protocol: max over univariate and 3-12 columns
                ("paper", (("mode", "paper"), ("n_attacks", 2000), ("space", "shared"))),
                # "SO + CL": targets found in the contrastive embedding
                ("contrastive", (("mode", "multivariate"), ("space", "contrastive"))),
            ),
            description="Predicates from the release that isolate exactly one real person.",
            budget=f"Rows: {DEFAULT_N_ATTACKS} predicates (at most "
            f"{_default(singling_out, 'max_attempts'):,} draws), each counted on every "
            "training and control row: O(predicates × n). Columns: "
            f"{_default(singling_out, 'n_cols')} per predicate; every column is rank-coded "
            "once and each draw shuffles the column list: linear.",
        ),
        _m(
            "singling_out_outliers",
            "Singling out (outlier targets)",
            "privacy",
            singling_out_outliers,
            holdout=False,
            fast=False,
            cost=30,
            response_band=SINGLING_OUT_BAND,
            # calibrated as the paper defines it, targets found in the contrastive embedding;
            # space="shared" is an option (unseen rows read 0.00-0.09 over four seeds, 7 of 8
            # intervals reaching 0), not a calibrated mode
            description="Predicates around the release's most isolated records (found in the "
            "contrastive embedding: categories and value bins) that single out one "
            "real person.",
            budget=f"Rows: the encoder trains on at most {ContrastiveParams.max_rows:,} "
            f"rows ({ContrastiveParams.max_steps:,} steps); up to {MAX_QUERIES:,} synthetic "
            f"rows are ranked against the whole release; "
            f"{_default(singling_out_outliers, 'n_attacks'):,} predicates are counted on "
            "every real row. Columns: no cap: predicates widen from "
            f"{_default(singling_out_outliers, 'n_cols')} columns up to every column and "
            "hold two conditions per column of the table.",
        ),
        _m(
            "linkability",
            "Linkability",
            "privacy",
            linkability,
            holdout=False,
            fast=True,
            cost=5,
            modes=_SPACES,
            description="Can two halves of a person's record be linked through the release?",
            budget=f"Rows: {_TARGET_ROWS}, each searched against every synthetic row "
            "on each half. Columns: the quasi-identifiers, split in two by a greedy search "
            "linear in their number (2,000 in about a second); no cap.",
        ),
        _m(
            "reproduced_uniques",
            "Reproduced rare combinations",
            "privacy",
            reproduced_uniques,
            holdout=False,
            fast=True,
            cost=0.5,
            modes=(("default", ()), ("with_sensitive", (("with_sensitive", True),))),
            description="sdcMicro's rare key combinations (fewer than k records on the "
            "QIs) of the real table that the release reproduces, members against "
            "non-members (in the with-sensitive mode: with the sensitive value too).",
            budget=_SDC_BUDGET,
        ),
        _m(
            "individual_risk",
            "Individual risk reproduced",
            "privacy",
            individual_risk_reproduced,
            holdout=False,
            fast=True,
            cost=0.5,
            description="sdcMicro's individual re-identification risk of the real records "
            "(sampling weights optional), the share of it the release reproduces beyond a "
            "fresh real sample.",
            budget=_SDC_BUDGET,
        ),
        _m(
            "sample_uniques",
            "Sample uniques reproduced",
            "privacy",
            sample_uniques,
            holdout=False,
            fast=True,
            cost=0.5,
            description="sdcMicro's sample uniques (a key combination of the QIs that one "
            "real record holds) whose key the release reproduces, members against "
            "non-members.",
            budget=_SDC_BUDGET,
        ),
        _m(
            "k_anonymity",
            "k-anonymity violations singled out",
            "privacy",
            k_anonymity,
            holdout=False,
            fast=True,
            cost=0.5,
            description=f"Real records violating k-anonymity (fewer than k = {DEFAULT_K} "
            "records on the QIs) whose key the release holds on fewer than k records of its "
            "own, singling them out, members against non-members.",
            budget=_SDC_BUDGET,
        ),
        _m(
            "l_diversity",
            "Sensitive values pinned (l-diversity)",
            "privacy",
            l_diversity,
            holdout=False,
            fast=True,
            cost=0.5,
            description=f"Real records whose key group is not l-diverse (fewer than l = "
            f"{DEFAULT_L} distinct sensitive values) and whose value the release's group "
            "with that key pins down, members against non-members.",
            budget=_SDC_BUDGET,
        ),
        _m(
            "inference",
            "Distance-based inference",
            "privacy",
            distance_inference,
            holdout=False,
            fast=True,
            cost=10,
            modes=_SPACES,
            description="The closest synthetic row's secret as a guess.",
            budget=f"Rows: {_TARGET_ROWS}, each searched against every synthetic row "
            "(exact, in blocks). Columns: the known columns (quasi-identifiers), summed "
            "column by column: linear; no cap.",
        ),
        _m(
            "ml_inference",
            "ML inference",
            "privacy",
            ml_inference,
            holdout=True,
            fast=True,
            cost=1.5,
            description="xgboost trained on the release: members vs non-members.",
            budget=f"Rows: xgboost ({UNREGULARISED_XGB['n_estimators']} rounds, depth "
            f"{UNREGULARISED_XGB['max_depth']}) trains on every synthetic row and predicts "
            "every training and holdout record: no row cap (a review samples 500 targets "
            "above 50,000 rows). Columns: the quasi-identifiers (one-hot); no cap.",
        ),
        _m(
            "gtcap",
            "GTCAP",
            "privacy",
            gtcap,
            holdout=True,
            fast=False,
            cost=4,
            calibrated=False,
            calibration_note="GTCAP rests on few attributions: only synthetic records whose "
            "match class is homogeneous in the sensitive value count, so its interval on "
            "unseen real rows is wide and its estimate moves with the table. Under the "
            "calibration gate (floor estimate at most 0.05 and upper bound at most 0.15) it "
            "is not calibrated: on the health simulation (every other column known) its "
            "floor read 0.00-0.03 with upper bounds 0.18-0.32 at 4,500 rows and 0.09-0.19 "
            "with upper bounds 0.35-0.52 at 12,000; on Adult 0.04-0.15 with upper bounds "
            "0.36-0.41. It reads 1 on a full copy. Read it against the calibration curve of "
            "your data, never against 0 and 1.",
            # box matching, attributions pooled over records (default) or the per-record TCAP
            # mean of eq. 7: both read 1 on a full copy; their floor is too wide to decide
            modes=(
                ("default", (("weighting", "box_pooled"),)),
                ("per_record", (("weighting", "box_per_record"),)),
            ),
            description="Correct attribution from target-homogeneous synthetic key groups.",
            budget=f"Rows: up to {GTCAP_MAX_QUERIES:,} distinct synthetic records (a seeded "
            "sample above; the interval resamples them), each against every training, "
            "holdout and synthetic record of its key class: k-d trees, or "
            f"{CAP_PAIR_BUDGET:,} entries at a time in small classes. Columns: the "
            "quasi-identifiers and the target: linear.",
        ),
        _m(
            "domias",
            "DOMIAS",
            "privacy",
            domias,
            bounds=(-1.0, 1.0),
            holdout=True,
            fast=False,
            cost=2,
            calibrated=False,
            calibration_note="DOMIAS is capped by its density estimator: a Gaussian KDE with "
            "Scott's bandwidth averages each density over a wide neighbourhood, "
            "so a copied record raises the release's density at itself by a "
            "bounded factor and even a full copy reads far below 1, less the "
            "larger the table and the smaller the holdout (0.24 on a copy of "
            "2,000 health records, 0.07-0.17 on 6,666; the risk-insertion paper "
            "reports 0.03-0.54, Table 2). A smaller `bandwidth` raises the "
            "ceiling (0.45 at 0.25) without raising the floor. Read it against "
            "the calibration curve of your data, not against 0 and 1.",
            description="Density-ratio membership inference (AUC, normalised).",
            budget=f"Rows: at most {_default(domias, 'max_rows'):,} per set (release, "
            "reference, members, non-members; seeded), KDE O(test × fitted); the "
            "projection's SVD reads every training row. Columns: the threat model's, "
            "encoded; the SVD grows with the square of the encoded width; no cap.",
        ),
        _m(
            "membership",
            "Membership disclosure (F_rel)",
            "privacy",
            membership_disclosure,
            bounds=(-math.inf, 1.0),
            holdout=True,
            fast=True,
            cost=0.4,
            calibrated=False,
            calibration_note="F_rel is relative to the naive attacker who calls everyone a "
            "member (consensus R5), not to an uninformative release: when the "
            "release tells nothing, matching finds fewer members than the naive "
            "guess and F_rel reads below 0, further below as the member "
            "prevalence t grows (it moves with the training:holdout ratio when "
            "t is not given). A full copy is capped by how many non-members "
            "share a member's binned quasi-identifiers. Read it against the "
            "calibration curve of your data, not against 0 and 1.",
            description="Partition attack by matching, F1 relative to a naive guesser.",
            budget="Rows: every training and holdout record's nearest distinct release "
            "row, by exact search (O((n + h) × m)): no cap. Columns: the quasi-identifiers, "
            f"numerics in {DEFAULT_BINS} bins, one-hot: linear.",
        ),
        _m(
            "mds",
            "Membership disclosure score (MDS)",
            "privacy",
            membership_disclosure_score,
            bounds=(-1.0, math.inf),
            holdout=True,
            fast=False,
            cost=25,
            threat=False,
            native=True,
            evaluates="generator",
            description="Shadow generators trained with and without each record: how far its "
            "presence moves what the method emits near it, from HALF (emits unseen "
            "records, 0) to SELF (copies its training data, 1).",
            budget=f"Rows: at most {MDS_MAX_ROWS:,} distinct real records (seeded); "
            f"{DEFAULT_SHADOW_MODELS} CART shadows on halves, {DEFAULT_SHADOW_SETS} tables "
            f"each, {DEFAULT_RECORDS:,} records searched in each. Columns: at most "
            f"{MDS_MAX_COLUMNS} (a seeded sample above, with a warning); a shadow fits a "
            "tree per column on the ones before it.",
        ),
        _m(
            "wasserstein",
            "Wasserstein distance",
            "fidelity",
            wasserstein_fidelity,
            bounds=(0.0, 2.0),
            holdout=False,
            fast=False,
            cost=6,
            threat=False,
            uses_holdout=False,
            native=True,
            budget="Rows: every row for the 1-way and categorical marginals (closed "
            f"forms); a seeded subsample of {DEFAULT_MAX_ROWS:,} rows per table for the "
            "transport problems. Columns: every column's 1-way marginal; at most "
            f"{DEFAULT_MAX_PAIRS:,} column pairs (seeded sample; the interval includes it).",
        ),
        # ML affinity predicts the threat model's target, or the one its options name
        _m(
            "mla",
            "ML affinity (relative gap)",
            "fidelity",
            ml_affinity,
            bounds=(0.0, math.inf),
            holdout=True,
            fast=False,
            cost=8,
            threat=False,
            uses_threat=True,
            native=True,
            budget=f"Rows: each model trains on at most {MLA_MAX_TRAIN:,} real rows "
            "(seeded) and as many synthetic ones; every holdout row is scored. Columns: "
            f"every other included column (one-hot) for {len(DEFAULT_EVALUATORS)} "
            "evaluators; no cap.",
        ),
        _m(
            "query_error",
            "Query error",
            "fidelity",
            query_error,
            holdout=False,
            fast=True,
            cost=3,
            threat=False,
            uses_holdout=False,
            native=True,
            budget=f"Rows: every row; {_default(query_error, 'n_queries'):,} queries "
            f"for each k in {', '.join(map(str, _default(query_error, 'ways')))}, each "
            "answered on every row (O(queries × n × k)). Columns: k per query; every column "
            "is coded once: linear.",
        ),
        _m(
            "discriminator",
            "Discriminator AUC",
            "fidelity",
            discriminator,
            goal=MeasureGoal("target", 0.5),
            holdout=False,
            fast=True,
            cost=10,
            threat=False,
            uses_holdout=False,
            native=True,
            budget=f"Rows: at most {_default(discriminator, 'max_rows'):,} records per "
            f"class (seeded, balanced); xgboost, {_default(discriminator, 'n_estimators')} "
            "rounds. Columns: every included column (one-hot, plus missing-value "
            "indicators); no cap.",
        ),
    ]
}


# The quick measures a review starts with: the Overview fills its cards with them on
# first load and ``review`` runs them (with RAPID) by default; the slow ones (GTCAP,
# DOMIAS, MDS, ML affinity, Wasserstein) are asked for by name. Of sdcMicro's classics,
# reproduced_uniques stands for the rest: sample_uniques is it at k = 2 and k_anonymity
# counts a subset of its hits, so they would repeat its evidence in the verdict;
# individual_risk and l_diversity are fast but asked for by name too (the Privacy page
# shows all five).
QUICK_REVIEW = (
    "singling_out",
    "reproduced_uniques",
    "linkability",
    "inference",
    "membership",
    "dcr",
    "ims",
    "query_error",
    "discriminator",
)


def get_measure(name: str) -> MeasureSpec:
    try:
        return MEASURES[name]
    except KeyError:
        raise ParameterError(
            f"Unknown measure {name!r}; choose from {', '.join(MEASURES)}."
        ) from None


def measure_goal(name: str) -> MeasureGoal:
    """The goal of a registered measure, for axes, arrows and readings (read-only)."""
    get_measure(name)  # a specific error for an unknown name
    return get_measure(name).goal


def goal_phrase(name: str) -> str:
    """How to read a registered measure's value, in words: "lower is better", or, for a
    measure with a target, the target (the discriminator's AUC is best at 0.5, not low)."""
    goal = measure_goal(name)
    if goal.direction == "target":
        return f"{goal.ideal:g} is best (indistinguishable)"
    return f"{goal.direction} is better"


def measure_names(family: str | None = None, *, fast_only: bool = False) -> list[str]:
    return [
        m.name
        for m in MEASURES.values()
        if (family is None or m.family == family) and (m.fast or not fast_only)
    ]


# ----------------------------------------------------------------- display vocabulary
# What a reader compares: the risk lab draws one panel per group, so a measure's
# neighbours are the measures that attack the same thing. Every registered measure is in
# exactly one group; the utility group holds the fidelity family (never a risk axis).
MEASURE_GROUPS: dict[str, tuple[str, ...]] = {
    "Attribute inference": ("rapid", "inference", "ml_inference", "gtcap"),
    "Identity & singling out": (
        "singling_out",
        "singling_out_outliers",
        "reproduced_uniques",
        "individual_risk",
        "sample_uniques",
        "k_anonymity",
        "l_diversity",
    ),
    "Linkability": ("linkability",),
    "Membership": ("domias", "membership", "mds"),
    "Similarity indicators": ("ims", "dcr", "knn"),
    "Utility & fidelity": ("wasserstein", "mla", "query_error", "discriminator"),
}
# Row variants a sweep adds to a measure's key (``inference@canary``): the attack's
# success on the records whose secret was randomised, and on the other training records.
# They are success rates against chance, not the measure's relative risk, so they form a
# group of their own rather than joining their measure's.
VARIANT_LABELS = {"canary": "canary records", "training": "other training records"}
VARIANT_GROUP = "Canary check (attack success)"


def split_measure_key(key: str) -> tuple[str, str, str]:
    """``(measure, mode, variant)`` of a key such as ``singling_out:univariate`` (a
    calibration mode) or ``inference@canary`` (a sweep's row variant); '' when absent."""
    base, _, variant = str(key).partition("@")
    name, _, mode = base.partition(":")
    return name, "" if mode == "default" else mode, variant


def measure_label(key: str) -> str:
    """The one display label of a measure key, for legends, tables and axis titles alike:
    the registry label, then its calibration mode and row variant in brackets (an
    unknown name is shown as it is)."""
    name, mode, variant = split_measure_key(key)
    label = MEASURES[name].label if name in MEASURES else name
    extras = [mode] if mode else []
    if variant:
        extras.append(VARIANT_LABELS.get(variant, variant))
    return f"{label} ({', '.join(extras)})" if extras else label


def measure_group(key: str) -> str:
    """The :data:`MEASURE_GROUPS` group of a measure key; :data:`VARIANT_GROUP` for a
    sweep's row variant (``inference@canary``)."""
    name, _, variant = split_measure_key(key)
    if variant:
        get_measure(name)
        return VARIANT_GROUP
    for group, names in MEASURE_GROUPS.items():
        if name in names:
            return group
    spec = get_measure(name)  # a specific error for an unknown name
    return "Utility & fidelity" if spec.family == "fidelity" else "Other measures"
