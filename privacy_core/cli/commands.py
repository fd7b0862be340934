"""The evaluating and data sub-commands: demo-data, synthesize, rapid, privacy, fidelity,
report, history, calibrate.

Why one module: each evaluating command is a short adapter from arguments to one engine
call and its JSON; they share the payload and summary helpers and read best side by
side.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..data import infer_schema, load_table, prepare_table
from ..datasets import simulate_health, simulate_wide
from ..results import MetricResult, jsonable
from ..validation import check_positive_int
from .common import (
    CLIError,
    check_report_path,
    checked_gtcap_weighting,
    csv_list,
    emit,
    float_list,
    load_input,
    mds_options,
    membership_options,
    metrics_payload,
    metrics_summary,
    note_fallback,
    ray_options,
    threat_from_args,
    weights_schema,
    write_table,
)


def cmd_demo_data(args: argparse.Namespace) -> int:
    if args.wide:
        frame = simulate_wide(args.n, seed=args.seed)
        what = f"wide simulated records ({frame.shape[1]} columns, seed={args.seed})"
    else:
        frame = simulate_health(args.n, kappa=args.kappa, seed=args.seed)
        what = f"simulated records (kappa={args.kappa}, seed={args.seed})"
    write_table(frame, args.out)
    sys.stdout.write(f"wrote {len(frame)} {what} to {args.out}\n")
    return 0


def cmd_synthesize(args: argparse.Namespace) -> int:
    from ..synth import make_generator

    real = load_input(args.real, "real")
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
    write_table(syn, args.out)
    sys.stdout.write(
        f"wrote {len(syn)} synthetic records ({args.method}, seed={args.seed}) to {args.out}\n"
    )
    return 0


def _rapid_paper_study(args: argparse.Namespace, preset: dict[str, Any]) -> int:
    """``rapid --preset paper`` without --real: the paper's simulation study (§5)."""
    from ..risk.rapid import rapid_paper_study, summarize_paper_study

    try:
        kappas = [float(k) for k in csv_list(args.kappa)] or [10.0]
        taus = [float(t) for t in csv_list(args.taus)] or [
            args.tau if args.tau is not None else preset["tau"]
        ]
    except ValueError:
        raise CLIError("--kappa and --taus take comma-separated numbers.") from None
    study = rapid_paper_study(
        kappas,
        n_sims=args.simulations,
        taus=taus,
        attackers=args.attackers or preset["attackers"],
        n_trees=args.n_trees or preset["n_trees"],
        forest_encoding=args.forest_encoding or preset["forest_encoding"],
        seed=args.seed,
    )
    summary = summarize_paper_study(study)
    payload = {
        "command": "rapid",
        "preset": "paper",
        "seed": args.seed,
        "settings": {
            **preset,
            "forest_encoding": args.forest_encoding or preset["forest_encoding"],
        },
        "study": summary.to_dict(orient="records"),
    }
    text = "\n".join(
        f"kappa {r.kappa:g} {r.attacker} tau {r.tau:g}: RAPID {r.rapid:.4f} ± {r.rapid_sd:.4f} "
        f"(se {r.rapid_se:.4f}), accuracy {r.accuracy:.4f}; oracle RAPID {r.oracle_rapid:.4f}, "
        f"accuracy {r.oracle_accuracy:.4f} ({r.n_sims} simulations)"
        for r in summary.itertuples()
    )
    emit(args, payload, text)
    return 0


