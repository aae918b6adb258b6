"""Issue 12 items 9 and 10: a broken tasks.db or a vanished task folder is said in plain
words with a way out, heartbeats wait in the spool until the database works again, and
``doctor`` checks everything and repairs only what loses nothing."""

import json
import os
import shutil
import sqlite3

import pytest

from missioncache_db import TaskDB
from missioncache_time import process_pending, time_invested


def ok(done):
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


@pytest.fixture
def demo(mc_roots, mc_workdir):
    with TaskDB() as db:
        return db.create_task("demo", repo=mc_workdir)


def break_database(data):
    for extra in ("-wal", "-shm"):
        (data / f"tasks.db{extra}").unlink(missing_ok=True)
    shutil.copy(data / "tasks.db", data / "good.db")
    (data / "tasks.db").write_bytes(b"garbage, not a database" * 300)


def restore_database(data):
    shutil.copy(data / "good.db", data / "tasks.db")


def heartbeats(task_id):
    with TaskDB() as db:
        process_pending(db)
        return db.conn.execute(
            "SELECT session_id FROM heartbeats WHERE task_id = ?", (task_id,)
        ).fetchall()


# -- heartbeats while the database is broken --------------------------------------------------


def test_heartbeats_wait_in_the_spool_while_the_database_is_broken(cli, mc_roots, demo, mc_workdir):
    """Before: the heartbeat was dropped with a stderr line nobody reads."""
    data, _ = mc_roots
    break_database(data)
    for sid in ("s-1", "s-2"):
        done = cli("heartbeat-auto", cwd=mc_workdir, env={"CLAUDE_SESSION_ID": sid})
        assert done.returncode == 0 and done.stdout == "" and done.stderr == ""
    assert len(os.listdir(data / "spool")) == 2  # one spool file per writer process
    restore_database(data)
    assert sorted(heartbeats(demo.id)) == [("s-1",), ("s-2",)]
    assert not [n for n in os.listdir(data / "spool") if n.endswith((".jsonl", ".claimed"))]


def test_a_bound_session_keeps_its_task_even_from_another_directory(cli, mc_roots, demo, tmp_path):
    from missioncache_state.bindings import write_session_binding

    data, _ = mc_roots
    write_session_binding("s-9", "demo", demo.id)
    break_database(data)
    ok(cli("heartbeat-auto", cwd=tmp_path, env={"CLAUDE_SESSION_ID": "s-9"}))
    spooled = json.loads((data / "spool").iterdir().__next__().read_text())
    assert spooled["task_id"] == demo.id
    restore_database(data)
    assert heartbeats(demo.id) == [("s-9",)]


def test_a_spooled_heartbeat_outside_any_task_is_dropped_at_ingest(cli, mc_roots, demo, tmp_path):
    data, _ = mc_roots
    break_database(data)
    ok(cli("heartbeat-auto", cwd=tmp_path, env={"CLAUDE_SESSION_ID": "s-3"}))
    restore_database(data)
    with TaskDB() as db:
        process_pending(db)
        assert db.conn.execute("SELECT COUNT(*) FROM heartbeats").fetchone()[0] == 0


def test_a_busy_database_still_spools_with_its_task(cli, mc_roots, demo, mc_workdir):
    with TaskDB() as db:
        db.conn.execute("BEGIN IMMEDIATE")
        ok(cli("heartbeat-auto", cwd=mc_workdir, env={"CLAUDE_SESSION_ID": "s-4"}))
        db.conn.execute("ROLLBACK")
    assert heartbeats(demo.id) == [("s-4",)]


# -- doctor ------------------------------------------------------------------------------------


def test_doctor_on_a_healthy_setup(cli, mc_roots, demo):
    out = ok(cli("doctor"))
    assert "ok       database:" in out and "1 task," in out
    assert out.rstrip().endswith("no problems found")


def test_doctor_before_setup_creates_nothing(cli, mc_roots):
    data, _ = mc_roots
    out = ok(cli("doctor"))
    assert "not set up yet" in out
    assert not (data / "tasks.db").exists()


def test_doctor_names_a_corrupt_database_in_plain_words(cli, mc_roots, demo, mc_workdir):
    data, _ = mc_roots
    break_database(data)
    ok(cli("heartbeat-auto", cwd=mc_workdir, env={"CLAUDE_SESSION_ID": "s-1"}))
    done = cli("doctor")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "cannot be used: it is not a SQLite database" in done.stdout
    assert "fix: restore it from a backup, or move it aside" in done.stdout
    assert "1 file of heartbeats waits to be folded in" in done.stdout
    assert (data / "tasks.db").read_bytes().startswith(b"garbage")  # never "repaired" away


