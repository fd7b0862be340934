"""Who is using the app: the signed-in reviewer on a server with sign-in, nobody in
particular on a single-user local tool.

Sign-in is Streamlit's own OpenID Connect login (``st.login``, ``st.user``, with
``authlib``), switched on by the operator's ``[auth]`` secrets (docs/deploy.md). The
identity (the provider's e-mail claim when it marks it verified, else its subject) is the
reviewer recorded with
every saved review and decides which stored reviews this person can see; the provider's
``groups`` claim names their teams.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

import privacy_core as pc

from .deployment import settings
from .widgets import escape_markdown


def _claims() -> dict[str, Any]:
    try:
        return dict(st.user.to_dict())
    except Exception:  # noqa: BLE001  # no user information (e.g. AppTest) is no sign-in
        return {}


def signed_in() -> bool:
    return bool(_claims().get("is_logged_in"))


def current_reviewer() -> pc.Reviewer | None:
    """The signed-in reviewer, or None on a single-user server (or before sign-in)."""
    if not settings().sign_in:
        return None
    return reviewer_from_claims(_claims())


def reviewer_from_claims(claims: dict[str, Any]) -> pc.Reviewer | None:
    """The reviewer an identity token's claims name (None when not signed in)."""
    if not claims.get("is_logged_in"):
        return None
    # the e-mail only when the provider vouches for it: with self-registration, anyone
    # could otherwise sign up under a colleague's address and read their reviews
    email = str(claims.get("email") or "").strip().lower()
    verified = claims.get("email_verified") is True
    ident = email if email and verified else str(claims.get("sub") or "").strip()
    if not ident:
        return None
    groups = claims.get("groups") or ()
    if isinstance(groups, str):
        groups = [groups]
    return pc.Reviewer(ident, name=str(claims.get("name") or ident), teams=tuple(groups))


def needs_sign_in() -> bool:
    """The operator configured sign-in and this browser has not signed in yet."""
    return settings().sign_in and current_reviewer() is None


def sign_in_page() -> None:
    """The only page a server with sign-in shows before its user signs in."""
    st.title("Synthetic data privacy review")
    st.write(
        "This review server is shared by a team, so it asks who you are: your reviews "
        "are saved under your name, and you see only your own and those shared with you."
    )
    st.button("Sign in", icon=":material/login:", type="primary", on_click=st.login)


def identity_sidebar() -> None:
    """Who is signed in (with Sign out), or that this is a single-user tool."""
    reviewer = current_reviewer()
    with st.sidebar:
        if reviewer is not None:
            st.caption(f"Signed in as **{escape_markdown(reviewer.shown)}**")
            st.button("Sign out", icon=":material/logout:", key="sign_out", on_click=st.logout)
        else:
            st.caption(
                "Single-user mode: no sign-in is configured, so everyone who opens this "
                "app shares one review history."
            )
