"""The operator's settings (issue 32, ui/deployment.py): read from the server's command
line, then its environment, then Streamlit's secrets, then the default; a value out of
range is refused with the setting's name, never guessed. The default history is in the
user's data folder."""

from __future__ import annotations

import pytest

import privacy_core as pc
from ui.deployment import MAX_JOBS_RANGE, read_settings


def test_the_defaults():
    d = read_settings(argv=[], environ={}, secrets={}, auth=False)
    assert d.history_url == pc.history.default_url()
    assert d.team_visible is False and d.sign_in is False
    assert MAX_JOBS_RANGE[0] <= d.max_jobs <= MAX_JOBS_RANGE[1]


def test_command_line_beats_environment_beats_secrets():
    secrets = {"history_db": "sqlite:///s.db", "team_visible": True, "max_jobs": 3}
    env = {"PRIVACY_REVIEW_DB": "sqlite:///e.db", "PRIVACY_REVIEW_MAX_JOBS": "5"}
    d = read_settings(argv=[], environ={}, secrets=secrets, auth=True)
    assert (d.history_url, d.team_visible, d.max_jobs, d.sign_in) == (
        "sqlite:///s.db",
        True,
        3,
        True,
    )
    d = read_settings(argv=[], environ=env, secrets=secrets)
    assert (d.history_url, d.max_jobs) == ("sqlite:///e.db", 5)
    assert d.source["history_db"] == "PRIVACY_REVIEW_DB"
    d = read_settings(
        argv=["--history-db", "sqlite:///c.db", "--max-jobs", "7", "--team-visible"],
        environ=env,
        secrets={},
    )
    assert (d.history_url, d.max_jobs, d.team_visible) == ("sqlite:///c.db", 7, True)
    assert d.source["max_jobs"] == "--max-jobs"


@pytest.mark.parametrize(
    "env, message",
    [
        (
            {"PRIVACY_REVIEW_MAX_JOBS": "0"},
            r"PRIVACY_REVIEW_MAX_JOBS must be a whole number in \[1, 256\]",
        ),
        ({"PRIVACY_REVIEW_MAX_JOBS": "many"}, "got 'many'"),
        ({"PRIVACY_REVIEW_MAX_JOBS": "1e9"}, "whole number"),
        (
            {"PRIVACY_REVIEW_TEAM_VISIBLE": "perhaps"},
            "PRIVACY_REVIEW_TEAM_VISIBLE must be true or false",
        ),
    ],
)
def test_a_bad_setting_is_refused_by_name(env, message):
    with pytest.raises(pc.ParameterError, match=message):
        read_settings(argv=[], environ=env, secrets={})


@pytest.mark.parametrize(
    "argv, visible",
    [
        (["--team-visible"], True),
        (["--team-visible", "false"], False),
        (["--team-visible=no"], False),
        (["--team-visible", "true"], True),
    ],
)
def test_the_team_visible_flag_takes_an_optional_value(argv, visible):
    assert read_settings(argv=argv, environ={}, secrets={}).team_visible is visible


def test_no_abbreviations_and_no_exit_on_a_bad_command_line():
    d = read_settings(argv=["--team", "--max", "9"], environ={}, secrets={})
    assert d.team_visible is False and d.source["max_jobs"].startswith("default")
    with pytest.raises(pc.ParameterError, match="the server's command line"):
        read_settings(argv=["--max-jobs"], environ={}, secrets={})


def test_unreadable_secrets_stop_the_server_instead_of_switching_sign_in_off(monkeypatch):
    import ui.deployment as dep

    class Broken:
        def get(self, name):
            raise ValueError("Invalid TOML at line 3")

    monkeypatch.setattr(dep.st, "secrets", Broken())
    with pytest.raises(pc.ParameterError, match="secrets cannot be read .*Invalid TOML"):
        read_settings(argv=[], environ={})
