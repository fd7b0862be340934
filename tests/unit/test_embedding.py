"""Contrastive record embeddings (issue 10; Plasencia Palacios et al. §4.1, §5.2,
Appendix C): the paper's embedding dimensions, a seeded deterministic encoder that learns
to match two maskings of a record, masking for attacks on column subsets, the cache, the
pickle-free export, the distance measures in ``space="contrastive"`` against a copy and
an independent sample, and clear errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import privacy_core as pc
from privacy_core.data import infer_schema, prepare_table
from privacy_core.embedding import (
    ContrastiveEncoder,
    ContrastiveParams,
    contrastive_encoder,
    embedding_dimension,
)
from privacy_core.errors import InsufficientDataError, ParameterError
from privacy_core.risk.attacks import distance_inference, linkability
from privacy_core.risk.distance import dcr, dcr_knn
from privacy_core.synth.leaky import leaky_sets

FAST = {"hidden": 64, "max_epochs": 15, "patience": 5, "batch_size": 256}


@pytest.fixture(scope="module")
def health():
    real = pc.simulate_health(1500, kappa=1, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = infer_schema(real)
    return prepare_table(real, schema), schema


@pytest.fixture(scope="module")
def encoder(health):
    real, schema = health
    return ContrastiveEncoder(schema, params=FAST).fit(real, seed=1)


@pytest.mark.parametrize(("columns", "dim"), [(15, 10), (28, 20), (37, 30), (6, 5), (2, 1)])
def test_embedding_dimension_follows_the_paper(columns, dim):
    # §5.2: 10 for Adult (15 columns), 20 for Texas (28), 30 for Census (37)
    assert embedding_dimension(columns) == dim


def test_training_learns_to_match_two_maskings(encoder):
    hist = encoder.history_
    assert hist[0]["epoch"] == 1 and len(hist) <= FAST["max_epochs"]
    best = min(h["validation_loss"] for h in hist)
    assert best < hist[0]["validation_loss"]  # the loss falls
    # matching a record's two views among the 150 validation records: chance is 1/150
    assert max(h["validation_accuracy"] for h in hist) > 5 / 150
    d = encoder.describe()
    assert d["dimension"] == 5 and d["hidden"] == 64 and d["seed"] == 1
    assert d["best_epoch"] is not None and d["n_train"] == 1350


def test_seeded_and_deterministic(health, encoder):
    real, schema = health
    z = encoder.transform(real)
    again = ContrastiveEncoder(schema, params=FAST).fit(real, seed=1).transform(real)
    other = ContrastiveEncoder(schema, params=FAST).fit(real, seed=2).transform(real)
    assert np.array_equal(z, again)
    assert not np.allclose(z, other)
    assert z.shape == (1500, 5) and np.allclose(np.linalg.norm(z, axis=1), 1.0)


def test_invariant_to_row_order(health, encoder):
    real, schema = health
    shuffled = real.sample(frac=1.0, random_state=0)
    again = ContrastiveEncoder(schema, params=FAST).fit(shuffled, seed=1)
    assert np.array_equal(again.transform(real), encoder.transform(real))


def test_masking_embeds_column_subsets(health, encoder):
    real, _ = health
    qis = ["gender", "age", "education"]
    z = encoder.transform(real, qis)
    # records with the same quasi-identifiers are the same point once the rest is masked
    key = real[qis].astype(str).agg("|".join, axis=1)
    dup = key[key.duplicated(keep=False)]
    first = dup.groupby(dup).head(1).index[0]
    twins = dup.index[dup == dup[first]]
    pos = [real.index.get_loc(i) for i in twins]
    assert len(pos) >= 2 and np.allclose(z[pos], z[pos[0]])
    # ... while the full records differ
    assert not np.allclose(encoder.transform(real)[pos], encoder.transform(real)[pos[0]])
    with pytest.raises(ParameterError, match="not trained on"):
        encoder.transform(real, ["shoe size"])


def test_cache_fits_once(health):
    real, schema = health
    real = real.head(400)  # two fits of their own: a few hundred rows are enough here
    a = contrastive_encoder(real, schema, params=FAST, seed=5)
    b = contrastive_encoder(real, schema, params=FAST, seed=5)
    c = contrastive_encoder(real, schema, params=FAST, seed=6)
    assert a is b and a is not c


def test_export_without_pickle_round_trips(health, encoder):
    real, schema = health
    blob = encoder.to_npz()
    np.load(__import__("io").BytesIO(blob), allow_pickle=False).close()  # plain arrays
    back = ContrastiveEncoder.from_npz(blob, schema)
    assert np.array_equal(back.transform(real), encoder.transform(real))
    assert back.history_ == encoder.history_


def test_distance_measures_are_calibrated_in_the_embedding():
    """The calibration contract's two ends and the middle, in the contrastive space."""
    real = pc.simulate_health(3000, kappa=1, seed=3)
    threat = pc.ThreatModel([c for c in real.columns if c != "disease"], ["disease"])
    values = {}
    for f in (0.0, 0.5, 1.0):
        training, control, release = leaky_sets(real, leak_fraction=f, seed=1)
        for name, fn in (
            ("dcr", dcr),
            ("knn", dcr_knn),
            ("inference", distance_inference),
            ("linkability", linkability),
        ):
            r = fn(
                training,
                release,
                threat=threat,
                holdout=control,
                space="contrastive",
                embedding_params=FAST,
                seed=0,
            )
            assert r.params["space"] == "contrastive"
            assert r.params["embedding"]["hidden"] == 64
            values[name, f] = r.value
    for name in ("dcr", "knn", "inference", "linkability"):
        assert values[name, 0.0] <= 0.05, (name, values)
        assert values[name, 1.0] >= 0.9, (name, values)
        assert values[name, 0.0] < values[name, 0.5] < values[name, 1.0], (name, values)
        assert abs(values[name, 0.5] - 0.5) <= 0.15, (name, values)


