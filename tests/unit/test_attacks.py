"""Attack-based measures: hand-computed cases, leaky extremes, seeds, errors, figures."""

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
from privacy_core.errors import (
    InsufficientDataError,
    ParameterError,
    ThreatModelError,
    UntrustworthyResultWarning,
)
from privacy_core.risk.attacks import (
    AttackResult,
    distance_inference,
    inference_success,
    knn,
    linkability,
    ml_inference,
    singling_out,
)
from privacy_core.risk.attacks import predicates as pred
from privacy_core.risk.attacks.predicates import bit_index, coding, counting
from privacy_core.risk.attacks.predicates import outliers as outlier_search
from privacy_core.risk.neighbors import nearest_neighbors
from privacy_core.stats import (
    bounded_estimate,
    control_baseline_error,
    wilson_centre,
    wilson_interval,
)

HEALTH_THREAT = pc.ThreatModel(["age", "education", "gender", "income", "health"], ["disease"])
AUX_A, AUX_B = ["age", "education", "income"], ["gender", "health", "disease"]


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UntrustworthyResultWarning)
        return fn(*args, **kwargs)


@pytest.fixture(scope="module")
def health():
    train = pc.simulate_health(800, seed=21)
    control = pc.simulate_health(800, seed=22)
    independent = pc.simulate_health(800, seed=23)
    return train, control, independent


# ============================================================== Wilson and the control formula
def test_wilson_centre_and_error_by_hand():
    # z = 1.959964, z² = 3.841459: r = (40 + 1.920729) / 103.841459,
    # e = z / 103.841459 · sqrt(40·60/100 + 3.841459/4)
    rate, err = wilson_centre(40, 100)
    assert rate == pytest.approx(0.4036993498, abs=1e-9)
    assert err == pytest.approx(0.0942980634, abs=1e-9)


def test_control_baseline_risk_and_error_propagation_by_hand():
    # attack 40/100, control 10/100, random guess 5/100
    result = AttackResult(
        name="t",
        value=float("nan"),
        ci=None,
        params={},
        n_attacks=100,
        n_success=40,
        n_control_attacks=100,
        n_control_success=10,
        n_baseline_attacks=100,
        n_baseline_success=5,
    ).at(confidence=0.95)
    # r_c = 11.920729 / 103.841459 = 0.1147974; e_c = 0.0595683
    # R = (0.4036993 - 0.1147974) / (1 - 0.1147974) = 0.3263682
    # e_R = sqrt((0.0942981 / 0.8852026)^2 + (0.0595683 · (0.4036993 - 1) / 0.8852026^2)^2)
    assert result.value == pytest.approx(0.3263681674, abs=1e-9)
    assert result.extra["risk_error"] == pytest.approx(0.1157709710, abs=1e-9)
    assert result.ci == pytest.approx((0.2105971963, 0.4421391384), abs=1e-9)
    assert result.baseline == pytest.approx(0.0666470742, abs=1e-9)
    assert result.extra["control_rate"] == pytest.approx(0.1147973993, abs=1e-9)
    assert control_baseline_error(
        0.4036993498, 0.0942980634, 0.1147973993, 0.0595682622
    ) == pytest.approx(0.1157709710, abs=1e-8)
    # a lower confidence narrows the interval around the same point
    narrow = result.at(confidence=0.8)
    assert narrow.ci[1] - narrow.ci[0] < result.ci[1] - result.ci[0]


def test_negative_residual_risk_is_clipped_with_its_interval():
    value, ci = bounded_estimate(-0.05, 0.08)
    assert value == 0.0 and ci == pytest.approx((0.0, 0.03))
    result = AttackResult(
        name="t",
        value=float("nan"),
        ci=None,
        params={},
        n_attacks=100,
        n_success=10,
        n_control_attacks=100,
        n_control_success=20,
        n_baseline_attacks=100,
        n_baseline_success=1,
    ).at()
    assert result.value == 0.0 and result.extra["risk_unclipped"] < 0
    assert result.ci[0] == 0.0 and 0.0 <= result.ci[1] < 0.1


def test_success_count_above_trials_does_not_raise_math_domain_error():
    # Anonymeter #29/#32: a rescaled control count above n made sqrt() of a negative number
    result = AttackResult(
        name="t",
        value=float("nan"),
        ci=None,
        params={},
        n_attacks=50,
        n_success=50,
        n_control_attacks=50,
        n_control_success=63.7,
        n_baseline_attacks=50,
        n_baseline_success=0,
    ).at()
    assert np.isfinite(result.value) and 0 <= result.value <= 1
    assert result.extra["control_rate"] == pytest.approx(wilson_centre(50, 50)[0])


# ============================================================== singling out by hand
def _tiny_tables():
    # predicates use x only; s is the sensitive column (makes rows distinct for dedup)
    train = pd.DataFrame(
        {"x": [1, 2, 3, 4, 5, 6], "s": list("ababab")}, index=[100, 101, 102, 103, 104, 105]
    )
    control = pd.DataFrame(
        {"x": [1, 1, 2, 7, 8, 9], "s": list("abbaab")}, index=[200, 201, 202, 203, 204, 205]
    )
    synthetic = pd.DataFrame({"x": [1, 3, 3, 7], "s": list("abab")})
    return train, control, synthetic


def test_singling_out_univariate_by_hand():
    train, control, syn = _tiny_tables()
    threat = pc.ThreatModel(["x"], ["s"])
    res = quiet(
        singling_out,
        train,
        syn,
        threat=threat,
        holdout=control,
        mode="univariate",
        columns=["x"],
        n_attacks=4,
        seed=0,
    )
    # synthetic x = 1, 3, 3, 7: "x <= 1", "x == 1", "x >= 7", "x == 7" each match one row
    rec = res.records
    train_rows = rec[rec["role"] == "training"].set_index("guess")
    assert set(train_rows.index) == {"x <= 1", "x == 1", "x >= 7", "x == 7"}
    # training x = 1..6: only the two predicates for x = 1 single out (row label 100)
    assert train_rows.loc["x <= 1", "success"] and train_rows.loc["x == 1", "success"]
    assert train_rows.loc["x <= 1", "record"] == 100
    assert train_rows.loc["x >= 7", "truth"] == 0 and not train_rows.loc["x >= 7", "success"]
    # control x = 1, 1, 2, 7, 8, 9: only "x == 7" singles out (label 203)
    ctrl_rows = rec[rec["role"] == "control"].set_index("guess")
    assert ctrl_rows["success"].sum() == 1 and ctrl_rows.loc["x == 7", "record"] == 203
    assert ctrl_rows.loc["x >= 7", "truth"] == 3
    assert (res.n_attacks, res.n_success, res.n_control_success) == (4, 2, 1)
    # R = (r(2/4) - r(1/4)) / (1 - r(1/4)) with Wilson centres 0.5 and 0.3724727
    assert res.value == pytest.approx((0.5 - 0.3724727091) / (1 - 0.3724727091), abs=1e-9)
    assert len(res.baseline_records) == 4 and 0 <= res.baseline <= 1


