"""What-if mitigation (issue 11, item 5): the mitigated inputs, and the before/after table."""

import warnings

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
import privacy_core.plots  # noqa: F401  (pc.plots)
from privacy_core.mitigation import (
    OTHER,
    Mitigation,
    alternative_record,
    apply_mitigation,
    compare_measures,
)

QIS = ["gender", "age", "education", "income"]


@pytest.fixture(scope="module")
def data():
    real = pc.simulate_health(800, kappa=5, seed=1)
    holdout = pc.simulate_health(500, kappa=5, seed=2)
    return real, holdout, pc.ThreatModel(QIS, ["disease"])


def test_binning_uses_the_real_tables_edges_everywhere(data):
    real, holdout, threat = data
    release = real.sample(frac=1.0, random_state=0).reset_index(drop=True)
    release.loc[0, "income"] = real["income"].max() * 10  # outside the real range
    out = apply_mitigation(
        real,
        [release],
        threat=threat,
        holdout=holdout,
        mitigation=Mitigation("bin_numeric", column="income", bins=4),
    )
    levels = set(out.real["income"])
    assert len(levels) == 4
    assert set(out.synthetic[0]["income"]) <= levels and set(out.holdout["income"]) <= levels
    top = max(levels, key=lambda s: float(s[1:].split(",")[0]))
    assert out.synthetic[0].loc[0, "income"] == top  # outside the range: the top bin
    # the originals are untouched; the threat model keeps its columns
    assert pd.api.types.is_numeric_dtype(real["income"]) and out.threat == threat


def test_merge_rare_merges_the_same_levels_in_every_table(data):
    real, holdout, threat = data
    counts = real["education"].value_counts()
    cut = int(counts.sort_values().iloc[1]) + 1  # the two rarest levels
    out = apply_mitigation(
        real,
        [real.copy()],
        threat=threat,
        holdout=holdout,
        mitigation=Mitigation("merge_rare", column="education", min_count=cut),
    )
    rare = set(counts[counts < cut].index.astype(str))
    assert len(rare) >= 2 and sorted(rare) == out.params["merged"]
    for t in (out.real, out.synthetic[0], out.holdout):
        assert not rare & set(t["education"].astype(str)) and OTHER in set(t["education"])


def test_suppress_column_drops_it_and_refuses_the_secret(data):
    real, holdout, threat = data
    out = apply_mitigation(
        real,
        [real],
        threat=threat,
        holdout=holdout,
        mitigation=Mitigation("suppress_column", column="age"),
    )
    assert "age" not in out.real and "age" not in out.synthetic[0]
    assert list(out.threat.quasi_identifiers) == ["gender", "education", "income"]
    with pytest.raises(pc.ThreatModelError, match="sensitive column"):
        apply_mitigation(
            real, [real], threat=threat, mitigation=Mitigation("suppress_column", column="disease")
        )
    with pytest.raises(pc.ColumnNotFoundError, match="'nope' is not in the real table"):
        apply_mitigation(
            real, [real], threat=threat, mitigation=Mitigation("suppress_column", column="nope")
        )


def test_suppress_rare_leaves_only_k_anonymous_release_rows(data):
    real, _, _ = data
    threat = pc.ThreatModel(["gender", "education"], ["disease"])
    k = int(real.groupby(["gender", "education"], observed=True).size().min()) + 1
    out = apply_mitigation(real, [real], threat=threat, mitigation=Mitigation("suppress_rare", k=k))
    sizes = out.synthetic[0].groupby(["gender", "education"], observed=True).size()
    assert (sizes >= k).all()
    assert out.params["rows_removed"][0] == len(real) - len(out.synthetic[0]) > 0
    assert out.real is real  # the release only


def test_regenerate_is_seeded_and_changes_the_release_only(data):
    real, _, threat = data
    m = Mitigation("regenerate", method="cart", generator_params=(("min_leaf", 40),))
    a = apply_mitigation(real, [real], threat=threat, mitigation=m, seed=3)
    b = apply_mitigation(real, [real], threat=threat, mitigation=m, seed=3)
    pd.testing.assert_frame_equal(a.synthetic[0], b.synthetic[0])
    assert a.real is real and len(a.synthetic[0]) == len(real)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"kind": "explode"}, "Unknown mitigation"),
        ({"kind": "bin_numeric"}, "name the column"),
        ({"kind": "bin_numeric", "column": "age", "bins": 1}, "bins must be"),
        ({"kind": "suppress_rare", "k": 1}, "k must be"),
    ],
)
def test_bad_mitigations_say_what_is_wrong(kwargs, message):
    with pytest.raises(pc.ParameterError, match=message):
        Mitigation(**kwargs)


