"""The sweep engine: result shape, JSON, seeds, streaming, stopping, robustness, CLI."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
from privacy_core import cli
from privacy_core.errors import ParameterError, ThreatModelError
from privacy_core.experiments import (
    ROW_COLUMNS,
    insert_canaries,
    remove_outliers,
    sweep,
)
from privacy_core.measures import measure_label

THREAT = pc.ThreatModel(["age", "education", "gender"], ["disease"])
FAST = ["ims", "dcr", "inference"]
# a small autoregressive generator that reaches its overfit levels quickly (the fit phase
# stops within 15 epochs here anyway; twice the default overfitting learning rate halves
# the epochs to f_o): these tests read the sweep's rows and curves, not the levels' risk
QUICK_OVERFIT = {"hidden": 64, "max_epochs": 15, "max_overfit_epochs": 60, "overfit_lr": 4e-3}


@pytest.fixture(scope="module")
def real() -> pd.DataFrame:
    return pc.simulate_health(900, seed=11)


@pytest.fixture(scope="module")
def leaky(real) -> pc.MetricResult:
    return sweep(
        real,
        risk_model="leaky",
        levels=(0.0, 0.5, 1.0),
        measures=FAST,
        replicates=2,
        threat=THREAT,
        seed=3,
        n_jobs=1,
    )


def test_rows_are_tidy_and_complete(leaky):
    rows = leaky.rows
    assert list(rows.columns) == ROW_COLUMNS
    assert len(rows) == 3 * 2 * len(FAST)
    assert set(rows["measure"]) == set(FAST)
    assert (rows["f_l"] == rows["level"]).all() and rows["epsilon"].isna().all()
    assert rows.groupby("replicate")["seed"].nunique().eq(1).all()
    assert rows["seed"].nunique() == 2  # replicates use different child seeds
    assert (rows["ci_low"] <= rows["value"] + 1e-12).all()
    assert not leaky.stopped and leaky.n_done == leaky.n_tasks == 6


def test_to_dict_has_the_design_shape(leaky):
    out = leaky.to_dict()
    assert list(out) == ["rows"] and len(out["rows"]) == len(leaky.rows)
    for row in out["rows"]:
        assert list(row) == ["level", "replicate", "metric", "value", "ci"]
        assert row["ci"] is None or (len(row["ci"]) == 2 and row["ci"][0] <= row["ci"][1])
    json.dumps(out)  # plain JSON types only


def test_summary_responses_and_correlations(leaky):
    s = leaky.summary()
    assert len(s) == 3 * len(FAST)
    assert (s["n"] == 2).all() and (s["ci_low"] <= s["mean"]).all()
    ims = s[s["measure"] == "ims"].set_index("level")["mean"]
    assert list(ims) == pytest.approx([0.0, 0.5, 1.0])
    r = leaky.responses().set_index("measure")
    assert r.loc["ims", "at_highest"] == pytest.approx(1.0)
    assert r.loc["ims", "slope"] == pytest.approx(1.0)
    corr = leaky.correlations()
    assert corr.shape == (3, 3)
    assert corr.loc["ims", "dcr"] > 0.95
    assert np.allclose(np.diag(corr.to_numpy()), 1.0)


def test_same_seed_same_rows_whatever_the_workers(real, leaky):
    again = sweep(
        real,
        risk_model="leaky",
        levels=(0.0, 0.5, 1.0),
        measures=FAST,
        replicates=2,
        threat=THREAT,
        seed=3,
        n_jobs=2,
    )
    cols = [c for c in ROW_COLUMNS if c != "note"]
    pd.testing.assert_frame_equal(leaky.rows[cols], again.rows[cols])
    other = sweep(
        real,
        risk_model="leaky",
        levels=(0.0, 0.5, 1.0),
        measures=FAST,
        replicates=2,
        threat=THREAT,
        seed=4,
        n_jobs=1,
    )
    assert not np.allclose(other.rows["value"], leaky.rows["value"])


def test_rows_stream_and_should_stop_stops(real):
    batches: list[pd.DataFrame] = []
    messages: list[str] = []
    result = sweep(
        real,
        risk_model="leaky",
        levels=(0.0, 0.5, 1.0),
        measures=["ims"],
        replicates=2,
        threat=THREAT,
        n_jobs=1,
        on_rows=batches.append,
        progress=lambda f, m: messages.append(m),
        should_stop=lambda: len(batches) >= 2,
    )
    assert result.stopped and result.n_done == 2 and result.n_tasks == 6
    assert len(result.rows) == 2 and len(batches) == 2
    assert all(len(b) == 1 for b in batches)
    assert any("2/6 done" in m for m in messages)
    # stopping in parallel also ends early with the finished rows only
    par = sweep(
        real,
        risk_model="leaky",
        levels=(0.0, 0.2, 0.4, 0.6, 0.8, 1.0),
        measures=["ims"],
        replicates=3,
        threat=THREAT,
        n_jobs=2,
        should_stop=lambda: True,
    )
    assert par.stopped and 1 <= par.n_done < par.n_tasks == 18
    assert len(par.rows) == par.n_done


def test_outlier_removal_and_canaries(real):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = pc.infer_schema(real)
    canon = pc.prepare_table(real, schema)
    kept, removed = remove_outliers(canon, fraction=0.05, schema=schema)
    assert len(removed) == 45 and len(kept) == 855
    assert not set(kept.index) & set(removed)
    # the removed rows are the most isolated ones: farther from their neighbours
    enc = pc.TableEncoder(schema).fit(canon)
    X = enc.transform(canon)
    d = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(d, np.inf)
    nn = pd.Series(np.sort(d, axis=1)[:, :5].mean(axis=1), index=canon.index)
    assert nn[removed].mean() > 1.5 * nn[kept.index].mean()

    changed, labels = insert_canaries(canon, n=60, target="disease", schema=schema, seed=0)
    assert len(labels) == 60
    unchanged = canon.index.difference(labels)
    pd.testing.assert_frame_equal(changed.loc[unchanged], canon.loc[unchanged])
    pd.testing.assert_frame_equal(changed.drop(columns="disease"), canon.drop(columns="disease"))
    # the new value is uniform over the three levels, not drawn from their shares in the
    # table (healthy ~2/3): on 600 canaries each level's count is 200 ± 3 SD (35), while a
    # draw from the shares gives ~400 healthy; and about 1/3 keep their value by chance
    # (1/3 ± 0.06), against ~0.5 (the sum of the squared shares) for that wrong draw
    many, many_labels = insert_canaries(canon, n=600, target="disease", schema=schema, seed=1)
    counts = many.loc[many_labels, "disease"].value_counts()
    assert set(counts.index) == set(canon["disease"].unique())
    assert counts.between(200 - 35, 200 + 35).all(), counts.to_dict()
    kept_value = (many.loc[many_labels, "disease"] == canon.loc[many_labels, "disease"]).mean()
    assert abs(kept_value - 1 / 3) < 0.06


def test_canary_rows_in_a_sweep(real):
    result = sweep(
        real,
        risk_model="leaky",
        levels=(0.0, 1.0),
        measures=["inference"],
        replicates=1,
        threat=THREAT,
        canaries=60,
        n_jobs=1,
    )
    v = result.rows.set_index(["measure", "level"])
    assert {"inference", "inference@canary", "inference@training"} <= set(result.rows.measure)
    assert v.loc[("inference@canary", 0.0), "baseline"] == pytest.approx(1 / 3)
    # only the leak lets the attack recover randomised secrets beyond chance
    assert (
        v.loc[("inference@canary", 1.0), "value"] > v.loc[("inference@canary", 0.0), "value"] + 0.2
    )


def test_outlier_fraction_is_recorded(real):
    result = sweep(
        real,
        risk_model="leaky",
        levels=(1.0,),
        measures=["ims"],
        replicates=1,
        threat=THREAT,
        outlier_fraction=0.1,
        n_jobs=1,
    )
    row = result.rows.iloc[0]
    assert row["outlier_fraction"] == 0.1 and row["n_training"] == 270
    assert row["value"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"risk_model": "gan"}, ParameterError, "risk_model"),
        ({"risk_model": "leaky", "levels": (0.0, 1.5)}, ParameterError, "f_l"),
        ({"risk_model": "overfit", "levels": (0.5,)}, ParameterError, "f_o"),
        ({"risk_model": "dp", "levels": (0.0,)}, ParameterError, "epsilon"),
        ({"risk_model": "leaky", "measures": ["nope"]}, ParameterError, "Unknown measure"),
        ({"risk_model": "dp", "noise": {"sigma": 0.1}}, ParameterError, "noise"),
        ({"risk_model": "leaky", "backend": "ray"}, ParameterError, "ray"),
        ({"risk_model": "leaky", "n_jobs": 0}, ParameterError, "n_jobs"),
        (
            {"risk_model": "overfit", "overfit_params": {"layers": 3}},
            ParameterError,
            "overfit_params",
        ),
    ],
)
def test_bad_inputs_raise_named_errors(real, kwargs, error, match):
    with pytest.raises(error, match=match):
        sweep(real, threat=THREAT, **{"measures": ["ims"], **kwargs})


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_fidelity_measure_that_uses_the_threat_model_runs_in_a_sweep(real):
    """ML affinity predicts the threat model's secret: the sweep must hand it over (a
    registry change once left it out, and every mla row read NaN)."""
    res = sweep(
        real.iloc[:600],
        risk_model="leaky",
        levels=(1.0,),
        measures=["mla"],
        replicates=1,
        threat=THREAT,
        options={"mla": {"bootstrap": 10, "evaluators": "linear,tree"}},
        seed=1,
        n_jobs=1,
    )
    row = res.rows[res.rows["measure"] == "mla"].iloc[0]
    assert np.isfinite(row["value"]), row["note"]


def test_threat_model_is_checked(real):
    with pytest.raises(ThreatModelError, match="weight"):
        sweep(
            real,
            risk_model="leaky",
            measures=["ims"],
            threat=pc.ThreatModel(["weight"], ["disease"]),
        )


# ----------------------------------------------------------------------------- CLI
def test_cli_sweep_prints_rows_json(tmp_path, capsys, real):
    path = tmp_path / "real.csv"
    real.iloc[:600].to_csv(path, index=False)
    control = tmp_path / "control.csv"
    real.iloc[600:].to_csv(control, index=False)
    code = cli.main(
        [
            "sweep",
            "--real",
            str(path),
            "--control",
            str(control),
            "--sensitive",
            "disease",
            "--qi",
            "age,education,gender",
            "--risk-model",
            "leaky",
            "--levels",
            "0,1",
            "--metrics",
            "ims,dcr",
            "--replicates",
            "2",
            "--seed",
            "1",
            "--n-jobs",
            "1",
            "--json",
            "-",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["command", "n_real", "n_synthetic", "seed", "rows"]
    assert out["command"] == "sweep" and out["n_real"] == 900 and out["seed"] == 1
    assert out["n_synthetic"] == []
    assert len(out["rows"]) == 2 * 2 * 2
    ims = {(r["level"], r["replicate"]): r["value"] for r in out["rows"] if r["metric"] == "ims"}
    assert ims[(0.0, 0)] == 0.0 and ims[(1.0, 1)] == 1.0


def test_cli_sweep_runs_the_paper_singling_out_protocol(tmp_path, capsys, real):
    """--singling-out-mode paper reaches the measure: a copy reads about 1, and the rows
    differ from the default 3-column attack's at a partial leak."""
    path = tmp_path / "real.csv"
    real.to_csv(path, index=False)
    values = {}
    for mode in ("paper", "multivariate"):
        code = cli.main(
            [
                "sweep",
                "--real",
                str(path),
                "--sensitive",
                "disease",
                "--risk-model",
                "leaky",
                "--levels",
                "0.5,1",
                "--metrics",
                "singling_out",
                "--replicates",
                "1",
                "--seed",
                "2",
                "--n-jobs",
                "1",
                "--singling-out-mode",
                mode,
                "--json",
                "-",
            ]
        )
        assert code == 0
        rows = json.loads(capsys.readouterr().out)["rows"]
        values[mode] = {r["level"]: r["value"] for r in rows}
    assert values["paper"][1.0] >= 0.95
    assert values["paper"][0.5] != values["multivariate"][0.5]


