"""The glossary: ``docs/glossary.md`` read as the app's Glossary page, and links to its terms.

One text: the documentation site's glossary is also the app's Glossary page (the app runs
offline and in class, where the site may not be served), read from the same file. Each
``## heading`` of the file is one entry; its anchor is the id MkDocs gives that heading
(Python-Markdown's ``toc`` slug), so ``glossary#<anchor>`` lands on the same entry in the
app and ``glossary/#<anchor>`` on the site. A heading may name several terms ("GTCAP,
TCAP, WEAP", "HALF / SELF", "Quasi-identifier (QI)", "R1–R10"): each of them links to it.

A page links a term with :func:`term_link` (Markdown for a caption, a heading, a help
text). A term the glossary lacks raises :class:`GlossaryTermError` when the page runs, so
no page can show a link to an anchor that does not exist.

Streamlit (1.67) opens a Markdown link to another address in a new browser tab (only a
``#anchor`` link stays in the tab): the glossary opens beside the review, which keeps its
place, its uploads and its results. The link names the entry twice: ``?term=<anchor>``,
which the Glossary page shows first, and ``#<anchor>``. The fragment alone is not enough:
Streamlit scrolls to a heading whose anchor is the address's fragment, but the app writes
its settings into the new tab's address on the first run (``ui.url_state``), and that
rewrite drops the fragment before the heading is drawn (seen in Chromium).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import streamlit as st

GLOSSARY_FILE = Path(__file__).resolve().parent.parent / "docs" / "glossary.md"
# the Glossary page's address (app.py registers it under this url_path); a relative link,
# so that it resolves under the server's base path from every page (all are one level deep)
GLOSSARY_URL_PATH = "glossary"
# the query parameter that names the entry a link asked for (its anchor)
TERM_PARAM = "term"
# session key: that entry, kept across a fresh server's deep-link detour (see asked_anchor)
ASKED = "glossary_asked"

# a Markdown link to another page of the documentation site ("[text](verdict.md)"), which
# the app does not serve: shown as its text
_DOCS_LINK = re.compile(r"\[([^\]]+)\]\(([\w./-]+\.md)(#[\w-]*)?\)")
# a numbered range in a heading, "R1–R10": R1, R2, ..., R10 each name the entry
_RANGE = re.compile(r"\b([A-Z]+)(\d+)\s*[–-]\s*\1?(\d+)\b")


# Each measure's glossary term (registry keys, and the scorecard's relative RAPID reading):
# its card and its labels link there. tests/app/test_glossary.py checks every registered
# measure has one and that each resolves.
MEASURE_TERMS: dict[str, str] = {
    "rapid": "RAPID",
    "rapid_relative": "R7",
    "inference": "inference",
    "ml_inference": "ML inference",
    "gtcap": "GTCAP",
    "singling_out": "singling out",
    "singling_out_outliers": "singling out",
    "reproduced_uniques": "sample unique",
    "individual_risk": "individual risk",
    "sample_uniques": "sample unique",
    "k_anonymity": "k-anonymity",
    "l_diversity": "l-diversity",
    "linkability": "linkability",
    "membership": "F_rel",
    "domias": "DOMIAS",
    "mds": "MDS",
    "ims": "IMS",
    "dcr": "DCR",
    "knn": "k-NN",
    "wasserstein": "Wasserstein distance",
    "query_error": "query error",
    "discriminator": "discriminator AUC",
    "mla": "ML affinity",
}


class GlossaryTermError(LookupError):
    """A page asked to link a term that the glossary (``docs/glossary.md``) lacks."""


@dataclass(frozen=True)
class GlossaryEntry:
    """One ``## heading`` of the glossary: its heading, anchor, terms and text."""

    heading: str
    anchor: str
    terms: tuple[str, ...]
    body: str


