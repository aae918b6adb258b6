"""The slash commands' shell helper, run as a real process the way a ``!`` line runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from missioncache_harness.workspace import python3

SLASH = Path(__file__).resolve().parents[1] / "src" / "missioncache_pm" / "slash.py"


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
        "WARNING: The last automatic save before compaction failed at 2026-01-02 03:04 for "
        "task demo: lock timeout." in out
    )
    assert load_state("precompact-error") is None
    assert "WARNING" not in run_slash(world, "load", "demo")


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
            db.record_heartbeat(demo.id, world.sid, timestamp=1_700_000_000 + offset)
    out = run_slash(world, "save")
    assert out.startswith("MISSIONCACHE: saving task demo.")
    assert "**Time invested:** 4m in total" in out  # 120 s + 120 s assumed tail
    assert f"### Tasks file: {demo.tasks_file}" in out
    with TaskDB() as db:
        pending = db.conn.execute("SELECT COUNT(*) FROM heartbeats WHERE processed = 0")
        assert pending.fetchone()[0] == 0


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


def test_the_built_plugin_runs_on_a_bare_python_with_its_bundled_libraries(
    world, demo, built_plugin
):
    """``python -I -S``: no site-packages, no PYTHONPATH, only the plugin's own copy."""
    script = built_plugin / "missioncache-pm" / "src" / "missioncache_pm" / "slash.py"
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
