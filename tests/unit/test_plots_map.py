"""The risk–utility map figure: points, whiskers, reference markers, customdata, selection."""

import math

import numpy as np
import pytest

from privacy_core.plots.map import KIND_STYLE, map_table, risk_utility_map, selected_candidate
from privacy_core.results import MetricResult


def result(value, ci=None, name="m"):
    return MetricResult(name=name, value=value, ci=ci, params={})


@pytest.fixture
def inputs():
    risk = {
        "loaded": result(0.30, (0.25, 0.36)),
        "cart1": result(0.45, (0.40, 0.50)),
        "cart100": result(0.20, (0.18, 0.23)),
        "half": result(0.50, (0.47, 0.52)),
        "hist": result(0.05, (0.04, 0.07)),
        "self": result(0.60, (0.58, 0.62)),
        "failed": None,
    }
    utility = {
        "loaded": result(0.015),  # a single release's Wasserstein: no interval
        "cart1": result(0.010, (0.008, 0.013)),
        "cart100": result(0.030, (0.020, 0.041)),
        "half": result(0.005, (0.004, 0.006)),
        "hist": result(0.080, (0.070, 0.090)),
        "self": result(0.0, (0.0, 0.0)),
        "failed": result(0.02),
    }
    kinds = {"loaded": "workspace", "cart1": "generated", "cart100": "generated",
             "half": "half", "hist": "histogram", "self": "self", "failed": "generated"}
    labels = {k: f"label {k}" for k in kinds}
    return risk, utility, kinds, labels


def traces_by_kind(fig):
    return {t.meta["kind"]: t for t in fig.data}


def test_map_table_lines_up_values_and_intervals(inputs):
    risk, utility, kinds, labels = inputs
    table = map_table(risk, utility, kinds=kinds, labels=labels)
    assert list(table["id"]) == list(risk)
    row = table.set_index("id").loc["cart1"]
    assert (row["risk"], row["risk_lo"], row["risk_hi"]) == (0.45, 0.40, 0.50)
    assert (row["utility"], row["utility_lo"], row["utility_hi"]) == (0.010, 0.008, 0.013)
    assert row["label"] == "label cart1" and row["kind"] == "generated"
    loaded = table.set_index("id").loc["loaded"]
    assert math.isnan(loaded["utility_lo"]) and loaded["utility"] == 0.015
    assert math.isnan(table.set_index("id").loc["failed", "risk"])


def test_points_per_kind_with_customdata_and_hover(inputs):
    risk, utility, kinds, labels = inputs
    fig = risk_utility_map(risk, utility, kinds=kinds, labels=labels)
    by_kind = traces_by_kind(fig)
    assert set(by_kind) == {"workspace", "generated", "half", "histogram", "self"}
    gen = by_kind["generated"]
    # the candidate without a risk value is left out of the figure
    assert [c[0] for c in gen.customdata] == ["cart1", "cart100"]
    assert list(gen.x) == [0.45, 0.20] and list(gen.y) == [0.010, 0.030]
    assert "label cart1" in gen.hovertext[0] and "0.450 [0.400, 0.500]" in gen.hovertext[0]
    all_ids = [c[0] for t in fig.data for c in t.customdata]
    assert sorted(all_ids) == sorted(k for k in kinds if k != "failed")


def test_whiskers_on_both_axes(inputs):
    risk, utility, kinds, labels = inputs
    by_kind = traces_by_kind(risk_utility_map(risk, utility, kinds=kinds, labels=labels))
    gen = by_kind["generated"]
    np.testing.assert_allclose(gen.error_x.array, [0.05, 0.03], atol=1e-12)
    np.testing.assert_allclose(gen.error_x.arrayminus, [0.05, 0.02], atol=1e-12)
    np.testing.assert_allclose(gen.error_y.array, [0.003, 0.011], atol=1e-12)
    np.testing.assert_allclose(gen.error_y.arrayminus, [0.002, 0.010], atol=1e-12)
    assert gen.error_x.symmetric is False
    loaded = by_kind["workspace"]
    assert loaded.error_x.array is not None
    assert loaded.error_y.array is None  # no interval, no whisker


def test_reference_markers_are_distinct(inputs):
    risk, utility, kinds, labels = inputs
    by_kind = traces_by_kind(risk_utility_map(risk, utility, kinds=kinds, labels=labels))
    symbols = {k: t.marker.symbol for k, t in by_kind.items()}
    assert len({symbols["half"], symbols["histogram"], symbols["self"]}) == 3
    assert symbols["generated"] not in {symbols["half"], symbols["histogram"], symbols["self"]}
    assert by_kind["half"].name == KIND_STYLE["half"][0]
    assert by_kind["self"].name.startswith("SELF")


def test_selected_ring_ideal_line_and_short_labels(inputs):
    risk, utility, kinds, labels = inputs
    fig = risk_utility_map(risk, utility, kinds=kinds, labels=labels, selected="cart100",
                           utility_ideal=0.5, short_labels={"cart100": "leaf 100"},
                           risk_title="RISK", utility_title="UTIL")
    ring = traces_by_kind(fig)["selected"]
    assert list(ring.x) == [0.20] and list(ring.y) == [0.030]
    assert ring.customdata[0][0] == "cart100"
    assert any(s.y0 == 0.5 and s.y1 == 0.5 for s in fig.layout.shapes)
    gen = traces_by_kind(fig)["generated"]
    assert list(gen.text) == ["label cart1", "leaf 100"]
    assert fig.layout.xaxis.title.text == "RISK" and fig.layout.yaxis.title.text == "UTIL"
    plain = risk_utility_map(risk, utility, kinds=kinds, selected="failed")
    assert "selected" not in traces_by_kind(plain)  # not drawable: no ring
    assert not plain.layout.shapes


def test_empty_inputs_give_an_empty_figure():
    fig = risk_utility_map({}, {})
    assert len(fig.data) == 0
    assert map_table({}, {}).empty


@pytest.mark.parametrize("event, expected", [
    ({"selection": {"points": [{"customdata": ["cart1"], "x": 0.1}]}}, "cart1"),
    ({"points": [{"customdata": "cart5"}]}, "cart5"),
    ({"selection": {"points": [{"x": 0.1}, {"customdata": ["half"]}]}}, "half"),
    ({"selection": {"points": []}}, None),
    ({"selection": {"points": [{"customdata": []}]}}, None),
    (None, None),
])
def test_selected_candidate_reads_streamlit_events(event, expected):
    assert selected_candidate(event) == expected