def test_doctor_folds_in_waiting_heartbeats_once_the_database_works(
    cli, mc_roots, demo, mc_workdir
):
    data, _ = mc_roots
    break_database(data)
    ok(cli("heartbeat-auto", cwd=mc_workdir, env={"CLAUDE_SESSION_ID": "s-1"}))
    restore_database(data)
    out = ok(cli("doctor"))
    assert "fixed    spool: folded in waiting heartbeats (1 processed)" in out
    assert heartbeats(demo.id) == [("s-1",)]


def test_doctor_reports_a_fifo_in_the_spool_without_blocking(cli, mc_roots, demo):
    data, _ = mc_roots
    (data / "spool").mkdir(exist_ok=True)
    os.mkfifo(data / "spool" / "123-abc.jsonl")
    done = cli("doctor", timeout=30)
    assert done.returncode == 1
    assert "123-abc.jsonl is not a heartbeat file" in done.stdout


def test_doctor_reports_what_the_spool_set_aside_every_time(cli, mc_roots, demo):
    """A line no ingest can take is quarantined by the spool and named by doctor, on every
    run (the quarantine folder itself is not mistaken for a foreign entry)."""
    data, _ = mc_roots
    (data / "spool").mkdir(exist_ok=True)
    deep = "[" * 5000 + "]" * 5000
    good = {"uid": "ab" * 8, "task_id": demo.id, "epoch": 1.7e9, "session_id": "s-1"}
    (data / "spool" / "9-x.jsonl").write_text(f'{{"uid": {deep}}}\n{json.dumps(good)}\n')
    for _ in range(2):
        done = cli("doctor", timeout=30)
        assert done.returncode == 1 and "Traceback" not in done.stderr
        assert "holds spool lines that could not be read" in done.stdout
        assert "quarantine is not a heartbeat file" not in done.stdout
    assert heartbeats(demo.id) == [("s-1",)]  # the good line of the same file was kept


def test_doctor_offers_the_ways_out_for_a_vanished_task_folder(cli, mc_roots, demo):
    shutil.rmtree(demo.directory)
    done = cli("doctor")
    assert done.returncode == 1
    assert f"demo: its folder {demo.directory} is gone (deleted or moved)" in done.stdout
    for way in ("recreate demo", "close demo", "delete demo --yes"):
        assert way in done.stdout


def test_doctor_removes_bindings_to_no_task_and_keeps_the_others(cli, mc_roots, demo):
    from missioncache_state.bindings import write_session_binding
    from missioncache_state.locations import projects_dir

    write_session_binding("live", "demo", demo.id)
    write_session_binding("stale", "gone", 999)
    with open(os.path.join(projects_dir(), "broken.json"), "w") as handle:
        handle.write("{not json")
    with open(os.path.join(projects_dir(), "not-ours.txt"), "w") as handle:
        handle.write("x")
    out = ok(cli("doctor"))
    assert "fixed    bindings: removed 2 bindings to no task" in out
    assert sorted(os.listdir(projects_dir())) == ["live.json", "not-ours.txt"]


def test_doctor_removes_a_binding_to_a_closed_task(cli, mc_roots, demo):
    """Closing a task removes its bindings; one left behind (the removal failed) would keep
    the hooks' binding shortcut tracking the closed task, so doctor removes it."""
    from missioncache_state.atomic import write_json_atomic
    from missioncache_state.locations import projects_dir

    ok(cli("close", "demo"))
    record = {"projectName": "demo", "taskId": demo.id, "fullPath": demo.full_path}
    write_json_atomic(os.path.join(projects_dir(), "left.json"), record)
    out = ok(cli("doctor"))
    assert "fixed    bindings: removed 1 binding to no task or a closed one" in out
    assert not os.path.exists(os.path.join(projects_dir(), "left.json"))


def test_doctor_checks_only_our_settings_and_removes_the_legacy_rules(cli, mc_roots, demo):
    _, claude = mc_roots
    claude.mkdir(exist_ok=True)
    settings = {
        "statusLine": {"type": "command", "command": "python3 /gone/missioncache/statusline.py"},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/usr/bin/other-tool"}]}]},
    }
    (claude / "settings.json").write_text(json.dumps(settings))
    (claude / "rules").mkdir()
    (claude / "rules" / "missioncache.md").write_text("<!-- missioncache-plugin:managed -->\n")
    done = cli("doctor")
    assert done.returncode == 1
    assert "the status line in" in done.stdout and "/gone/missioncache/statusline.py" in done.stdout
    assert "other-tool" not in done.stdout
    assert "removed the legacy rules file missioncache.md" in done.stdout
    assert not (claude / "rules" / "missioncache.md").exists()


