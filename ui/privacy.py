"""Glue for the privacy-metrics page: parameters, per-measure cached evaluation."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

import privacy_core as pc
from privacy_core.evaluation import evaluate_measures
from privacy_core.measures import MEASURES
from privacy_core.report import targets_text
from privacy_core.risk.attacks import AttackResult
from privacy_core.risk.distance import DcrResult
from privacy_core.scorecard import UNINFORMATIVE_WIDTH  # the cards' and the verdict's width

from .cached import cached_result, get_or_compute, linkability_halves, scoped_key
from .runner import run_cached
from .widgets import fmt_ci
from .workspace import Workspace

# RAPID and MDS have sections of their own (MDS fits shadow generators: minutes, with Stop)
PRIVACY_MEASURES = [
    n
    for n, m in MEASURES.items()
    if m.family == "privacy" and n != "rapid" and m.evaluates == "release"
]
FAST_DEFAULT = [n for n in PRIVACY_MEASURES if MEASURES[n].fast]
SLOW = [n for n in PRIVACY_MEASURES if not MEASURES[n].fast]
INDICATORS = tuple(n for n in PRIVACY_MEASURES if MEASURES[n].indicator)
ATTACKS = ("singling_out", "linkability", "inference", "ml_inference")


def privacy_params(ws: Workspace) -> dict[str, Any]:
    n = len(ws.real.frame)
    qis = tuple(ws.quasi_identifiers)
    stored = ws.setting("privacy") or {}
    if "aux_a" in stored and "aux_b" in stored:
        aux_a, aux_b = stored["aux_a"], stored["aux_b"]
    elif len(qis) >= 2:  # two halves that each identify as many records as the QIs allow
        aux_a, aux_b = linkability_halves(ws.real.fingerprint, qis, ws)
    else:
        aux_a, aux_b = qis, qis[:1]
    # the engine's rule (pc.attack_targets): every record up to 50,000 rows (consensus R2;
    # 500 sampled targets read a private release as 0.2 by chance), shown as 0
    defaults = {
        "n_attacks": pc.attack_targets(n) or 0,
        "k": 5,
        "radius": 0.1,
        "gtcap_weighting": "box_pooled",
        "seed": 0,
        "aux_a": tuple(aux_a),
        "aux_b": tuple(aux_b),
        "so_mode": "multivariate",
        "so_cols": min(3, len(ws.schema.included)),
        "space": "shared",
    }
    params = {**defaults, **stored, **membership_settings(ws)}
    # a later type change may have excluded columns since the setting was stored
    params["so_cols"] = max(1, min(int(params["so_cols"]), len(ws.schema.included)))
    params["n_rows"] = n
    return params


def _options(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """One measure's options under the page's settings, through the engine's one table
    (``pc.measure_options``): the ``privacy`` and ``review`` commands build theirs with it
    too, so the app and the command line compute the same numbers."""
    mode = params["so_mode"]
    opts = pc.measure_options(
        int(params.get("n_rows", 0)),
        k=params["k"],
        space=params.get("space", "shared"),
        n_attacks=params["n_attacks"],  # 0 means every record (consensus R2)
        singling_out_mode=mode,
        singling_out_cols=params["so_cols"] if mode == "multivariate" else 1,
        radius=params["radius"],
        gtcap_weighting=params["gtcap_weighting"],
        membership={
            "sampling_fraction": params["mem_t"],
            "h": params["mem_h"],
            "beta": params["mem_beta"],
            "scenario": params["mem_scenario"],
            "population_share": params["mem_share"] if params["mem_scenario"] == "B" else None,
        },
    )
    # the informative halves the page shows (the engine's default split, computed once)
    opts["linkability"]["aux_cols"] = (list(params["aux_a"]), list(params["aux_b"]))
    return opts.get(name, {})


def measure_options(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """The keyword options of one measure under the page's settings, for the calibration:
    less the options its calibration modes set, since every mode is calibrated."""
    opts = dict(_options(name, params))
    modes = MEASURES[name].modes
    if len(modes) > 1:
        for key in {k for _, mode_opts in modes for k, _ in mode_opts}:
            opts.pop(key, None)
    return opts


# ------------------------------------------------------------------ membership prevalence
#: Membership settings of the Data page's threat model (consensus R4, R5, Figure 3).
MEMBERSHIP_DEFAULTS: dict[str, Any] = {
    "mem_t": None,
    "mem_h": 0,
    "mem_beta": 1.0,
    "mem_scenario": "A",
    "mem_share": None,
}


def membership_settings(ws: Workspace) -> dict[str, Any]:
    return {**MEMBERSHIP_DEFAULTS, **(ws.setting("membership") or {})}


def membership_note(res: pc.MetricResult) -> tuple[str, str | None]:
    """What prevalence a membership F_rel used (one line), and the warning when t is the
    fallback (None otherwise)."""
    p = res.params
    t = float(p["sampling_fraction"])
    scenario = p.get("scenario", "A")
    line = (
        f"Scenario {scenario}: t = {t:.3g}"
        + (f" × population share {float(p['population_share']):.3g}" if scenario == "B" else "")
        + f", so {float(p.get('member_prevalence', t)):.1%} of the attacker's targets "
        f"are members · h = {p['h']} · β = {float(p['beta']):g}"
    )
    if not str(p.get("sampling_fraction_source", "")).startswith("assumed"):
        return line, None
    warning = (
        f"**t is a fallback, not a fact.** No sampling fraction was set, so t = "
        f"{t:.3g}, the training rows' share of training plus holdout. That only says "
        "how the real rows were split, not how much of the population is in the "
        "training data, so this F_rel rests on an arbitrary prevalence (the "
        "consensus framework warns against it, R5). Set t under *Membership: whom "
        "does the attacker target?* on the Data & threat model page."
    )
    return line, warning


def available(ws: Workspace, name: str) -> bool:
    return ws.holdout is not None or not MEASURES[name].needs_holdout


def _key(ws: Workspace, name: str, params: dict[str, Any]) -> str:
    return scoped_key(ws, f"privacy:{name}", {**_options(name, params), "seed": params["seed"]})


def cached_results(
    ws: Workspace, names: list[str], params: dict[str, Any]
) -> dict[str, pc.MetricResult]:
    out = {}
    for n in names:
        hit = cached_result(_key(ws, n, params))
        if hit is not None:
            out[n] = hit
    return out


def run_measures(
    ws: Workspace,
    names: list[str],
    params: dict[str, Any],
    on_result: Callable[[str, pc.MetricResult], None] | None = None,
) -> dict[str, pc.MetricResult]:
    """Compute the missing measures one by one (each cached on its own); ``on_result(name,
    result)`` as each ends, so the page can show its card before the next one starts."""
    out = cached_results(ws, names, params)
    embedded = [
        n
        for n in names
        if n not in out and available(ws, n) and _options(n, params).get("space") == "contrastive"
    ]
    if embedded and contrastive_encoder_for(ws, int(params["seed"])) is None:
        return out  # the training failed: its error is on the page
    for n in names:
        if n in out or not available(ws, n):
            continue

        def compute(progress, n=n):
            return evaluate_measures(
                ws.real.frame,
                [t.frame for t in ws.releases],
                names=[n],
                threat=ws.threat,
                holdout=ws.holdout.frame if ws.holdout is not None else None,
                schema=ws.schema,
                seed=int(params["seed"]),
                options={n: _options(n, params)},
                progress=progress,
            )[n]

        res = run_cached(_key(ws, n, params), f"{MEASURES[n].label}", compute)
        if res is not None:
            out[n] = res
            if on_result is not None:
                on_result(n, res)
    return out


def nearest_records(ws: Workspace, release: int, record: Any):
    """A real record's nearest rows of one release (table, differing-cell mask), computed
    once per (workspace, release, record) rather than on every rerun of the page."""
    from privacy_core.risk.agreement import nearest_synthetic_records

    def compute():
        real_c = pc.prepare_table(ws.real.frame, ws.schema)
        syn_c = pc.conform_table(ws.releases[release].frame, ws.schema)
        return nearest_synthetic_records(real_c, syn_c, record, schema=ws.schema)

    return get_or_compute(
        scoped_key(ws, "privacy:nearest", {"release": release, "record": record}), compute
    )


# ------------------------------------------------------------------ figure inputs
# The figures read fields only these result types have: picked by type here, so that a
# page (which sees the flat API only) gets results the figure functions accept.
def dcr_result(results: Mapping[str, pc.MetricResult]) -> DcrResult | None:
    """The DCR result among ``results`` (the distance histogram's input), or None."""
    res = results.get("dcr")
    return res if isinstance(res, DcrResult) else None


def attack_results(
    results: Mapping[str, pc.MetricResult], names: Sequence[str] = ATTACKS
) -> list[AttackResult]:
    """The attacks' results among ``results``, in the order of ``names``: the input of
    the attack-rates figure (training vs control vs random guess)."""
    found = (results.get(n) for n in names)
    return [res for res in found if isinstance(res, AttackResult)]


# ------------------------------------------------------------------ card text
#: An interval wider than this share of the measure's range says little about the value.


@dataclass(frozen=True)
class CardText:
    """The lines of a measure's card under its headline value.

    ``interval``: the headline's interval and the measure's settings; ``rates``: raw
    success rates side by side (the attack, its control, the random guess) — one scale;
    ``risk_note``: what the normalised headline is; ``baseline``: a same-scale reference
    of a non-attack measure; ``uninformative``: why the interval is too wide to read and
    what would narrow it.
    """

    interval: str
    rates: str | None = None
    risk_note: str | None = None
    baseline: str | None = None
    uninformative: str | None = None


def _attack_rates(res: pc.MetricResult) -> tuple[float, float | None, float] | None:
    ex = res.extra
    if ex.get("attack_rate") is None or ex.get("baseline_rate") is None:
        return None
    control = ex.get("control_rate")
    return (
        float(ex["attack_rate"]),
        None if control is None else float(control),
        float(ex["baseline_rate"]),
    )


def interval_width_share(res: pc.MetricResult) -> float | None:
    """Width of the headline interval as a share of the measure's range (None without)."""
    if res.ci is None:
        return None
    lo, hi = (float(x) for x in res.ci)
    span = float(res.bounds[1]) - float(res.bounds[0])
    if not (np.isfinite(lo) and np.isfinite(hi)) or span <= 0:
        return None
    return (hi - lo) / span


def _narrowing(name: str, res: pc.MetricResult) -> str:
    """Why this measure's interval is wide and what would narrow it."""
    if name == "gtcap":
        kept = res.extra.get("n_kept")
        attributions = getattr(res, "attributions", None)
        counts = ""
        if attributions is not None and len(attributions):
            by = attributions.groupby("source")["matches"].sum()
            counts = (
                f", and they match {int(by.get('training', 0)):,} training and "
                f"{int(by.get('holdout', 0)):,} holdout record(s)"
            )
        kept_text = (
            f"only {int(kept):,} synthetic record(s) pass the WEAP filter (every "
            "synthetic record within their match class shares one sensitive value)"
            if kept is not None
            else "few synthetic records pass the WEAP filter"
        )
        return (
            f"GTCAP rests on few attributions: {kept_text}{counts}, so G_T and G_H are "
            "ratios of small counts. More attributions would narrow it: a smaller "
            "matching radius (settings above) keeps more synthetic records, because "
            "finer match classes are more often homogeneous (a larger radius keeps "
            "fewer); more training and holdout rows give each kept record more real "
            "records to attribute to."
        )
    rates = _attack_rates(res)
    if rates is not None:
        control = rates[1]
        extra = ""
        if control is not None and control > 0.8:
            extra = (
                f" The control attack already succeeds {control:.0%} of the time, and "
                "the risk divides by 1 − control: little is left to learn, so any "
                "difference is magnified."
            )
        return (
            "The risk combines the uncertainty of the attack's and the control's success "
            f"rates.{extra} More attack targets (settings: attack targets per attack, "
            "0 = every record) or a larger holdout would narrow it."
        )
    return (
        "The interval rests on few records; larger real, holdout and synthetic tables "
        "would narrow it."
    )


def uninformative_note(name: str, res: pc.MetricResult) -> str | None:
    """The general rule of every card: an interval wider than half the measure's range
    is flagged, with the reason and what would narrow it; None otherwise."""
    share = interval_width_share(res)
    if share is None or share <= UNINFORMATIVE_WIDTH:
        return None
    lo, hi = res.ci  # type: ignore[misc]
    return (
        f"**Uninformative interval:** {lo:.3f} – {hi:.3f} spans {share:.0%} of the "
        f"measure's range ({res.bounds[0]:g} to {res.bounds[1]:g}), so the value "
        f"{res.value:.3f} says little on its own. {_narrowing(name, res)}"
    )


def sample_note(res: pc.MetricResult) -> str:
    """Say so when a register-size table was measured on a seeded sample of its query
    records (each still compared with the whole reference table); "" otherwise."""
    p = res.params
    if p.get("query_sample"):
        return (
            f"measured on a seeded sample of {p['n_queries_synthetic']:,} synthetic and "
            f"{p['n_queries_real']:,} real records, each against the whole training table "
            "(the interval includes the sampling)"
        )
    if p.get("targets_sampled"):
        return (
            f"{p['n_targets']:,} targets, a seeded sample of the real records, each "
            "against the whole release (the interval includes the sampling)"
        )
    return ""


def card_text(name: str, res: pc.MetricResult) -> CardText:
    """What a measure's card says under its headline, with like shown next to like.

    Attacks report a normalised risk (attack − control) / (1 − control); their random
    guess is a raw success rate, so it is shown next to the attack's and the control's
    raw rates, never next to the risk.
    """
    parts = [fmt_ci(res.ci)]
    if name == "singling_out" and "mode" in res.params:
        from privacy_core.risk.attacks.predicates import describe_configuration

        parts.append(describe_configuration(res))
    if "replicates" in res.extra:
        parts.append(f"mean of {len(res.extra['replicates'])} releases, sd {res.extra['sd']:.3f}")
    parts.append(sample_note(res))
    interval = " · ".join(p for p in parts if p)
    rates = _attack_rates(res)
    if rates is None:
        baseline = None if res.baseline is None else f"baseline {res.baseline:.3f}"
        targets = targets_text(res.extra)
        if baseline is not None and targets:
            # sdcMicro's classics: how many targets each side rests on, so that a
            # baseline from a handful of holdout records reads as the thin evidence it is
            baseline = f"{baseline} · {targets}"
        return CardText(
            interval=interval, baseline=baseline, uninformative=uninformative_note(name, res)
        )
    attack, control, guess = rates
    score = res.extra.get("score_name")
    kind = "Success rates" if score in (None, "accuracy") else f"Scores ({score})"
    shown = [f"attack {attack:.3f}"]
    if control is not None:
        shown.append(f"control (non-members) {control:.3f}")
    shown.append(f"random guess {guess:.3f}")
    if control is not None:
        note = (
            f"The headline {res.value:.3f} is the normalised risk (attack − control) / "
            "(1 − control): the share of what the attack misses on non-members that it "
            "gets right on the release's training records (0 = members are no easier "
            "to attack than anyone)."
        )
    else:
        note = (
            f"The headline {res.value:.3f} is the attack's raw success rate: without a "
            "holdout there is no control to subtract."
        )
    return CardText(
        interval=interval,
        rates=f"{kind}: " + " · ".join(shown),
        risk_note=note,
        uninformative=uninformative_note(name, res),
    )


# ------------------------------------------------------------------ sdcMicro's counts
# What each sdcMicro measure counts as disclosed, in the words of its caption.
SDC_DISCLOSED = {
    "sample_uniques": ("sample uniques (pooled f_k = 1)", "have their key reproduced"),
    "k_anonymity": (
        "records violating {k}-anonymity",
        "are singled out (their key on fewer than {k} release records)",
    ),
    "l_diversity": (
        "records in key groups that are not {l}-diverse",
        "have their sensitive value pinned down by the release's group",
    ),
}


def sdc_caption(name: str, res: pc.MetricResult) -> str:
    """The caption under sdcMicro's counts on a card: the real table's global risk and
    what the measure found disclosed, members and holdout records side by side (the
    holdout's share is what a fresh real sample discloses by chance)."""
    sdc = res.extra["sdc"]
    head = (
        f"The real table's global risk {sdc['real']['global_risk']:.3f} (expected "
        f"re-identifications {sdc['real']['expected_reidentifications']:.1f}). "
    )
    if name not in SDC_DISCLOSED:
        return (
            head + f"The release reproduces {sdc['rare_member_keys_reproduced']:,} rare "
            f"training records' keys, {sdc['rare_member_keys_reproduced_with_sensitive']:,} "
            f"with the sensitive value, {sdc['reproduced_with_l_1']:,} in a release group "
            "with one sensitive value (l = 1). Templ, Kowarik & Meindl (2015)."
        )
    targets, verb = (t.format(k=sdc.get("k"), l=sdc.get("l")) for t in SDC_DISCLOSED[name])
    rec = res.records
    if rec is None or "hit" not in rec:  # a result stored without its records table
        return head + "Templ, Kowarik & Meindl (2015)."
    member = rec["member"].astype(bool)
    hit = rec["hit"].astype(bool)
    found = f"{int((hit & member).sum()):,} of the {int(member.sum()):,} training {targets} {verb}"
    if (~member).any():
        found += f"; {int((hit & ~member).sum()):,} of the {int((~member).sum()):,} holdout ones"
    return head + found + ". Templ, Kowarik & Meindl (2015)."


def contrastive_encoder_for(ws: Workspace, seed: int) -> Any:
    """Train (once, with a progress bar) the contrastive encoder that the distance
    measures of this workspace use in ``space="contrastive"``: the engine's in-memory
    cache then hands the same fitted encoder to each of them."""

    def compute(progress):
        real_c = pc.prepare_table(ws.real.frame, ws.schema)
        return pc.contrastive_encoder(real_c, ws.schema, seed=seed, progress=progress)

    return run_cached(
        scoped_key(replace(ws, releases=()), "contrastive-encoder", {"seed": seed}),
        "Training the contrastive encoder on the real table",
        compute,
    )


def embedding_points(ws: Workspace, seed: int) -> Any:
    """2-D points of the real table and the candidate's first release in the contrastive
    embedding (computed once per workspace and seed)."""

    def compute():
        encoder = contrastive_encoder_for(ws, seed)
        if encoder is None:
            return None
        real_c = pc.prepare_table(ws.real.frame, ws.schema)
        syn_c = pc.conform_table(ws.releases[0].frame, ws.schema)
        return pc.project_2d(encoder, {"real": real_c, "synthetic": syn_c}, seed=seed)

    return get_or_compute(scoped_key(ws, "privacy:embedding-points", {"seed": seed}), compute)
