"""Widgets shared by pages: sidebar summary, error slots, explanations, paint order."""

from __future__ import annotations

import time
from pathlib import Path

import streamlit as st

from .state import Workspace, get_error, get_notes, kept, pop_notice, remember, set_widget

ASSETS = Path(__file__).resolve().parent.parent / "assets"


def explanation(topic: str, *, expanded: bool = False) -> None:
    """The plain-language 'what this measures / what it cannot' note of a topic."""
    path = ASSETS / "explanations" / f"{topic}.md"
    with st.expander("What this measures — and what it cannot", expanded=expanded):
        st.markdown(path.read_text(encoding="utf-8"))


CANDIDATE = "candidate"


def candidate_picker(ws: Workspace) -> Workspace:
    """The candidate (release group) an analysis page evaluates, as a workspace view.

    Replicates of one generator are averaged (consensus R10); different candidates never
    are: with two or more, the page evaluates the one picked here, and the choice is
    shared by every page. Commit settings on the full workspace, never on the view (a view
    holds one candidate's releases only).
    """
    groups = list(ws.release_groups())
    if len(groups) <= 1:
        return ws
    # set as user state before drawing: the same key on another page is another widget,
    # which would otherwise start from its first option
    chosen = kept(CANDIDATE, groups[0])
    set_widget(CANDIDATE, chosen if chosen in groups else groups[0])
    choice = st.radio(
        "Candidate release",
        groups,
        key=CANDIDATE,
        horizontal=True,
        on_change=remember,
        args=(CANDIDATE,),
        help="Each candidate is evaluated on its own releases (replicates of one generator "
        "are averaged, with their spread); candidates are never averaged together. "
        "Review & report shows them side by side.",
    )
    return ws.group_view(choice)


def error_slot(control: str) -> None:
    """Show the error (and any notice or note) attached to one control, right where it is."""
    message = get_error(control)
    if message:
        st.error(message, icon=":material/warning:")
    notice = pop_notice(control)
    if notice:
        st.success(notice)
    for note in get_notes(control):
        st.info(note, icon=":material/info:")


def fmt_ci(ci: tuple[float, float] | None, digits: int = 3) -> str:
    if ci is None:
        return ""
    return f"95% CI {ci[0]:.{digits}f} – {ci[1]:.{digits}f}"


# Streamlit's browser renders the deltas that arrive within ~10 ms of each other in one
# React commit, and a plotly chart draws synchronously inside that commit: numbers sent just
# before two figures stay off screen until both figures are drawn. A short pause makes the
# numbers a batch of their own (measured on the RAPID page at 50k rows: the new headline
# shows 87 ms after a slider step instead of 264 ms; the figures settle no later).
PAINT_PAUSE_S = 0.05


def paint_now() -> None:
    """Let what the script has sent so far reach the screen before what follows."""
    time.sleep(PAINT_PAUSE_S)


def sidebar_summary(ws: Workspace | None) -> None:
    """What data and threat model are loaded, always visible in the sidebar."""
    with st.sidebar:
        st.markdown("### Loaded review")
        if ws is None:
            st.info("No data loaded yet.")
            return
        st.markdown(
            f"**Real:** {ws.real.name} — {len(ws.real.frame):,} rows × "
            f"{ws.real.frame.shape[1]} columns"
        )
        if ws.holdout is not None:
            st.markdown(f"**Holdout:** {len(ws.holdout.frame):,} rows")
        if ws.releases:
            # by candidate, under the name every picker, card and export uses for it
            groups = ws.release_groups()
            st.markdown(f"**Candidates ({len(groups)})**, {len(ws.releases)} synthetic release(s):")
            for name, tables in groups.items():
                rows = ", ".join(f"{len(t.frame):,}" for t in tables)
                if len(tables) == 1:
                    st.markdown(f"- {name} ({rows} rows)")
                else:
                    st.markdown(f"- {name}: {len(tables)} replicates ({rows} rows)")
        else:
            st.warning("No synthetic release loaded.")
        st.markdown("**Quasi-identifiers:** " + ", ".join(f"`{c}`" for c in ws.quasi_identifiers))
        st.markdown("**Sensitive:** " + ", ".join(f"`{c}`" for c in ws.sensitive))
        if ws.weights is not None:
            st.markdown(f"**Sampling weights:** `{ws.weights}`")
        st.caption(
            "Your data stays in this browser session: nothing is written to disk "
            "unless you download it."
        )
        if ws.dataset == "upload":
            st.caption(
                ":material/warning: Reloading the page or opening a link drops the "
                "uploaded files (they are never stored); the settings are kept in the "
                "address."
            )


def stop_button(slot, *, running: bool, key: str, help: str | None = None) -> None:
    """The Stop button of stoppable work, drawn into ``slot`` (an ``st.empty()``).

    It is enabled only while the work runs (the page draws it enabled on the run that
    starts the work and redraws it disabled when the work ends); its click sets the stop
    flag that the engine's ``should_stop`` reads.
    """
    from .runner import request_stop

    slot.button(
        "Stop",
        icon=":material/stop_circle:",
        on_click=request_stop,
        disabled=not running,
        key=f"{key}_{'running' if running else 'idle'}",
        help=help or "Ends the run after the step being evaluated; finished rows are kept.",
    )


# Markdown's punctuation, and "<" and ">" (an autolink such as <http://…> would be fetched
# or followed): stored text shown with st.markdown must not become markup
_MARKDOWN_SPECIAL = set("\\`*_{}[]()#+-.!|<>~=$:")


def escape_markdown(text: object) -> str:
    """``text`` with every Markdown-special character backslash-escaped, so that stored
    or uploaded text (a note, a file or column name) shows as typed: an image link in a
    note is shown as characters and fetches nothing."""
    return "".join("\\" + c if c in _MARKDOWN_SPECIAL else c for c in str(text))
