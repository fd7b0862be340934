"""Synthetic data risk–utility review: the Streamlit entry point.

Builds the navigation over the task pages and the sidebar that shows what is loaded.
On first start the built-in demo (simulated health microdata, a CART release and its
RAPID evaluation) is loaded so that results are on screen without a click.
"""

import os
from pathlib import Path

# POT would otherwise import torch (~2 s) just to offer it as a backend; we use numpy.
os.environ.setdefault("POT_BACKEND_DISABLE_PYTORCH", "1")

import streamlit as st  # noqa: E402

from ui.deployment import settings  # noqa: E402
from ui.identity import identity_sidebar, needs_sign_in, sign_in_page  # noqa: E402
from ui.state import (  # noqa: E402
    DEEP_LINK,
    NAVIGATION_RAN,
    URL_NOTICE,
    pop_notice,
    require_workspace,
    sync_url,
)
from ui.widgets import sidebar_summary  # noqa: E402

# The favicon is a local file: a ":material/..." page icon is fetched as an SVG from
# fonts.gstatic.com, and nothing may be fetched from outside (offline use in a secure room).
st.set_page_config(
    page_title="Synthetic data privacy review",
    page_icon=str(Path(__file__).parent / "assets" / "favicon.png"),
    layout="wide",
)

try:
    settings()  # a misconfigured server says so and runs nothing
except Exception as exc:  # noqa: BLE001  # shown, never a traceback
    st.error(f"This server's settings are wrong: {exc}", icon=":material/settings:")
    st.stop()
if needs_sign_in():  # a shared server with sign-in shows nothing else before it
    st.navigation([st.Page(sign_in_page, title="Sign in", icon=":material/login:")]).run()
    st.stop()

PAGES: dict[str, list] = {"Review": [], "Risk": [], "Utility": [], "Help": []}
BY_FILE: dict[str, st.Page] = {}


def page(group: str, path: str, title: str, icon: str, **kwargs) -> None:
    BY_FILE[path] = st.Page(path, title=title, icon=icon, **kwargs)
    PAGES[group].append(BY_FILE[path])


page("Review", "pages/overview.py", "Overview", ":material/home:", default=True)
page("Review", "pages/data.py", "Data & threat model", ":material/table_view:", url_path="data")
page("Review", "pages/report.py", "Review & report", ":material/description:", url_path="report")
page("Review", "pages/whatif.py", "What-if", ":material/tune:", url_path="whatif")
page("Review", "pages/history.py", "History", ":material/history:", url_path="history")
page("Review", "pages/learn.py", "Learn", ":material/school:", url_path="learn")
page("Risk", "pages/rapid.py", "RAPID", ":material/target:", url_path="rapid")
page("Risk", "pages/privacy.py", "Privacy metrics", ":material/policy:", url_path="privacy")
page("Risk", "pages/lab.py", "Risk lab", ":material/science:", url_path="lab")
page(
    "Utility", "pages/fidelity.py", "Fidelity & utility", ":material/insights:", url_path="fidelity"
)
page("Utility", "pages/map.py", "Risk–utility map", ":material/scatter_plot:", url_path="map")
# last: the terms the other pages link to (ui.glossary.GLOSSARY_URL_PATH is its address)
page("Help", "pages/glossary.py", "Glossary", ":material/menu_book:", url_path="glossary")

navigation = st.navigation(PAGES)
st.session_state[NAVIGATION_RAN] = True
deep_link = st.session_state.pop(DEEP_LINK, None)
if deep_link in BY_FILE:  # a page that ran before the navigation existed (see ui.state)
    st.switch_page(BY_FILE[deep_link])
workspace = require_workspace()
sync_url(workspace)  # a reload or a shared link restores these settings
if notice := pop_notice(URL_NOTICE):
    st.warning(notice, icon=":material/link_off:")
sidebar_summary(workspace)
identity_sidebar()
navigation.run()
