"""Issue 34: the app links its terms to the glossary, and the pages lead with the number.

The glossary is ``docs/glossary.md`` read by the app's Glossary page (one text, no copy);
``ui.glossary.term_link`` writes every link, and a term the glossary lacks is refused when
the page runs. These tests check the parsing and the anchors (the same as MkDocs gives the
headings), that every measure has a term, that no page writes a link by hand, and, in the
app, that the Glossary page shows every entry under its anchor, that the links the pages
render point at anchors that exist there, and that the pages lead with a number.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Block

import ui.glossary as g
import ui.learn
from privacy_core.measures import MEASURES
from privacy_core.scorecard import DEFAULT_THRESHOLDS

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
TIMEOUT = 600
LINK = re.compile(r"\]\((glossary[^)\s\\]*)\)")


# ------------------------------------------------------------------ the glossary text
def test_a_heading_names_each_of_its_terms():
    # parts at commas, colons and " / " outside parentheses; a parenthesised alias; ranges
    assert g.heading_terms("GTCAP, TCAP, WEAP")[1:] == ("GTCAP", "TCAP", "WEAP")
    assert g.heading_terms("HALF / SELF")[1:] == ("HALF", "SELF")
    # a wrong splitter cuts inside the parentheses ("Gain score (marginal", "nce)")
    assert g.heading_terms("Gain score (marginal, conditional, nce)")[1:] == (
        "Gain score",
        "marginal",
        "conditional",
        "nce",
    )
    terms = g.heading_terms("Consensus recommendations R1–R10")
    assert {"R1", "R7", "R10"} <= set(terms) and "R11" not in terms


def test_anchors_are_the_ids_mkdocs_gives_the_headings():
    """The site's and the app's anchors agree (catches a slug of our own making, e.g. one
    that keeps "τ" or turns "_" into "-"); the built site is checked in test_docs."""
    toc = pytest.importorskip("markdown.extensions.toc")
    _, entries = g.glossary()
    assert len(entries) >= 40
    for entry in entries:
        assert entry.anchor == toc.slugify(entry.heading, "-"), entry.heading
    assert len({e.anchor for e in entries}) == len(entries)


def test_the_terms_the_issue_names_link_to_their_entries():
    for term, anchor in {
        "R1": "consensus-recommendations-r1r10",
        "R10": "consensus-recommendations-r1r10",
        "F_rel": "f_rel",
        "DOMIAS": "domias",
        "gtcap": "gtcap-tcap-weap",
        "WEAP": "gtcap-tcap-weap",
        "HALF": "half-self",
        "SELF": "half-self",
        "RAPID": "rapid",
        "τ": "tau-epsilon",
        "DCR": "ims-dcr-k-nn-similarity-indicators",
    }.items():
        assert g.term_link(term) == f"[{term}](glossary?term={anchor}#{anchor})"


def test_every_measure_and_threshold_has_a_glossary_term():
    """A new measure gets a glossary entry (its card and labels link there)."""
    keys = set(MEASURES) | set(DEFAULT_THRESHOLDS)
    assert keys <= set(g.MEASURE_TERMS), sorted(keys - set(g.MEASURE_TERMS))
    for measure, term in g.MEASURE_TERMS.items():
        assert g.glossary_entry(term).body, measure  # resolves, to an entry with text


def test_an_unknown_term_is_refused_and_a_term_in_two_entries_too():
    with pytest.raises(g.GlossaryTermError, match="'ε-differential' is not in the glossary"):
        g.term_link("ε-differential")
    _, entries = g.parse_glossary("# G\n\n## DCR\n\nOne.\n\n## IMS, DCR\n\nTwo.\n")
    with pytest.raises(g.GlossaryTermError, match="'DCR' in two entries"):
        g.term_index(entries)


def test_the_app_shows_links_to_other_documentation_pages_as_text():
    """The app does not serve calibration.md: such a link would open a 404 in a new tab."""
    text = g.app_markdown("See [The verdict](verdict.md) and [x](calibration.md#floor).")
    assert "](" not in text and "*The verdict* (a page of the documentation)" in text
    _, entries = g.glossary()
    assert not any(re.search(r"\]\([\w./-]+\.md", g.app_markdown(e.body)) for e in entries)


def test_no_page_writes_a_glossary_link_by_hand():
    """Only ui.glossary builds a glossary address: a hand-written one escapes the check
    that its term exists (a typo'd anchor would land at the top of the glossary)."""
    files = [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "ui").glob("*.py")]
    hand_written = [
        f"{f.relative_to(ROOT)}:{node.lineno}"
        for f in files
        if f.name != "glossary.py" or f.parent.name != "ui"
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and ("](glossary" in node.value or "?term=" in node.value)
    ]
    assert hand_written == []