@pytest.mark.parametrize(
    "argv,match",
    [
        (["--levels", "0,x"], "--levels"),
        (["--levels", "0,2"], "f_l"),
        (["--metrics", "nope"], "Unknown measure"),
        (["--noise", "0.1"], "--noise"),
        (["--synthetic", "s.csv"], "--synthetic is not used"),
    ],
)
def test_cli_bad_input_exits_2(tmp_path, capsys, real, argv, match):
    path = tmp_path / "real.csv"
    real.iloc[:300].to_csv(path, index=False)
    code = cli.main(
        [
            "sweep",
            "--real",
            str(path),
            "--sensitive",
            "disease",
            "--n-jobs",
            "1",
            "--metrics",
            "ims",
            *argv,
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error:") and match in err and len(err.strip().splitlines()) == 1


# ----------------------------------------------------------------------------- figures
def test_lab_figures_are_built_from_the_result(leaky, real):
    from privacy_core.plots.lab import (
        lab_correlation_heatmap,
        lab_response_figure,
        lab_small_multiples,
        lab_training_curve,
    )

    fig = lab_response_figure(leaky)
    names = [t.name for t in fig.data]
    assert names[0] == "ideal response y = f_l"
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    assert len(lines) == len(FAST)
    ims = next(t for t in lines if t.name == "Identical match share")
    assert list(ims.x) == [0.0, 0.5, 1.0] and list(ims.y) == pytest.approx([0.0, 0.5, 1.0])
    assert sum(t.fill == "toself" for t in fig.data) == len(FAST)  # one band per measure

    small = lab_small_multiples(leaky, columns=2)
    titles = [a.text for a in small.layout.annotations]
    assert titles == ["Identical match share", "DCR (SRD vs RRD)", "Distance-based inference"]
    points = [t for t in small.data if t.mode == "markers"]
    assert all(len(t.x) == 6 for t in points)  # 3 levels x 2 replicates

    heat = lab_correlation_heatmap(leaky)
    assert np.asarray(heat.data[0].z).shape == (3, 3)

    over = sweep(
        real,
        risk_model="overfit",
        levels=(1.0, 1.3),
        measures=["ims", "mds"],
        replicates=1,
        threat=THREAT,
        n_jobs=1,
        overfit_params=QUICK_OVERFIT,
        options={"mds": {"shadow_models": 4, "shadow_sets": 1, "records": 150}},
    )
    # MDS under the overfit model: shadows are the sweep's own generator, stopped at the
    # same f_o (one training run each for every level), not "not run"
    mds = over.rows[(over.rows["measure"] == "mds") & over.rows["reached"]]
    assert len(mds) >= 1 and not mds["note"].str.contains("not run").any()
    assert np.isfinite(mds.loc[mds["level"] == 1.0, "value"]).all()
    curve_fig = lab_training_curve(over.curves[0])
    names = [t.name for t in curve_fig.data]
    assert names[:2] == ["training loss", "validation loss"]
    assert names[-1] == "kept checkpoints"
    marks = curve_fig.data[-1]
    assert list(marks.text) == ["f_o = 1", "f_o = 1.3"]
    dp = sweep(
        real,
        risk_model="dp",
        levels=(1.0, 100.0),
        measures=["ims"],
        replicates=1,
        threat=THREAT,
        n_jobs=1,
    )
    assert lab_response_figure(dp).layout.xaxis.type == "log"


def test_outlier_sweep_repeats_the_overfit_model_per_fraction(real):
    from privacy_core.experiments import outlier_sweep

    result = outlier_sweep(
        real,
        fractions=(0.0, 0.1),
        levels=(1.0, 1.2),
        measures=["dcr"],
        replicates=1,
        threat=THREAT,
        n_jobs=1,
        overfit_params=QUICK_OVERFIT,
    )
    assert result.risk_model == "overfit"
    sizes = result.rows.groupby("outlier_fraction")["n_training"].first()
    assert sizes[0.0] == 360 and sizes[0.1] == 324  # 40 % of 900, minus 10 % of it
    assert set(result.curves) == {(0.0, 0), (0.1, 0)}
    summary = result.summary()
    assert len(summary) == 4 and set(summary["outlier_fraction"]) == {0.0, 0.1}
    with pytest.raises(ParameterError, match="sets risk_model"):
        outlier_sweep(real, risk_model="leaky", threat=THREAT)


def test_dp_direction_is_stated_the_right_way_round():
    # A larger privacy budget is a weaker guarantee: the inserted risk grows with epsilon
    # (the docstring once said it falls).
    import privacy_core.experiments as ex

    for doc in (ex.__doc__, ex.SweepResult.responses.__doc__):
        text = " ".join(doc.split())
        assert "falls as epsilon grows" not in text
    assert "risk rises as epsilon grows" in " ".join(ex.SweepResult.responses.__doc__.split())
    assert "inserted risk grows with epsilon" in " ".join(ex.__doc__.split())


def test_a_measure_in_one_of_its_modes_is_a_row_of_its_own(real):
    """The contrastive paper's comparison in the lab: DCR in the shared encoding and in
    the contrastive embedding side by side (``dcr:contrastive``); MDS through leaky
    shadow models at each leak fraction."""
    res = sweep(
        real,
        risk_model="leaky",
        levels=[0.0, 1.0],
        replicates=1,
        measures=["dcr", "dcr:contrastive", "mds"],
        threat=THREAT,
        seed=2,
        options={
            "mds": {"shadow_models": 4, "shadow_sets": 1, "records": 200},
            # a small encoder: the point is the row, not the embedding
            "dcr": {"embedding_params": {"hidden": 32, "max_epochs": 5}},
        },
    )
    rows = res.rows.set_index(["level", "measure"])["value"]
    for key in ("dcr", "dcr:contrastive", "mds"):
        assert rows[(0.0, key)] <= 0.1 and rows[(1.0, key)] >= 0.9, key
    assert measure_label("dcr:contrastive") == "DCR (SRD vs RRD) (contrastive)"
    with pytest.raises(ParameterError, match="no mode"):
        sweep(
            real,
            risk_model="leaky",
            levels=[0.0],
            replicates=1,
            measures=["dcr:learned"],
            threat=THREAT,
        )
