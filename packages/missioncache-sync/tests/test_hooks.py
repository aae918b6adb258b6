"""The hooks with sync set up: SessionStart never waits for the remote, and what sync has
to say reaches the human once (docs/sync.md)."""

from __future__ import annotations

import json
import os

import pytest

from missioncache_harness.polling import poll_until

SID = "sess-sync"


@pytest.fixture
def mc_hook_script() -> str:
    return "session_start.py"


def start(mc_hook, **options):
    payload = {"session_id": SID, "hook_event_name": "SessionStart", "source": "startup"}
    return mc_hook(payload, **options)


def status(mc_env) -> dict:
    path = mc_env.data_root / "sync" / "status.json"
    return json.loads(path.read_text()) if path.exists() else {}


def set_up(mc_env, mc_plugin, url: str, env: dict | None = None) -> None:
    done = mc_env.run(
        [*_cli(mc_plugin), "sync", "setup", url], env={**mc_env.with_lib(mc_plugin), **(env or {})}
    )
    assert done.returncode == 0, done.stderr


def _cli(mc_plugin) -> list[str]:
    from missioncache_harness.workspace import python3

    return [python3(), str(mc_plugin / "bin" / "missioncache")]


def test_session_start_does_not_wait_for_a_remote_that_hangs(
    mc_hook, mc_env, mc_plugin, mc_task, tmp_path
):
    hang = tmp_path / "hanging-ssh"
    hang.write_text("#!/bin/sh\nexec sleep 600\n")
    hang.chmod(0o755)
    env = {"GIT_SSH_COMMAND": str(hang)}
    set_up(mc_env, mc_plugin, "ssh://git.example.invalid/notes.git", env)
    assert status(mc_env)["ok"] is False  # setup itself could not reach it (it timed out)
    os.unlink(mc_env.data_root / "sync" / "status.json")
    done = start(mc_hook, env=env)
    assert done.json["systemMessage"].startswith("MissionCache: tracking demo-task")
    # The pull ran in the detached child, bounded: it gave up on the remote by itself.
    final = poll_until(lambda: status(mc_env) or None, timeout=60)
    assert "took longer than 1.5 s" in final["error"]


def test_an_unreachable_remote_is_told_once(mc_hook, mc_env, mc_plugin, mc_task, tmp_path):
    set_up(mc_env, mc_plugin, str(tmp_path / "no-such-remote.git"))
    before = status(mc_env)["at"]
    first = start(mc_hook).json["systemMessage"]
    assert "sync: the remote was not reached" in first  # setup's own failure, queued for here
    # the first start's own sync fails again, and is not told again
    poll_until(lambda: status(mc_env).get("at", 0) > before and not _locked(mc_env), timeout=60)
    second = start(mc_hook).json["systemMessage"]
    assert "sync" not in second.split(")", 1)[1]
    assert "the last sync did not reach the remote" in _doctor(mc_env, mc_plugin)


def _locked(mc_env) -> bool:
    return (mc_env.data_root / "sync" / "sync.lock").exists()


def _doctor(mc_env, mc_plugin) -> str:
    done = mc_env.run([*_cli(mc_plugin), "doctor"], env=mc_env.with_lib(mc_plugin))
    return done.stdout
