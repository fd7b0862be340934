"""The whole review from one file: its configuration, its options, its run and its JSON.

A review is one object (:class:`privacy_core.report.ReviewReport`): data fingerprints,
threat model, thresholds, release groups and every result per candidate, with each
candidate's verdict from the one policy (:mod:`privacy_core.scorecard`). The command line's
``review`` runs it from a TOML file (:func:`load_review_config`, :func:`run_review`) and
writes :func:`review_document`, the JSON the app's export writes too.

:func:`measure_options` is the one table of the measures' options for a review: the
``privacy``, ``fidelity``, ``report`` and ``review`` commands all build their options with
it, so a number is the same whichever command computed it.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .data import infer_schema, load_table
from .embedding import resolve_device
from .errors import ParameterError
from .evaluation import evaluate
from .fidelity import DEFAULT_MAX_ROWS
from .measures import MEASURES, QUICK_REVIEW, get_measure
from .progress import ProgressFn, share
from .results import jsonable
from .risk.distance import DEFAULT_ALPHA
from .risk.rapid import check_tau
from .scorecard import DEFAULT_THRESHOLDS, exit_status, user_threshold
from .threat import ThreatModel
from .utility import DEFAULT_EVALUATORS
from .validation import check_in_range, check_positive_int, check_seed

# Every-record attacks up to this many rows (consensus R2), then 500 sampled targets.
EVERY_RECORD_MAX_ROWS = 50_000
# the fidelity measures' resamples (their intervals), one default for the app and the CLI
FIDELITY_BOOTSTRAP = 200
# the review's default measures: RAPID and the Overview's quick measures
DEFAULT_REVIEW_MEASURES = ("rapid", *QUICK_REVIEW)


def check_alpha(alpha: Any) -> float:
    """DCR's percentile α in percent, strictly between 0 and 100."""
    return check_in_range("alpha", alpha, 0, 100, low_inclusive=False, high_inclusive=False)


def attack_targets(n_rows: int, n_attacks: int | None = None) -> int | None:
    """Attack targets per attack: every record (None) up to :data:`EVERY_RECORD_MAX_ROWS`
    rows, else 500 sampled ones; ``n_attacks`` given wins (0 means every record)."""
    if n_attacks is not None:
        return check_positive_int("n_attacks", n_attacks, minimum=0) or None
    return None if n_rows <= EVERY_RECORD_MAX_ROWS else 500


def singling_out_predicates(n_attacks: int | None = None) -> int | str:
    """Singling-out predicates: a positive ``n_attacks``, else the attack's ``"auto"``
    (500 predicates, 2,000 per configuration under the papers' protocol). One predicate
    per distinct record saturates: most draws single out nobody new, and a full copy of
    3,000 rows read 0.23 that way against 0.95 with 500 random predicates."""
    if n_attacks:
        return check_positive_int("n_attacks", n_attacks)
    return "auto"


