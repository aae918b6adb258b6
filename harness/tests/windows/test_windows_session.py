"""One user's session on Windows CPython 3.13 (Wine), Windows paths throughout: the task is
created from the command line, every hook runs as its hooks.json command runs it, and what
the user and Claude get is checked, as are the files and the time recorded."""

from __future__ import annotations

import json
import sqlite3
import time

from missioncache_harness import payloads
from missioncache_harness.windows import to_windows

SUMMARY = (
    "<analysis>scratch</analysis>\n<summary>Greeting module written; next: rename it to "
    "hello and add its test.</summary>"
)


def test_the_interpreter_is_windows(win_user) -> None:
    assert win_user.run("-c", "import sys; print(sys.platform)").stdout == "win32\n"
    assert "ModuleNotFoundError" in win_user.run("-c", "import fcntl").stderr


# Wine sets USERPROFILE itself for a process started from Linux, so a Windows parent
# sets it for the command line, as a Windows login does.
WITH_PROFILE = """
import os, subprocess, sys
env = {k: v for k, v in os.environ.items() if k not in ("MISSIONCACHE_ROOT", "CLAUDE_CONFIG_DIR")}
env["USERPROFILE"] = sys.argv[1]
sys.exit(subprocess.run([sys.executable, *sys.argv[2:]], env=env).returncode)
"""


def test_without_overrides_the_state_lives_in_the_windows_profile(win_user) -> None:
    """~ is USERPROFILE on Windows: ~\\.missioncache and ~\\.claude by default."""
    script = to_windows(win_user.plugin / "bin" / "missioncache")
    profile, repo = to_windows(win_user.home), to_windows(win_user.repo)
    done = win_user.run("-c", WITH_PROFILE, profile, script, "create-task", "demo", "--repo", repo)
    assert done.rc == 0, done.stderr
    assert f"in {profile}\\.missioncache\\active\\demo" in done.stdout
    assert (win_user.data_root / "active" / "demo" / "demo-context.md").is_file()


def test_a_whole_session_on_windows(win_user) -> None:
    user = win_user
    created = user.cli("create-task", "demo", "--repo", to_windows(user.repo))
    assert "created active/demo" in created.stdout
    context = user.data_root / "active" / "demo" / "demo-context.md"
    tasks = user.data_root / "active" / "demo" / "demo-tasks.md"
    # Written on Windows by an editor: CRLF endings, which every rewrite must keep byte-exact.
    notes = context.read_bytes().replace(b"\n", b"\r\n")
    notes = notes.replace(b"## Next Steps\r\n", b"## Next Steps\r\n- rename greet\r\n")
    context.write_bytes(notes + b"\r\n### Task 1\r\nfindings: greet works\r\n")
    tasks.write_bytes(tasks.read_bytes() + b"- [ ] 1. write the greeting\n")

    start = user.hook("session_start.py", payloads.session_start(user.base("SessionStart")))
    assert start.json["systemMessage"].startswith("MissionCache: tracking demo (")
    banner = start.json["hookSpecificOutput"]["additionalContext"]
    assert "## MissionCache: Active Task Detected" in banner
    assert "- **Task:** demo (id 1)" in banner
    assert f"  - context: {to_windows(context)}" in banner

    turn = user.transcript.user("add a greeting module", promptId="p-1")
    turn.edit(f"{to_windows(user.repo)}\\greet.py").text("Written.").stop_summary()
    prompt = payloads.user_prompt_submit(
        user.base("UserPromptSubmit"), "add a greeting module", prompt_id="p-1"
    )
    assert user.hook("activity_tracker.py", prompt).stdout == ""
    reminder = user.hook("task_tracker.py", prompt).stdout
    assert 'completed_tasks=["1"]' in reminder and to_windows(tasks) in reminder
    beat = "SELECT session_id, task_id FROM heartbeats"
    assert user.wait_for(beat) == [(user.session_id, 1)]  # written by the detached child

    time.sleep(1.5)  # the turn lasts: Claude's time must come out above zero
    stop = payloads.stop(user.base("Stop"), prompt_id="p-1", last_assistant_message="Done.")
    said = user.hook("stop.py", stop).json["systemMessage"]
    assert said.startswith("MissionCache: Claude changed 1 file in this turn ("), said

    pre = payloads.pre_compact(user.base("PreCompact"), prompt_id="p-2")
    saved = user.hook("pre_compact.py", pre).stdout
    assert saved == 'Keep the MissionCache task name "demo" and its Next Steps in the summary.'
    after = context.read_bytes()
    assert b"- Auto-saved before compaction (" in after
    assert b"  - User: add a greeting module\r\n" in after  # the file's own line ending
    assert b"\r\n### Task 1\r\nfindings: greet works\r\n" in after
    assert b"- rename greet\r\n" in after and after.count(b"\n") == after.count(b"\r\n")
    assert not list(context.parent.glob(".*.tmp"))  # no temp file left behind

    compact = payloads.session_start(user.base("SessionStart"), "compact")
    digest = user.hook("session_start.py", compact).json["hookSpecificOutput"]
    assert "- Auto-saved before compaction (" in digest["additionalContext"]
    post = payloads.post_compact(
        user.base("PostCompact"), prompt_id="p-2", trigger="manual", compact_summary=SUMMARY
    )
    assert user.hook("post_compact.py", post).stdout == ""

    user.session_id = "win-session-2"
    fresh = user.hook("session_start.py", payloads.session_start(user.base("SessionStart")))
    told = fresh.json["hookSpecificOutput"]["additionalContext"]
    assert "### Last compaction summary (" in told
    assert "Greeting module written; next: rename it to hello" in told

    spent = user.cli("time", "demo").stdout.strip()
    assert spent.startswith("demo: ") and not spent.startswith("demo: 0s"), spent

    line = user.run(
        to_windows(user.plugin / "statusline" / "statusline.py"),
        stdin=payloads_json(user),
    )
    assert line.rc == 0 and "demo" in line.stdout, line


def payloads_json(user) -> bytes:
    status = payloads.statusline(
        session_id=user.session_id,
        transcript_path=to_windows(user.transcript_file),
        cwd=to_windows(user.repo),
    )
    return json.dumps(status).encode("utf-8")


def test_the_terminal_map_uses_windows_terminal_ids(win_user) -> None:
    """Windows Terminal's WT_SESSION maps the terminal to the session, as iTerm2's id does."""
    win_user.cli("create-task", "demo", "--repo", to_windows(win_user.repo))
    terminal = "0f4a2c1e-9b7d-4e1a-8c3b-2d5e6f708192"
    win_user.env["WT_SESSION"] = terminal
    win_user.hook("session_start.py", payloads.session_start(win_user.base("SessionStart")))
    conn = sqlite3.connect(str(win_user.claude_dir / "hooks-state.db"))
    try:
        sql = "SELECT session_id FROM term_sessions WHERE term_session_id = ?"
        assert conn.execute(sql, (terminal,)).fetchall() == [(win_user.session_id,)]
    finally:
        conn.close()
