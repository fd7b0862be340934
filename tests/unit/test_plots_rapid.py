"""RAPID figures: accuracy next to each attacker's RAPID, the null band of the paper's
threshold rule, and both calibration rules' null figures."""

import numpy as np
import plotly.graph_objects as go
import pytest

import privacy_core as pc
import privacy_core.plots as plots

THREAT = pc.ThreatModel(["age", "education", "gender"], ["disease"])


@pytest.fixture(scope="module")
def fitted():
    real = pc.simulate_health(400, kappa=5, seed=3)
    syn = pc.synthesize(pc.prepare_table(real, pc.infer_schema(real)), method="cart", seed=4)
    return (
        real,
        syn,
        pc.rapid(
            real, syn, threat=THREAT, attackers=("rf", "cart"), n_trees=30, bootstrap=50, seed=0
        ),
    )


def test_threshold_curve_labels_accuracy_and_draws_the_null_band(fitted):
    _, _, res = fitted
    cal = pc.rapid_null_calibration(res, n_permutations=30, seed=0)
    fig = plots.rapid_threshold_curve(res, null=cal)
    names = [t.name for t in fig.data]
    for a in res.attackers:
        acc = res.by_attacker[a]["accuracy"]
        assert any(n and n.startswith(pc.ATTACKER_LABELS[a]) and f"{acc:.3f}" in n for n in names)
    null_line = next(t for t in fig.data if t.name and t.name.startswith("Null RAPID"))
    np.testing.assert_allclose(null_line.y, cal.band()["null_median"])
    band = next(t for t in fig.data if t.name == "null 95% interval")
    n = len(cal.thresholds)
    np.testing.assert_allclose(np.asarray(band.y)[:n], cal.band()["null_upper"])
    # the suggested threshold is marked when significant
    shapes = [s for s in fig.layout.shapes if s.x0 == cal.suggested_threshold]
    assert np.isfinite(cal.suggested_threshold) and shapes


def test_attackers_figure_pairs_rapid_and_accuracy(fitted):
    _, _, res = fitted
    fig = plots.rapid_attackers_figure(res)
    rapid_bars, acc_bars = fig.data
    np.testing.assert_allclose(rapid_bars.y, [res.by_attacker[a]["value"] for a in res.attackers])
    np.testing.assert_allclose(acc_bars.y, [res.by_attacker[a]["accuracy"] for a in res.attackers])


def test_null_figures_for_both_rules(fitted):
    real, syn, res = fitted
    cal = pc.rapid_null_calibration(res, n_permutations=20, seed=0)
    fig = plots.rapid_null_figure(cal)
    observed = next(t for t in fig.data if t.name and t.name.startswith("observed"))
    np.testing.assert_allclose(observed.y, cal.observed)
    pooled = pc.rapid_permutation_threshold(
        real, syn, threat=THREAT, rule="pooled-scores", n_permutations=2, n_trees=20, seed=0
    )
    hist = plots.rapid_null_figure(pooled)
    assert len(hist.data[0].x) == len(pooled.null_scores)


def test_slider_steps_reuse_the_figures_but_draw_each_step_exactly(fitted):
    """The static parts of the threshold curve and the histogram are built once per fit;
    each step draws its own marker and counts, and an earlier step's figure is unchanged
    by a later one (the cached parts are copied, never moved)."""
    _, _, res = fitted
    steps = {
        tau: (plots.rapid_threshold_curve(res.at(tau)), plots.rapid_score_histogram(res.at(tau)))
        for tau in (0.2, 0.5, 0.35)
    }
    for tau, (curve, hist) in steps.items():
        r = res.at(tau)
        assert [s.x0 for s in curve.layout.shapes] == [tau]
        assert [s.x0 for s in hist.layout.shapes] == [tau]
        risk, safe = (np.asarray(t.y) for t in hist.data)
        assert risk.sum() == r.n_at_risk == int(r.records["at_risk"].sum())
        assert risk.sum() + safe.sum() == np.isfinite(r.records["score"]).sum()
        # bars with risk lie above tau, bars without below (one bar may straddle tau)
        centres = np.asarray(hist.data[0].x)
        half = (centres[1] - centres[0]) / 2
        assert (centres[risk > 0] + half >= tau).all() and (centres[safe > 0] - half <= tau).all()
    # the same curves as a figure built without any cache
    fresh = pc.rapid(
        *fitted[:2], threat=THREAT, attackers=("rf", "cart"), n_trees=30, bootstrap=50, seed=0
    ).at(0.5)
    a, b = plots.rapid_threshold_curve(fresh), steps[0.5][0]
    assert [t.name for t in a.data] == [t.name for t in b.data]
    for ta, tb in zip(a.data, b.data, strict=False):
        np.testing.assert_allclose(np.asarray(ta.y, float), np.asarray(tb.y, float))


def _plain(obj):
    """JSON with plotly's typed arrays ({"dtype", "bdata"}) decoded to plain lists."""
    import base64

    if isinstance(obj, dict):
        if set(obj) >= {"dtype", "bdata"}:
            arr = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=obj["dtype"])
            return [float(v) for v in arr]
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [
            float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else _plain(v)
            for v in obj
        ]
    return obj


def test_figure_specs_draw_what_the_full_figures_draw(fitted):
    """The page's fast path (cached plain data, no re-validation) serialises to the same
    traces, shapes and annotations as the full figures."""
    import json

    _, _, res = fitted
    for tau in (0.25, 0.6):
        r = res.at(tau)
        for build in (plots.rapid_threshold_curve, plots.rapid_score_histogram):
            full = _plain(json.loads(build(r).to_json()))
            fast = _plain(json.loads(build(r, spec=True).to_json()))
            assert fast["data"] == full["data"]
            for part in ("shapes", "annotations", "height", "xaxis", "yaxis"):
                assert fast["layout"].get(part) == full["layout"].get(part), part
            assert isinstance(build(r, spec=True), plots.FigureSpec)


def test_live_curve_is_the_same_data_at_every_step(fitted):
    """The page's live curve (spec, no slider mark) serialises identically at every τ, so
    the browser keeps the drawn chart on a slider step; the same curves as the marked
    figure, which alone carries the mark."""
    _, _, res = fitted
    live = [plots.rapid_threshold_curve(res.at(t), spec=True, marker=False) for t in (0.2, 0.7)]
    assert live[0].to_json() == live[1].to_json()
    assert not live[0].to_dict()["layout"].get("shapes")
    marked = plots.rapid_threshold_curve(res.at(0.7), spec=True)
    assert live[1].to_dict()["data"] == marked.to_dict()["data"]
    assert [s["x0"] for s in marked.to_dict()["layout"]["shapes"]] == [0.7]
    full = plots.rapid_threshold_curve(res.at(0.7), marker=False)
    assert isinstance(full, go.Figure) and not full.layout.shapes
