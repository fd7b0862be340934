"""Glossary: the documentation's glossary (docs/glossary.md), one heading and anchor per term."""

import streamlit as st

from ui.glossary import app_markdown, asked_anchor, glossary, keep_asked_anchor
from ui.state import require_workspace

# Through app.py's navigation on a deep link (a term link opens this page in a new tab),
# keeping the entry the link asked for; the glossary reads no data.
keep_asked_anchor()
require_workspace()

st.title("Glossary")
intro, entries = glossary()
asked = asked_anchor()
shown = next((e for e in entries if e.anchor == asked), None)
if shown is not None:
    # the entry a term link asked for, first: the address's #fragment alone does not
    # scroll there (see ui.glossary)
    with st.container(border=True):
        # bold, not a heading: a heading would repeat the entry's anchor below
        st.markdown(f"**{shown.heading}**")
        st.markdown(app_markdown(shown.body))
    st.caption("The whole glossary follows.")
st.markdown(app_markdown(intro))
st.caption(
    "The same text as the documentation site's Glossary page (docs/glossary.md). Jump to: "
    + " · ".join(f"[{e.heading}](#{e.anchor})" for e in entries)
)
for entry in entries:
    # the anchor MkDocs gives the heading: the links above, and a term link's #fragment
    st.subheader(entry.heading, anchor=entry.anchor)
    st.markdown(app_markdown(entry.body))
