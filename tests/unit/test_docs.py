"""The documentation: the site builds with ``mkdocs build --strict`` (a broken link, a
missing page or a docstring mkdocstrings cannot parse fails it), the measures page holds
every registered measure, the README stays short and links only to pages that exist, and
its Python example runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from privacy_core.measures import MEASURES
from ui.glossary import glossary as glossary_entries

ROOT = Path(__file__).resolve().parents[2]


def test_the_site_builds_strictly_and_documents_every_measure(tmp_path):
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    page = (site / "measures" / "index.html").read_text(encoding="utf-8")
    for name, spec in MEASURES.items():
        assert f"({name})" in page.replace("<code>", "").replace("</code>", ""), name
        assert spec.label.replace("&", "&amp;") in page, spec.label
    # a measure's references come from its docstring (mkdocstrings), not a copy
    assert "Templ, Kowarik" in page and "JSS 67(4)" in page
    glossary = (site / "glossary" / "index.html").read_text(encoding="utf-8")
    for term in ("R1", "R10", "F_rel", "DOMIAS", "GTCAP", "HALF", "SELF", "WEAP", "l-diversity"):
        assert term in glossary, term
    # the app's Glossary page reads the same file: each entry's anchor there is the id the
    # site gives its heading, so a term link means the same entry in both (issue 34)
    site_ids = re.findall(r'<h2 id="([^"]+)"', glossary)
    assert site_ids == [entry.anchor for entry in glossary_entries()[1]]


def test_the_readme_is_short_and_its_links_resolve():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    links = re.findall(r"\]\(([^)#\s]+)\)", text)
    assert links, "the README links to the documentation"
    missing = [link for link in links if "://" not in link and not (ROOT / link).exists()]
    assert missing == []
    # the two commands come first, the test command verbatim as CI runs it
    blocks = re.findall(r"```bash\n(.*?)\n```", text, flags=re.S)
    assert "streamlit run app.py" in blocks[0]
    assert blocks[1].endswith("python -m pytest -q -n auto")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert blocks[1] in ci


def test_the_readmes_python_example_runs():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(.*?)\n```", text, flags=re.S)
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
