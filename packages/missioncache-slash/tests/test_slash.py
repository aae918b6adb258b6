"""The slash commands' shell helper, run as a real process the way a ``!`` line runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from missioncache_harness.workspace import python3
from missioncache_time import record_heartbeat

SLASH = Path(__file__).resolve().parents[1] / "slash.py"


def run_slash(world, *args, cwd=None, script=SLASH, python=(sys.executable,), **env):
    environ = {k: v for k, v in {**world.env, **env}.items() if v != ""}
    done = subprocess.run(
        [*python, str(script), *args],
        cwd=str(cwd or world.repo),
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr  # a failing ! line would abort the command
    assert "Traceback" not in done.stdout + done.stderr
    return done.stdout


@pytest.fixture
def demo(world):
    task = world.task("demo", repo=world.repo, jira="PROJ-1")
    world.write(task.tasks_file, "# Demo - Tasks\n\n- [ ] 1. Parse\n- [x] 2. Plan\n")
    return task


# -- load ------------------------------------------------------------------------------------


def test_load_by_name_binds_and_shows_both_files(world, demo, tmp_path):
    out = run_slash(world, "load", "demo", cwd=tmp_path)
    assert out.startswith("MISSIONCACHE: loaded task demo.\n**Task:** demo (id ")
    assert "**JIRA:** PROJ-1" in out
    assert f"This session ({world.sid}) is now bound to demo." in out
    assert f"### Context file: {demo.context_file}\n\n```markdown\n# Demo - Context" in out
    assert "- [ ] 1. Parse\n- [x] 2. Plan\n```" in out
    assert world.binding()["taskId"] == demo.id
    assert "WARNING" not in out


def test_load_shows_the_last_compaction_summaries_newest_first_after_the_files(world, demo):
    from missioncache_db import record_compaction

    for n, trigger in enumerate(["manual", "auto", "manual", "auto"]):
        raw = f"<analysis>x</analysis><summary>SUMMARY-{n} with ```code```</summary>"
        record_compaction(demo, raw, trigger, "sess-old", when=1_800_000_000 + n)
    out = run_slash(world, "load", "demo")
    tasks_at = out.index("### Tasks file:")
    heading = out.index("### Last compaction summaries (newest first; 4 compactions on record)")
    positions = [out.find(f"SUMMARY-{n} ") for n in (3, 2, 1)]
    assert tasks_at < heading < positions[0] < positions[1] < positions[2]
    assert "SUMMARY-0" not in out  # only the newest three
    assert "auto compaction, session sess-old" in out
    assert "````text\nSUMMARY-3 with ```code```\n````" in out  # a fence its text cannot close


def test_load_without_compactions_shows_no_summary_section(world, demo):
    assert "Last compaction summaries" not in run_slash(world, "load", "demo")


def test_load_reports_and_clears_a_pending_precompact_failure(world, demo):
    from missioncache_state.statefile import load_state, save_state

    record = {
        "task": "demo",
        "task_id": demo.id,
        "error": "lock timeout",
        "time": "2026-01-02 03:04",
    }
    save_state("precompact-error", record)
    out = run_slash(world, "load", "demo")
    assert (
        "WARNING: The pre-compaction snapshot of demo at 2026-01-02 03:04 was not saved (lock"
        " timeout). Run `/missioncache:save` to save the context by hand." in out
    )
    assert load_state("precompact-error") is None
    assert "WARNING" not in run_slash(world, "load", "demo")


def test_load_tells_a_snapshot_saved_beside_a_diverted_editor_save(world, demo):
    from missioncache_state.statefile import save_state

    record = {"task": "demo", "error": "kept at /k/c.md", "time": "2026-01-02 03:04", "saved": True}
    save_state("precompact-error", record)
    out = run_slash(world, "load", "demo")
    assert "The pre-compaction snapshot of demo at 2026-01-02 03:04 was saved, but" in out
    assert "kept at /k/c.md" in out and "put its changes back" in out
    assert "not saved" not in out


def test_a_corrupt_failure_record_is_still_reported_once(world, demo):
    from missioncache_state.statefile import state_path

    world.write(Path(state_path("precompact-error")), "{not json")
    assert "the failure record could not be read" in run_slash(world, "load", "demo")
    assert not Path(state_path("precompact-error")).exists()


def test_load_without_a_name_uses_the_task_of_this_directory(world, demo):
    sub = world.repo / "lib"
    sub.mkdir()
    out = run_slash(world, "load", "", cwd=sub)
    assert out.startswith("MISSIONCACHE: loaded task demo.")


def test_load_without_a_name_prefers_this_sessions_binding(world, demo):
    world.task("other")
    run_slash(world, "load", "other")
    assert run_slash(world, "load", "").startswith("MISSIONCACHE: loaded task other.")


def test_load_without_a_name_and_no_task_lists_the_open_ones(world, demo, tmp_path):
    out = run_slash(world, "load", "", cwd=tmp_path)
    assert out.startswith("MISSIONCACHE: no task given and none is tracked here.")
    assert "Open tasks: demo." in out
    assert world.binding() is None


def test_load_without_a_name_names_the_candidates_of_a_shared_repository(world, demo):
    world.task("second", repo=world.repo)
    out = run_slash(world, "load", "", CLAUDE_CODE_SESSION_ID="")
    assert "2 active tasks (demo, second)" in out


def test_load_of_an_unknown_task_is_one_line_and_exit_zero(world, demo):
    out = run_slash(world, "load", "nope")
    assert out == "MISSIONCACHE ERROR: No task named 'nope'. Open tasks: demo.\n"


def test_file_contents_cannot_close_the_fence_they_are_shown_in(world, demo):
    world.write(demo.context_file, "# C\n\n````python\nx\n````\n")
    out = run_slash(world, "load", "demo")
    assert "`````markdown\n# C\n\n````python\nx\n````\n`````" in out


def test_a_missing_file_is_said_to_be_missing(world, demo):
    demo.tasks_file.unlink()
    out = run_slash(world, "load", "demo")
    assert f"### Tasks file: {demo.tasks_file}\n\n(missing or unreadable)" in out


def test_without_a_session_id_the_task_loads_but_nothing_is_bound(world, demo):
    out = run_slash(world, "load", "demo", CLAUDE_CODE_SESSION_ID="")
    assert "This session was not bound" in out
    assert world.binding() is None


# -- save ------------------------------------------------------------------------------------


def test_save_folds_heartbeats_and_shows_the_files(world, demo):
    from missioncache_db import TaskDB

    with TaskDB() as db:
        for offset in (0, 120):
            record_heartbeat(db, demo.id, world.sid, timestamp=1_700_000_000 + offset)
    out = run_slash(world, "save")
    assert out.startswith("MISSIONCACHE: saving task demo.")
    assert "**Time invested:** 4m in total" in out  # 120 s + 120 s assumed tail
    assert f"### Tasks file: {demo.tasks_file}" in out
    with TaskDB() as db:
        pending = db.conn.execute("SELECT COUNT(*) FROM heartbeats WHERE processed = 0")
        assert pending.fetchone()[0] == 0


CONFLICTED = (
    "# Demo - Context\n\n**Last Updated:** 2026-12-01 10:00\n\n## Next Steps\n"
    "<<<<<<< laptop\n- ship the parser\n=======\n- rewrite the parser first\n"
    ">>>>>>> desktop\n\n## Recent Changes\n"
)


def test_a_save_meeting_a_sync_conflict_asks_the_person_and_drops_no_side(world, demo):
    """Both machines' Next Steps are in the file: the save report says what the markers
    are and to ask the person; replacing the section is refused, so no version is lost."""
    world.write(demo.context_file, CONFLICTED)
    run_slash(world, "load", "demo")
    report = run_slash(world, "save")
    assert f"SYNC CONFLICT in {demo.context_file}" in report
    assert "Ask the person which version to keep" in report
    out = run_slash(
        world, "apply", "--context-file", str(demo.context_file), "--next-step", "one side"
    )
    assert out.startswith("MISSIONCACHE ERROR:") and "SYNC CONFLICT" in out
    text = demo.context_file.read_text()
    assert "- ship the parser" in text and "- rewrite the parser first" in text


def test_save_without_a_task_says_there_is_nothing_to_save(world, demo, tmp_path):
    out = run_slash(world, "save", cwd=tmp_path)
    assert out.startswith("MISSIONCACHE: this session is not tracking a task")
    assert "Open tasks: demo." in out


# -- new -------------------------------------------------------------------------------------


@pytest.fixture
def git_repo(tmp_path):
    repo = tmp_path / "gitrepo"
    (repo / "src" / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    return repo.resolve()


def test_new_ties_the_task_to_the_git_work_tree_and_binds(world, git_repo):
    out = run_slash(world, "new", "fix-login PROJ-42", cwd=git_repo / "src" / "pkg")
    assert out.startswith("MISSIONCACHE: Created task fix-login.")
    assert f"**Repository:** {git_repo}" in out
    assert "**JIRA:** PROJ-42" in out
    assert world.binding()["projectName"] == "fix-login"
    assert (world.root / "active" / "fix-login" / "fix-login-tasks.md").is_file()


def test_new_derives_a_name_from_several_words(world, git_repo):
    out = run_slash(world, "new", "Fix The Login!", cwd=git_repo)
    assert out.startswith("MISSIONCACHE: Created task fix-the-login.")
    assert "derived from what was typed" in out


def test_new_outside_git_ties_the_directory_but_never_home(world, tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    assert f"**Repository:** {plain.resolve()}" in run_slash(world, "new", "one", cwd=plain)
    out = run_slash(world, "new", "two", cwd=world.home)
    assert "Not tied to a repository" in out and "**Repository:**" not in out


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("", "MISSIONCACHE: no task name given. Usage: /missioncache:new <name> [JIRA-KEY].\n"),
        ("demo", "MISSIONCACHE ERROR: Task 'demo' already exists.\n"),
    ],
)
def test_new_errors_are_one_line(world, demo, git_repo, words, expected):
    assert run_slash(world, "new", words, cwd=git_repo) == expected


# -- the installed layout ----------------------------------------------------------------------


def test_the_built_plugin_runs_on_a_bare_python_with_its_bundled_libraries(world, demo, mc_plugin):
    """``python -I -S``: no site-packages, no PYTHONPATH, only the plugin's own copy."""
    script = mc_plugin / "slash" / "slash.py"
    out = run_slash(world, "load", "demo", script=script, python=(python3(), "-I", "-S"))
    assert out.startswith("MISSIONCACHE: loaded task demo.")
    assert world.binding()["taskId"] == demo.id


