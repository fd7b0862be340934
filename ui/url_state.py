"""Settings in the page address, so that a reload or a shared link restores them.

What goes into the URL: the built-in dataset and its parameters (n, κ, seed), the threat
model (quasi-identifiers, sensitive columns and the sampling-weight column, when one is
declared) and the pages' remembered choices listed in
:data:`SETTINGS` (thresholds, scoring methods, the lab's experiment, ...). Never data: an
uploaded table lives only in the browser session that loaded it, so a link made on
uploaded files restores the settings that still apply and says plainly that the files
must be uploaded again.

Values read from the address are untrusted: each is parsed and checked against what its
widget accepts, and anything else is ignored (the widget keeps its default).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import streamlit as st

import privacy_core as pc

DATASET, N, KAPPA, SEED, QI, SENSITIVE = "data", "n", "kappa", "seed", "qi", "s"
WEIGHTS = "w"  # the sampling-weight column; absent when none is declared
BUILTIN = ("health", "adult")
KAPPAS = (0.0, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
UPLOAD_LOST = (
    "This address was made for uploaded files. Uploaded data lives only in the "
    "browser session that loaded it and is never stored, so a reload or a shared "
    "link cannot bring it back: the built-in demo is shown instead. Upload the "
    "files again on the Data & threat model page; the page settings in the "
    "address are kept."
)


def _number(lo: float, hi: float) -> Callable[[str], float | None]:
    def parse(text: str) -> float | None:
        value = float(text)
        return value if lo <= value <= hi else None

    return parse


def _one_of(options: tuple[Any, ...], cast: Callable[[str], Any] = str) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        value = cast(text)
        return value if value in options else None

    return parse


# widget key -> parser of its URL text (None: not acceptable). The ranges are the widgets'.
SETTINGS: dict[str, Callable[[str], Any]] = {
    "rapid_method": _one_of(tuple(pc.risk.CATEGORICAL_METHODS)),
    "rapid_tau_marginal": _number(0.0, 1.0),
    "rapid_tau_nce": _number(0.0, 1.0),
    "rapid_tau_conditional": _number(0.0, 3.0),
    "rapid_error": _one_of(tuple(pc.risk.ERROR_METRICS)),
    "rapid_eps_relative": _number(0.0, 0.99),
    "rapid_eps_symmetric": _number(0.0, 0.99),
    "rapid_interval": _one_of(("bootstrap", "wilson", "clopper-pearson")),
    "privacy_alpha": _number(0.5, 20.0),
    "fid_ways": _one_of(("all", "1-way", "2-way")),
    "fid_bins": _one_of((10, 15, 20, 30, 50), int),
}


def setting_from_url(key: str) -> Any:
    """The checked value of setting ``key`` in the address, or None."""
    parse, text = SETTINGS.get(key), st.query_params.get(key)
    if parse is None or text is None:
        return None
    try:
        return parse(text)
    except (TypeError, ValueError):
        return None


def write_setting(key: str, value: Any) -> None:
    if key in SETTINGS and st.query_params.get(key) != str(value):
        st.query_params[key] = str(value)


def sync(ws: Any, settings: dict[str, Any]) -> None:
    """Write the workspace's dataset, threat model and the remembered settings to the URL.

    Called on every full run (page switches clear the address's parameters); a widget's
    own change writes its value at once (see ``ui.state.remember``), fragments included.
    """
    params = dict(ws.dataset_params)
    wanted: dict[str, str] = {DATASET: ws.dataset}
    if ws.dataset in BUILTIN:
        wanted.update(
            {
                N: str(params.get("n") or 0),
                KAPPA: str(params.get("kappa", 1.0)),
                SEED: str(params.get("seed", 0)),
            }
        )
    wanted[QI] = ",".join(ws.quasi_identifiers)
    wanted[SENSITIVE] = ",".join(ws.sensitive)
    if ws.weights is not None:
        wanted[WEIGHTS] = ws.weights
    elif WEIGHTS in st.query_params:  # taken off: a reload must not bring it back
        del st.query_params[WEIGHTS]
    for key, value in settings.items():
        if value is not None:
            wanted[key] = str(value)
    for key, value in wanted.items():
        if st.query_params.get(key) != value:
            st.query_params[key] = value


def _columns(text: str | None) -> tuple[str, ...]:
    return tuple(c for c in (text or "").split(",") if c)


def workspace_from_url(load_builtin: Callable[..., Any]) -> tuple[Any | None, str | None]:
    """(workspace, notice) rebuilt from the address, or (None, notice-or-None).

    ``load_builtin(name, n=, kappa=, seed=)`` builds a built-in workspace. The threat
    model in the address is applied when it names the table's columns and validates;
    otherwise the dataset's own threat model stays and the notice says why.
    """
    q = st.query_params
    name = q.get(DATASET)
    if name is None:
        return None, None
    if name not in BUILTIN:
        return None, UPLOAD_LOST if name == "upload" else None
    try:
        n = int(q.get(N, "2000")) or None
        kappa = float(q.get(KAPPA, "1.0"))
        seed = int(q.get(SEED, "0"))
    except ValueError:
        return None, "The address's dataset settings could not be read; the demo is shown."
    if n not in pc.BUILTIN_SIZES[name] or kappa not in KAPPAS or not 0 <= seed < 2**31:
        return None, "The address's dataset settings are not offered; the demo is shown."
    ws = load_builtin(name, n=n, kappa=kappa, seed=seed)
    qis, sensitive = _columns(q.get(QI)), _columns(q.get(SENSITIVE))
    weights = q.get(WEIGHTS) or None
    if (not qis or not sensitive) and weights is None:
        return ws, None
    qis, sensitive = (qis, sensitive) if qis and sensitive else (ws.quasi_identifiers, ws.sensitive)
    columns = set(ws.schema.included)
    if not set(qis) | set(sensitive) <= columns or (
        weights is not None and weights not in ws.real.frame.columns
    ):
        return ws, (
            "The threat model in the address names columns this table does not "
            "have; the dataset's own threat model is used."
        )
    try:
        candidate = replace(ws, quasi_identifiers=qis, sensitive=sensitive)
        candidate = candidate.with_weights(weights)
        candidate.validate()
    except pc.PrivacyCoreError as exc:
        return ws, (
            f"The threat model in the address is not usable ({exc}); the dataset's own is used."
        )
    return candidate, None