def cmd_rapid(args: argparse.Namespace) -> int:
    from ..evaluation import evaluate
    from ..risk.rapid import (
        DEFAULT_ATTACKERS,
        RapidResult,
        check_tau,
        rapid_null_calibration,
        rapid_paper_preset,
        rapid_permutation_threshold,
    )

    preset = rapid_paper_preset() if args.preset == "paper" else None
    # the engine's own range checks, before a table is read: a bad option fails now, not
    # after loading a million rows (the fit checks them again, in the same words)
    if args.tau is not None:
        check_tau(args.tau, args.method)
    if args.n_trees is not None:
        check_positive_int("n_trees", args.n_trees)
    if preset is not None and not args.real:
        return _rapid_paper_study(args, preset)
    real = load_input(args.real, "real")
    if not args.synthetic:
        raise CLIError("--synthetic is required (repeat it for several releases).")
    synthetic = [load_table(p) for p in args.synthetic]
    if preset is not None:  # the paper's set-up unless an option says otherwise
        args.sensitive = args.sensitive or preset["sensitive"]
        args.qi = args.qi or ",".join(preset["quasi_identifiers"])
    threat = threat_from_args(args, real)
    attackers = args.attackers or (preset["attackers"] if preset else DEFAULT_ATTACKERS)
    tau = args.tau if args.tau is not None or preset is None else preset["tau"]
    n_trees = args.n_trees if args.n_trees is not None else (preset["n_trees"] if preset else 500)
    forest_encoding = args.forest_encoding or (preset["forest_encoding"] if preset else "one-hot")
    control = load_input(args.control, "control") if args.control else None
    # the one evaluation path (the registry, with the holdout as RAPID's non-members)
    result = evaluate(
        real,
        synthetic,
        measures=["rapid"],
        threat=threat,
        holdout=control,
        seed=args.seed,
        options={
            "rapid": {
                "attackers": attackers,
                "tau": tau,
                "epsilon": args.epsilon,
                "method": args.method,
                "error": args.error,
                "bootstrap": args.bootstrap,
                "n_trees": n_trees,
                "forest_encoding": forest_encoding,
                **ray_options(args),
            }
        },
    )["rapid"]
    assert isinstance(result, RapidResult)  # the registry's RAPID returns one
    payload = metrics_payload("rapid", real, synthetic, args.seed, {"rapid": result})
    lo, hi = result.ci or (float("nan"), float("nan"))
    head = result.headline
    perf = "accuracy" if result.kind == "categorical" else "r2"
    summary = (
        f"RAPID ({result.kind}, threshold {result.threshold:g}): headline (max, "
        f"strongest attacker {head['attacker']}) {result.rate_max:.4f}; mean of "
        f"attackers {result.value:.4f} [{lo:.4f}, {hi:.4f}]\n"
        + "\n".join(
            f"  {a}: {v['value']:.4f} ({perf} {v.get(perf) or float('nan'):.4f})"
            for a, v in result.by_attacker.items()
        )
    )
    gap = result.members_vs_non_members()
    if gap is not None:
        d, rel = gap["difference"], gap["relative"]
        summary += (
            f"\nmembers {gap['members']['value']:.4f} vs non-members (holdout) "
            f"{gap['non_members']['value']:.4f} ({gap['attacker']}): difference "
            f"{d['value']:.4f} [{d['ci'][0]:.4f}, {d['ci'][1]:.4f}], relative "
            f"{rel['value']:.4f}"
        )
    if args.calibrate:
        if args.calibrate == "null-rapid" and args.permute == "labels":
            cal = rapid_null_calibration(
                result,
                seed=args.seed,
                **({"n_permutations": args.permutations} if args.permutations else {}),
            )
        else:
            cal = rapid_permutation_threshold(
                real,
                synthetic,
                threat=threat,
                rule=args.calibrate,
                permute=args.permute,
                attackers=attackers,
                n_permutations=args.permutations,
                method=args.method,
                error=args.error,
                n_trees=min(n_trees, 200),
                forest_encoding=forest_encoding,
                seed=args.seed,
            )
        payload["calibration"] = cal.to_dict()
        summary += f"\ncalibration ({cal.rule}): suggested threshold {cal.suggested_threshold:g}"
    emit(args, payload, summary)
    return 0


def _measure_inputs(
    args: argparse.Namespace,
) -> tuple[pd.DataFrame, list[pd.DataFrame], pd.DataFrame | None]:
    real = load_input(args.real, "real")
    if not args.synthetic:
        raise CLIError("--synthetic is required (repeat it for several releases).")
    synthetic = [load_table(p) for p in args.synthetic]
    control = load_table(args.control) if args.control else None
    return real, synthetic, control


def _measure_progress(names: list[str]) -> Any:
    """A progress callback for ``--verbose``: writes each measure's name to stderr when it
    starts (one after another) or ends (side by side), so a long review shows where it
    is; the seconds follow at the end (:func:`_write_timings`)."""
    from ..measures import get_measure

    names_of = {get_measure(n).label: n for n in names}

    def progress(_fraction: float, label: str) -> None:
        if label in names_of:
            sys.stderr.write(f"{names_of[label]} ...\n")
        elif label.endswith(" done") and label[: -len(" done")] in names_of:
            sys.stderr.write(f"{names_of[label[: -len(' done')]]} done\n")
        else:
            return  # a measure's own steps
        sys.stderr.flush()

    return progress


