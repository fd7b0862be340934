"""The longer explanations behind a page's lead: one expander label, the topic's note.

A page leads with its number and one sentence (issue 34, for a class); what a figure
measures and what it cannot, and how to read it, sit one click away in an expander
under the label :data:`DETAILS_LABEL`, or behind a glossary link (:mod:`ui.glossary`).
The text is moved there, never dropped: DESIGN asks for a paragraph per figure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import streamlit as st

from .glossary import glossary_links

DETAILS_LABEL = "What this measures / what it cannot"
EXPLANATIONS = Path(__file__).resolve().parent.parent / "assets" / "explanations"


def details(
    *paragraphs: str,
    topic: str | None = None,
    terms: Sequence[str] = (),
    label: str = DETAILS_LABEL,
) -> None:
    """An expander with ``paragraphs`` (Markdown), the plain-language note of ``topic``
    (``assets/explanations/<topic>.md``) and links to the glossary entries of ``terms``.

    Raises
    ------
    ui.glossary.GlossaryTermError
        When a term is not in the glossary.
    """
    links = glossary_links(*terms) if terms else ""  # an unknown term fails before drawing
    with st.expander(label, icon=":material/help:"):
        for text in paragraphs:
            st.markdown(text)
        if topic is not None:
            st.markdown((EXPLANATIONS / f"{topic}.md").read_text(encoding="utf-8"))
        if links:
            st.caption(links)


def first_sentence(text: str) -> str:
    """The first sentence of a Markdown paragraph: up to the first full stop (or ? !)
    followed by a space and a capital, an emphasis mark or a parenthesis ("e.g. the"
    does not end one), or the whole text."""
    match = re.match(r"(.+?[.!?])(?=\s+[A-Z*(_])", text, flags=re.S)
    return match.group(1) if match else text
