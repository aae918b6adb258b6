"""session_start.py as a real process of the built plugin."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest

from missioncache_harness.bad_input import BAD_STDIN, HOSTILE_SESSION_IDS, mistyped

SID = "sess-1"
BAD_INPUTS = BAD_STDIN
MISTYPED = mistyped({"session_id": ["s1"]}, {"source": 1})
HOSTILE_IDS = HOSTILE_SESSION_IDS


ZERO_MESSAGE = "MissionCache: tracking demo-task (0s invested: Claude 0s, you 0s)"


def start(mc_hook, source="startup", sid=SID, **options):
    """Fire SessionStart; ``options`` (cwd, env, timeout) go to the process runner."""
    payload = {"session_id": sid, "hook_event_name": "SessionStart", "source": source}
    return mc_hook(payload, **options)


def context_of(done) -> str:
    out = done.json["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    return out["additionalContext"]


def binding(mc_env, sid=SID):
    path = mc_env.claude_dir / "hooks" / "state" / "projects" / f"{sid}.json"
    return json.loads(path.read_text()) if path.exists() else None


def installed_rule(mc_env):
    return mc_env.claude_dir / "rules" / "missioncache.md"


# -- the banner ------------------------------------------------------------------------------


def test_banner_for_the_repositorys_task(mc_hook, mc_env, mc_task, mc_task_dir):
    done = start(mc_hook)
    assert done.json["systemMessage"] == ZERO_MESSAGE
    context = context_of(done)
    for needle in (
        "Active Task Detected",
        "demo-task",
        f"(id {mc_task.id})",
        "**Status:** active",
        "**Time invested:** 0s (Claude 0s, you 0s)",
        f"**Session:** {SID}",
        str(mc_task_dir / "demo-task-context.md"),
        str(mc_task_dir / "demo-task-tasks.md"),
        "/missioncache:load",
        "mcp__plugin_missioncache_pm__update_tasks_file",
        "TaskCreate",
    ):
        assert needle in context, needle
    assert "JIRA" not in context
    assert "Where the work stands" not in context  # no digest on startup
    assert binding(mc_env) == {
        "projectName": "demo-task",
        "taskId": mc_task.id,
        "fullPath": "active/demo-task",  # lets Stop and the task tracker skip tasks.db
        "sessionId": SID,
        "updated": binding(mc_env)["updated"],
    }


def test_banner_under_pythonsafepath(mc_hook, mc_task):
    """The hook's body is a module beside the script (the script is a shim, see its
    docstring); a user's PYTHONSAFEPATH keeps that folder off sys.path, yet it is found."""
    done = start(mc_hook, env={"PYTHONSAFEPATH": "1"})
    assert done.json["systemMessage"] == ZERO_MESSAGE
    assert "Active Task Detected" in context_of(done)


def test_banner_still_shown_when_the_binding_cannot_be_written(mc_hook, mc_env, mc_task):
    """A read-only or full Claude dir costs the binding, never the banner. A file planted
    where the bindings directory belongs makes the write fail even for root."""
    state = mc_env.claude_dir / "hooks" / "state"
    state.mkdir(parents=True, exist_ok=True)
    (state / "projects").write_text("not a directory")
    done = start(mc_hook)
    assert "Active Task Detected" in context_of(done)
    assert done.json["systemMessage"] == ZERO_MESSAGE
    assert done.stderr.startswith("missioncache: session binding not saved:")
    assert done.stderr.count("\n") == 1


def test_banner_shows_jira_key_and_time_invested(mc_hook, mc_cli, mc_repo, mc_query, mc_execute):
    mc_cli("create-task", "jira-task", "--repo", str(mc_repo), "--jira", "PROJ-42")
    ((task_id,),) = mc_query("SELECT id FROM tasks WHERE name = 'jira-task'")
    # Two heartbeats 5 minutes apart, long ago, without turn ends (history from before turns
    # were recorded): 5m + the 2m tail, as before; each unended turn is Claude's for the 2m
    # tail, the rest of the gap is yours.
    for minute in (0, 5):
        mc_execute(
            "INSERT INTO heartbeats(uid, task_id, timestamp, epoch, session_id, processed)"
            " VALUES (?, ?, ?, ?, 's0', 0)",
            (
                os.urandom(8).hex(),
                task_id,
                f"2020-01-01 10:0{minute}:00",
                1577872800.0 + 60 * minute,
            ),
        )
    done = start(mc_hook)
    assert "**JIRA:** PROJ-42" in context_of(done)
    assert "**Time invested:** 7m (Claude 4m, you 3m)" in context_of(done)
    assert done.json["systemMessage"] == (
        "MissionCache: tracking jira-task (7m invested: Claude 4m, you 3m)"
    )
    assert mc_query("SELECT COUNT(*) FROM heartbeats WHERE processed = 0") == [(0,)]


