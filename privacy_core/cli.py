"""Command line: ``python -m privacy_core COMMAND [options]``.

Contract (DESIGN.md): exit 0 on success; exit 2 on bad input with one line on stderr that
begins ``error:``; never a traceback for bad input. Evaluating commands print JSON of the
shape ``{"command", "n_real", "n_synthetic", "seed", "metrics": {...}}`` to ``--json``
(``-`` for stdout) and a short human summary otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .data import MISSING, infer_schema, load_table, prepare_table
from .datasets import simulate_health
from .errors import PrivacyCoreError
from .exports import safe_csv
from .results import MetricResult, jsonable
from .threat import ThreatModel


class CLIError(PrivacyCoreError):
    """Bad command-line usage."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, no usage dump
        sys.stderr.write(f"error: {message} (see `{self.prog} --help`)\n")
        sys.exit(2)


# ----------------------------------------------------------------------------- helpers
def _csv_list(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def _load(path: str, label: str) -> pd.DataFrame:
    if not path:
        raise CLIError(f"--{label} is required.")
    return load_table(path)


def _write_table(frame: pd.DataFrame, out: str) -> None:
    path = Path(out)
    export = frame.copy()
    for col in export.columns:
        if export[col].dtype == object:
            export[col] = export[col].where(export[col] != MISSING, None)
    try:
        if path.suffix.lower() == ".parquet":
            export.to_parquet(path, index=False)
        else:
            # a CSV is opened in spreadsheets: its text cells must not start formulas
            path.write_text(safe_csv(export), encoding="utf-8", newline="")
    except OSError as exc:
        raise CLIError(f"cannot write {out!r}: {exc.strerror or exc}") from None


def _threat(args: argparse.Namespace, real: pd.DataFrame) -> ThreatModel:
    qis = _csv_list(args.qi)
    sensitive = _csv_list(args.sensitive)
    if not sensitive:
        raise CLIError("--sensitive is required: the column the attacker wants to learn.")
    if not qis:
        # every other column the schema keeps: ID-like and constant columns are excluded
        # by inference (an attacker's "knowledge" of a row number is not a QI)
        kept = set(infer_schema(real).included)
        qis = [c for c in real.columns if c not in sensitive and c in kept]
        if not qis:
            raise CLIError("No column is left to be a quasi-identifier: name them with --qi.")
        excluded = [c for c in real.columns if c not in sensitive and c not in kept]
        if excluded:
            print(f"note: quasi-identifiers default to every other column; excluded as "
                  f"ID-like or constant: {', '.join(map(str, excluded))}", file=sys.stderr)
    # membership prevalence (consensus R4, R5): only the commands with the flags set them
    return ThreatModel(qis, sensitive,
                       sampling_fraction=getattr(args, "sampling_fraction", None),
                       membership_scenario=getattr(args, "scenario", None) or "A",
                       population_share=getattr(args, "population_share", None))


def _membership_options(args: argparse.Namespace) -> dict[str, Any]:
    return {"h": args.h, "beta": args.beta}


def _note_fallback(args: argparse.Namespace, names: Sequence[str]) -> None:
    """Say when membership F_rel uses the arbitrary fallback t. ``privacy`` and ``report``
    pass on the measure's own warning (with the value of t); ``calibrate`` records the
    measures' warnings as notes instead, so it warns here, printed after a successful
    run like every warning."""
    if "membership" in names and args.sampling_fraction is None:
        from .errors import UntrustworthyResultWarning

        warnings.warn(
            "no --sampling-fraction given: membership F_rel falls back to t = |training| / "
            "(|training| + |holdout|) in every calibration cell. That says how the real "
            "rows were split, not the share of the population in the training data, so "
            "it is arbitrary (consensus R5, Figure 3).", UntrustworthyResultWarning,
            stacklevel=2)


def _emit(args: argparse.Namespace, payload: dict[str, Any], summary: str) -> None:
    # strict JSON (no bare NaN / Infinity tokens): jsonable maps them to null
    text = json.dumps(jsonable(payload), indent=2, allow_nan=False)
    if args.json == "-":
        sys.stdout.write(text + "\n")
        return
    if args.json:
        try:
            Path(args.json).write_text(text + "\n")
        except OSError as exc:
            raise CLIError(f"cannot write {args.json!r}: {exc.strerror or exc}") from None
    sys.stdout.write(summary + "\n")


def _payload(command: str, real: pd.DataFrame, synthetic: Sequence[pd.DataFrame], seed: int,
             metrics: dict[str, MetricResult | dict]) -> dict[str, Any]:
    return {
        "command": command,
        "n_real": len(real),
        "n_synthetic": [len(s) for s in synthetic],
        "seed": seed,
        "metrics": {name: (m.to_dict() if hasattr(m, "to_dict") else m)
                    for name, m in metrics.items()},
    }


def _summary(metrics: dict[str, MetricResult]) -> str:
    lines = []
    for name, m in metrics.items():
        ci = f" [{m.ci[0]:.3f}, {m.ci[1]:.3f}]" if m.ci else ""
        lines.append(f"{name}: {m.value:.4f}{ci} ({m.goal} is better)")
        if name == "singling_out" and "mode" in m.params:
            from .risk.attacks.predicates import describe_configuration

            lines[-1] += f"; {describe_configuration(m)}"
    return "\n".join(lines)


# ----------------------------------------------------------------------------- commands
def cmd_demo_data(args: argparse.Namespace) -> int:
    frame = simulate_health(args.n, kappa=args.kappa, seed=args.seed)
    _write_table(frame, args.out)
    sys.stdout.write(f"wrote {len(frame)} simulated records (kappa={args.kappa}, "
                     f"seed={args.seed}) to {args.out}\n")
    return 0


def cmd_synthesize(args: argparse.Namespace) -> int:
    from .synth import make_generator

    real = _load(args.real, "real")
    params: dict[str, Any] = {}
    if args.min_leaf is not None:
        params["min_leaf"] = args.min_leaf
    if args.epsilon is not None:
        params["epsilon"] = args.epsilon
    gen = make_generator(args.method, **params)
    schema = infer_schema(real)
    real_c = prepare_table(real, schema)
    gen.fit(real_c, seed=args.seed)
    # the generator's default size: the real table's, except HALF's half (no replacement)
    syn = gen.sample(gen.default_size() if args.n is None else args.n, seed=args.seed)
    _write_table(syn, args.out)
    sys.stdout.write(f"wrote {len(syn)} synthetic records ({args.method}, seed={args.seed}) "
                     f"to {args.out}\n")
    return 0


def _rapid_paper_study(args: argparse.Namespace, preset: dict[str, Any]) -> int:
    """``rapid --preset paper`` without --real: the paper's simulation study (§5)."""
    from .risk.rapid import rapid_paper_study, summarize_paper_study

    try:
        kappas = [float(k) for k in _csv_list(args.kappa)] or [10.0]
        taus = [float(t) for t in _csv_list(args.taus)] or [
            args.tau if args.tau is not None else preset["tau"]]
    except ValueError:
        raise CLIError("--kappa and --taus take comma-separated numbers.") from None
    study = rapid_paper_study(kappas, n_sims=args.simulations, taus=taus,
                              attackers=args.attackers or preset["attackers"],
                              n_trees=args.n_trees or preset["n_trees"], seed=args.seed)
    summary = summarize_paper_study(study)
    payload = {"command": "rapid", "preset": "paper", "seed": args.seed,
               "settings": {k: v for k, v in preset.items()},
               "study": summary.to_dict(orient="records")}
    text = "\n".join(
        f"kappa {r.kappa:g} {r.attacker} tau {r.tau:g}: RAPID {r.rapid:.4f} ± {r.rapid_sd:.4f} "
        f"(se {r.rapid_se:.4f}), accuracy {r.accuracy:.4f}; oracle RAPID {r.oracle_rapid:.4f}, "
        f"accuracy {r.oracle_accuracy:.4f} ({r.n_sims} simulations)"
        for r in summary.itertuples())
    _emit(args, payload, text)
    return 0


def cmd_rapid(args: argparse.Namespace) -> int:
    from .risk.rapid import DEFAULT_ATTACKERS, rapid, rapid_null_calibration, \
        rapid_paper_preset, rapid_permutation_threshold

    preset = rapid_paper_preset() if args.preset == "paper" else None
    if preset is not None and not args.real:
        return _rapid_paper_study(args, preset)
    real = _load(args.real, "real")
    if not args.synthetic:
        raise CLIError("--synthetic is required (repeat it for several releases).")
    synthetic = [load_table(p) for p in args.synthetic]
    if preset is not None:  # the paper's set-up unless an option says otherwise
        args.sensitive = args.sensitive or preset["sensitive"]
        args.qi = args.qi or ",".join(preset["quasi_identifiers"])
    threat = _threat(args, real)
    attackers = args.attackers or (preset["attackers"] if preset else DEFAULT_ATTACKERS)
    tau = args.tau if args.tau is not None or preset is None else preset["tau"]
    n_trees = args.n_trees or (preset["n_trees"] if preset else 500)
    control = _load(args.control, "control") if args.control else None
    result = rapid(real, synthetic, threat=threat, control=control, attackers=attackers,
                   tau=tau, epsilon=args.epsilon, method=args.method, error=args.error,
                   bootstrap=args.bootstrap, n_trees=n_trees, seed=args.seed)
    payload = _payload("rapid", real, synthetic, args.seed, {"rapid": result})
    lo, hi = result.ci or (float("nan"), float("nan"))
    head = result.headline
    perf = "accuracy" if result.kind == "categorical" else "r2"
    summary = (f"RAPID ({result.kind}, threshold {result.threshold:g}): headline (max, "
               f"strongest attacker {head['attacker']}) {result.rate_max:.4f}; mean of "
               f"attackers {result.value:.4f} [{lo:.4f}, {hi:.4f}]\n" + "\n".join(
                   f"  {a}: {v['value']:.4f} ({perf} {v.get(perf) or float('nan'):.4f})"
                   for a, v in result.by_attacker.items()))
    gap = result.members_vs_non_members()
    if gap is not None:
        d, rel = gap["difference"], gap["relative"]
        summary += (f"\nmembers {gap['members']['value']:.4f} vs non-members (holdout) "
                    f"{gap['non_members']['value']:.4f} ({gap['attacker']}): difference "
                    f"{d['value']:.4f} [{d['ci'][0]:.4f}, {d['ci'][1]:.4f}], relative "
                    f"{rel['value']:.4f}")
    if args.calibrate:
        if args.calibrate == "null-rapid" and args.permute == "labels":
            cal = rapid_null_calibration(result, seed=args.seed,
                                         **({"n_permutations": args.permutations}
                                            if args.permutations else {}))
        else:
            cal = rapid_permutation_threshold(
                real, synthetic, threat=threat, rule=args.calibrate, permute=args.permute,
                attackers=attackers, n_permutations=args.permutations, method=args.method,
                error=args.error, n_trees=min(n_trees, 200), seed=args.seed)
        payload["calibration"] = cal.to_dict()
        summary += (f"\ncalibration ({cal.rule}): suggested threshold "
                    f"{cal.suggested_threshold:g}")
    _emit(args, payload, summary)
    return 0


def _measure_inputs(args: argparse.Namespace) -> tuple[pd.DataFrame, list[pd.DataFrame],
                                                      pd.DataFrame | None]:
    real = _load(args.real, "real")
    if not args.synthetic:
        raise CLIError("--synthetic is required (repeat it for several releases).")
    synthetic = [load_table(p) for p in args.synthetic]
    control = load_table(args.control) if args.control else None
    return real, synthetic, control


def _run_measures(args: argparse.Namespace, family: str, default: list[str],
                  options: dict[str, dict[str, Any]]) -> tuple[dict[str, MetricResult], Any]:
    from .measures import evaluate_measures, get_measure

    real, synthetic, control = _measure_inputs(args)
    names = _csv_list(args.metrics) or default
    for n in names:
        if get_measure(n).family != family:
            raise CLIError(f"{n!r} is not a {family} measure; use the `"
                           f"{get_measure(n).family}` command for it.")
    if control is None:
        skipped = [n for n in names if get_measure(n).needs_holdout]
        if skipped and not _csv_list(args.metrics):
            names = [n for n in names if n not in skipped]
            sys.stderr.write(f"warning: no --control given; skipped {', '.join(skipped)}\n")
    needs_threat = any(get_measure(n).needs_threat for n in names)
    threat = _threat(args, real) if (needs_threat or args.sensitive) else None
    results = evaluate_measures(real, synthetic, names=names, threat=threat, holdout=control,
                                seed=args.seed, options=options)
    return results, (real, synthetic, control, threat)


def cmd_privacy(args: argparse.Namespace) -> int:
    from .measures import measure_names

    space = {"space": args.space}
    options: dict[str, dict[str, Any]] = {
        "dcr": {"alpha": args.alpha, **space}, "knn": {"alpha": args.alpha, "k_max": args.k,
                                                      **space},
        # "auto": 500 predicates, 2,000 per configuration under the paper protocol
        "singling_out": {"n_attacks": args.n_attacks or "auto", "mode": args.singling_out_mode,
                         "n_cols": args.singling_out_cols, **space},
        "linkability": {"n_attacks": args.n_attacks, **space},
        "inference": {"n_attacks": args.n_attacks, **space},
        "ml_inference": {"n_attacks": args.n_attacks},
        "gtcap": {"radius": args.radius, "weighting": _gtcap_weighting(args)},
        "membership": _membership_options(args),
        "rapid": {"bootstrap": 200},
        "mds": _mds_options(args),
    }
    default = [n for n in measure_names("privacy") if n != "rapid"]
    results, (real, synthetic, _, _) = _run_measures(args, "privacy", default, options)
    _emit(args, _payload("privacy", real, synthetic, args.seed, results), _summary(results))
    return 0


def cmd_fidelity(args: argparse.Namespace) -> int:
    from .measures import measure_names

    options = {"wasserstein": {"max_rows": args.max_rows}}
    results, (real, synthetic, _, _) = _run_measures(
        args, "fidelity", measure_names("fidelity"), options)
    _emit(args, _payload("fidelity", real, synthetic, args.seed, results), _summary(results))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    names = _csv_list(args.metrics) or ["rapid", "ims", "dcr", "singling_out", "linkability",
                                        "inference", "wasserstein", "query_error",
                                        "discriminator"]
    # a bad --db fails now, not after minutes of computing
    store = _open_store(args.db) if args.db else None
    try:
        return _report(args, names, store)
    finally:
        if store is not None:
            store.close()


def _report(args: argparse.Namespace, names: list[str], store: Any) -> int:
    from .data import infer_schema
    from .measures import evaluate_measures, get_measure
    from .report import build_report, render_html, render_pdf

    real, synthetic, control = _measure_inputs(args)
    threat = _threat(args, real)
    if control is None:
        names = [n for n in names if not get_measure(n).needs_holdout]
    measure_opts = {"rapid": {"bootstrap": 200}, "membership": _membership_options(args)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = infer_schema(real)
    results = evaluate_measures(real, synthetic, names=names, threat=threat, holdout=control,
                                schema=schema, seed=args.seed, options=measure_opts)
    calibration = None
    if args.calibrate:
        from .calibration import calibrate

        privacy = [n for n in names if get_measure(n).family == "privacy"]
        calibration = calibrate(real, threat=threat, holdout=control, schema=schema,
                                measures=privacy, max_training=args.calibrate_max_training,
                                options=measure_opts, seed=args.seed)
    report = build_report(real=real, synthetic=synthetic, results=results, threat=threat,
                          schema=schema, holdout=control,
                          names={"real": args.real, "synthetic": list(args.synthetic),
                                 "holdout": args.control},
                          decision=args.decision, notes=args.notes or "",
                          include_records=args.include_records, calibration=calibration,
                          reviewer=args.reviewer, role=args.role,
                          review_date=_review_date(args.date),
                          answers={"qi_justification": args.qi_justification,
                                   "same_population": args.same_population,
                                   "thresholds_set_by": args.thresholds_set_by,
                                   "scenario": args.review_of},
                          thresholds_set_by=args.thresholds_set_by)
    try:
        if Path(args.out).suffix.lower() == ".pdf":
            Path(args.out).write_bytes(render_pdf(report))
        else:
            Path(args.out).write_text(render_html(report, _report_figures(results,
                                                                          calibration)),
                                      encoding="utf-8")
    except OSError as exc:
        raise CLIError(f"cannot write {args.out!r}: {exc.strerror or exc}") from None
    payload = _payload("report", real, synthetic, args.seed, results)
    summary = _summary(results) + f"\nwrote {args.out}"
    if store is not None:
        stored, sentence = _store_review(store, report)
        payload["stored_review"] = stored
        summary += "\n" + sentence
        if args.json == "-":  # stdout holds the JSON alone
            sys.stderr.write(sentence + "\n")
    _emit(args, payload, summary)
    return 0


def _open_store(url: str) -> Any:
    from .history import ReviewStore

    return ReviewStore(url)


def _store_review(store: Any, report: Any) -> tuple[dict[str, Any], str]:
    """Save the review; say whether it reproduces the earlier reviews of the same inputs."""
    from .history import reproduces

    earlier = store.same_inputs(report)
    review_id = store.save(report)
    sentence = f"stored review {review_id} in {store.location}"
    same: bool | None = None
    if earlier:
        mine = store.get(review_id)
        differ = [i for i in earlier if not reproduces(store.get(i), mine)]
        same = not differ
        ids = ", ".join(map(str, earlier))
        sentence += (f"; same inputs as review {ids}: "
                     + ("every number identical" if same else
                        f"numbers differ from review {', '.join(map(str, differ))} (see "
                        f"`history --compare {differ[-1]},{review_id}`)"))
    return {"id": review_id, "same_inputs": earlier, "reproduces": same}, sentence


def _review_date(text: str | None) -> Any:
    import datetime as dt

    if not text:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise CLIError(f"--date must be a date as YYYY-MM-DD; got {text!r}.") from None


def _report_figures(results: dict[str, MetricResult], calibration: Any = None) -> list[Any]:
    """The key figures of the pages, for the HTML report (the app's Review page draws the
    same ones)."""
    from . import plots
    from .report import ReportFigure

    figures = []
    if "rapid" in results:
        figures.append(ReportFigure("inference", "RAPID against the threshold",
                                    plots.rapid_threshold_curve(results["rapid"])))
    attacks = [results[n] for n in ("singling_out", "linkability", "inference")
               if n in results and hasattr(results[n], "rates")]
    if attacks:
        figures.append(ReportFigure("attacks", "Attack success: training vs control vs random",
                                    plots.attack_rates_figure(attacks)))
    if "dcr" in results and hasattr(results["dcr"], "srd"):
        figures.append(ReportFigure("similarity", "Distance to the closest record",
                                    plots.dcr_histogram(results["dcr"])))
    fid = {m: r for m, r in results.items()
           if m in ("wasserstein", "mla", "query_error", "discriminator")}
    if fid:
        figures.append(ReportFigure("fidelity", "Fidelity and utility",
                                    plots.fidelity_reference_figure({"release": fid})))
    if calibration is not None:
        figures.append(ReportFigure("calibration", "Each measure against the leak fraction",
                                    plots.calibration_figure(calibration)))
    return figures

def cmd_history(args: argparse.Namespace) -> int:
    from .history import ReviewStore

    if args.show is not None and args.compare:
        raise CLIError("give --show ID or --compare A,B, not both.")
    pair = _review_pair(args.compare) if args.compare else None
    with ReviewStore(args.db, create=False) as store:
        if args.show is not None:
            doc = store.get(args.show)
            text = json.dumps(jsonable({"command": "history", "review": doc}), indent=2,
                              allow_nan=False)
            if args.json and args.json != "-":
                _emit(args, {"command": "history", "review": doc},
                      f"wrote review {args.show} to {args.json}")
            else:
                sys.stdout.write(text + "\n")
            return 0
        if pair is not None:
            comparison = store.compare(*pair)
            _emit(args, {"command": "history", "compare": comparison.to_dict()},
                  _comparison_text(comparison))
            return 0
        reviews = store.list()
        _emit(args, {"command": "history", "database": store.location,
                     "reviews": [r.to_dict() for r in reviews]},
              _history_table(reviews, store.location))
    return 0


def _review_pair(text: str) -> tuple[int, int]:
    parts = _csv_list(text)
    try:
        a, b = (int(p) for p in parts)
    except ValueError:
        raise CLIError(f"--compare takes two review ids, e.g. 1,3; got {text!r}.") from None
    return a, b


def _history_table(reviews: Sequence[Any], location: str) -> str:
    if not reviews:
        return (f"no reviews stored in {location} yet; store one with "
                "`report ... --db URL`.")
    lines = [(f"{'id':>4}  {'created':<25}  {'decision':<20}  {'reviewer':<16}  "
              f"{'real data':<16}  synthetic data, headline numbers")]
    for r in reviews:
        heads = "; ".join(
            (f"{cand}: " if len(r.headline) > 1 else "")
            + ", ".join(f"{m} {v:.4f}" if v is not None else f"{m} —"
                        for m, v in values.items())
            for cand, values in r.headline.items())
        lines.append(f"{r.id:>4}  {r.created:<25}  {r.decision:<20}  "
                     f"{(r.reviewer or '-')[:16]:<16}  {r.real_fingerprint:<16}  "
                     f"{','.join(r.synthetic_fingerprints)}  {heads}")
    return "\n".join(lines)


def _comparison_text(comparison: Any) -> str:
    lines = [f"review {comparison.a_id} -> review {comparison.b_id}: {comparison.summary()}"]
    lines += [f"  changed: {line}" for line in comparison.inputs]
    for row in comparison.metrics.to_dict("records"):
        if row["moved"]:
            lines.append(f"  moved: {row['candidate']} {row['metric']} "
                         f"{row['value_a']:.4f} -> {row['value_b']:.4f}")
    return "\n".join(lines)


def _float_list(text: str | None, option: str) -> list[float] | None:
    if not text:
        return None
    try:
        return [float(v) for v in _csv_list(text)]
    except ValueError:
        raise CLIError(f"{option} must be comma-separated numbers; got {text!r}.") from None


def cmd_calibrate(args: argparse.Namespace) -> int:
    from .calibration import DEFAULT_LEVELS, DEFAULT_RATIOS, calibrate

    real = _load(args.real, "real")
    if args.synthetic:
        raise CLIError("calibrate builds its own reference releases (a copy of the training "
                       "rows, unseen real rows and mixtures); --synthetic is not used.")
    control = load_table(args.control) if args.control else None
    if control is not None and list(control.columns) != list(real.columns):
        raise CLIError("--control must have the same columns as --real.")
    threat = _threat(args, real)
    from .measures import measure_names

    result = calibrate(
        real, threat=threat, holdout=control, measures=_csv_list(args.metrics) or None,
        options={"membership": _membership_options(args)},
        levels=_float_list(args.levels, "--levels") or DEFAULT_LEVELS,
        ratios=_float_list(args.ratios, "--ratios") or DEFAULT_RATIOS,
        max_training=args.max_training, seed=args.seed)
    _note_fallback(args, _csv_list(args.metrics) or measure_names("privacy"))
    payload = {"command": "calibrate", "n_real": result.n_real, "n_synthetic": [],
               "seed": args.seed, **result.to_dict()}
    frame = result.summary_frame()
    lines = [f"calibration: {result.params['n_training']} training rows, ratios "
             f"{', '.join(f'{r:g}:1' for r in result.ratios)}, "
             f"{result.params['seconds']:.1f} s",
             f"{'measure':<34} {'floor':>6} {'ceiling':>7} {'slope':>6} {'gap':>5}  result"]
    for r in frame.to_dict("records"):
        verdict = "pass" if r["pass"] else f"FAIL: {r['reasons']}"
        lines.append(f"{r['measure']:<34} {r['floor']:>6.3f} {r['ceiling']:>7.3f} "
                     f"{r['slope']:>6.2f} {r['ratio_gap']:>5.2f}  {verdict}")
    _emit(args, payload, "\n".join(lines))
    return 0


# ----------------------------------------------------------------------------- parser
def _gtcap_weighting(args: argparse.Namespace) -> str:
    from .risk.cap import DEPRECATED_WEIGHTINGS

    name = args.gtcap_weighting
    if name in DEPRECATED_WEIGHTINGS:  # the engine's DeprecationWarning is not shown here
        new = DEPRECATED_WEIGHTINGS[name]
        sys.stderr.write(f"warning: --gtcap-weighting {name} is deprecated: it is a box of "
                         f"half-width radius per column pooled over records; use {new}.\n")
        return new
    return name


def _add_membership(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(
        "membership prevalence (consensus R4, R5, Figure 3)",
        "Who the attacker targets decides how many of the targets are members, and F_rel "
        "is relative to a naive attacker who calls every target a member.")
    g.add_argument("--sampling-fraction", type=float, default=None, metavar="T",
                   help="t: the share of the population that is in the training data, "
                        "in (0, 1); e.g. 0.05 when the training data hold 5%% of the "
                        "patients the attacker might target. Without it F_rel falls back "
                        "to |training| / (|training| + |holdout|), which only says how the "
                        "real rows were split and is arbitrary")
    g.add_argument("--h", type=int, default=0, metavar="H",
                   help="matching tolerance: a target is called a member when at most H of "
                        "its binned quasi-identifiers differ from some synthetic record "
                        "(default 0: an exact match)")
    g.add_argument("--beta", type=float, default=1.0,
                   help="weight of recall against precision in the F-beta score: 1 = F1; "
                        "0.5 when wrongly calling a non-member a member is costly, 2 when "
                        "missing a member is (default 1)")
    g.add_argument("--scenario", type=str.upper, default="A", choices=["A", "B"],
                   help="A: targets drawn from the population the training data were "
                        "sampled from (member prevalence t); B: targets drawn from a wider "
                        "superpopulation, where membership itself can reveal the sensitive "
                        "trait (member prevalence t x --population-share)")
    g.add_argument("--population-share", type=float, default=None, metavar="P",
                   help="scenario B: the share of the superpopulation that belongs to the "
                        "training data's population, in (0, 1]")


def _add_mds(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("membership disclosure score (mds; needs --control)")
    g.add_argument("--shadow-method", default="cart",
                   help="the built-in generator each shadow model is (cart, autoregressive, "
                        "histogram, dp-mst, ...; default cart)")
    g.add_argument("--shadow-models", type=int, default=10,
                   help="shadow models m; every record trains floor(m/2) of them (10)")
    g.add_argument("--shadow-sets", type=int, default=5,
                   help="tables each shadow model emits (5)")
    g.add_argument("--mds-records", type=int, default=2000,
                   help="records whose disclosure score is computed, a seeded subsample (2000)")
    g.add_argument("--mds-reading", default="relative", choices=["relative", "max"],
                   help="relative: (MDS - HALF) / (SELF - HALF), 0 = emits unseen records, "
                        "1 = copies; max: the paper's raw distance")
    g.add_argument("--n-jobs", type=int, default=1,
                   help="worker processes for the shadow models (-1 = all cores)")
    g.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="fit the shadow models on this Ray cluster ('local' starts one)")


def _mds_options(args: argparse.Namespace) -> dict[str, Any]:
    return {"shadow_method": args.shadow_method, "shadow_models": args.shadow_models,
            "shadow_sets": args.shadow_sets, "records": args.mds_records,
            "reading": args.mds_reading, "n_jobs": args.n_jobs,
            "backend": "ray" if args.ray else "local", "ray_address": args.ray}


def _add_shared(p: argparse.ArgumentParser) -> None:
    p.add_argument("--real", help="original / training data (CSV or Parquet)")
    p.add_argument("--synthetic", action="append", default=[],
                   help="synthetic release (repeat for several releases or replicates)")
    p.add_argument("--control", help="real holdout rows the generator never saw")
    p.add_argument("--qi", help="quasi-identifiers, comma separated (default: all but sensitive)")
    p.add_argument("--sensitive", help="sensitive attribute(s), comma separated")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="write the JSON result to PATH ('-' for stdout)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m privacy_core",
                     description="Risk-utility review of synthetic tabular data.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("demo-data", help="write the RAPID paper's simulated health microdata")
    p.add_argument("--n", type=int, default=1000)
    p.add_argument("--kappa", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True)
    p.set_defaults(func=cmd_demo_data)

    p = sub.add_parser("synthesize", help="fit a built-in generator and write a release")
    p.add_argument("--method", default="cart")
    p.add_argument("--real", required=True)
    p.add_argument("--n", type=int, default=None,
                   help="rows to write (default: as many as the real table; for half, its "
                        "half, floor(n/2) distinct real rows drawn without replacement)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True)
    p.add_argument("--epsilon", type=float, default=None, help="privacy budget (DP generators)")
    p.add_argument("--min-leaf", type=int, default=None, help="CART minimum leaf size")
    p.set_defaults(func=cmd_synthesize)

    p = sub.add_parser("rapid", help="RAPID attribute-inference risk")
    _add_shared(p)
    p.add_argument("--tau", type=float, default=None, help="categorical threshold (default 0.3)")
    p.add_argument("--epsilon", type=float, default=None,
                   help="continuous tolerance as a proportion, not a percentage: 0.10 means "
                        "within 10 %% (default 0.10); must be below 1 for the relative and "
                        "symmetric errors, in units of y for absolute")
    p.add_argument("--error", default="relative",
                   choices=["relative", "absolute", "normalized", "symmetric"])
    p.add_argument("--method", default="marginal", choices=["marginal", "conditional", "nce"])
    p.add_argument("--attackers", default=None,
                   help="comma-separated from rf, xgb, cart, logit (default rf,xgb,logit; "
                        "the paper preset: rf,xgb,cart)")
    p.add_argument("--bootstrap", type=int, default=500)
    p.add_argument("--n-trees", type=int, default=None, help="random-forest trees (500)")
    p.add_argument("--preset", choices=["paper"], default=None,
                   help="the RAPID paper's set-up (every non-sensitive column a "
                        "quasi-identifier, disease sensitive, rf,xgb,cart, tau 0.3). Without "
                        "--real: run the paper's simulation study (n = 1000, CART release)")
    p.add_argument("--kappa", default=None,
                   help="--preset paper study: dependency strengths, comma separated (10)")
    p.add_argument("--taus", default=None,
                   help="--preset paper study: thresholds, comma separated (0.3)")
    p.add_argument("--simulations", type=int, default=10,
                   help="--preset paper study: simulations per kappa (10)")
    p.add_argument("--calibrate", nargs="?", const="null-rapid", default=None,
                   choices=["null-rapid", "pooled-scores"],
                   help="also suggest a threshold by permutation: null-rapid (default, the "
                        "paper's §2.5 rule) or pooled-scores (the earlier rule); refits use "
                        "at most 200 trees")
    p.add_argument("--permutations", type=int, default=None,
                   help="permutations for --calibrate (null-rapid: 20 refits, at least 20, "
                        "or 199 label shuffles with --permute labels; pooled-scores: 5 refits)")
    p.add_argument("--permute", default="release", choices=["release", "labels"],
                   help="null-rapid's null: y shuffled in the release with the attackers "
                        "refitted (default), or the real labels shuffled against the fitted "
                        "attackers (fast, the authors' R construction)")
    p.set_defaults(func=cmd_rapid)

    p = sub.add_parser("privacy", help="distance, attack and membership measures")
    _add_shared(p)
    p.add_argument("--metrics", help="comma-separated measure names (default: all but rapid)")
    p.add_argument("--alpha", type=float, default=2.0, help="DCR percentile in percent")
    p.add_argument("--k", type=int, default=5, help="largest k of the k-NN DCR variants")
    p.add_argument("--n-attacks", type=int, default=None,
                   help="singling-out predicates (default 500; 2,000 per configuration with "
                        "--singling-out-mode paper) and attack targets per "
                        "attack (default: every record, consensus R2)")
    p.add_argument("--radius", type=float, default=0.1, help="GTCAP radius (min-max scale)")
    p.add_argument("--gtcap-weighting", default="box_pooled",
                   choices=["box_pooled", "box_per_record", "triangular", "sphere"],
                   help="GTCAP matching and aggregation: box_pooled (a box of half-width "
                        "radius per numeric column, attributions pooled over records; "
                        "'sphere' is its deprecated name), box_per_record (the mean of the "
                        "per-synthetic-record TCAP, eq. 7) or triangular (reference code)")
    p.add_argument("--singling-out-mode", default="multivariate",
                   choices=["multivariate", "univariate", "paper"],
                   help="singling-out predicates: several columns, or one rare value; "
                        "'paper': the risk-insertion papers' protocol, the highest risk over "
                        "univariate and 3-12 columns with 2,000 predicates each (every "
                        "configuration is in the JSON)")
    p.add_argument("--singling-out-cols", type=int, default=3,
                   help="columns per multivariate singling-out predicate")
    p.add_argument("--space", default="shared", choices=["shared", "contrastive"],
                   help="distance space of dcr, knn, inference and linkability, and where "
                        "singling out finds its targets: the shared encoding (min-max, "
                        "one-hot; Anonymeter's random predicates) or a contrastive record "
                        "embedding trained on --real (singling out then targets the "
                        "release's most isolated records, the paper's SO + CL; each metric's "
                        "params.space records it)")
    _add_membership(p)
    _add_mds(p)
    p.set_defaults(func=cmd_privacy)

    p = sub.add_parser("fidelity", help="Wasserstein fidelity, ML affinity, query error, "
                                        "discriminator")
    _add_shared(p)
    p.add_argument("--metrics", help="comma-separated measure names (default: all)")
    p.add_argument("--max-rows", type=int, default=3000,
                   help="subsample size for pairs with a numeric column (Wasserstein)")
    p.set_defaults(func=cmd_fidelity)

    p = sub.add_parser("report", help="run the review and write an HTML report")
    _add_shared(p)
    p.add_argument("--metrics", help="comma-separated measure names")
    p.add_argument("--out", required=True,
                   help="report file to write: HTML, or a PDF sign-off sheet when it ends in .pdf")
    p.add_argument("--decision", default="undecided",
                   choices=["undecided", "release", "release with changes", "do not release"])
    p.add_argument("--notes", default="")
    p.add_argument("--reviewer", default="", help="who signs the review off (PDF, HTML)")
    p.add_argument("--role", default="", help="the reviewer's role")
    p.add_argument("--date", help="date of the review, YYYY-MM-DD (default: today, UTC)")
    # the consensus checklist's questions only a person can answer (R1, R4, R8, R10)
    p.add_argument("--qi-justification", default="",
                   help="R1: why these quasi-identifiers, and who ascertained them")
    p.add_argument("--same-population", choices=["yes", "no"], default=None,
                   help="R4: are membership targets drawn from the training population?")
    p.add_argument("--thresholds-set-by", default="",
                   help="R8: who set the scorecard's thresholds, on what precedent")
    p.add_argument("--review-of", choices=["model", "release"], default=None,
                   help="R10: evaluating a trained generator (model) or deciding on these "
                        "synthetic datasets (release)")
    p.add_argument("--include-records", action="store_true",
                   help="add per-record tables (they contain real records)")
    p.add_argument("--calibrate", action="store_true",
                   help="also calibrate the privacy measures on this data (see `calibrate`) "
                        "and add the calibration table to the report")
    p.add_argument("--calibrate-max-training", type=int, default=2000,
                   help="training rows of the calibration's reference releases")
    p.add_argument("--db", default=None, metavar="URL",
                   help="also store the review (aggregates only) in this database: a "
                        "SQLAlchemy URL such as sqlite:///reviews.db; see `history`")
    _add_membership(p)
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("history", help="stored reviews: list, show one, compare two")
    p.add_argument("--db", required=True, metavar="URL",
                   help="the review database (SQLAlchemy URL, e.g. sqlite:///reviews.db)")
    p.add_argument("--show", type=int, default=None, metavar="ID",
                   help="print one stored review as JSON")
    p.add_argument("--compare", default=None, metavar="A,B",
                   help="compare two stored reviews: which numbers moved, what changed")
    p.add_argument("--json", help="write the JSON result to PATH ('-' for stdout)")
    p.set_defaults(func=cmd_history)

    p = sub.add_parser("calibrate", help="the risk-insertion framework run on the measures "
                                         "themselves: floor, ceiling, slope, size-ratio gap")
    _add_shared(p)
    p.add_argument("--metrics", help="comma-separated privacy measures (default: all)")
    p.add_argument("--levels", help="leak fractions f_l (default 0,0.25,0.5,0.75,1)")
    p.add_argument("--ratios", help="training:holdout size ratios (default 1,2,4)")
    p.add_argument("--max-training", type=int, default=None,
                   help="cap on the training rows of the reference releases")
    _add_membership(p)
    p.set_defaults(func=cmd_calibrate)

    for name, register in _EXTRA_COMMANDS:
        register(sub, name)
    return parser


# Commands contributed by other modules: (name, register(subparsers, name)).
_EXTRA_COMMANDS: list[tuple[str, Callable[[Any, str], None]]] = []

from .experiments import register_sweep  # noqa: E402  (experiments imports cli lazily)

_EXTRA_COMMANDS.append(("sweep", register_sweep))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            code = args.func(args)
        except PrivacyCoreError as exc:
            message = " ".join(str(exc).split())
            sys.stderr.write(f"error: {message}\n")
            return 2
        except MemoryError:
            sys.stderr.write("error: out of memory; subsample the inputs and try again.\n")
            return 2
    shown: set[str] = set()
    for w in caught:  # each measure re-validates the inputs: say each note once
        if issubclass(w.category, UserWarning) and str(w.message) not in shown:
            shown.add(str(w.message))
            sys.stderr.write(f"warning: {w.message}\n")
    return code


if __name__ == "__main__":  # `python -m privacy_core.cli` works like `python -m privacy_core`
    sys.exit(main())