def test_singling_out_counts_unfound_predicates_as_failures():
    train, control, syn = _tiny_tables()
    threat = pc.ThreatModel(["x"], ["s"])
    with pytest.warns(UntrustworthyResultWarning, match="Only 4 of the 10"):
        res = singling_out(
            train,
            syn,
            threat=threat,
            holdout=control,
            mode="univariate",
            columns=["x"],
            n_attacks=10,
            seed=0,
        )
    assert res.n_attacks == 10 and res.extra["attack_rate"] == pytest.approx(
        wilson_centre(2, 10)[0]
    )


def _naive_count(codes, cols, ops, vals):
    """Row-by-row reference for the vectorised predicate evaluation."""
    counts = []
    for c_row, o_row, v_row in zip(cols, ops, vals, strict=False):
        n = 0
        for r in range(codes.shape[1]):
            ok = True
            for c, o, v in zip(c_row, o_row, v_row, strict=False):
                x = codes[c, r]
                ok &= {
                    coding.EQ: x == v,
                    coding.NE: x >= 0 and x != v,
                    coding.GT: x > v,
                    coding.LT: 0 <= x < v,
                    coding.GE: x >= v,
                    coding.LE: 0 <= x <= v,
                    coding.ISNA: x == -1,
                    coding.NOTNA: x >= 0,
                }[int(o)]
            n += ok
        counts.append(n)
    return np.array(counts)


def _naive_rows(codes, c_row, o_row, v_row):
    """Which rows one predicate matches (a row-by-row loop)."""
    return np.array(
        [
            _naive_count(codes[:, r : r + 1], c_row[None], o_row[None], v_row[None])[0]
            for r in range(codes.shape[1])
        ],
        dtype=bool,
    )


@pytest.mark.parametrize("shared", [1, 10**9])  # bitsets of distinct conditions; masks
@pytest.mark.parametrize("m", [1, 3])
def test_vectorised_predicate_counts_match_a_row_by_row_loop(m, shared, monkeypatch):
    monkeypatch.setattr(counting, "SHARED_CONDITIONS", shared)
    rng = np.random.default_rng(5)
    codes = rng.integers(-1, 4, size=(4, 60)).astype(np.int32)  # -1 = missing
    cols = np.sort(np.argsort(rng.random((200, 4)), axis=1)[:, :m], axis=1)
    ops = rng.integers(0, 8, size=cols.shape).astype(np.int8)
    vals = rng.integers(0, 4, size=cols.shape).astype(np.int32)
    counts, first = counting.count_matches(codes, cols, ops, vals)
    np.testing.assert_array_equal(counts, _naive_count(codes, cols, ops, vals))
    single = counts == 1
    assert (first[single] >= 0).all() and (first[counts == 0] == -1).all()
    if m > 1:  # both paths give the first matching row
        hit = counts > 0
        rows = [
            np.flatnonzero(_naive_rows(codes, c, o, v))
            for c, o, v in zip(cols, ops, vals, strict=True)
        ]
        np.testing.assert_array_equal(
            first[hit], [r[0] for r, h in zip(rows, hit, strict=True) if h]
        )


def _naive_text(coder, cols, ops, vals):
    """describe_predicates' rules, one condition at a time: padding (a repeated condition)
    written once, a column's >= / <= pair as one range or equality."""
    out = []
    for c_row, o_row, v_row in zip(cols.tolist(), ops.tolist(), vals.tolist(), strict=True):
        conds = []
        for cond in zip(c_row, o_row, v_row, strict=True):
            if cond not in conds:
                conds.append(cond)
        parts, done = [], set()
        for c, o, v in conds:
            name = coder.columns[c]
            pair = {oo: vv for cc, oo, vv in conds if cc == c and oo in (coding.GE, coding.LE)}
            if o in (coding.GE, coding.LE) and len(pair) == 2:
                if c in done:
                    continue
                done.add(c)
                lo, hi = coder.text(c, pair[coding.GE]), coder.text(c, pair[coding.LE])
                parts.append(f"{name} == {lo}" if lo == hi else f"{lo} <= {name} <= {hi}")
            elif o == coding.ISNA:
                parts.append(f"{name} is missing")
            elif o == coding.NOTNA:
                parts.append(f"{name} is not missing")
            else:
                symbol = {0: "==", 1: "!=", 2: ">", 3: "<", 4: ">=", 5: "<="}[o]
                parts.append(f"{name} {symbol} {coder.text(c, v)}")
        out.append(" & ".join(parts))
    return out


@pytest.mark.parametrize("m", [1, 3])
def test_predicate_texts_follow_the_rules_condition_by_condition(m):
    # rows on distinct columns take the vectorised path, rows repeating a column (padding,
    # range pairs: the outlier predicates' form) the general one; both must read as the
    # rules say. Catches a fast path that takes a padded row (its condition written
    # twice), drops a pair, or decodes column and operator from the wrong bits.
    rng = np.random.default_rng(12)
    coder = coding.RankCoder(
        ["age", "ward", "pay"],
        np.array([True, False, True]),
        [
            np.array([18.0, 30.5, 41.0, 77.0]),
            np.array(["a", "b", "c"], dtype=object),
            np.array([1e3, 2.5e4, 1e6]),
        ],
    )
    n = 400
    cols = rng.integers(0, 3, size=(n, m))
    ops = rng.integers(0, 8, size=(n, m)).astype(np.int8)
    vals = rng.integers(0, 3, size=(n, m)).astype(np.int32)
    if m > 1:
        pad = rng.random(n) < 0.3  # padding: the last condition repeats the first
        cols[pad, -1], ops[pad, -1], vals[pad, -1] = cols[pad, 0], ops[pad, 0], vals[pad, 0]
        pair = rng.random(n) < 0.3  # a range: >= lo and <= hi on one column
        cols[pair, 1] = cols[pair, 0]
        ops[pair, 0], ops[pair, 1] = coding.GE, coding.LE
    texts = coding.describe_predicates(coder, (cols, ops, vals))
    assert texts == _naive_text(coder, cols, ops, vals)
    if m > 1:  # both paths were taken
        distinct = np.array([len(set(r)) == m for r in cols.tolist()])
        assert distinct.any() and (~distinct).any()


def test_distinct_tuples_number_equal_tuples_alike_in_order_of_first_appearance():
    # extremes an interval can hold (a rank's -1 and -2, TOP + 1), where a key packing
    # the parts into bits would collide
    rng = np.random.default_rng(13)
    pool = np.array([-2, -1, 0, 1, 7, coding.TOP, coding.TOP + 1], dtype=np.int64)
    parts = [
        rng.integers(0, 40, 3000),
        pool[rng.integers(0, 7, 3000)],
        pool[rng.integers(0, 7, 3000)],
    ]
    inverse, first = coding.distinct_tuples(*parts)
    rows = list(zip(*(p.tolist() for p in parts), strict=True))
    order = list(dict.fromkeys(rows))
    assert inverse.tolist() == [order.index(r) for r in rows]
    assert first.tolist() == [rows.index(r) for r in order]


