"""``missioncache dashboard install|uninstall``: the http hooks in settings.json, with the
status line install's guarantees (exact bytes back, nothing of the user's lost), and wired
only while the dashboard runs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from missioncache_harness import dashboard as dash

USER_SETTINGS = (
    b'{\n    "model": "opus",\n    "hooks": {\n        "PostToolUse": [\n'
    b'            {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo hi"}]}\n'
    b'        ]\n    },\n    "permissions": {"allow": ["Bash(ls:*)"]}\n}\n'
)


def run(plugin, env, *args):
    done = subprocess.run(
        dash.command(plugin, *args),
        env=env.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout


def http_hooks(settings: dict) -> dict:
    """{event: [url, ...]} of the http hooks in ``settings``."""
    found: dict = {}
    for event, groups in settings.get("hooks", {}).items():
        for group in groups:
            for hook in group.get("hooks", []):
                if hook.get("type") == "http":
                    found.setdefault(event, []).append(hook["url"])
    return found


def test_install_with_no_dashboard_running_changes_nothing_and_says_how(mc_plugin, mc_env):
    """A hook with nothing answering shows `hook failed ... ECONNREFUSED` under every
    prompt: install leaves settings.json alone and names the command that starts it, and
    never says both that a stopped dashboard shows no `hook failed` and that it will."""
    settings = mc_env.claude_dir / "settings.json"
    settings.write_bytes(USER_SETTINGS)
    port = dash.free_port()
    out = run(mc_plugin, mc_env, "install", "--port", str(port))
    assert settings.read_bytes() == USER_SETTINGS
    assert f"No dashboard answers on port {port}" in out
    (command,) = [c for c in out.split("`") if c.endswith(f"dashboard start --port {port}")]
    program = command.split()[0]  # runnable as written: on PATH, or the plugin's by its path
    assert shutil.which(program, path=mc_env.env.get("PATH")) or Path(program).is_file()
    assert "never shows `hook failed`" not in out and "wired" not in out


def test_install_wires_hooks_and_uninstall_restores_exact_bytes(mc_plugin, mc_env, mc_task):
    settings = mc_env.claude_dir / "settings.json"
    settings.write_bytes(USER_SETTINGS)
    port = dash.free_port()
    with dash.serving(mc_plugin, mc_env, port):
        out = run(mc_plugin, mc_env, "install", "--port", str(port))
        assert f"port {port}" in out and "hooks" in out
        written = json.loads(settings.read_text())
        assert http_hooks(written) == {
            "PostToolUse": [f"http://127.0.0.1:{port}/api/hooks/edit-count"],
            "UserPromptSubmit": [f"http://127.0.0.1:{port}/api/hooks/heartbeat"],
            "Stop": [f"http://127.0.0.1:{port}/api/hooks/heartbeat"],
            "SessionEnd": [f"http://127.0.0.1:{port}/api/hooks/session-end"],
        }
        run(mc_plugin, mc_env, "install", "--port", str(port))  # twice: still one set
        assert len(http_hooks(json.loads(settings.read_text()))["PostToolUse"]) == 1
    edit_group = written["hooks"]["PostToolUse"][-1]
    assert edit_group["matcher"] == "Edit|Write|MultiEdit|NotebookEdit"
    # The user's keys and their own hook are all still there.
    assert written["model"] == "opus" and written["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert written["hooks"]["PostToolUse"][0]["matcher"] == "Bash"
    run(mc_plugin, mc_env, "uninstall")
    assert settings.read_bytes() == USER_SETTINGS
    assert not list(mc_env.claude_dir.glob("settings.json.*"))  # no backup left behind


def test_install_without_settings_file_and_uninstall_removes_it(mc_plugin, mc_env, mc_task):
    settings = mc_env.claude_dir / "settings.json"
    port = dash.free_port()
    with dash.serving(mc_plugin, mc_env, port):
        run(mc_plugin, mc_env, "install", "--port", str(port))
        assert f"http://127.0.0.1:{port}/api/hooks/edit-count" in settings.read_text()
    run(mc_plugin, mc_env, "uninstall")
    assert not settings.exists()
    assert "nothing to do" in run(mc_plugin, mc_env, "uninstall")


def test_edits_made_meanwhile_are_kept(mc_plugin, mc_env, mc_task):
    settings = mc_env.claude_dir / "settings.json"
    settings.write_bytes(USER_SETTINGS)
    port = dash.free_port()
    with dash.serving(mc_plugin, mc_env, port):
        run(mc_plugin, mc_env, "install", "--port", str(port))
        edited = json.loads(settings.read_text())
        edited["theme"] = "dark"
        edited["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "say done"}]})
        settings.write_text(json.dumps(edited, indent=2))
        run(mc_plugin, mc_env, "uninstall")
    left = json.loads(settings.read_text())
    assert http_hooks(left) == {}
    assert left["theme"] == "dark" and left["model"] == "opus"
    assert left["hooks"]["Stop"] == [{"hooks": [{"type": "command", "command": "say done"}]}]
    assert left["hooks"]["PostToolUse"][0]["matcher"] == "Bash"
    assert "UserPromptSubmit" not in left["hooks"]  # it held only ours


def test_broken_settings_are_left_alone(mc_plugin, mc_env):
    settings = mc_env.claude_dir / "settings.json"
    settings.write_bytes(b"{not json")
    done = subprocess.run(
        dash.command(mc_plugin, "install"),
        env=mc_env.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and "not valid JSON" in done.stderr
    assert settings.read_bytes() == b"{not json"


def test_hooks_are_wired_only_while_the_dashboard_runs(mc_plugin, mc_env, mc_task):
    """A stopped dashboard leaves no http hook behind (each would show `hook failed`
    under every edit), and the next start puts them back."""
    settings = mc_env.claude_dir / "settings.json"
    settings.write_bytes(USER_SETTINGS)
    port = dash.free_port()
    run(mc_plugin, mc_env, "install", "--port", str(port))
    with dash.serving(mc_plugin, mc_env, port) as running:
        assert http_hooks(json.loads(settings.read_text()))
        running.get("/api/tasks")
    assert settings.read_bytes() == USER_SETTINGS  # stopped: exactly the user's file
    with dash.serving(mc_plugin, mc_env, port):
        assert f"127.0.0.1:{port}/api/hooks/edit-count" in settings.read_text()
    assert settings.read_bytes() == USER_SETTINGS
    run(mc_plugin, mc_env, "uninstall")
    assert settings.read_bytes() == USER_SETTINGS


def test_dashboard_on_another_port_leaves_settings_alone(mc_plugin, mc_env, mc_task):
    settings = mc_env.claude_dir / "settings.json"
    settings.write_bytes(USER_SETTINGS)
    run(mc_plugin, mc_env, "install", "--port", "8799")
    installed = settings.read_bytes()
    with dash.serving(mc_plugin, mc_env):
        assert settings.read_bytes() == installed
    assert settings.read_bytes() == installed
    run(mc_plugin, mc_env, "uninstall")
    assert settings.read_bytes() == USER_SETTINGS


def test_stop_takes_out_the_hooks_a_killed_dashboard_left(mc_plugin, mc_env, mc_task):
    """Measured on the real CLI: hooks left wired after a kill -9 show `hook failed /
    connect ECONNREFUSED` under each prompt, edit and Stop; `dashboard stop` clears them."""
    settings = mc_env.claude_dir / "settings.json"
    settings.write_bytes(USER_SETTINGS)
    port = dash.free_port()
    assert "No dashboard answers" in run(mc_plugin, mc_env, "install", "--port", str(port))
    with dash.serving(mc_plugin, mc_env, port) as running:
        running.process.kill()
        running.process.communicate()
    assert f"127.0.0.1:{port}/api/hooks/" in settings.read_text()
    out = run(mc_plugin, mc_env, "stop")
    assert "no MissionCache dashboard is running" in out and "restored" in out
    assert settings.read_bytes() == USER_SETTINGS
    assert "nothing to do" not in run(mc_plugin, mc_env, "uninstall")
    assert settings.read_bytes() == USER_SETTINGS


def _stop_hook(mc_plugin, mc_env, cwd) -> str:
    """The built plugin's Stop hook, as Claude Code runs it; the human's line ("" if none)."""
    from missioncache_harness.workspace import python3

    payload = {"session_id": "s-dash", "hook_event_name": "Stop", "cwd": str(cwd)}
    done = subprocess.run(
        [python3(), "-S", str(mc_plugin / "hooks" / "stop.py")],
        input=json.dumps(payload), env=mc_env.env, capture_output=True, text=True, timeout=30,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0 and not done.stderr, done.stderr
    return json.loads(done.stdout)["systemMessage"] if done.stdout.strip() else ""


def test_the_first_stop_after_a_kill_takes_the_hooks_out_and_says_so(
    mc_plugin, mc_env, mc_task, tmp_path
):
    """Without anyone running `dashboard stop`: the Stop hook of the turn that showed
    `hook failed` says why and takes the hooks out (a detached `dashboard tidy`); while
    a dashboard serves, Stop leaves its hooks alone and says nothing of them."""
    import time

    settings = mc_env.claude_dir / "settings.json"
    settings.write_bytes(USER_SETTINGS)
    port = dash.free_port()
    run(mc_plugin, mc_env, "install", "--port", str(port))
    with dash.serving(mc_plugin, mc_env, port) as running:
        assert "dashboard" not in _stop_hook(mc_plugin, mc_env, tmp_path)
        time.sleep(1.0)
        assert f"127.0.0.1:{port}/api/hooks/" in settings.read_text()  # still wired
        running.process.kill()
        running.process.communicate()
    told = _stop_hook(mc_plugin, mc_env, tmp_path)
    assert f"the dashboard (port {port}) stopped without taking its http hooks out" in told
    deadline = time.monotonic() + 20
    while settings.read_bytes() != USER_SETTINGS and time.monotonic() < deadline:
        time.sleep(0.1)
    assert settings.read_bytes() == USER_SETTINGS  # exact bytes back
    assert _stop_hook(mc_plugin, mc_env, tmp_path) == ""  # told once


def _here_too(mc_env, monkeypatch) -> None:
    """This process uses ``mc_env``'s roots, so an in-process install meets the dashboard
    ``dash.serving`` starts there (``install`` wires only while one answers)."""
    monkeypatch.setenv("MISSIONCACHE_ROOT", str(mc_env.data_root))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(mc_env.claude_dir))
    monkeypatch.delenv("CLAUDE_SESSION_ID", raising=False)
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID", raising=False)


def test_a_failed_install_describes_no_wiring(mc_plugin, mc_env, monkeypatch):
    """Regression: a settings.json that could not be written (read-only) left an install
    record describing a wiring, and every Stop then said a dashboard had stopped and its
    hooks "are taken out now", forever."""
    import pytest

    from missioncache_dashboard import install
    from missioncache_hookio.dashboard_left import left_wired_port, tidy_in_background
    from missioncache_state import settings_file

    _here_too(mc_env, monkeypatch)
    settings = mc_env.claude_dir / "settings.json"
    settings.write_bytes(b'{"theme": "dark"}\n')

    def read_only(*_args, **_kwargs):
        raise PermissionError(30, "Read-only file system")

    port = free_port_for_test()
    with dash.serving(mc_plugin, mc_env, port):
        monkeypatch.setattr(settings_file, "_replace", read_only)
        with pytest.raises(install.InstallError) as refused:
            install.install(port)
        assert "Read-only file system" in str(refused.value)
        assert "written_sha256" not in (install.is_installed() or {})
    assert settings.read_bytes() == b'{"theme": "dark"}\n'
    # The dashboard is gone: a record describing a wiring would now say it left hooks.
    assert left_wired_port() is None and tidy_in_background() == ""


def test_a_dead_dashboard_whose_pid_was_reused_is_still_found(mc_plugin, mc_env, monkeypatch):
    """Regression: running.json naming a live process (the pid reused) kept a dead
    dashboard's hooks wired; "running" now means a dashboard of this install answers."""
    import os

    from missioncache_dashboard import install
    from missioncache_hookio.dashboard_left import left_wired_port
    from missioncache_state.atomic import write_json_atomic
    from missioncache_state.locations import dashboard_dir

    _here_too(mc_env, monkeypatch)
    settings = mc_env.claude_dir / "settings.json"
    settings.write_bytes(b"{}\n")
    port = free_port_for_test()
    with dash.serving(mc_plugin, mc_env, port) as running:
        install.install(port)
        assert http_hooks(json.loads(settings.read_text()))
        assert left_wired_port() is None  # it answers
        running.process.kill()  # dies without taking its hooks out
        running.process.communicate()
    write_json_atomic(os.path.join(dashboard_dir(), "running.json"), {"port": port, "pid": 1})
    assert left_wired_port() == port
    install.unwire()
    assert settings.read_bytes() == b"{}\n"
    assert left_wired_port() is None  # nothing in the file: nothing left wired