def test_without_any_libraries_the_helper_still_exits_zero(world):
    out = run_slash(world, "load", "demo", python=(python3(), "-I", "-S"))
    assert out.startswith("MISSIONCACHE ERROR: ")
    assert "\n" not in out.rstrip("\n")


def test_unknown_subcommands_get_the_usage(world):
    assert run_slash(world, "frobnicate").startswith("MISSIONCACHE ERROR: Usage: slash.py")
    assert os.path.isfile(SLASH)


# -- issue 12: instructions, a vanished task folder, no MCP server -------------------------------


def with_uvx(tmp_path) -> str:
    """A PATH holding a ``uvx`` (the real one is not needed: only its presence is asked)."""
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "uvx").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "uvx").chmod(0o755)
    return f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"


NO_UVX = f"/usr/bin{os.pathsep}/bin"


def test_load_and_new_carry_the_task_instructions(world, demo, git_repo, tmp_path):
    """Item 8: the instructions that lived in ~/.claude/rules reach a session that takes a
    task on after it started."""
    path = with_uvx(tmp_path)
    for out in (
        run_slash(world, "load", "demo", PATH=path),
        run_slash(world, "new", "other", cwd=git_repo, PATH=path),
    ):
        assert "**Working on a MissionCache task:**" in out
        assert "mcp__plugin_missioncache_pm__update_tasks_file" in out
        assert "NOTE FOR THE USER" not in out and "FALLBACK" not in out


