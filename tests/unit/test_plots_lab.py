"""Risk lab figures: one panel per measure group, utility off the risk axes, one label
vocabulary (the registry's) for legends, panels and tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
from privacy_core.errors import ParameterError
from privacy_core.experiments import SweepResult, sweep
from privacy_core.measures import (
    MEASURE_GROUPS,
    MEASURES,
    VARIANT_GROUP,
    measure_group,
    measure_label,
    split_measure_key,
)
from privacy_core.plots.lab import (
    IDEAL_NAME,
    RISK_Y_TITLE,
    UTILITY_GROUP,
    lab_correlation_heatmap,
    lab_response_figure,
    lab_small_multiples,
)

THREAT = pc.ThreatModel(["age", "education", "gender"], ["disease"])
# a measure of every group, and the canary rows of distance-based inference
MEASURES_USED = (
    "inference",
    "singling_out",
    "linkability",
    "membership",
    "ims",
    "dcr",
    "query_error",
    "discriminator",
)


def fake_result(
    risk_model: str = "leaky",
    levels=(0.0, 0.5, 1.0),
    measures=MEASURES_USED,
    variants=("inference@canary", "inference@training"),
    replicates: int = 2,
) -> SweepResult:
    """A sweep result with known values: every measure reads its level (plus a per-measure
    offset), so each drawn point can be checked."""
    rows = []
    for i, m in enumerate([*measures, *variants]):
        for level in levels:
            for rep in range(replicates):
                v = float(level) + 0.01 * i + 0.001 * rep
                rows.append(
                    {
                        "outlier_fraction": 0.0,
                        "level": float(level),
                        "replicate": rep,
                        "measure": m,
                        "value": v,
                        "ci_low": v - 0.02,
                        "ci_high": v + 0.02,
                        "reached": True,
                        "baseline": 0.25 if m.endswith("@canary") else np.nan,
                        "risk_model": risk_model,
                    }
                )
    return SweepResult(
        rows=pd.DataFrame(rows),
        risk_model=risk_model,
        levels=tuple(levels),
        measures=tuple(measures),
        replicates=replicates,
        seed=0,
    )


def axis_suffix(trace) -> str:
    return trace.yaxis[1:]  # "y", "y2", ... -> "", "2"


def panels_by_axis(fig) -> dict[str, str]:
    """y-axis suffix -> panel title (make_subplots titles are annotations in order)."""
    titles = [
        a.text
        for a in fig.layout.annotations
        if a.text in MEASURE_GROUPS or a.text == VARIANT_GROUP
    ]
    return {("" if i == 0 else str(i + 1)): t for i, t in enumerate(titles)}


# ----------------------------------------------------------------------------- registry
def test_every_registered_measure_is_in_exactly_one_group():
    members = [m for names in MEASURE_GROUPS.values() for m in names]
    assert sorted(members) == sorted(MEASURES)
    for name, spec in MEASURES.items():
        # the fidelity family and only it is the utility group: never drawn as a risk
        assert (measure_group(name) == UTILITY_GROUP) == (spec.family == "fidelity")


def test_one_label_per_key_with_its_mode_and_variant():
    assert measure_label("inference") == MEASURES["inference"].label
    assert measure_label("inference@canary") == f"{MEASURES['inference'].label} (canary records)"
    assert measure_label("ml_inference@training") == (
        f"{MEASURES['ml_inference'].label} (other training records)"
    )
    assert measure_label("singling_out:univariate") == "Singling out (univariate)"
    assert measure_label("singling_out:default") == "Singling out"
    assert split_measure_key("gtcap:per_record@canary") == ("gtcap", "per_record", "canary")
    # canary rows are success rates against chance: a group of their own
    assert measure_group("inference@canary") == VARIANT_GROUP
    assert measure_group("inference") == "Attribute inference"
    with pytest.raises(ParameterError, match="Unknown measure"):
        measure_group("nonsense")
    labels = [measure_label(m) for m in MEASURES]
    assert len(set(labels)) == len(labels)  # no two measures read alike


# ----------------------------------------------------------------------------- response figure
def test_one_panel_per_group_in_registry_order():
    fig = lab_response_figure(fake_result())
    panels = panels_by_axis(fig)
    assert list(panels.values()) == [
        "Attribute inference",
        VARIANT_GROUP,
        "Identity & singling out",
        "Linkability",
        "Membership",
        "Similarity indicators",
        UTILITY_GROUP,
    ]
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    assert len(lines) == len(MEASURES_USED) + 2
    for t in lines:
        key = next(
            k
            for k in [*MEASURES_USED, "inference@canary", "inference@training"]
            if measure_label(k) == t.name
        )
        assert panels[axis_suffix(t)] == measure_group(key)
        assert t.legendgroup == measure_group(key)
    # a band per line, on the line's panel
    bands = [t for t in fig.data if t.fill == "toself"]
    assert sorted(b.name for b in bands) == sorted(f"{t.name} interval" for t in lines)
    # at most 4 lines share a panel (the reviewer counted 13 on one axis)
    per_panel = pd.Series([axis_suffix(t) for t in lines]).value_counts()
    assert per_panel.max() <= 4


def test_utility_is_on_its_own_axis_never_titled_risk():
    fig = lab_response_figure(fake_result())
    panels = panels_by_axis(fig)
    utility_axis = next(s for s, g in panels.items() if g == UTILITY_GROUP)
    y_titles = {s: fig.layout[f"yaxis{s}"].title.text for s in panels}
    assert y_titles[utility_axis] != RISK_Y_TITLE and "utility" in y_titles[utility_axis]
    for s, g in panels.items():
        if g in ("Attribute inference", "Membership", "Linkability"):
            assert y_titles[s] == RISK_Y_TITLE
    on_utility = {
        t.name for t in fig.data if t.mode == "lines+markers" and axis_suffix(t) == utility_axis
    }
    assert on_utility == {measure_label("query_error"), measure_label("discriminator")}
    # the ideal y = f_l on every panel but the utility and canary ones, one legend entry
    ideal = [t for t in fig.data if t.name == IDEAL_NAME]
    canary_axis = next(s for s, g in panels.items() if g == VARIANT_GROUP)
    assert {axis_suffix(t) for t in ideal} == set(panels) - {utility_axis, canary_axis}
    assert y_titles[canary_axis] == "attack success rate"
    assert sum(bool(t.showlegend) for t in ideal) == 1
    assert all(list(t.y) == [0.0, 1.0] for t in ideal)


def test_drawn_means_are_the_summary_and_variants_share_their_colour():
    result = fake_result()
    fig = lab_response_figure(result)
    by_name = {t.name: t for t in fig.data if t.mode == "lines+markers"}
    summary = result.summary()
    for key in ["ims", "query_error", "inference@canary"]:
        want = summary[summary["measure"] == key].sort_values("level")["mean"].to_numpy()
        assert np.asarray(by_name[measure_label(key)].y, float) == pytest.approx(want)
    base = by_name[measure_label("inference")]
    canary = by_name[measure_label("inference@canary")]
    assert canary.line.color == base.line.color and canary.line.dash != base.line.dash
    colours = {by_name[measure_label(m)].line.color for m in MEASURES_USED}
    assert len(colours) == len(MEASURES_USED)  # the measures themselves differ


def test_only_present_groups_and_no_ideal_outside_the_leaky_model():
    fig = lab_response_figure(fake_result(measures=("ims", "query_error"), variants=()))
    assert list(panels_by_axis(fig).values()) == ["Similarity indicators", UTILITY_GROUP]
    dp = lab_response_figure(fake_result("dp", levels=(1.0, 10.0, 100.0)))
    assert not any(t.name == IDEAL_NAME for t in dp.data)
    axes = [k for k in dp.layout if k.startswith("xaxis")]
    assert len(axes) == 7 and all(dp.layout[k].type == "log" for k in axes)
    assert dp.layout.xaxis.title.text == "privacy budget ε"
    with pytest.raises(ParameterError, match="No rows"):
        lab_response_figure(fake_result(), measures=["gtcap"])


def test_small_multiples_and_heatmap_use_the_same_labels():
    result = fake_result()
    small = lab_small_multiples(result)
    titles = [a.text for a in small.layout.annotations]
    resp = lab_response_figure(result)
    assert sorted(titles) == sorted(t.name for t in resp.data if t.mode == "lines+markers")
    heat = lab_correlation_heatmap(result)
    assert set(heat.data[0].x) == set(titles)


def test_a_real_sweep_with_canaries_is_drawn_by_group():
    real = pc.simulate_health(600, seed=5)
    result = sweep(
        real,
        risk_model="leaky",
        levels=(0.0, 1.0),
        replicates=1,
        threat=THREAT,
        measures=["ims", "inference", "query_error"],
        canaries=30,
        n_jobs=1,
        seed=1,
    )
    fig = lab_response_figure(result)
    names = [t.name for t in fig.data if t.mode == "lines+markers"]
    assert set(names) == {measure_label(m) for m in result.rows["measure"].unique()}
    assert measure_label("inference@canary") in names
    panels = panels_by_axis(fig)
    ims = next(t for t in fig.data if t.name == measure_label("ims"))
    assert panels[axis_suffix(ims)] == "Similarity indicators"
    assert list(ims.y) == pytest.approx([0.0, 1.0])  # a full copy reads 1, unseen rows 0
    # the chance rate of the canaries (1 / number of secret values) is drawn on their panel
    n_secrets = real["disease"].nunique()
    chance = [a.text for a in fig.layout.annotations if a.text.startswith("chance")]
    assert chance == [f"chance on canaries ({1 / n_secrets:.2f})"]


def test_panel_ranges_hold_the_means_and_clip_wide_bands():
    result = fake_result(replicates=2)
    rows = result.rows.copy()
    rows.loc[rows["replicate"] == 1, "value"] += 0.6  # a wide t-interval over 2 replicates
    wide = SweepResult(
        rows=rows,
        risk_model="leaky",
        levels=result.levels,
        measures=result.measures,
        replicates=2,
        seed=0,
    )
    fig = lab_response_figure(wide)
    panels = panels_by_axis(fig)
    summary = wide.summary()
    for s, group in panels.items():
        lo, hi = fig.layout[f"yaxis{s}"].range
        lines = [t for t in fig.data if t.mode == "lines+markers" and axis_suffix(t) == s]
        means = np.concatenate([np.asarray(t.y, float) for t in lines])
        assert lo < means.min() and means.max() < hi
        if group != UTILITY_GROUP:
            assert lo <= 0 and hi >= 1
    assert (summary["ci_high"] - summary["ci_low"]).max() > hi - lo  # bands exceed the axis


def test_legends_take_the_unused_cells_or_go_below_never_over_a_panel():
    # 7 panels in a 3 x 3 grid: the legends fill the two unused cells of the last row
    fig = lab_response_figure(fake_result())
    legends = [k for k in fig.layout if k.startswith("legend") and fig.layout[k].x is not None]
    assert len(legends) == 2
    first_free = fig.layout.xaxis2.domain[0]  # the last row holds one panel (column 1)
    last_row_top = fig.layout.yaxis7.domain[1]
    for k in legends:
        assert fig.layout[k].x >= first_free - 1e-9 and fig.layout[k].y <= last_row_top + 0.02
        assert fig.layout[k].orientation == "v"
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    by_group: dict[str, set] = {}
    for t in lines:
        by_group.setdefault(t.legendgroup, set()).add(t.legend or "legend")
    assert all(len(v) == 1 for v in by_group.values())  # a group is never split
    assert {next(iter(v)) for v in by_group.values()} == set(legends)
    # a full grid (6 panels): the legends sit below the panels, one per column
    full = lab_response_figure(fake_result(variants=()))
    below = [k for k in full.layout if k.startswith("legend") and full.layout[k].y is not None]
    assert below and all(full.layout[k].y < 0 for k in below)
    assert full.layout.margin.b > 100  # room made for them
