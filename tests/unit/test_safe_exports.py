"""Issue 16, safe exports: every file the app or the command line hands out is safe to open.

- CSV: a text cell, column name or index label that a spreadsheet would run as a formula
  (``=``, ``+``, ``-``, ``@``, tab, carriage return) carries a leading quote; numbers stay
  numbers; every CSV export in the code goes through :func:`privacy_core.exports.safe_csv`.
- HTML: every user string (column names, category values, file, release and candidate
  names, notes, reviewer, role) is shown as text: no element, attribute or script of its
  own, also inside the figures' JSON.
- PDF: any Unicode in names, notes and the sign-off is printed or replaced, never dropped,
  and the sheet lists every character it replaced.
- JSON: the report and the command line's output are strict JSON (no NaN / Infinity).
"""

import ast
import csv
import datetime as dt
import io
import json
import math
import re
import unicodedata
import warnings
from decimal import Decimal
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privacy_core as pc
import privacy_core.cli.common
import privacy_core.plots as plots
from privacy_core import cli
from privacy_core.evaluation import evaluate_measures
from privacy_core.exports import FORMULA_PREFIXES, neutralise_formulas, safe_csv
from privacy_core.results import jsonable

ROOT = Path(__file__).resolve().parents[2]
TRIGGERS = ("=", "+", "-", "@", "\t", "\r")  # OWASP's list (the module adds "\0")


def read_cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def starts_formula(cell: str) -> bool:
    """Would a spreadsheet run this CSV cell as a formula? (-0.5 is read as a number.)"""
    try:
        float(cell)
        return False
    except ValueError:
        return cell.startswith(FORMULA_PREFIXES)


def strict_json(text: str):
    """json.loads that refuses NaN, Infinity and -Infinity (as JSON.parse does)."""

    def refuse(token):
        raise ValueError(f"non-standard JSON token {token}")

    return json.loads(text, parse_constant=refuse)


# ======================================================================== CSV
@pytest.mark.parametrize("trigger", [*TRIGGERS, "\0"])
@pytest.mark.parametrize("dtype", [object, "string", "category"])
def test_every_formula_trigger_is_quoted_in_cells_names_and_index(trigger, dtype):
    value = f"{trigger}SUM(A1:A9)"
    frame = pd.DataFrame(
        {f"{trigger}name": pd.array([value, "plain", "a=b"], dtype=dtype)},
        index=pd.Index([f"{trigger}row", "r2", "r3"], name=f"{trigger}idx"),
    )
    rows = read_cells(safe_csv(frame, index=True))
    assert rows[0] == [f"'{trigger}idx", f"'{trigger}name"]
    assert rows[1] == [f"'{trigger}row", f"'{value}"]
    # text that does not start a formula is written as it is
    assert rows[2] == ["r2", "plain"] and rows[3] == ["r3", "a=b"]
    # without index=True the index is left out, as with DataFrame.to_csv
    assert read_cells(safe_csv(frame))[0] == [f"'{trigger}name"]


def test_numbers_stay_numbers_and_only_text_is_touched():
    frame = pd.DataFrame(
        {
            "float": [-0.5, 1.25, np.nan],
            "int": [-3, 0, 7],
            "nullable": pd.array([-1, None, 2], dtype="Int64"),
            "flag": [True, False, True],
            "when": pd.to_datetime(["2026-01-01", None, "2026-03-01"]),
            # an object column holding numbers and text: only the text is quoted
            "mixed": [-0.5, "-x", None],
            "-neg": [-1.5, -2.5, -3.5],
        }
    )
    text = safe_csv(frame)
    back = pd.read_csv(io.StringIO(text))
    assert list(back.columns) == ["float", "int", "nullable", "flag", "when", "mixed", "'-neg"]
    pd.testing.assert_series_equal(back["float"], frame["float"])
    assert back["int"].tolist() == [-3, 0, 7] and back["'-neg"].tolist() == [-1.5, -2.5, -3.5]
    assert back["nullable"].iloc[0] == -1 and math.isnan(back["nullable"].iloc[1])
    assert back["flag"].tolist() == [True, False, True]
    assert read_cells(text)[1][5] == "-0.5" and read_cells(text)[2][5] == "'-x"
    # the numeric part of the CSV is byte for byte what pandas writes
    numeric = ["float", "int", "nullable", "flag", "when"]
    assert safe_csv(frame[numeric]) == frame[numeric].to_csv(index=False, lineterminator="\r\n")


