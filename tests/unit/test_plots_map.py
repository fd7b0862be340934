"""The risk–utility map figure: points, whiskers, reference markers, customdata, selection,
goal-aware axes and a label layout without overlaps."""

import math

import numpy as np
import pytest

from privacy_core.errors import ParameterError
from privacy_core.measures import MEASURES, MeasureGoal, measure_goal
from privacy_core.plots.map import (
    KIND_STYLE,
    LABEL_GAP,
    LABEL_LAYOUT_WIDTH,
    LabelBox,
    axis_title,
    boxes_clash,
    label_size,
    map_table,
    place_labels,
    risk_utility_map,
    selected_candidate,
)
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
    kinds = {
        "loaded": "workspace",
        "cart1": "generated",
        "cart100": "generated",
        "half": "half",
        "hist": "histogram",
        "self": "self",
        "failed": "generated",
    }
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


def label_annotations(fig):
    """{candidate id: annotation} of the point labels."""
    return {a.name: a for a in fig.layout.annotations if a.name not in (None, "better", "numbered")}


def test_selected_ring_ideal_line_and_short_labels(inputs):
    risk, utility, kinds, labels = inputs
    fig = risk_utility_map(
        risk,
        utility,
        kinds=kinds,
        labels=labels,
        selected="cart100",
        utility_goal=MeasureGoal("target", 0.5),
        short_labels={"cart100": "leaf 100"},
        risk_title="RISK",
        utility_title="UTIL",
    )
    ring = traces_by_kind(fig)["selected"]
    assert list(ring.x) == [0.20] and list(ring.y) == [0.030]
    assert ring.customdata[0][0] == "cart100"
    assert any(s.y0 == 0.5 and s.y1 == 0.5 for s in fig.layout.shapes)
    # the axis reaches the ideal line even when every point lies far below it
    assert fig.layout.yaxis.range[1] > 0.5
    texts = {cid: a.text for cid, a in label_annotations(fig).items()}
    assert texts["cart100"] == "leaf 100" and texts["cart1"] == "label cart1"
    assert set(texts) == {k for k in kinds if k != "failed"}  # one label per point
    assert fig.layout.xaxis.title.text == "RISK" and fig.layout.yaxis.title.text == "UTIL"
    plain = risk_utility_map(risk, utility, kinds=kinds, selected="failed")
    assert "selected" not in traces_by_kind(plain)  # not drawable: no ring
    assert not plain.layout.shapes


# ------------------------------------------------------------------ goals
def better_text(fig):
    (hint,) = [a for a in fig.layout.annotations if a.name == "better"]
    return hint


def test_better_hint_follows_each_axis_goal(inputs):
    risk, utility, kinds, labels = inputs
    lower = better_text(risk_utility_map(risk, utility, kinds=kinds))
    assert lower.text == "better ↙ (toward the lower left)"
    # above the plot (paper y = 1, anchored at its bottom): no point can hide it
    assert (lower.xref, lower.yref, lower.y, lower.yanchor) == ("paper", "paper", 1.0, "bottom")
    # the discriminator's AUC is best at 0.5, worse on both sides: no corner arrow, the
    # hint says left and near the dotted 0.5 line
    auc_fig = risk_utility_map(
        risk, utility, kinds=kinds, utility_goal=measure_goal("discriminator")
    )
    auc = better_text(auc_fig)
    assert not any(a in auc.text for a in "↙↘↖↗↓↑")
    assert "←" in auc.text and "0.5" in auc.text
    assert any(s.y0 == 0.5 == s.y1 for s in auc_fig.layout.shapes)
    higher = better_text(
        risk_utility_map(risk, utility, kinds=kinds, utility_goal=MeasureGoal("higher", 1.0))
    )
    assert higher.text == "better ↖ (toward the upper left)"
    x_target_fig = risk_utility_map(
        risk, utility, kinds=kinds, risk_goal=MeasureGoal("target", 0.5)
    )
    x_target = better_text(x_target_fig)
    assert "↓" in x_target.text and "0.5" in x_target.text and "←" not in x_target.text
    assert any(s.x0 == 0.5 == s.x1 for s in x_target_fig.layout.shapes)


