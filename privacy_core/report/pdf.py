"""The PDF export (fpdf2): the printable sign-off sheet, aggregates only.

Why one module: one two-pass layout (measure, then set tighter if a page nearly empty
would follow) over fpdf2's cursor, with the Latin-1 replacement it needs.
"""

from __future__ import annotations

import datetime as _dt
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from .model import (
    _LEVEL_MARK,
    ReviewReport,
    _cal_summary,
    _candidates_sentence,
    _contract,
    _fmt_plain,
    _group_words,
    _param_summary,
    _prefixed,
    _unit_note,
    calibration_rows,
    candidate_table,
    format_cell,
    reference_reading,
)

# ============================================================================ PDF export
# fpdf2's core fonts cover Latin-1 only and no TTF ships with our dependencies: other
# characters are replaced, never dropped, and the sheet lists every replacement made.
_PDF_SPELLING = {
    "–": "-",
    "—": "-",
    "≤": "<=",
    "≥": ">=",
    "κ": "kappa",
    "τ": "tau",
    "ε": "epsilon",
    "α": "alpha",
    "×": "x",
    "’": "'",
    "‘": "'",
    "“": '"',
    "”": '"',
    "…": "...",
    "±": "+/-",
    "✓": "v",
    "✗": "x",
    "→": "->",
    "²": "2",
    "•": "-",
    "∪": "U",
    "€": "EUR",
}
# letters with no Unicode decomposition, written as their base letter
_PDF_LETTERS = {
    "Ł": "L",
    "ł": "l",
    "Đ": "D",
    "đ": "d",
    "Ħ": "H",
    "ħ": "h",
    "ı": "i",
    "Œ": "OE",
    "œ": "oe",
    "Ŧ": "T",
    "ŧ": "t",
    "ŀ": "l",
    "Ŀ": "L",
}


class _Latin1:
    """Text for the core fonts, with a record of what was replaced.

    ``user_chars``: the characters of the user's own strings (names, notes, sign-off).
    Those are listed when replaced even if they are among our own symbols, so a name
    typed with an ε or a – is not silently printed otherwise.
    """

    def __init__(self, user_chars: frozenset[str] = frozenset()) -> None:
        self.replaced: dict[str, str] = {}
        self.user_chars = user_chars

    def __call__(self, value: Any) -> str:
        # composed form first: "e" + combining acute is the Latin-1 "é", not a replacement
        value = unicodedata.normalize("NFC", str(value)).replace("\r\n", "\n")
        out = []
        for ch in value:
            if ch == "\n" or (ord(ch) < 256 and unicodedata.category(ch) != "Cc"):
                out.append(ch)
                continue
            sub = _PDF_SPELLING.get(ch) or _PDF_LETTERS.get(ch)
            if sub is None and unicodedata.category(ch) != "Cc":
                plain = "".join(
                    c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c)
                )
                try:
                    plain.encode("latin-1")
                    sub = plain if plain and plain != ch else None
                except UnicodeEncodeError:
                    sub = None
            if sub is None:
                # control characters too: Latin-1 in name, but the font has no glyph for
                # them (a tab or a bell would vanish, U+0080 would print as a euro sign)
                sub = " " if ch in "\t\r" else f"[U+{ord(ch):04X}]"
            # our own labels' symbols (ε, –, ≥) are spelled out silently; anything else is
            # listed on the sheet, so a reader knows a name was not printed as typed
            if ch not in _PDF_SPELLING or ch in self.user_chars:
                self.replaced[ch] = sub
            out.append(sub)
        return "".join(out)

    def line(self, value: Any) -> str:
        """Text for a one-line cell, where a line break would print as nothing."""
        return self(value).replace("\n", " / ")


def _user_chars(d: Mapping[str, Any]) -> frozenset[str]:
    """Every character of the strings a user typed or named: notes, sign-off, file and
    release names, candidates, columns, and the measures' parameters (column names)."""
    prov = d.get("provenance") or {}
    parts: list[Any] = [
        d.get("notes"),
        d.get("sign_off"),
        d.get("threat"),
        [c.get("name") for c in (d.get("schema") or {}).get("columns", [])],
        {k: v for k, v in prov.items() if k != "software"},
    ]
    for c in d.get("candidates") or []:
        parts += [
            c.get("name"),
            c.get("releases"),
            [m.get("params") for m in (c.get("metrics") or {}).values()],
        ]
    chars: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            chars.update(unicodedata.normalize("NFC", value))
        elif isinstance(value, Mapping):
            for k, v in value.items():
                walk(k)
                walk(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)

    walk(parts)
    return frozenset(chars)


