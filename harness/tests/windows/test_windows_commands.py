"""The commands Claude Code starts, where ``python3`` is missing or is the Microsoft Store's
stub: the hooks.json commands (through ``hooks/launch.sh``) and the status line that
``statusline install`` writes into settings.json, run by Windows CPython under Wine."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from missioncache_harness import payloads
from missioncache_harness.windows import to_windows

STORE_STUB = (
    "#!/bin/sh\n"
    "echo 'Python was not found; run without arguments to install from the Microsoft Store,"
    " or disable this shortcut from Settings > Apps > Advanced app settings.' >&2\n"
    "exit 49\n"  # 9009 as a Git Bash exit status
)


def hook_command(plugin: Path, event: str) -> str:
    config = json.loads((plugin / "hooks" / "hooks.json").read_text(encoding="utf-8"))
    return config["hooks"][event][0]["hooks"][0]["command"]


def run_sh(command: str, env: dict, stdin: bytes, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["/bin/sh", "-c", command],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def only_python_env(win_user, bin_dir: Path, **extra: str) -> dict:
    """The user's environment with PATH holding nothing but ``bin_dir``."""
    win_user.python.shim(bin_dir, "python")
    return {**win_user.python.wine_env(win_user.env), "PATH": str(bin_dir), **extra}


def banner_payload(win_user) -> bytes:
    return json.dumps(payloads.session_start(win_user.base("SessionStart"))).encode()


def test_session_start_runs_where_only_python_is_on_path(win_user, tmp_path: Path) -> None:
    win_user.cli("create-task", "demo", "--repo", to_windows(win_user.repo))
    env = only_python_env(win_user, tmp_path / "bin", CLAUDE_PLUGIN_ROOT=str(win_user.plugin))
    command = hook_command(win_user.plugin, "SessionStart")
    done = run_sh(command, env, banner_payload(win_user), win_user.repo)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert "## MissionCache: Active Task Detected" in out["hookSpecificOutput"]["additionalContext"]
    assert out["systemMessage"].startswith("MissionCache: tracking demo (")


def test_on_windows_the_store_stub_is_skipped(win_user, tmp_path: Path) -> None:
    """Git Bash on Windows (OS=Windows_NT): python3 is the Store's stub, python is real."""
    win_user.cli("create-task", "demo", "--repo", to_windows(win_user.repo))
    bin_dir = tmp_path / "bin"
    env = only_python_env(
        win_user, bin_dir, CLAUDE_PLUGIN_ROOT=str(win_user.plugin), OS="Windows_NT"
    )
    (bin_dir / "python3").write_text(STORE_STUB, encoding="utf-8")
    (bin_dir / "python3").chmod(0o755)
    prompt = payloads.user_prompt_submit(
        win_user.base("UserPromptSubmit"), "add a greeting", prompt_id="p-1"
    )
    command = hook_command(win_user.plugin, "UserPromptSubmit")
    done = run_sh(command, env, json.dumps(prompt).encode(), win_user.repo)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    beat = "SELECT session_id, task_id FROM heartbeats"
    assert win_user.wait_for(beat) == [(win_user.session_id, 1)]
    done = run_sh(
        hook_command(win_user.plugin, "SessionStart"), env, banner_payload(win_user), win_user.repo
    )
    assert json.loads(done.stdout)["systemMessage"].startswith("MissionCache: tracking demo (")


def test_the_launcher_turns_backslashes_into_slashes(win_user, tmp_path: Path) -> None:
    """CLAUDE_PLUGIN_ROOT arrives as ``C:\\Users\\...`` on Windows: the script path the
    launcher hands to Python must survive the shell."""
    win_user.cli("create-task", "demo", "--repo", to_windows(win_user.repo))
    env = only_python_env(win_user, tmp_path / "bin")
    script = to_windows(win_user.plugin / "hooks" / "session_start.py")
    launcher = win_user.plugin / "hooks" / "launch.sh"
    command = f'MISSIONCACHE_HOOK="$1" . "{launcher}" || true'
    done = subprocess.run(
        ["/bin/sh", "-c", command, "sh", script],
        input=banner_payload(win_user),
        capture_output=True,
        env=env,
        cwd=win_user.repo,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["systemMessage"].startswith("MissionCache: tracking demo (")


def test_no_python_at_all_is_one_line_and_exit_0(win_user, tmp_path: Path) -> None:
    bin_dir = tmp_path / "empty"
    bin_dir.mkdir()
    env = {**win_user.env, "PATH": str(bin_dir), "CLAUDE_PLUGIN_ROOT": str(win_user.plugin)}
    done = run_sh(hook_command(win_user.plugin, "SessionStart"), env, b"{}", win_user.repo)
    assert (done.returncode, done.stdout) == (0, b"")
    assert done.stderr.decode().splitlines() == [
        "MissionCache: no Python 3.9 or newer found (tried python3, python, py -3)"
    ]


def test_the_status_line_installs_and_names_the_task_on_windows(win_user) -> None:
    win_user.cli("create-task", "demo", "--repo", to_windows(win_user.repo))
    win_user.hook("session_start.py", payloads.session_start(win_user.base("SessionStart")))
    settings = win_user.claude_dir / "settings.json"
    settings.write_text('{"theme": "dark"}\n', encoding="utf-8")
    assert "installed" in win_user.cli("statusline", "install").stdout
    command = json.loads(settings.read_text(encoding="utf-8"))["statusLine"]["command"]
    python, launcher = (
        to_windows(p).replace("\\", "/")
        for p in (
            Path(win_user.python.exe),
            win_user.claude_dir / "hooks" / "state" / "statusline" / "launcher.py",
        )
    )
    assert command == f'"{python}" -X utf8 -S "{launcher}"'  # no python3, no backslashes
    status = payloads.statusline(
        session_id=win_user.session_id,
        transcript_path=to_windows(win_user.transcript_file),
        cwd=to_windows(win_user.repo),
    )
    line = win_user.run("-X", "utf8", "-S", launcher, stdin=json.dumps(status).encode())
    assert line.rc == 0 and "demo" in line.stdout, line
    win_user.cli("statusline", "uninstall")
    assert settings.read_text(encoding="utf-8") == '{"theme": "dark"}\n'