def _write_timings(review: Any) -> None:
    """Each measure's wall and CPU seconds, and the parallel efficiency, to stderr."""
    from ..parallel import usable_cores

    total = sum(w for w, _ in review.timings.values())
    for name, (wall, cpu) in review.timings.items():
        sys.stderr.write(f"  {name}: {wall:.1f} s wall, {cpu:.1f} s CPU\n")
    sys.stderr.write(
        f"  {len(review.timings)} measures on {review.workers} worker(s) of "
        f"{usable_cores()} usable cores; their seconds add up to {total:.1f} s\n"
    )
    sys.stderr.flush()


def _run_measures(
    args: argparse.Namespace, family: str, default: list[str], options_for: Any
) -> tuple[dict[str, MetricResult], Any]:
    from ..evaluation import evaluate
    from ..measures import get_measure
    from ..risk.neighbors import search_backend

    jobs = _jobs(args)  # a bad --n-jobs fails before the tables are read
    real, synthetic, control = _measure_inputs(args)
    options = options_for(args, len(real))
    names = csv_list(args.metrics) or default
    for n in names:
        if get_measure(n).family != family:
            raise CLIError(
                f"{n!r} is not a {family} measure; use the `"
                f"{get_measure(n).family}` command for it."
            )
    if control is None:
        skipped = [n for n in names if get_measure(n).needs_holdout]
        if skipped and not csv_list(args.metrics):
            names = [n for n in names if n not in skipped]
            sys.stderr.write(f"warning: no --control given; skipped {', '.join(skipped)}\n")
    # ML affinity takes its target from the threat model (--sensitive) on the command line
    needs_threat = any(get_measure(n).needs_threat or get_measure(n).uses_threat for n in names)
    threat = threat_from_args(args, real) if (needs_threat or args.sensitive) else None
    # --weights without a threat model: the weight column still stays out of the measures
    schema = weights_schema(args, real) if threat is None else None
    verbose = getattr(args, "verbose", False)
    with search_backend(**ray_options(args)):  # --ray: large searches in query blocks
        review = evaluate(
            real,
            synthetic,
            measures=names,
            threat=threat,
            holdout=control,
            schema=schema,
            seed=args.seed,
            options=options,
            progress=_measure_progress(names) if verbose else None,
            **jobs,
        )
    if verbose:
        _write_timings(review)
    return dict(review.results), (real, synthetic, control, threat)


def _jobs(args: argparse.Namespace) -> dict[str, Any]:
    """``evaluate``'s scheduling keywords from ``--n-jobs`` and ``--ray`` (checked)."""
    from ..parallel import effective_jobs

    ray = ray_options(args)
    effective_jobs(getattr(args, "n_jobs", 1), 1)  # the engine's message for 0
    return {
        "n_jobs": getattr(args, "n_jobs", 1),
        "backend": ray["backend"],
        "ray_address": ray["ray_address"],
    }


def measure_options_from_args(args: argparse.Namespace, n_rows: int) -> dict[str, dict[str, Any]]:
    """The measures' options from a command's flags, through the one table the app and
    ``review`` use too (:func:`privacy_core.review.measure_options`)."""
    from ..review import measure_options

    def get(name: str, default: Any = None) -> Any:
        return getattr(args, name, default)

    return measure_options(
        n_rows,
        alpha=get("alpha", 2.0),
        k=get("k", 5),
        space=get("space", "shared"),
        max_queries="auto" if get("max_queries") is None else (get("max_queries") or None),
        n_attacks=get("n_attacks"),
        singling_out_mode=get("singling_out_mode", "multivariate"),
        singling_out_cols=get("singling_out_cols", 3),
        radius=get("radius", 0.1),
        gtcap_weighting=checked_gtcap_weighting(args)
        if hasattr(args, "gtcap_weighting")
        else "box_pooled",
        membership=membership_options(args) if hasattr(args, "h") else None,
        mds=mds_options(args) if hasattr(args, "shadow_method") else None,
        max_rows=get("max_rows", 3000),
        backend=ray_options(args),
        device=get("device", "auto"),
    )