def _clip(value: str, n: int) -> str:
    """At most ``n`` characters, ending in "..." when cut (a chart label's room)."""
    return value if len(value) <= n else value[: n - 3] + "..."


def _replacement_note(replaced: Mapping[str, str]) -> str:
    """The sheet's list of what it did not print as typed: each character's code point and
    Unicode name, and what stands in its place."""
    coded = [ch for ch, sub in replaced.items() if sub == f"[U+{ord(ch):04X}]"]
    spelled = [ch for ch in replaced if ch not in coded]

    def name(ch: str) -> str:
        kind = (
            "control character"
            if unicodedata.category(ch) == "Cc"
            else unicodedata.name(ch, "unnamed character").lower()
        )
        return f"U+{ord(ch):04X} {kind}"

    parts = []
    if spelled:
        parts.append(
            "; ".join(
                f"{name(ch)} -> {replaced[ch]}"
                if replaced[ch].strip()
                else f"{name(ch)} -> a space"
                for ch in spelled
            )
        )
    if coded:
        parts.append(
            "Printed as [U+code] (no Latin-1 equivalent): " + "; ".join(name(ch) for ch in coded)
        )
    return (
        "Characters outside this sheet's Latin-1 font were replaced: "
        + ". ".join(parts)
        + ". The HTML and JSON exports keep every name as typed."
    )


