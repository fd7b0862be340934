"""Calibration small multiples and display table: panels, ratio lines, y = x, floor band,
documented ceiling, verdict in the titles (text, not colour alone)."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import privacy_core.measures as measures
from privacy_core.calibration import (
    FLOOR_MAX,
    ROW_COLUMNS,
    CalibrationResult,
    calibrate,
    summarise,
)
from privacy_core.datasets import simulate_health
from privacy_core.plots import calibration_figure, calibration_status, calibration_table
from privacy_core.plots.calibration import RATIO_COLOURS
from privacy_core.threat import ThreatModel

LEVELS = (0.0, 0.5, 1.0)
RATIOS = (1.0, 4.0)


def rows_for(metric, mode, values, *, ratios=RATIOS, half_width=0.02):
    """Tidy calibration rows; ``values[ratio]`` lists the value at each level."""
    out = []
    for ratio in ratios:
        for level, v in zip(LEVELS, values[ratio], strict=True):
            out.append(
                {
                    "metric": metric,
                    "mode": mode,
                    "ratio": ratio,
                    "level": level,
                    "value": v,
                    "ci_low": max(v - half_width, 0.0),
                    "ci_high": v + half_width,
                    "n_training": 100,
                    "n_holdout": 100,
                    "n_release": 100,
                    "seconds": 0.01,
                    "note": "",
                }
            )
    return out


def make_result(parts, *, stopped=False, levels=LEVELS, ratios=RATIOS):
    frame = pd.DataFrame([r for p in parts for r in p], columns=ROW_COLUMNS)
    pairs = list(dict.fromkeys(zip(frame["metric"], frame["mode"], strict=True)))
    return CalibrationResult(
        rows=frame,
        summaries=tuple(summarise(frame, m, md) for m, md in pairs),
        levels=levels,
        ratios=ratios,
        seed=0,
        n_real=300,
        stopped=stopped,
    )


@pytest.fixture
def result():
    good = rows_for("ims", "default", {1.0: [0.0, 0.5, 1.0], 4.0: [0.0, 0.5, 1.0]})
    flat = rows_for("linkability", "default", {1.0: [0.0, 0.01, 0.02], 4.0: [0.0, 0.0, 0.01]})
    so = rows_for("singling_out", "univariate", {1.0: [0.01, 0.45, 0.97], 4.0: [0.02, 0.5, 0.99]})
    return make_result([good, flat, so])


def panel_traces(fig, key, role):
    return [t for t in fig.data if t.meta and t.meta["panel"] == key and t.meta["role"] == role]


def test_one_panel_per_measure_with_verdict_in_the_title(result):
    fig = calibration_figure(result)
    titles = [a.text for a in fig.layout.annotations]
    assert titles == [
        "Identical match share<br>✓ pass",
        "Linkability<br>✗ uncalibrated",
        "Singling out (univariate)<br>✓ pass",
    ]
    assert {t.meta["panel"] for t in fig.data} == {"ims", "linkability", "singling_out:univariate"}


def test_ratio_lines_with_error_bars_and_consistent_colours(result):
    fig = calibration_figure(result)
    for key in ("ims", "linkability", "singling_out:univariate"):
        lines = panel_traces(fig, key, "ratio")
        assert [t.name for t in lines] == ["ratio 1:1", "ratio 4:1"]
        assert [t.line.color for t in lines] == list(RATIO_COLOURS[:2])
        assert lines[0].marker.symbol != lines[1].marker.symbol  # not colour alone
        for t in lines:
            assert t.error_y.array is not None and t.error_y.arrayminus is not None
            # the x positions are dodged around the true levels, kept in customdata
            assert np.allclose(np.asarray(t.customdata)[:, 0], LEVELS)
            assert np.allclose(t.x, LEVELS, atol=0.05)
    so = panel_traces(fig, "singling_out:univariate", "ratio")[1]
    assert list(so.y) == [0.02, 0.5, 0.99]
    assert so.error_y.array[1] == pytest.approx(0.02)
    # legend: each ratio once, not once per panel
    legend = [t.name for t in fig.data if t.showlegend]
    assert legend.count("ratio 1:1") == 1 and legend.count("ratio 4:1") == 1


def test_reference_line_and_floor_band_in_every_panel(result):
    fig = calibration_figure(result)
    for key in ("ims", "linkability", "singling_out:univariate"):
        (ideal,) = panel_traces(fig, key, "ideal")
        assert list(ideal.x) == [0.0, 1.0] and list(ideal.y) == [0.0, 1.0]
        assert ideal.line.dash == "dash"
        (floor,) = panel_traces(fig, key, "floor")
        assert floor.fill == "toself" and max(floor.y) == FLOOR_MAX and min(floor.y) == 0
        assert not panel_traces(fig, key, "ceiling")  # none documented in the registry
    y_axes = [fig.layout[a].range for a in fig.layout if a.startswith("yaxis")]
    assert all(r[0] < 0 and r[1] > 1 for r in y_axes)  # shared range holds 0 .. 1


def test_documented_ceiling_is_a_dotted_line(result, monkeypatch):
    capped = replace(measures.MEASURES["linkability"], documented_ceiling=0.5)
    monkeypatch.setitem(measures.MEASURES, "linkability", capped)
    fig = calibration_figure(result)
    (ceiling,) = panel_traces(fig, "linkability", "ceiling")
    assert list(ceiling.y) == [0.5, 0.5] and ceiling.line.dash == "dot"
    assert not panel_traces(fig, "ims", "ceiling")


def test_table_gives_verdicts_reasons_and_notes(result):
    table = calibration_table(result).set_index("key")
    assert table.loc["ims", "status"] == "✓ pass" and table.loc["ims", "reasons"] == ""
    assert table.loc["linkability", "status"] == "✗ uncalibrated on this data"
    assert "full copy" in table.loc["linkability", "reasons"]
    assert table.loc["singling_out:univariate", "measure"] == "Singling out (univariate)"
    assert table.loc["ims", "ceiling"] == pytest.approx(1.0)
    assert {"floor", "ceiling", "slope", "linearity", "monotone", "ratio gap", "note"} <= set(
        table.columns
    )


def test_stopped_run_marks_unfinished_measures_incomplete():
    done = rows_for("ims", "default", {1.0: [0.0, 0.5, 1.0], 4.0: [0.0, 0.5, 1.0]})
    half = [
        r
        for r in rows_for("dcr", "default", {1.0: [0.0, 0.5, 1.0], 4.0: [0.0, 0.5, 1.0]})
        if r["level"] < 1.0
    ]
    res = make_result([done, half], stopped=True)
    assert calibration_status(res, res.summary("ims")) == "pass"
    assert calibration_status(res, res.summary("dcr")) == "incomplete"
    assert "… incomplete" in calibration_figure(res).layout.annotations[1].text
    assert calibration_table(res).set_index("key").loc["dcr", "status"].startswith("…")


def test_empty_result_gives_an_empty_figure():
    res = make_result([], stopped=True)
    fig = calibration_figure(res)
    assert not fig.data and "No calibration values" in fig.layout.annotations[0].text
    assert calibration_table(res).empty


def test_figure_from_a_real_calibration():
    real = simulate_health(600, kappa=1, seed=3)
    threat = ThreatModel([c for c in real.columns if c != "disease"], ["disease"])
    # two of singling out's modes, each a panel of its own (its paper protocol and
    # contrastive modes, 10 of the 11 s of CPU this calibration took, would add a panel
    # each the same way)
    res = calibrate(
        real,
        threat=threat,
        measures=["ims", "singling_out:univariate", "singling_out:multivariate"],
        levels=(0, 1),
        ratios=(1, 2),
        max_training=150,
    )
    fig = calibration_figure(res, columns=2)
    # ims, singling out univariate, multivariate
    assert len(fig.layout.annotations) == 3
    assert fig.layout.annotations[0].text.startswith("Identical match share<br>")
    assert len([t for t in fig.data if t.meta["role"] == "ratio"]) == 3 * 2
    assert list(calibration_table(res)["key"]) == [
        "ims",
        "singling_out:univariate",
        "singling_out:multivariate",
    ]


def test_stopped_run_keeps_the_grid_of_every_requested_measure():
    done = rows_for("ims", "default", {1.0: [0.0, 0.5, 1.0], 4.0: [0.0, 0.5, 1.0]})
    res = replace(
        make_result([done], stopped=True),
        params={"measures": ["ims", "singling_out:univariate", "linkability"]},
    )
    titles = [a.text for a in calibration_figure(res).layout.annotations]
    assert titles == [
        "Identical match share<br>✓ pass",
        "Singling out (univariate)<br>… incomplete",
        "Linkability<br>… incomplete",
    ]
    table = calibration_table(res).set_index("key")
    assert list(table.index) == ["ims", "singling_out:univariate", "linkability"]
    assert table.loc["linkability", "reasons"] == "not run before the stop"
    assert np.isnan(table.loc["linkability", "floor"])


def test_unfinished_measure_shows_only_its_floor():
    half = [
        r
        for r in rows_for("dcr", "default", {1.0: [0.01, 0.5, 1.0], 4.0: [0.02, 0.5, 1.0]})
        if r["level"] < 1.0
    ]
    row = calibration_table(make_result([half], stopped=True)).iloc[0]
    assert row["floor"] == pytest.approx(0.01)  # read at the smallest ratio (1:1)
    assert np.isnan(row["ceiling"]) and np.isnan(row["ratio gap"])
