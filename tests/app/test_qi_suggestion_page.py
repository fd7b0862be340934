"""Data page: an upload starts from the suggested quasi-identifiers (issue 13, item 8)."""

import io
from pathlib import Path

import pandas as pd
from small_demo import small_app
from streamlit.testing.v1 import AppTest

import privacy_core as pc

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SUGGESTED = ("gender", "age", "education")


def csv_bytes(frame: pd.DataFrame) -> bytes:
    buf = io.StringIO()
    frame.to_csv(buf, index=False)
    return buf.getvalue().encode()


def uploaded_health() -> AppTest:
    at = small_app(APP, 240)
    at.run()
    at.switch_page("pages/data.py")
    at.run()
    at.file_uploader[0].set_value(
        ("real.csv", csv_bytes(pc.simulate_health(300, seed=4)), "text/csv")
    )
    at.file_uploader[1].set_value(
        [("syn.csv", csv_bytes(pc.simulate_health(300, seed=5)), "text/csv")]
    )
    at.button(key="FormSubmitter:upload_form-Use these files").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def multiselect(at: AppTest, label: str):
    return next(m for m in at.multiselect if m.label.startswith(label))


def apply_threat(at: AppTest, qis: list[str] | None = None, sens: list[str] | None = None):
    if qis is not None:
        multiselect(at, "Quasi-identifiers").set_value(qis)
    if sens is not None:
        multiselect(at, "Sensitive attribute").set_value(sens)
    at.button(key="FormSubmitter:threat_form-Apply threat model").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]


def test_upload_defaults_to_the_suggestion_and_explains_it():
    at = uploaded_health()
    ws = at.session_state["workspace"]
    assert ws.sensitive == ("disease",)
    assert ws.quasi_identifiers == SUGGESTED
    info = " ".join(i.value for i in at.info)
    assert "Suggested quasi-identifiers: gender, age, education" in info
    assert "income and health were left out because they are continuous measurements" in info
    assert multiselect(at, "Quasi-identifiers").value == list(SUGGESTED)
    # must not happen: the button offering what is already in use
    assert at.button(key="use_qi_suggestion").disabled


def test_use_the_suggestion_restores_it_after_a_change():
    at = uploaded_health()
    apply_threat(at, qis=["age", "income"])
    assert at.session_state["workspace"].quasi_identifiers == ("age", "income")
    button = at.button(key="use_qi_suggestion")
    assert not button.disabled
    button.click().run()
    assert not at.exception
    assert at.session_state["workspace"].quasi_identifiers == SUGGESTED
    assert multiselect(at, "Quasi-identifiers").value == list(SUGGESTED)


def test_changing_the_sensitive_column_follows_the_suggestion_until_qis_are_edited():
    at = uploaded_health()
    apply_threat(at, sens=["education"])
    ws = at.session_state["workspace"]
    assert ws.sensitive == ("education",) and ws.quasi_identifiers == ("gender", "age")
    # once the user has chosen their own quasi-identifiers, a new target leaves them alone
    apply_threat(at, qis=["age", "health"])
    apply_threat(at, sens=["disease"])
    assert at.session_state["workspace"].quasi_identifiers == ("age", "health")


def test_builtin_dataset_keeps_its_documented_threat_model():
    at = small_app(APP, 240)
    at.run()
    at.switch_page("pages/data.py")
    at.run()
    assert not at.exception
    assert at.session_state["workspace"].dataset != "upload"
    assert not any("Suggested quasi-identifiers" in i.value for i in at.info)
    assert not [b for b in at.button if b.key == "use_qi_suggestion"]