@pytest.mark.parametrize("command", ["load", "save"])
def test_a_vanished_task_folder_is_said_in_plain_words_with_the_ways_out(world, demo, command):
    """Item 10: before, load said "loaded" with missing files and save went on to fail."""
    import shutil

    world.task_dir = demo.directory
    shutil.rmtree(demo.directory)
    args = [command, "demo"] if command == "load" else [command]
    if command == "save":
        from missioncache_state.bindings import write_session_binding

        write_session_binding(world.sid, "demo", demo.id)
    out = run_slash(world, *args)
    assert out.startswith("MISSIONCACHE PROBLEM: the folder of task demo is gone")
    for way in ("/missioncache:new demo", "recreate demo", "close demo", "delete demo --yes"):
        assert way in out
    assert "Errno" not in out and "FileNotFoundError" not in out
    assert not demo.directory.exists()  # nothing written behind the user's back


def test_new_recreates_the_files_of_a_task_whose_folder_is_gone(world, demo, git_repo):
    import shutil

    shutil.rmtree(demo.directory)
    out = run_slash(world, "new", "demo", cwd=git_repo)
    assert out.startswith("MISSIONCACHE: task demo already existed but its folder was gone")
    assert demo.context_file.is_file() and demo.tasks_file.is_file()
    assert world.binding()["taskId"] == demo.id
    assert "already exists" in run_slash(world, "new", "demo", cwd=git_repo)


