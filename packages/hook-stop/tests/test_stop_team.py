"""Stop and the team's push (docs/team.md): a detached push after the turn, and a server
out of reach told once, at a later Stop, not at every turn."""

from __future__ import annotations

import json

import pytest

from missioncache_harness.polling import poll_until
from missioncache_harness.transcript import SAMPLE_TRANSCRIPT


@pytest.fixture
def stop(mc_hook):
    def run():
        payload = {
            "session_id": "sess-team",
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "transcript_path": str(SAMPLE_TRANSCRIPT),
            "last_assistant_message": "Done.",
        }
        return mc_hook(payload)

    return run


def _message(done) -> str:
    return json.loads(done.stdout).get("systemMessage", "") if done.stdout.strip() else ""


def test_a_server_out_of_reach_is_told_once(stop, mc_env, mc_task) -> None:
    team = mc_env.data_root / "team"
    team.mkdir()
    settings = {"url": "postgresql://127.0.0.1:1/team?connect_timeout=1", "person": "alice"}
    (team / "config.json").write_text(json.dumps(settings))

    first = stop()
    assert "team" not in _message(first)  # the push runs after the hook is gone
    assert poll_until(lambda: (team / "notice.txt").is_file(), timeout=240, step=0.2)
    status = json.loads((team / "status.json").read_text())
    assert status["error"] and status["waiting"] > 0  # the figures wait on the laptop

    assert "team's server was not reached" in _message(stop())
    assert "team's server" not in _message(stop())  # told once


def test_no_team_no_push(stop, mc_env) -> None:
    stop()
    assert not (mc_env.data_root / "team").exists()