@pytest.mark.parametrize("block", [1 << 20, 40])
def test_bitset_counts_in_row_blocks_find_the_first_matching_row(block, monkeypatch):
    # a small block splits the rows and the predicates into many pieces
    monkeypatch.setattr(counting, "MASK_BLOCK", block)
    rng = np.random.default_rng(9)
    codes = rng.integers(-1, 3, size=(4, 500)).astype(np.int32)
    cols = np.sort(np.argsort(rng.random((300, 4)), axis=1)[:, :2], axis=1)
    ops = rng.integers(0, 8, size=cols.shape).astype(np.int8)
    vals = rng.integers(0, 3, size=cols.shape).astype(np.int32)
    counts, first = counting.count_matches(codes, cols, ops, vals)
    np.testing.assert_array_equal(counts, _naive_count(codes, cols, ops, vals))
    for q in np.flatnonzero(counts > 0)[:40]:
        hits = [
            r
            for r in range(codes.shape[1])
            if _naive_count(codes[:, r : r + 1], cols[q : q + 1], ops[q : q + 1], vals[q : q + 1])[
                0
            ]
        ]
        assert first[q] == hits[0]
    assert (first[counts == 0] == -1).all()


def test_bit_index_counts_equal_mask_counts():
    rng = np.random.default_rng(6)
    codes = rng.integers(-1, 30, size=(5, 300)).astype(np.int32)
    numeric = np.array([True, True, False, True, False])
    above = [np.arange(30) > 14 if numeric[c] else np.zeros(0, bool) for c in range(5)]
    bits = bit_index.BitIndex(codes, numeric, above)
    rows = rng.integers(0, 300, size=400)
    cols = np.sort(np.argsort(rng.random((400, 5)), axis=1)[:, :3], axis=1)
    vals = codes[cols, rows[:, None]]
    ops = np.full(cols.shape, coding.EQ, dtype=np.int8)
    for c in np.flatnonzero(numeric):
        at = cols == c
        v = vals[at]
        ops[at] = np.where(
            v < 0, coding.ISNA, np.where(above[c][np.maximum(v, 0)], coding.GE, coding.LE)
        )
    np.testing.assert_array_equal(
        bits.counts(cols, vals), counting.count_matches(codes, cols, ops, vals)[0]
    )


def test_distinct_rows_of_codes_equal_drop_duplicates():
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(
        {
            "a": rng.choice(["x", "y", pc.data.MISSING], size=400),
            "b": rng.choice([1.0, 2.5, np.nan], size=400),
            "c": rng.integers(0, 3, size=400).astype(float),
        }
    )
    schema = pc.canonical_schema(frame)
    coder, (codes,) = coding.RankCoder.fit_codes(schema, list(frame.columns), [frame])
    keep = coding.distinct_rows(codes, [len(u) for u in coder.universe])
    expected = frame.drop_duplicates()
    np.testing.assert_array_equal(frame.index[keep], expected.index)
    # wide universes re-densify the combined key instead of overflowing int64
    wide = rng.integers(-1, 1 << 20, size=(6, 300)).astype(np.int32)
    wide[:, 150:] = wide[:, :150]
    keep = coding.distinct_rows(wide, [1 << 20] * 6)
    np.testing.assert_array_equal(keep, np.flatnonzero(~pd.DataFrame(wide.T).duplicated()))


def test_rank_codes_from_canonicalisation_equal_codes_from_hashing(health):
    train, control, syn = health
    data = pc.prepare_review(train, syn, threat=HEALTH_THREAT, holdout=control)
    frames = [data.real, data.synthetic[0], data.holdout]
    cols = data.schema.included
    known = [data.codes_of(f) for f in frames]
    assert all(set(k) == set(data.schema.categorical) for k in known)
    coder_k, codes_k = coding.RankCoder.fit_codes(data.schema, cols, frames, known)
    coder_h, codes_h = coding.RankCoder.fit_codes(data.schema, cols, frames)
    for f, ck, ch in zip(frames, codes_k, codes_h, strict=False):
        for j, c in enumerate(cols):
            # both codings give back the table's values, and order them the same way
            np.testing.assert_array_equal(coder_k.universe[j][ck[j]], f[c].to_numpy())
            np.testing.assert_array_equal(
                coder_h.universe[j][ch[j][ch[j] >= 0]], f[c].to_numpy()[ch[j] >= 0]
            )
            assert (np.argsort(ck[j], kind="stable") == np.argsort(ch[j], kind="stable")).all()
    # a copy of a table is not one of the prepared tables: no codes are claimed for it
    assert data.codes_of(data.real.copy()) == {}


def test_object_column_with_missing_values_is_canonicalised_not_coded_as_a_level():
    # an object column holding None is not canonical: None becomes the MISSING level
    real = pd.DataFrame(
        {"c": pd.Series(["a"] * 38 + ["b", None], dtype=object), "x": np.arange(40.0) % 7 + 0.5}
    )
    data = pc.prepare_review(real, real, threat=pc.ThreatModel(["x"], ["c"]))
    assert data.real["c"].iloc[-1] == pc.data.MISSING
    cats = np.array(data.schema["c"].categories, dtype=object)
    np.testing.assert_array_equal(cats[data.codes_of(data.real)["c"]], data.real["c"])
    as_text = real.astype({"c": "str"})
    for frame in (real, as_text):  # the same predicates whatever the input dtype
        res = quiet(
            singling_out,
            frame,
            frame,
            threat=pc.ThreatModel(["x"], ["c"]),
            mode="univariate",
            columns=["c"],
            n_attacks=2,
            seed=0,
        )
        guesses = set(res.records.loc[res.records["role"] == "training", "guess"])
        assert guesses == {"c == 'b'", f"c == '{pc.data.MISSING}'"}


def test_a_replaced_table_never_inherits_another_tables_codes(health):
    from dataclasses import replace

    train, control, syn = health
    data = pc.prepare_review(train, syn, threat=HEALTH_THREAT, holdout=control)
    swapped = replace(data, real=data.holdout)
    assert swapped.codes_of(swapped.real) is data.codes_of(data.holdout)  # its own codes
    other = replace(data, real=data.real.iloc[::-1])
    assert other.codes_of(other.real) == {}


def test_multivariate_predicates_each_single_out_one_synthetic_row(health):
    train, control, _ = health
    syn = pc.synthesize(pc.prepare_table(train, pc.infer_schema(train)), method="cart", seed=2)
    res = quiet(
        singling_out, train, syn, threat=HEALTH_THREAT, holdout=control, n_attacks=60, seed=3
    )
    assert res.params["n_queries"] == 60 and res.params["generation"] == "complete"
    queries = res.records.loc[res.records["role"] == "training", "guess"]
    assert queries.is_unique and queries.str.count(" & ").eq(2).all()  # 3 conditions each
    canon = pc.prepare_table(syn, pc.infer_schema(train)).drop_duplicates()
    for text in queries.head(15):
        mask = np.ones(len(canon), dtype=bool)
        for cond in text.split(" & "):
            col, op, value = cond.split(" ", 2)
            x = canon[col]
            v = value.strip("'") if value.startswith("'") else float(value)
            mask &= {"==": x == v, ">=": x >= v, "<=": x <= v}[op].to_numpy()
        assert mask.sum() == 1, text