def test_without_uvx_the_commands_say_so_once_and_give_the_fallback(world, demo):
    """Item 11: without uvx the MCP server cannot start and the failure showed only in
    /mcp. The human is told once per session; Claude gets the fallback every time."""
    first = run_slash(world, "load", "demo", PATH=NO_UVX)
    assert "NOTE FOR THE USER: `uvx` (from uv" in first
    assert "FALLBACK:" in first and " apply` with options" in first
    again = run_slash(world, "save", PATH=NO_UVX)
    assert "NOTE FOR THE USER" not in again and "FALLBACK:" in again
    other_session = run_slash(world, "save", PATH=NO_UVX, CLAUDE_CODE_SESSION_ID="s-other")
    assert other_session.startswith("MISSIONCACHE: saving task demo.")  # found by its repo
    assert "NOTE FOR THE USER" in other_session


def test_apply_updates_both_files_without_the_mcp_server(world, demo, mc_plugin):
    """The built plugin on a bare ``python -I -S``: no mcp SDK, no site-packages."""
    script = mc_plugin / "slash" / "slash.py"
    payload = json.dumps(
        {
            "context_file": str(demo.context_file),
            "recent_change": "Parsed the input; it's faster",
            "next_steps": ["Ship it"],
            "tasks_file": str(demo.tasks_file),
            "completed_tasks": ["1"],
            "new_tasks": ["Write docs"],
        }
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(script), "apply"],
        input=payload,
        env={**world.env, "PATH": NO_UVX},
        cwd=str(world.repo),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.startswith("MISSIONCACHE: saved."), done.stdout
    context = demo.context_file.read_text()
    assert "- Parsed the input; it's faster" in context and "- Ship it" in context
    tasks = demo.tasks_file.read_text()
    assert "- [x] 1. Parse" in tasks and "- [ ] 3. Write docs" in tasks


def test_apply_refuses_a_file_outside_the_data_root_in_one_line(world, demo, tmp_path):
    outside = tmp_path / "x-context.md"
    outside.write_text("# mine\n")
    out = run_slash(world, "apply", "--context-file", str(outside), "--recent-change", "x")
    assert out.startswith("MISSIONCACHE ERROR: Refusing to edit")
    assert outside.read_text() == "# mine\n"
    assert run_slash(world, "apply", "--bogus").startswith("MISSIONCACHE ERROR: Apply: ")
    assert run_slash(world, "apply", "--done", "1").startswith(
        "MISSIONCACHE ERROR: Apply needs --context-file and/or --tasks-file"
    )


def test_apply_with_options_is_what_claude_runs(world, demo):
    """Options, not JSON: Claude Code refuses a Bash command with a brace beside a quote."""
    out = run_slash(
        world,
        "apply",
        "--context-file",
        str(demo.context_file),
        "--recent-change",
        "Fixed the parser",
        "--next-step",
        "Ship",
        "--next-step",
        "Tell the team",
        "--tasks-file",
        str(demo.tasks_file),
        "--done",
        "1",
        "--new-task",
        "Write docs",
    )
    assert out.startswith("MISSIONCACHE: saved.")
    context = demo.context_file.read_text()
    assert "- Fixed the parser" in context and "- Ship\n- Tell the team\n" in context
    assert "- [x] 1. Parse" in demo.tasks_file.read_text()
    assert "- [ ] 3. Write docs" in demo.tasks_file.read_text()


def test_apply_reads_look_alike_selectors_as_text(world, demo):
    """The slash fallback and the MCP tool share one selector grammar: ``taſk 1`` and
    ``Task ١`` (Arabic-Indic one) name no task number, so item 1 stays unchecked."""
    before = demo.tasks_file.read_text()
    out = run_slash(
        world,
        "apply",
        "--tasks-file",
        str(demo.tasks_file),
        "--done",
        "ta\u017fk 1",
        "--done",
        "Task \u0661",
    )
    assert "Not matched" in out, out
    assert demo.tasks_file.read_text() == before


def test_apply_tells_both_outcomes_when_only_the_tasks_file_fails(world, demo):
    """The context entry landed but the tasks file is not UTF-8: the user used to see
    only the tasks error, and believed (and Claude retried) the context save too."""
    demo.tasks_file.write_bytes(b"# Demo - Tasks\n\n- [ ] 1. Pars\xe9\n")
    out = run_slash(
        world,
        "apply",
        *("--context-file", str(demo.context_file), "--recent-change", "Fixed the parser"),
        *("--tasks-file", str(demo.tasks_file), "--done", "1"),
    )
    lines = out.splitlines()
    assert lines[0].startswith("MISSIONCACHE: only partly saved; the tasks file was NOT saved")
    assert lines[1].startswith(f"Updated {demo.context_file}: added a Recent Changes entry")
    assert lines[2].startswith("The tasks file was NOT saved: ")
    assert "UTF-8" in lines[2]
    assert "- Fixed the parser" in demo.context_file.read_text()
    assert demo.tasks_file.read_bytes().endswith(b"Pars\xe9\n")


