"""Fuzzed input files: random small CSVs, as bytes, through the whole engine and the CLI.

Issue 16 ("Prove the promises"): whatever file a user uploads, the engine answers with a
result or a :class:`~privacy_core.errors.PrivacyCoreError` whose message the app shows;
never a ``KeyError``, a polars or numpy error, or a traceback. The files mix column kinds
(integers, floats, numbers with thousand separators or decimal commas, booleans, dates,
text, constant and ID-like columns), missing-value tokens, encodings (UTF-8, UTF-8 with a
BOM, Latin-1, Windows-1252, UTF-16), delimiters (``,`` ``;`` tab ``|``), quoting styles,
duplicate and empty column names, ragged rows and tables of one or two rows.

Each generated case is a real, a synthetic and a holdout file drawn from one column
layout (so most cases get past schema matching and reach the measures) and is run
through :func:`~privacy_core.data.load_table` -> :func:`~privacy_core.inputs.prepare_review`
-> the measures of :data:`~privacy_core.measures.MEASURES` (each on its own, with cheap
parameters; half of them on each case, alternating, so each measure meets about half of
the cases that get this far), and through the CLI commands that read files. The number of
cases that ran and how far they got is printed (``pytest -s``) and asserted, so the test
cannot pass by rejecting every file at the first step.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import random
import tempfile
import time
import warnings
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privacy_core import cli
from privacy_core.data import infer_schema, load_table
from privacy_core.errors import PrivacyCoreError
from privacy_core.evaluation import evaluate
from privacy_core.inputs import prepare_review
from privacy_core.measures import MEASURES
from privacy_core.threat import ThreatModel

ENGINE_EXAMPLES = 200
CLI_EXAMPLES = 50

# Cheap settings for every registered measure: the point is the input handling, not the
# estimate, so few trees, bootstrap replicates and attacks, and a tiny contrastive encoder
# for the measures whose registered modes include the contrastive space (with the default
# encoder, up to 100 epochs of a 256-unit network, those modes took most of this file's
# time); one set of encoder options, so the measures of a case share one cached encoder.
TINY_ENCODER = {"hidden": 16, "max_epochs": 2}
CHEAP_OPTIONS: dict[str, dict] = {
    "rapid": {"attackers": ("rf", "logit"), "n_trees": 5, "bootstrap": 10},
    "ims": {},
    "dcr": {"bootstrap": 10, "embedding_params": TINY_ENCODER},
    "knn": {"bootstrap": 10, "k_max": 2, "embedding_params": TINY_ENCODER},
    "singling_out": {"n_attacks": 10, "max_attempts": 2000, "embedding_params": TINY_ENCODER},
    "singling_out_outliers": {"n_attacks": 10, "embedding_params": TINY_ENCODER},
    "linkability": {"n_attacks": 10, "embedding_params": TINY_ENCODER},
    "reproduced_uniques": {"n_boot": 10},
    "individual_risk": {"n_boot": 10},
    "sample_uniques": {"n_boot": 10},
    "k_anonymity": {"n_boot": 10},
    "l_diversity": {"n_boot": 10},
    "inference": {"n_attacks": 10, "embedding_params": TINY_ENCODER},
    "ml_inference": {"n_attacks": 10, "n_bootstrap": 10, "n_jobs": 1},
    "gtcap": {"bootstrap": 10},
    "domias": {"bootstrap": 10},
    "membership": {"n_repeats": 10},
    "mds": {"shadow_models": 2, "shadow_sets": 1, "records": 20, "bootstrap": 10},
    "wasserstein": {"max_rows": 200},
    "mla": {"evaluators": ("linear", "tree"), "bootstrap": 10},
    "query_error": {"n_queries": 20, "bootstrap": 10},
    "discriminator": {"n_estimators": 5, "bootstrap": 10},
}

ENCODINGS = ("utf-8", "utf-8-sig", "latin-1", "cp1252", "utf-16")
DELIMITERS = (",", ";", "\t", "|")
QUOTING = (csv.QUOTE_MINIMAL, csv.QUOTE_ALL, csv.QUOTE_NONNUMERIC)
MISSING_TOKENS = ("", "?", "NA", "N/A", "nan", "null", "None", " ", "-")
NAMES = (
    "age",
    "sex",
    "income",
    "zip",
    "city",
    "Diagnose",
    "score",
    "date",
    "flag",
    "Größe",
    "naïve",
    "名前",
    "a b",
    "x;y",
    "q,r",
    "id",
    "value",
    "weight",
)
WORDS = (
    "a",
    "b",
    "c",
    "yes",
    "no",
    "Zürich",
    "Ærø",
    "naïve",
    "école",
    "北京",
    "😀",
    "x,y",
    "p;q",
    "t\tu",
    "v|w",
    'say "hi"',
    "line\nbreak",
    "  padded  ",
    "=1+2",
    "1e5",
    "0x1F",
    "007",
    "NaN",
    "TRUE",
    "-",
    "#N/A",
)
QUIRKS = ("none", "duplicate", "empty", "blank", "padded", "drop", "reorder", "retype")
DAMAGES = (
    "none",
    "short row",
    "long row",
    "open quote",
    "sep= line",
    "trailing delimiter",
    "header only",
    "quote in header",
    "mixed line endings",
)
COLUMN_KINDS = (
    "int",
    "float",
    "thousands",
    "decimal_comma",
    "bool",
    "date",
    "text",
    "constant",
    "id",
    "mixed",
    "leading_zero",
    "small_int",
)


@dataclass
class Case:
    """One generated review: three files as bytes and how they were written."""

    real: bytes
    synthetic: bytes
    holdout: bytes
    header: list[str]
    description: str
    pick: int = 0  # which usable column is the secret (counted from the last)
    one_qi: bool = False  # only one quasi-identifier
    releases: int = 1  # synthetic releases (2: the second is the first reversed)

    def __repr__(self) -> str:  # hypothesis prints this for a falsifying example
        return (
            f"Case({self.description}\n  real={self.real!r}\n"
            f"  synthetic={self.synthetic!r}\n  holdout={self.holdout!r})"
        )


def _cell(draw, kind: str, row: int, constant: str) -> str:
    if kind == "int":
        return str(draw(st.integers(-(10**6), 10**6)))
    if kind == "small_int":
        return str(draw(st.integers(0, 3)))
    if kind == "float":
        return draw(
            st.sampled_from(
                [
                    str(draw(st.floats(-1e6, 1e6, allow_nan=False))),
                    f"{draw(st.floats(-1e3, 1e3, allow_nan=False)):.3e}",
                    "inf",
                    "-inf",
                    "1e400",
                    "0.1",
                    "-0.0",
                ]
            )
        )
    if kind == "thousands":
        v = draw(st.integers(0, 10**7))
        return draw(
            st.sampled_from(
                [f"{v:,}", f"{v:,}".replace(",", "."), f"{v:,}".replace(",", " "), f"{v:,}.50"]
            )
        )
    if kind == "decimal_comma":
        return f"{draw(st.integers(-999, 999))},{draw(st.integers(0, 99)):02d}"
    if kind == "bool":
        return draw(
            st.sampled_from(["true", "false", "True", "FALSE", "yes", "no", "0", "1", "t", "f"])
        )
    if kind == "date":
        y, m, d = draw(st.integers(1900, 2030)), draw(st.integers(1, 12)), draw(st.integers(1, 28))
        return draw(
            st.sampled_from(
                [
                    f"{y}-{m:02d}-{d:02d}",
                    f"{d:02d}/{m:02d}/{y}",
                    f"{y}-{m:02d}-{d:02d}T12:30:00",
                    f"{m}/{d}/{y % 100}",
                ]
            )
        )
    if kind == "text":
        return draw(st.sampled_from(WORDS))
    if kind == "constant":
        return constant
    if kind == "id":
        return f"P{row:05d}"
    if kind == "leading_zero":
        return f"{draw(st.integers(0, 999)):04d}"
    # mixed: numbers and words in one column
    return draw(
        st.one_of(
            st.sampled_from(WORDS),
            st.integers(-50, 50).map(str),
            st.floats(-5, 5, allow_nan=False).map(str),
        )
    )


def _rows(
    draw, kinds: list[str], n: int, missing_rate: float, constants: list[str]
) -> list[list[str]]:
    rows = []
    for r in range(n):
        row = []
        for kind, constant in zip(kinds, constants, strict=True):
            if kind not in ("id", "constant") and draw(st.floats(0, 1)) < missing_rate:
                row.append(draw(st.sampled_from(MISSING_TOKENS)))
            else:
                row.append(_cell(draw, kind, r, constant))
        rows.append(row)
    return rows


def _encode(draw, rnd, header: list[str], rows: list[list[str]]) -> tuple[bytes, str]:
    delimiter = draw(st.sampled_from(DELIMITERS))
    encoding = draw(st.sampled_from(ENCODINGS))
    quoting = draw(st.sampled_from(QUOTING))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=delimiter, quoting=quoting, lineterminator=newline)
    writer.writerow(header)
    for row in rows:
        writer.writerow(row)
    text = buf.getvalue()
    damage = rnd.choices(DAMAGES, weights=[80, 1, 1, 1, 1, 1, 1, 1, 1])[0]
    if damage == "short row" and rows:
        text = text.rstrip("\r\n").rsplit(delimiter, 1)[0] + newline
    elif damage == "long row" and rows:
        text = text.rstrip("\r\n") + delimiter + "extra" + newline
    elif damage == "open quote":
        text = text.rstrip("\r\n") + newline + '"unclosed' + delimiter * len(header)
    elif damage == "sep= line":  # Excel's delimiter hint
        text = f"sep={delimiter}{newline}{text}"
    elif damage == "quote in header":
        first, _, rest = text.partition(newline)
        text = first + '"' + newline + rest
    elif damage == "mixed line endings":
        text = text.replace(newline, rnd.choice(["\n", "\r\n", "\r"]), 2)
    elif damage == "header only":
        text = text.splitlines()[0] + newline
    elif damage == "trailing delimiter":
        text = "".join(line + delimiter + newline for line in text.splitlines())
    if draw(st.booleans()):
        text = text.rstrip("\r\n")  # no final newline
    raw = text.encode(encoding, errors="replace")
    return raw, f"{encoding} {delimiter!r} {newline!r} quoting={quoting} damage={damage}"


@st.composite
def cases(draw) -> Case:
    """A real, a synthetic and a holdout file of one random column layout."""
    width = draw(st.integers(2, 5))
    kinds = draw(st.lists(st.sampled_from(COLUMN_KINDS), min_size=width, max_size=width))
    header = list(
        draw(st.lists(st.sampled_from(NAMES), min_size=width, max_size=width, unique=True))
    )
    # hypothesis favours the ends of a range (and repeats its simplest draws), so the rare
    # variants are drawn at their intended rates by a random.Random seeded from this
    # case's layout: cases that differ in layout differ in their rare variants too
    rnd = random.Random(zlib.crc32(repr((kinds, header, draw(st.integers(0, 99)))).encode()))
    # mostly well-formed headers, so that most cases get past the loader
    quirk = rnd.choices(QUIRKS, weights=[16, 1, 1, 1, 1, 1, 1, 1])[0]
    if quirk == "duplicate":
        header[-1] = header[0]
    elif quirk == "empty":
        header[draw(st.integers(0, width - 1))] = ""
    elif quirk == "blank":
        header[-1] = "   "
    elif quirk == "padded":
        header[0] = f"  {header[0]}  "
    constants = [draw(st.sampled_from(WORDS + ("1", "0.5"))) for _ in kinds]
    missing_rate = rnd.choices([0.0, 0.1, 0.4, 0.9, 1.0], weights=[8, 6, 4, 1, 1])[0]
    sizes = rnd.choices([25, 12, 5, 3, 2, 1], weights=[6, 6, 1, 1, 1, 1], k=3)
    files, notes = [], []
    for i, n in enumerate(sizes):
        use, head, const = list(kinds), list(header), list(constants)
        if i == 1 and quirk == "drop":  # the synthetic file loses a column
            use, head, const = use[:-1], head[:-1], const[:-1]
        elif i > 0 and quirk == "reorder":  # same columns, another order
            use, head, const = use[::-1], head[::-1], const[::-1]
        elif i > 0 and quirk == "retype":  # the last column holds another kind of value
            use[-1] = draw(st.sampled_from(COLUMN_KINDS))
        raw, how = _encode(draw, rnd, head, _rows(draw, use, n, missing_rate, const))
        files.append(raw)
        notes.append(f"{n} rows {how}")
    description = (
        f"kinds={kinds} header={header} quirk={quirk} missing={missing_rate} "
        f"files=[{'; '.join(notes)}]"
    )
    return Case(
        *files,
        header=header,
        description=description,
        pick=draw(st.integers(0, 4)),
        one_qi=draw(st.booleans()),
        releases=rnd.choice([1, 1, 2]),
    )


FUZZ_SETTINGS = dict(
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)


def _threat_for(real: pd.DataFrame, case: Case) -> ThreatModel | None:
    """A usable column as the secret, the other usable ones (or one of them) as
    quasi-identifiers; None when the schema cannot be inferred."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schema = infer_schema(real)
    except PrivacyCoreError:
        return None
    usable = schema.included
    if len(usable) < 2:
        # still a valid review question: the user may pick an excluded column
        return ThreatModel(list(real.columns[:-1]), [real.columns[-1]])
    secret = usable[-1 - case.pick % len(usable)]
    qis = [c for c in usable if c != secret]
    return ThreatModel(qis[:1] if case.one_qi else qis, [secret])


