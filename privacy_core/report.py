"""The review report: an auditable, JSON-serialisable record of a review; HTML and PDF exports.

A report holds provenance (file names, row counts, content fingerprints, seeds), the
schema and threat model, every measure's headline value with interval, baseline,
direction and parameters, the reviewer's decision and notes, the calibration of the
measures on this data when one was run (aggregates only: floors, ceilings, verdicts), and,
only when asked, per-record tables. The HTML export is one self-contained file (plotly's
JavaScript is embedded once) that opens offline; the PDF export (fpdf2) is the printable
sign-off sheet, aggregates only.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from .data import Schema, fingerprint
from .measures import MEASURES
from .results import MetricResult, jsonable
from .threat import ThreatModel

from .calibration import CEILING_MIN, FLOOR_MAX, RATIO_GAP_MAX

if TYPE_CHECKING:
    from .calibration import CalibrationResult

DECISIONS = ("undecided", "release", "release with changes", "do not release")


@dataclass(frozen=True)
class ReviewReport:
    """Everything a reviewer signs off, in a form that serialises to JSON."""

    created: str
    provenance: dict[str, Any]
    schema: dict[str, Any]
    threat: dict[str, Any]
    metrics: dict[str, dict[str, Any]]
    decision: str = "undecided"
    notes: str = ""
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    calibration: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return jsonable({
            "created": self.created, "provenance": self.provenance, "schema": self.schema,
            "threat": self.threat, "metrics": self.metrics, "decision": self.decision,
            "notes": self.notes,
            **({"calibration": self.calibration} if self.calibration is not None else {}),
            **({"records": self.records} if self.records else {}),
        })

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


def build_report(
    *,
    real: pd.DataFrame,
    synthetic: Sequence[pd.DataFrame],
    results: Mapping[str, MetricResult],
    threat: ThreatModel,
    schema: Schema,
    holdout: pd.DataFrame | None = None,
    names: Mapping[str, Any] | None = None,
    decision: str = "undecided",
    notes: str = "",
    include_records: bool = False,
    calibration: CalibrationResult | None = None,
) -> ReviewReport:
    """Assemble a report from computed results.

    Parameters
    ----------
    names
        Display names of the inputs: ``{"real": str, "synthetic": [str, ...],
        "holdout": str}``.
    include_records
        Add each measure's per-record table. Off by default: a report then holds
        aggregates only and no real record.
    calibration
        A calibration of the measures on this data
        (:func:`privacy_core.calibration.calibrate`): its per-measure summary (floor,
        ceiling, verdict and reasons), its values per level and ratio and its settings
        enter the report. Aggregates only.
    """
    names = dict(names or {})
    provenance = {
        "real": {"name": names.get("real", "real"), "rows": len(real),
                 "fingerprint": fingerprint(real)},
        "synthetic": [{"name": n, "rows": len(s), "fingerprint": fingerprint(s)}
                      for n, s in zip(names.get("synthetic", [f"release {i + 1}"
                                                              for i in range(len(synthetic))]),
                                      synthetic, strict=False)],
        "holdout": None if holdout is None else {
            "name": names.get("holdout", "holdout"), "rows": len(holdout),
            "fingerprint": fingerprint(holdout)},
        "software": "privacy_core " + _version(),
    }
    metrics = {name: {**res.to_dict(), "name": res.name} for name, res in results.items()}
    records = {}
    if include_records:
        for name, res in results.items():
            table = res.records
            if table is not None:
                records[name] = jsonable(table)
    return ReviewReport(
        created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        provenance=provenance, schema=schema.to_dict(), threat=threat.to_dict(),
        metrics=metrics, decision=decision if decision in DECISIONS else "undecided",
        notes=notes, records=records,
        calibration=None if calibration is None else calibration_record(calibration),
    )


def calibration_record(calibration: CalibrationResult) -> dict[str, Any]:
    """The report's calibration section: ``CalibrationResult.to_dict()`` (values per
    measure, mode, ratio and level; the summary keyed ``metric`` or ``metric:mode``; the
    settings) with each summary's display label. No record-level data exists in it."""
    d = calibration.to_dict()
    for key, summary in d["summary"].items():
        metric, _, mode = key.partition(":")
        spec = MEASURES.get(metric)
        label = spec.label if spec else metric
        summary["label"] = f"{label} ({mode})" if mode else label
        summary["metric"], summary["mode"] = metric, mode or "default"
    return d


