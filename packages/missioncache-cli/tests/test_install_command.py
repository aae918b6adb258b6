"""``missioncache --help`` lists people's commands, and ``missioncache install-command``
makes the ``missioncache ...`` the messages print work in a terminal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run(argv: list, env: dict, path: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        argv,
        env={**env, "PATH": path},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def plugin_command(plugin: Path) -> list:
    return [sys.executable, str(plugin / "bin" / "missioncache")]


def test_help_lists_peoples_commands_only(mc_plugin, mc_env):
    done = run([*plugin_command(mc_plugin), "--help"], mc_env.env, os.environ["PATH"])
    assert done.returncode == 0, done.stderr
    assert "heartbeat-auto" not in done.stdout and "process-heartbeats" not in done.stdout
    assert "MissionCache tasks, heartbeats and time." not in done.stdout
    listed = {line.split()[0] for line in done.stdout.splitlines() if line.startswith("    ")}
    assert {"create-task", "time", "report", "fork", "dashboard", "install-command"} <= listed


def test_install_command_puts_missioncache_on_path(mc_plugin, mc_env, tmp_path):
    folder = tmp_path / "bin"
    path = os.pathsep.join([str(folder), os.path.dirname(sys.executable), "/usr/bin", "/bin"])
    done = run([*plugin_command(mc_plugin), "install-command", "--dir", str(folder)],
               mc_env.env, path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"installed {folder / 'missioncache'}" in done.stdout
    assert "not on your PATH" not in done.stdout
    listed = run(["missioncache", "create-task", "demo"], mc_env.env, path)
    assert listed.returncode == 0 and "created active/demo" in listed.stdout, listed.stderr
    again = run(["missioncache", "install-command", "--dir", str(folder)], mc_env.env, path)
    assert again.returncode == 0, again.stderr  # its own launcher: replaced, not refused


def test_install_command_says_when_the_folder_is_not_on_path(mc_plugin, mc_env, tmp_path):
    folder = tmp_path / "elsewhere"
    done = run([*plugin_command(mc_plugin), "install-command", "--dir", str(folder)],
               mc_env.env, "/usr/bin:/bin")  # fmt: skip
    assert f"{folder} is not on your PATH" in done.stdout


def test_install_command_leaves_a_strangers_file_alone(mc_plugin, mc_env, tmp_path):
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "missioncache").write_text("#!/bin/sh\necho mine\n")
    done = run([*plugin_command(mc_plugin), "install-command", "--dir", str(folder)],
               mc_env.env, "/usr/bin:/bin")  # fmt: skip
    assert done.returncode == 1 and "leaving it alone" in done.stderr
    assert (folder / "missioncache").read_text() == "#!/bin/sh\necho mine\n"


def test_print_gives_the_full_command(mc_plugin, mc_env):
    done = run([*plugin_command(mc_plugin), "install-command", "--print"], mc_env.env, "/bin")
    assert done.stdout.strip() == str(mc_plugin / "bin" / "missioncache")
