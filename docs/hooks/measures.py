"""MkDocs hook: the measures page written from the registry at build time.

``docs/measures.md`` holds the prose and the marker ``<!-- measures -->``; each registered
measure replaces it with a section (label, what it measures, its family, what it needs,
its cost bound in rows and columns, its calibration and its modes) followed by its
function's docstring (mkdocstrings), so a measure added to the registry is documented
without editing this page, and a measure's references live in one place, its docstring.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
MARKER = "<!-- measures -->"


def _section(name: str, spec) -> str:
    needs = "a holdout" if spec.needs_holdout else "no holdout (uses one when given)"
    if not spec.uses_holdout:
        needs = "no holdout"
    kind = (
        "similarity indicator (never evidence of disclosure)"
        if spec.indicator
        else ("disclosure measure" if spec.family == "privacy" else "fidelity / utility measure")
    )
    lines = [
        f"## {spec.label} (`{name}`)",
        "",
        spec.description or "",
        "",
        f"- **Kind:** {kind}; {spec.goal.direction} is better.",
        f"- **Needs:** {'a threat model' if spec.needs_threat else 'no threat model'}, {needs}.",
    ]
    if spec.budget:
        # how its cost is bounded in rows and columns (sampling, a cap, or none)
        lines.append(f"- **Cost bound:** {spec.budget}")
    if spec.family == "privacy":
        if spec.calibrated:
            status = "meets the calibration contract (reads about 0 on unseen real rows, "
            status += "1 on a full copy)"
        else:
            status = "not calibrated"
        lines.append(f"- **Calibration:** {status}.")
        if spec.calibration_note:
            lines.append(f"  {spec.calibration_note}")
        modes = ", ".join(f"`{m}`" for m in spec.mode_names)
        lines.append(f"- **Modes checked:** {modes}.")
    lines += [
        "",
        f"::: privacy_core.{spec.function.__module__.removeprefix('privacy_core.')}."
        f"{spec.function.__name__}",
        "    options:",
        "      show_root_heading: false",
        "",
    ]
    return "\n".join(lines)


def on_page_markdown(markdown: str, page, config, files) -> str:
    if MARKER not in markdown:
        return markdown
    # the engine of this checkout, however mkdocs was started (mkdocs restores sys.path
    # after loading a hook, so the path is added here)
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    from privacy_core.measures import MEASURES

    body = "\n".join(_section(n, s) for n, s in MEASURES.items())
    return markdown.replace(MARKER, body)