@pytest.mark.parametrize("source", ["compact", "resume", "clear"])
def test_digest_of_the_context_file_after_compact_resume_clear(
    mc_hook, mc_task, mc_task_dir, source
):
    context_file = mc_task_dir / "demo-task-context.md"
    text = context_file.read_text()
    text = text.replace("## Next Steps\n", "## Next Steps\n- finish the parser\n")
    text = text.replace(
        "## Recent Changes\n", "## Recent Changes\n\n### 2099-01-01 09:00\n- newest\n"
    )
    context_file.write_text(text)
    context = context_of(start(mc_hook, source))
    assert "Active Task Detected" in context
    assert "Where the work stands" in context
    assert "- finish the parser" in context
    # quoted, line by line (issue 20: the file's headings must not pose as MissionCache's)
    assert "> ### 2099-01-01 09:00\n> - newest" in context
    assert "Task created" not in context  # only the newest entry
    assert f"({source})" in context


def test_resume_output_differs_from_startup(mc_hook, mc_task):
    assert start(mc_hook, "startup").stdout != start(mc_hook, "resume").stdout


def test_digest_is_bounded(mc_hook, mc_task, mc_task_dir):
    context_file = mc_task_dir / "demo-task-context.md"
    huge = "\n".join(f"- step {i} " + "x" * 80 for i in range(2000))
    context_file.write_text(
        context_file.read_text().replace("## Next Steps\n", f"## Next Steps\n{huge}\n")
    )
    context = context_of(start(mc_hook, "compact"))
    digest = context.split("Where the work stands", 1)[1]
    assert len(digest) < 3200 and "[... truncated]" in digest


def test_digest_skipped_when_context_file_is_missing_or_not_utf8(mc_hook, mc_task, mc_task_dir):
    context_file = mc_task_dir / "demo-task-context.md"
    context_file.write_bytes(b"## Next Steps\n- \xff\xfe\n")
    context = context_of(start(mc_hook, "compact"))
    assert "Active Task Detected" in context and "Where the work stands" not in context
    context_file.unlink()
    context = context_of(start(mc_hook, "compact"))
    assert "Active Task Detected" in context and "Where the work stands" not in context


def test_explicit_binding_wins_over_the_cwd(
    mc_hook, mc_cli, mc_env, mc_task, mc_make_task, tmp_path
):
    other = mc_make_task("other-task")
    mc_cli("bind", SID, "other-task")
    context = context_of(start(mc_hook))
    assert "other-task" in context and f"(id {other.id})" in context
    assert binding(mc_env)["taskId"] == other.id