def test_axis_titles_say_the_goal_and_flag_indicators():
    assert "lower is better" in axis_title("RAPID", MeasureGoal("lower", 0.0))
    auc = axis_title("Discriminator AUC", measure_goal("discriminator"))
    assert "0.5" in auc and "lower is better" not in auc
    assert "higher is better" in axis_title("Recall", MeasureGoal("higher", 1.0))
    dcr = axis_title("DCR", MeasureGoal("lower", 0.0), indicator=True)
    assert "similarity indicator (not a disclosure measure)" in dcr
    assert "similarity" not in axis_title("RAPID", MeasureGoal("lower", 0.0))


def test_registry_goals():
    assert measure_goal("discriminator") == MeasureGoal("target", 0.5)
    for name in MEASURES:
        if name != "discriminator":
            assert measure_goal(name).direction == "lower", name
    with pytest.raises(ParameterError, match="Unknown measure"):
        measure_goal("nope")


# ------------------------------------------------------------------ label layout
def label_boxes(fig, width):
    """Pixel boxes (left, top, right, bottom) of the labels and markers in a figure
    ``width`` px wide, from the figure's own ranges, margins and label offsets."""
    m = fig.layout.margin
    pw, ph = width - m.l - m.r, fig.layout.height - m.t - m.b
    (x0, x1), (y0, y1) = fig.layout.xaxis.range, fig.layout.yaxis.range

    def px(x, y):
        return (x - x0) / (x1 - x0) * pw, (y1 - y) / (y1 - y0) * ph

    labels, markers = {}, {}
    for cid, a in label_annotations(fig).items():
        cx, cy = px(a.x, a.y)
        w, h = label_size(a.text)
        labels[cid] = (cx + a.ax - w / 2, cy + a.ay - h / 2, cx + a.ax + w / 2, cy + a.ay + h / 2)
        markers[cid] = (cx - 6, cy - 6, cx + 6, cy + 6)  # a 12 px marker
    return labels, markers, (pw, ph)


def whisker_lines(fig, width, risk, utility):
    """{candidate id: [horizontal line box, vertical line box]} in pixels."""
    m = fig.layout.margin
    pw, ph = width - m.l - m.r, fig.layout.height - m.t - m.b
    (x0, x1), (y0, y1) = fig.layout.xaxis.range, fig.layout.yaxis.range
    out = {}
    for cid in risk:
        (xl, xh), (yl, yh) = risk[cid].ci, utility[cid].ci
        x = (risk[cid].value - x0) / (x1 - x0) * pw
        y = (y1 - utility[cid].value) / (y1 - y0) * ph
        out[cid] = [
            ((xl - x0) / (x1 - x0) * pw, y - 0.6, (xh - x0) / (x1 - x0) * pw, y + 0.6),
            (x - 0.6, (y1 - yh) / (y1 - y0) * ph, x + 0.6, (y1 - yl) / (y1 - y0) * ph),
        ]
    return out


def overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


