"""Agreement view: reasons for undefined agreement cells, the default shortlist, and the
heatmap that shows them (issue 13, item 12)."""

import numpy as np
import pandas as pd
import pytest

import privacy_core as pc
from privacy_core.plots import flag_agreement_heatmap


@pytest.fixture
def flags():
    frame = pd.DataFrame(
        {
            "rapid": [True, True, False, True, False, False],
            "dcr": [True, False, False, True, False, True],
            "linkability": [False] * 6,  # flags no record
            "ims": [True] * 6,  # flags every record
        },
        index=pd.Index([10, 11, 12, 13, 14, 15], name="record"),
    )
    frame["n_flags"] = frame.sum(axis=1)
    return frame.sort_values("n_flags", ascending=False, kind="stable")


def test_every_undefined_agreement_cell_has_a_reason(flags):
    phi = pc.flag_agreement(flags)
    reasons = pc.flag_agreement_reasons(flags)
    assert list(reasons.index) == list(phi.index) and list(reasons.columns) == list(phi.columns)
    undefined = phi.isna().to_numpy()
    assert undefined.any()
    # a reason exactly where phi is undefined
    assert ((reasons.to_numpy() != "") == undefined).all()
    assert reasons.loc["linkability", "rapid"] == (
        "linkability flags no record, so agreement is undefined"
    )
    assert reasons.loc["ims", "ims"] == "ims flags every record, so agreement is undefined"
    assert reasons.loc["linkability", "ims"] == (
        "linkability flags no record and ims flags every record, so agreement is undefined"
    )


def test_heatmap_shows_na_with_the_reason_never_nan(flags):
    fig = flag_agreement_heatmap(pc.flag_agreement(flags), pc.flag_agreement_reasons(flags))
    heat = fig.data[0]
    cols = list(heat.x)
    i, j = cols.index("linkability"), cols.index("rapid")
    assert heat.text[i][j] == "n/a"
    assert heat.customdata[i][j] == "linkability flags no record, so agreement is undefined"
    assert "customdata" in heat.hovertemplate
    k = cols.index("dcr")
    assert heat.text[j][k] == f"{pc.flag_agreement(flags).loc['rapid', 'dcr']:.2f}"
    assert not any("nan" in str(t).lower() for row in heat.text for t in row)
    # without reasons the cell still says it is undefined
    bare = flag_agreement_heatmap(pc.flag_agreement(flags)).data[0]
    assert bare.customdata[i][j] == "agreement is undefined"


def test_default_shortlist_is_records_flagged_by_at_least_two_measures(flags):
    short = pc.flag_shortlist(flags)
    assert (short["n_flags"] >= 2).all()
    assert set(short.index) == set(flags.index[flags["n_flags"] >= 2])
    assert list(short["n_flags"]) == sorted(short["n_flags"], reverse=True)
    assert short.index[0] in (10, 13)  # flagged by rapid, dcr and ims
    every = pc.flag_shortlist(flags, min_flags=1)
    assert len(every) == int((flags["n_flags"] >= 1).sum()) > len(short)
    with pytest.raises(pc.ParameterError, match="min_flags"):
        pc.flag_shortlist(flags, min_flags=0)


def test_record_flags_on_no_measure_is_empty():
    out = pc.record_flags({}, [1, 2, 3])
    assert list(out.columns) == ["n_flags"] and (out["n_flags"] == 0).all()
    assert np.isnan(pc.flag_agreement(out).to_numpy()).size == 0