def test_registry_calibrates_both_spaces():
    for name in ("dcr", "knn", "inference", "linkability"):
        spec = pc.MEASURES[name]
        assert spec.mode_options("contrastive") == {"space": "contrastive"}
        assert spec.calibration_mode({"space": "contrastive"}) == "contrastive"
        assert spec.calibration_mode({"space": "shared"}) == "default"


def test_clear_errors(health):
    real, schema = health
    with pytest.raises(ParameterError, match="at least 2 columns"):
        ContrastiveEncoder(schema, ["age"])
    with pytest.raises(ParameterError, match="Unknown contrastive encoder option"):
        ContrastiveParams.coerce({"width": 3})
    with pytest.raises(InsufficientDataError, match="needs at least"):
        ContrastiveEncoder(schema, params=FAST).fit(real.head(9), seed=0)
    threat = pc.ThreatModel(["age", "gender"], ["disease"])
    with pytest.raises(ParameterError, match="space"):
        dcr(real, real, threat=threat, space="learned")
    with pytest.raises(ParameterError, match="Euclidean"):
        dcr(real, real, threat=threat, space="contrastive", metric="gower")
    with pytest.raises(RuntimeError, match="before fit"):
        ContrastiveEncoder(schema).transform(real)


def test_projection_and_figure(health, encoder):
    from privacy_core.embedding import project_2d
    from privacy_core.plots import embedding_projection_figure

    real, _ = health
    syn = real.sample(500, random_state=1)
    pts = project_2d(encoder, {"real": real, "synthetic": syn}, max_points=1000, seed=0)
    assert list(pts["source"].value_counts().sort_index()) == [1000, 500]
    # the axes are the real embeddings' principal axes: centred, first axis widest
    r = pts[pts["source"] == "real"]
    assert abs(r["x"].mean()) < 1e-9 and r["x"].var() >= r["y"].var()
    fig = embedding_projection_figure(pts, flagged=r["record"].head(10))
    assert [t.name for t in fig.data] == [
        "real records",
        "synthetic records",
        "flagged real records",
    ]
    assert len(fig.data[2].x) == 10