# ============================================================== linkability by hand
def _link_tables():
    syn = pd.DataFrame(
        {"x": [0.0, 10.0, 4.0], "y": [0.0, 10.0, 9.0], "s": list("abc")}, index=["s0", "s1", "s2"]
    )
    train = pd.DataFrame(
        {"x": [0.5, 9.0, 4.2, 10.0], "y": [0.5, 1.0, 9.2, 0.0], "s": list("abca")},
        index=[10, 11, 12, 13],
    )
    control = pd.DataFrame({"x": [9.5, 0.0], "y": [0.5, 10.0], "s": list("ab")}, index=[20, 21])
    return train, control, syn


def test_linkability_by_hand_and_reread_at_fewer_neighbours():
    train, control, syn = _link_tables()
    threat = pc.ThreatModel(["x", "y"], ["s"])
    res = quiet(
        linkability,
        train.iloc[:3],
        syn,
        threat=threat,
        holdout=control,
        n_attacks=None,
        n_neighbors=2,
        seed=0,
    )
    assert res.params["aux_cols"] == [["x"], ["y"]]  # the QIs split in halves
    rec = res.records.set_index("record")
    # target 10 (0.5, 0.5): s0 is nearest on x and on y -> linked at k' = 1 through s0
    # target 11 (9, 1): s1 on x, s0 on y; top-2 share s2 -> linked at k' = 2
    # target 12 (4.2, 9.2): s2 on both -> k' = 1
    assert rec.loc[[10, 11, 12], "link_rank"].tolist() == [1, 2, 1]
    assert rec.loc[10, "guess"] == "s0" and rec.loc[11, "guess"] == "s2"
    assert rec.loc[11, "neighbors_a"] == ("s1", "s2") and rec.loc[11, "neighbors_b"] == ("s0", "s2")
    # control (9.5, 0.5) and (0, 10) link only at k' = 2, both through s2
    assert rec.loc[[20, 21], "link_rank"].tolist() == [2, 2]
    assert (res.n_success, res.n_control_success) == (3, 2)
    one = res.at(n_neighbors=1)
    assert (one.n_success, one.n_control_success) == (2, 0)
    assert pd.isna(one.records.set_index("record").loc[11, "guess"])
    r_a, r_c = wilson_centre(2, 3)[0], wilson_centre(0, 2)[0]
    assert one.extra["risk_unclipped"] == pytest.approx((r_a - r_c) / (1 - r_c))
    assert one.params["n_neighbors"] == 1 and res.params["n_neighbors"] == 2
    curve = res.curve()
    assert curve["n_neighbors"].tolist() == [1, 2]
    assert curve["attack_rate"].is_monotonic_increasing
    with pytest.raises(ParameterError, match="at most 2"):
        res.at(n_neighbors=3)


def test_category_mismatch_adds_exactly_one():
    frame = pd.DataFrame({"a": [0.0, 0.0, 10.0], "c": ["u", "v", "u"]})
    schema = pc.infer_schema(pd.DataFrame({"a": [0.0, 10.0, 5.0], "c": ["u", "v", "w"]}))
    enc = pc.TableEncoder(schema).fit(
        pc.prepare_table(pd.DataFrame({"a": [0.0, 10.0, 5.0], "c": ["u", "v", "w"]}), schema)
    )
    x = knn.gower_matrix(enc, pc.prepare_table(frame, schema), ["a", "c"])
    d = np.abs(x[:, None, :] - x[None, :, :]).sum(axis=2)
    assert d[0, 1] == pytest.approx(1.0)  # same number, other category
    assert d[0, 2] == pytest.approx(1.0)  # full numeric range, same category
    assert d[1, 2] == pytest.approx(2.0)


def test_grouped_knn_equals_one_full_search_with_the_same_tie_order():
    rng = np.random.default_rng(8)
    schema_frame = pd.DataFrame(
        {
            "a": rng.integers(0, 5, 400).astype(float),
            "b": rng.choice(list("pqr"), 400),
            "c": rng.choice(list("xy"), 400),
        }
    )
    schema = pc.infer_schema(schema_frame)
    canon = pc.prepare_table(schema_frame, schema)
    enc = pc.TableEncoder(schema).fit(canon)
    ref = knn.MixedSpace.of(enc, canon.iloc[:300], ["a", "b", "c"])
    qry = knn.MixedSpace.of(enc, canon.iloc[300:], ["a", "b", "c"])
    perm = rng.permutation(300)
    d, i = knn.knn_random_ties(qry, ref, 1, perm)
    d_full, i_full = nearest_neighbors(qry.full, ref.full[perm], k=1, metric="l1")
    np.testing.assert_array_equal(i, perm[i_full])  # heavy ties: the same row wins
    np.testing.assert_allclose(d, d_full)
    # k > 1: the same distances; which of the rows tied at the k-th distance is kept is
    # arbitrary in both searches, so check each returned row really is that far away
    d, i = knn.knn_random_ties(qry, ref, 4, perm)
    d_full, _ = nearest_neighbors(qry.full, ref.full[perm], k=4, metric="l1")
    np.testing.assert_allclose(d, d_full)
    direct = np.abs(qry.full[:, None, :] - ref.full[i]).sum(axis=2)
    np.testing.assert_allclose(direct, d)
    assert all(len(set(row)) == 4 for row in i)


# ============================================================== inference by hand
@pytest.mark.parametrize(
    "guess, truth, ok",
    [
        (104.0, 100.0, True),
        (95.0, 100.0, True),
        (94.9, 100.0, False),
        (-10.0, 100.0, False),  # Anonymeter's signed denominator called this correct
        (-104.0, -100.0, True),
        (np.nan, np.nan, True),
        (np.nan, 5.0, False),
        (0.0, 0.0, True),
    ],
)
def test_numeric_guess_is_judged_relative_to_the_true_value(guess, truth, ok):
    assert (
        inference_success(np.array([guess]), np.array([truth]), regression=True, tolerance=0.05)[0]
        == ok
    )


def test_distance_inference_by_hand():
    syn = pd.DataFrame({"x": [0.0, 5.0, 10.0], "s": ["lo", "mid", "hi"]}, index=[7, 8, 9])
    train = pd.DataFrame({"x": [1.0, 4.0, 9.0, 6.0], "s": ["lo", "mid", "lo", "hi"]})
    control = pd.DataFrame({"x": [0.5, 9.5], "s": ["hi", "hi"]}, index=[30, 31])
    res = quiet(
        distance_inference,
        train,
        syn,
        threat=pc.ThreatModel(["x"], ["s"]),
        holdout=control,
        n_attacks=None,
        seed=0,
    )
    rec = res.records
    tr = rec[rec["role"] == "training"]
    assert tr["guess"].tolist() == ["lo", "mid", "hi", "mid"]
    assert tr["success"].tolist() == [True, True, False, False]
    assert tr["neighbor"].tolist() == [7, 8, 9, 8]
    ct = rec[rec["role"] == "control"]
    assert ct["record"].tolist() == [30, 31] and ct["success"].tolist() == [False, True]
    assert (res.n_success, res.n_attacks, res.n_control_success, res.n_control_attacks) == (
        2,
        4,
        1,
        2,
    )
    r_a, r_c = wilson_centre(2, 4)[0], wilson_centre(1, 2)[0]
    assert res.extra["risk_unclipped"] == pytest.approx((r_a - r_c) / (1 - r_c))
    assert res.params["secret"] == "s" and res.params["regression"] is False