def test_the_input_frame_is_not_changed_and_categories_may_collide():
    frame = pd.DataFrame({"=c": pd.Categorical(["=a", "'=a", "b"])})
    before = frame.copy()
    out = neutralise_formulas(frame)
    pd.testing.assert_frame_equal(frame, before)
    # "=a" quoted is "'=a", the same as an existing category: no error, both written
    assert out["'=c"].tolist() == ["'=a", "'=a", "b"]


def test_multiindex_columns_are_quoted_level_by_level():
    frame = pd.DataFrame([[1, "=x"]], columns=pd.MultiIndex.from_tuples([("@a", "b"), ("c", "+d")]))
    rows = read_cells(safe_csv(frame))
    assert rows[0] == ["'@a", "c"] and rows[1] == ["b", "'+d"] and rows[2] == ["1", "'=x"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(alphabet="=+-@\t\r\n,\"' abc1.", max_size=8), min_size=1, max_size=6))
def test_no_text_cell_can_start_a_formula(values):
    frame = pd.DataFrame({"name": values, "x": np.linspace(-1, 1, len(values))})
    rows = read_cells(safe_csv(frame))
    assert len(rows) == len(values) + 1  # quoting keeps commas and newlines in their cells
    for original, (cell, number) in zip(values, rows[1:], strict=True):
        if original.startswith(TRIGGERS):
            assert cell == "'" + original
        elif original != "":  # pandas writes an empty string as an empty cell
            assert cell == original
        assert not starts_formula(number) and not starts_formula(cell)


def _calls(tree: ast.AST, attr: str) -> list[ast.Call]:
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == attr
    ]


def test_every_csv_export_goes_through_safe_csv():
    """No page, UI helper or engine module writes CSV with pandas itself: a new download
    that did would ship formulas to a spreadsheet."""
    files = [
        ROOT / "app.py",
        *(ROOT / "pages").glob("*.py"),
        *(ROOT / "ui").glob("*.py"),
        *(ROOT / "privacy_core").rglob("*.py"),
    ]
    direct = [
        f"{f.relative_to(ROOT)}:{c.lineno}"
        for f in files
        if f.name != "exports.py"
        for c in _calls(ast.parse(f.read_text()), "to_csv")
    ]
    assert direct == []
    # the downloads named in the brief use it: CSV text built by safe_csv, on the page's
    # run or (a callable, ``partial(safe_csv, ...)``) when the button is clicked
    for page, n in (("rapid", 1), ("privacy", 1), ("lab", 4), ("data", 1)):
        tree = ast.parse((ROOT / "pages" / f"{page}.py").read_text())
        payloads = [
            c.args[1]
            for c in _calls(tree, "download_button")
            if isinstance(c.args[1], ast.Call) and _builds_safe_csv(c.args[1])
        ]
        assert len(payloads) == n, page


def _builds_safe_csv(call: ast.Call) -> bool:
    name = getattr(call.func, "id", "")
    if name == "partial" and call.args:
        return getattr(call.args[0], "id", "") == "safe_csv"
    return name == "safe_csv"


@pytest.fixture()
def hostile_csv(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "=group": rng.choice(["=cmd|' /C calc'!A0", "@SUM(1)", "ok"], 60),
            "-score": np.round(rng.normal(-1, 1, 60), 3),
            "sex": rng.choice(["f", "m"], 60),
        }
    )
    path = tmp_path / "real.csv"
    frame.to_csv(path, index=False)  # the hostile input itself, written raw on purpose
    return path