def test_outlier_targeted_singling_out():
    """The paper's outlier-targeted singling out (§4.2): predicates around the release's
    most isolated records; calibrated at both ends, and each predicate singles out
    exactly one synthetic record."""
    from privacy_core.risk.attacks import singling_out_outliers

    real = pc.simulate_health(3000, kappa=1, seed=4)
    threat = pc.ThreatModel([c for c in real.columns if c != "disease"], ["disease"])
    out = {}
    for f in (0.0, 1.0):
        training, control, release = leaky_sets(real, leak_fraction=f, seed=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[f] = singling_out_outliers(
                training,
                release,
                threat=threat,
                holdout=control,
                embedding_params=FAST,
                n_attacks=300,
                seed=0,
            )
    zero, copy = out[0.0], out[1.0]
    assert zero.name == "singling_out_outliers" and zero.params["space"] == "contrastive"
    # the calibration contract's floor: near 0, the interval reaching 0
    assert zero.value <= 0.1 and zero.ci[0] <= 1e-9 and copy.value >= 0.9
    assert 0 < copy.params["n_queries"] <= 300
    rec = copy.records
    # the guesses were built on the release: on the copy each matches exactly one row
    assert (rec.loc[rec["role"] == "training", "truth"] == 1).all()
    # written as a person would: a category as "col == 'v'", a bin as "lo <= col <= hi",
    # no condition twice
    guesses = rec["guess"]
    assert not guesses.str.contains(r">= '|<= '").any()
    assert guesses.str.contains(r"== '").any() and guesses.str.contains(r" <= \w+ <= ").any()
    for g in guesses:
        parts = g.split(" & ")
        assert len(parts) == len(set(parts)) <= 12
    assert zero.params["n_bins"] == 10 and zero.params["k"] == 5
    with pytest.raises(ParameterError):
        singling_out_outliers(training, release, threat=threat, n_bins=1)


def test_outlier_singling_out_reports_the_encoders_training(health):
    from privacy_core.evaluation import evaluate_measures

    real, schema = health
    threat = pc.ThreatModel(["age", "gender", "education"], ["disease"])
    seen: list[tuple[float, str]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluate_measures(
            real,
            pc.simulate_health(1500, kappa=1, seed=5),
            names=["singling_out_outliers"],
            holdout=pc.simulate_health(500, kappa=1, seed=6),
            schema=schema,
            threat=threat,
            seed=11,  # an encoder not in the cache yet: it is trained here
            options={"singling_out_outliers": {"embedding_params": FAST, "n_attacks": 100}},
            progress=lambda f, m: seen.append((f, m)),
        )
    epochs = [f for f, m in seen if "contrastive encoder: epoch" in m]
    assert len(epochs) >= 2 and epochs == sorted(epochs) and 0 < epochs[-1] <= 0.9 + 1e-9
    assert any("searching the predicates" in m for _, m in seen)
    assert seen[-1][0] == 1.0


def test_singling_out_in_the_contrastive_space_is_so_plus_cl():
    """``singling_out(space="contrastive")`` is the paper's SO + CL: the same attack as
    the outlier-targeted measure (targets found in the embedding), named
    ``singling_out``, in every mode, calibrated at both ends; the shared space is
    Anonymeter's generation and says so."""
    from privacy_core.measures import get_measure
    from privacy_core.risk.attacks import singling_out, singling_out_outliers

    real = pc.simulate_health(3000, kappa=1, seed=4)
    threat = pc.ThreatModel([c for c in real.columns if c != "disease"], ["disease"])
    training, control, release = leaky_sets(real, leak_fraction=1.0, seed=2)
    _, control0, release0 = leaky_sets(real, leak_fraction=0.0, seed=2)
    kw = {"threat": threat, "embedding_params": FAST, "n_attacks": 300, "seed": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        copy = singling_out(training, release, holdout=control, space="contrastive", **kw)
        same = singling_out_outliers(training, release, holdout=control, **kw)
        zero = singling_out(training, release0, holdout=control0, space="contrastive", **kw)
        uni = singling_out(
            training, release, holdout=control, space="contrastive", mode="univariate", **kw
        )
        paper = singling_out(
            training,
            release,
            holdout=control,
            space="contrastive",
            mode="paper",
            threat=threat,
            embedding_params=FAST,
            seed=0,
        )
        shared = singling_out(
            training, release, holdout=control, n_attacks=300, threat=threat, seed=0
        )
    assert copy.name == "singling_out" and copy.params["space"] == "contrastive"
    assert copy.params["mode"] == "multivariate" and copy.params["targets"] == "outliers"
    assert copy.value == same.value and copy.ci == same.ci
    assert copy.value >= 0.9 and zero.value <= 0.1 and zero.ci[0] <= 1e-9
    assert uni.params["n_cols"] == 1 and uni.params["mode"] == "univariate"
    assert paper.params["space"] == "contrastive" and paper.params["mode"] == "paper"
    assert paper.value >= 0.9
    assert shared.params["space"] == "shared" and "targets" not in shared.params
    spec = get_measure("singling_out")
    assert spec.calibration_mode(copy.params) == "contrastive"
    assert spec.calibration_mode(shared.params) == "multivariate"
    with pytest.raises(ParameterError, match="space"):
        singling_out(training, release, threat=threat, space="learned")


def test_dropout_hides_a_tenth_of_the_units_in_every_position_and_keeps_the_mean():
    import torch

    from privacy_core.embedding import build_network

    drop = build_network([3], 1, ContrastiveParams(), 2).body[3]  # Linear, GELU, LayerNorm, Dropout
    x = torch.ones(1000, 257)  # an odd width: the 64-bit draws are cut to the batch's size
    torch.manual_seed(0)
    a = drop(x)
    torch.manual_seed(0)
    assert torch.equal(a, drop(x))  # the seeded torch generator decides the mask
    hidden = (a == 0).flatten().float()
    # each 64-bit draw gives four masks: every one of the four slices must drop at the
    # rate (a draw with its top bit always 0 would never drop the fourth); 64k units per
    # slice, standard deviation 0.0012
    for j in range(4):
        assert abs(float(hidden[j::4].mean()) - 0.1) < 0.006, j
    assert abs(float(a.mean()) - 1.0) < 0.01  # inverted dropout: the mean is kept
    values = torch.unique(a).tolist()
    assert len(values) == 2 and values[0] == 0 and values[1] == pytest.approx(1 / 0.9, abs=1e-4)
    drop.eval()
    assert torch.equal(drop(x), x)


def test_training_stops_at_its_step_budget(health):
    real, schema = health
    # 1,350 training rows in batches of 256: 6 steps an epoch, so 8 steps end in epoch 2
    enc = ContrastiveEncoder(schema, params={**FAST, "max_steps": 8}).fit(real, seed=1)
    assert enc.steps_ == 8 and len(enc.history_) == 2
    d = enc.describe()
    assert d["steps"] == 8 and d["max_steps"] == 8
    unbounded = ContrastiveEncoder(schema, params={**FAST, "max_steps": None}).fit(real, seed=1)
    assert unbounded.steps_ == 6 * len(unbounded.history_)
    # the budget cuts the same run short: its first epoch is the unbounded run's first
    assert enc.history_[0] == unbounded.history_[0]
    with pytest.raises(ParameterError, match="max_steps"):
        ContrastiveParams(max_steps=0).validated()
