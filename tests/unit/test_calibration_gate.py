"""The calibration gate (``summarise``) on made-up rows: a wrong measure fails it.

Each case is a response a broken measure would give, fed to the gate as calibration rows;
each was let through by the earlier gate (issue 31, finding 1):
- a step function (0, 0, 1 at f_l 0, 0.5, 1): linearity was computed but never gated;
- a response saturated at 1 from f_l = 0.5: the same;
- a floor of 0.30 with a ±0.35 interval: "floor <= 0.05 or its interval reaches 0";
- a small floor whose interval reaches 0.4: it cannot be told from a leak;
- a 0.25 ratio gap inside wide intervals: forgiven as noise.
A linear, narrow response passes, so the gate is not simply closed.
"""

import pandas as pd
import pytest

from privacy_core.calibration import FLOOR_UPPER_MAX, summarise


def _rows(values, *, metric="linkability", half=0.02, ratio_shift=0.0, levels=(0, 0.5, 1)):
    """Rows for ratios 1 and 4: ``values`` per level at ratio 1, shifted by
    ``ratio_shift`` at ratio 4; ``half`` the half-width of every interval (each a number,
    or a list with one per level)."""
    halves = half if isinstance(half, (list, tuple)) else [half] * len(levels)
    shifts = ratio_shift if isinstance(ratio_shift, (list, tuple)) else [ratio_shift] * len(levels)
    out = []
    for ratio, scale in ((1.0, 0.0), (4.0, 1.0)):
        for level, v, h, d in zip(levels, values, halves, shifts, strict=True):
            shift = scale * d
            out.append(
                {
                    "metric": metric,
                    "mode": "default",
                    "ratio": ratio,
                    "level": float(level),
                    "value": v + shift,
                    "ci_low": v + shift - h,
                    "ci_high": v + shift + h,
                }
            )
    return pd.DataFrame(out)


def test_a_linear_narrow_response_passes():
    s = summarise(_rows([0.01, 0.5, 0.98]), "linkability", "default")
    assert s.verdict == "pass" and s.passed, s.reasons
    assert s.response_gap == pytest.approx(abs((0.5 - 0.01) / (0.98 - 0.01) - 0.5), abs=1e-9)


def test_a_step_function_fails():
    s = summarise(_rows([0.0, 0.0, 1.0]), "linkability", "default")
    assert s.verdict == "fail" and any("track the inserted risk" in r for r in s.reasons)


def test_a_response_saturated_half_way_fails():
    s = summarise(_rows([0.0, 1.0, 1.0]), "linkability", "default")
    assert s.verdict == "fail" and s.response_gap == pytest.approx(0.5)


def test_a_high_floor_with_a_wide_interval_fails():
    s = summarise(_rows([0.30, 0.6, 0.98], half=[0.35, 0.02, 0.02]), "linkability", "default")
    assert s.verdict == "fail" and any("unseen real rows" in r for r in s.reasons)


def test_a_small_floor_with_a_wide_interval_is_inconclusive_not_a_pass():
    s = summarise(_rows([0.02, 0.5, 0.98], half=[0.38, 0.02, 0.02]), "linkability", "default")
    assert s.floor_upper > FLOOR_UPPER_MAX
    assert s.verdict == "inconclusive" and not s.passed
    assert any("more rows or attacks" in r for r in s.reasons)


def test_a_ratio_gap_fails_when_the_intervals_can_see_it():
    s = summarise(_rows([0.01, 0.5, 0.98], ratio_shift=0.25), "linkability", "default")
    assert s.verdict == "fail" and any("size ratios" in r for r in s.reasons)


def test_a_ratio_gap_inside_wide_intervals_is_inconclusive_not_a_pass():
    wide = summarise(
        _rows([0.01, 0.5, 0.98], ratio_shift=[0.0, 0.25, 0.0], half=[0.02, 0.3, 0.02]),
        "linkability",
        "default",
    )
    assert wide.verdict == "inconclusive" and not wide.passed


def test_the_band_is_the_registry_entry_of_the_measure():
    s = summarise(_rows([0.0, 0.2, 1.0], metric="singling_out"), "singling_out", "default")
    from privacy_core.measures import get_measure

    assert s.response_band == get_measure("singling_out").response_band


def test_a_floor_just_above_the_line_whose_interval_reaches_it_is_undecided():
    """0.06 ± 0.05 may be a floor of 0.02 or of 0.11: not a pass and not a fail. Wholly
    above the line (0.12 ± 0.02) it fails."""
    s = summarise(_rows([0.06, 0.53, 0.98], half=[0.05, 0.02, 0.02]), "linkability", "default")
    assert s.verdict == "inconclusive" and not s.passed
    assert any("more rows or attacks needed" in r for r in s.reasons), s.reasons
    s = summarise(_rows([0.12, 0.55, 0.98], half=0.02), "linkability", "default")
    assert s.verdict == "fail" and any("unseen real rows" in r for r in s.reasons)


def test_a_response_gap_inside_the_readings_intervals_is_undecided():
    """A step (0, 0, 1) seen through intervals of ±0.3 cannot be told from a line: the gate
    says so instead of failing a measure on noise, and still does not pass it; with
    narrow intervals the same step fails (test_a_step_function_fails)."""
    s = summarise(_rows([0.0, 0.2, 1.0], half=[0.02, 0.3, 0.02]), "linkability", "default")
    assert s.response_gap == pytest.approx(0.3)
    assert s.verdict == "inconclusive" and not s.passed
    assert any("inside its interval" in r for r in s.reasons), s.reasons


def test_a_ratio_gap_far_beyond_wide_intervals_fails():
    """Wide intervals excuse a gap the noise could explain, not one far beyond it: 0.8
    between the ratios with ±0.3 intervals (combined ±0.42) fails."""
    s = summarise(_rows([0.01, 0.5, 0.98], half=0.3, ratio_shift=0.8), "linkability", "default")
    assert s.verdict == "fail" and any("between size ratios" in r for r in s.reasons), s.reasons