def test_no_task_means_no_output(mc_hook, mc_env, mc_task, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert start(mc_hook, cwd=str(elsewhere)).stdout == ""
    assert binding(mc_env) is None
    assert not installed_rule(mc_env).exists()  # nothing loaded into projects without a task


def test_no_database_means_no_output_and_no_database(mc_hook, mc_env):
    assert start(mc_hook).silent()
    assert not (mc_env.data_root / "tasks.db").exists()
    assert not installed_rule(mc_env).exists()


# -- several tasks -----------------------------------------------------------------------------


def test_several_active_tasks_are_named_with_how_to_choose(
    mc_hook, mc_env, mc_task, mc_make_task, mc_repo
):
    for i in range(6):
        mc_make_task(f"extra-{i}", mc_repo)
    done = start(mc_hook)
    context = context_of(done)
    assert "7 active tasks" in context
    assert "demo-task, extra-0, extra-1, extra-2, extra-3, +2 more" in context
    assert "/missioncache:load <name>" in context
    assert "Active Task Detected" not in context
    assert binding(mc_env) is None


def test_two_active_tasks_are_both_named(mc_hook, mc_task, mc_make_task, mc_repo):
    mc_make_task("second", mc_repo)
    context = context_of(start(mc_hook))
    assert "2 active tasks (demo-task, second)" in context and "more" not in context


# -- terminal map and rules ---------------------------------------------------------------------


def test_terminal_session_mapping_file_and_row(mc_hook, mc_env, mc_task):
    start(mc_hook, env={"TERM_SESSION_ID": "w0t1p0:ABC-123"})
    mapped = mc_env.claude_dir / "hooks" / "state" / "term-sessions" / "w0t1p0-ABC-123"
    assert mapped.read_text().strip() == SID
    conn = sqlite3.connect(str(mc_env.claude_dir / "hooks-state.db"))
    rows = conn.execute("SELECT term_session_id, session_id FROM term_sessions").fetchall()
    conn.close()
    assert rows == [("w0t1p0:ABC-123", SID)]  # the raw id, as a status line sees it


LEGACY_RULE = b"<!-- missioncache-plugin:managed -- installed by the MissionCache plugin -->\n# x\n"


def test_legacy_rules_file_removed_user_file_kept(mc_hook, mc_env, tmp_path):
    """Issue 12 item 8: Claude Code loads ~/.claude/rules/ into every project, even after
    uninstall; the managed file an earlier version installed goes, a user's file stays,
    and nothing is installed in its place (with or without a task)."""
    rules = mc_env.claude_dir / "rules"
    rules.mkdir()
    installed_rule(mc_env).write_bytes(LEGACY_RULE)
    start(mc_hook)
    assert not installed_rule(mc_env).exists()
    target = tmp_path / "legacy-target.md"
    target.write_bytes(LEGACY_RULE)
    os.symlink(target, installed_rule(mc_env))
    start(mc_hook)
    assert not os.path.lexists(installed_rule(mc_env))
    assert target.read_bytes() == LEGACY_RULE  # the link went, never its target
    installed_rule(mc_env).write_bytes(b"# my own rules\n")
    start(mc_hook)
    assert installed_rule(mc_env).read_bytes() == b"# my own rules\n"
    assert os.listdir(rules) == ["missioncache.md"]


def test_no_rules_file_is_installed(mc_hook, mc_env, mc_task):
    assert "Working on a MissionCache task" in context_of(start(mc_hook))
    assert not (mc_env.claude_dir / "rules").exists()


@pytest.mark.parametrize("raw", BAD_INPUTS)
def test_bad_stdin_is_silent_but_legacy_rules_are_removed(mc_hook, mc_env, mc_task, raw):
    installed_rule(mc_env).parent.mkdir()
    installed_rule(mc_env).write_bytes(LEGACY_RULE)
    assert mc_hook(raw).silent()
    assert not installed_rule(mc_env).exists()


@pytest.mark.parametrize("fields", MISTYPED)
def test_mistyped_fields_are_silent(mc_hook, mc_env, mc_task, fields):
    done = mc_hook({"session_id": SID, "source": "startup", **fields})
    assert done.silent()
    assert binding(mc_env) is None


@pytest.mark.parametrize("sid", HOSTILE_IDS)
def test_hostile_session_id_is_treated_as_absent(mc_hook, mc_env, mc_task, sid):
    done = start(mc_hook, sid=sid, env={"TERM_SESSION_ID": "tab-1"})
    assert "Active Task Detected" in context_of(done)  # the cwd still resolves the task
    assert "**Session:** unknown" in context_of(done)
    state = mc_env.claude_dir / "hooks" / "state"
    assert not (state / "projects").exists() or os.listdir(state / "projects") == []
    assert not (state / "term-sessions").exists()
    outside = {p.name for p in mc_env.home.parent.iterdir()}
    assert outside <= {"home", "work", "built"}  # nothing written beside the HOME


def corrupt(mc_env):
    for extra in ("-wal", "-shm"):
        (mc_env.data_root / f"tasks.db{extra}").unlink(missing_ok=True)
    (mc_env.data_root / "tasks.db").write_bytes(b"garbage, not a database" * 200)


def test_corrupt_database_is_told_to_the_human_once_per_session(mc_hook, mc_env, mc_task):
    """Issue 12 item 9: a broken tasks.db made the banner, status line, reminders and
    snapshots vanish without a word. The human hears it once per session, with what is
    wrong and the command that diagnoses it; Claude's context is left alone."""
    corrupt(mc_env)
    done = start(mc_hook)
    message = done.json["systemMessage"]
    assert str(mc_env.data_root / "tasks.db") in message
    assert "not a SQLite database" in message
    assert message.rstrip().endswith("/bin/missioncache doctor")
    assert "hookSpecificOutput" not in done.json
    launcher = message.rsplit(" ", 2)[-2]
    assert os.access(launcher, os.X_OK)  # the command it names exists and runs
    assert start(mc_hook, source="compact").stdout == ""  # same session: told already
    assert start(mc_hook, source="resume").stdout == ""
    assert "systemMessage" in start(mc_hook, sid="sess-2").json  # a new session hears it


def test_a_directory_in_place_of_the_database_is_told_too(mc_hook, mc_env, mc_task):
    for name in ("tasks.db", "tasks.db-wal", "tasks.db-shm"):
        (mc_env.data_root / name).unlink(missing_ok=True)
    (mc_env.data_root / "tasks.db").mkdir()
    assert "not a regular file" in start(mc_hook).json["systemMessage"]


def test_a_task_whose_folder_is_gone_does_not_look_fine(mc_hook, mc_env, mc_task, mc_task_dir):
    """Issue 12 item 10: the status said "tracking" while the task's folder was gone."""
    import shutil

    shutil.rmtree(mc_task_dir)
    done = start(mc_hook)
    assert "is gone (deleted or moved)" in done.json["systemMessage"]
    assert f"/missioncache:new {mc_task.name}" in done.json["systemMessage"]
    assert "/bin/missioncache close demo-task" in context_of(done)


def test_locked_database_does_not_block_the_banner_for_long(mc_hook, mc_env, mc_task):
    """A writer holding tasks.db: the banner still comes (reads work in WAL); the
    heartbeat folding just waits its bounded busy timeout and is skipped."""
    conn = sqlite3.connect(str(mc_env.data_root / "tasks.db"), isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    try:
        done = start(mc_hook, timeout=9)
    finally:
        conn.execute("ROLLBACK")
        conn.close()
    assert "Active Task Detected" in context_of(done)


# -- pending pre-compact failure ----------------------------------------------------------------


def test_pending_precompact_error_is_reported_once(mc_hook, mc_env, mc_task):
    state = mc_env.claude_dir / "hooks" / "state"
    state.mkdir(parents=True)
    record = {"task": "demo-task", "error": "LockTimeout: lock busy", "time": "2026-01-02 03:04"}
    (state / "precompact-error.json").write_text(json.dumps(record))
    done = start(mc_hook)
    message = done.json["systemMessage"]
    assert message.startswith("MissionCache: tracking demo-task")
    assert "pre-compaction snapshot of demo-task at 2026-01-02 03:04" in message
    assert "LockTimeout: lock busy" in message
    assert "was not saved" in message and "/missioncache:save" in message  # what to do
    assert "LockTimeout: lock busy" in context_of(done)
    assert "/missioncache:save" in context_of(done)
    assert not (state / "precompact-error.json").exists()
    again = start(mc_hook)
    assert "pre-compaction" not in again.json["systemMessage"]
    assert "LockTimeout" not in context_of(again)


def test_a_snapshot_saved_beside_a_diverted_editor_save_is_told_as_saved(mc_hook, mc_env, mc_task):
    state = mc_env.claude_dir / "hooks" / "state"
    state.mkdir(parents=True)
    record = {"task": "demo-task", "error": "kept at /k/c.md", "time": "t", "saved": True}
    (state / "precompact-error.json").write_text(json.dumps(record))
    message = start(mc_hook).json["systemMessage"]
    assert "pre-compaction snapshot of demo-task at t was saved, but an editor's save" in message
    assert "kept at /k/c.md" in message and "put its changes back" in message
    assert "not saved" not in message


def test_spool_entries_set_aside_are_told_to_the_human_once(mc_hook, mc_env, mc_task):
    """A spool line no ingest can read is quarantined at SessionStart's ingest; the human
    hears it once (with the folder and the diagnosing command), not in every session."""
    spool = mc_env.data_root / "spool"
    spool.mkdir(exist_ok=True)
    (spool / "9-x.jsonl").write_text('{"uid": ' + "[" * 5000 + "]" * 5000 + "}\n")
    first = start(mc_hook).json["systemMessage"]
    assert "1 unreadable spool entry was set aside in" in first
    assert str(spool / "quarantine") in first and "doctor" in first
    assert start(mc_hook, sid="sess-2").json["systemMessage"].startswith(ZERO_MESSAGE)
    assert "set aside" not in start(mc_hook, sid="sess-2").json["systemMessage"]