CROWD = {  # eight candidates within a few hundredths of each other, one far away
    "cart1": (0.300, 0.020),
    "cart2": (0.305, 0.021),
    "cart5": (0.310, 0.019),
    "cart10": (0.302, 0.022),
    "cart20": (0.308, 0.020),
    "cart100": (0.304, 0.018),
    "half": (0.306, 0.0205),
    "loaded": (0.301, 0.0195),
    "hist": (0.05, 0.08),
}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_crowded_labels_never_overlap(seed):
    rng = np.random.default_rng(seed)
    pts = (
        dict(CROWD)
        if seed == 0
        else {f"p{i}": (0.3 + rng.normal(0, 0.01), 0.02 + rng.normal(0, 0.002)) for i in range(8)}
        | {"far": (0.05, 0.08)}
    )
    # intervals on both axes: a label must not hide one either
    risk = {k: result(x, (x - 0.004, x + 0.003)) for k, (x, _) in pts.items()}
    utility = {k: result(y, (y - 0.0006, y + 0.0008)) for k, (_, y) in pts.items()}
    kinds = {k: ("half" if k == "half" else "generated") for k in pts}
    short = {k: f"CART leaf {k[4:]}" if k.startswith("cart") else k.upper() for k in pts}
    fig = risk_utility_map(risk, utility, kinds=kinds, short_labels=short)
    assert fig.layout.meta["label_layout_width"] == LABEL_LAYOUT_WIDTH
    anns = label_annotations(fig)
    assert set(anns) == set(pts)
    for width in (LABEL_LAYOUT_WIDTH, 900, 1400, 2400):
        labels, markers, (pw, ph) = label_boxes(fig, width)
        whiskers = whisker_lines(fig, width, risk, utility)
        ids = list(labels)
        for i, a in enumerate(ids):
            box = labels[a]
            assert box[0] >= 0 and box[2] <= pw and box[1] >= 0 and box[3] <= ph, (a, width)
            for b in ids[i + 1 :]:
                assert not overlap(box, labels[b]), (a, b, width)
            for b in ids:
                assert not overlap(box, markers[b]), (a, "marker", b, width)
                for line in whiskers[b]:
                    assert not overlap(box, line), (a, "whisker", b, width)
    # every label is either the short text or a number explained above the plot
    numbered = fig.layout.meta["numbered"]
    for cid, a in anns.items():
        assert a.text == short[cid] or numbered.get(a.text) == cid, (cid, a.text)


def test_boxes_clash_is_width_aware():
    # a's label sits right of b's although a's point is left of b's: apart at the
    # narrowest width, they meet as the chart widens (centres 40·s − 120 px apart)
    a = LabelBox(100, 50, 60, 0, 40, 16)
    b = LabelBox(140, 50, -60, 0, 40, 16)
    assert not (abs((140 - 60) - (100 + 60)) < 42)  # apart at s = 1
    assert boxes_clash(a, b) and boxes_clash(b, a)
    c = LabelBox(140, 50, 60, 0, 40, 16)  # same order as the points: never meet
    assert not boxes_clash(LabelBox(100, 50, -30, 0, 40, 16), c)
    assert not boxes_clash(a, LabelBox(140, 80, -60, 0, 40, 16))  # different rows
    # a point at 100 px with a whisker from 50 to 150 px: a label 80 px to its right
    # clears the whisker's end at the narrowest width, but the whisker grows with the
    # width while the label's offset does not
    whisker = LabelBox(50, 50, 0, 0, 2, 9, ax2=150)
    label = LabelBox(100, 50, 80, 0, 40, 16)  # spans 160..200 at s = 1
    assert 150 + 1 + LABEL_GAP < 160
    assert boxes_clash(whisker, label) and boxes_clash(label, whisker)
    assert not boxes_clash(whisker, LabelBox(100, 20, 80, 0, 40, 16))  # another row
    # a whisker wholly left of the label's point only draws away from it
    assert not boxes_clash(LabelBox(20, 50, 0, 0, 2, 9, ax2=90), LabelBox(100, 50, 5, 0, 10, 16))


def test_labels_that_find_no_room_become_numbers():
    # twenty points on top of each other: the long labels cannot all fit
    pts = [(200.0, 150.0)] * 20
    texts = [f"a long candidate label number {i}" for i in range(20)]
    spots = place_labels(pts, texts)
    written = [t for _, _, t in spots]
    assert any(t.isdigit() for t in written)
    assert len(set(written)) == len(written)


def test_empty_inputs_give_an_empty_figure():
    fig = risk_utility_map({}, {})
    assert len(fig.data) == 0
    assert map_table({}, {}).empty


@pytest.mark.parametrize(
    "event, expected",
    [
        ({"selection": {"points": [{"customdata": ["cart1"], "x": 0.1}]}}, "cart1"),
        ({"points": [{"customdata": "cart5"}]}, "cart5"),
        ({"selection": {"points": [{"x": 0.1}, {"customdata": ["half"]}]}}, "half"),
        ({"selection": {"points": []}}, None),
        ({"selection": {"points": [{"customdata": []}]}}, None),
        (None, None),
    ],
)
def test_selected_candidate_reads_streamlit_events(event, expected):
    assert selected_candidate(event) == expected