def _interval_chart(
    pdf: Any,
    text: _Latin1,
    row: Mapping[str, Any],
    cands: Sequence[Mapping[str, Any]],
    refs: Mapping[str, Any],
    cal: Mapping[str, Any] | None,
    *,
    x0: float,
    width: float,
) -> None:
    """One measure as a dot-and-interval chart drawn with fpdf2's primitives: a line per
    candidate (dot = value, bar = 95% interval, or ± sd over replicates), reference ticks
    for HALF (green) and SELF (red), and the calibration's floor and ceiling (grey)."""
    wide = width > 150
    label_w, line_h = (48.0 if wide else 28.0), 5.0
    points: list[tuple[str, float | None, Any, Any]] = []
    for c in cands:
        cell = row["cells"][c["name"]]
        if cell is None or cell.get("value") is None:
            points.append((c["name"], None, None, None))
            continue
        v: float | None = float(cell["value"])
        lo_hi = cell.get("ci") or ((v - cell["sd"], v + cell["sd"]) if cell.get("sd") else None)
        points.append((c["name"], v, lo_hi, cell.get("baseline")))
    marks = []
    for kind, colour in (("half", (44, 160, 44)), ("self", (214, 39, 40))):
        if kind in refs:
            marks.append((kind.upper(), float(refs[kind]["value"]), colour))
    if cal and cal.get("floor") is not None and cal.get("ceiling") is not None:
        marks += [
            ("floor", float(cal["floor"]), (140, 140, 140)),
            ("ceiling", float(cal["ceiling"]), (140, 140, 140)),
        ]
    xs = [v for _, v, _, _ in points if v is not None]
    xs += [b for _, _, ci, _ in points if ci for b in ci] + [m[1] for m in marks]
    xs += [float(b) for _, _, _, b in points if b is not None]
    xs = [x for x in xs if np.isfinite(x)]
    if not xs:
        return
    lo, hi = min(xs), max(xs)
    if hi - lo < 1e-9:
        lo, hi = lo - 0.05, hi + 0.05
    pad = (hi - lo) * 0.06
    lo, hi = lo - pad, hi + pad
    value_w = 44.0 if wide else 22.0  # the reading in figures, right of the plot
    plot_x, plot_w = x0 + label_w, width - label_w - value_w - 2

    def sx(v: float) -> float:
        return plot_x + (min(max(v, lo), hi) - lo) / (hi - lo) * plot_w

    top = pdf.get_y()
    pdf.set_font("Helvetica", "B", 8)
    pdf.set_xy(x0, top)
    pdf.cell(
        width,
        4,
        text(row["label"] + (" (indicator)" if row["indicator"] else "") + f"  -  {row['goal']}"),
    )
    y = top + 5
    band_h = line_h * len(points) + 2
    pdf.set_draw_color(200, 200, 200)
    pdf.set_line_width(0.2)
    pdf.rect(plot_x, y, plot_w, band_h)
    pdf.set_font("Helvetica", "", 7)
    for name, v, ci, base in points:
        pdf.set_xy(x0, y + 1)
        pdf.cell(label_w - 1, line_h - 1, _clip(text.line(name), 34 if wide else 18))
        cy = y + 1 + line_h / 2
        if v is None:
            pdf.set_text_color(120, 120, 120)
            pdf.set_xy(plot_x + 2, y + 1)
            pdf.cell(40, line_h - 1, "not computed")
            pdf.set_text_color(0, 0, 0)
        else:
            pdf.set_xy(plot_x + plot_w + 2, y + 1)
            pdf.cell(
                value_w,
                line_h - 1,
                f"{v:.3f}" + (f"  [{ci[0]:.3f}, {ci[1]:.3f}]" if ci and wide else ""),
            )
            if base is not None and np.isfinite(base):
                # the measure's own control (e.g. attack success on unseen records)
                pdf.set_draw_color(255, 127, 14)
                pdf.set_line_width(0.5)
                pdf.line(sx(float(base)), cy - 1.8, sx(float(base)), cy + 1.8)
            pdf.set_draw_color(31, 95, 168)
            pdf.set_line_width(0.6)
            if ci:
                pdf.line(sx(ci[0]), cy, sx(ci[1]), cy)
                pdf.line(sx(ci[0]), cy - 1, sx(ci[0]), cy + 1)
                pdf.line(sx(ci[1]), cy - 1, sx(ci[1]), cy + 1)
            pdf.set_fill_color(31, 95, 168)
            pdf.ellipse(sx(v) - 1.1, cy - 1.1, 2.2, 2.2, style="F")
        y += line_h
    bottom = y + 2
    for label, value, colour in marks:
        pdf.set_draw_color(*colour)
        pdf.set_line_width(0.5)
        x = sx(value)
        if label in ("floor", "ceiling"):
            pdf.set_dash_pattern(dash=1, gap=0.8)
        pdf.line(x, top + 5, x, bottom)
        pdf.set_dash_pattern()
    # axis: the ends and the reference values
    pdf.set_font("Helvetica", "", 6)
    pdf.set_text_color(80, 80, 80)
    pdf.set_xy(plot_x - 6, bottom + 0.3)
    pdf.cell(12, 3, f"{lo:.3g}", align="C")
    pdf.set_xy(plot_x + plot_w - 6, bottom + 0.3)
    pdf.cell(12, 3, f"{hi:.3g}", align="C")
    legend = "  ".join(f"{label} {value:.3f}" for label, value, _ in marks)
    if legend and wide:
        pdf.set_xy(plot_x + 14, bottom + 0.3)
        pdf.cell(plot_w - 28, 3, text(legend), align="C")
    elif legend:  # a narrow chart: the reference values on a line of their own
        pdf.set_xy(x0, bottom + 3.3)
        pdf.cell(width, 3, text(legend), align="C")
        bottom += 3
    pdf.set_text_color(0, 0, 0)
    pdf.set_draw_color(0, 0, 0)
    pdf.set_fill_color(238, 244, 251)  # tables fill their headings with the current colour
    pdf.set_line_width(0.2)
    pdf.set_y(bottom + 4.5)


def _chart_height(n_cands: int) -> float:
    return 5 + 5.0 * n_cands + 2 + 4.5


