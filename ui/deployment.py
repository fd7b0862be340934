"""The operator's settings for a shared server: where the review history lives, who sees
which reviews, how many heavy jobs run at once. Read from the server's side only — never
from anything a user types in a page.

Each setting comes from the first of: the server's command line after ``--``
(``streamlit run app.py -- --history-db URL --team-visible --max-jobs 4``), an environment
variable (``PRIVACY_REVIEW_DB``, ``PRIVACY_REVIEW_TEAM_VISIBLE``, ``PRIVACY_REVIEW_MAX_JOBS``),
the ``[review]`` table of Streamlit's secrets (``history_db``, ``team_visible``,
``max_jobs``), the default. Sign-in is on when the secrets have an ``[auth]`` table
(Streamlit's OpenID Connect login, ``st.login``); see docs/deploy.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import Any

import streamlit as st
from streamlit.runtime.secrets import StreamlitSecretNotFoundError

import privacy_core as pc

# the job limit's range; the default is the machine's core count (one heavy job per core)
MAX_JOBS_RANGE = (1, 256)
ENV = {
    "history_db": "PRIVACY_REVIEW_DB",
    "team_visible": "PRIVACY_REVIEW_TEAM_VISIBLE",
    "max_jobs": "PRIVACY_REVIEW_MAX_JOBS",
}
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


@dataclass(frozen=True)
class Deployment:
    history_url: str  # SQLAlchemy URL of the review history
    team_visible: bool  # every signed-in reviewer sees the whole history
    max_jobs: int  # heavy computations running at once, server-wide
    sign_in: bool  # the operator configured OpenID Connect sign-in
    source: dict[str, str]  # where each setting came from, for the History page


def _secrets_table(name: str) -> dict[str, Any]:
    try:
        table = st.secrets.get(name)
    except StreamlitSecretNotFoundError:  # no secrets file: nothing configured there
        return {}
    except Exception as exc:  # noqa: BLE001  # anything else must stop the server
        # a secrets file that does not parse would otherwise read as "no [auth]": sign-in
        # silently off and every visitor seeing every review
        raise pc.ParameterError(
            f"the server's Streamlit secrets cannot be read ({type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''}); fix the secrets file."
        ) from None
    return dict(table) if table is not None else {}


def _command_line(argv: list[str]) -> argparse.Namespace:
    # whole option names only (no abbreviations), and a value-less --team-visible is true
    # while "--team-visible false" is false, never silently true
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False, exit_on_error=False)
    parser.add_argument("--history-db", default=None)
    parser.add_argument("--team-visible", nargs="?", const="true", default=None)
    parser.add_argument("--max-jobs", default=None)
    try:
        known, _ = parser.parse_known_args(argv)
    except argparse.ArgumentError as exc:
        raise pc.ParameterError(f"the server's command line: {exc}.") from None
    return known


def _flag(text: Any, where: str) -> bool:
    if isinstance(text, bool):
        return text
    low = str(text).strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise pc.ParameterError(f"{where} must be true or false; got {text!r}.")


def _jobs(text: Any, where: str) -> int:
    lo, hi = MAX_JOBS_RANGE
    try:
        value = int(str(text).strip())
    except ValueError:
        value = None
    if value is None or not lo <= value <= hi:
        raise pc.ParameterError(f"{where} must be a whole number in [{lo}, {hi}]; got {text!r}.")
    return value


def read_settings(
    argv: list[str] | None = None,
    environ: dict[str, str] | None = None,
    secrets: dict[str, Any] | None = None,
    auth: bool | None = None,
) -> Deployment:
    """The operator's settings (arguments for tests; the server's own by default).

    Raises
    ------
    ParameterError
        A setting has a value outside its range; the app shows it and stops, so a
        misconfigured server never runs with a guess.
    """
    args = _command_line(sys.argv[1:] if argv is None else argv)
    env = os.environ if environ is None else environ
    table = _secrets_table("review") if secrets is None else secrets
    source: dict[str, str] = {}

    def pick(name: str, cli: Any) -> tuple[Any, str] | None:
        if cli is not None:
            return cli, f"--{name.replace('_', '-')}"
        if env.get(ENV[name]) not in (None, ""):
            return env[ENV[name]], ENV[name]
        if table.get(name) not in (None, ""):
            return table[name], f"secrets [review] {name}"
        return None

    got = pick("history_db", args.history_db)
    url = str(got[0]).strip() if got else pc.history.default_url()
    source["history_db"] = got[1] if got else "default (the server user's data folder)"
    got = pick("team_visible", args.team_visible)
    team = _flag(got[0], got[1]) if got else False
    source["team_visible"] = got[1] if got else "default"
    got = pick("max_jobs", args.max_jobs)
    jobs = _jobs(got[0], got[1]) if got else max(1, os.cpu_count() or 1)
    source["max_jobs"] = got[1] if got else "default (one per core)"
    if auth is None:
        auth = bool(_secrets_table("auth"))
    return Deployment(url, team, jobs, bool(auth), source)


def settings() -> Deployment:
    """This server's settings (read on each call: a few lookups, and a test may change the
    environment between two app runs)."""
    return read_settings()
