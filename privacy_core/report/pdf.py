"""The PDF export (fpdf2): the printable sign-off sheet, aggregates only.

One two-pass layout (measure, then set tighter if a page nearly empty would follow) over
fpdf2's cursor: :func:`render_pdf` runs :func:`_pdf_pass`, which writes the sheet's blocks
in order through a :class:`_Sheet`. The chart of each measure is drawn by
:mod:`.pdf_chart`; text goes through the Latin-1 replacement of :mod:`.pdf_text`.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from typing import Any, cast

from .cells import candidate_table, format_cell
from .model import (
    LEVEL_MARK,
    ReviewReport,
    calibration_rows,
    calibration_summary_of,
    candidates_sentence,
    contract_text,
    format_plain,
    group_words,
    param_summary,
    prefixed_name,
    reference_reading,
    unit_note,
)
from .pdf_chart import chart_height, interval_chart
from .pdf_text import Latin1, clip, replacement_note, user_chars


class _Sheet:
    """An fpdf2 document with the sheet's text conversion and its few writing habits:
    headings, paragraphs, keeping a block on one page."""

    def __init__(self, d: Mapping[str, Any], *, compact: bool) -> None:
        from fpdf import FPDF
        from fpdf.enums import XPos, YPos

        self.text = Latin1(user_chars(d))
        pdf = FPDF(format="A4")
        pdf.set_compression(False)  # plain-text content streams: searchable and diff-able
        pdf.set_creation_date(_dt.datetime.fromisoformat(d["created"]))
        pdf.set_title("Synthetic data privacy review")
        pdf.set_creator(self.text(d["provenance"]["software"]))
        pdf.set_auto_page_break(True, margin=15)
        pdf.add_page()
        self.pdf = pdf
        self.compact = compact
        self.next_line: dict[str, Any] = {"new_x": XPos.LMARGIN, "new_y": YPos.NEXT}
        self.small = 7 if compact else 8

    def heading(self, t: str, size: int = 12) -> None:
        self.pdf.ln(1.5)
        self.pdf.set_font("Helvetica", "B", size)
        self.pdf.cell(0, 7, self.text(t), **self.next_line)
        self.pdf.set_font("Helvetica", "", 9)

    def para(self, t: str, height: float = 4.5) -> None:
        self.pdf.multi_cell(0, height, self.text(t), align="L", **self.next_line)

    def room(self, h: float) -> None:
        """A new page unless ``h`` mm are left on this one."""
        if self.pdf.get_y() + h > self.pdf.page_break_trigger:
            self.pdf.add_page()


def _pdf_pass(
    d: Mapping[str, Any], *, compact: bool, replaced: Mapping[str, str] | None = None
) -> tuple[bytes, int, float, dict[str, str]]:
    """One rendering: (bytes, pages, y where the last page's content ends in mm, the
    characters replaced). ``replaced``, from an earlier pass, is listed in the sign-off
    block, next to the names it concerns."""
    replaced = dict(replaced or {})
    sheet = _Sheet(d, compact=compact)
    _title_block(sheet, d)
    _provenance_block(sheet, d)
    _results_block(sheet, d)
    _scorecard_block(sheet, d)
    _checklist_block(sheet, d)
    _calibration_block(sheet, d)
    _sign_off_block(sheet, d, replaced)
    _appendix_block(sheet, d)
    pdf = sheet.pdf
    return bytes(pdf.output()), pdf.page_no(), pdf.get_y(), sheet.text.replaced


def _title_block(sheet: _Sheet, d: Mapping[str, Any]) -> None:
    """Title, creation, the decision, each candidate's verdict and who signs."""
    pdf, text = sheet.pdf, sheet.text
    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(0, 9, "Synthetic data privacy review - sign-off sheet", **sheet.next_line)
    pdf.set_font("Helvetica", "", 8)
    sheet.para(
        f"Created {d['created']} with {d['provenance']['software']}. Aggregates only: no real "
        "record is printed on this sheet.",
        4,
    )
    pdf.ln(1)
    pdf.set_fill_color(238, 244, 251)
    pdf.set_font("Helvetica", "B", 13)
    pdf.cell(0, 10, text(f"Decision: {d['decision']}"), fill=True, **sheet.next_line)
    pdf.set_font("Helvetica", "", 9)
    pdf.ln(1)
    # the verdict per candidate, as the Overview states it (privacy_core.scorecard)
    for c in d.get("candidates") or []:
        if c.get("verdict"):
            pdf.set_font("Helvetica", "B", 9)
            sheet.para(f"Verdict for {c['name']}: {c['verdict']}.", 4.5)
            pdf.set_font("Helvetica", "", 9)
            sheet.para(c["sentence"], 4.2)
    pdf.ln(1)
    sign = d.get("sign_off") or {}
    for label, value in (
        ("Reviewer", sign.get("reviewer")),
        ("Role", sign.get("role")),
        ("Date", sign.get("date")),
    ):
        pdf.set_font("Helvetica", "B", 9)
        pdf.cell(22, 5, label + ":")
        pdf.set_font("Helvetica", "", 9)
        pdf.cell(0, 5, text.line(value or "(not given)"), **sheet.next_line)