# -- close / delete / recreate -----------------------------------------------------------------


def test_recreate_close_and_delete_a_task_whose_folder_is_gone(cli, mc_roots, demo, mc_workdir):
    shutil.rmtree(demo.directory)
    out = ok(cli("recreate", "demo"))
    assert f"recreated {demo.context_file}" in out
    assert "## Next Steps" in demo.context_file.read_text()
    assert "nothing to recreate" in ok(cli("recreate", "demo"))
    assert ok(cli("close", "demo")).startswith("demo: completed")
    refused = cli("delete", "demo")
    assert refused.returncode == 1 and "Add --yes to do it" in refused.stderr
    assert "deleted demo" in ok(cli("delete", "demo", "--yes"))
    with TaskDB() as db:
        assert db.list_tasks() == []
    assert demo.context_file.is_file()  # the user's notes are never deleted


def test_a_closed_task_is_no_longer_tracked(cli, mc_roots, demo, mc_workdir):
    ok(cli("close", "demo", "--status", "archived"))
    with TaskDB() as db:
        assert db.find_task_for_cwd(mc_workdir, None) is None


def test_the_database_error_words(mc_roots):
    from missioncache_db import is_broken, plain_reason

    assert not is_broken(sqlite3.OperationalError("database is locked"))
    assert is_broken(sqlite3.DatabaseError("file is not a database"))
    assert "damaged" in plain_reason(sqlite3.DatabaseError("database disk image is malformed"))
    assert "SQLite reports" in plain_reason(sqlite3.DatabaseError("something\nnew"))


def test_delete_counts_and_takes_the_heartbeats_waiting_in_the_spool(
    cli, mc_roots, demo, mc_workdir
):
    """The time ``delete`` says it forgets includes heartbeats still in the spool, and they
    go with the task: SQLite gives the next task the freed id, so a heartbeat folded in
    after the delete would count for that new task."""
    import missioncache_spool as spool
    from missioncache_time import new_heartbeat

    with TaskDB() as db:
        for epoch in (1000.0, 1060.0):
            record = new_heartbeat(demo.id, "s1", None, epoch, f"p{epoch:.0f}")
            spool.append(db.spool_folder, record)
    refused = cli("delete", "demo")
    assert refused.returncode == 1 and "its recorded time (3m)" in refused.stderr
    assert "deleted demo (3m of recorded time)" in ok(cli("delete", "demo", "--yes"))
    with TaskDB() as db:
        again = db.create_task("again", repo=mc_workdir)
        assert again.id == demo.id  # the freed id is given again
        process_pending(db)
        assert time_invested(db, again.id) == 0


def test_doctor_removes_a_binding_whose_task_id_no_database_row_can_hold(cli, mc_roots, demo):
    from missioncache_state.atomic import write_json_atomic
    from missioncache_state.locations import projects_dir

    path = os.path.join(projects_dir(), "sess-wide.json")
    write_json_atomic(path, {"projectName": "demo", "taskId": 10**30})
    done = cli("doctor")
    assert "Traceback" not in done.stderr
    assert "removed 1 binding to no task or a closed one" in ok(done)
    assert not os.path.exists(path)


def test_heartbeats_of_an_outage_wait_until_their_task_is_registered_again(
    cli, mc_roots, demo, mc_workdir
):
    """Issue 20, defect 6: recovery.md's own steps (move the broken tasks.db aside, run
    doctor, register the task again) folded the outage's heartbeats with "0 processed",
    emptied the spool and said "fixed": the time was gone. Now they wait, doctor says how
    many, and they are counted once the task is back."""
    data, _ = mc_roots
    break_database(data)
    for sid in ("s-1", "s-2", "s-3"):
        ok(cli("heartbeat-auto", cwd=mc_workdir, env={"CLAUDE_SESSION_ID": sid}))
    (data / "tasks.db").rename(data / "tasks.db.broken")  # recovery.md: move it aside
    (data / "elsewhere").mkdir()
    with TaskDB() as db:  # a fresh database, before the task is registered again
        db.create_task("other", repo=str(data / "elsewhere"))
    out = ok(cli("doctor"))
    assert "3 heartbeats spooled while tasks.db was broken wait for a task" in out
    assert "(0 processed)" not in out
    assert ok(cli("doctor")).count("3 heartbeats spooled") == 1  # still waiting, not lost
    with TaskDB() as db:
        again = db.create_task("demo", repo=mc_workdir)
    assert sorted(heartbeats(again.id)) == [("s-1",), ("s-2",), ("s-3",)]
    out = ok(cli("doctor"))
    assert "wait for their task" not in out
    assert "no heartbeats waiting" in out