# ============================================================== leaky extremes
def test_copy_of_training_is_highly_risky_for_every_attack(health):
    train, control, _ = health
    copy = train.copy()
    so = quiet(
        singling_out, train, copy, threat=HEALTH_THREAT, holdout=control, n_attacks=200, seed=1
    )
    lk = quiet(
        linkability,
        train,
        copy,
        threat=HEALTH_THREAT,
        holdout=control,
        aux_cols=(AUX_A, AUX_B),
        n_attacks=300,
        seed=1,
    )
    inf = quiet(
        distance_inference,
        train,
        copy,
        threat=HEALTH_THREAT,
        holdout=control,
        n_attacks=300,
        seed=1,
    )
    assert so.value > 0.8 and so.ci[0] > 0.6
    assert lk.value > 0.9 and lk.extra["attack_rate"] > 0.95
    assert inf.value > 0.9 and inf.extra["attack_rate"] > 0.95
    for r in (so, lk, inf):
        assert r.extra["beats_baseline"]


def test_independent_draw_of_the_population_carries_little_risk(health):
    train, control, independent = health
    so = quiet(
        singling_out,
        train,
        independent,
        threat=HEALTH_THREAT,
        holdout=control,
        n_attacks=500,
        seed=1,
    )
    lk = quiet(
        linkability,
        train,
        independent,
        threat=HEALTH_THREAT,
        holdout=control,
        aux_cols=(AUX_A, AUX_B),
        n_attacks=300,
        n_neighbors=5,
        seed=1,
    )
    inf = quiet(
        distance_inference,
        train,
        independent,
        threat=HEALTH_THREAT,
        holdout=control,
        n_attacks=300,
        seed=1,
    )
    for r in (so, lk, inf):
        assert abs(r.extra["risk_unclipped"]) < 0.15, (r.name, r.extra["risk_unclipped"])
        assert r.ci[0] == 0.0  # the interval includes "no risk"


def test_copy_as_release_and_as_control_warns_instead_of_failing(health):
    # Anonymeter #29/#32: copies everywhere drove the control rate to the top
    train = health[0]
    with pytest.warns(UntrustworthyResultWarning, match="every control target"):
        res = distance_inference(
            train, train.copy(), threat=HEALTH_THREAT, holdout=train.copy(), n_attacks=200, seed=0
        )
    assert res.value == pytest.approx(0.0) and np.isfinite(res.extra["risk_error"])


def test_fitted_size_correction_with_a_larger_control(health):
    train, control, _ = health
    small = train.iloc[:300]
    res = quiet(
        singling_out,
        small,
        small.copy(),
        threat=HEALTH_THREAT,
        holdout=control,
        mode="univariate",
        n_attacks=100,
        size_correction="fit",
        seed=0,
    )
    assert res.params["size_correction_applied"] == "fit"
    factor = res.params["control_correction_factor"]
    raw = res.records.loc[res.records["role"] == "control", "success"].sum()
    assert factor > 0 and factor != 1
    assert res.n_control_success == pytest.approx(raw * factor)
    assert 0 <= res.value <= 1 and res.extra["control_rate"] < 1
    sub = quiet(
        singling_out,
        small,
        small.copy(),
        threat=HEALTH_THREAT,
        holdout=control,
        mode="univariate",
        n_attacks=100,
        size_correction="subsample",
        seed=0,
    )
    assert sub.params["n_control_evaluated"] == sub.params["n_training_evaluated"] == 300
    # the default mixture reference keeps every row and reads a copy as a copy
    mix = quiet(
        singling_out,
        small,
        small.copy(),
        threat=HEALTH_THREAT,
        holdout=control,
        mode="univariate",
        n_attacks=100,
        seed=0,
    )
    assert mix.params["size_correction_applied"] == "mixture"
    assert mix.params["n_control_evaluated"] == 800 and mix.params["n_training_evaluated"] == 300
    assert mix.params["reference_control_share"] == 1.0
    assert mix.value > 0.9


def test_mixture_reference_probabilities_match_a_simulation():
    """The exact hypergeometric average equals the rate over random reference tables."""
    from privacy_core.risk.attacks.predicates.size_correction import reference_probabilities

    rng = np.random.default_rng(0)
    n_t, n_c = 60, 20
    c_t = np.array([0, 1, 1, 2, 5, 0, 3])
    c_c = np.array([1, 0, 1, 0, 0, 2, 1])
    p, rho = reference_probabilities(c_t, c_c, n_t, n_c)
    assert rho == pytest.approx(n_c / n_t)
    # simulate: training rows 0..c_t-1 match; R is a random (n_t - n_c)-subset of training
    hits = np.zeros(len(c_t))
    reps = 20000
    for _ in range(reps):
        take = rng.choice(n_t, size=n_t - n_c, replace=False)
        in_r = (take[:, None] < c_t[None, :]).sum(axis=0)
        hits += (in_r + c_c) == 1
    np.testing.assert_allclose(p, hits / reps, atol=0.01)
    # a control as large as training: a random n_t-subset of the control, exactly averaged
    p2, rho2 = reference_probabilities(c_t, np.array([1, 2, 0, 5, 10, 3, 1]), 10, 40)
    assert rho2 == 1.0
    sims = np.zeros(7)
    ctrl = np.array([1, 2, 0, 5, 10, 3, 1])
    for _ in range(reps):
        take = rng.choice(40, size=10, replace=False)
        sims += (take[:, None] < ctrl[None, :]).sum(axis=0) == 1
    np.testing.assert_allclose(p2, sims / reps, atol=0.01)


@pytest.mark.parametrize("rho", [0.25, 0.5, 0.8])
def test_undilute_inverts_the_mixture(rho):
    """R_M = rho R / (1 - (1 - rho) R) (the derivation in singling_out's Notes)."""
    from privacy_core.risk.attacks.common import undilute

    for r in np.linspace(0, 1, 11):
        r_m = rho * r / (1 - (1 - rho) * r)
        assert undilute(r_m, rho) == pytest.approx(r)
    assert undilute(-0.01, rho) == pytest.approx(-0.01 / rho)


def test_singling_out_copy_and_unseen_rows_with_a_small_control():
    """|T| > |C|: the old equal-size subsample read a copy of 3,000 rows as 0.31 (1,500
    control rows); the mixture reads it as a copy, and unseen rows as nothing."""
    from privacy_core.datasets import simulate_health

    real = simulate_health(6000, kappa=1, seed=3)
    train, pool, control = real.iloc[:3000], real.iloc[3000:4500], real.iloc[4500:]
    threat = pc.ThreatModel([c for c in real.columns if c != "disease"], ["disease"])
    for mode in ("univariate", "multivariate"):
        copy = quiet(
            singling_out,
            train,
            train.sample(frac=1, random_state=0),
            threat=threat,
            holdout=control,
            mode=mode,
            seed=0,
        )
        assert copy.value >= 0.95, (mode, copy.value)
        assert copy.params["reference_control_share"] == pytest.approx(0.5)
        unseen = quiet(singling_out, train, pool, threat=threat, holdout=control, mode=mode, seed=0)
        assert unseen.value <= 0.1 and unseen.ci[0] == 0.0, (mode, unseen.value, unseen.ci)


