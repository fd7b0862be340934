"""The review report: an auditable, JSON-serialisable record of a review; HTML and PDF exports.

A report holds provenance (file names, row counts, content fingerprints, seeds), the
schema and threat model, every measure's headline value with interval, baseline,
direction and parameters, the reviewer's decision and notes, the calibration of the
measures on this data when one was run (aggregates only: floors, ceilings, verdicts), and,
only when asked, per-record tables. The HTML export is one self-contained file (plotly's
JavaScript is embedded once) that opens offline; the PDF export (fpdf2) is the printable
sign-off sheet, aggregates only.

Releases come in groups (:class:`ReleaseGroup`). A group holds the replicates of one
generator configuration: its measures are computed over the group's releases together,
averaged, and reported with their mean and spread and each release's own value
(consensus R10). Different groups are distinct *candidates* for release: they are never
averaged, and every table of the report (JSON ``candidates``, HTML, PDF) shows them side
by side, one column per candidate.
"""

from .cells import candidate_table, format_cell, replicate_spread, targets_text
from .html_page import MAX_POINTS, render_html, slim_figure
from .model import (
    DECISIONS,
    FAMILIES,
    FAMILY_INTRO,
    REFERENCE_LABELS,
    ReleaseGroup,
    ReportFigure,
    ReviewReport,
    build_report,
    calibration_record,
    calibration_rows,
    family_of,
    reference_reading,
    reference_record,
)
from .pdf import LAST_PAGE_MIN_MM, pdf_layout, render_pdf

__all__ = [
    "DECISIONS",
    "FAMILIES",
    "FAMILY_INTRO",
    "LAST_PAGE_MIN_MM",
    "MAX_POINTS",
    "REFERENCE_LABELS",
    "ReleaseGroup",
    "ReportFigure",
    "ReviewReport",
    "build_report",
    "calibration_record",
    "calibration_rows",
    "candidate_table",
    "family_of",
    "format_cell",
    "pdf_layout",
    "reference_reading",
    "reference_record",
    "render_html",
    "render_pdf",
    "replicate_spread",
    "slim_figure",
    "targets_text",
]
