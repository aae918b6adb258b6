"""The command line as a user (and the UserPromptSubmit hook) would use it: a bare
interpreter (``python -S``) that finds our sources through PYTHONPATH only."""

import json
import os
import sys
from pathlib import Path

import pytest

from missioncache_db import TaskDB
from missioncache_db.cli import main
from missioncache_harness.import_cost import heavy_from, measuring
from missioncache_state.bindings import read_session_binding


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
    assert lines[0].startswith("missioncache-db: error: ")
    return lines[0]


def test_create_task_with_repo_dot_from_a_bare_interpreter(cli, roots, workdir):
    data, _ = roots
    out = ok(cli("create-task", "demo", "--repo", ".", cwd=workdir))
    assert "active/demo" in out
    assert (data / "active" / "demo" / "demo-context.md").is_file()
    assert (data / "active" / "demo" / "demo-tasks.md").is_file()
    with TaskDB() as db:
        (task,) = db.list_tasks()
        assert task.repo_path == os.path.realpath(workdir)


def test_create_task_options_and_list(cli, workdir):
    ok(cli("create-task", "parent", "--jira", "PROJ-7", "--repo", str(workdir)))
    ok(cli("create-task", "child", "--parent", "parent"))
    out = ok(cli("list")).splitlines()
    assert len(out) == 2
    assert "parent" in out[0] and "PROJ-7" in out[0] and os.path.realpath(workdir) in out[0]
    assert "parent/child" in out[1] and "active" in out[1]
    ok(cli("status", "child", "paused"))
    paused = ok(cli("list", "--status", "paused")).splitlines()
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


def test_heartbeat_auto_time_and_process(cli, workdir):
    ok(cli("create-task", "demo", "--repo", str(workdir)))
    for _ in range(2):
        done = cli("heartbeat-auto", cwd=workdir, env={"CLAUDE_SESSION_ID": "s-1"})
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert ok(cli("process-heartbeats")).strip() == "processed 2 heartbeats"
    assert ok(cli("process-heartbeats")).strip() == "processed 0 heartbeats"
    for period in ("all", "today", "week"):
        assert ok(cli("time", "demo", "--period", period)).startswith("demo: ")
    with TaskDB() as db:
        rows = db.conn.execute("SELECT session_id, processed FROM heartbeats").fetchall()
    assert rows == [("s-1", 1), ("s-1", 1)]


def test_heartbeat_auto_takes_claude_codes_own_variable(cli, workdir):
    ok(cli("create-task", "demo", "--repo", str(workdir)))
    ok(cli("heartbeat-auto", cwd=workdir, env={"CLAUDE_CODE_SESSION_ID": "cc-9"}))
    with TaskDB() as db:
        assert db.conn.execute("SELECT session_id FROM heartbeats").fetchall() == [("cc-9",)]


def test_heartbeat_auto_is_quiet_and_zero_when_nothing_resolves(cli, workdir):
    done = cli("heartbeat-auto", cwd=workdir, env={"CLAUDE_SESSION_ID": "../x"})
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    with TaskDB() as db:
        assert db.conn.execute("SELECT COUNT(*) FROM heartbeats").fetchone()[0] == 0


def test_heartbeat_auto_exits_zero_even_when_the_database_is_unusable(cli, workdir, roots):
    data, _ = roots
    data.mkdir(parents=True)
    (data / "tasks.db").write_bytes(b"this is not a database" * 100)
    done = cli("heartbeat-auto", cwd=workdir, env={"CLAUDE_SESSION_ID": "s1"})
    assert done.returncode == 0 and done.stdout == ""
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) <= 1


def test_unusable_database_is_one_line_for_other_commands(cli, roots):
    data, _ = roots
    data.mkdir(parents=True)
    (data / "tasks.db").write_bytes(b"this is not a database" * 100)
    assert "tasks.db" in user_error(cli("list"))


def test_bind_and_unbind(cli, workdir):
    ok(cli("create-task", "demo"))
    ok(cli("create-task", "other", "--repo", str(workdir)))
    ok(cli("bind", "sess-7", "demo"))
    binding = read_session_binding("sess-7")
    with TaskDB() as db:
        demo = db.get_task_by_name("demo")
        assert binding["taskId"] == demo.id and binding["projectName"] == "demo"
        assert db.find_task_for_cwd(workdir, "sess-7") == demo
    assert "unbound" in ok(cli("unbind", "sess-7"))
    assert read_session_binding("sess-7") is None
    assert "was not bound" in ok(cli("unbind", "sess-7"))


@pytest.mark.parametrize("sid", ["../x", "a/b", "s" * 300, "."])
def test_bind_with_hostile_session_id_writes_nothing(cli, roots, sid):
    _, claude = roots
    ok(cli("create-task", "demo"))
    assert "invalid session id" in user_error(cli("bind", sid, "demo"))
    assert "invalid session id" in user_error(cli("unbind", sid))
    assert not claude.exists() or not any(p.is_file() for p in claude.rglob("*"))


def test_help_works(cli):
    out = ok(cli("--help"))
    for command in ("heartbeat-auto", "process-heartbeats", "create-task", "list", "time",
                    "bind", "unbind"):  # fmt: skip
        assert command in out