def test_paper_protocol_keeps_every_configuration_and_reports_the_highest(health):
    train, control, independent = health
    res = quiet(
        singling_out,
        train,
        train.sample(frac=0.5, random_state=1),
        threat=HEALTH_THREAT,
        holdout=control,
        mode="paper",
        seed=3,
    )
    assert isinstance(res, pred.SinglingOutProtocolResult)
    table = res.configuration_table()
    # univariate, then every width from 3 to the 6 health columns (the paper's 3-12, capped)
    assert list(table["label"]) == [
        "univariate",
        "3 columns",
        "4 columns",
        "5 columns",
        "6 columns",
    ]
    assert res.params["n_attacks"] == pred.PAPER_N_ATTACKS  # "auto" -> the papers' N_A
    assert res.value == pytest.approx(table["value"].max())
    best = table[table["reported"]]
    assert len(best) == 1 and best["label"].iloc[0] == res.params["reported_configuration"]
    # each configuration is a singling-out run of its own, with its own interval
    for row, cfg in zip(table.itertuples(), res.configurations, strict=True):
        assert row.value == pytest.approx(cfg.value)
        assert row.lower <= row.value <= row.upper
        # the simultaneous interval (Bonferroni over 5) is wider than the configuration's own
        assert row.simultaneous_lower <= row.lower and row.simultaneous_upper >= row.upper
    # the headline interval runs from the largest simultaneous lower end to the largest upper
    assert res.ci[0] == pytest.approx(table["simultaneous_lower"].max())
    assert res.ci[1] == pytest.approx(table["simultaneous_upper"].max())
    # a configuration that finds fewer predicates than asked is scored on those it found
    for cfg in res.configurations:
        assert cfg.n_attacks == min(cfg.params["n_queries"], pred.PAPER_N_ATTACKS)
    # re-reading at another level re-derives everything from the stored configurations
    wider = res.at(confidence=0.99)
    assert wider.ci[0] <= res.ci[0] and wider.ci[1] >= res.ci[1]
    assert wider.value == pytest.approx(
        max(c.at(confidence=0.99).value for c in res.configurations)
    )
    text = pred.describe_configuration(res)
    assert text.startswith("paper protocol: max over univariate and 3–6 columns = ")
    assert res.params["reported_configuration"] in text
    assert (
        pred.describe_configuration(
            quiet(singling_out, train, independent, threat=HEALTH_THREAT, holdout=control, seed=0)
        )
        == "multivariate, 3 columns, 500 attacks"
    )


def test_paper_protocol_reads_a_copy_as_1_and_unseen_rows_near_0():
    """The maximum over configurations is biased upwards when nothing leaks; its
    simultaneous interval must still reach 0 on unseen rows, and a copy must read 1."""
    from privacy_core.datasets import simulate_health

    real = simulate_health(6000, kappa=1, seed=3)
    train, pool, control = real.iloc[:3000], real.iloc[3000:4500], real.iloc[4500:]
    threat = pc.ThreatModel([c for c in real.columns if c != "disease"], ["disease"])
    copy = quiet(
        singling_out,
        train,
        train.sample(frac=1, random_state=0),
        threat=threat,
        holdout=control,
        mode="paper",
        seed=0,
    )
    assert copy.value >= 0.95 and copy.ci[0] >= 0.9
    unseen = quiet(singling_out, train, pool, threat=threat, holdout=control, mode="paper", seed=0)
    assert unseen.value <= 0.1 and unseen.ci[0] == 0.0, (unseen.value, unseen.ci)
    # the bias of the maximum: never below the configurations' own readings
    assert unseen.value >= max(c.value for c in unseen.configurations) - 1e-12
    with pytest.raises(ParameterError, match="auto"):
        singling_out(train, pool, threat=threat, n_attacks="many")


# ============================================================== ML inference
def test_ml_inference_relative_and_absolute_readings():
    rng = np.random.default_rng(0)
    n = 300

    def draw(n_rows):
        x = rng.uniform(0, 10, n_rows)
        return pd.DataFrame(
            {"x": x, "z": rng.uniform(0, 10, n_rows), "s": np.where(x < 5, "a", "b")}
        )

    train, holdout = draw(n), draw(n)
    threat = pc.ThreatModel(["x", "z"], ["s"])
    # the secret follows from x for everyone: accurate, but no member advantage (R6-R8)
    general = quiet(
        ml_inference,
        train,
        train.copy(),
        threat=threat,
        holdout=holdout,
        n_attacks=None,
        n_jobs=1,
        seed=0,
    )
    assert general.extra["absolute_score"] > 0.9 and general.extra["holdout_score"] > 0.9
    # the reported accuracies are the raw shares of right guesses, not Wilson centres
    rec = general.records
    for role, key in (("training", "absolute_score"), ("control", "holdout_score")):
        raw = rec.loc[rec["role"] == role, "success"].mean()
        assert general.extra[key] == raw and general.scores[role] == raw
    assert (
        general.rates().set_index("series").loc["training", "rate"]
        == general.extra["absolute_score"]
    )
    assert general.value < 0.1
    assert not general.assess(relative_threshold=0.1, absolute_threshold=0.5)
    assert general.baseline < 0.7  # random synthetic secrets are right about half the time
    # memorised noise: the secret is random, the release copies the members
    train["s"] = rng.choice(["a", "b"], n)
    holdout["s"] = rng.choice(["a", "b"], n)
    memorised = quiet(
        ml_inference,
        train,
        train.copy(),
        threat=threat,
        holdout=holdout,
        n_attacks=None,
        n_jobs=1,
        seed=0,
    )
    assert memorised.extra["absolute_score"] > 0.8
    assert memorised.value > 0.5 and memorised.ci[0] > 0.3
    assert memorised.assess(relative_threshold=0.1, absolute_threshold=0.6)
    assert len(memorised.records) == 2 * n
    assert set(memorised.records["role"]) == {"training", "control"}


