"""The risk–utility map's engine calls: one cached cell per (candidate release, measure).
Changing an axis computes the new column only. Cells are slimmed to headline, interval and
parameters (no per-record arrays) and kept in a store of their own: a map of ten
candidates on four measures is forty entries, more than the shared evaluation store
holds."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd
import streamlit as st

import privacy_core as pc
from privacy_core.evaluation import evaluate_measures
from privacy_core.measures import MEASURES, measure_goal, measure_label
from privacy_core.plots.map import axis_title as goal_axis_title
from privacy_core.plots.map import goal_reading
from privacy_core.progress import ProgressFn

from .cached import (
    Failed,
    canonical_real,
    generate_release,
    scoped_key,
)
from .fidelity import METRIC_READINGS, fidelity_metrics
from .runner import Job, notes_of, run_jobs, small_store
from .state import commit, get_workspace, set_notice, set_widget
from .workspace import Table, Workspace

# ============================================================================ the map
MAP_DEFAULTS: dict[str, Any] = {
    "workspace": True,
    "cart_leaves": (1, 5, 20, 100),
    "leaky_levels": (),
    "references": ("half", "histogram", "self"),
    "seed": 1,
}
CART_LEAF_CHOICES = (1, 2, 5, 10, 20, 50, 100, 200, 500)
LEAKY_LEVEL_CHOICES = (0.05, 0.1, 0.25, 0.5, 1.0)
REFERENCE_LABELS = {
    "half": "HALF (a real half)",
    "histogram": "HISTOGRAM",
    "self": "SELF (real copy)",
}
MAP_AUTO_RUN_ROWS = 25_000  # below this the map computes missing cells without a click
MAP_OPTIONS: dict[str, dict[str, Any]] = {
    # fast settings for a live demo; every subsample is seeded and said in the UI
    "rapid": {"attackers": ("xgb",), "bootstrap": 200},
    "dcr": {"bootstrap": 200},
    "knn": {"bootstrap": 200},
    "gtcap": {"bootstrap": 200},
    "domias": {"bootstrap": 200, "max_rows": 5000},
    "wasserstein": {"max_rows": 1000},
    "mla": {"evaluators": ("linear", "xgb"), "bootstrap": 200},
    "query_error": {"bootstrap": 200},
    "discriminator": {"max_rows": 5000, "bootstrap": 200},
    "mds": {"shadow_models": 10, "shadow_sets": 1, "records": 1000, "bootstrap": 200},
}
MAP_OPTION_NOTES = {
    "rapid": "RAPID with the xgboost attacker only, at τ = 0.3 (ε = 0.1 for a numeric "
    "target), 200 bootstrap replicates",
    "dcr": "DCR at α = 2%, 200 bootstrap replicates",
    "domias": "DOMIAS on at most 5,000 rows per table",
    "wasserstein": "Wasserstein 2-way numeric marginals on a seeded 1,000-row subsample "
    "(1-way and categorical marginals on all rows)",
    "mla": "ML affinity with logistic regression and xgboost only",
    "discriminator": "discriminator on at most 5,000 records per class",
    "singling_out": "singling out with 500 seeded attacks (its default)",
}
# the x axis's first options: disclosure measures, attribute inference first. Similarity
# indicators (DCR, IMS, k-NN) come last and say what they are (consensus R3).
RISK_ORDER = (
    "rapid",
    "inference",
    "ml_inference",
    "linkability",
    "singling_out",
    "membership",
    "gtcap",
    "domias",
)
AXIS_WORDING = {
    "rapid": ("RAPID", "share of real records at risk"),
    "dcr": ("DCR risk score", "0 = no closer than real-to-real"),
    "ims": ("Identical match share", "share of synthetic rows copying a real row"),
    "membership": ("Membership disclosure F_rel", "0 = no better than a naive guess"),
    "discriminator": ("Discriminator AUC", "0.5 = indistinguishable"),
}


def map_params(ws: Workspace) -> dict[str, Any]:
    return {**MAP_DEFAULTS, **(ws.setting("map") or {})}


def leaky_available(ws: Workspace | None = None) -> bool:
    """Whether leaky candidates can be built: the engine has the leaky risk model and
    (when a workspace is given) a holdout supplies the rows that are not leaked."""
    if importlib.util.find_spec("privacy_core.synth.leaky") is None:
        return False
    module = importlib.import_module("privacy_core.synth.leaky")
    if not hasattr(module, "leaky_release"):
        return False
    return ws is None or ws.holdout is not None


@st.cache_data(show_spinner=False, max_entries=16)
def _leaky_release(
    real_key: str,
    holdout_key: str,
    _real: pd.DataFrame,
    _holdout: pd.DataFrame,
    leak_fraction: float,
    n: int,
    seed: int,
) -> pd.DataFrame:
    from privacy_core.synth.leaky import leaky_release

    return leaky_release(_real, _holdout, leak_fraction=leak_fraction, n=n, seed=seed).release


def _importable(name: str) -> bool:
    try:
        MEASURES[name].function  # noqa: B018  # imports the module on first use
    except Exception:  # noqa: BLE001  # a module still being written must not break the page
        return False
    return True


def risk_measures(ws: Workspace) -> list[str]:
    """Registered privacy measures usable on this workspace: disclosure measures first,
    similarity indicators last (they are no disclosure evidence, consensus R3)."""
    rest = [n for n in MEASURES if n not in RISK_ORDER]
    order = [
        *RISK_ORDER,
        *(n for n in rest if not MEASURES[n].indicator),
        *(n for n in rest if MEASURES[n].indicator),
    ]
    out = []
    for name in order:
        spec = MEASURES.get(name)
        if spec is None or spec.family != "privacy":
            continue
        if spec.needs_holdout and ws.holdout is None:
            continue
        if _importable(name):
            out.append(name)
    return out


def utility_measures(ws: Workspace) -> list[str]:
    return fidelity_metrics(ws)


def risk_option_label(name: str) -> str:
    """A risk axis option: similarity indicators say so in the list itself."""
    spec = MEASURES.get(name)
    return measure_label(name) + (" — similarity indicator" if spec and spec.indicator else "")


def axis_title(name: str) -> str:
    """The map's axis title: the measure, which way is better (from the registry), and for
    a similarity indicator that it is not a disclosure measure."""
    label, detail = AXIS_WORDING.get(name, (measure_label(name), ""))
    goal = measure_goal(name)
    if goal.direction == "target":
        detail = ""  # the reading says the ideal already
    return goal_axis_title(label, goal, indicator=MEASURES[name].indicator, detail=detail)


@dataclass(frozen=True)
class Candidate:
    """One point of the map: a loaded release, a generated one, or a reference."""

    id: str
    label: str
    kind: str  # workspace | generated | half | histogram | self
    method: str | None = None
    params: tuple[tuple[str, Any], ...] = ()
    index: int | None = None  # position in ws.releases for loaded releases
    short: str = ""  # the text next to the point on the map

    @property
    def in_workspace(self) -> bool:
        return self.kind == "workspace"


def generated_label(method: str, params: dict[str, Any], seed: int) -> str:
    """The name the data page gives the same generated release (so they are recognised)."""
    detail = ""
    if method == "cart":
        detail = f" leaf {int(params['min_leaf'])}"
    elif method == "leaky":
        detail = f" f_l={float(params['leak_fraction']):g}"
    elif params:
        detail = " " + " ".join(
            f"{v:g}" if isinstance(v, float) else str(v) for v in params.values()
        )
    return f"{method.upper()}{detail} (seed {seed})"


def map_candidates(ws: Workspace, params: dict[str, Any]) -> list[Candidate]:
    """The candidates of the map under its settings, loaded releases first.

    A candidate that is already among the loaded releases (same name and origin
    "generated", or the same content once its table has been built) is shown once, as
    the loaded release.
    """
    seed = int(params["seed"])
    out: list[Candidate] = []
    loaded_generated = {t.name for t in ws.releases if t.origin == "generated"}
    loaded_content = {t.fingerprint for t in ws.releases}
    if params["workspace"]:
        for i, t in enumerate(ws.releases):
            short = t.name if len(t.name) <= 24 else t.name[:23] + "…"
            out.append(
                Candidate(f"ws{i}:{t.fingerprint[:16]}", t.name, "workspace", index=i, short=short)
            )
    specs: list[tuple[str, dict[str, Any], str]] = [
        ("cart", {"min_leaf": int(leaf)}, "generated") for leaf in params["cart_leaves"]
    ]
    if leaky_available(ws):
        specs += [
            ("leaky", {"leak_fraction": float(level)}, "generated")
            for level in params["leaky_levels"]
        ]
    specs += [(ref, {}, ref) for ref in params["references"]]
    for method, gen_params, kind in specs:
        if kind == "generated":
            label = generated_label(method, gen_params, seed)
            short = label.split(" (seed")[0]
        else:  # SELF is the real table whatever the seed
            label = REFERENCE_LABELS[method] + ("" if method == "self" else f" (seed {seed})")
            short = method.upper()
        detail = ",".join(f"{k}={v}" for k, v in sorted(gen_params.items()))
        cid = f"gen:{method}:{detail}:{seed}"
        # one entry per release: a candidate already loaded (added from here, generated
        # on the data page, or the same content under another name) is the loaded point
        if params["workspace"] and (
            label in loaded_generated or _content_of(ws, cid, seed) in loaded_content
        ):
            continue
        out.append(
            Candidate(cid, label, kind, method, tuple(sorted(gen_params.items())), short=short)
        )
    return out


def _content_key(ws: Workspace, cid: str, seed: int) -> str:
    return scoped_key(replace(ws, releases=()), "map|content", {"candidate": cid, "seed": seed})


def _content_of(ws: Workspace, cid: str, seed: int) -> str | None:
    """The fingerprint of a candidate's table, if it has been built (never builds it)."""
    return small_store().get(_content_key(ws, cid, seed))