def _calibration_status(summary: Mapping[str, Any], stopped: bool,
                        complete: bool = True) -> str:
    if stopped and not complete:
        return "incomplete (stopped)"
    return "pass" if summary.get("pass") else "uncalibrated on this data"


def _calibration_complete(cal: Mapping[str, Any]) -> dict[str, bool]:
    """Per summary key: did every (level, ratio) of the run produce a row?"""
    need = {(float(lv), float(r)) for lv in cal.get("levels", []) for r in cal.get("ratios", [])}
    have: dict[str, set[tuple[float, float]]] = {}
    for row in cal.get("rows", []):
        key = row["metric"] if row["mode"] == "default" else f"{row['metric']}:{row['mode']}"
        have.setdefault(key, set()).add((float(row["level"]), float(row["ratio"])))
    return {key: need <= have.get(key, set()) for key in cal.get("summary", {})}


def calibration_rows(report_dict: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The calibration summary of a report as display rows (empty without one)."""
    cal = report_dict.get("calibration")
    if not cal:
        return []
    complete = _calibration_complete(cal)
    stopped = bool(cal.get("stopped"))
    return [{"measure": s.get("label", key), "key": key,
             "status": _calibration_status(s, stopped, complete.get(key, True)),
             "floor": s.get("floor"), "ceiling": s.get("ceiling"),
             "ratio_gap": s.get("ratio_gap"),
             "ratio_gap_beyond_noise": s.get("ratio_gap_beyond_noise"),
             "monotone": s.get("monotone"),
             "reasons": "; ".join(s.get("reasons") or []), "note": s.get("note") or ""}
            for key, s in cal.get("summary", {}).items()]


def _contract(cal: Mapping[str, Any]) -> str:
    c = {"floor_max": FLOOR_MAX, "ceiling_min": CEILING_MIN, "ratio_gap_max": RATIO_GAP_MAX,
         **(cal.get("params", {}).get("contract") or {})}
    return (f"floor at most {c['floor_max']:g} (or its interval reaching 0), ceiling at "
            f"least {c['ceiling_min']:g} (or its documented ceiling), rising with f_l, ratio "
            f"gap at most {c['ratio_gap_max']:g} (or at most that beyond its readings' "
            "intervals)")


def _calibration_html(d: Mapping[str, Any]) -> str:
    rows = calibration_rows(d)
    if not rows:
        return ""
    cal = d["calibration"]
    params = cal.get("params", {})
    body = "".join(
        f"<tr><td><b>{html.escape(r['measure'])}</b><br><code>{html.escape(r['key'])}</code>"
        f"</td><td>{'✓ ' if r['status'] == 'pass' else '✗ ' if 'uncal' in r['status'] else ''}"
        f"{html.escape(r['status'])}</td><td>{_fmt(r['floor'])}</td><td>{_fmt(r['ceiling'])}"
        f"</td><td>{_fmt(r['ratio_gap'])}</td><td>{'yes' if r['monotone'] else 'no'}</td>"
        f"<td>{html.escape(r['reasons'])}</td><td>{html.escape(r['note'])}</td></tr>"
        for r in rows)
    ratios = ", ".join(f"{r:g}:1" for r in cal.get("ratios", []))
    levels = ", ".join(f"{v:g}" for v in cal.get("levels", []))
    stopped = (" <b>The run was stopped early: measures marked incomplete have provisional "
               "values.</b>" if cal.get("stopped") else "")
    return f"""<h2>Calibration of the measures on this data</h2>
<p>Each measure was run on leaky reference releases of the real rows (a share f_l copied from
training, the rest unseen real rows; f_l = {html.escape(levels)}) at training:holdout ratios
{html.escape(ratios)}, on {params.get('n_training', '?')} training rows, seed
{params.get('seed', '?')}. <i>Floor</i>: the value on unseen real rows; <i>ceiling</i>: on a
full copy (at the smallest ratio, 1:1 by default); <i>ratio gap</i>: the largest change between ratios. A measure
passes with its {html.escape(_contract(cal))}.{stopped}</p>
<table><tr><th>measure</th><th>verdict</th><th>floor</th><th>ceiling</th><th>ratio gap</th>
<th>monotone</th><th>reasons</th><th>note</th></tr>
{body}</table>"""


def _version() -> str:
    from . import __version__

    return __version__


def _fmt(value: Any) -> str:
    return "—" if value is None else html.escape(_fmt_plain(value))


def render_html(report: ReviewReport, figures: Mapping[str, Any] | None = None) -> str:
    """A self-contained HTML page of the report (figures are plotly figures)."""
    d = report.to_dict()
    rows = []
    for name, m in d["metrics"].items():
        ci = m.get("ci")
        ci_text = f"{ci[0]:.4f} – {ci[1]:.4f}" if ci and None not in ci else "—"
        spec = MEASURES.get(name)
        label = spec.label if spec else name
        reading = spec.description if spec else ""
        if spec is not None and spec.indicator:
            reading = "Indicator, not a disclosure measure. " + reading
        rows.append(
            f"<tr><td><b>{html.escape(label)}</b><br><code>{html.escape(name)}</code></td>"
            f"<td>{_fmt(m.get('value'))}</td><td>{ci_text}</td>"
            f"<td>{_fmt(m.get('baseline'))}</td><td>{html.escape(str(m.get('goal', '')))} is better"
            f"</td><td>{html.escape(reading)}</td></tr>")
    prov = d["provenance"]
    syn_rows = "".join(
        f"<li>{html.escape(s['name'])}: {s['rows']:,} rows, fingerprint <code>{s['fingerprint']}</code></li>"
        for s in prov["synthetic"])
    hold = prov.get("holdout")
    hold_text = (f"{html.escape(hold['name'])}: {hold['rows']:,} rows, fingerprint "
                 f"<code>{hold['fingerprint']}</code>") if hold else "none"
    figs_html = ""
    first = True
    for title, fig in (figures or {}).items():
        figs_html += f"<h3>{html.escape(title)}</h3>" + fig.to_html(
            full_html=False, include_plotlyjs=True if first else False)
        first = False
    params_html = "".join(
        f"<details><summary>{html.escape(name)} parameters</summary><pre>"
        f"{html.escape(json.dumps(m.get('params', {}), indent=2))}</pre></details>"
        + (f"<p>{html.escape(note)}</p>" if (note := _unit_note(m.get("params", {}))) else "")
        for name, m in d["metrics"].items())
    records_html = ""
    for name, recs in d.get("records", {}).items():
        frame = pd.DataFrame(recs)
        records_html += f"<h3>{html.escape(name)}: per-record table</h3>" + frame.to_html(
            index=False, max_rows=5000)
    threat = d["threat"]
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Synthetic data privacy review</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 1100px; margin: 2rem auto; color: #222; }}
table {{ border-collapse: collapse; margin: 1rem 0; }}
td, th {{ border: 1px solid #ccc; padding: .3rem .6rem; text-align: left; }}
th {{ background: #f3f3f3; }} code {{ font-size: .85em; }}
.decision {{ font-size: 1.2rem; padding: .6rem 1rem; background: #eef4fb; border-left: 4px solid #1f5fa8; }}
</style></head><body>
<h1>Synthetic data privacy review</h1>
<p>Created {html.escape(d['created'])} with {html.escape(prov['software'])}.</p>
<p class="decision">Decision: <b>{html.escape(d['decision'])}</b></p>
<p>{html.escape(d['notes']).replace(chr(10), '<br>')}</p>
<h2>Inputs</h2>
<ul><li>Real: {html.escape(prov['real']['name'])}: {prov['real']['rows']:,} rows, fingerprint
<code>{prov['real']['fingerprint']}</code></li>
<li>Synthetic releases:<ul>{syn_rows}</ul></li><li>Holdout: {hold_text}</li></ul>
<h2>Threat model</h2>
<p>Quasi-identifiers: {html.escape(', '.join(threat['quasi_identifiers']))}<br>
Sensitive: {html.escape(', '.join(threat['sensitive']))}</p>
<h2>Results</h2>
<table><tr><th>measure</th><th>value</th><th>95% interval</th><th>baseline</th><th>direction</th>
<th>what it measures</th></tr>
{''.join(rows)}</table>
{_calibration_html(d)}
{figs_html}
<h2>Parameters</h2>{params_html}
{records_html}
</body></html>"""


# Core PDF fonts cover Latin-1 only: the few other symbols our labels use, spelled out.
_PDF_SPELLING = {"–": "-", "—": "-", "≤": "<=", "≥": ">=", "κ": "kappa", "τ": "tau",
                 "ε": "epsilon", "α": "alpha", "×": "x", "’": "'", "“": '"', "”": '"'}


def _pdf_text(value: Any) -> str:
    text = str(value)
    for symbol, spelled in _PDF_SPELLING.items():
        text = text.replace(symbol, spelled)
    return text.encode("latin-1", "replace").decode("latin-1")


def _unit_note(params: Mapping[str, Any]) -> str:
    """The unit of RAPID's continuous tolerance ε, said in words.

    The RAPID paper (``rapid-attribute-inference.md`` §2.3) writes ε as a percentage
    ("within 10 %") while the engine stores a proportion (0.10): a reader comparing the
    report with the paper needs the unit next to the number.
    """
    eps, error = params.get("epsilon"), params.get("error")
    if params.get("kind") != "continuous" or not isinstance(eps, (int, float)):
        return ""
    if error in ("relative", "symmetric"):
        return (f"ε = {eps:g} is a proportion, not a percentage: a record is at risk when the "
                f"{error} prediction error is below {eps:.0%}.")
    unit = ("units of the sensitive attribute" if error == "absolute"
            else "standard deviations of the sensitive attribute")
    return f"ε = {eps:g} is a tolerance in {unit} ({error} error)."


def _param_summary(params: Mapping[str, Any]) -> str:
    """The scalar parameters of a measure (lists are shown when short)."""
    parts = []
    for key, value in params.items():
        if isinstance(value, (list, tuple)):
            if len(value) > 8 or any(isinstance(v, (list, dict)) for v in value):
                continue
            value = ", ".join(map(str, value))
        elif isinstance(value, dict):
            continue
        elif isinstance(value, float):
            value = f"{value:.6g}"
        parts.append(f"{key}={value}")
    return "; ".join(parts)


def render_pdf(report: ReviewReport) -> bytes:
    """The report as a printable PDF: decision, provenance, threat model, results table and
    each measure's parameters. Per-record tables are never put in the PDF (they stay in the
    HTML and JSON exports, and only when asked for)."""
    from fpdf import FPDF
    from fpdf.enums import XPos, YPos

    d = report.to_dict()
    prov = d["provenance"]
    created = _dt.datetime.fromisoformat(d["created"])
    pdf = FPDF(format="A4")
    pdf.set_compression(False)  # plain-text content streams: searchable and diff-able
    pdf.set_creation_date(created)
    pdf.set_title("Synthetic data privacy review")
    pdf.set_creator(_pdf_text(prov["software"]))
    pdf.set_auto_page_break(True, margin=15)
    pdf.add_page()
    next_line = {"new_x": XPos.LMARGIN, "new_y": YPos.NEXT}

    def heading(text: str, size: int = 13) -> None:
        pdf.ln(2)
        pdf.set_font("Helvetica", "B", size)
        pdf.cell(0, 8, _pdf_text(text), **next_line)
        pdf.set_font("Helvetica", "", 10)

    def para(text: str, height: float = 5) -> None:
        pdf.multi_cell(0, height, _pdf_text(text), align="L", **next_line)

    heading("Synthetic data privacy review", 17)
    para(f"Created {d['created']} with {prov['software']}.")
    pdf.ln(2)
    pdf.set_fill_color(238, 244, 251)
    pdf.set_font("Helvetica", "B", 12)
    pdf.cell(0, 10, _pdf_text(f"Decision: {d['decision']}"), fill=True, **next_line)
    pdf.set_font("Helvetica", "", 10)
    if d["notes"]:
        para(d["notes"])

    heading("Inputs")
    real = prov["real"]
    para(f"Real: {real['name']}: {real['rows']:,} rows, fingerprint {real['fingerprint']}")
    for s in prov["synthetic"]:
        para(f"Synthetic: {s['name']}: {s['rows']:,} rows, fingerprint {s['fingerprint']}")
    hold = prov.get("holdout")
    para("Holdout: " + (f"{hold['name']}: {hold['rows']:,} rows, fingerprint "
                        f"{hold['fingerprint']}" if hold else "none"))

    heading("Threat model")
    para("Quasi-identifiers: " + ", ".join(d["threat"]["quasi_identifiers"]))
    para("Sensitive: " + ", ".join(d["threat"]["sensitive"]))

    heading("Results")
    pdf.set_font("Helvetica", "", 9)
    with pdf.table(col_widths=(52, 20, 34, 20, 22), text_align="LEFT",
                   line_height=5) as table:
        table.row([_pdf_text(h) for h in
                   ("measure", "value", "95% interval", "baseline", "direction")])
        for name, m in d["metrics"].items():
            spec = MEASURES.get(name)
            ci = m.get("ci")
            ci_text = f"{ci[0]:.4f} - {ci[1]:.4f}" if ci and None not in ci else "-"
            label = spec.label + (" (indicator)" if spec.indicator else "") if spec else name
            table.row([_pdf_text(x) for x in (
                label, _fmt_plain(m.get("value")), ci_text, _fmt_plain(m.get("baseline")),
                f"{m.get('goal', '')} is better")])
    pdf.set_font("Helvetica", "", 10)
    para("Indicators measure similarity, not disclosure (consensus R3).", 6)

    cal_rows = calibration_rows(d)
    if cal_rows:
        heading("Calibration of the measures on this data")
        para("Floor: the value on a release of unseen real rows; ceiling: on a full copy of "
             "the training rows (worst training:holdout ratio each). A measure passes with "
             f"its {_contract(d['calibration'])}."
             + (" The run was stopped early." if d["calibration"].get("stopped") else ""))
        pdf.set_font("Helvetica", "", 8)
        with pdf.table(col_widths=(42, 30, 14, 14, 14, 66), text_align="LEFT",
                       line_height=4) as table:
            table.row([_pdf_text(h) for h in ("measure", "verdict", "floor", "ceiling",
                                              "ratio gap", "reasons")])
            for r in cal_rows:
                table.row([_pdf_text(x) for x in (
                    r["measure"], r["status"], _fmt_plain(r["floor"]),
                    _fmt_plain(r["ceiling"]), _fmt_plain(r["ratio_gap"]),
                    r["reasons"] or "-")])
        pdf.set_font("Helvetica", "", 10)

    heading("Parameters and seeds")
    for name, m in d["metrics"].items():
        pdf.set_font("Helvetica", "B", 9)
        pdf.cell(0, 5, _pdf_text(name), **next_line)
        pdf.set_font("Helvetica", "", 8)
        para(_param_summary(m.get("params", {})) or "-", 4)
        if note := _unit_note(m.get("params", {})):
            para(_pdf_text(note), 4)
    if d.get("records"):
        pdf.set_font("Helvetica", "I", 9)
        para("Per-record tables were requested; they are in the HTML and JSON exports only.")
    return bytes(pdf.output())


def _fmt_plain(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)