def run_engine(case: Case, stats: Counter) -> None:
    """load_table -> prepare_review -> every measure; any other exception propagates."""
    stats["cases"] += 1
    stats.setdefault("distinct", set()).add(hash((case.real, case.synthetic, case.holdout)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            real = load_table(case.real, name="real.csv")
            synthetic = load_table(case.synthetic, name="synthetic.csv")
            holdout = load_table(case.holdout, name="holdout.csv")
        except PrivacyCoreError:
            stats["rejected at load"] += 1
            return
        stats["loaded"] += 1
        try:
            threat = _threat_for(real, case)
            if threat is None:
                stats["rejected at schema"] += 1
                return
            prepare_review(real, synthetic, threat=threat, holdout=holdout)
        except PrivacyCoreError:
            stats["rejected at prepare_review"] += 1
            return
        stats["prepared"] += 1
        releases = synthetic if case.releases == 1 else [synthetic, synthetic.iloc[::-1]]
        # half of the measures on each case, the half chosen by the case's bytes (not by
        # `pick`, which chooses the modes): every measure still meets about half of the
        # prepared cases, in each of its modes, at half the cost of all of them on every
        # case (an evaluation costs 40-140 ms of CPU even on 25 rows)
        half = zlib.crc32(case.real + case.synthetic) % 2
        chosen = [name for i, name in enumerate(MEASURES) if i % 2 == half]
        options = {}
        for name in chosen:
            # one of the measure's registered calibration modes, kept cheap
            spec = MEASURES[name]
            mode = spec.mode_names[case.pick % len(spec.mode_names)]
            options[name] = {**spec.mode_options(mode), **CHEAP_OPTIONS[name]}
        # one evaluation for the case, each measure on its own: a PrivacyCoreError is kept
        # as that measure's failure and the others still run; any other exception is a
        # defect and propagates (evaluate's errors="collect")
        try:
            review = evaluate(
                real,
                releases,
                measures=chosen,
                threat=threat,
                holdout=holdout,
                seed=0,
                options=options,
                errors="collect",
            )
        except PrivacyCoreError:  # refused before any measure ran: an error for each
            stats.update(f"{name}: error" for name in chosen)
            return
        for name, result in review.results.items():
            # a result object with a headline number (NaN allowed: e.g. no signal)
            assert isinstance(result.value, float), (name, type(result.value))
            stats[f"{name}: result"] += 1
        stats.update(f"{name}: error" for name in review.failures)
        assert set(review.results) | set(review.failures) == set(chosen)


def test_every_registered_measure_has_cheap_options():
    # a measure added to the registry must be added to the fuzzer too
    assert set(CHEAP_OPTIONS) == set(MEASURES)


def _report(title: str, stats: Counter, seconds: float) -> None:
    lines = [
        f"{title}: {stats['cases']} cases ({len(stats['distinct'])} distinct) in {seconds:.1f} s"
    ]
    lines += [f"  {k}: {v}" for k, v in sorted(stats.items()) if k not in ("cases", "distinct")]
    print("\n".join(lines))


def test_fuzzed_files_through_the_engine_give_a_result_or_a_privacy_core_error():
    stats: Counter = Counter()

    @settings(max_examples=ENGINE_EXAMPLES, **FUZZ_SETTINGS)
    @given(cases())
    def check(case: Case) -> None:
        run_engine(case, stats)

    start = time.perf_counter()
    check()
    _report("engine fuzz", stats, time.perf_counter() - start)
    # hypothesis runs every example when none fails; the share that gets through each
    # step shows the corpus exercises more than the loader's error paths
    assert stats["cases"] >= ENGINE_EXAMPLES
    assert stats["rejected at load"] > 0 and stats["loaded"] > stats["cases"] // 3
    assert stats["prepared"] > 0
    reached = {k.split(":")[0] for k in stats if k.endswith(": result")}
    assert len(reached) >= len(MEASURES) // 2, f"measures with a result: {sorted(reached)}"
    # each measure met a share of the prepared cases (a result or its own error)
    met = {n: stats[f"{n}: result"] + stats[f"{n}: error"] for n in MEASURES}
    assert min(met.values()) >= 10, met


# ----------------------------------------------------------------------------- CLI
COMMANDS = ("privacy", "fidelity", "synthesize", "rapid", "report", "calibrate", "sweep")


def _cli_commands(paths: dict[str, str], tmp: str, sensitive: str) -> list[list[str]]:
    shared = ["--real", paths["real"], "--synthetic", paths["synthetic"]]
    own = ["--real", paths["real"], "--control", paths["holdout"], "--sensitive", sensitive]
    # calibrate needs 100 rows, so on these files it checks the inputs and stops
    return [
        [
            "sweep",
            *own,
            "--metrics",
            "ims,dcr",
            "--levels",
            "0,1",
            "--replicates",
            "1",
            "--n-jobs",
            "1",
            "--json",
            "-",
        ],
        ["calibrate", *own, "--metrics", "ims", "--levels", "0,1", "--ratios", "1"],
        [
            "privacy",
            *shared,
            "--control",
            paths["holdout"],
            "--sensitive",
            sensitive,
            "--metrics",
            "ims,dcr,singling_out,inference,membership",
            "--singling-out-mode",
            "univariate",
            "--n-attacks",
            "10",
            "--json",
            "-",
        ],
        ["fidelity", *shared, "--metrics", "query_error,wasserstein", "--json", "-"],
        [
            "synthesize",
            "--method",
            "half",
            "--real",
            paths["real"],
            "--out",
            str(Path(tmp) / "out.csv"),
        ],
        [
            "rapid",
            *shared,
            "--sensitive",
            sensitive,
            "--attackers",
            "rf",
            "--n-trees",
            "5",
            "--bootstrap",
            "10",
            "--json",
            "-",
        ],
        [
            "report",
            *shared,
            "--sensitive",
            sensitive,
            "--metrics",
            "ims,dcr,query_error",
            "--out",
            str(Path(tmp) / "report.html"),
        ],
    ]


def run_cli(case: Case, stats: Counter) -> None:
    """Each file-reading command in-process: exit 0, or exit 2 with one `error:` line."""
    stats.setdefault("distinct", set()).add(hash((case.real, case.synthetic, case.holdout)))
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for label in ("real", "synthetic", "holdout"):
            path = Path(tmp) / f"{label}.csv"
            path.write_bytes(getattr(case, label))
            paths[label] = str(path)
        # the last column as written (padded, or with a delimiter inside: the CLI's problem)
        for argv in _cli_commands(paths, tmp, case.header[-1].strip()):
            stats["runs"] += 1
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = cli.main(argv)
                except SystemExit as exc:  # argparse usage errors
                    code = exc.code
            errors = [line for line in err.getvalue().splitlines() if line.startswith("error:")]
            assert code in (0, 2), f"{argv[0]} exited {code}: {err.getvalue()}"
            if code == 2:
                assert len(errors) == 1, f"{argv[0]}: {err.getvalue()!r}"
                assert "Traceback" not in err.getvalue()
                stats[f"{argv[0]}: exit 2"] += 1
            else:
                assert not errors, f"{argv[0]} exited 0 with {errors}"
                if "--json" in argv:  # the DESIGN.md shape on stdout
                    assert json.loads(out.getvalue())["command"] == argv[0]
                stats[f"{argv[0]}: exit 0"] += 1
    stats["cases"] += 1


def test_fuzzed_files_through_the_cli_exit_0_or_2_with_one_error_line():
    stats: Counter = Counter()

    @settings(max_examples=CLI_EXAMPLES, **FUZZ_SETTINGS)
    @given(cases())
    def check(case: Case) -> None:
        run_cli(case, stats)

    start = time.perf_counter()
    check()
    _report("CLI fuzz", stats, time.perf_counter() - start)
    assert stats["cases"] >= CLI_EXAMPLES
    for command in COMMANDS:
        assert stats[f"{command}: exit 2"] > 0, f"{command} never refused a file"
        if command != "calibrate":  # it needs more rows than these files have
            assert stats[f"{command}: exit 0"] > 0, f"{command} never succeeded"