def slugify(text: str) -> str:
    """The anchor MkDocs gives a heading (Python-Markdown's ``toc`` default slugify):
    accents and non-ASCII letters dropped, punctuation removed, spaces to hyphens,
    lower case. "τ (tau), ε (epsilon)" gives "tau-epsilon"."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", ascii_text).strip().lower())


def heading_terms(heading: str) -> tuple[str, ...]:
    """The terms a heading names: its parts split at commas, slashes and colons, each
    with its parenthesised alias ("Holdout (control)": Holdout, control), and each
    number of a range ("R1–R10": R1 to R10)."""
    terms: list[str] = [heading]
    for part in _top_level_parts(heading):
        if match := re.fullmatch(r"(.+?)\s*\((.+)\)", part):
            terms += [match.group(1).strip(), *_top_level_parts(match.group(2))]
        else:
            terms.append(part)
        for prefix, lo, hi in _RANGE.findall(part):
            terms += [f"{prefix}{i}" for i in range(int(lo), int(hi) + 1)]
    return tuple(dict.fromkeys(terms))


def _top_level_parts(text: str) -> list[str]:
    """``text`` split at the commas, colons and " / " outside parentheses."""
    parts, depth, current = [], 0, ""
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        cut = char in ",:" or (char == "/" and text[i - 1 : i + 2] == " / ")
        if depth == 0 and cut:
            parts.append(current)
            current = ""
        else:
            current += char
    return [p.strip() for p in [*parts, current] if p.strip()]


def parse_glossary(text: str) -> tuple[str, tuple[GlossaryEntry, ...]]:
    """(the introduction, the entries) of the glossary's Markdown text.

    The title line (``# ...``) is dropped; the introduction is the text before the first
    ``## heading``; each entry runs to the next heading.
    """
    chunks = re.split(r"^## +(.+?)\s*$", text, flags=re.M)
    intro = re.sub(r"^# .*$", "", chunks[0], count=1, flags=re.M).strip()
    entries = tuple(
        GlossaryEntry(heading, slugify(heading), heading_terms(heading), body.strip())
        for heading, body in zip(chunks[1::2], chunks[2::2], strict=True)
    )
    return intro, entries


@lru_cache(maxsize=4)
def _read(path: str, mtime_ns: int) -> tuple[str, tuple[GlossaryEntry, ...]]:
    # keyed on the file's modification time: an edited glossary is read again
    return parse_glossary(Path(path).read_text(encoding="utf-8"))


def glossary() -> tuple[str, tuple[GlossaryEntry, ...]]:
    """(the introduction, the entries) of ``docs/glossary.md``."""
    return _read(str(GLOSSARY_FILE), GLOSSARY_FILE.stat().st_mtime_ns)


def term_index(entries: Sequence[GlossaryEntry] | None = None) -> dict[str, GlossaryEntry]:
    """Every term (lower case) to the entry that defines it.

    Parameters
    ----------
    entries : sequence of GlossaryEntry, optional
        The entries to index; default: those of ``docs/glossary.md``.

    Raises
    ------
    GlossaryTermError
        When two entries name the same term: a link could not say which one it means.
    """
    index: dict[str, GlossaryEntry] = {}
    for entry in glossary()[1] if entries is None else entries:
        for term in entry.terms:
            other = index.setdefault(term.lower(), entry)
            if other is not entry:
                raise GlossaryTermError(
                    f"The glossary names {term!r} in two entries ({other.heading!r} and "
                    f"{entry.heading!r}): rename one in {GLOSSARY_FILE.name}."
                )
    return index


def glossary_entry(term: str) -> GlossaryEntry:
    """The entry that defines ``term`` (any of the terms its heading names, any case).

    Raises
    ------
    GlossaryTermError
        When the glossary lacks the term: add it to ``docs/glossary.md`` or do not link it.
    """
    entry = term_index().get(term.strip().lower())
    if entry is None:
        raise GlossaryTermError(
            f"{term!r} is not in the glossary ({GLOSSARY_FILE.name}): add an entry that "
            "names it, or do not link it."
        )
    return entry


def term_link(term: str, label: str | None = None) -> str:
    """A Markdown link from ``label`` (default: the term) to the term's glossary entry.

    Parameters
    ----------
    term : str
        A term the glossary names (case-insensitive), e.g. ``"GTCAP"``, ``"R7"``, ``"τ"``.
    label : str, optional
        The text shown; Markdown special characters in it are the caller's to escape.

    Returns
    -------
    str
        ``[label](glossary?term=anchor#anchor)``: in Streamlit, opens the Glossary page in
        a new tab with the entry first.

    Raises
    ------
    GlossaryTermError
        When the glossary lacks the term.
    """
    anchor = glossary_entry(term).anchor
    return f"[{label or term}]({GLOSSARY_URL_PATH}?{TERM_PARAM}={anchor}#{anchor})"


def measure_link(measure: str, label: str) -> str:
    """``label`` linked to the glossary entry of a measure (a registry key), or ``label``
    alone for a measure without a term (a new measure; a test asks for its term)."""
    term = MEASURE_TERMS.get(measure)
    return label if term is None else term_link(term, label)


def glossary_links(*terms: str) -> str:
    """The terms' links as one sentence, "Glossary: [A](…), [B](…).", for a help text or
    a caption."""
    return "Glossary: " + ", ".join(term_link(t) for t in terms) + "."


def app_markdown(body: str) -> str:
    """An entry's Markdown as the app shows it: links to other pages of the documentation
    site, which the app does not serve, become their text with the page named."""
    return _DOCS_LINK.sub(lambda m: f"*{m.group(1)}* (a page of the documentation)", body)


def keep_asked_anchor() -> None:
    """Remember the entry the address asks for (``?term=``), before the page goes through
    ``ui.state.require_workspace``.

    On a freshly started server a deep link first runs the page on its own, which sends
    it back through app.py's navigation, and that switch drops the address's query
    parameters: the session keeps the entry for the page's run that follows.
    """
    if asked := st.query_params.get(TERM_PARAM):
        st.session_state[ASKED] = asked


def asked_anchor() -> str | None:
    """The anchor of the entry a term link asked for: the address's, else the one
    :func:`keep_asked_anchor` kept (used once)."""
    kept = st.session_state.pop(ASKED, None)
    return st.query_params.get(TERM_PARAM) or kept
