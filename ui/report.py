"""Glue for the review page: gather every result this session has computed, per candidate.

A candidate is a release group (``Workspace.release_groups``): one release, or replicates
of one generator configuration. Results are looked up under each candidate's own view of
the workspace (``Workspace.group_view``), whose cache keys hold that candidate's releases
only: adding, removing or regrouping another candidate leaves them where they are, and a
candidate that lacks a measure another one has is listed as *not computed* rather than
silently left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import privacy_core as pc

from .calibration import latest_calibration
from .evaluations import (
    rapid_at_page_settings,
    rapid_cached,
    rapid_fit_params,
    rapid_references_cached,
    rapid_run,
)
from .fidelity import (
    ALL_RELEASES,
    fidelity_metrics,
    fidelity_params,
    fidelity_run,
    fidelity_view,
    scope_releases,
)
from .map import (
    add_candidate,
    map_candidates,
    map_cells,
    map_params,
    map_results,
    risk_measures,
    utility_measures,
)
from .map import (
    axis_title as map_axis_title,
)
from .mds import mds_cached, mds_settings
from .privacy import (
    PRIVACY_MEASURES,
    attack_results,
    cached_results,
    dcr_result,
    privacy_params,
    run_measures,
)
from .state import get_workspace, remembered, set_notice, set_widget
from .workspace import Workspace


@dataclass(frozen=True)
class CandidateResults:
    """The results computed so far for one candidate (release group)."""

    name: str
    view: Workspace
    results: dict[str, pc.MetricResult]

    @property
    def n_releases(self) -> int:
        return len(self.view.releases)


def candidate_results(ws: Workspace) -> list[CandidateResults]:
    """Per candidate: RAPID (at the threshold and score the RAPID page shows), privacy and
    fidelity results already computed for exactly that candidate's releases."""
    out = []
    views = ws.candidate_views()
    for name, view in views.items():
        results: dict[str, pc.MetricResult] = {}
        rapid = rapid_cached(view, rapid_fit_params(view))
        if rapid is not None:
            results["rapid"] = rapid_at_page_settings(rapid)
        results.update(cached_results(view, PRIVACY_MEASURES, privacy_params(view)))
        # MDS scores the generating method the user chose for its shadows: it belongs to
        # the candidate whose view the Privacy page computed it under (each its own)
        mds = mds_cached(view, mds_settings(view))
        if mds is not None and not mds.stopped:
            results["mds"] = mds
        fid = fidelity_view(view, fidelity_params(view), scope_releases(view, ALL_RELEASES))
        results.update(fid.results)
        out.append(CandidateResults(name, view, results))
    return out


def missing_measures(cands: list[CandidateResults]) -> dict[str, list[str]]:
    """Candidate -> the measures another candidate has and it lacks (to compute for a fair
    side-by-side comparison)."""
    wanted: list[str] = []
    for c in cands:
        wanted.extend(m for m in c.results if m not in wanted)
    return {
        c.name: [m for m in wanted if m not in c.results]
        for c in cands
        if any(m not in c.results for m in wanted)
    }


def compute_measures(view: Workspace, measures: list[str]) -> None:
    """Compute ``measures`` for one candidate (its view), each cached under its own key
    with the progress of the page that computes it elsewhere."""
    if "rapid" in measures:
        rapid_run(view, rapid_fit_params(view))
    private = [m for m in measures if m in PRIVACY_MEASURES]
    if private:
        run_measures(view, private, privacy_params(view))
    fidelity = [m for m in measures if m in fidelity_metrics(view)]
    if fidelity:
        # the fidelity glue's jobs, with their references, for the measures asked for
        fidelity_run(view, fidelity_params(view), scope_releases(view, ALL_RELEASES), only=fidelity)


def add_release_from_map(cand, seed: int, selection_key: str) -> None:
    """The map's "Add to the workspace's releases" callback.

    The candidate joins the workspace as a release group of its own: the results of the
    candidates already loaded stay (their keys do not change), and the notice says which
    results the new candidate still needs, where to get them.
    """
    ws = get_workspace()
    if ws is None:
        return
    before = {c.name: sorted(c.results) for c in candidate_results(ws)}
    loaded = add_candidate(ws, cand, seed)
    if loaded is None:
        return
    set_widget(selection_key, loaded.id)
    kept = sorted({m for ms in before.values() for m in ms})
    text = f"Added {cand.label} to the workspace's releases as a candidate of its own"
    if kept:
        text += (
            f". The results of the other candidates are kept; {cand.label} has none "
            f"of them yet ({len(kept)} measure(s)): compute them on *Review & report*, "
            "or on the RAPID, Privacy and Fidelity pages."
        )
    else:
        text += "."
    set_notice("map_add", text)


def session_calibration(ws: Workspace) -> pc.CalibrationResult | None:
    """The calibration of the measures on this data shown last in the Risk lab, if any."""
    return latest_calibration(ws)