def test_import_for_a_heartbeat_stays_lean(python):
    code = (
        "import sys, missioncache_db\n"
        "missioncache_db.TaskDB\n"
        "loaded = [m for m in ('argparse', 'missioncache_db.cli', 'missioncache_db.sessions',"
        " 'missioncache_db.templates', 'dataclasses') if m in sys.modules]\n"
        "print(loaded)\n"
    )
    done = python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_main_in_process(roots, capsys, workdir):
    assert main(["create-task", "inproc", "--repo", str(workdir)]) == 0
    assert "active/inproc" in capsys.readouterr().out
    assert main(["create-task", "inproc"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already exists" in err
    assert main(["time", "inproc", "--period", "today"]) == 0
    assert capsys.readouterr().out.strip() == "inproc: 0s (Claude 0s, you 0s), today"


def test_module_entry_point_matches_console_script():
    from pathlib import Path

    import tomllib

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    scripts = tomllib.loads(pyproject.read_text())["project"]["scripts"]
    assert scripts == {"missioncache-db": "missioncache_db.cli:main"}
    assert json.dumps(sys.version_info[:2])  # the suite itself runs on 3.11+


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO to stand for a hung file")
def test_heartbeat_auto_ends_itself_when_a_read_never_returns(cli, roots, workdir):
    """A FIFO in place of the session binding makes opening it block forever, like a hung
    network file system: the busy timeout cannot help, only the hard wall can. The hook
    never waits for this child, so the wall is all that stops it living on."""
    import signal

    _, claude = roots
    ok(cli("create-task", "demo", "--repo", str(workdir)))  # a set-up user: tasks.db exists
    projects = claude / "hooks" / "state" / "projects"
    projects.mkdir(parents=True)
    os.mkfifo(projects / "s1.json")
    done = cli("heartbeat-auto", cwd=workdir, env={"CLAUDE_SESSION_ID": "s1"}, timeout=30)
    assert done.returncode == -signal.SIGALRM
    assert done.stdout == ""


def test_hard_wall_is_cancelled_with_the_alarm_when_disarmed(python):
    """The wall is a real alarm of the configured length (and no wall before it is armed)."""
    code = (
        "import signal\n"
        "from missioncache_db.heartbeat_auto import arm_hard_wall, HEARTBEAT_WALL_SECONDS\n"
        "assert signal.alarm(0) == 0\n"
        "arm_hard_wall(HEARTBEAT_WALL_SECONDS)\n"
        "print(signal.alarm(0), HEARTBEAT_WALL_SECONDS)\n"
    )
    done = python(code)
    assert done.returncode == 0, done.stderr
    remaining, wall = map(int, done.stdout.split())
    assert wall == 2 and 1 <= remaining <= 2


def test_heartbeat_auto_entry_skips_the_argparse_command_line(python, cli, workdir):
    """``-m missioncache_db heartbeat-auto`` runs on every prompt: it must not pay for the
    rest of the command line (argparse), and must still record the heartbeat."""
    ok(cli("create-task", "demo", "--repo", str(workdir)))
    code = (
        "import runpy, signal, sys\n"
        "sys.argv = ['missioncache_db', 'heartbeat-auto']\n"
        "try:\n"
        "    runpy.run_module('missioncache_db', run_name='__main__', alter_sys=True)\n"
        "except SystemExit as stop:\n"
        "    signal.alarm(0)\n"
        "    print(stop.code, 'argparse' in sys.modules)\n"
    )
    assert python(code, cwd=workdir).stdout.split() == ["0", "False"]
    with TaskDB() as db:
        (task,) = db.list_tasks()
        assert db.conn.execute("SELECT count(*) FROM heartbeats").fetchone()[0] == 1
        assert task.name == "demo"


def test_hook_path_imports_nothing_heavy(python, cli, workdir):
    """What the hooks and the heartbeat child do costs no pathlib/typing/... imports:
    each is milliseconds of a ~12 ms interpreter start, on every prompt."""
    ok(cli("create-task", "demo", "--repo", str(workdir)))
    code = (
        "from missioncache_db import TaskDB, format_duration, heartbeat_auto, spool\n"
        "from missioncache_state.bindings import write_session_binding\n"
        "heartbeat_auto.main(); signal.alarm(0)\n"
        "with TaskDB(busy_timeout=1) as db:\n"
        "    task = db.find_task_for_cwd(os.getcwd(), 's1')\n"
        "    write_session_binding('s1', task.name, task.id)\n"
        "    assert db.find_task_for_cwd(os.getcwd(), 's1') == task\n"
        "    assert os.path.isfile(task.context_path) and os.path.isfile(task.tasks_path)\n"
        "    assert os.path.isdir(task.directory_path)\n"
        "    spool.append(db.spool_folder, {'uid': 'ab12', 'task_id': task.id, 'epoch': 1.0})\n"
        "    db.record_heartbeat_auto(os.getcwd(), 's1')\n"
        "    processed = db.process_heartbeats()\n"
        "    format_duration(db.time_invested(task.id))\n"
        "print(processed)\n"
    )
    done = python(measuring(code, "import os, signal, sqlite3, sys"), cwd=workdir)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["3"]
    assert heavy_from(done.stderr) == []


def test_task_string_paths_match_the_path_properties(db, workdir, roots):
    task = db.create_task("demo", repo=workdir)
    assert Path(task.directory_path) == task.directory
    assert Path(task.context_path) == task.context_file
    assert Path(task.tasks_path) == task.tasks_file
    assert db.file == str(db.path) and Path(db.spool_folder) == db.spool_dir
    Path(task.context_path).unlink()
    (task.directory / "context.md").write_text("bare layout\n")
    assert task.context_path == str(task.directory / "context.md") == str(task.context_file)


def test_heartbeat_auto_creates_nothing_for_a_user_without_tasks(cli, workdir, roots):
    """The plugin runs this on every prompt in every repository: before the user has
    created a task it must not create a data root or a database."""
    data, _ = roots
    done = cli("heartbeat-auto", cwd=workdir, env={"CLAUDE_SESSION_ID": "s1"})
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert not data.exists()
