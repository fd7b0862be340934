"""Guided teaching scenarios: small, seeded experiments that each show one idea.

Why one module: each teaching scenario is a small function over the same simulation and
result type; the Learn page lists them from one place.

A lecturer runs them live on the Learn page; each is a pure function of keyword-only
options and a ``seed`` that returns a frozen result with values, intervals and the
parameters used. They make their own simulated data (the RAPID paper's health microdata,
:func:`~privacy_core.datasets.simulate_health`) and never touch a user's tables.

* :func:`dependency_scenario` — "the dependency knob": RAPID on a CART release of
  populations simulated at several dependency strengths kappa (RAPID paper, Fig. 5a).
* :func:`leaky_scenario` — "the leaky release": the leaky risk model of
  :func:`~privacy_core.experiments.sweep` at a few leak fractions f_l, and which measures
  respond (risk-insertion framework, §5.1.1).
* :func:`similarity_scenario` — "similarity is not disclosure": a release with no copies
  but strong population patterns next to one that copies a few rare records (consensus
  R3, R7).
* :func:`privacy_price_scenario` — "the price of privacy": the DP risk model of
  :func:`~privacy_core.experiments.sweep`, risk and fidelity against the budget epsilon.

The statistics are the engine's own (``rapid``, the registered measures, the sweeps);
this module only composes them at workshop sizes (under a minute on two cores at the
defaults) and reads the results out for the figures in
:mod:`privacy_core.plots.scenarios`.

The threat model is the RAPID paper's simulation set-up (:func:`~privacy_core.risk.rapid.
rapid_paper_preset`): every non-sensitive attribute is a quasi-identifier and disease the
sensitive attribute.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .data import Schema, infer_schema, prepare_table
from .datasets import simulate_health
from .errors import ParameterError
from .evaluation import evaluate_measures
from .experiments import SweepResult, remove_outliers, sweep
from .measures import get_measure
from .progress import ProgressFn
from .results import MetricResult
from .risk.rapid import rapid, rapid_paper_preset
from .stats import child_seeds
from .synth import synthesize
from .threat import ThreatModel
from .validation import check_in_range, check_positive_int, check_seed

SCENARIOS = ("dependency", "leaky", "similarity", "privacy_price")

# The attacker at workshop size: one random forest of 100 trees (the paper's suite has
# three of 500; Table 1 shows they agree within 0.012) and a 100-draw bootstrap.
TEACHING_RAPID: dict[str, Any] = {"attackers": ("rf",), "n_trees": 100, "bootstrap": 100}
TAU_GRID = tuple(round(t, 2) for t in np.arange(0.05, 0.951, 0.05))
AGE_BANDS = ((18, 34), (35, 49), (50, 64), (65, 85))

DEPENDENCY_DEFAULTS: dict[str, Any] = {
    "kappas": (0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 7.5, 10.0),
    "n": 1000,
    "releases": 2,
    "min_leaf": 5,
    "tau": 0.3,
    "seed": 0,
}
LEAKY_DEFAULTS: dict[str, Any] = {
    "levels": (0.0, 0.25, 0.5, 0.75, 1.0),
    "n": 1500,
    "kappa": 1.0,
    "measures": (
        "ims",
        "dcr",
        "singling_out",
        "inference",
        "rapid",
        "query_error",
        "discriminator",
    ),
    "seed": 0,
}
SIMILARITY_DEFAULTS: dict[str, Any] = {
    "n": 1000,
    "patterns_kappa": 10.0,
    "min_leaf": 50,
    "copies_kappa": 0.0,
    "copies": 50,
    "seed": 0,
}
# 4,000 records (2,000 in training): the DP noise is small next to the counts at large
# budgets, so one release per epsilon already gives a readable curve, in a few seconds.
PRIVACY_PRICE_DEFAULTS: dict[str, Any] = {
    "levels": (0.1, 0.5, 1.0, 5.0, 20.0, 100.0),
    "n": 4000,
    "kappa": 5.0,
    "measures": ("rapid", "inference", "dcr", "query_error", "discriminator"),
    "seed": 0,
}
SIMILARITY_MEASURES = ("ims", "dcr", "rapid")
RELEASE_LABELS = {
    "patterns": "A: no copies, strong patterns",
    "copies": "B: copies of rare records, weak patterns",
}


def teaching_threat() -> ThreatModel:
    """The RAPID paper's simulation threat model: every other column a quasi-identifier,
    disease the sensitive attribute."""
    preset = rapid_paper_preset()
    return ThreatModel(list(preset["quasi_identifiers"]), [preset["sensitive"]])


def _child_seeds(seed: int, k: int) -> list[int]:
    """``k`` independent seeds below 2**31 - 1 (what every generator accepts)."""
    return [s % (2**31 - 1) for s in child_seeds(seed, k)]


def _report(progress: ProgressFn | None, fraction: float, message: str) -> None:
    if progress is not None:
        progress(min(max(fraction, 0.0), 1.0), message)


def _schema(frame: pd.DataFrame) -> Schema:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return infer_schema(frame)


def _check_n(n: Any, minimum: int) -> int:
    return check_positive_int("n", n, minimum=minimum)


# ====================================================================== (a) dependency
@dataclass(frozen=True)
class DependencyPopulation:
    """How strongly disease depends on age in one simulated population.

    ``shares``: one row per (age band, disease) with the share of the band's records
    that have that disease (each band's shares sum to 1).
    """

    kappa: float
    shares: pd.DataFrame
    params: dict[str, Any]
    seed: int


def dependency_population(
    *, kappa: float, n: int = DEPENDENCY_DEFAULTS["n"], seed: int = 0
) -> DependencyPopulation:
    """The disease shares by age band of the population :func:`dependency_scenario`
    simulates at ``kappa`` (same n and seed: the same records).

    Notes
    -----
    ``rapid-attribute-inference.md`` Appendix A: disease logits scale linearly with
    kappa, older age raising the risk of both diseases.
    """
    kappa = check_in_range("kappa", kappa, 0, 100)
    n = _check_n(n, 10)
    seed = check_seed(seed)
    real = simulate_health(n, kappa=kappa, seed=_child_seeds(seed, 1)[0])
    labels = [f"{lo}–{hi}" for lo, hi in AGE_BANDS]
    edges = [AGE_BANDS[0][0] - 1] + [hi for _, hi in AGE_BANDS]
    band = pd.cut(real["age"], bins=edges, labels=labels)
    shares = (
        pd.crosstab(band, real["disease"], normalize="index")
        .reindex(index=labels)
        .fillna(0.0)
        .rename_axis(index="age_band", columns="disease")
        .stack()
        .rename("share")
        .reset_index()
    )
    return DependencyPopulation(
        kappa=kappa, shares=shares, params={"n": n, "kappa": kappa}, seed=seed
    )


@dataclass(frozen=True)
class DependencyScenario:
    """RAPID against the dependency strength kappa.

    Attributes
    ----------
    points
        One row per kappa: ``kappa``, ``rapid`` (at ``tau``), ``ci_low``, ``ci_high``
        (percentile bootstrap over the real records) and the attacker's ``accuracy`` on
        the real records.
    curves
        One row per (kappa, threshold): ``rate``, ``lower``, ``upper`` — RAPID at every
        tau of :data:`TAU_GRID` (the same fitted attackers, no refit).
    """

    points: pd.DataFrame
    curves: pd.DataFrame
    tau: float
    params: dict[str, Any]
    seed: int
    seconds: float = 0.0

    def at(self, kappa: float, tau: float | None = None) -> dict[str, float]:
        """RAPID (and interval) at one computed kappa and a tau of :data:`TAU_GRID`."""
        tau = self.tau if tau is None else float(tau)
        part = self.curves[
            np.isclose(self.curves["kappa"], float(kappa))
            & np.isclose(self.curves["threshold"], tau)
        ]
        if part.empty:
            raise ParameterError(
                f"No RAPID at kappa={kappa:g}, tau={tau:g}: computed kappas are "
                f"{sorted(self.points['kappa'].tolist())}, thresholds {list(TAU_GRID)}."
            )
        row = part.iloc[0]
        acc = self.points.loc[np.isclose(self.points["kappa"], float(kappa)), "accuracy"]
        return {
            "kappa": float(kappa),
            "tau": tau,
            "rapid": float(row["rate"]),
            "ci_low": float(row["lower"]),
            "ci_high": float(row["upper"]),
            "accuracy": float(acc.iloc[0]),
        }


def dependency_scenario(
    *,
    kappas: Sequence[float] = DEPENDENCY_DEFAULTS["kappas"],
    n: int = DEPENDENCY_DEFAULTS["n"],
    releases: int = DEPENDENCY_DEFAULTS["releases"],
    min_leaf: int = DEPENDENCY_DEFAULTS["min_leaf"],
    tau: float = DEPENDENCY_DEFAULTS["tau"],
    n_trees: int = TEACHING_RAPID["n_trees"],
    bootstrap: int = TEACHING_RAPID["bootstrap"],
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> DependencyScenario:
    """The dependency knob: RAPID on CART releases of populations at each kappa.

    At every kappa the same seeds are used (common random numbers: kappa is the only
    thing that changes). Each population of ``n`` records gets ``releases`` CART
    releases of its size (averaged by :func:`~privacy_core.risk.rapid.rapid`, consensus
    R10); the attacker is a random forest.

    Notes
    -----
    ``rapid-attribute-inference.md`` §5.3 and Fig. 5a (kappa from 0 to 100, RAPID rising
    from 0.25 to 0.97 in an S shape), Fig. 5b (RAPID against tau).
    """
    try:
        levels = sorted({check_in_range("kappa", k, 0, 100) for k in kappas})
    except TypeError:
        raise ParameterError(f"`kappas` must be a list of numbers; got {kappas!r}.") from None
    if not levels:
        raise ParameterError("`kappas` must hold at least one value.")
    n = _check_n(n, 50)
    releases = check_positive_int("releases", releases)
    min_leaf = check_positive_int("min_leaf", min_leaf)
    tau = check_in_range("tau", tau, 0.05, 0.95)
    if not np.isclose(TAU_GRID, tau).any():
        raise ParameterError(f"`tau` must be one of {list(TAU_GRID)}; got {tau!r}.")
    seed = check_seed(seed)
    population_seed, attack_seed, *release_seeds = _child_seeds(seed, 2 + releases)
    threat = teaching_threat()
    started = time.perf_counter()
    points, curves = [], []
    for i, kappa in enumerate(levels):
        _report(progress, i / len(levels), f"κ = {kappa:g}: simulate, release, attack")
        real = simulate_health(n, kappa=kappa, seed=population_seed)
        schema = _schema(real)
        canonical = prepare_table(real, schema)
        synthetic = [
            synthesize(canonical, method="cart", n=n, seed=s, min_leaf=min_leaf)
            for s in release_seeds
        ]
        res = rapid(
            real,
            synthetic if releases > 1 else synthetic[0],
            threat=threat,
            schema=schema,
            attackers=TEACHING_RAPID["attackers"],
            tau=tau,
            n_trees=n_trees,
            bootstrap=bootstrap,
            seed=attack_seed,
        )
        lo, hi = res.ci if res.ci is not None else (np.nan, np.nan)
        points.append(
            {
                "kappa": kappa,
                "rapid": float(res.value),
                "ci_low": float(lo),
                "ci_high": float(hi),
                "accuracy": float(np.mean(list(res.accuracy().values()))),
            }
        )
        curve = res.curve(list(TAU_GRID))
        curve = curve[curve["series"] == "mean"][["threshold", "rate", "lower", "upper"]]
        curves.append(curve.assign(kappa=kappa))
    _report(progress, 1.0, "done")
    params = {
        "kappas": levels,
        "n": n,
        "releases": releases,
        "generator": "cart",
        "min_leaf": min_leaf,
        "tau": tau,
        "n_trees": n_trees,
        "bootstrap": bootstrap,
        "attackers": list(TEACHING_RAPID["attackers"]),
        "quasi_identifiers": list(threat.quasi_identifiers),
        "sensitive": list(threat.sensitive),
    }
    return DependencyScenario(
        points=pd.DataFrame(points),
        curves=pd.concat(curves, ignore_index=True)[
            ["kappa", "threshold", "rate", "lower", "upper"]
        ],
        tau=tau,
        params=params,
        seed=seed,
        seconds=time.perf_counter() - started,
    )


# ======================================================================== (b) leaky
def _check_measures(measures: Sequence[str]) -> tuple[str, ...]:
    names = tuple(measures)
    if not names:
        raise ParameterError("Choose at least one measure.")
    for m in names:
        get_measure(m)
    return names


@dataclass(frozen=True)
class _SweepScenario:
    """A risk model's sweep read one level at a time (scenarios b and d)."""

    sweep: SweepResult
    params: dict[str, Any]
    seed: int

    @property
    def levels(self) -> tuple[float, ...]:
        return self.sweep.levels

    def at(self, level: float) -> pd.DataFrame:
        """Each measure at one level: ``measure``, ``value``, ``ci_low``, ``ci_high`` (the
        measure's own interval, one release per level)."""
        return _level_rows(self.sweep, level)


@dataclass(frozen=True)
class LeakyScenario(_SweepScenario):
    """The leaky risk model's sweep (levels: leak fractions f_l) and how each measure
    responded to it."""

    def responses(self, *, min_rise: float = 0.2) -> pd.DataFrame:
        """Which measures see the leak: one row per measure with ``at_lowest`` and
        ``at_highest`` (f_l = 0 and 1), ``rise`` (their difference) and ``sees_leak``
        (rise at least ``min_rise``), from :meth:`SweepResult.responses`."""
        min_rise = check_in_range("min_rise", min_rise, 0, 1)
        resp = self.sweep.responses()[["measure", "at_lowest", "at_highest"]].copy()
        resp["rise"] = resp["at_highest"] - resp["at_lowest"]
        resp["sees_leak"] = resp["rise"] >= min_rise
        return resp.reset_index(drop=True)


def _level_rows(result: SweepResult, level: float) -> pd.DataFrame:
    summary = result.summary()
    part = summary[np.isclose(summary["level"], float(level))]
    if part.empty:
        raise ParameterError(
            f"No release at {result.level_name} = {level:g}; the levels are {list(result.levels)}."
        )
    order = {m: i for i, m in enumerate(result.measures)}
    part = part.sort_values("measure", key=lambda s: s.map(order))
    return part.rename(columns={"mean": "value"})[
        ["measure", "value", "ci_low", "ci_high"]
    ].reset_index(drop=True)


def leaky_scenario(
    *,
    levels: Sequence[float] = LEAKY_DEFAULTS["levels"],
    n: int = LEAKY_DEFAULTS["n"],
    kappa: float = LEAKY_DEFAULTS["kappa"],
    measures: Sequence[str] = LEAKY_DEFAULTS["measures"],
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> LeakyScenario:
    """The leaky release: copy a share f_l of the training records into a release of
    otherwise unseen real records, and evaluate every measure at each f_l.

    A population of ``n`` records (at ``kappa``) is split in thirds — training, control
    and the pool of unseen records the release is filled with — by
    :func:`~privacy_core.experiments.sweep` (``risk_model="leaky"``, one replicate,
    in-process). A measure that tracks the leak reads about f_l.

    Notes
    -----
    ``risk-insertion-framework.md`` §5.1.1 (leaky risk model), §6.2 and Table 2.
    """
    measures = _check_measures(measures)
    n = _check_n(n, 60)
    kappa = check_in_range("kappa", kappa, 0, 100)
    seed = check_seed(seed)
    population_seed, sweep_seed = _child_seeds(seed, 2)
    real = simulate_health(n, kappa=kappa, seed=population_seed)
    result = sweep(
        real,
        risk_model="leaky",
        levels=levels,
        measures=measures,
        replicates=1,
        threat=teaching_threat(),
        schema=_schema(real),
        seed=sweep_seed,
        options={"rapid": dict(TEACHING_RAPID)},
        n_jobs=1,
        progress=progress,
    )
    return LeakyScenario(
        sweep=result,
        params={"levels": list(result.levels), "n": n, "kappa": kappa, "measures": list(measures)},
        seed=seed,
    )


# =================================================================== (c) similarity
@dataclass(frozen=True)
class SimilarityScenario:
    """Two releases side by side, read by similarity measures and by RAPID.

    Attributes
    ----------
    table
        One row per (release, measure): ``value``, ``ci_low``, ``ci_high``; releases
        ``patterns`` (A) and ``copies`` (B), measures of :data:`SIMILARITY_MEASURES`.
    members
        One row per release: RAPID on the training records (``members``), on fresh records
        of the same population the release never saw (``non_members``) and the
        ``difference`` with its interval (consensus R7).
    copied
        The rare training records that release B copies (simulated people).
    """

    table: pd.DataFrame
    members: pd.DataFrame
    copied: pd.DataFrame
    params: dict[str, Any]
    seed: int
    seconds: float = 0.0

    def value(self, release: str, measure: str) -> float:
        row = self.table[(self.table["release"] == release) & (self.table["measure"] == measure)]
        if row.empty:
            raise ParameterError(
                f"No {measure!r} for release {release!r}; releases are "
                f"{list(RELEASE_LABELS)}, measures {list(SIMILARITY_MEASURES)}."
            )
        return float(row["value"].iloc[0])


def _ci(result: MetricResult) -> tuple[float, float]:
    return (float(result.ci[0]), float(result.ci[1])) if result.ci is not None else (np.nan, np.nan)


def _evaluate_release(
    name: str,
    real: pd.DataFrame,
    release: pd.DataFrame,
    holdout: pd.DataFrame,
    *,
    schema: Schema,
    threat: ThreatModel,
    seed: int,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    rows = []
    # the holdout gives DCR its real-to-real reference distances at full size
    similar = evaluate_measures(
        real,
        release,
        names=["ims", "dcr"],
        threat=threat,
        holdout=holdout,
        schema=schema,
        seed=seed,
    )
    for m, res in similar.items():
        lo, hi = _ci(res)
        rows.append(
            {"release": name, "measure": m, "value": float(res.value), "ci_low": lo, "ci_high": hi}
        )
    res = rapid(
        real,
        release,
        threat=threat,
        schema=schema,
        control=holdout,
        attackers=TEACHING_RAPID["attackers"],
        n_trees=TEACHING_RAPID["n_trees"],
        bootstrap=TEACHING_RAPID["bootstrap"],
        seed=seed,
    )
    lo, hi = _ci(res)
    rows.append(
        {
            "release": name,
            "measure": "rapid",
            "value": float(res.value),
            "ci_low": lo,
            "ci_high": hi,
        }
    )
    diff = res.members_vs_non_members()
    if diff is None:  # rapid() was given a control: this cannot happen
        raise ParameterError("RAPID returned no members-versus-non-members comparison.")
    members = {
        "release": name,
        "members": diff["members"]["value"],
        "non_members": diff["non_members"]["value"],
        "difference": diff["difference"]["value"],
        "ci_low": float(diff["difference"]["ci"][0]),
        "ci_high": float(diff["difference"]["ci"][1]),
    }
    return rows, members


def similarity_scenario(
    *,
    n: int = SIMILARITY_DEFAULTS["n"],
    patterns_kappa: float = SIMILARITY_DEFAULTS["patterns_kappa"],
    min_leaf: int = SIMILARITY_DEFAULTS["min_leaf"],
    copies_kappa: float = SIMILARITY_DEFAULTS["copies_kappa"],
    copies: int = SIMILARITY_DEFAULTS["copies"],
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> SimilarityScenario:
    """Similarity is not disclosure: two releases that similarity measures and RAPID
    rank in opposite order.

    * **A (patterns)**: a CART release (minimum leaf ``min_leaf``: large leaves, so no
      record is reproduced whole) of a population with strong dependencies
      (``patterns_kappa``): no copies, yet the attacker infers most people's disease.
    * **B (copies)**: a population with weak dependencies (``copies_kappa``); the release
      is ``n - copies`` unseen records of that population plus verbatim copies of the
      ``copies`` most unusual training records (Local Outlier Factor,
      :func:`~privacy_core.experiments.remove_outliers`).

    Each release is read by the identical match share and DCR (similarity indicators)
    and by RAPID, on its members and on ``n`` fresh non-members.

    Notes
    -----
    ``consensus-privacy-framework.md`` R3 (stand-alone similarity metrics should not be
    used to report privacy) and R7 (members versus non-members).
    """
    n = _check_n(n, 60)
    patterns_kappa = check_in_range("patterns_kappa", patterns_kappa, 0, 100)
    copies_kappa = check_in_range("copies_kappa", copies_kappa, 0, 100)
    min_leaf = check_positive_int("min_leaf", min_leaf)
    copies = check_positive_int("copies", copies)
    if copies >= n // 2:
        raise ParameterError(
            f"`copies` must be below half of n ({n // 2}) so that the rest "
            f"of release B is unseen records; got {copies}."
        )
    seed = check_seed(seed)
    real_seed, holdout_seed, pool_seed, release_seed, attack_seed = _child_seeds(seed, 5)
    threat = teaching_threat()
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    members: list[dict[str, Any]] = []

    _report(progress, 0.0, "Release A: a CART release of a strongly dependent population")
    real_a = simulate_health(n, kappa=patterns_kappa, seed=real_seed)
    schema_a = _schema(real_a)
    release_a = synthesize(
        prepare_table(real_a, schema_a), method="cart", n=n, seed=release_seed, min_leaf=min_leaf
    )
    holdout_a = simulate_health(n, kappa=patterns_kappa, seed=holdout_seed)
    r, m = _evaluate_release(
        "patterns", real_a, release_a, holdout_a, schema=schema_a, threat=threat, seed=attack_seed
    )
    rows += r
    members.append(m)

    _report(progress, 0.5, "Release B: unseen records and copies of rare ones")
    real_b = simulate_health(n, kappa=copies_kappa, seed=real_seed)
    schema_b = _schema(real_b)
    _, rare = remove_outliers(prepare_table(real_b, schema_b), fraction=copies / n, schema=schema_b)
    pool = simulate_health(n - copies, kappa=copies_kappa, seed=pool_seed)
    release_b = pd.concat([pool, real_b.loc[rare]], ignore_index=True)
    holdout_b = simulate_health(n, kappa=copies_kappa, seed=holdout_seed)
    r, m = _evaluate_release(
        "copies", real_b, release_b, holdout_b, schema=schema_b, threat=threat, seed=attack_seed
    )
    rows += r
    members.append(m)
    _report(progress, 1.0, "done")
    params = {
        "n": n,
        "patterns_kappa": patterns_kappa,
        "min_leaf": min_leaf,
        "copies_kappa": copies_kappa,
        "copies": copies,
        "attackers": list(TEACHING_RAPID["attackers"]),
        "quasi_identifiers": list(threat.quasi_identifiers),
        "sensitive": list(threat.sensitive),
    }
    return SimilarityScenario(
        table=pd.DataFrame(rows),
        members=pd.DataFrame(members),
        copied=real_b.loc[rare].reset_index(drop=True),
        params=params,
        seed=seed,
        seconds=time.perf_counter() - started,
    )


# ================================================================= (d) privacy price
@dataclass(frozen=True)
class PrivacyPriceScenario(_SweepScenario):
    """The DP risk model's sweep: risk and fidelity at each privacy budget epsilon (the
    levels)."""

    def map_results(
        self, *, risk: str, utility: str
    ) -> tuple[dict[str, MetricResult], dict[str, MetricResult]]:
        """``({id: risk result}, {id: utility result})``, one id per epsilon
        (``"ε = 1"``), for :func:`privacy_core.plots.map.risk_utility_map`."""
        for name in (risk, utility):
            if name not in self.sweep.measures:
                raise ParameterError(
                    f"{name!r} was not evaluated; the measures are {list(self.sweep.measures)}."
                )
        risk_out: dict[str, MetricResult] = {}
        utility_out: dict[str, MetricResult] = {}
        for eps in self.levels:
            rows = self.at(eps).set_index("measure")
            key = epsilon_label(eps)
            for name, out in ((risk, risk_out), (utility, utility_out)):
                r = rows.loc[name]
                ci = (
                    (float(r["ci_low"]), float(r["ci_high"]))
                    if np.isfinite([r["ci_low"], r["ci_high"]]).all()
                    else None
                )
                out[key] = MetricResult(
                    name=name,
                    value=float(r["value"]),
                    ci=ci,
                    params={"epsilon": float(eps), **self.params},
                )
        return risk_out, utility_out


def epsilon_label(epsilon: float) -> str:
    """The name of the release at one budget, as the map labels it."""
    return f"ε = {epsilon:g}"


def privacy_price_scenario(
    *,
    levels: Sequence[float] = PRIVACY_PRICE_DEFAULTS["levels"],
    n: int = PRIVACY_PRICE_DEFAULTS["n"],
    kappa: float = PRIVACY_PRICE_DEFAULTS["kappa"],
    measures: Sequence[str] = PRIVACY_PRICE_DEFAULTS["measures"],
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> PrivacyPriceScenario:
    """The price of privacy: DP releases at several budgets epsilon, risk and fidelity.

    A population of ``n`` records (at ``kappa``: strong enough patterns for a release to
    carry them) is halved into training and control by
    :func:`~privacy_core.experiments.sweep` (``risk_model="dp"``, the built-in DP-MST
    generator, one replicate, in-process); every level is one release.

    Notes
    -----
    ``risk-insertion-framework.md`` §5.1.3 (DP risk model) and §6.2.
    """
    measures = _check_measures(measures)
    n = _check_n(n, 60)
    kappa = check_in_range("kappa", kappa, 0, 100)
    seed = check_seed(seed)
    population_seed, sweep_seed = _child_seeds(seed, 2)
    real = simulate_health(n, kappa=kappa, seed=population_seed)
    result = sweep(
        real,
        risk_model="dp",
        levels=levels,
        measures=measures,
        replicates=1,
        threat=teaching_threat(),
        schema=_schema(real),
        seed=sweep_seed,
        generator="dp-mst",
        options={"rapid": dict(TEACHING_RAPID)},
        n_jobs=1,
        progress=progress,
    )
    return PrivacyPriceScenario(
        sweep=result,
        seed=seed,
        params={
            "levels": list(result.levels),
            "n": n,
            "kappa": kappa,
            "measures": list(measures),
            "generator": "dp-mst",
        },
    )


__all__ = [
    "AGE_BANDS",
    "DEPENDENCY_DEFAULTS",
    "LEAKY_DEFAULTS",
    "PRIVACY_PRICE_DEFAULTS",
    "RELEASE_LABELS",
    "SCENARIOS",
    "SIMILARITY_DEFAULTS",
    "SIMILARITY_MEASURES",
    "TAU_GRID",
    "TEACHING_RAPID",
    "DependencyPopulation",
    "DependencyScenario",
    "LeakyScenario",
    "PrivacyPriceScenario",
    "SimilarityScenario",
    "dependency_population",
    "dependency_scenario",
    "epsilon_label",
    "leaky_scenario",
    "privacy_price_scenario",
    "similarity_scenario",
    "teaching_threat",
]