def test_installed_hooks_carry_the_secret_only_through_the_environment(
    mc_plugin, mc_env, monkeypatch
):
    """The hooks send the secret as a header Claude Code fills from an environment
    variable it may interpolate; settings.json, which holds that variable, is made
    readable by its owner only (it is often 0644)."""
    import os
    import stat

    from missioncache_dashboard import install
    from missioncache_state.dashboard_token import read_token

    _here_too(mc_env, monkeypatch)
    settings = mc_env.claude_dir / "settings.json"
    settings.write_bytes(b'{"theme": "dark"}\n')
    os.chmod(settings, 0o644)
    with dash.serving(mc_plugin, mc_env) as running:
        install.install(running.port)
        written = json.loads(settings.read_text())
        token = read_token()
        assert token == running.token
        assert set(http_hooks(written)) == {"PostToolUse", "UserPromptSubmit", "Stop", "SessionEnd"}
        for groups in written["hooks"].values():
            hook = groups[-1]["hooks"][0]
            assert hook["headers"] == {"X-MissionCache-Token": "$MISSIONCACHE_DASHBOARD_TOKEN"}
            assert hook["allowedEnvVars"] == ["MISSIONCACHE_DASHBOARD_TOKEN"]
        assert written["env"] == {"MISSIONCACHE_DASHBOARD_TOKEN": token}
        assert stat.S_IMODE(settings.stat().st_mode) == 0o600
        install.uninstall()
        assert settings.read_bytes() == b'{"theme": "dark"}\n'
    assert settings.read_bytes() == b'{"theme": "dark"}\n'


def free_port_for_test() -> int:
    return dash.free_port()