def cmd_privacy(args: argparse.Namespace) -> int:
    from ..measures import measure_names

    default = [n for n in measure_names("privacy") if n != "rapid"]
    results, (real, synthetic, _, _) = _run_measures(
        args, "privacy", default, measure_options_from_args
    )
    emit(
        args,
        metrics_payload("privacy", real, synthetic, args.seed, results),
        metrics_summary(results),
    )
    return 0


def cmd_fidelity(args: argparse.Namespace) -> int:
    from ..measures import measure_names

    results, (real, synthetic, _, _) = _run_measures(
        args, "fidelity", measure_names("fidelity"), measure_options_from_args
    )
    emit(
        args,
        metrics_payload("fidelity", real, synthetic, args.seed, results),
        metrics_summary(results),
    )
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    names = csv_list(args.metrics) or [
        "rapid",
        "ims",
        "dcr",
        "singling_out",
        "linkability",
        "inference",
        "wasserstein",
        "query_error",
        "discriminator",
    ]
    # a bad --out or --db fails now, not after minutes of computing
    check_report_path(args.out)
    store = _open_store(args.db) if args.db else None
    try:
        return _report(args, names, store)
    finally:
        if store is not None:
            store.close()


def _report(args: argparse.Namespace, names: list[str], store: Any) -> int:
    from ..data import infer_schema
    from ..evaluation import evaluate
    from ..measures import get_measure
    from ..report import build_report, render_html, render_pdf

    real, synthetic, control = _measure_inputs(args)
    threat = threat_from_args(args, real)
    if control is None:
        names = [n for n in names if not get_measure(n).needs_holdout]
    measure_opts = measure_options_from_args(args, len(real))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # the declared weight column marked: the report's schema shows it as the weight
        schema = threat.analysis_schema(infer_schema(real))
    results = dict(
        evaluate(
            real,
            synthetic,
            measures=names,
            threat=threat,
            holdout=control,
            schema=schema,
            seed=args.seed,
            options=measure_opts,
            **_jobs(args),
        ).results
    )
    calibration = None
    if args.calibrate:
        from ..calibration import calibrate

        privacy = [n for n in names if get_measure(n).family == "privacy"]
        calibration = calibrate(
            real,
            threat=threat,
            holdout=control,
            schema=schema,
            measures=privacy,
            max_training=args.calibrate_max_training,
            options=measure_opts,
            seed=args.seed,
            **ray_options(args),
        )
    report = build_report(
        real=real,
        synthetic=synthetic,
        results=results,
        threat=threat,
        schema=schema,
        holdout=control,
        names={"real": args.real, "synthetic": list(args.synthetic), "holdout": args.control},
        decision=args.decision,
        notes=args.notes or "",
        include_records=args.include_records,
        calibration=calibration,
        reviewer=args.reviewer,
        role=args.role,
        review_date=_review_date(args.date),
        answers={
            "qi_justification": args.qi_justification,
            "same_population": args.same_population,
            "thresholds_set_by": args.thresholds_set_by,
            "scenario": args.review_of,
        },
        thresholds_set_by=args.thresholds_set_by,
    )
    try:
        if Path(args.out).suffix.lower() == ".pdf":
            Path(args.out).write_bytes(render_pdf(report))
        else:
            Path(args.out).write_text(
                render_html(report, _report_figures(results, calibration)), encoding="utf-8"
            )
    except OSError as exc:
        raise CLIError(f"cannot write {args.out!r}: {exc.strerror or exc}") from None
    payload = metrics_payload("report", real, synthetic, args.seed, results)
    summary = metrics_summary(results) + f"\nwrote {args.out}"
    if store is not None:
        stored, sentence = _store_review(store, report)
        payload["stored_review"] = stored
        summary += "\n" + sentence
        if args.json == "-":  # stdout holds the JSON alone
            sys.stderr.write(sentence + "\n")
    emit(args, payload, summary)
    return 0


