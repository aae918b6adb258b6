"""``missioncache statusline install|uninstall`` on a real settings.json, through the
BUILT plugin's bundled command line, with ``CLAUDE_CONFIG_DIR`` pointing at a temp dir."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from missioncache_harness import payloads
from missioncache_harness.statusline import run_status_line
from missioncache_harness.workspace import python3

SID = "9a8b7c6d-0000-4000-8000-000000000001"
ORIGINAL = (
    b'{\n    "permissions": {"allow": ["Bash(ls:*)"], "deny": []},\n'
    b'    "env": {"GREETING": "gr\\u00fc\\u00df dich \xe2\x9c\x93"},\n'
    b'    "hooks": {},\n    "model": "opus",\n    "z_last": [1, 2.50, null, true]\n}'
)


@pytest.fixture
def cli(mc_plugin, mc_env):
    def run(*args, plugin=None, expect=0):
        env = dict(mc_env.env, PYTHONPATH=str((plugin or mc_plugin) / "lib"))
        done = mc_env.run([python3(), "-m", "missioncache_cli", "statusline", *args], env=env)
        assert done.returncode == expect, (done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
        return done.stdout + done.stderr

    return run


@pytest.fixture
def settings(mc_env) -> Path:
    return mc_env.claude_dir / "settings.json"


def _status_command(settings: Path) -> str:
    return json.loads(settings.read_text())["statusLine"]["command"]


def _show(mc_env, repo, settings: Path) -> str:
    """What Claude Code would show for the installed command (the status-line simulator:
    ``/bin/sh -c``, stdin JSON, COLUMNS), one row per line."""
    transcript = payloads.transcript_path(mc_env.claude_dir, repo, SID)
    payload = payloads.statusline(session_id=SID, transcript_path=transcript, cwd=repo)
    env = {**mc_env.env, "NO_COLOR": "1"}
    shown = run_status_line(_status_command(settings), payload, cwd=repo, env=env)
    assert shown.exit_code == 0, shown.stderr
    return "\n".join(shown.rows)


def test_round_trip_without_a_settings_file(cli, settings, mc_env, mc_task, mc_repo):
    assert not settings.exists()
    assert "installed" in cli("install")
    assert json.loads(settings.read_text()) == {
        "statusLine": {"type": "command", "command": _status_command(settings)}
    }
    assert _show(mc_env, mc_repo, settings).startswith("◆ demo-task")
    assert "removed" in cli("uninstall")
    assert not settings.exists()
    assert not (mc_env.claude_dir / "hooks" / "state" / "statusline" / "launcher.py").exists()


def test_round_trip_keeps_every_byte(cli, settings, mc_env, mc_task, mc_repo):
    settings.write_bytes(ORIGINAL)
    os.chmod(settings, 0o640)
    cli("install")
    installed = json.loads(settings.read_text(encoding="utf-8"))
    before = json.loads(ORIGINAL)
    assert {k: v for k, v in installed.items() if k != "statusLine"} == before
    assert list(installed)[: len(before)] == list(before)  # key order kept
    assert (settings.parent / "settings.json.missioncache-backup").read_bytes() == ORIGINAL
    assert settings.stat().st_mode & 0o777 == 0o640
    assert "demo-task" in _show(mc_env, mc_repo, settings)
    assert "exactly" in cli("uninstall")
    assert settings.read_bytes() == ORIGINAL
    # No copy of the user's settings (which may hold tokens) outlives the uninstall.
    assert not (settings.parent / "settings.json.missioncache-backup").exists()


def test_install_twice_is_one_install(cli, settings):
    settings.write_bytes(ORIGINAL)
    cli("install")
    once = settings.read_bytes()
    assert "already installed" in cli("install")
    assert settings.read_bytes() == once
    cli("uninstall")
    assert settings.read_bytes() == ORIGINAL


def test_an_existing_status_line_is_refused_unchanged(cli, settings):
    theirs = b'{"statusLine": {"type": "command", "command": "echo MINE", "padding": 1}}\n'
    settings.write_bytes(theirs)
    message = cli("install", expect=1)
    assert "already has a status line (echo MINE)" in message and "--chain" in message
    assert settings.read_bytes() == theirs


def test_chain_shows_theirs_then_ours_and_uninstall_restores_theirs(
    cli, settings, mc_env, mc_task, mc_repo
):
    theirs = (
        b'{"statusLine": {"type": "command", "command": "cat >/dev/null; echo MINE",'
        b' "padding": 1}}\n'
    )
    settings.write_bytes(theirs)
    cli("install", "--chain")
    assert json.loads(settings.read_text())["statusLine"]["padding"] == 1
    shown = _show(mc_env, mc_repo, settings).splitlines()
    assert shown[0] == "MINE" and shown[1].startswith("◆ demo-task · today")
    cli("uninstall")
    assert settings.read_bytes() == theirs


def test_edits_made_after_install_are_kept_by_uninstall(cli, settings):
    settings.write_bytes(ORIGINAL)
    cli("install")
    edited = json.loads(settings.read_text())
    edited["includeCoAuthoredBy"] = False
    settings.write_text(json.dumps(edited, indent=4))
    assert "other edits kept" in cli("uninstall")
    after = json.loads(settings.read_text())
    assert after == {**json.loads(ORIGINAL), "includeCoAuthoredBy": False}


def test_edits_after_install_restore_their_own_status_line(cli, settings):
    settings.write_bytes(b'{"statusLine": {"type": "command", "command": "echo MINE"}}')
    cli("install", "--chain")
    edited = json.loads(settings.read_text())
    edited["theme"] = "dark"
    settings.write_text(json.dumps(edited))
    cli("uninstall")
    assert json.loads(settings.read_text()) == {
        "statusLine": {"type": "command", "command": "echo MINE"},
        "theme": "dark",
    }


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b"\xff\xfe{}"])
def test_a_broken_settings_file_is_left_alone(cli, settings, content):
    settings.write_bytes(content)
    assert "nothing was changed" in cli("install", expect=1)
    assert settings.read_bytes() == content
    assert not (settings.parent / "settings.json.missioncache-backup").exists()


def test_a_symlinked_settings_file_stays_a_link(cli, settings, tmp_path):
    target = tmp_path / "dotfiles" / "claude-settings.json"
    target.parent.mkdir()
    target.write_bytes(ORIGINAL)
    settings.symlink_to(target)
    cli("install")
    assert settings.is_symlink() and "statusLine" in json.loads(target.read_text())
    cli("uninstall")
    assert settings.is_symlink() and target.read_bytes() == ORIGINAL


def test_uninstall_when_not_installed_changes_nothing(cli, settings):
    settings.write_bytes(ORIGINAL)
    assert "not installed" in cli("uninstall")
    assert settings.read_bytes() == ORIGINAL


def test_plugin_updates_need_no_reinstall(cli, settings, mc_env, mc_task, mc_repo, mc_plugin):
    """Installed from version 1.0.0 of Claude Code's plugin cache; then 1.1.0 arrives and
    1.0.0 is deleted: the settings command runs the newest copy without a reinstall."""
    cache = mc_env.claude_dir / "plugins" / "cache" / "missioncache" / "missioncache"
    old, new = cache / "1.0.0", cache / "1.1.0"
    shutil.copytree(mc_plugin, old)
    cli("install", plugin=old)
    enable(settings, True)  # what `claude plugin install` leaves in settings.json
    assert "demo-task" in _show(mc_env, mc_repo, settings)
    shutil.copytree(mc_plugin, new)
    line_py = new / "lib" / "missioncache_statusline" / "line.py"
    newer = 'CACHE_VERSION = 99\nimport sys\nsys.stdout.write("v1.1 ")'
    line_py.write_text(re.sub(r"CACHE_VERSION = \d+", newer, line_py.read_text(), count=1))
    entry = new / "statusline" / "statusline.py"
    stamp = (old / "statusline" / "statusline.py").stat().st_mtime + 10
    os.utime(entry, (stamp, stamp))
    assert _show(mc_env, mc_repo, settings).startswith("v1.1 ◆ demo-task")
    shutil.rmtree(old)
    assert _show(mc_env, mc_repo, settings).startswith("v1.1 ◆ demo-task")
    shutil.rmtree(new)
    assert _show(mc_env, mc_repo, settings) == ""  # plugin gone: nothing, exit 0


def enable(settings, on: bool | None) -> None:
    """``enabledPlugins`` as Claude Code keeps it: the key set on install, gone after
    ``claude plugin uninstall`` (None), false after ``claude plugin disable``."""
    value = json.loads(settings.read_text())
    plugins = value.setdefault("enabledPlugins", {})
    if on is None:
        plugins.pop("missioncache@missioncache", None)
    else:
        plugins["missioncache@missioncache"] = on
    settings.write_text(json.dumps(value))


def test_the_line_goes_quiet_once_the_plugin_is_uninstalled(
    cli, settings, mc_env, mc_task, mc_repo, mc_plugin
):
    """`claude plugin uninstall` keeps the cache copy and the status line in settings.json,
    but no hook records time any more: the line says nothing rather than stale figures."""
    installed = mc_env.claude_dir / "plugins" / "cache" / "missioncache" / "missioncache" / "1.0.0"
    shutil.copytree(mc_plugin, installed)
    cli("install", plugin=installed)
    enable(settings, True)
    assert "demo-task" in _show(mc_env, mc_repo, settings)
    enable(settings, None)
    assert _show(mc_env, mc_repo, settings) == ""
    enable(settings, False)
    assert _show(mc_env, mc_repo, settings) == ""
    enable(settings, True)
    assert "demo-task" in _show(mc_env, mc_repo, settings)


def test_a_project_that_turns_the_plugin_off_has_no_line(
    cli, settings, mc_env, mc_task, mc_repo, mc_plugin
):
    """A project's settings win over the user's, as in Claude Code: enabled for the user
    and disabled in this project, no hook runs here, so the line says nothing."""
    installed = mc_env.claude_dir / "plugins" / "cache" / "missioncache" / "missioncache" / "1.0.0"
    shutil.copytree(mc_plugin, installed)
    cli("install", plugin=installed)
    enable(settings, True)
    project = mc_repo / ".claude" / "settings.json"
    project.parent.mkdir(exist_ok=True)
    project.write_text(json.dumps({"enabledPlugins": {"missioncache@missioncache": False}}))
    assert _show(mc_env, mc_repo, settings) == ""
    project.write_text(json.dumps({"enabledPlugins": {}}))  # the project says nothing
    assert "demo-task" in _show(mc_env, mc_repo, settings)


def test_slash_command_entry_always_exits_0(mc_plugin, mc_env, settings):
    theirs = b'{"statusLine": {"type": "command", "command": "echo MINE"}}'
    settings.write_bytes(theirs)
    done = mc_env.run([python3(), str(mc_plugin / "slash" / "slash.py"), "statusline", ""])
    assert done.returncode == 0
    assert "already has a status line" in done.stdout and "MISSIONCACHE ERROR" in done.stdout
    assert settings.read_bytes() == theirs
    done = mc_env.run(
        [
            python3(),
            str(mc_plugin / "slash" / "slash.py"),
            "statusline",
            "install --chain",
        ]
    )
    assert done.returncode == 0 and "installed" in done.stdout