def _provenance_block(sheet: _Sheet, d: Mapping[str, Any]) -> None:
    """The inputs' names, sizes and fingerprints, and the threat model."""
    prov = d["provenance"]
    sheet.heading("Data provenance")
    sheet.pdf.set_font("Helvetica", "", sheet.small)
    real = prov["real"]
    sheet.para(f"Real: {real['name']}: {real['rows']:,} rows, fingerprint {real['fingerprint']}", 4)
    for s in prov["synthetic"]:
        sheet.para(
            f"Release: {s['name']}: {s['rows']:,} rows, fingerprint {s['fingerprint']}, "
            f"candidate {s.get('group', '-')}",
            4,
        )
    hold = prov.get("holdout")
    sheet.para(
        "Holdout: "
        + (
            f"{hold['name']}: {hold['rows']:,} rows, fingerprint {hold['fingerprint']}"
            if hold
            else "none"
        ),
        4,
    )
    sheet.para(
        "Threat model: quasi-identifiers "
        + ", ".join(map(str, d["threat"]["quasi_identifiers"]))
        + "; sensitive "
        + ", ".join(map(str, d["threat"]["sensitive"]))
        + (f"; sampling weights {w}" if (w := d["threat"].get("weights")) else ""),
        4,
    )


def _results_block(sheet: _Sheet, d: Mapping[str, Any]) -> None:
    """The candidates side by side, then a chart per measure."""
    pdf, text, cands = sheet.pdf, sheet.text, d["candidates"]
    sheet.heading("Results")
    pdf.set_font("Helvetica", "", sheet.small + 1)
    sheet.para(candidates_sentence(cands), 4)
    table_rows = candidate_table(d)
    if not table_rows:
        return
    dense = len(cands) > 2 or sheet.compact
    pdf.set_font("Helvetica", "", 7 if dense else 8)
    width = (190 - 48 - 24) / max(len(cands), 1)
    with pdf.table(
        col_widths=(48, *([width] * len(cands)), 24),
        text_align="LEFT",
        line_height=3.6 if dense else 4,
    ) as table:
        table.row(
            [
                text(h)
                for h in (
                    "measure",
                    *(f"{c['name']} ({group_words(c)})" for c in cands),
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
    pdf.set_font("Helvetica", "", sheet.small)
    sheet.para("Indicators measure similarity, not disclosure (consensus R3).", 4)
    _key_figures(sheet, d, table_rows)


def _key_figures(sheet: _Sheet, d: Mapping[str, Any], table_rows: list[dict[str, Any]]) -> None:
    """A dot-and-interval chart per measure with its reading against the references;
    compact: two charts a row (the interval's numbers then stay in the table above)."""
    pdf, cands = sheet.pdf, d["candidates"]
    refs = d.get("references") or {}
    sheet.heading("Key figures")
    pdf.set_font("Helvetica", "", sheet.small)
    sheet.para(
        "Dot: each candidate's value; bar: its 95% interval (or +/- sd over replicates); "
        "short orange tick: the measure's own baseline (control or chance). "
        "Green line: HALF, a random half of the real rows used as a release (what a fresh "
        "sample discloses); red line: SELF, a copy of the real data; dashed grey: the "
        "calibration's floor and ceiling on this data. Only references that were "
        "computed are drawn.",
        3.6,
    )
    pdf.ln(1)
    per_row = 2 if sheet.compact else 1
    col_w = 190 / per_row - (3 if per_row > 1 else 0)
    h = chart_height(len(cands)) + 7
    for start in range(0, len(table_rows), per_row):
        sheet.room(h)
        top, bottoms = pdf.get_y(), []
        for j, row in enumerate(table_rows[start : start + per_row]):
            x0 = pdf.l_margin + j * (col_w + 6)
            pdf.set_y(top)
            interval_chart(
                pdf,
                sheet.text,
                row,
                cands,
                refs.get(row["key"], {}),
                calibration_summary_of(d, row["key"]),
                x0=x0,
                width=col_w,
            )
            _chart_reading(sheet, row, cands, refs, x0=x0, width=col_w)
            bottoms.append(pdf.get_y())
        pdf.set_y(max(bottoms))


def _chart_reading(
    sheet: _Sheet,
    row: Mapping[str, Any],
    cands: Sequence[Mapping[str, Any]],
    refs: Mapping[str, Any],
    *,
    x0: float,
    width: float,
) -> None:
    """Under a chart, where each candidate sits against the references, in words."""
    reading = "; ".join(
        f"{c['name']}: {r}" if len(cands) > 1 else r
        for c in cands
        if (cell := row["cells"][c["name"]]) is not None
        and (r := reference_reading(cell.get("value"), refs.get(row["key"]), None))
    )
    if reading:
        sheet.pdf.set_font("Helvetica", "I", 7)
        sheet.pdf.set_x(x0)
        sheet.pdf.multi_cell(width, 3.4, sheet.text(reading), align="L", **sheet.next_line)
        sheet.pdf.ln(0.8)


def _scorecard_block(sheet: _Sheet, d: Mapping[str, Any]) -> None:
    """The scorecard: one row per family and candidate."""
    if not d.get("scorecards"):
        return
    pdf, text = sheet.pdf, sheet.text
    sheet.room(30)
    sheet.heading("Scorecard")
    pdf.set_font("Helvetica", "", sheet.small)
    th = d.get("thresholds") or {}
    sheet.para(
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
                            LEVEL_MARK[card["level"]],
                            clip(
                                (evidence + (" " + note if note and evidence else note)) or "-",
                                1200,
                            ),
                        )
                    ]
                )


def _checklist_block(sheet: _Sheet, d: Mapping[str, Any]) -> None:
    """The consensus checklist R1-R10: status and evidence per recommendation."""
    if not d.get("checklist"):
        return
    pdf, text, cl = sheet.pdf, sheet.text, d["checklist"]
    sheet.room(40)
    sheet.heading("Consensus checklist (R1-R10)")
    pdf.set_font("Helvetica", "", sheet.small)
    sheet.para(cl["summary"] + ".", 3.8)
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
                        clip(item["evidence"], 400),
                    )
                ]
            )


