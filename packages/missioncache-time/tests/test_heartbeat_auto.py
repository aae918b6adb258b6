"""``python -m missioncache_time heartbeat-auto`` as the UserPromptSubmit hook starts it on
every prompt: a bare interpreter (``python -S``) that finds our sources through PYTHONPATH
only. The command line for people is tested in packages/missioncache-cli."""

import os
from pathlib import Path

import pytest

from missioncache_db import TaskDB
from missioncache_harness.import_cost import heavy_from, measuring


def ok(done):
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


def make_task(mc_workdir):
    """A set-up user: tasks.db exists, with one task tied to ``mc_workdir``."""
    with TaskDB() as db:
        return db.create_task("demo", repo=mc_workdir)


def test_heartbeat_auto_takes_claude_codes_own_variable(cli, mc_workdir):
    make_task(mc_workdir)
    ok(cli("heartbeat-auto", cwd=mc_workdir, env={"CLAUDE_CODE_SESSION_ID": "cc-9"}))
    with TaskDB() as db:
        assert db.conn.execute("SELECT session_id FROM heartbeats").fetchall() == [("cc-9",)]


def test_heartbeat_auto_is_quiet_and_zero_when_nothing_resolves(cli, mc_workdir):
    done = cli("heartbeat-auto", cwd=mc_workdir, env={"CLAUDE_SESSION_ID": "../x"})
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    with TaskDB() as db:
        assert db.conn.execute("SELECT COUNT(*) FROM heartbeats").fetchone()[0] == 0


def test_heartbeat_auto_exits_zero_even_when_the_database_is_unusable(cli, mc_workdir, mc_roots):
    data, _ = mc_roots
    data.mkdir(parents=True)
    (data / "tasks.db").write_bytes(b"this is not a database" * 100)
    done = cli("heartbeat-auto", cwd=mc_workdir, env={"CLAUDE_SESSION_ID": "s1"})
    assert done.returncode == 0 and done.stdout == ""
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) <= 1


def test_import_for_a_heartbeat_stays_lean(mc_bare):
    code = (
        "import sys, missioncache_db\n"
        "missioncache_db.TaskDB\n"
        "loaded = [m for m in ('argparse', 'missioncache_cli', 'missioncache_time._sessions',"
        " 'missioncache_db._templates', 'dataclasses') if m in sys.modules]\n"
        "print(loaded)\n"
    )
    done = mc_bare.python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO to stand for a hung file")
def test_heartbeat_auto_ends_itself_when_a_read_never_returns(cli, mc_roots, mc_workdir):
    """A FIFO in place of the session binding makes opening it block forever, like a hung
    network file system: the busy timeout cannot help, only the hard wall can. The hook
    never waits for this child, so the wall is all that stops it living on."""
    import signal

    _, claude = mc_roots
    make_task(mc_workdir)  # a set-up user: tasks.db exists
    projects = claude / "hooks" / "state" / "projects"
    projects.mkdir(parents=True)
    os.mkfifo(projects / "s1.json")
    done = cli("heartbeat-auto", cwd=mc_workdir, env={"CLAUDE_SESSION_ID": "s1"}, timeout=30)
    assert done.returncode == -signal.SIGALRM
    assert done.stdout == ""


def test_hard_wall_is_cancelled_with_the_alarm_when_disarmed(mc_bare):
    """The wall is a real alarm of the configured length (and no wall before it is armed)."""
    code = (
        "import signal\n"
        "from missioncache_time._heartbeat_auto import arm_hard_wall, HEARTBEAT_WALL_SECONDS\n"
        "assert signal.alarm(0) == 0\n"
        "arm_hard_wall(HEARTBEAT_WALL_SECONDS)\n"
        "print(signal.alarm(0), HEARTBEAT_WALL_SECONDS)\n"
    )
    done = mc_bare.python(code)
    assert done.returncode == 0, done.stderr
    remaining, wall = map(int, done.stdout.split())
    assert wall == 2 and 1 <= remaining <= 2


@pytest.mark.skipif(not hasattr(os, "nice"), reason="no process priorities on Windows")
def test_the_heartbeat_child_runs_below_the_prompts_hooks(mc_bare):
    """The child yields the CPU to the task tracker it starts beside (a busy two-core
    machine made the prompt's pair of hooks half again slower)."""
    code = (
        "import os, signal\n"
        "from missioncache_time._heartbeat_auto import heartbeat_auto\n"
        "before = os.nice(0)\n"
        "heartbeat_auto()\n"
        "signal.alarm(0)\n"
        "print(os.nice(0) - before)\n"
    )
    done = mc_bare.python(code)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == 5


