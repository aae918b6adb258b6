"""The slash-command helpers (``/missioncache:new``, ``:load``, ``:save`` and the save
fallback ``apply``) and the time report, run from the built plugin by Windows CPython 3.13
(Wine) with Windows paths, as their command files run them."""

from __future__ import annotations

import json

from missioncache_harness import payloads
from missioncache_harness.windows import to_windows


def slash(win_user, *args: str, stdin: bytes = b"") -> str:
    script = win_user.plugin / "slash" / "slash.py"
    env = {**win_user.env, "CLAUDE_CODE_SESSION_ID": win_user.session_id}
    done = win_user.python.run(
        ["-X", "utf8", "-I", "-S", to_windows(script), *args],
        input=stdin,
        env=env,
        cwd=win_user.repo,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.decode("utf-8").replace("\r\n", "\n")


def test_new_load_save_and_apply_on_windows(win_user) -> None:
    created = slash(win_user, "new", "greeting PROJ-7")
    assert created.startswith("MISSIONCACHE: Created task greeting."), created
    assert f"**Repository:** {to_windows(win_user.repo)}" in created

    loaded = slash(win_user, "load", "greeting")
    assert f"This session ({win_user.session_id}) is now bound to greeting." in loaded

    saving = slash(win_user, "save")
    assert saving.startswith("MISSIONCACHE: saving task greeting."), saving

    folder = win_user.data_root / "active" / "greeting"
    context, tasks = folder / "greeting-context.md", folder / "greeting-tasks.md"
    context.write_bytes(context.read_bytes().replace(b"\n", b"\r\n"))  # a Windows editor's
    change = {
        "context_file": to_windows(context),
        "recent_change": "Wrote the greeting",
        "next_steps": ["Rename it"],
        "tasks_file": to_windows(tasks),
        "new_tasks": ["Add its test"],
    }
    applied = slash(win_user, "apply", stdin=json.dumps(change).encode())
    assert applied.startswith("MISSIONCACHE: saved."), applied
    text = context.read_bytes()
    assert b"- Wrote the greeting\r\n" in text and b"- Rename it\r\n" in text
    assert text.count(b"\n") == text.count(b"\r\n")
    assert "- [ ] 1. Add its test" in tasks.read_text(encoding="utf-8")


def test_the_report_on_windows(win_user, tmp_path) -> None:
    win_user.cli("create-task", "demo", "--repo", to_windows(win_user.repo))
    prompt = payloads.user_prompt_submit(
        win_user.base("UserPromptSubmit"), "add a greeting", prompt_id="p-1"
    )
    win_user.hook("activity_tracker.py", prompt)
    assert win_user.wait_for("SELECT id FROM heartbeats")
    report = tmp_path / "report.html"
    win_user.cli("report", "--period", "week", "--format", "html", "-o", to_windows(report))
    assert "demo" in report.read_text(encoding="utf-8")
    text = win_user.cli("report", "--period", "week", "--format", "text").stdout
    assert "demo" in text
