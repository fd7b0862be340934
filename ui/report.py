"""Glue for the review page: gather every result this session has computed."""

from __future__ import annotations

import privacy_core as pc

from .calibration import latest_calibration
from .evaluations import rapid_cached, rapid_fit_params
from .fidelity import ALL_RELEASES, fidelity_params, fidelity_view, scope_releases
from .privacy import PRIVACY_MEASURES, cached_results, privacy_params
from .state import Workspace


def session_results(ws: Workspace) -> dict[str, pc.MetricResult]:
    """RAPID (at the threshold on screen), privacy and fidelity results already computed."""
    import streamlit as st

    out: dict[str, pc.MetricResult] = {}
    rapid = rapid_cached(ws, rapid_fit_params(ws))
    if rapid is not None:
        if rapid.kind == "categorical":
            out["rapid"] = rapid.at(st.session_state.get("_keep_rapid_tau_marginal", 0.3))
        else:
            out["rapid"] = rapid.at(st.session_state.get("_keep_rapid_eps_relative", 0.1))
    out.update(cached_results(ws, PRIVACY_MEASURES, privacy_params(ws)))
    view = fidelity_view(ws, fidelity_params(ws), scope_releases(ws, ALL_RELEASES))
    out.update(view.results)
    return out


def session_calibration(ws: Workspace) -> pc.CalibrationResult | None:
    """The calibration of the measures on this data shown last in the Risk lab, if any."""
    return latest_calibration(ws)