def test_ml_inference_scores_are_raw_accuracies_by_hand():
    # 90/100 members, 60/100 non-members, 50/100 random guesses right.
    # Raw: r_T = 0.9, r_H = 0.6, risk = (0.9 - 0.6)/(1 - 0.6) = 0.75. The Wilson centres
    # (k + z²/2)/(n + z²) = 0.8852 and 0.5963 would give 0.7157 instead.
    from privacy_core.risk.attacks.common import MLInferenceResult

    shell = MLInferenceResult(
        name="ml_inference",
        value=float("nan"),
        ci=None,
        params={},
        n_attacks=100,
        n_success=90,
        n_control_attacks=100,
        n_control_success=60,
        n_baseline_attacks=100,
        n_baseline_success=50,
        kind="categorical",
    )
    res = shell.at(confidence=0.95)
    assert res.scores == {"training": 0.9, "control": 0.6, "baseline": 0.5}
    assert res.extra["absolute_score"] == 0.9 and res.extra["holdout_score"] == 0.6
    assert res.extra["attack_rate"] == 0.9 and res.baseline == 0.5
    assert res.extra["relative_risk"] == pytest.approx(0.75) and res.value == pytest.approx(0.75)
    # Wilson for the intervals only: each accuracy's interval is its Wilson interval, and
    # the risk's half-width propagates the two Wilson half-widths.
    (_, e_t), (_, e_h) = wilson_centre(90, 100), wilson_centre(60, 100)
    assert res.extra["attack_ci"] == pytest.approx(list(wilson_interval(90, 100)))
    assert res.extra["control_ci"] == pytest.approx(list(wilson_interval(60, 100)))
    half = control_baseline_error(0.9, e_t, 0.6, e_h)
    assert half == pytest.approx(np.hypot(e_t / 0.4, e_h * 0.1 / 0.16))
    assert res.ci == pytest.approx((0.75 - half, min(1.0, 0.75 + half)))
    rates = res.rates().set_index("series")
    assert rates.loc["training", "rate"] == 0.9
    assert rates.loc["training", ["lower", "upper"]].tolist() == pytest.approx(
        list(wilson_interval(90, 100))
    )
    # a perfect attack on members reads 1, not the Wilson centre's 0.963
    perfect = dataclasses.replace(shell, n_success=100, n_control_success=50).at()
    assert perfect.value == 1.0 and perfect.extra["absolute_score"] == 1.0
    # every non-member guessed right: the ratio is 0/0, read 0 with an uninformative upper end
    saturated = dataclasses.replace(shell, n_success=100, n_control_success=100).at()
    assert saturated.value == 0.0 and np.isnan(saturated.extra["relative_risk"])
    assert saturated.ci == (0.0, 1.0)
    lower_members = dataclasses.replace(shell, n_success=95, n_control_success=100).at()
    r_hi, h_lo = wilson_interval(95, 100)[1], wilson_interval(100, 100)[0]
    assert lower_members.value == 0.0
    assert lower_members.ci == pytest.approx((0.0, (r_hi - h_lo) / (1 - h_lo)))


def test_ml_inference_continuous_secret(health):
    train, control, _ = health
    res = quiet(
        ml_inference,
        train,
        train.copy(),
        threat=HEALTH_THREAT,
        holdout=control,
        secret="health",
        aux_cols=["age", "education", "gender", "income", "disease"],
        n_attacks=300,
        n_bootstrap=200,
        n_jobs=1,
        seed=0,
    )
    assert res.kind == "continuous" and res.params["score"] == "1 - RMSE/range"
    assert res.extra["absolute_score"] > res.extra["holdout_score"]
    assert 0 < res.value <= 1 and res.ci[0] <= res.value <= res.ci[1]
    assert "error" in res.records.columns
    rates = res.rates()
    assert rates["series"].tolist() == ["training", "control", "baseline"]
    assert (rates["lower"] <= rates["rate"]).all() and (rates["rate"] <= rates["upper"]).all()
    wider = res.at(confidence=0.99)
    assert wider.ci[1] - wider.ci[0] >= res.ci[1] - res.ci[0]


# ============================================================== seeds, records, errors
@pytest.mark.parametrize(
    "measure, kwargs",
    [
        (singling_out, {"n_attacks": 50}),
        (linkability, {"n_attacks": 100, "n_neighbors": 3}),
        (distance_inference, {"n_attacks": 100}),
        (ml_inference, {"n_attacks": 100, "n_jobs": 1}),
    ],
)
def test_same_seed_same_result_and_records_carry_input_labels(health, measure, kwargs):
    train, control, independent = health
    train = train.set_index(pd.Index(np.arange(len(train)) * 3 + 1000))
    a = quiet(measure, train, independent, threat=HEALTH_THREAT, holdout=control, seed=4, **kwargs)
    b = quiet(measure, train, independent, threat=HEALTH_THREAT, holdout=control, seed=4, **kwargs)
    assert a.value == b.value and a.ci == b.ci and a.baseline == b.baseline
    pd.testing.assert_frame_equal(a.records, b.records)
    assert a.params["seed"] == 4 and a.goal == "lower" and a.bounds == (0.0, 1.0)
    assert {"record", "role", "guess", "truth", "success"} <= set(a.records.columns)
    rec = a.records
    train_records = rec.loc[(rec["role"] == "training") & rec["record"].notna(), "record"]
    assert set(train_records) <= set(train.index)
    assert a.to_dict()["value"] == a.value and "records" not in a.to_dict()
    c = quiet(measure, train, independent, threat=HEALTH_THREAT, holdout=control, seed=5, **kwargs)
    assert not c.records.equals(a.records)


def test_without_holdout_the_absolute_rate_is_reported_with_a_warning(health):
    train, _, independent = health
    with pytest.warns(UntrustworthyResultWarning) as caught:
        res = distance_inference(train, independent, threat=HEALTH_THREAT, n_attacks=100, seed=0)
    assert any("No holdout" in str(w.message) for w in caught)
    assert res.params["control"] is False and res.n_control_success is None
    assert res.value == pytest.approx(res.extra["attack_rate"])
    assert set(res.records["role"]) == {"training"}


def test_an_attack_no_better_than_guessing_warns():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, 200)
    train = pd.DataFrame({"x": x.astype(float), "s": np.where(x == 1, "yes", "no")})
    # the release swaps the secret: the nearest record's secret is always wrong
    syn = train.assign(s=np.where(x == 1, "no", "yes"))
    with pytest.warns(UntrustworthyResultWarning, match="no better than its random-guess"):
        res = distance_inference(
            train,
            syn,
            threat=pc.ThreatModel(["x"], ["s"]),
            holdout=train.copy(),
            n_attacks=None,
            seed=0,
        )
    assert res.n_success == 0 and res.extra["baseline_rate"] > 0.3


@pytest.mark.parametrize(
    "call, error, match",
    [
        (
            lambda t, h, s: singling_out(t, s, threat=HEALTH_THREAT, holdout=h, n_attacks=0),
            ParameterError,
            "n_attacks",
        ),
        (
            lambda t, h, s: singling_out(t, s, threat=HEALTH_THREAT, holdout=h, mode="bivariate"),
            ParameterError,
            "mode",
        ),
        (
            lambda t, h, s: singling_out(t, s, threat=HEALTH_THREAT, holdout=h, n_cols=9),
            ParameterError,
            "n_cols",
        ),
        (
            lambda t, h, s: singling_out(t, s, threat=HEALTH_THREAT, columns=["nope"]),
            ThreatModelError,
            "nope",
        ),
        (
            lambda t, h, s: singling_out(t, [s, s], threat=HEALTH_THREAT, holdout=h),
            ParameterError,
            "one synthetic release",
        ),
        (
            lambda t, h, s: linkability(t, s, threat=HEALTH_THREAT, aux_cols=(["age"], ["age"])),
            ParameterError,
            "disjoint",
        ),
        (
            lambda t, h, s: linkability(t, s, threat=pc.ThreatModel(["age"], ["disease"])),
            ThreatModelError,
            "at least\ntwo|two",
        ),
        (
            lambda t, h, s: linkability(t, s.iloc[:3], threat=HEALTH_THREAT, n_neighbors=5),
            ParameterError,
            "n_neighbors",
        ),
        (
            lambda t, h, s: distance_inference(t, s, threat=HEALTH_THREAT, aux_cols=["disease"]),
            ThreatModelError,
            "also an auxiliary",
        ),
        (
            lambda t, h, s: distance_inference(t, s, threat=HEALTH_THREAT, tolerance=-1),
            ParameterError,
            "tolerance",
        ),
        (
            lambda t, h, s: ml_inference(t, s, threat=HEALTH_THREAT),
            InsufficientDataError,
            "holdout",
        ),
        (
            lambda t, h, s: ml_inference(t, s, threat=HEALTH_THREAT, holdout=h, seed=-1),
            ParameterError,
            "seed",
        ),
    ],
)
def test_bad_input_raises_the_documented_error(health, call, error, match):
    train, control, independent = health
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UntrustworthyResultWarning)
        with pytest.raises(error, match=match):
            call(train.iloc[:200], control.iloc[:200], independent.iloc[:200])