def _pdf_pass(
    d: Mapping[str, Any], *, compact: bool, replaced: Mapping[str, str] | None = None
) -> tuple[bytes, int, float, dict[str, str]]:
    """One rendering: (bytes, pages, y where the last page's content ends in mm, the
    characters replaced). ``replaced``, from an earlier pass, is listed in the sign-off
    block, next to the names it concerns."""
    replaced = dict(replaced or {})
    from fpdf import FPDF
    from fpdf.enums import XPos, YPos

    text = _Latin1(_user_chars(d))
    prov = d["provenance"]
    sign = d.get("sign_off") or {}
    cands = d["candidates"]
    refs = d.get("references") or {}
    created = _dt.datetime.fromisoformat(d["created"])
    pdf = FPDF(format="A4")
    pdf.set_compression(False)  # plain-text content streams: searchable and diff-able
    pdf.set_creation_date(created)
    pdf.set_title("Synthetic data privacy review")
    pdf.set_creator(text(prov["software"]))
    pdf.set_auto_page_break(True, margin=15)
    pdf.add_page()
    next_line: dict[str, Any] = {"new_x": XPos.LMARGIN, "new_y": YPos.NEXT}
    small = 7 if compact else 8

    def heading(t: str, size: int = 12) -> None:
        pdf.ln(1.5)
        pdf.set_font("Helvetica", "B", size)
        pdf.cell(0, 7, text(t), **next_line)
        pdf.set_font("Helvetica", "", 9)

    def para(t: str, height: float = 4.5) -> None:
        pdf.multi_cell(0, height, text(t), align="L", **next_line)

    def room(h: float) -> None:
        if pdf.get_y() + h > pdf.page_break_trigger:
            pdf.add_page()

    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(0, 9, "Synthetic data privacy review - sign-off sheet", **next_line)
    pdf.set_font("Helvetica", "", 8)
    para(
        f"Created {d['created']} with {prov['software']}. Aggregates only: no real record "
        "is printed on this sheet.",
        4,
    )
    pdf.ln(1)
    pdf.set_fill_color(238, 244, 251)
    pdf.set_font("Helvetica", "B", 13)
    pdf.cell(0, 10, text(f"Decision: {d['decision']}"), fill=True, **next_line)
    pdf.set_font("Helvetica", "", 9)
    pdf.ln(1)
    # the verdict per candidate, as the Overview states it (privacy_core.scorecard)
    for c in d.get("candidates") or []:
        if c.get("verdict"):
            pdf.set_font("Helvetica", "B", 9)
            para(f"Verdict for {c['name']}: {c['verdict']}.", 4.5)
            pdf.set_font("Helvetica", "", 9)
            para(c["sentence"], 4.2)
    pdf.ln(1)
    for label, value in (
        ("Reviewer", sign.get("reviewer")),
        ("Role", sign.get("role")),
        ("Date", sign.get("date")),
    ):
        pdf.set_font("Helvetica", "B", 9)
        pdf.cell(22, 5, label + ":")
        pdf.set_font("Helvetica", "", 9)
        pdf.cell(0, 5, text.line(value or "(not given)"), **next_line)

    heading("Data provenance")
    pdf.set_font("Helvetica", "", small)
    real = prov["real"]
    para(f"Real: {real['name']}: {real['rows']:,} rows, fingerprint {real['fingerprint']}", 4)
    for s in prov["synthetic"]:
        para(
            f"Release: {s['name']}: {s['rows']:,} rows, fingerprint {s['fingerprint']}, "
            f"candidate {s.get('group', '-')}",
            4,
        )
    hold = prov.get("holdout")
    para(
        "Holdout: "
        + (
            f"{hold['name']}: {hold['rows']:,} rows, fingerprint {hold['fingerprint']}"
            if hold
            else "none"
        ),
        4,
    )
    para(
        "Threat model: quasi-identifiers "
        + ", ".join(map(str, d["threat"]["quasi_identifiers"]))
        + "; sensitive "
        + ", ".join(map(str, d["threat"]["sensitive"])),
        4,
    )

    heading("Results")
    pdf.set_font("Helvetica", "", small + 1)
    para(_candidates_sentence(cands), 4)
    table_rows = candidate_table(d)
    if table_rows:
        pdf.set_font("Helvetica", "", 7 if len(cands) > 2 or compact else 8)
        width = (190 - 48 - 24) / max(len(cands), 1)
        with pdf.table(
            col_widths=(48, *([width] * len(cands)), 24),
            text_align="LEFT",
            line_height=3.6 if len(cands) > 2 or compact else 4,
        ) as table:
            table.row(
                [
                    text(h)
                    for h in (
                        "measure",
                        *(f"{c['name']} ({_group_words(c)})" for c in cands),
                        "direction",
                    )
                ]
            )
            for row in table_rows:
                label = row["label"] + (" (indicator)" if row["indicator"] else "")
                table.row(
                    [
                        text(x)
                        for x in (
                            label,
                            *(format_cell(row["cells"][c["name"]]) for c in cands),
                            row["goal"],
                        )
                    ]
                )
        pdf.set_font("Helvetica", "", small)
        para("Indicators measure similarity, not disclosure (consensus R3).", 4)

        heading("Key figures")
        pdf.set_font("Helvetica", "", small)
        para(
            "Dot: each candidate's value; bar: its 95% interval (or +/- sd over replicates); "
            "short orange tick: the measure's own baseline (control or chance). "
            "Green line: HALF, a random half of the real rows used as a release (what a fresh "
            "sample discloses); red line: SELF, a copy of the real data; dashed grey: the "
            "calibration's floor and ceiling on this data. Only references that were "
            "computed are drawn.",
            3.6,
        )
        pdf.ln(1)
        # compact: two charts a row (the interval's numbers then stay in the table above)
        per_row = 2 if compact else 1
        col_w = 190 / per_row - (3 if per_row > 1 else 0)
        h = _chart_height(len(cands)) + 7
        for start in range(0, len(table_rows), per_row):
            room(h)
            top, bottoms = pdf.get_y(), []
            for j, row in enumerate(table_rows[start : start + per_row]):
                x0 = pdf.l_margin + j * (col_w + 6)
                pdf.set_y(top)
                _interval_chart(
                    pdf,
                    text,
                    row,
                    cands,
                    refs.get(row["key"], {}),
                    _cal_summary(d, row["key"]),
                    x0=x0,
                    width=col_w,
                )
                reading = "; ".join(
                    f"{c['name']}: {r}" if len(cands) > 1 else r
                    for c in cands
                    if (cell := row["cells"][c["name"]]) is not None
                    and (r := reference_reading(cell.get("value"), refs.get(row["key"]), None))
                )
                if reading:
                    pdf.set_font("Helvetica", "I", 7)
                    pdf.set_x(x0)
                    pdf.multi_cell(col_w, 3.4, text(reading), align="L", **next_line)
                    pdf.ln(0.8)
                bottoms.append(pdf.get_y())
            pdf.set_y(max(bottoms))

    _pdf_scorecard_and_checklist(pdf, text, d, heading=heading, para=para, room=room, small=small)

    cal_rows = calibration_rows(d)
    if cal_rows:
        room(30)
        heading("Calibration of the measures on this data")
        pdf.set_font("Helvetica", "", small)
        para(
            "Floor: the value on a release of unseen real rows; ceiling: on a full copy of "
            "the training rows. A measure passes with its "
            f"{_contract(d['calibration'])}."
            + (" The run was stopped early." if d["calibration"].get("stopped") else ""),
            3.8,
        )
        pdf.set_font("Helvetica", "", 7)
        with pdf.table(
            col_widths=(42, 30, 14, 14, 14, 66), text_align="LEFT", line_height=3.6
        ) as table:
            table.row(
                [
                    text(h)
                    for h in ("measure", "verdict", "floor", "ceiling", "ratio gap", "reasons")
                ]
            )
            for cal_row in cal_rows:
                table.row(
                    [
                        text(x)
                        for x in (
                            cal_row["measure"],
                            cal_row["status"],
                            _fmt_plain(cal_row["floor"]),
                            _fmt_plain(cal_row["ceiling"]),
                            _fmt_plain(cal_row["ratio_gap"]),
                            cal_row["reasons"] or "-",
                        )
                    ]
                )

    # -- sign-off: kept together on one page
    notes = d["notes"] or ""
    pdf.set_font("Helvetica", "", 9)
    lines = pdf.multi_cell(0, 4.5, text(notes or "-"), dry_run=True, output="LINES")
    note_lines = len(cast(list, lines))
    room(52 + 4.5 * note_lines + (14 if replaced else 0))
    heading("Sign-off")
    pdf.set_font("Helvetica", "B", 9)
    pdf.cell(0, 5, "Reviewer notes", **next_line)
    pdf.set_font("Helvetica", "", 9)
    para(notes or "-")
    pdf.ln(2)
    pdf.set_font("Helvetica", "", 10)
    pdf.cell(0, 6, text(f"Decision: {d['decision']}"), **next_line)
    for label, value in (
        ("Reviewer name", sign.get("reviewer")),
        ("Role", sign.get("role")),
        ("Date", sign.get("date")),
    ):
        pdf.cell(32, 7, label + ":")
        pdf.cell(0, 7, text.line(value or ""), **next_line)
    pdf.ln(5)
    y = pdf.get_y()
    pdf.cell(32, 6, "Signature:")
    pdf.line(pdf.l_margin + 32, y + 6, pdf.l_margin + 120, y + 6)
    pdf.ln(9)
    if replaced:
        pdf.set_font("Helvetica", "I", 7)
        para(_replacement_note(replaced), 3.4)
    heading("Appendix: parameters and seeds")
    for c, name, m in ((cand, n, m) for cand in cands for n, m in cand["metrics"].items()):
        pdf.set_font("Helvetica", "B", small)
        pdf.cell(0, 3.8, text.line(_prefixed(c, name, cands)), **next_line)
        pdf.set_font("Helvetica", "", small - 1)
        para(_param_summary(m.get("params", {})) or "-", 3.3)
        if note := _unit_note(m.get("params", {})):
            para(note, 3.3)
    if d.get("records"):
        pdf.set_font("Helvetica", "I", 8)
        para("Per-record tables were requested; they are in the HTML and JSON exports only.")

    return bytes(pdf.output()), pdf.page_no(), pdf.get_y(), text.replaced


