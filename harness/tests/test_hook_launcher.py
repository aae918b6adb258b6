"""The hooks.json commands run ``hooks/run``, which runs the hook through ``hooks/launch.sh``,
which picks the Python: what a user notices when ``python3`` is missing, when the launcher
itself is missing (a plugin update in progress), and when the only ``python`` is not Python
3.9+; and the commands themselves, which Claude Code shows as written. Run by ``/bin/sh`` as Claude
Code runs hooks on Linux and macOS (the Windows side: ``tests/windows/``)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# What a command may hold: Claude Code shows PreCompact's and PostCompact's as written.
PLAIN_COMMAND = re.compile(r'"\$\{CLAUDE_PLUGIN_ROOT\}/hooks/run" [a-z_]+')


def commands(plugin: Path) -> dict[str, str]:
    config = json.loads((plugin / "hooks" / "hooks.json").read_text(encoding="utf-8"))
    return {
        hook["command"].split()[-1] + ".py": hook["command"]
        for groups in config["hooks"].values()
        for group in groups
        for hook in group["hooks"]
    }


def run_sh(command: str, env: dict, cwd: Path, stdin: bytes) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["/bin/sh", "-c", command],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=cwd,
        timeout=60,
        check=False,
    )


def start_payload(repo: Path) -> bytes:
    return json.dumps(
        {
            "session_id": "s1",
            "cwd": str(repo),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
    ).encode()


def test_only_python_on_path_still_prints_the_banner(mc_plugin, mc_env, mc_task, tmp_path):
    bin_dir = tmp_path / "only-python"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(shutil.which("python3") or sys.executable)
    env = {**mc_env.env, "PATH": str(bin_dir), "CLAUDE_PLUGIN_ROOT": str(mc_plugin)}
    done = run_sh(
        commands(mc_plugin)["session_start.py"], env, mc_task.repo, start_payload(mc_task.repo)
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert "## MissionCache: Active Task Detected" in out["hookSpecificOutput"]["additionalContext"]


def test_a_python_that_is_not_python_3_9_is_skipped(mc_plugin, mc_env, mc_task, tmp_path):
    """An old ``python`` (Python 2 on some systems) fails the probe; the next one is used."""
    bin_dir = tmp_path / "bins"
    bin_dir.mkdir()
    old = bin_dir / "python3"
    old.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    old.chmod(0o755)
    (bin_dir / "python").symlink_to(shutil.which("python3") or sys.executable)
    env = {
        **mc_env.env,
        "PATH": str(bin_dir),
        "OS": "Windows_NT",
        "CLAUDE_PLUGIN_ROOT": str(mc_plugin),
    }
    done = run_sh(
        commands(mc_plugin)["session_start.py"], env, mc_task.repo, start_payload(mc_task.repo)
    )
    assert json.loads(done.stdout)["systemMessage"].startswith("MissionCache: tracking demo-task")


@pytest.mark.parametrize("script", ["session_start.py", "activity_tracker.py", "pre_compact.py"])
def test_a_missing_launcher_never_blocks(mc_plugin, mc_env, tmp_path, script):
    """Mid-update the plugin folder may lack hooks/launch.sh: exit 0, never dash's exit 2."""
    half = tmp_path / "half-updated"
    shutil.copytree(mc_plugin, half)
    (half / "hooks" / "launch.sh").unlink()
    env = {**mc_env.env, "CLAUDE_PLUGIN_ROOT": str(half), "PATH": os.environ.get("PATH", "")}
    done = run_sh(commands(half)[script], env, tmp_path, b"{}")
    assert (done.returncode, done.stdout) == (0, b"")


def test_a_missing_hook_script_never_blocks(mc_plugin, mc_env, tmp_path):
    half = tmp_path / "half-updated"
    shutil.copytree(mc_plugin, half)
    (half / "hooks" / "stop.py").unlink()
    env = {**mc_env.env, "CLAUDE_PLUGIN_ROOT": str(half)}
    done = run_sh(commands(half)["stop.py"], env, tmp_path, b"{}")
    assert (done.returncode, done.stdout) == (0, b"")


def test_every_command_is_short_and_holds_no_shell_code(mc_plugin):
    """The person reads ``PreCompact [<command>] completed successfully: ...`` on every
    /compact (and Claude gets that line on later turns): the launcher, no ``||``, no
    variable assignment, no shell code but the plugin root."""
    for command in commands(mc_plugin).values():
        assert PLAIN_COMMAND.fullmatch(command), command
        assert len(command) <= 50


def test_a_missing_run_never_blocks(mc_plugin, mc_env, tmp_path):
    """A plugin folder removed under a running session: the shell's exit 127 ("not
    found"), which Claude Code reports without blocking, never exit 2."""
    half = tmp_path / "half-updated"
    shutil.copytree(mc_plugin, half)
    (half / "hooks" / "run").unlink()
    env = {**mc_env.env, "CLAUDE_PLUGIN_ROOT": str(half)}
    done = run_sh(commands(half)["pre_compact.py"], env, tmp_path, b"{}")
    assert (done.returncode, done.stdout) == (127, b"")


def test_a_plugin_path_with_spaces_runs_the_hook(mc_plugin, mc_env, mc_task, tmp_path):
    spaced = tmp_path / "Program Files" / "mission cache"
    shutil.copytree(mc_plugin, spaced)
    env = {**mc_env.env, "CLAUDE_PLUGIN_ROOT": str(spaced)}
    done = run_sh(
        commands(spaced)["session_start.py"], env, mc_task.repo, start_payload(mc_task.repo)
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["systemMessage"].startswith("MissionCache: tracking demo-task")