# ------------------------------------------------------------------ in the app
def _elements(node):
    """Every element under ``node``, depth first, in the order drawn."""
    for child in node.children.values():
        if isinstance(child, Block):
            yield from _elements(child)
        else:
            yield child


def _first_after_title(at: AppTest):
    drawn = list(_elements(at.main))
    titles = [i for i, e in enumerate(drawn) if e.type == "title"]
    assert titles, "the page has no title"
    return drawn[titles[0] + 1]


def _links(at: AppTest) -> list[str]:
    """The glossary addresses in everything drawn: bodies, labels, help texts, captions."""
    return [
        address
        for root in (at.main, at.sidebar)
        for element in _elements(root)
        for address in LINK.findall(str(element.proto))
    ]


def test_the_glossary_page_shows_every_entry_under_its_anchor():
    _, entries = g.glossary()
    asked = next(e for e in entries if e.anchor == "gtcap-tcap-weap")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    # a term link opened on a fresh server: the page runs on its own first and goes back
    # through app.py's navigation, whose switch drops the address's ?term= (a page that
    # read it only from the address would show the glossary without the entry first)
    at.switch_page("pages/glossary.py")
    at.query_params[g.TERM_PARAM] = asked.anchor
    at.run()
    assert not at.exception, at.exception
    # every entry, in the file's order, under the anchor MkDocs gives it
    assert [(h.value, h.proto.anchor) for h in at.subheader] == [
        (e.heading, e.anchor) for e in entries
    ]
    # the entry the link asked for comes first, above the whole glossary
    first = _first_after_title(at)
    assert first.type == "markdown" and first.value == f"**{asked.heading}**"
    assert any(m.value == asked.body for m in at.markdown)
    # the jump list links every anchor on the page itself
    jumps = re.findall(r"\]\(#([\w-]+)\)", " ".join(c.value for c in at.caption))
    assert jumps == [e.anchor for e in entries]


def test_pages_lead_with_a_number_and_link_only_anchors_that_exist(tmp_path, monkeypatch):
    """On the demo: the Overview, RAPID, Fidelity and Review & report pages draw a metric
    first under their title (a page that puts an explanation, a control or a warning
    first fails), and every glossary link any page draws names an existing anchor, twice
    the same (the ?term= the Glossary page reads, and the #fragment)."""
    anchors = {e.anchor for e in g.glossary()[1]}
    # History reads the review history: an empty one of this test's own
    monkeypatch.setenv("PRIVACY_REVIEW_DB", f"sqlite:///{tmp_path / 'reviews.db'}")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[ui.learn.SIZE] = "quick"
    at.run()  # the Overview: the demo's quick measures and RAPID compute themselves
    linked: dict[str, list[str]] = {}
    for page in ("overview", "rapid", "fidelity", "report", "whatif", "learn", "lab", "history"):
        if page != "overview":
            at.switch_page(f"pages/{page}.py").run()
        assert not at.exception, (page, at.exception)
        if page in ("overview", "rapid", "fidelity", "report"):
            first = _first_after_title(at)
            assert first.type == "metric", (page, first.type, str(first.proto)[:200])
        linked[page] = _links(at)
    for page, addresses in linked.items():
        assert addresses, f"{page} links no term to the glossary"
        for address in addresses:
            match = re.fullmatch(rf"glossary\?{g.TERM_PARAM}=([\w-]+)#([\w-]+)", address)
            assert match and match.group(1) == match.group(2), (page, address)
            assert match.group(1) in anchors, (page, address)