def candidate_frame(ws: Workspace, cand: Candidate, seed: int) -> pd.DataFrame:
    """The candidate's table: a loaded release, or a generated one (cached)."""
    if cand.index is not None:
        return ws.releases[cand.index].frame
    frame = _built_frame(ws, cand, seed)
    _remember_content(ws, cand, seed, frame)
    return frame


def _remember_content(ws: Workspace, cand: Candidate, seed: int, frame: pd.DataFrame) -> None:
    """Keep the candidate's fingerprint, so the listing can tell when it is loaded."""
    store, key = small_store(), _content_key(ws, cand.id, seed)
    if store.get(key) is None:
        store.put(key, pc.fingerprint(frame))


def _built_frame(ws: Workspace, cand: Candidate, seed: int) -> pd.DataFrame:
    real_c = canonical_real(ws.real.fingerprint, ws.overrides, ws)
    holdout = ws.holdout
    if cand.method == "leaky" and holdout is not None:
        # the rows that are not leaked come from the holdout: real, never trained on
        holdout_c = pc.conform_table(holdout.frame, ws.schema, table="holdout")
        return _leaky_release(
            ws.real.fingerprint + repr(ws.overrides),
            holdout.fingerprint,
            real_c,
            holdout_c,
            float(dict(cand.params)["leak_fraction"]),
            min(len(real_c), len(holdout_c)),
            seed,
        )
    if cand.method == "half":
        return pc.half_split(real_c, seed=seed)[1]
    return generate_release(
        ws.real.fingerprint + repr(ws.overrides),
        real_c,
        str(cand.method),
        cand.params,
        len(real_c),
        seed,
    )