def measure_options(
    n_rows: int,
    *,
    alpha: float = DEFAULT_ALPHA,
    k: int = 5,
    space: str = "shared",
    max_queries: int | str | None = "auto",
    n_attacks: int | None = None,
    singling_out_mode: str = "multivariate",
    singling_out_cols: int = 3,
    radius: float = 0.1,
    gtcap_weighting: str = "box_pooled",
    membership: Mapping[str, Any] | None = None,
    mds: Mapping[str, Any] | None = None,
    tau: float | None = None,
    epsilon: float | None = None,
    max_rows: int | None = DEFAULT_MAX_ROWS,
    fidelity_bootstrap: int = FIDELITY_BOOTSTRAP,
    evaluators: tuple[str, ...] = DEFAULT_EVALUATORS,
    backend: Mapping[str, Any] | None = None,
    device: str = "auto",
) -> dict[str, dict[str, Any]]:
    """The options of every measure of a review, from the reviewer's settings.

    ``n_rows`` (the real table's rows) sets how many targets the attacks use
    (:func:`attack_targets`; singling out: :func:`singling_out_predicates`). Every value is
    range-checked here, so the app and every command refuse the same inputs. ``device``
    is where the contrastive encoder trains (:data:`privacy_core.embedding.DEVICES`;
    ``"auto"``, the default, is a GPU when torch sees one).
    """
    alpha = check_alpha(alpha)
    check_positive_int("k", k)
    if max_rows is not None:
        check_positive_int("max_rows", max_rows)
    check_positive_int("bootstrap", fidelity_bootstrap)
    check_positive_int("singling_out_cols", singling_out_cols)
    check_in_range("radius", radius, 0, 1, low_inclusive=False)
    if tau is not None:
        check_tau(tau, "marginal")
    if epsilon is not None:
        check_in_range("epsilon", epsilon, 0, math.inf, low_inclusive=False, high_inclusive=False)
    targets = attack_targets(n_rows, n_attacks)
    predicates = singling_out_predicates(n_attacks)
    if device != "auto":  # "auto" is resolved where the encoder trains (no torch import here)
        resolve_device(device)
    # the encoder's options only where they differ from its defaults (params stay as
    # they were for the default device)
    enc = {} if device == "auto" else {"embedding_params": {"device": device}}
    sp = {"space": space, **enc}
    queries = {"max_queries": max_queries}
    ray = dict(backend or {})
    rapid: dict[str, Any] = {**ray}
    if tau is not None:
        rapid["tau"] = tau
    if epsilon is not None:
        rapid["epsilon"] = epsilon
    return {
        "dcr": {"alpha": alpha, **sp, **queries},
        "knn": {"alpha": alpha, "k_max": k, **sp, **queries},
        "singling_out": {
            "n_attacks": predicates,
            "mode": singling_out_mode,
            "n_cols": singling_out_cols,
            **sp,
        },
        "singling_out_outliers": dict(enc),
        "linkability": {"n_attacks": targets, **sp},
        "inference": {"n_attacks": targets, **sp},
        "ml_inference": {"n_attacks": targets},
        "gtcap": {"radius": radius, "weighting": gtcap_weighting},
        "membership": dict(membership or {}),
        "rapid": rapid,
        "mds": dict(mds or {}),
        "wasserstein": {"max_rows": max_rows},
        "mla": {"evaluators": tuple(evaluators), "bootstrap": fidelity_bootstrap},
        "query_error": {"bootstrap": fidelity_bootstrap},
        "discriminator": {"bootstrap": fidelity_bootstrap},
    }


# ============================================================================ the config
_TOP = {"seed", "data", "release", "threat", "thresholds", "measures", "report"}
_DATA = {"real", "control"}
_RELEASE = {"path", "group"}
_THREAT = {"quasi_identifiers", "sensitive", "sampling_fraction", "weights"}
_THRESHOLDS = {"tau", "epsilon", "alpha", "lines"}
_MEASURES = {"privacy", "fidelity"}
_REPORT = {"reviewer", "role", "decision", "notes", "thresholds_set_by"}


@dataclass(frozen=True)
class ReviewConfig:
    """A review's settings, as read from its TOML file (paths resolved)."""

    real: Path
    releases: tuple[tuple[Path, str], ...]
    quasi_identifiers: tuple[str, ...]
    sensitive: tuple[str, ...]
    control: Path | None = None
    seed: int = 0
    sampling_fraction: float | None = None
    weights: str | None = None  # the sampling-weight column of the real and holdout tables
    tau: float | None = None
    epsilon: float | None = None
    alpha: float = DEFAULT_ALPHA
    lines: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    measures: tuple[str, ...] = DEFAULT_REVIEW_MEASURES
    report: Mapping[str, str] = field(default_factory=dict)

    @property
    def groups(self) -> dict[str, list[Path]]:
        out: dict[str, list[Path]] = {}
        for path, group in self.releases:
            out.setdefault(group, []).append(path)
        return out