def test_cli_csv_release_is_neutralised_and_parquet_exact(hostile_csv, tmp_path):
    out_csv, out_pq = tmp_path / "syn.csv", tmp_path / "syn.parquet"
    for out in (out_csv, out_pq):
        assert (
            cli.main(
                [
                    "synthesize",
                    "--method",
                    "histogram",
                    "--real",
                    str(hostile_csv),
                    "--seed",
                    "1",
                    "--out",
                    str(out),
                ]
            )
            == 0
        )
    rows = read_cells(out_csv.read_text(encoding="utf-8"))
    assert rows[0] == ["'=group", "'-score", "sex"]
    assert not [c for row in rows for c in row if starts_formula(c)]
    back = pd.read_csv(out_csv)
    assert set(back["'=group"]) <= {"'=cmd|' /C calc'!A0", "'@SUM(1)", "ok"}
    assert back["'-score"].dtype == float and (back["'-score"] < 0).any()
    # Parquet is not opened by spreadsheets: it keeps every value as it was
    exact = pd.read_parquet(out_pq)
    assert list(exact.columns) == ["=group", "-score", "sex"]
    assert set(exact["=group"]) <= {"=cmd|' /C calc'!A0", "@SUM(1)", "ok"}


# ======================================================================== HTML
HOSTILE = {
    "close": "</script><script>alert('x')</script>",
    "attr": '"><img src=x onerror=alert(1)>',
    "single": "'><svg onload=alert(2)>",
    "comment": "<!-- --><iframe srcdoc=x>",
    "entity": "&lt;b&gt;bold?&lt;/b&gt; &amp; R&D",
}
BUNDLE_ATTRS = {"id": "plotly-bundle", "type": "application/octet-stream"}