def test_apply_says_nothing_was_saved_when_both_files_fail(world, demo, tmp_path):
    outside = tmp_path / "x-context.md"
    outside.write_text("# mine\n")
    out = run_slash(
        world,
        "apply",
        *("--context-file", str(outside), "--recent-change", "x"),
        *("--tasks-file", str(tmp_path / "x-tasks.md"), "--done", "1"),
    )
    lines = out.splitlines()
    assert lines[0] == "MISSIONCACHE ERROR: nothing was saved."
    assert lines[1].startswith("The context file was NOT saved: Refusing to edit")
    assert lines[2].startswith("The tasks file was NOT saved: Refusing to edit")


def test_load_reports_and_clears_a_lost_compaction_summary(world, demo):
    from missioncache_state.summary_failure import record_summary_failure

    record_summary_failure("demo", "No space left on device", "2026-12-01 10:00")
    out = run_slash(world, "load", "demo")
    assert (
        "WARNING: MissionCache could not keep the compaction summary of task demo at"
        " 2026-12-01 10:00 (No space left on device); run /missioncache:save" in out
    )
    assert "could not keep" not in run_slash(world, "load", "demo")


# -- issue 26: a pm server that is not answering ----------------------------------------------


def down_record(world) -> int:
    """A record saying this Claude process's server was killed; returns the pid to name."""
    import time

    from missioncache_state.pm_health import write_record

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    me = os.getpid()
    started = time.time() - 60
    write_record(
        me,
        {
            "state": "ready",
            "launcher_pid": gone.pid,
            "server_pid": gone.pid,
            "started": started,
            "beat": time.time(),
        },
    )
    return me


def test_save_tells_the_user_once_and_gives_claude_the_fallback(world, demo, tmp_path):
    from missioncache_state.bindings import write_session_binding

    write_session_binding(world.sid, "demo", demo.id)
    pid = str(down_record(world))
    path = with_uvx(tmp_path)
    first = run_slash(world, "save", PATH=path, MISSIONCACHE_PM_CLAUDE_PID=pid)
    assert "NOTE FOR THE USER: MissionCache: its `pm` tool server stopped" in first
    assert "/mcp, pick plugin:missioncache:pm, choose Reconnect" in first
    assert "FALLBACK:" in first and " apply` with options" in first
    again = run_slash(world, "save", PATH=path, MISSIONCACHE_PM_CLAUDE_PID=pid)
    assert "NOTE FOR THE USER" not in again and "FALLBACK:" in again


def test_save_names_the_helper_even_when_the_server_looks_fine(world, demo, tmp_path):
    """Claude may still find the tools gone (a server that died a moment ago): save.md
    tells it to use the helper then, and the report names it by its full path."""
    from missioncache_state.bindings import write_session_binding

    write_session_binding(world.sid, "demo", demo.id)
    out = run_slash(world, "save", PATH=with_uvx(tmp_path), MISSIONCACHE_PM_CLAUDE_PID="1")
    assert "FALLBACK" not in out and "NOTE FOR THE USER" not in out
    assert 'Helper, should the tools be unavailable: `sh "' in out
    assert '/hooks/launch.sh" "' in out and 'slash.py"`' in out  # runs where python3 is not


def test_a_new_task_is_never_saved_until_a_real_save(world, demo, tmp_path):
    """Issue 26 item 2: the status line's "saved HH:MM" reads this record."""
    from missioncache_state.saves import last_save

    assert last_save(demo.directory) == (True, None)
    before = time.time()
    out = run_slash(
        world, "apply", "--context-file", str(demo.context_file), "--recent-change", "Did it"
    )
    assert out.startswith("MISSIONCACHE: saved.")
    known, when = last_save(demo.directory)
    assert known and when >= before - 1


def test_one_compaction_is_one_compaction_on_record(world, demo):
    from missioncache_db import record_compaction

    record_compaction(demo, "<summary>ONLY</summary>", "manual", "sess-old", when=1_800_000_000)
    out = run_slash(world, "load", "demo")
    assert "### Last compaction summaries (newest first; 1 compaction on record)" in out
