"""The HTML export: one self-contained page (plotly.js embedded once, figures slimmed),
rendered from the autoescaping Jinja2 template ``templates/report.html.j2`` beside it."""

from __future__ import annotations

import base64
import functools
import gzip
import json
from collections.abc import Mapping, Sequence
from typing import Any

import jinja2
import numpy as np
import pandas as pd
from markupsafe import Markup

from ..measures import MEASURES
from .cells import candidate_table, format_cell
from .model import (
    FAMILIES,
    FAMILY_INTRO,
    LEVEL_MARK,
    REFERENCE_LABELS,
    ReportFigure,
    ReviewReport,
    calibration_rows,
    calibration_summary_of,
    candidates_sentence,
    contract_text,
    family_of,
    format_plain,
    group_words,
    param_summary,
    prefixed_name,
    reference_reading,
    unit_note,
)

# package data (pyproject.toml), so an installed wheel renders reports too
TEMPLATE = "report.html.j2"


@functools.lru_cache(maxsize=1)
def _template() -> jinja2.Template:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("privacy_core.report", "templates"),
        autoescape=True,  # every value from the review is escaped by the template
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    return env.get_template(TEMPLATE)


def _figure_item(fig: Any, fig_id: str, title: str, caption: str) -> dict[str, Any]:
    spec = json.dumps(slim_figure(fig), separators=(",", ":"), default=str)
    # inside <script>: no "<" at all, so no user-supplied "</script>" can close it
    spec = spec.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return {
        "id": fig_id,
        "title": title,
        "caption": caption,
        "spec": Markup(spec),
        "height": int(slim_figure_height(fig) or 420),
    }


def _measure_table(
    d: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], cands: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """The candidates side by side for some measures, with the data's references."""
    refs = d.get("references") or {}
    kinds = [
        k for k in ("half", "self", "histogram") if any(k in refs.get(r["key"], {}) for r in rows)
    ]
    out_rows = []
    for row in rows:
        reading = row["description"]
        if row["indicator"]:
            reading = "Indicator, not a disclosure measure. " + reading
        r_refs = refs.get(row["key"], {})
        cells = []
        for c in cands:
            cell = row["cells"][c["name"]]
            where = reference_reading(
                None if cell is None else cell.get("value"),
                r_refs,
                calibration_summary_of(d, row["key"]),
            )
            cells.append({"text": format_cell(cell), "where": where})
        out_rows.append(
            {
                "label": row["label"],
                "key": row["key"],
                "cells": cells,
                "references": [
                    format_cell({**r_refs[k], "sd": None}) if k in r_refs else "—" for k in kinds
                ],
                "goal": row["goal"],
                "reading": reading,
            }
        )
    return {
        "candidates": [{"name": c["name"], "group": group_words(c)} for c in cands],
        "reference_labels": [REFERENCE_LABELS[k] for k in kinds],
        "rows": out_rows,
    }


def _calibration_section(d: Mapping[str, Any]) -> dict[str, Any]:
    rows = calibration_rows(d)
    cal = d.get("calibration") or {}
    params = cal.get("params", {})

    def mark(status: str) -> str:
        return "✓ " if status == "pass" else "✗ " if "uncal" in status else ""

    return {
        "rows": [
            {
                **r,
                "mark": mark(r["status"]),
                "floor": _fmt(r["floor"]),
                "ceiling": _fmt(r["ceiling"]),
                "ratio_gap": _fmt(r["ratio_gap"]),
            }
            for r in rows
        ],
        "levels": ", ".join(f"{v:g}" for v in cal.get("levels", [])),
        "ratios": ", ".join(f"{r:g}:1" for r in cal.get("ratios", [])),
        "n_training": params.get("n_training", "?"),
        "seed": params.get("seed", "?"),
        "contract": contract_text(cal) if rows else "",
        "stopped": bool(cal.get("stopped")),
    }


def _drill_down(d: Mapping[str, Any], n: int = 5) -> dict[str, Any] | None:
    recs = d.get("records") or {}
    if not recs:
        return None
    tables = []
    for name, rows in recs.items():
        frame = pd.DataFrame(rows)
        sort = next((c for c in ("score", "risk", "value") if c in frame), None)
        if sort is not None and pd.api.types.is_numeric_dtype(frame[sort]):
            frame = frame.sort_values(sort, ascending=False)
        tables.append(
            {
                "name": name,
                "n_records": len(frame),
                "shown": min(n, len(frame)),
                # pandas escapes every cell itself (escape=True)
                "table": Markup(
                    frame.head(n).to_html(index=False, escape=True, float_format="%.4g")
                ),
            }
        )
    return {"n": n, "tables": tables}