def _cell_key(ws: Workspace, cand: Candidate, measure: str, seed: int) -> str:
    if cand.index is not None:
        table = ws.releases[cand.index]
        # the release's own origin decides whether the key carries the session salt
        scope, content = replace(ws, releases=(table,)), f"table:{table.fingerprint}"
    else:
        scope, content = replace(ws, releases=()), cand.id
    return scoped_key(
        scope,
        f"map|{measure}",
        {"candidate": content, "seed": seed, **MAP_OPTIONS.get(measure, {})},
    )


def _slim(result: pc.MetricResult) -> pc.MetricResult:
    """Headline, interval and small parameters only: the map never needs the records."""

    def small(v: Any) -> bool:
        return (
            v is None
            or isinstance(v, (bool, int, float, str))
            or (
                isinstance(v, (list, tuple))
                and len(v) <= 50
                and all(x is None or isinstance(x, (bool, int, float, str)) for x in v)
            )
        )

    ci = None if result.ci is None else (float(result.ci[0]), float(result.ci[1]))
    return pc.MetricResult(
        name=result.name,
        value=float(result.value),
        ci=ci,
        params={k: v for k, v in result.params.items() if small(v)},
        baseline=None if result.baseline is None else float(result.baseline),
        goal=result.goal,
        bounds=result.bounds,
        extra={k: v for k, v in result.extra.items() if small(v)},
    )


