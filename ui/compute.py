"""Where the heavy work runs: in this server, or on a Ray cluster the user names.

The address is a session setting of its own, never read from the page's address (a
shared link must not be able to send someone's records to another machine), and never
part of a result's cache key (a cluster gives the same numbers). What runs there: RAPID's
attacker fits (one task per release and attacker, the HALF / SELF references too), the
calibration cells, MDS's shadow models, the risk lab's sweep cells and the privacy
measures' nearest-neighbour searches of over 2·10^9 pairs (in blocks of query rows).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

import privacy_core as pc
from privacy_core.parallel import connect_ray

RAY_ADDRESS = "compute_ray_address"  # a plain session key, not a widget's


def ray_address() -> str | None:
    return st.session_state.get(RAY_ADDRESS) or None


def engine_backend() -> dict[str, Any]:
    """``backend`` / ``ray_address`` keywords of the engine's parallel measures."""
    address = ray_address()
    return {"backend": "ray", "ray_address": address} if address else {"backend": "local"}


def compute_settings() -> None:
    """The Data page's section: run here (default) or on a Ray cluster."""
    address = ray_address()
    if address:
        st.success(
            f"Heavy work runs on the Ray cluster at `{address}`: RAPID's attacker fits, the "
            "calibration cells, the membership disclosure score's shadow models, the "
            "risk lab's sweeps and the large nearest-neighbour searches. The numbers are "
            "the same as here.",
            icon=":material/hub:",
        )
        if st.button("Run everything here again", key="compute_local"):
            del st.session_state[RAY_ADDRESS]
            st.rerun()
        return
    st.caption(
        "Everything runs in this server by default. On a register-size table, RAPID's "
        "attacker fits, the calibration cells, the membership disclosure score's shadow "
        "models, the risk lab's sweeps and the large nearest-neighbour searches can run as "
        "tasks on a Ray cluster instead, with the same numbers. **The cluster's workers "
        "then receive the real records** (in memory, for the computation): use only a "
        "cluster you are allowed to process this data on."
    )
    with st.form("compute_form"):
        typed = st.text_input(
            "Ray cluster address",
            key="compute_ray_input",
            placeholder="head-node:6379, auto, or local",
            help="The head node's host:port; 'auto' on a machine that is part of a "
            "cluster; 'local' starts a Ray instance on this machine (useful to try it). "
            "The address is kept for this browser session only and never put in the "
            "page's address.",
        )
        submitted = st.form_submit_button("Connect")
    if submitted:
        typed = typed.strip()
        if not typed:
            st.error("Enter the cluster's address, or leave this section as it is.")
            return
        with st.spinner(f"Connecting to {typed}…"):
            try:
                connect_ray(typed)
            except pc.PrivacyCoreError as exc:
                st.error(str(exc), icon=":material/warning:")
                return
        st.session_state[RAY_ADDRESS] = typed
        st.rerun()