def _unknown(section: str, got: Mapping[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(got) - allowed)
    if extra:
        raise ParameterError(
            f"review config: unknown key(s) {', '.join(map(repr, extra))} in {section}; "
            f"allowed: {', '.join(sorted(allowed))}."
        )


def _table(doc: Mapping[str, Any], key: str, allowed: set[str], *, required: bool = False) -> dict:
    value = doc.get(key, None)
    if value is None:
        if required:
            raise ParameterError(f"review config: the [{key}] table is required.")
        return {}
    if not isinstance(value, Mapping):
        raise ParameterError(f"review config: [{key}] must be a table; got {value!r}.")
    _unknown(f"[{key}]", value, allowed)
    return dict(value)


def _names(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ParameterError(f"review config: {what} must be a non-empty list of column names.")
    return tuple(value)


def parse_review_config(doc: Mapping[str, Any], *, base: Path) -> ReviewConfig:
    """A review's settings from a parsed TOML document; paths relative to ``base``.

    Unknown keys are an error, at every level, as is a missing required one.
    """
    _unknown("the top level", doc, _TOP)
    data = _table(doc, "data", _DATA, required=True)
    if not isinstance(data.get("real"), str):
        raise ParameterError("review config: [data] real must be the path of the real table.")

    def path(p: Any, what: str) -> Path:
        return _config_path(p, what, base=base)

    releases = _releases(doc, path)
    threat = _table(doc, "threat", _THREAT, required=True)
    if "sensitive" not in threat or "quasi_identifiers" not in threat:
        raise ParameterError(
            "review config: [threat] needs quasi_identifiers and sensitive (column names)."
        )
    th = _table(doc, "thresholds", _THRESHOLDS)
    lines = _threshold_lines(th)
    measures = _chosen_measures(_table(doc, "measures", _MEASURES))
    report = _table(doc, "report", _REPORT)
    for key, value in report.items():
        if not isinstance(value, str):
            raise ParameterError(f"review config: [report] {key} must be text.")
    tau = th.get("tau")
    epsilon = th.get("epsilon")
    sampling = threat.get("sampling_fraction")
    weights = threat.get("weights")
    if weights is not None and (not isinstance(weights, str) or not weights.strip()):
        raise ParameterError(
            f"review config: [threat] weights must be the name of the sampling-weight "
            f"column; got {weights!r}."
        )
    return ReviewConfig(
        real=path(data["real"], "[data] real"),
        control=path(data["control"], "[data] control") if "control" in data else None,
        releases=releases,
        quasi_identifiers=_names(threat["quasi_identifiers"], "[threat] quasi_identifiers"),
        sensitive=_names(threat["sensitive"], "[threat] sensitive"),
        seed=check_seed(doc.get("seed", 0)),
        sampling_fraction=None
        if sampling is None
        else check_in_range("sampling_fraction", sampling, 0, 1, low_inclusive=False),
        weights=weights,
        tau=None if tau is None else check_tau(tau, "marginal"),
        epsilon=None
        if epsilon is None
        else check_in_range("epsilon", epsilon, 0, math.inf, low_inclusive=False),
        alpha=check_alpha(th.get("alpha", DEFAULT_ALPHA)),
        lines=lines,
        measures=measures,
        report=report,
    )


def _config_path(p: Any, what: str, *, base: Path) -> Path:
    """A path of the config: ``~`` expanded, relative to ``base`` unless absolute."""
    if not isinstance(p, str) or not p.strip():
        raise ParameterError(f"review config: {what} must be a file path; got {p!r}.")
    full = Path(p).expanduser()
    return full if full.is_absolute() else base / full


def _releases(
    doc: Mapping[str, Any], path: Callable[[Any, str], Path]
) -> tuple[tuple[Path, str], ...]:
    """Each ``[[release]]``'s path and group (default: the file's stem)."""
    releases_doc = doc.get("release")
    if not isinstance(releases_doc, list) or not releases_doc:
        raise ParameterError(
            "review config: give at least one [[release]] with a path (and a group)."
        )
    releases = []
    for i, rel in enumerate(releases_doc, 1):
        if not isinstance(rel, Mapping):
            raise ParameterError(f"review config: [[release]] {i} must be a table.")
        _unknown(f"[[release]] {i}", rel, _RELEASE)
        p = path(rel.get("path"), f"[[release]] {i} path")
        group = rel.get("group", p.stem)
        if not isinstance(group, str) or not group.strip():
            raise ParameterError(f"review config: [[release]] {i} group must be a name.")
        releases.append((p, group.strip()))
    return tuple(releases)


def _threshold_lines(th: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
    """``[thresholds.lines]``: the user's (amber, red) lines per measure, checked."""
    lines_doc = th.get("lines") or {}
    if not isinstance(lines_doc, Mapping):
        raise ParameterError("review config: [thresholds.lines] must be a table.")
    lines = {}
    for name, pair in lines_doc.items():
        if name not in DEFAULT_THRESHOLDS:
            raise ParameterError(
                f"review config: [thresholds.lines] names unknown measure {name!r}; "
                f"choose from {', '.join(DEFAULT_THRESHOLDS)}."
            )
        if not (isinstance(pair, list) and len(pair) == 2):
            raise ParameterError(
                f"review config: [thresholds.lines] {name} must be [amber, red]; got {pair!r}."
            )
        amber = check_in_range(f"{name} amber line", pair[0], 0, math.inf, high_inclusive=False)
        red = check_in_range(f"{name} red line", pair[1], 0, math.inf, high_inclusive=False)
        user_threshold(name, amber, red)  # amber <= red, with its own message
        lines[name] = (amber, red)
    return lines


def _chosen_measures(measures_doc: Mapping[str, Any]) -> tuple[str, ...]:
    """``[measures]``: the privacy and fidelity measures listed, each under its own family
    (default :data:`DEFAULT_REVIEW_MEASURES`)."""
    if not measures_doc:
        return DEFAULT_REVIEW_MEASURES
    chosen: list[str] = []
    for family in ("privacy", "fidelity"):
        for name in measures_doc.get(family, []):
            spec = get_measure(name)
            if spec.family != family:
                raise ParameterError(
                    f"review config: {name!r} is a {spec.family} measure; list it under "
                    f"{spec.family}."
                )
            chosen.append(name)
    if not chosen:
        raise ParameterError("review config: [measures] lists no measure.")
    return tuple(dict.fromkeys(chosen))


def load_review_config(path: str | Path) -> ReviewConfig:
    """Read a review's TOML file (see the example in docs/cli.md); paths in it are relative to
    the file's folder."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ParameterError(
            f"cannot read the review config {str(p)!r}: {exc.strerror or exc}."
        ) from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ParameterError(f"the review config {str(p)!r} is not valid TOML: {exc}.") from None
    return parse_review_config(doc, base=p.resolve().parent)


# ============================================================================ the run
def run_review(
    config: ReviewConfig,
    *,
    progress: ProgressFn | None = None,
    backend: Mapping[str, Any] | None = None,
    n_jobs: int = 1,
    device: str = "auto",
) -> Any:
    """Load the review's data, evaluate every candidate and build the review object
    (:class:`privacy_core.report.ReviewReport`, with each candidate's verdict).

    ``n_jobs`` worker processes run each candidate's measures side by side (-1 = every
    usable core; :mod:`privacy_core.scheduler`), or the Ray cluster ``backend`` names;
    the numbers are the serial run's. ``device``: where the contrastive encoder trains
    (:func:`measure_options`)."""
    from .report import ReleaseGroup, build_report

    real = load_table(config.real)
    control = load_table(config.control) if config.control is not None else None
    frames = {p: load_table(p) for p, _ in config.releases}
    threat = ThreatModel(
        list(config.quasi_identifiers),
        list(config.sensitive),
        sampling_fraction=config.sampling_fraction,
        weights=config.weights,
    )
    threat.validate_weights(real, control)  # before minutes of computing
    names = [n for n in config.measures if control is not None or not MEASURES[n].needs_holdout]
    options = measure_options(
        len(real),
        alpha=config.alpha,
        tau=config.tau,
        epsilon=config.epsilon,
        backend=backend,
        device=device,
    )
    # the declared weight column marked: the report's schema shows it as the sampling
    # weight, and every measure gets the schema it was computed on
    schema = threat.analysis_schema(infer_schema(real))
    groups = []
    release_names = [str(p) for p, _ in config.releases]
    for i, (group, paths) in enumerate(config.groups.items()):
        step = share(progress, i, len(config.groups), group)
        review = evaluate(
            real,
            [frames[p] for p in paths],
            measures=names,
            threat=threat,
            holdout=control,
            schema=schema,
            seed=config.seed,
            options=options,
            progress=step,
            n_jobs=n_jobs,
            backend=(backend or {}).get("backend", "local"),
            ray_address=(backend or {}).get("ray_address"),
        )
        groups.append(ReleaseGroup(group, tuple(str(p) for p in paths), dict(review.results)))
    thresholds = {m: user_threshold(m, a, r) for m, (a, r) in config.lines.items()}
    rep = config.report
    return build_report(
        real=real,
        synthetic=[frames[p] for p, _ in config.releases],
        groups=groups,
        threat=threat,
        schema=schema,
        holdout=control,
        names={
            "real": str(config.real),
            "synthetic": release_names,
            "holdout": None if config.control is None else str(config.control),
        },
        decision=rep.get("decision", "undecided"),
        notes=rep.get("notes", ""),
        reviewer=rep.get("reviewer", ""),
        role=rep.get("role", ""),
        thresholds=thresholds,
        thresholds_set_by=rep.get("thresholds_set_by", ""),
    )


def review_document(report: Any, *, seed: int, command: str = "review") -> dict[str, Any]:
    """The review's JSON (DESIGN.md, command-line contract): the evaluating shape (the
    only candidate's ``metrics``; empty with several, never merged), ``candidates`` by
    name with each verdict, sentence and deciding measures, the ``thresholds``, the exit
    status the verdicts give, and the whole review record under ``review``."""
    d = report.to_dict()
    cands = d["candidates"]
    prov = d["provenance"]
    return jsonable(
        {
            "command": command,
            "n_real": prov["real"]["rows"],
            "n_synthetic": [s["rows"] for s in prov["synthetic"]],
            "seed": seed,
            "metrics": cands[0]["metrics"] if len(cands) == 1 else {},
            "candidates": {
                c["name"]: {
                    "verdict": c.get("verdict"),
                    "sentence": c.get("sentence"),
                    "deciding": c.get("deciding", []),
                    "uninformative": c.get("uninformative", []),
                    "releases": c["releases"],
                    "metrics": c["metrics"],
                }
                for c in cands
            },
            "thresholds": d.get("thresholds"),
            "exit_status": review_exit_status(d),
            "review": d,
        }
    )


def review_exit_status(report_dict: Mapping[str, Any]) -> int:
    """0 when every candidate is below its lines, 3 when any is above a line, 4 when none
    is above but some are inconclusive (:func:`privacy_core.scorecard.exit_status`)."""
    return exit_status(
        [c["verdict"] for c in report_dict.get("candidates", []) if c.get("verdict")]
    )


__all__ = [
    "DEFAULT_REVIEW_MEASURES",
    "ReviewConfig",
    "attack_targets",
    "check_alpha",
    "load_review_config",
    "measure_options",
    "parse_review_config",
    "review_document",
    "review_exit_status",
    "run_review",
    "singling_out_predicates",
]