# ============================================================== figures
def test_attack_figures_show_training_control_and_baseline(health):
    from privacy_core.plots.privacy_attacks import (
        attack_rates_figure,
        attack_risk_figure,
        linkability_neighbors_figure,
    )

    train, control, _ = health
    so = quiet(
        singling_out,
        train,
        train.copy(),
        threat=HEALTH_THREAT,
        holdout=control,
        n_attacks=50,
        seed=0,
    )
    lk = quiet(
        linkability,
        train,
        train.copy(),
        threat=HEALTH_THREAT,
        holdout=control,
        aux_cols=(AUX_A, AUX_B),
        n_attacks=100,
        n_neighbors=3,
        seed=0,
    )
    no_control = quiet(
        distance_inference, train, train.copy(), threat=HEALTH_THREAT, n_attacks=100, seed=0
    )
    fig = attack_rates_figure([so, lk, no_control])
    assert [t.name for t in fig.data] == [
        "Attack on training records (members)",
        "Same attack on control records (non-members)",
        "Random guess",
    ]
    assert len(fig.data[0].x) == 3 and len(fig.data[1].x) == 2  # no control bar without one
    assert fig.data[0].y[0] == pytest.approx(so.extra["attack_rate"])
    assert fig.data[0].error_y.array[0] == pytest.approx(
        so.extra["attack_ci"][1] - so.extra["attack_rate"]
    )
    assert fig.layout.barmode == "group"
    risk = attack_risk_figure([so, lk])
    assert list(risk.data[0].x) == pytest.approx([so.value, lk.value])
    curve = linkability_neighbors_figure(lk)
    assert list(curve.data[1].x) == [1, 2, 3]


def test_informative_split_puts_identifying_columns_in_both_halves():
    from privacy_core.datasets import simulate_health
    from privacy_core.risk.attacks import informative_split

    real = simulate_health(1500, kappa=1, seed=2)
    cols = ["gender", "age", "education", "income", "health"]
    a, b = informative_split(real, cols)
    assert set(a) | set(b) == set(cols) and not set(a) & set(b)
    # the two continuous columns (unique per record) end up in different halves
    assert ("income" in a) != ("income" in b) and ("income" in a) != ("health" in a)
    # the old list-order split left one half (gender, age, education) unable to identify
    for half in (a, b):
        assert (~real[half].duplicated(keep=False)).mean() > 0.9


def test_inference_flags_count_only_hits_beyond_the_base_rate():
    from privacy_core.datasets import simulate_health
    from privacy_core.risk.agreement import record_flags
    from privacy_core.synth.leaky import leaky_release

    real = simulate_health(3000, kappa=1, seed=3)
    train, pool, control = real.iloc[:1000], real.iloc[1000:2000], real.iloc[2000:]
    threat = pc.ThreatModel([c for c in real.columns if c != "disease"], ["disease"])
    for f, most in ((0.0, False), (1.0, True)):
        rel = leaky_release(train, pool, leak_fraction=f, seed=1).release
        res = quiet(
            distance_inference, train, rel, threat=threat, holdout=control, n_attacks=None, seed=0
        )
        hits = int(((res.records["role"] == "training") & res.records["success"]).sum())
        flagged = int(record_flags({"inference": res}, train.index)["inference"].sum())
        if most:  # a copy: every hit came from the record's own row
            assert flagged >= 0.95 * hits
        else:  # unseen rows: hits are base-rate hits, only the ~5 % tail is flagged
            assert hits > 300 and flagged <= 0.1 * hits


@pytest.mark.parametrize("budget, path", [(1 << 10, "none"), (2 << 20, "pre-filter")])
def test_multivariate_predicates_do_not_depend_on_the_bit_index_budget(budget, path, monkeypatch):
    """The bit index only speeds up counting (issue 14: its budget bounds the memory
    near Anonymeter's): with no index or a row-subset pre-filter, the same predicates
    are kept, with the same risk, as with the exact index."""
    train = pc.simulate_health(3000, seed=1)
    control = pc.simulate_health(3000, seed=2)
    syn = pc.synthesize(pc.prepare_table(train, pc.infer_schema(train)), method="cart", seed=3)
    threat = pc.ThreatModel(["age", "education", "gender", "income", "health"], ["disease"])
    kw = dict(threat=threat, holdout=control, n_attacks=200, seed=4)
    exact = singling_out(train, syn, **kw)
    codes = np.vstack([np.unique(syn[c], return_inverse=True)[1] for c in syn.columns])
    fits = bit_index.BitIndex.rows_within(codes, budget)
    if path == "none":  # the budget does force the other path
        assert fits < bit_index.MIN_PREFILTER_ROWS
    else:
        assert bit_index.MIN_PREFILTER_ROWS <= fits < len(syn)
    monkeypatch.setattr(bit_index, "BITSET_BUDGET", budget)
    other = singling_out(train, syn, **kw)
    assert (other.value, other.ci) == (exact.value, exact.ci)
    assert list(other.records["query"]) == list(exact.records["query"])


def test_outlier_cell_prefilter_keeps_every_single_match(monkeypatch):
    # a 64-row sample index in front of a 1,000-row release: counts of 0 and 1 are exact,
    # anything else is reported as 2 or more
    monkeypatch.setattr(outlier_search, "CELL_SAMPLE_ROWS", 64)
    rng = np.random.default_rng(4)
    cell = rng.integers(0, 4, size=(6, 1000)).astype(np.int64)
    cells = outlier_search.CellBits(cell)
    assert cells.sample is not None and cells.step == 16
    targets = rng.integers(0, 1000, size=3000)
    targets[:50] = np.arange(0, 800, 16)  # targets inside the sample too
    for size in (2, 4, 6):
        cols = np.sort(np.argsort(rng.random((3000, 6)), axis=1)[:, :size], axis=1)
        exact = (cell[cols, targets[:, None]][:, :, None] == cell[cols]).all(axis=1).sum(axis=1)
        got = cells.counts(targets, cols)
        np.testing.assert_array_equal(got == 1, exact == 1)
        np.testing.assert_array_equal(got[exact <= 1], exact[exact <= 1])
        assert (got[exact >= 2] >= 2).all()
