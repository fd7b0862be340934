"""Shared statistics, checked against formulas written out here and against scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from privacy_core import ParameterError
from privacy_core.stats import (
    bootstrap_weights,
    clopper_pearson_interval,
    control_baseline_risk,
    mean_interval,
    percentile_interval,
    wilson_centre,
    wilson_interval,
)

Z95 = 1.959963984540054  # Phi^-1(0.975)


def test_wilson_interval_by_hand():
    # k = 5 of n = 20 at 95%: centre (p + z^2/2n)/(1 + z^2/n), half-width
    # z sqrt(p(1-p)/n + z^2/4n^2)/(1 + z^2/n), p = 0.25.
    k, n, z = 5, 20, Z95
    p = k / n
    denom = 1 + z**2 / n
    centre = (p + z**2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
    lo, hi = wilson_interval(k, n)
    assert lo == pytest.approx(centre - half, abs=1e-12)
    assert hi == pytest.approx(centre + half, abs=1e-12)
    # The published value of this textbook case, to four decimals.
    assert (round(lo, 4), round(hi, 4)) == (0.1119, 0.4687)


def test_wilson_interval_other_confidence():
    z = 2.5758293035489  # Phi^-1(0.995)
    k, n = 30, 50
    p = k / n
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    lo, hi = wilson_interval(k, n, confidence=0.99)
    assert (lo + hi) / 2 == pytest.approx(centre, abs=1e-12)
    assert hi - lo > np.subtract(*wilson_interval(k, n)[::-1])  # 99% is wider than 95%


@pytest.mark.parametrize(("k", "n"), [(0, 10), (10, 10), (0, 1)])
def test_wilson_interval_stays_in_unit_interval(k, n):
    lo, hi = wilson_interval(k, n)
    assert 0.0 <= lo < hi <= 1.0
    assert (lo == 0.0) == (k == 0)  # the bound touches 0 only with no successes


def test_wilson_interval_without_trials():
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("confidence", [0, 1, 1.5, "high"])
def test_wilson_interval_rejects_bad_confidence(confidence):
    with pytest.raises(ParameterError, match="confidence"):
        wilson_interval(5, 20, confidence=confidence)


@pytest.mark.parametrize(("k", "n"), [(0, 500), (37, 500), (5, 20), (20, 20)])
def test_wilson_centre_is_anonymeter_form(k, n):
    z = Z95
    rate, err = wilson_centre(k, n)
    assert rate == pytest.approx((k + z**2 / 2) / (n + z**2), abs=1e-12)
    assert err == pytest.approx(z / (n + z**2) * math.sqrt(k * (n - k) / n + z**2 / 4), abs=1e-12)


def test_wilson_centre_matches_interval_when_unclipped():
    rate, err = wilson_centre(5, 20)
    lo, hi = wilson_interval(5, 20)
    assert rate - err == pytest.approx(lo, abs=1e-12)
    assert rate + err == pytest.approx(hi, abs=1e-12)


@pytest.mark.parametrize(("k", "n"), [(0, 10), (10, 10), (3, 17), (50, 200), (1, 1000)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_clopper_pearson_matches_scipy(k, n, confidence):
    expected = binomtest(k, n).proportion_ci(confidence_level=confidence, method="exact")
    lo, hi = clopper_pearson_interval(k, n, confidence=confidence)
    assert lo == pytest.approx(expected.low, abs=1e-10)
    assert hi == pytest.approx(expected.high, abs=1e-10)


def test_clopper_pearson_is_wider_than_wilson():
    cp_lo, cp_hi = clopper_pearson_interval(5, 20)
    w_lo, w_hi = wilson_interval(5, 20)
    assert cp_lo < w_lo and cp_hi > w_hi


def test_bootstrap_weights_are_resampling_counts():
    w = bootstrap_weights(50, 2000, seed=7)
    assert w.shape == (2000, 50) and w.dtype == np.float32
    np.testing.assert_array_equal(w.sum(axis=1), 50)
    assert (w >= 0).all() and np.array_equal(w, np.round(w))
    # Each record appears once per sample on average.
    assert w.mean() == pytest.approx(1.0)
    assert w.mean(axis=0).min() > 0.9 and w.mean(axis=0).max() < 1.1


def test_bootstrap_weights_are_seeded():
    np.testing.assert_array_equal(
        bootstrap_weights(30, 10, seed=1), bootstrap_weights(30, 10, seed=1)
    )
    assert not np.array_equal(bootstrap_weights(30, 10, seed=1), bootstrap_weights(30, 10, seed=2))


def test_bootstrap_mean_is_one_matrix_product():
    rng = np.random.default_rng(0)
    indicator = (rng.random(40) < 0.3).astype(np.float32)
    w = bootstrap_weights(40, 5, seed=3)
    by_product = w @ indicator / 40
    by_loop = [np.repeat(indicator, w[b].astype(int)).mean() for b in range(5)]
    np.testing.assert_allclose(by_product, by_loop, rtol=1e-6)


def test_bootstrap_weights_with_no_samples():
    assert bootstrap_weights(10, 0, seed=0).shape == (0, 10)


def test_percentile_interval_uses_percent_not_fraction():
    samples = np.arange(1001, dtype=float)  # the p-th percentile of 0..1000 is 10 p
    lo, hi = percentile_interval(samples)
    assert (float(lo), float(hi)) == pytest.approx((25.0, 975.0), abs=1e-9)
    lo90, hi90 = percentile_interval(samples, confidence=0.9)
    assert (float(lo90), float(hi90)) == pytest.approx((50.0, 950.0), abs=1e-9)


def test_percentile_interval_along_an_axis_ignores_nan():
    samples = np.column_stack([np.arange(1001.0), 2 * np.arange(1001.0)])
    samples[0, 0] = np.nan
    lo, hi = percentile_interval(samples, axis=0)
    # Column 0 without its NaN is 1..1000: percentiles 1 + 999 q.
    np.testing.assert_allclose(lo, [1 + 999 * 0.025, 50.0])
    np.testing.assert_allclose(hi, [1 + 999 * 0.975, 1950.0])


@pytest.mark.parametrize(
    ("attack", "control", "expected"),
    [(0.6, 0.2, 0.5), (0.2, 0.2, 0.0), (1.0, 0.5, 1.0), (0.35, 0.0, 0.35)],
)
def test_control_baseline_risk(attack, control, expected):
    # R = (r_a - r_c) / (1 - r_c)
    assert control_baseline_risk(attack, control) == pytest.approx(expected)


def test_control_baseline_risk_undefined_when_control_always_wins():
    assert math.isnan(control_baseline_risk(1.0, 1.0))
    assert math.isnan(control_baseline_risk(0.4, 1.0))


T95_DF3 = 3.182446305284263  # t_{0.975} with 3 degrees of freedom


def test_mean_interval_by_hand():
    # Student t with k - 1 = 3 degrees of freedom: half = t sd / sqrt(4), sd = 1.2910.
    values = np.array([1.0, 2.0, 3.0, 4.0])
    half = T95_DF3 * np.std(values, ddof=1) / 2
    lo, hi = mean_interval(values)
    assert lo == pytest.approx(2.5 - half) and hi == pytest.approx(2.5 + half)
    assert half == pytest.approx(2.0543, abs=1e-4)
    # The z interval (1.2651) would be 38 % narrower than this one.
    assert half > Z95 * np.std(values, ddof=1) / 2 + 0.7


def test_mean_interval_two_replicates_uses_t_with_one_df():
    lo, hi = mean_interval(np.array([0.0, 1.0]))
    # t_{0.975, 1} = 12.7062, sd = 1/sqrt(2), half = 12.7062 * 0.7071 / 1.4142 = 6.3531
    assert (lo, hi) == (pytest.approx(0.5 - 6.35310), pytest.approx(0.5 + 6.35310))


@pytest.mark.parametrize("k", [2, 3, 5])
def test_mean_interval_covers_at_its_nominal_level(k):
    # 4,000 experiments of k normal replicates: the 95 % interval must contain the true
    # mean 95 % of the time (binomial sd of the coverage is 0.34 points, so ±1.5 points
    # is > 4 sd). The old mean ± 1.96 sd/sqrt(k) covers about 70 %, 81 %, 88 %.
    rng = np.random.default_rng(15 + k)
    draws = rng.normal(loc=3.0, scale=2.0, size=(4000, k))
    lows, highs = np.array([mean_interval(row) for row in draws]).T
    coverage = np.mean((lows <= 3.0) & (highs >= 3.0))
    assert coverage == pytest.approx(0.95, abs=0.015)

    means = draws.mean(axis=1)
    z_half = Z95 * draws.std(axis=1, ddof=1) / math.sqrt(k)
    z_coverage = np.mean(np.abs(means - 3.0) <= z_half)
    assert z_coverage < 0.935  # the z interval fails the same check


def test_mean_interval_validates_confidence():
    with pytest.raises(ParameterError, match="confidence"):
        mean_interval(np.array([1.0, 2.0]), confidence=95)


def test_mean_interval_edge_cases():
    assert mean_interval(np.array([0.7])) == (0.7, 0.7)
    assert all(math.isnan(v) for v in mean_interval(np.array([])))
    with_nan = mean_interval(np.array([1.0, np.nan, 2.0, 3.0, 4.0, np.inf]))
    assert with_nan == pytest.approx(mean_interval(np.array([1.0, 2.0, 3.0, 4.0])))


def test_wilson_interval_edges_are_exact():
    from privacy_core.stats import wilson_interval

    z2 = 1.959963984540054**2
    assert wilson_interval(0, 20) == (0.0, pytest.approx(z2 / (20 + z2)))
    assert wilson_interval(20, 20) == (pytest.approx(20 / (20 + z2)), 1.0)
    lo, hi = wilson_interval(1e-12, 20)  # continuity with the general formula
    assert lo == pytest.approx(0.0, abs=1e-9) and hi == pytest.approx(z2 / (20 + z2), rel=1e-6)


@pytest.mark.parametrize(
    ("d", "n", "m", "weighted", "factor"),
    [(1, 200, 50, False, 1.0), (4, 3000, 700, True, 0.5), (12, 5000, 1500, False, 0.3)],
)
def test_kde_logpdf_equals_scipy(d, n, m, weighted, factor):
    """DOMIAS's densities (issue 14): the tiled BLAS log-density equals scipy's
    ``gaussian_kde.logpdf`` to rounding, with weights, a scaled bandwidth and tiles
    smaller than the table (a point far from every data point included)."""
    from scipy.stats import gaussian_kde

    from privacy_core.stats import kde_logpdf

    rng = np.random.default_rng(d)
    data = rng.normal(size=(d, n)) * rng.uniform(0.5, 3.0, size=(d, 1))
    kde = gaussian_kde(data, weights=rng.uniform(0.1, 1.0, n) if weighted else None)
    kde.set_bandwidth(kde.factor * factor)
    points = np.hstack([rng.normal(size=(d, m)) * 1.5, np.full((d, 1), 40.0)])
    ours = kde_logpdf(kde, points, max_cells=n * 97)
    assert ours.shape == (m + 1,)
    np.testing.assert_allclose(ours, kde.logpdf(points), rtol=1e-10, atol=1e-9)