def test_a_copy_regenerated_with_large_leaves_leaks_less_and_the_table_says_so(data):
    """On a full copy (the worst release), regenerating with CART's large leaves must lower
    the copy indicators and singling out beyond their intervals, and cost fidelity."""
    real, holdout, threat = data
    names = ["ims", "singling_out", "query_error"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        before = pc.evaluate_measures(
            real, [real.copy()], names=names, threat=threat, holdout=holdout, seed=0
        )
        out = apply_mitigation(
            real,
            [real.copy()],
            threat=threat,
            holdout=holdout,
            mitigation=Mitigation(
                "regenerate", method="cart", generator_params=(("min_leaf", 60),)
            ),
        )
        after = pc.evaluate_measures(
            out.real,
            list(out.synthetic),
            names=names,
            threat=out.threat,
            holdout=out.holdout,
            seed=0,
        )
    table = compare_measures(before, after).set_index("measure")
    assert table.loc["ims", "before"] > 0.9 and table.loc["ims", "after"] < 0.2
    assert table.loc["ims", "better"] == "better" and table.loc["ims", "beyond_intervals"]
    assert table.loc["singling_out", "better"] == "better"
    assert table.loc["query_error", "better"] == "worse"
    assert table.loc["query_error", "family"] == "utility"
    record = alternative_record(
        out.mitigation, compare_measures(before, after), candidate="copy", notes=out.notes
    )
    assert record["kind"] == "regenerate" and record["measures"]["ims"]["better"] == "better"
    assert np.isclose(record["measures"]["ims"]["before"], table.loc["ims", "before"])


def test_the_discriminator_improves_toward_one_half():
    before = {"discriminator": {"value": 0.8, "ci": [0.75, 0.85]}}
    after = {"discriminator": {"value": 0.55, "ci": [0.5, 0.6]}}
    row = compare_measures(before, after).iloc[0]
    assert row["better"] == "better" and row["beyond_intervals"]
    below = compare_measures(
        {"discriminator": {"value": 0.45, "ci": None}},
        {"discriminator": {"value": 0.3, "ci": None}},
    ).iloc[0]
    assert below["better"] == "worse"


def test_report_carries_the_alternatives(data):
    real, holdout, threat = data
    alt = {
        "candidate": "c",
        "kind": "suppress_rare",
        "description": "rare rows removed",
        "notes": ["12 rows"],
        "measures": {
            "ims": {
                "before": 0.2,
                "before_ci": None,
                "after": 0.1,
                "after_ci": None,
                "better": "better",
            }
        },
    }
    report = pc.build_report(
        real=real,
        synthetic=[real],
        results={},
        threat=threat,
        schema=pc.infer_schema(real),
        alternatives=[alt],
    )
    assert report.to_dict()["alternatives"] == [alt]
    html = pc.render_html(report)
    assert 'id="alternatives"' in html and "rare rows removed" in html


def test_figure_marks_each_change_in_words_and_keeps_the_labels_in_view():
    table = compare_measures(
        {"rapid": {"value": 0.4, "ci": None}, "query_error": {"value": 0.01, "ci": None}},
        {"rapid": {"value": 0.2, "ci": None}, "query_error": {"value": 0.03, "ci": None}},
    )
    fig = pc.plots.mitigation_figure(table)
    texts = [t.text[0] for t in fig.data if t.mode == "markers+text"]
    assert texts == ["▲ better", "▼ worse"]
    assert fig.layout.xaxis.range[1] > 0.4 and fig.layout.xaxis2.range[1] > 0.03


def test_the_summary_counts_only_changes_beyond_the_intervals():
    from privacy_core.mitigation import compare_measures, describe_change

    def r(value, lo, hi):
        return {"value": value, "ci": [lo, hi]}

    # every change inside both intervals: nothing measurable, however each points
    within = compare_measures(
        {"ims": r(0.10, 0.05, 0.15), "dcr": r(0.2, 0.1, 0.3), "query_error": r(0.02, 0.01, 0.04)},
        {"ims": r(0.08, 0.04, 0.12), "dcr": r(0.18, 0.1, 0.3), "query_error": r(0.03, 0.01, 0.05)},
    )
    text = describe_change(within)
    assert "none of 2 measures moved" in text and "none of 1 measure moved" in text
    assert "No change is measurable" in text
    # one risk measure clearly better, the utility one clearly worse
    moved = compare_measures(
        {"ims": r(0.30, 0.25, 0.35), "dcr": r(0.2, 0.1, 0.3), "query_error": r(0.02, 0.01, 0.03)},
        {"ims": r(0.05, 0.02, 0.08), "dcr": r(0.19, 0.1, 0.3), "query_error": r(0.09, 0.07, 0.11)},
    )
    text = describe_change(moved)
    assert "of 2 measures, 1 better and 0 worse beyond the intervals" in text
    assert "of 1 measure, 0 better and 1 worse beyond the intervals" in text
    assert "No change is measurable" not in text
