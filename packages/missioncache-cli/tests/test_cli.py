"""The command line as a user would use it (``python -S -m missioncache_cli``): a bare
interpreter that finds our sources through PYTHONPATH only."""

import json
import os
import sys
from pathlib import Path

import pytest

from missioncache_cli.cli import main
from missioncache_db import TaskDB, bound_task, find_task
from missioncache_state.bindings import read_session_binding

SID = "sess-b"


def ok(done):
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


def user_error(done):
    """One clear line on stderr, exit 1, no traceback."""
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("missioncache: error: ")
    return lines[0]


def test_create_task_with_repo_dot_from_a_bare_interpreter(cli, mc_roots, mc_workdir):
    data, _ = mc_roots
    out = ok(cli("create-task", "demo", "--repo", ".", cwd=mc_workdir))
    assert "active/demo" in out
    assert (data / "active" / "demo" / "demo-context.md").is_file()
    assert (data / "active" / "demo" / "demo-tasks.md").is_file()
    with TaskDB() as db:
        (task,) = db.list_tasks()
        assert task.repo_path == os.path.realpath(mc_workdir)


def test_create_task_options_and_list(cli, mc_workdir):
    ok(cli("create-task", "parent", "--jira", "PROJ-7", "--repo", str(mc_workdir)))
    ok(cli("create-task", "child", "--parent", "parent"))
    header, *out = ok(cli("list")).splitlines()
    assert header.split() == ["ID", "STATUS", "TASK", "JIRA", "REPOSITORY"]
    assert len(out) == 2
    assert "parent" in out[0] and "PROJ-7" in out[0] and os.path.realpath(mc_workdir) in out[0]
    assert "parent/child" in out[1] and "active" in out[1]
    assert out[0].index("PROJ-7") == header.index("JIRA")  # columns line up under the header
    ok(cli("status", "child", "paused"))
    header, *paused = ok(cli("list", "--status", "paused")).splitlines()
    assert len(paused) == 1 and "parent/child" in paused[0]


def test_list_when_empty(cli):
    assert ok(cli("list")).strip() == "no tasks"


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("create-task", "Bad_Name"), "invalid task name"),
        (("create-task", "x", "--parent", "nope"), "no top-level task named 'nope'"),
        (("create-task", "x", "--repo", "/definitely/not/here"), "not a directory"),
        (("time", "nope"), "no task named 'nope'"),
        (("time", "x", "--period", "year"), "invalid choice"),
        (("bind", "s1", "nope"), "no task named 'nope'"),
        (("status", "nope", "paused"), "no task named 'nope'"),
        (("status", "x", "done"), "invalid choice"),
        (("frobnicate",), "invalid choice"),
        ((), "required"),
        (("create-task",), "required"),
        (("list", "--bogus"), "unrecognized arguments"),
    ],
)
def test_mistakes_are_one_line_exit_1(cli, args, fragment):
    assert fragment in user_error(cli(*args))


def test_duplicate_task(cli):
    ok(cli("create-task", "dup"))
    assert "already exists" in user_error(cli("create-task", "dup"))


def test_ambiguous_name_asks_for_parent(cli):
    for args in (("a",), ("b",), ("same", "--parent", "a"), ("same", "--parent", "b")):
        ok(cli("create-task", *args))
    assert "several tasks" in user_error(cli("time", "same"))
    assert ok(cli("time", "b/same")).strip() == "same: 0s (Claude 0s, you 0s), all time"


def test_heartbeat_auto_time_and_process(cli, mc_workdir):
    ok(cli("create-task", "demo", "--repo", str(mc_workdir)))
    for _ in range(2):
        done = cli("heartbeat-auto", cwd=mc_workdir, env={"CLAUDE_SESSION_ID": "s-1"})
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert ok(cli("process-heartbeats")).strip() == "processed 2 heartbeats"
    assert ok(cli("process-heartbeats")).strip() == "processed 0 heartbeats"
    for period in ("all", "today", "week"):
        assert ok(cli("time", "demo", "--period", period)).startswith("demo: ")
    with TaskDB() as db:
        rows = db.conn.execute("SELECT session_id, processed FROM heartbeats").fetchall()
    assert rows == [("s-1", 1), ("s-1", 1)]


def test_unusable_database_is_one_line_for_other_commands(cli, mc_roots):
    data, _ = mc_roots
    data.mkdir(parents=True)
    (data / "tasks.db").write_bytes(b"this is not a database" * 100)
    assert "tasks.db" in user_error(cli("list"))


def test_bind_and_unbind(cli, mc_workdir):
    ok(cli("create-task", "demo"))
    ok(cli("create-task", "other", "--repo", str(mc_workdir)))
    ok(cli("bind", "sess-7", "demo"))
    binding = read_session_binding("sess-7")
    with TaskDB() as db:
        demo = db.get_task_by_name("demo")
        assert binding["taskId"] == demo.id and binding["projectName"] == "demo"
        assert db.find_task_for_cwd(mc_workdir, "sess-7") == demo
    assert "unbound" in ok(cli("unbind", "sess-7"))
    assert read_session_binding("sess-7") is None
    assert "was not bound" in ok(cli("unbind", "sess-7"))


@pytest.mark.parametrize("sid", ["../x", "a/b", "s" * 300, "."])
def test_bind_with_hostile_session_id_writes_nothing(cli, mc_roots, sid):
    _, claude = mc_roots
    ok(cli("create-task", "demo"))
    assert "invalid session id" in user_error(cli("bind", sid, "demo"))
    assert "invalid session id" in user_error(cli("unbind", sid))
    assert not claude.exists() or not any(p.is_file() for p in claude.rglob("*"))


def test_help_works(cli):
    out = ok(cli("--help"))
    for command in ("create-task", "list", "time", "bind", "unbind"):
        assert command in out
    for internal in ("heartbeat-auto", "process-heartbeats"):  # the hooks', still runnable
        assert internal not in out and "usage:" in ok(cli(internal, "--help"))


def test_main_in_process(mc_roots, capsys, mc_workdir):
    assert main(["create-task", "inproc", "--repo", str(mc_workdir)]) == 0
    assert "active/inproc" in capsys.readouterr().out
    assert main(["create-task", "inproc"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already exists" in err
    assert main(["time", "inproc", "--period", "today"]) == 0
    assert capsys.readouterr().out.strip() == "inproc: 0s (Claude 0s, you 0s), today"


def test_module_entry_point_matches_console_script():
    import tomllib

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    scripts = tomllib.loads(pyproject.read_text())["project"]["scripts"]
    assert scripts == {
        "missioncache": "missioncache_cli.cli:main",
    }
    assert json.dumps(sys.version_info[:2])  # the suite itself runs on 3.11+


def test_bind_refuses_a_closed_task(db, mc_workdir, cli):
    """A binding with a folder is trusted to name an open task (the hooks' shortcut), so
    ``bind`` must not write one for a closed task: Stop would keep using it."""
    task = db.create_task("done")
    db.set_status(task.id, "completed")
    refused = cli("bind", SID, "done")
    assert refused.returncode == 1
    assert "done is completed" in refused.stderr and "status done active" in refused.stderr
    assert bound_task(SID) is None and find_task(str(mc_workdir), SID) is None


def test_the_database_package_has_no_command_line():
    """The store is only the store: every command a person types lives here."""
    import importlib.util

    for module in ("cli", "cli_common", "cli_report", "cli_statusline", "doctor"):
        assert importlib.util.find_spec(f"missioncache_db.{module}") is None
