"""Synthetic data risk–utility review: the Streamlit entry point.

Builds the navigation over the task pages and the sidebar that shows what is loaded.
On first start the built-in demo (simulated health microdata, a CART release and its
RAPID evaluation) is loaded so that results are on screen without a click.
"""

import streamlit as st

from ui.state import require_workspace
from ui.widgets import sidebar_summary

st.set_page_config(page_title="Synthetic data privacy review", page_icon=":material/shield:", layout="wide")

PAGES = {
    "Review": [
        st.Page("pages/overview.py", title="Overview", icon=":material/home:", default=True),
        st.Page("pages/data.py", title="Data & threat model", icon=":material/table_view:", url_path="data"),
    ],
    "Risk": [
        st.Page("pages/rapid.py", title="RAPID", icon=":material/target:", url_path="rapid"),
    ],
}

navigation = st.navigation(PAGES)
workspace = require_workspace()
sidebar_summary(workspace)
navigation.run()