def session_references(ws: Workspace) -> dict[str, dict[str, pc.MetricResult]]:
    """The data's own references computed this session, under the settings the candidates
    were read with: RAPID of HALF and SELF (the RAPID page's fit, re-aggregated at its
    threshold and score) and the fidelity measures' HALF and HISTOGRAM. They depend on the
    real data only, so one set serves every candidate."""
    refs: dict[str, dict[str, pc.MetricResult]] = {}
    rapid_refs = rapid_references_cached(ws, rapid_fit_params(ws))
    if isinstance(rapid_refs, dict):
        refs["rapid"] = {
            k: rapid_at_page_settings(v)
            for k, v in rapid_refs.items()
            if isinstance(v, pc.RapidResult)
        }
    fid = fidelity_view(ws, fidelity_params(ws), scope_releases(ws, ALL_RELEASES))
    for kind, by_metric in fid.baselines.items():
        for metric, res in by_metric.items():
            if isinstance(res, pc.MetricResult):
                refs.setdefault(metric, {})[kind] = res
    return {m: r for m, r in refs.items() if r}


def _remembered_axis(key: str, options: list[str]) -> str | None:
    value = remembered(key, None)
    return value if value in options else (options[0] if options else None)


def map_figure(ws: Workspace):
    """The risk–utility map as the Map page last drew it, from stored cells (computes
    nothing); None when no cell of its axes is computed."""
    import privacy_core.plots.map as mplots
    from privacy_core.measures import measure_goal

    params = map_params(ws)
    candidates = map_candidates(ws, params)
    risk = _remembered_axis("map_risk", risk_measures(ws))
    utility = _remembered_axis("map_utility", utility_measures(ws))
    if not candidates or risk is None or utility is None:
        return None
    cells = map_cells(ws, candidates, (risk, utility), int(params["seed"]))
    risks, utils = map_results(cells[risk]), map_results(cells[utility])
    if not any(risks.values()) or not any(utils.values()):
        return None
    return mplots.risk_utility_map(
        risks,
        utils,
        kinds={c.id: c.kind for c in candidates},
        labels={c.id: c.label for c in candidates},
        risk_title=map_axis_title(risk),
        utility_title=map_axis_title(utility),
        risk_goal=measure_goal(risk),
        utility_goal=measure_goal(utility),
        short_labels={c.id: c.short for c in candidates},
    )


def html_document(
    report: pc.ReviewReport,
    ws: Workspace,
    cands: list[CandidateResults],
    calibration: pc.CalibrationResult | None = None,
) -> str:
    """The self-contained HTML review document: ``report`` with each page's key figure
    (:func:`report_figures`). Rendered when the reviewer asks for it, not on every run of
    the Report page."""
    return pc.render_html(report, report_figures(ws, cands, calibration))


def report_figures(
    ws: Workspace, cands: list[CandidateResults], calibration: pc.CalibrationResult | None = None
) -> list[pc.report.ReportFigure]:
    """Each page's key figure, per candidate, from results already computed — the same
    figure functions the pages draw."""
    from privacy_core import plots

    Fig = pc.report.ReportFigure
    figs: list[pc.report.ReportFigure] = []
    for c in cands:
        r = c.results
        rapid = r.get("rapid")
        if isinstance(rapid, pc.RapidResult):
            figs.append(
                Fig(
                    "inference",
                    "RAPID against the threshold",
                    plots.rapid_threshold_curve(rapid),
                    c.name,
                    "The headline is the strongest attacker at the RAPID page's "
                    "threshold (dashed line).",
                )
            )
        attacks = attack_results(r, ("singling_out", "linkability", "inference"))
        if attacks:
            figs.append(
                Fig(
                    "attacks",
                    "Attack success: training vs control vs random",
                    plots.attack_rates_figure(attacks),
                    c.name,
                    "Risk comes from the gap between training and control records.",
                )
            )
        dcr = dcr_result(r)
        if dcr is not None:
            figs.append(
                Fig(
                    "similarity",
                    "Distance to the closest record",
                    plots.dcr_histogram(dcr),
                    c.name,
                    "Synthetic-to-training vs holdout-to-training distances: an "
                    "indicator of copying, not of disclosure.",
                )
            )
    fid = {
        c.name: {
            m: res
            for m, res in c.results.items()
            if m in ("wasserstein", "mla", "query_error", "discriminator")
        }
        for c in cands
    }
    if any(fid.values()):
        baselines = fidelity_view(
            ws, fidelity_params(ws), scope_releases(ws, ALL_RELEASES)
        ).baselines
        figs.append(
            Fig(
                "fidelity",
                "Fidelity and utility against the references",
                plots.fidelity_reference_figure(
                    {
                        **{n: v for n, v in fid.items() if v},
                        **{k: v for k, v in baselines.items() if v},
                    }
                ),
                caption="Whiskers are 95% intervals; HALF and HISTOGRAM compare two "
                "halves of the real table.",
            )
        )
    try:
        fig = map_figure(ws)
    except pc.PrivacyCoreError:  # a map that cannot be drawn leaves the report without it
        fig = None
    if fig is not None:
        figs.append(
            Fig(
                "map",
                "Risk–utility map",
                fig,
                caption="As last shown on the Risk–utility map page (its fast "
                "settings), with the reference releases.",
            )
        )
    if calibration is not None:
        figs.append(
            Fig(
                "calibration",
                "Each measure against the leak fraction",
                plots.calibration_figure(calibration),
            )
        )
    return figs