def cmd_review(args: argparse.Namespace) -> int:
    """The whole review from one TOML file; the exit status follows the verdicts: 0 every
    candidate below its lines, 3 any above a line, 4 none above but some inconclusive."""
    from ..report import render_html, render_pdf
    from ..review import load_review_config, review_document, run_review

    if args.out:
        check_report_path(args.out)
    _jobs(args)
    config = load_review_config(args.config)
    store = _open_store(args.db) if args.db else None
    try:
        report = run_review(
            config, backend=ray_options(args), n_jobs=args.n_jobs, device=args.device
        )
        if args.out:
            try:
                if Path(args.out).suffix.lower() == ".pdf":
                    Path(args.out).write_bytes(render_pdf(report))
                else:
                    Path(args.out).write_text(render_html(report), encoding="utf-8")
            except OSError as exc:
                raise CLIError(f"cannot write {args.out!r}: {exc.strerror or exc}") from None
        doc = review_document(report, seed=config.seed)
        lines = [
            f"{name}: {c['verdict']} - {c['sentence']}" for name, c in doc["candidates"].items()
        ]
        if args.out:
            lines.append(f"wrote {args.out}")
        if store is not None:
            stored, sentence = _store_review(store, report)
            doc["stored_review"] = stored
            lines.append(sentence)
            if args.json == "-":
                sys.stderr.write(sentence + "\n")
    finally:
        if store is not None:
            store.close()
    emit(args, doc, "\n".join(lines))
    return int(doc["exit_status"])


def _open_store(url: str) -> Any:
    from ..history import ReviewStore

    return ReviewStore(url)


def _store_review(store: Any, report: Any) -> tuple[dict[str, Any], str]:
    """Save the review; say whether it reproduces the earlier reviews of the same inputs."""
    from ..history import reproduces

    earlier = store.same_inputs(report)
    review_id = store.save(report)
    sentence = f"stored review {review_id} in {store.location}"
    same: bool | None = None
    if earlier:
        mine = store.get(review_id)
        differ = [i for i in earlier if not reproduces(store.get(i), mine)]
        same = not differ
        ids = ", ".join(map(str, earlier))
        sentence += f"; same inputs as review {ids}: " + (
            "every number identical"
            if same
            else f"numbers differ from review {', '.join(map(str, differ))} (see "
            f"`history --compare {differ[-1]},{review_id}`)"
        )
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
    from .. import plots
    from ..report import ReportFigure
    from ..risk.attacks.common import AttackResult
    from ..risk.distance import DcrResult
    from ..risk.rapid import RapidResult

    figures = []
    rapid = results.get("rapid")
    if isinstance(rapid, RapidResult):
        figures.append(
            ReportFigure(
                "inference",
                "RAPID against the threshold",
                plots.rapid_threshold_curve(rapid),
            )
        )
    attacks = [
        r
        for r in (results.get(n) for n in ("singling_out", "linkability", "inference"))
        if isinstance(r, AttackResult)
    ]
    if attacks:
        figures.append(
            ReportFigure(
                "attacks",
                "Attack success: training vs control vs random",
                plots.attack_rates_figure(attacks),
            )
        )
    dcr = results.get("dcr")
    if isinstance(dcr, DcrResult):
        figures.append(
            ReportFigure("similarity", "Distance to the closest record", plots.dcr_histogram(dcr))
        )
    fid = {
        m: r
        for m, r in results.items()
        if m in ("wasserstein", "mla", "query_error", "discriminator")
    }
    if fid:
        figures.append(
            ReportFigure(
                "fidelity",
                "Fidelity and utility",
                plots.fidelity_reference_figure({"release": fid}),
            )
        )
    if calibration is not None:
        figures.append(
            ReportFigure(
                "calibration",
                "Each measure against the leak fraction",
                plots.calibration_figure(calibration),
            )
        )
    return figures


def cmd_history(args: argparse.Namespace) -> int:
    from ..history import ReviewStore

    if args.show is not None and args.compare:
        raise CLIError("give --show ID or --compare A,B, not both.")
    pair = _review_pair(args.compare) if args.compare else None
    with ReviewStore(args.db, create=False) as store:
        if args.show is not None:
            doc = store.get(args.show)
            text = json.dumps(
                jsonable({"command": "history", "review": doc}), indent=2, allow_nan=False
            )
            if args.json and args.json != "-":
                emit(
                    args,
                    {"command": "history", "review": doc},
                    f"wrote review {args.show} to {args.json}",
                )
            else:
                sys.stdout.write(text + "\n")
            return 0
        if pair is not None:
            comparison = store.compare(*pair)
            emit(
                args,
                {"command": "history", "compare": comparison.to_dict()},
                _comparison_text(comparison),
            )
            return 0
        reviews = store.list()
        emit(
            args,
            {
                "command": "history",
                "database": store.location,
                "reviews": [r.to_dict() for r in reviews],
            },
            _history_table(reviews, store.location),
        )
    return 0