def _calibration_block(sheet: _Sheet, d: Mapping[str, Any]) -> None:
    """The calibration of the measures on this data, when one ran."""
    cal_rows = calibration_rows(d)
    if not cal_rows:
        return
    pdf, text = sheet.pdf, sheet.text
    sheet.room(30)
    sheet.heading("Calibration of the measures on this data")
    pdf.set_font("Helvetica", "", sheet.small)
    sheet.para(
        "Floor: the value on a release of unseen real rows; ceiling: on a full copy of "
        "the training rows. A measure passes with its "
        f"{contract_text(d['calibration'])}."
        + (" The run was stopped early." if d["calibration"].get("stopped") else ""),
        3.8,
    )
    pdf.set_font("Helvetica", "", 7)
    with pdf.table(
        col_widths=(42, 30, 14, 14, 14, 66), text_align="LEFT", line_height=3.6
    ) as table:
        table.row(
            [text(h) for h in ("measure", "verdict", "floor", "ceiling", "ratio gap", "reasons")]
        )
        for cal_row in cal_rows:
            table.row(
                [
                    text(x)
                    for x in (
                        cal_row["measure"],
                        cal_row["status"],
                        format_plain(cal_row["floor"]),
                        format_plain(cal_row["ceiling"]),
                        format_plain(cal_row["ratio_gap"]),
                        cal_row["reasons"] or "-",
                    )
                ]
            )


def _sign_off_block(sheet: _Sheet, d: Mapping[str, Any], replaced: Mapping[str, str]) -> None:
    """Notes, decision, name, role, date and signature, kept together on one page; the
    characters replaced in the user's strings below them."""
    pdf, text = sheet.pdf, sheet.text
    notes = d["notes"] or ""
    pdf.set_font("Helvetica", "", 9)
    lines = pdf.multi_cell(0, 4.5, text(notes or "-"), dry_run=True, output="LINES")
    note_lines = len(cast(list, lines))
    sheet.room(52 + 4.5 * note_lines + (14 if replaced else 0))
    sheet.heading("Sign-off")
    pdf.set_font("Helvetica", "B", 9)
    pdf.cell(0, 5, "Reviewer notes", **sheet.next_line)
    pdf.set_font("Helvetica", "", 9)
    sheet.para(notes or "-")
    pdf.ln(2)
    pdf.set_font("Helvetica", "", 10)
    pdf.cell(0, 6, text(f"Decision: {d['decision']}"), **sheet.next_line)
    sign = d.get("sign_off") or {}
    for label, value in (
        ("Reviewer name", sign.get("reviewer")),
        ("Role", sign.get("role")),
        ("Date", sign.get("date")),
    ):
        pdf.cell(32, 7, label + ":")
        pdf.cell(0, 7, text.line(value or ""), **sheet.next_line)
    pdf.ln(5)
    y = pdf.get_y()
    pdf.cell(32, 6, "Signature:")
    pdf.line(pdf.l_margin + 32, y + 6, pdf.l_margin + 120, y + 6)
    pdf.ln(9)
    if replaced:
        pdf.set_font("Helvetica", "I", 7)
        sheet.para(replacement_note(replaced), 3.4)


def _appendix_block(sheet: _Sheet, d: Mapping[str, Any]) -> None:
    """Every measure's parameters and seeds."""
    pdf, text, cands = sheet.pdf, sheet.text, d["candidates"]
    sheet.heading("Appendix: parameters and seeds")
    for c, name, m in ((cand, n, m) for cand in cands for n, m in cand["metrics"].items()):
        pdf.set_font("Helvetica", "B", sheet.small)
        pdf.cell(0, 3.8, text.line(prefixed_name(c, name, cands)), **sheet.next_line)
        pdf.set_font("Helvetica", "", sheet.small - 1)
        sheet.para(param_summary(m.get("params", {})) or "-", 3.3)
        if note := unit_note(m.get("params", {})):
            sheet.para(note, 3.3)
    if d.get("records"):
        pdf.set_font("Helvetica", "I", 8)
        sheet.para("Per-record tables were requested; they are in the HTML and JSON exports only.")


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