def _scorecard_section(d: Mapping[str, Any]) -> dict[str, Any]:
    """Each candidate's cards: level in words (and colour), the measure behind it, the
    lines crossed; then the thresholds in force and who set them."""
    rows = [
        {
            "candidate": cand,
            "title": card["title"],
            "indicator": bool(card.get("indicator")),
            "level": card["level"],
            "mark": LEVEL_MARK[card["level"]],
            "readings": [f"{r['label']}: {r['words']}" for r in card["readings"]],
            "note": card["note"],
        }
        for cand, cards in d["scorecards"].items()
        for card in cards
    ]
    th = d.get("thresholds") or {}
    return {
        "rows": rows,
        "set_by": th.get("set_by") or "not stated",
        "changed": list(th.get("changed") or []),
    }


def _alternatives_section(d: Mapping[str, Any]) -> dict[str, Any]:
    """Each mitigation tried, and each measure before and after it."""
    return {
        "alternatives": [
            {
                "candidate": a.get("candidate", ""),
                "description": a.get("description", ""),
                "notes": list(a.get("notes") or []),
                "measures": [
                    {
                        "label": MEASURES[m].label if m in MEASURES else m,
                        "before": format_cell({"value": v.get("before"), "ci": v.get("before_ci")}),
                        "after": format_cell({"value": v.get("after"), "ci": v.get("after_ci")}),
                        "better": v.get("better", ""),
                    }
                    for m, v in (a.get("measures") or {}).items()
                ],
            }
            for a in d["alternatives"]
        ]
    }


def _checklist_section(d: Mapping[str, Any]) -> dict[str, Any]:
    cl = d["checklist"]
    return {"summary": cl["summary"], "entries": list(cl["items"])}


@functools.lru_cache(maxsize=1)
def _plotly_bundle() -> str:
    """plotly.js, gzip-compressed and base64-encoded: 4.8 MB of JavaScript become about
    2 MB, decompressed by the browser itself (DecompressionStream) when the report opens;
    mtime 0 keeps the bytes, and so the report, reproducible."""
    from plotly.offline import get_plotlyjs

    packed = gzip.compress(get_plotlyjs().encode("utf-8"), compresslevel=9, mtime=0)
    return base64.b64encode(packed).decode("ascii")


_LOADER = """<script>
(async () => {
  const figs = document.querySelectorAll("div.figure[data-fig]");
  if (!figs.length) return;
  try {
    const b64 = document.getElementById("plotly-bundle").textContent.trim();
    const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    (0, eval)(await new Response(stream).text());
    for (const el of figs) {
      const spec = JSON.parse(document.getElementById(el.dataset.fig).textContent);
      Plotly.newPlot(el, spec.data, spec.layout, {displaylogo: false, responsive: true});
    }
  } catch (err) {
    for (const el of figs) el.textContent = "This browser could not draw the figure (" + err
      + "); the tables hold every number.";
  }
})();
</script>"""

MAX_POINTS = 400  # per trace: a line of 400 points is smooth at report width