def _compute_cell(
    ws: Workspace, cand: Candidate, measure: str, seed: int, progress: ProgressFn
) -> pc.MetricResult:
    progress(0.0, "generating the release" if cand.index is None else "")
    real_c = canonical_real(ws.real.fingerprint, ws.overrides, ws)
    if cand.index is None and cand.method == "half":
        # HALF is compared with the other half, as on the fidelity page (Du & Li §7.2):
        # against the full table it would meet its own rows and read twice too well. On
        # the risk axis it is then what a second real sample of the population reads.
        real_c, frame = pc.half_split(real_c, seed=seed)
        _remember_content(ws, cand, seed, frame)
    else:
        frame = candidate_frame(ws, cand, seed)
    holdout = ws.holdout.frame if ws.holdout is not None else None
    progress(0.1, "")
    options = dict(MAP_OPTIONS.get(measure, {}))
    if MEASURES[measure].evaluates == "generator":
        options.update(shadow_options(cand))
    result = evaluate_measures(
        real_c,
        frame,
        names=[measure],
        threat=ws.threat,
        holdout=holdout,
        schema=ws.schema,
        seed=seed,
        options={measure: options},
    )[measure]
    return _slim(result)


def shadow_options(cand: Candidate) -> dict[str, Any]:
    """The shadow models through which a measure of the *generator* (MDS) scores a map
    candidate: the candidate's own method. HALF is a method that emits real records it
    never saw (leaky shadows at f_l = 0); a loaded release has no method to retrain."""
    if cand.kind == "half":
        return pc.leaky_shadow_options(0.0)
    if cand.index is None and cand.method in pc.GENERATORS:
        return {"shadow_method": cand.method, "shadow_params": dict(cand.params)}
    raise pc.ParameterError(
        "MDS scores a generating method by retraining it on halves of the real table; a "
        "loaded release does not say how it was made. It is shown for the candidates the "
        "map generates (CART, leaky, HISTOGRAM, SELF, HALF)."
    )


def map_cells(
    ws: Workspace, candidates: Sequence[Candidate], measures: Sequence[str], seed: int
) -> dict[str, dict[str, Any]]:
    """``{measure: {candidate id: result | Failed | None}}`` from the store (no compute)."""
    store = small_store()
    return {m: {c.id: store.get(_cell_key(ws, c, m, seed)) for c in candidates} for m in measures}


def map_cell_notes(
    ws: Workspace, candidates: Sequence[Candidate], measures: Sequence[str], seed: int
) -> list[str]:
    notes = []
    for c in candidates:
        for m in measures:
            for note in notes_of(_cell_key(ws, c, m, seed)):
                notes.append(f"{c.label} — {measure_label(m)}: {note}")
    return list(dict.fromkeys(notes))


def map_missing(
    ws: Workspace, candidates: Sequence[Candidate], measures: Sequence[str], seed: int
) -> list[tuple[Candidate, str]]:
    cells = map_cells(ws, candidates, measures, seed)
    return [(c, m) for m in measures for c in candidates if cells[m][c.id] is None]


def map_should_autorun(ws: Workspace) -> bool:
    return len(ws.real.frame) <= MAP_AUTO_RUN_ROWS


def map_run(ws: Workspace, missing: Sequence[tuple[Candidate, str]], seed: int) -> list[str]:
    """Compute the missing (candidate, measure) cells, one progress bar for all."""
    store = small_store()
    jobs = []
    for cand, measure in missing:

        def compute(progress: ProgressFn, cand: Candidate = cand, measure: str = measure):
            return _compute_cell(ws, cand, measure, seed, progress)

        jobs.append(
            Job(
                _cell_key(ws, cand, measure, seed),
                f"{cand.label}: {measure_label(measure)}",
                compute,
                store.put,
            )
        )
    return run_jobs(f"Evaluating {len(jobs)} candidate × measure cell(s)", jobs)


