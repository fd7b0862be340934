"""Data page: the sampling-weight column (issue 34), chosen with the threat model.

Wrong implementations these catch: a select whose choice never reaches the threat model
(individual risk keeps its unweighted value and its card says nothing of weights); a
choice kept in the widget only (the sidebar and the workspace do not name it); a bad
column accepted, or refused with a message of the page's own instead of the engine's,
or refused by dropping the quasi-identifiers the user had applied; an upload whose
releases lack the weight column refused although the column is declared.
"""

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from small_demo import small_app
from streamlit.testing.v1 import AppTest

import privacy_core as pc

APP = str(Path(__file__).resolve().parents[2] / "app.py")
LABEL = "Sampling-weight column (optional)"
RISK = "Individual risk reproduced"


def csv_bytes(frame: pd.DataFrame) -> bytes:
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    return buf.getvalue().encode()


def weight_select(at: AppTest):
    return next(s for s in at.selectbox if s.label == LABEL)


def apply_threat(at: AppTest) -> None:
    at.button(key="FormSubmitter:threat_form-Apply threat model").click().run()
    assert not at.exception, at.exception


def privacy_page(at: AppTest) -> tuple[float, str]:
    """The individual-risk card's value and the captions of the Privacy page."""
    at.switch_page("pages/privacy.py")
    at.run()
    assert not at.exception, at.exception
    value = float(next(m for m in at.metric if m.label == RISK).value)
    return value, " ".join(c.value for c in at.caption)


def sidebar(ws) -> str | None:
    """The sidebar's line naming the weight column, as the summary draws it for ``ws``
    (AppTest runs a page without app.py's sidebar after ``switch_page``)."""

    def script(ws) -> None:
        from ui.widgets import sidebar_summary

        sidebar_summary(ws)

    at = AppTest.from_function(script, args=(ws,), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    lines = [m.value for m in at.sidebar.markdown if "weights" in m.value]
    return lines[0] if lines else None


@pytest.fixture()
def demo() -> AppTest:
    at = small_app(APP, 300)
    at.run()
    # only the measure under test on the Privacy page (the others take minutes here)
    at.session_state["privacy_fast"] = ["individual_risk"]
    return at


def test_choosing_a_weight_column_recomputes_individual_risk_with_it(demo):
    at = demo
    before, captions = privacy_page(at)
    assert "Sampling weights" not in captions
    at.switch_page("pages/data.py")
    at.run()
    select = weight_select(at)
    # numeric columns that are neither quasi-identifiers nor sensitive, none by default
    assert select.options == ["none: every record stands for itself", "income", "health"]
    assert select.value is None
    select.set_value("health")
    apply_threat(at)
    assert not at.error, [e.value for e in at.error]
    ws = at.session_state["workspace"]
    assert ws.weights == "health" and ws.threat.weights == "health"
    assert ws.quasi_identifiers == ("age", "education", "gender")
    assert "health" not in ws.schema.included  # out of every other measure
    assert sidebar(ws) == "**Sampling weights:** `health`"
    assert sidebar(ws.with_weights(None)) is None
    after, captions = privacy_page(at)
    assert "Sampling weights: `health` (F_k sums them)." in captions  # params["weights"]
    assert after != before


def test_a_bad_weight_column_shows_the_engines_error_and_keeps_the_threat_model():
    rng = np.random.default_rng(4)
    real = pc.simulate_health(300, seed=4).assign(w=rng.uniform(0.1, 0.9, 300).round(2))
    release = pc.simulate_health(300, seed=5).assign(w=rng.uniform(0.1, 0.9, 300).round(2))
    at = small_app(APP, 300)
    at.run()
    at.switch_page("pages/data.py")
    at.run()
    at.file_uploader[0].set_value(("real.csv", csv_bytes(real), "text/csv"))
    at.file_uploader[1].set_value([("syn.csv", csv_bytes(release), "text/csv")])
    at.button(key="FormSubmitter:upload_form-Use these files").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    before = at.session_state["workspace"]
    assert "w" in weight_select(at).options
    weight_select(at).set_value("w")
    apply_threat(at)
    with pytest.raises(pc.ThreatModelError) as engine:
        pc.ThreatModel(["age"], ["disease"], weights="w").validate_weights(real)
    assert [e.value for e in at.error] == [str(engine.value)]
    ws = at.session_state["workspace"]
    assert ws.weights is None and ws.key == before.key
    assert ws.quasi_identifiers == before.quasi_identifiers and ws.sensitive == ("disease",)


def test_an_upload_declares_the_weight_column_its_releases_lack():
    rng = np.random.default_rng(6)
    real = pc.simulate_health(300, seed=4).assign(w=rng.uniform(1, 90, 300).round(1))
    release = pc.simulate_health(300, seed=5)  # no weight column
    at = small_app(APP, 300)
    at.run()
    at.switch_page("pages/data.py")
    at.run()
    at.file_uploader[0].set_value(("real.csv", csv_bytes(real), "text/csv"))
    at.file_uploader[1].set_value([("syn.csv", csv_bytes(release), "text/csv")])
    next(t for t in at.text_input if t.label.startswith("Sampling-weight column")).set_value("w")
    at.button(key="FormSubmitter:upload_form-Use these files").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ws = at.session_state["workspace"]
    assert ws.dataset == "upload" and ws.weights == "w"
    assert "w" not in ws.quasi_identifiers  # never suggested: it is excluded
    assert weight_select(at).value == "w"
