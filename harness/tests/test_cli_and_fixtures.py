"""The command line, the shared fixtures and the demo."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from missioncache_harness import demo
from missioncache_harness.cli import main
from missioncache_harness.plugin import strict_check
from missioncache_harness.probes import read_log, write_plugin
from missioncache_harness.workspace import make_env


def test_fire_prints_each_hook_and_its_route(sim, capsys):
    root = sim.plugin(
        {"UserPromptSubmit": ["A", "B"]},
        {"A": {"stdout": "ctx"}, "B": {"stderr": "no way", "exit": 2}},
    )
    args = ["fire", "UserPromptSubmit", "--plugin", str(root), "--prompt", "hi"]
    assert main([*args, "--cwd", str(sim.project), "--home", str(sim.env.home)]) == 0
    out = capsys.readouterr().out
    assert "UserPromptSubmit: 2 hook(s)" in out
    assert "exit 0" in out and "exit 2" in out
    assert "  model sees: UserPromptSubmit hook success: ctx" in out.splitlines()
    assert "  a hook asks to block (exit 2): real CLI only, not simulated" in out.splitlines()


def test_fire_with_a_payload_file(sim, capsys, tmp_path):
    """The payload file's fields go over the common ones, on the hook's stdin."""
    root = sim.plugin({"Stop": ["A"]}, {"A": {"json": {"systemMessage": "M"}}})
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"stop_hook_active": True, "last_assistant_message": "x"}))
    argv = ["fire", "Stop", "--plugin", str(root), "--payload", f"@{payload}"]
    assert main([*argv, "--cwd", str(sim.project), "--home", str(sim.env.home)]) == 0
    assert "  human sees: ⎿  Stop says: M" in capsys.readouterr().out.splitlines()
    (entry,) = read_log(root)
    assert entry["stdin"]["stop_hook_active"] is True
    assert entry["stdin"]["hook_event_name"] == "Stop"


def test_fire_runs_as_a_process(sim):
    root = sim.plugin({"SessionStart": ["A"]}, {"A": {"stdout": "hello {EV}"}})
    command = [sys.executable, "-m", "missioncache_harness.cli", "fire", "SessionStart"]
    done = subprocess.run(
        [*command, "--plugin", str(root), "--source", "resume", "--cwd", str(sim.project)],
        env=sim.env.env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "model sees: SessionStart:resume hook success: hello SessionStart" in done.stdout


def test_check_fails_on_warnings(tmp_path, capsys):
    bad = write_plugin(tmp_path / "bad", {"OnStop": []})
    assert main(["check", str(bad)]) == 1
    assert "event not simulated by the harness" in capsys.readouterr().out
    good = write_plugin(
        tmp_path / "good", {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}
    )
    assert main(["check", str(good)]) == 0


def test_the_suite_runs_in_an_afternoon_time_zone():
    """Fixtures that put work at "today, 09:00" need that hour to be past, at any hour of
    the day the suite starts; a subprocess inherits the zone."""
    import os
    import time

    assert os.environ["TZ"].startswith("MCT")
    assert 12 <= time.localtime().tm_hour <= 14
    child = subprocess.run(
        [sys.executable, "-c", "import time; print(time.localtime().tm_hour)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert 12 <= int(child.stdout) <= 14


def test_mc_env_isolates_home(mc_env):
    assert mc_env.claude_dir == mc_env.home / ".claude" and mc_env.claude_dir.is_dir()
    assert mc_env.data_root.is_dir()
    assert mc_env.env["HOME"] == str(mc_env.home)
    assert mc_env.env["CLAUDE_CONFIG_DIR"] == str(mc_env.claude_dir)
    assert mc_env.env["MISSIONCACHE_ROOT"] == str(mc_env.data_root)
    assert mc_env.env["PATH"]


def test_make_env_drops_the_developers_claude_state(tmp_path):
    base = {
        "PATH": "/bin",
        "CLAUDE_CODE_SESSION_ID": "x",
        "MISSIONCACHE_ROOT": "/real",
        "ANTHROPIC_API_KEY": "sk-the-developers-own",
        "TERM_SESSION_ID": "w0t0p0:real",
        "KEEP": "1",
    }
    env = make_env(tmp_path, base).env
    assert "CLAUDE_CODE_SESSION_ID" not in env and env["KEEP"] == "1"
    assert "ANTHROPIC_API_KEY" not in env and "TERM_SESSION_ID" not in env
    assert env["MISSIONCACHE_ROOT"] == str(tmp_path / "home" / ".missioncache")


def test_tracked_repo_is_a_plain_directory(mc_repo):
    assert mc_repo.is_dir() and mc_repo.is_absolute()
    assert not (mc_repo / ".git").exists()


def test_built_plugin_passes_the_strict_check(mc_plugin):
    assert strict_check(mc_plugin) == []


def test_mc_task_is_created_through_the_plugin(mc_task, mc_env, mc_repo):
    assert mc_task.repo == mc_repo
    assert isinstance(mc_task.id, int)
    assert (mc_env.data_root / "active" / "demo-task").is_dir()


def test_demo_plays_against_the_built_plugin(mc_plugin, tmp_path, capsys):
    assert demo.play(tmp_path, mc_plugin) == 0
    out = capsys.readouterr().out
    assert "== Time recorded" in out
    assert "missioncache time: demo-task: " in out
    # The demo's turn really ran its command, and you really read before the next prompt.
    recorded = re.search(r"missioncache time: demo-task: .*\(Claude (\d+)s, you (\d+)s\)", out)
    assert recorded, out
    assert int(recorded[1]) >= demo.CLAUDE_SECONDS and int(recorded[2]) >= demo.READING_SECONDS
    assert "Claude is told: ## MissionCache: Active Task Detected" in out  # (issue 26 wording)