def _round(value: Any, digits: int = 4) -> Any:
    """Round floats to ``digits`` significant digits (a figure needs no more; 17-digit
    floats are most of a figure's JSON)."""
    if isinstance(value, float):
        if not np.isfinite(value):
            return None
        return float(f"{value:.{digits}g}")
    if isinstance(value, dict):
        return {k: _round(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_round(v, digits) for v in value]
    if isinstance(value, np.ndarray):
        return _round(value.tolist(), digits)
    if isinstance(value, np.generic):
        return _round(value.item(), digits)
    return value


def _histogram_to_bars(trace: dict[str, Any], edges: np.ndarray) -> dict[str, Any]:
    """A histogram of raw values as bars of its bin counts: the same picture, without
    shipping every record's value (nor a real record) in the report."""
    x = pd.to_numeric(pd.Series(list(trace.get("x", []))), errors="coerce").dropna().to_numpy()
    counts, _ = np.histogram(x, bins=edges)
    norm = trace.get("histnorm") or ""
    y = counts.astype(float)
    if norm in ("probability", "percent") and counts.sum():
        y = y / counts.sum() * (100 if norm == "percent" else 1)
    elif norm == "probability density" and counts.sum():
        y = y / counts.sum() / np.diff(edges)
    keep = {
        k: v
        for k, v in trace.items()
        if k
        in (
            "name",
            "marker",
            "opacity",
            "showlegend",
            "legendgroup",
            "xaxis",
            "yaxis",
            "marker_color",
        )
    }
    return {
        **keep,
        "type": "bar",
        "x": (edges[:-1] + edges[1:]) / 2,
        "y": y,
        "width": np.diff(edges),
    }


def _decode(value: Any) -> Any:
    """plotly's typed arrays (``{"dtype", "bdata"[, "shape"]}``, base64 of the raw bytes)
    back to numbers, so they can be binned, thinned and rounded."""
    if isinstance(value, dict):
        if "bdata" in value and "dtype" in value:
            arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
            shape = value.get("shape")
            if shape:
                dims = (
                    [int(x) for x in str(shape).split(",")]
                    if isinstance(shape, str)
                    else list(shape)
                )
                arr = arr.reshape(dims)
            return arr.tolist()
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_decode(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def slim_figure(fig: Any, *, max_points: int = MAX_POINTS) -> dict[str, Any]:
    """A plotly figure as light JSON for the report: histograms binned into bars, traces of
    more than ``max_points`` points thinned (keeping both ends), floats at 4 significant
    digits, plotly's default template left out (the browser's plotly.js has it)."""
    spec = _decode(fig.to_plotly_json() if hasattr(fig, "to_plotly_json") else dict(fig))
    data = [dict(t) for t in spec.get("data", [])]
    raw = [t for t in data if t.get("type") == "histogram" and t.get("x") is not None]
    if raw:
        values = np.concatenate(
            [
                pd.to_numeric(pd.Series(list(t["x"])), errors="coerce").dropna().to_numpy()
                for t in raw
            ]
            or [np.zeros(0)]
        )
        nbins = max(int(t.get("nbinsx") or 30) for t in raw)
        if values.size:
            lo, hi = float(values.min()), float(values.max())
            edges = np.linspace(lo, hi if hi > lo else lo + 1, min(nbins, 80) + 1)
            data = [_histogram_to_bars(t, edges) if t in raw else t for t in data]
    for t in data:
        n = max(
            (
                len(t[k])
                for k in ("x", "y")
                if hasattr(t.get(k), "__len__") and not isinstance(t.get(k), str)
            ),
            default=0,
        )
        if n > max_points and t.get("type", "scatter") in ("scatter", "scattergl"):
            idx = np.unique(np.linspace(0, n - 1, max_points).round().astype(int))
            for k in ("x", "y", "text", "customdata"):
                if (
                    hasattr(t.get(k), "__len__")
                    and not isinstance(t.get(k), str)
                    and len(t[k]) == n
                ):
                    t[k] = [list(t[k])[i] for i in idx]
    layout = dict(spec.get("layout", {}))
    layout.pop("template", None)
    return {"data": _round(data), "layout": _round(layout)}


def slim_figure_height(fig: Any) -> int | None:
    try:
        return int(fig.layout.height) if fig.layout.height else None
    except AttributeError:
        return None


def _figures_by_family(
    figures: Mapping[str, Any] | Sequence[ReportFigure] | None,
) -> dict[str, list[ReportFigure]]:
    out: dict[str, list[ReportFigure]] = {}
    if not figures:
        return out
    if isinstance(figures, Mapping):  # {title: figure}: placed by the words of its title
        items = []
        for title, fig in figures.items():
            low = title.lower()
            family = (
                "calibration"
                if "calibration" in low
                else "inference"
                if "rapid" in low
                else "map"
                if "map" in low
                else "fidelity"
                if "fidelity" in low or "utility" in low
                else "other"
            )
            items.append(ReportFigure(family, title, fig))
        figures = items
    for f in figures:
        out.setdefault(f.family, []).append(f)
    return out


def render_html(
    report: ReviewReport, figures: Mapping[str, Any] | Sequence[ReportFigure] | None = None
) -> str:
    """The report as one self-contained HTML page that opens offline.

    Sections: summary (decision, reviewer, date, candidates side by side read against the
    data's references and the calibration), one section per family of measures with its
    key figures, the calibration, drill-down examples (only when the report carries
    per-record tables), parameters and seeds, and the inputs' provenance. plotly.js is
    embedded once, compressed; figures are slimmed (:func:`slim_figure`). Every
    user-supplied string is escaped.

    ``figures``: :class:`ReportFigure` objects (or ``{title: figure}``, placed by title).
    """
    d = report.to_dict()
    cands = d["candidates"]
    table = candidate_table(d)
    figs = _FigureItems(_figures_by_family(figures), n_candidates=len(cands))
    sections = [
        _summary_section(d, table),
        *_review_sections(d),
        *_family_sections(d, table, figs),
        *_calibration_sections(d, figs),
    ]
    drill = _drill_down(d)
    toc = [(s["id"], s["title"]) for s in sections]
    if drill:
        toc.append(("drill-down", "Drill-down examples"))
    toc.append(("provenance", "Provenance, parameters and seeds"))
    bundle = (
        Markup(
            f'<script id="plotly-bundle" type="application/octet-stream">{_plotly_bundle()}'
            f"</script>{_LOADER}"
        )
        if figs.count
        else ""
    )
    prov, threat = d["provenance"], d["threat"]
    return _template().render(
        created=d["created"],
        software=prov["software"],
        has_records=bool(d.get("records")),
        toc=toc,
        sections=sections,
        drill_down=drill,
        real=prov["real"],
        synthetic=[{**s, "group": s.get("group", "")} for s in prov["synthetic"]],
        holdout=prov.get("holdout"),
        quasi_identifiers=[str(q) for q in threat["quasi_identifiers"]],
        sensitive=[str(q) for q in threat["sensitive"]],
        weights=threat.get("weights"),  # absent in a review stored before it existed
        parameters=_parameters(cands),
        bundle=bundle,
    )


class _FigureItems:
    """The page's figures as template items, numbered in the order the sections ask for
    them (``fig1``, ``fig2``, ...)."""

    def __init__(self, by_family: dict[str, list[ReportFigure]], *, n_candidates: int) -> None:
        self.by_family, self.n_candidates = by_family, n_candidates
        self.count = 0

    def __call__(self, family: str) -> dict[str, Any]:
        items = []
        chosen = self.by_family.get(family, [])
        for f in chosen:
            self.count += 1
            title = f.title + (f" — {f.candidate}" if f.candidate and self.n_candidates > 1 else "")
            items.append(_figure_item(f.figure, f"fig{self.count}", title, f.caption))
        # one figure per candidate: the candidates' figures side by side
        return {"figs": items, "side": sum(1 for f in chosen if f.candidate) > 1}


def _summary_section(d: Mapping[str, Any], table: list[dict[str, Any]]) -> dict[str, Any]:
    """Decision, sign-off, notes, each candidate's verdict and every measure side by side."""
    cands = d["candidates"]
    sign = d.get("sign_off") or {}
    return {
        "id": "summary",
        "title": "Summary and decision",
        "decision": d["decision"],
        "signed": [
            ("Reviewer", sign.get("reviewer")),
            ("Role", sign.get("role")),
            ("Date", sign.get("date")),
        ],
        "notes": d["notes"].split("\n") if d["notes"] else [],
        "candidates_sentence": candidates_sentence(cands),
        "verdicts": [
            {"name": c["name"], "verdict": c["verdict"], "sentence": c["sentence"]}
            for c in cands
            if c.get("verdict")
        ],
        "table": _measure_table(d, table, cands) if table else None,
    }


def _review_sections(d: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The scorecard, the consensus checklist and the alternatives, those the report has."""
    sections = []
    if d.get("scorecards"):
        sections.append({"id": "scorecard", "title": "Scorecard", **_scorecard_section(d)})
    if d.get("checklist"):
        sections.append(
            {"id": "checklist", "title": "Consensus checklist (R1–R10)", **_checklist_section(d)}
        )
    if d.get("alternatives"):
        sections.append(
            {"id": "alternatives", "title": "Considered alternatives", **_alternatives_section(d)}
        )
    return sections


def _family_sections(
    d: Mapping[str, Any], table: list[dict[str, Any]], figs: _FigureItems
) -> list[dict[str, Any]]:
    """One section per family of measures that has a measure or a figure."""
    sections = []
    for key, title, _ in FAMILIES:
        rows = [r for r in table if family_of(r["key"]) == key]
        family_figs = figs(key)
        if not rows and not family_figs["figs"]:
            continue
        sections.append(
            {
                "id": key,
                "title": title,
                "intro": FAMILY_INTRO[key],
                "table": _measure_table(d, rows, d["candidates"]) if rows else None,
                "figures": family_figs,
            }
        )
    return sections


def _calibration_sections(d: Mapping[str, Any], figs: _FigureItems) -> list[dict[str, Any]]:
    """The calibration section, when the report has a calibration or its figures."""
    calibration = _calibration_section(d)
    cal_figs = figs("calibration")
    if not calibration["rows"] and not cal_figs["figs"]:
        return []
    return [
        {
            "id": "calibration",
            "title": "Calibration of the measures on this data",
            **calibration,
            "figures": cal_figs,
        }
    ]


def _parameters(cands: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each candidate's measures' parameters: a short summary and the full JSON."""
    return [
        {
            "title": prefixed_name(c, name, cands),
            "summary": param_summary(m.get("params", {}))[:160],
            "json": json.dumps(m.get("params", {}), indent=2, default=str),
            "note": unit_note(m.get("params", {})),
        }
        for c in cands
        for name, m in c["metrics"].items()
    ]


def _fmt(value: Any) -> str:
    return "—" if value is None else format_plain(value)
