"""Synthetic data risk–utility review: the Streamlit entry point.

Builds the navigation over the task pages and the sidebar that shows what is loaded.
On first start the built-in demo (simulated health microdata, a CART release and its
RAPID evaluation) is loaded so that results are on screen without a click.
"""

import os

# POT would otherwise import torch (~2 s) just to offer it as a backend; we use numpy.
os.environ.setdefault("POT_BACKEND_DISABLE_PYTORCH", "1")

import streamlit as st  # noqa: E402

from ui.state import DEEP_LINK, NAVIGATION_RAN, require_workspace  # noqa: E402
from ui.widgets import sidebar_summary  # noqa: E402

st.set_page_config(page_title="Synthetic data privacy review", page_icon=":material/shield:",
                   layout="wide")

PAGES = {
    "Review": [
        st.Page("pages/overview.py", title="Overview", icon=":material/home:", default=True),
        st.Page("pages/data.py", title="Data & threat model", icon=":material/table_view:",
                url_path="data"),
        st.Page("pages/report.py", title="Review & report", icon=":material/description:",
                url_path="report"),
    ],
    "Risk": [
        st.Page("pages/rapid.py", title="RAPID", icon=":material/target:", url_path="rapid"),
        st.Page("pages/privacy.py", title="Privacy metrics", icon=":material/policy:",
                url_path="privacy"),
        st.Page("pages/lab.py", title="Risk lab", icon=":material/science:", url_path="lab"),
    ],
    "Utility": [
        st.Page("pages/fidelity.py", title="Fidelity & utility", icon=":material/insights:",
                url_path="fidelity"),
        st.Page("pages/map.py", title="Risk–utility map", icon=":material/scatter_plot:",
                url_path="map"),
    ],
}

navigation = st.navigation(PAGES)
st.session_state[NAVIGATION_RAN] = True
deep_link = st.session_state.pop(DEEP_LINK, None)
if deep_link:  # a page opened before the navigation existed (see ui.state)
    target = next((p for group in PAGES.values() for p in group if p.url_path == deep_link),
                  None)
    if target is not None and target is not navigation:
        st.switch_page(target)
workspace = require_workspace()
sidebar_summary(workspace)
navigation.run()