def _pdf_scorecard_and_checklist(
    pdf: Any, text: _Latin1, d: Mapping[str, Any], *, heading: Any, para: Any, room: Any, small: int
) -> None:
    """The scorecard (one row per family and candidate) and the R1-R10 checklist."""
    if d.get("scorecards"):
        room(30)
        heading("Scorecard")
        pdf.set_font("Helvetica", "", small)
        th = d.get("thresholds") or {}
        para(
            "Reading of each family against the thresholds (amber / red lines) set by: "
            + (th.get("set_by") or "not stated")
            + ". Level in words; indicators (R3) are "
            "not disclosure evidence.",
            3.8,
        )
        pdf.set_font("Helvetica", "", 7)
        with pdf.table(col_widths=(30, 36, 18, 106), text_align="LEFT", line_height=3.5) as table:
            table.row([text(h) for h in ("candidate", "family", "reading", "evidence")])
            for cand, cards in d["scorecards"].items():
                for card in cards:
                    evidence = "; ".join(f"{r['label']}: {r['words']}" for r in card["readings"])
                    note = card["note"]
                    table.row(
                        [
                            text(x)
                            for x in (
                                cand,
                                card["title"] + (" (indicator)" if card.get("indicator") else ""),
                                _LEVEL_MARK[card["level"]],
                                _clip(
                                    (evidence + (" " + note if note and evidence else note)) or "-",
                                    1200,
                                ),
                            )
                        ]
                    )
    if d.get("checklist"):
        cl = d["checklist"]
        room(40)
        heading("Consensus checklist (R1-R10)")
        pdf.set_font("Helvetica", "", small)
        para(cl["summary"] + ".", 3.8)
        pdf.set_font("Helvetica", "", 7)
        with pdf.table(col_widths=(40, 22, 128), text_align="LEFT", line_height=3.5) as table:
            table.row([text(h) for h in ("recommendation", "status", "evidence")])
            for item in cl["items"]:
                table.row(
                    [
                        text(x)
                        for x in (
                            f"{item['code']} {item['title']}",
                            item["status"],
                            _clip(item["evidence"], 400),
                        )
                    ]
                )