def test_heartbeat_auto_entry_skips_the_argparse_command_line(mc_bare, cli, mc_workdir):
    """``-m missioncache_time heartbeat-auto`` runs on every prompt: it must not pay for the
    rest of the command line (argparse), and must still record the heartbeat."""
    make_task(mc_workdir)
    code = (
        "import runpy, signal, sys\n"
        "sys.argv = ['missioncache_time', 'heartbeat-auto']\n"
        "try:\n"
        "    runpy.run_module('missioncache_time', run_name='__main__', alter_sys=True)\n"
        "except SystemExit as stop:\n"
        "    signal.alarm(0)\n"
        "    print(stop.code, 'argparse' in sys.modules)\n"
    )
    assert mc_bare.python(code, cwd=mc_workdir).stdout.split() == ["0", "False"]
    with TaskDB() as db:
        (task,) = db.list_tasks()
        assert db.conn.execute("SELECT count(*) FROM heartbeats").fetchone()[0] == 1
        assert task.name == "demo"


def test_started_as_the_hook_starts_it_the_child_loads_no_runpy(mc_bare, mc_workdir):
    """The activity tracker starts ``missioncache_time/__main__.py`` as a script: ``-m``
    would load runpy and importlib.util, more than the interpreter's own start, on every
    prompt. Nor ``os`` (``missioncache_state.lean_os``). The script records the heartbeat,
    and its own folder shadows nothing."""
    import missioncache_time

    make_task(mc_workdir)
    entry = Path(missioncache_time.__file__).parent / "__main__.py"
    profile = {"PYTHONPROFILEIMPORTTIME": "1", "CLAUDE_SESSION_ID": "s1"}
    done = mc_bare.script(entry, "heartbeat-auto", cwd=mc_workdir, env=profile)
    assert done.returncode == 0, done.stderr
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "missioncache_time._heartbeat_auto" in loaded
    assert not loaded & {"runpy", "importlib.util", "functools", "_heartbeat_auto", "os"}
    with TaskDB() as db:
        assert db.conn.execute("SELECT count(*) FROM heartbeats").fetchone()[0] == 1


def test_hook_path_imports_nothing_heavy(mc_bare, cli, mc_workdir):
    """What the hooks and the heartbeat child do costs no pathlib/typing/... imports:
    each is milliseconds of a ~12 ms interpreter start, on every prompt."""
    make_task(mc_workdir)
    code = (
        "from missioncache_db import TaskDB\n"
        "from missioncache_spool import append\n"
        "from missioncache_state.bindings import write_session_binding\n"
        "from missioncache_time import (\n"
        "    format_duration, heartbeat_auto, process_pending, record_heartbeat_auto,\n"
        "    time_invested)\n"
        "heartbeat_auto(); signal.alarm(0)\n"
        "with TaskDB(busy_timeout=1) as db:\n"
        "    task = db.find_task_for_cwd(os.getcwd(), 's1')\n"
        "    write_session_binding('s1', task.name, task.id)\n"
        "    assert db.find_task_for_cwd(os.getcwd(), 's1') == task\n"
        "    assert os.path.isfile(task.context_path) and os.path.isfile(task.tasks_path)\n"
        "    assert os.path.isdir(task.directory_path)\n"
        "    append(db.spool_folder, {'uid': 'ab12', 'task_id': task.id, 'epoch': 1.0})\n"
        "    record_heartbeat_auto(db, os.getcwd(), 's1')\n"
        "    processed = process_pending(db)\n"
        "    format_duration(time_invested(db, task.id))\n"
        "print(processed)\n"
    )
    done = mc_bare.python(measuring(code, "import os, signal, sys"), cwd=mc_workdir)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["3"]
    assert heavy_from(done.stderr) == []


def test_task_string_paths_match_the_path_properties(db, mc_workdir, mc_roots):
    task = db.create_task("demo", repo=mc_workdir)
    assert Path(task.directory_path) == task.directory
    assert Path(task.context_path) == task.context_file
    assert Path(task.tasks_path) == task.tasks_file
    assert db.file == str(db.path) and Path(db.spool_folder) == db.spool_dir
    Path(task.context_path).unlink()
    (task.directory / "context.md").write_text("bare layout\n")
    assert task.context_path == str(task.directory / "context.md") == str(task.context_file)


def test_heartbeat_auto_creates_nothing_for_a_user_without_tasks(cli, mc_workdir, mc_roots):
    """The plugin runs this on every prompt in every repository: before the user has
    created a task it must not create a data root or a database."""
    data, _ = mc_roots
    done = cli("heartbeat-auto", cwd=mc_workdir, env={"CLAUDE_SESSION_ID": "s1"})
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert not data.exists()


@pytest.mark.parametrize("args", [(), ("list",), ("heartbeat-auto", "extra")])
def test_the_database_package_runs_only_heartbeat_auto(cli, mc_roots, args):
    """The command line for people moved up a layer: anything but the hook's one command
    says where it went, exits non-zero and touches nothing."""
    data, _ = mc_roots
    done = cli(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert "python -m missioncache_cli" in done.stderr and "Traceback" not in done.stderr
    assert not data.exists()