def forget_failed(
    ws: Workspace, candidates: Sequence[Candidate], measures: Sequence[str], seed: int
) -> None:
    """Button callback: drop failed cells so that the next run computes them again."""
    store = small_store()
    for c in candidates:
        for m in measures:
            key = _cell_key(ws, c, m, seed)
            if isinstance(store.get(key), Failed):
                store.put(key, None)  # the store reads None as "not computed"


def map_results(cells: dict[str, Any]) -> dict[str, pc.MetricResult | None]:
    """Cells usable by the figure (failures and gaps as None)."""
    return {cid: (v if isinstance(v, pc.MetricResult) else None) for cid, v in cells.items()}


def map_failures(cells: dict[str, dict[str, Any]], candidates: Sequence[Candidate]) -> list[str]:
    labels = {c.id: c.label for c in candidates}
    return [
        f"{labels[cid]} — {measure_label(m)}: {v.message}"
        for m, col in cells.items()
        for cid, v in col.items()
        if isinstance(v, Failed)
    ]


def candidate_numbers(ws: Workspace, cand: Candidate, seed: int) -> pd.DataFrame:
    """Every measure computed so far for one candidate, as the details panel lists them."""
    store = small_store()
    rows = []
    for kind, names in (
        ("privacy risk", risk_measures(ws)),
        ("fidelity / utility", utility_measures(ws)),
    ):
        for m in names:
            hit = store.get(_cell_key(ws, cand, m, seed))
            if hit is None:
                continue
            family = "similarity indicator" if MEASURES[m].indicator else kind  # R3
            if isinstance(hit, Failed):
                rows.append(
                    {
                        "family": family,
                        "measure": measure_label(m),
                        "value": None,
                        "95% CI": "",
                        "reading": f"failed: {hit.message}",
                    }
                )
                continue
            ci = f"{hit.ci[0]:.3f} – {hit.ci[1]:.3f}" if hit.ci is not None else ""
            reading = METRIC_READINGS.get(m, goal_reading(measure_goal(m)))
            if hit.baseline is not None:
                reading += f" · baseline {hit.baseline:.3f}"
            rows.append(
                {
                    "family": family,
                    "measure": measure_label(m),
                    "value": hit.value,
                    "95% CI": ci,
                    "reading": reading,
                }
            )
    return pd.DataFrame(rows, columns=["family", "measure", "value", "95% CI", "reading"])


def add_candidate(ws: Workspace, cand: Candidate, seed: int) -> Candidate | None:
    """Add a generated candidate to the workspace's releases (validated via commit).

    Returns the candidate as a loaded release (None when the workspace refused it). Its
    computed cells are copied to the loaded release's keys, so the map does not
    recompute the point it already shows.
    """
    frame = candidate_frame(ws, cand, seed)
    table = Table.make(cand.label, frame, "generated")
    new = replace(ws, releases=ws.releases + (table,))
    if not commit(new, control="map_add"):
        return None
    store = small_store()
    loaded = next(
        c
        for c in map_candidates(new, {**map_params(new), "workspace": True})
        if c.index == len(new.releases) - 1
    )
    # HALF's cells compare it with the other half; loaded, it is compared with the whole
    # real table like any release, so its cells are computed afresh
    for m in () if cand.method == "half" else (*risk_measures(new), *utility_measures(new)):
        for suffix in ("", "|notes"):
            hit = store.get(_cell_key(ws, cand, m, seed) + suffix)
            if hit is not None:
                store.put(_cell_key(new, loaded, m, seed) + suffix, hit)
    return loaded


def add_candidate_action(cand: Candidate, seed: int, selection_key: str) -> None:
    """Button callback: add ``cand`` to the workspace and keep it selected on the map."""
    ws = get_workspace()
    if ws is None:
        return
    loaded = add_candidate(ws, cand, seed)
    if loaded is not None:
        set_notice("map_add", f"Added {cand.label} to the workspace's releases.")
        set_widget(selection_key, loaded.id)


__all__ = [
    "Candidate",
    "add_candidate",
    "map_candidates",
    "map_cells",
    "map_missing",
    "map_run",
]