def _review_pair(text: str) -> tuple[int, int]:
    parts = csv_list(text)
    try:
        a, b = (int(p) for p in parts)
    except ValueError:
        raise CLIError(f"--compare takes two review ids, e.g. 1,3; got {text!r}.") from None
    return a, b


def _history_table(reviews: Sequence[Any], location: str) -> str:
    if not reviews:
        return f"no reviews stored in {location} yet; store one with `report ... --db URL`."
    lines = [
        (
            f"{'id':>4}  {'created':<25}  {'decision':<20}  {'reviewer':<16}  "
            f"{'real data':<16}  synthetic data, headline numbers"
        )
    ]
    for r in reviews:
        heads = "; ".join(
            (f"{cand}: " if len(r.headline) > 1 else "")
            + ", ".join(f"{m} {v:.4f}" if v is not None else f"{m} —" for m, v in values.items())
            for cand, values in r.headline.items()
        )
        lines.append(
            f"{r.id:>4}  {r.created:<25}  {r.decision:<20}  "
            f"{(r.reviewer or '-')[:16]:<16}  {r.real_fingerprint:<16}  "
            f"{','.join(r.synthetic_fingerprints)}  {heads}"
        )
    return "\n".join(lines)


def _comparison_text(comparison: Any) -> str:
    lines = [f"review {comparison.a_id} -> review {comparison.b_id}: {comparison.summary()}"]
    lines += [f"  changed: {line}" for line in comparison.inputs]
    for row in comparison.metrics.to_dict("records"):
        if row["moved"]:
            lines.append(
                f"  moved: {row['candidate']} {row['metric']} "
                f"{row['value_a']:.4f} -> {row['value_b']:.4f}"
            )
    return "\n".join(lines)


def cmd_calibrate(args: argparse.Namespace) -> int:
    from ..calibration import DEFAULT_LEVELS, DEFAULT_RATIOS, calibrate
    from ..measures import measure_label

    real = load_input(args.real, "real")
    if args.synthetic:
        raise CLIError(
            "calibrate builds its own reference releases (a copy of the training "
            "rows, unseen real rows and mixtures); --synthetic is not used."
        )
    control = load_table(args.control) if args.control else None
    if control is not None and list(control.columns) != list(real.columns):
        raise CLIError("--control must have the same columns as --real.")
    threat = threat_from_args(args, real)
    from ..measures import measure_names

    result = calibrate(
        real,
        threat=threat,
        holdout=control,
        measures=csv_list(args.metrics) or None,
        options={"membership": membership_options(args)},
        levels=float_list(args.levels, "--levels") or DEFAULT_LEVELS,
        ratios=float_list(args.ratios, "--ratios") or DEFAULT_RATIOS,
        max_training=args.max_training,
        seed=args.seed,
        n_jobs=args.n_jobs,
        **ray_options(args),
    )
    note_fallback(args, csv_list(args.metrics) or measure_names("privacy"))
    payload = {
        "command": "calibrate",
        "n_real": result.n_real,
        "n_synthetic": [],
        "seed": args.seed,
        **result.to_dict(),
    }
    lines = [
        f"calibration: {result.params['n_training']} training rows, ratios "
        f"{', '.join(f'{r:g}:1' for r in result.ratios)}, "
        f"{result.params['seconds']:.1f} s",
        f"{'measure':<34} {'floor':>6} {'upper':>6} {'ceiling':>7} {'response':>8} "
        f"{'band':>5} {'gap':>5}  verdict",
    ]
    for s in result.summaries:
        label = measure_label(s.key)
        why = "" if s.verdict == "pass" else f": {'; '.join(s.reasons)}"
        lines.append(
            f"{label:<34} {s.floor:>6.3f} {s.floor_upper:>6.3f} {s.ceiling:>7.3f} "
            f"{s.response_gap:>8.2f} {s.response_band:>5.2f} {s.ratio_gap:>5.2f}  "
            f"{s.verdict}{why}"
        )
    emit(args, payload, "\n".join(lines))
    return 0