class _Page(HTMLParser):
    """Elements, attributes, script contents and visible text of a page, as a browser
    tokenises them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.text: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._in = tag
            if tag == "script":
                self.scripts.append((dict(attrs), ""))

    def handle_endtag(self, tag):
        if tag == self._in:
            self._in = None

    def handle_data(self, data):
        if self._in == "script":
            attrs, body = self.scripts[-1]
            self.scripts[-1] = (attrs, body + data)
        elif self._in is None:
            self.text.append(data)


def _hostile_tables():
    real, hold = pc.simulate_health(240, seed=1), pc.simulate_health(160, seed=2)
    names = {"gender": HOSTILE["attr"], "education": HOSTILE["close"], "disease": HOSTILE["single"]}
    values = {"high": HOSTILE["close"], "medium": HOSTILE["comment"], "low": HOSTILE["entity"]}
    out = []
    for t in (real, hold):
        t = t.copy()
        t["education"] = t["education"].map(lambda v: values.get(v, v))
        t["disease"] = t["disease"].map(lambda v: HOSTILE["attr"] if v == "healthy" else v)
        out.append(t.rename(columns=names))
    threat = pc.ThreatModel(["age", names["education"], names["gender"]], [names["disease"]])
    return out[0], out[1], threat


@pytest.fixture(scope="module")
def hostile_report():
    real, hold, threat = _hostile_tables()
    schema = pc.infer_schema(real)
    syn = pc.synthesize(pc.prepare_table(real, schema), method="histogram", seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = evaluate_measures(real, [syn], names=["ims"], threat=threat, holdout=hold, seed=0)
        results["rapid"] = pc.rapid(real, syn, threat=threat, attackers=("logit",), bootstrap=0)
    group = f"candidate {HOSTILE['attr']}"
    report = pc.build_report(
        real=real,
        synthetic=[syn],
        threat=threat,
        schema=schema,
        holdout=hold,
        groups=[pc.report.ReleaseGroup(group, (f"release {HOSTILE['close']}",), results)],
        names={
            "real": f"{HOSTILE['single']}.csv",
            "synthetic": [f"release {HOSTILE['close']}"],
            "holdout": f"{HOSTILE['comment']}.csv",
        },
        notes=f"Rationale: {HOSTILE['close']}\n{HOSTILE['entity']}",
        reviewer=HOSTILE["attr"],
        role=HOSTILE["single"],
        review_date=HOSTILE["comment"],
        include_records=True,
        decision="release",
    )
    categories = [HOSTILE["close"], HOSTILE["comment"], HOSTILE["entity"]]
    bars = go.Figure(
        go.Bar(x=categories, y=[1.0, float("nan"), float("inf")], name=HOSTILE["single"]),
        layout={"title": {"text": HOSTILE["close"]}, "xaxis": {"title": {"text": HOSTILE["attr"]}}},
    )
    Fig = pc.report.ReportFigure
    figures = [
        Fig("fidelity", HOSTILE["close"], bars, caption=HOSTILE["attr"]),
        Fig("inference", "RAPID", plots.rapid_threshold_curve(results["rapid"])),
    ]
    return report, figures, categories


def test_html_shows_every_user_string_as_text_and_nothing_else(hostile_report):
    report, figures, categories = hostile_report
    page = _Page()
    page.feed(pc.render_html(report, figures))
    page.close()
    # no element or attribute came from the data: no img / svg / iframe, no handlers
    names = {tag for tag, _ in page.tags}
    assert not names & {"img", "svg", "iframe", "object", "embed", "base", "form"}, names
    assert not [(t, a) for t, attrs in page.tags for a in attrs if a.startswith("on")]
    assert all(attrs["href"].startswith("#") for t, attrs in page.tags if t == "a")
    # our scripts only: the bundle, the loader and one JSON block per figure
    kinds = [a for a, _ in page.scripts]
    assert kinds.count({}) == 1 and kinds.count(BUNDLE_ATTRS) == 1
    blocks = [body for attrs, body in page.scripts if attrs.get("type") == "application/json"]
    assert len(page.scripts) == 2 + len(figures) and len(blocks) == len(figures)
    # each figure's JSON is whole and strict, and carries the names as typed
    specs = [strict_json(b) for b in blocks]
    (spec,) = [s for s in specs if s["data"][0]["type"] == "bar"]
    assert spec["data"][0]["x"] == categories and spec["data"][0]["y"] == [1.0, None, None]
    assert spec["data"][0]["name"] == HOSTILE["single"]
    assert spec["layout"]["title"]["text"] == HOSTILE["close"]
    assert spec["layout"]["xaxis"]["title"]["text"] == HOSTILE["attr"]
    # and the reader sees every string exactly as typed
    text = "".join(page.text)
    for value in HOSTILE.values():
        assert value in text, value
    for shown in (
        f"candidate {HOSTILE['attr']}",
        f"release {HOSTILE['close']}",
        f"{HOSTILE['single']}.csv",
        f"{HOSTILE['comment']}.csv",
        f"Rationale: {HOSTILE['close']}",
    ):
        assert shown in text, shown


def test_html_escaping_is_needed_here():
    """The same strings, unescaped, would have made elements: the test above can fail."""
    page = _Page()
    page.feed(f"<p>{HOSTILE['attr']}</p><p>{HOSTILE['single']}</p><script>{HOSTILE['close']}")
    assert {"img", "svg"} <= {t for t, _ in page.tags}
    assert len(page.scripts) == 2


# ======================================================================== PDF
UNICODE = {
    "cjk": "収入 中文",
    "emoji": "👩‍⚕️ ok 😀",
    "rtl": "שלום مرحبا \u202eevil",
    "combining": "Cafe\u0301 x\u0301\u0302 Zoë",
    "controls": "tab\there\x07bell\x80c1",
    "symbols": "ε – ≥ €",
}


def _pdf_text(pdf: bytes) -> str:
    """The text drawn on the sheet: every string shown by Tj, unescaped, joined."""
    shown = re.findall(rb"\(((?:\\.|[^\\)])*)\) Tj", pdf, re.S)
    unescape = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}
    return " ".join(
        re.sub(rb"\\(.)", lambda m: unescape.get(m.group(1), m.group(1)), s).decode("latin-1")
        for s in shown
    )


@pytest.fixture(scope="module")
def unicode_pdf():
    real = pc.simulate_health(200, seed=1).rename(
        columns={"income": f"{UNICODE['cjk']} {UNICODE['rtl']}", "health": UNICODE["combining"]}
    )
    threat = pc.ThreatModel(["age", "education", f"{UNICODE['cjk']} {UNICODE['rtl']}"], ["disease"])
    schema = pc.infer_schema(real)
    syn = pc.synthesize(pc.prepare_table(real, schema), method="histogram", seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = evaluate_measures(real, [syn], names=["ims"], threat=threat, seed=0)
    user = {
        "notes": " / ".join(UNICODE.values()),
        "reviewer": UNICODE["emoji"] + " Łukasz",
        "role": UNICODE["rtl"] + "\r\nsecond line",
        "real": UNICODE["combining"] + ".csv",
        "release": UNICODE["cjk"] + UNICODE["controls"],
    }
    report = pc.build_report(
        real=real,
        synthetic=[syn],
        results=results,
        threat=threat,
        schema=schema,
        names={"real": user["real"], "synthetic": [user["release"]]},
        notes=user["notes"],
        reviewer=user["reviewer"],
        role=user["role"],
        review_date="2026-11-23",
    )
    pdf = pc.render_pdf(report)
    return pdf, _pdf_text(pdf), user, [*user.values(), *threat.quasi_identifiers]


def test_pdf_prints_or_lists_every_character_it_was_given(unicode_pdf):
    pdf, text, _, strings = unicode_pdf
    assert pdf.startswith(b"%PDF-") and b"Characters outside" in pdf
    note = text[text.index("Characters outside") :]
    note = " ".join(note[: note.index("keep every name as typed")].split())
    for s in strings:
        for ch in unicodedata.normalize("NFC", s):
            if ch in "\r\n":
                continue
            printable = ord(ch) < 256 and unicodedata.category(ch) != "Cc"
            if printable:
                assert ch in text, ch
            else:
                assert f"U+{ord(ch):04X} " in note, (ch, s)
    # control characters are named too (the font has no glyph: they would vanish)
    assert "U+0009 control character -> a space" in note
    assert "U+0080 control character" in note and "U+0007 control character" in note


def test_pdf_draws_only_characters_the_font_has(unicode_pdf):
    _, text, _, _ = unicode_pdf
    # nothing the core font would draw as nothing (C0 controls) or as another glyph (C1)
    bad = sorted(
        {f"U+{ord(c):04X}" for c in text if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) < 0xA0}
    )
    assert bad == []
    # a combining accent is composed with its letter (the Latin-1 é), not replaced
    assert "Café" in text and "Cafe[U+0301]" not in text and "U+00E9" not in text
    # Latin-1 letters are printed as typed; others are transliterated and named
    assert "Zoë" in text and "Lukasz" in text
    assert "U+0141 latin capital letter l with stroke -> L" in " ".join(text.split())
    # a one-line cell keeps the line break visible instead of running the words together
    assert "/ second line" in text
    # user-typed symbols we would otherwise spell out silently are listed as well
    joined = " ".join(text.split())
    for ch, spelled in (("ε", "epsilon"), ("–", "-"), ("≥", ">="), ("€", "EUR")):
        assert f"U+{ord(ch):04X} {unicodedata.name(ch).lower()} -> {spelled}" in joined


def test_pdf_of_plain_names_lists_nothing():
    """Our own labels' symbols (the interval's –, ε in parameter notes) are spelled out
    without a list: only what the user typed is reported."""
    real = pc.simulate_health(200, seed=1)
    threat = pc.ThreatModel(["age", "education"], ["disease"])
    schema = pc.infer_schema(real)
    syn = pc.synthesize(pc.prepare_table(real, schema), method="histogram", seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = evaluate_measures(real, [syn], names=["ims"], threat=threat, seed=0)
    report = pc.build_report(
        real=real,
        synthetic=[syn],
        results=results,
        threat=threat,
        schema=schema,
        notes="plain notes",
        reviewer="Zoë",
    )
    assert any(
        "–" in pc.report.format_cell(r["cells"][c])
        for r in pc.report.candidate_table(report.to_dict())
        for c in r["cells"]
    )
    pdf = pc.render_pdf(report)
    assert b"Characters outside" not in pdf and "Zoë".encode("latin-1") in pdf


# ======================================================================== JSON
@pytest.mark.parametrize(
    "value, expected",
    [
        (float("nan"), None),
        (float("inf"), None),
        (-np.inf, None),
        (np.float32("nan"), None),
        (np.float64(2.5), 2.5),
        (np.int64(3), 3),
        (np.bool_(True), True),
        (pd.NA, None),
        (pd.NaT, None),
        (np.datetime64("NaT"), None),
        (Decimal("1.5"), 1.5),
        (Decimal("NaN"), None),
        (Decimal("sNaN"), None),
        (pd.Timestamp("2026-11-23 10:00"), "2026-11-23T10:00:00"),
        (dt.date(2026, 11, 23), "2026-11-23"),
        (np.datetime64("2026-11-23"), "2026-11-23T00:00:00"),
        # numpy's timedelta64 is an integer type: read as a number, it raised TypeError
        (np.timedelta64(90, "s"), "0 days 00:01:30"),
        (np.timedelta64("NaT"), None),
        (pd.Timedelta("1h"), "0 days 01:00:00"),
        ({1: np.nan, "b": [np.inf, 1]}, {"1": None, "b": [None, 1]}),
        ({3, 1, 2}, [1, 2, 3]),
        (np.array([1.0, np.nan]), [1.0, None]),
        (pd.Series([np.nan, 2.0]), [None, 2.0]),
    ],
)
def test_jsonable_leaves_no_value_json_cannot_hold(value, expected):
    out = jsonable(value)
    assert out == expected
    strict_json(json.dumps(out, allow_nan=False))


def test_report_json_is_strict_for_nan_and_inf_everywhere():
    real = pc.simulate_health(120, seed=1)
    schema = pc.infer_schema(real)
    records = pd.DataFrame(
        {
            "record": [0, 1, 2],
            "score": [np.nan, np.inf, -np.inf],
            "risk": pd.array([1, None, 0], dtype="Int64"),
            "when": pd.to_datetime(["2026-01-01", None, "2026-01-03"]),
        }
    )
    odd = pc.MetricResult(
        name="odd",
        value=float("nan"),
        ci=(float("-inf"), float("inf")),
        params={"alpha": np.float32("nan"), "cut": Decimal("Infinity")},
        record_table=records,
        baseline=float("nan"),
        extra={"replicates": [np.nan, 1.0], "at": pd.Timestamp("2026-1-2")},
    )
    report = pc.build_report(
        real=real,
        synthetic=[real],
        results={"odd": odd},
        threat=pc.ThreatModel(["age"], ["disease"]),
        schema=schema,
        include_records=True,
    )
    d = strict_json(report.to_json())
    metric = d["metrics"]["odd"]
    assert metric["value"] is None and metric["ci"] == [None, None]
    assert metric["params"] == {"alpha": None, "cut": None} and metric["baseline"] is None
    assert metric["at"] == "2026-01-02T00:00:00" and metric["replicates"] == [None, 1.0]
    assert d["records"]["odd"] == [
        {"record": 0, "score": None, "risk": 1, "when": "2026-01-01T00:00:00"},
        {"record": 1, "score": None, "risk": None, "when": None},
        {"record": 2, "score": None, "risk": 0, "when": "2026-01-03T00:00:00"},
    ]


def test_cli_json_output_is_strict(hostile_csv, tmp_path, capsys):
    # a real run: its JSON on stdout parses without NaN or Infinity tokens
    assert (
        cli.main(
            [
                "privacy",
                "--real",
                str(hostile_csv),
                "--synthetic",
                str(hostile_csv),
                "--sensitive",
                "sex",
                "--metrics",
                "ims",
                "--json",
                "-",
            ]
        )
        == 0
    )
    out = strict_json(capsys.readouterr().out)
    assert out["command"] == "privacy" and "ims" in out["metrics"]
    # and a payload full of non-finite numbers is written as nulls, to stdout and to a file
    payload = {
        "metrics": {"m": {"value": np.float64("nan"), "ci": [-np.inf, np.inf], "extra": pd.NA}}
    }
    target = tmp_path / "out.json"
    for dest in ("-", str(target)):
        cli.common.emit(type("Args", (), {"json": dest})(), payload, "summary")
    printed = capsys.readouterr().out
    assert strict_json(printed[: printed.rindex("}") + 1]) == strict_json(target.read_text())
    assert strict_json(target.read_text()) == {
        "metrics": {"m": {"value": None, "ci": [None, None], "extra": None}}
    }