LAST_PAGE_MIN_MM = 90.0  # a last page holding less than this much is "nearly empty"


def pdf_layout(report: ReviewReport) -> dict[str, Any]:
    """How the PDF came out: pages, the height used on the last one (mm), and whether the
    compact layout was needed to avoid a nearly empty last page."""
    return _render_pdf(report)[1]


def _render_pdf(report: ReviewReport) -> tuple[bytes, dict[str, Any]]:
    d = report.to_dict()
    # pass 1 finds the characters to replace, which the sign-off block then lists
    *_, replaced = _pdf_pass(d, compact=False)
    out, pages, last_y, _ = _pdf_pass(d, compact=False, replaced=replaced)
    compact = False
    # a sheet that spills a few lines onto a new page is set tighter once
    if pages > 1 and last_y < LAST_PAGE_MIN_MM:
        out2, pages2, last_y2, _ = _pdf_pass(d, compact=True, replaced=replaced)
        if pages2 < pages or last_y2 >= LAST_PAGE_MIN_MM:
            out, pages, last_y, compact = out2, pages2, last_y2, True
    return out, {
        "pages": pages,
        "last_page_used_mm": last_y,
        "compact": compact,
        "replaced": replaced,
    }


def render_pdf(report: ReviewReport) -> bytes:
    """The printable sign-off sheet (fpdf2): decision, reviewer, role and date; data
    provenance and threat model; the candidates side by side; per measure a
    dot-and-interval chart with the HALF / SELF references and the calibration's floor and
    ceiling; the calibration table; parameters and seeds; the notes and a signature block.
    Aggregates only: per-record tables never enter the PDF."""
    return _render_pdf(report)[0]
