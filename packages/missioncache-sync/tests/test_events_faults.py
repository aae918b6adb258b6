"""The event logs under faults (issue 35): a short write, a fork whose parent another
machine deleted, malformed lines. Two data roots in one process stand for two machines."""

from __future__ import annotations

import errno
import json
import os
import shutil

import pytest

import missioncache_sync as events
from missioncache_db import TaskDB
from missioncache_sync._rebuild import rebuild
from missioncache_time import process_pending, record_heartbeat, spool_turn_end, time_split

T0 = 1_700_000_000.0


@pytest.fixture
def machines(tmp_path, monkeypatch):
    monkeypatch.delenv("CLAUDE_SESSION_ID", raising=False)

    def use(name: str):
        monkeypatch.setenv("MISSIONCACHE_ROOT", str(tmp_path / name / "mc"))
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / name / "claude"))
        return TaskDB(busy_timeout=5.0)

    def carry(source: str, target: str) -> None:
        """Copy the source machine's own log, as git brings it (never the target's)."""
        mine = (tmp_path / source / "mc" / "machine-id").read_text().strip()
        shutil.copytree(
            tmp_path / source / "mc" / "events" / mine,
            tmp_path / target / "mc" / "events" / mine,
            dirs_exist_ok=True,
        )

    return use, carry


def turns(db, task_id, session, spans):
    for index, (start, end) in enumerate(spans):
        record_heartbeat(db, task_id, session, None, T0 + start, prompt_id=f"{session}{index}")
        spool_turn_end(db, session, f"{session}{index}", timestamp=T0 + end)
    process_pending(db, now=T0 + 10**6)


def _claude(db, name: str) -> float:
    return time_split(db, db.get_task_by_name(name).id, now=T0 + 10**6).claude


def test_a_short_write_writes_the_rest_and_a_failed_one_leaves_the_rows_unexported(
    machines, monkeypatch
):
    """os.write may write less than asked (a file size limit, a nearly full disk): the
    rest is written; when it fails, no row is marked exported, so the next export sends
    it and no machine (this one's own rebuild included) loses a turn."""
    use, carry = machines
    real = os.write
    budget = {"bytes": 10**9}

    def stingy(fd, data):  # half of what is asked, until the "disk" is full
        if budget["bytes"] <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        part = bytes(data[: max(1, min(len(data) // 2, budget["bytes"]))])
        budget["bytes"] -= len(part)
        return real(fd, part)

    with use("A") as a:
        task = a.create_task("demo")
        turns(a, task.id, "sa", [(0, 600)])
        monkeypatch.setattr(os, "write", stingy)
        assert events.export_events(a.conn) == 3  # written in halves, all of it
        monkeypatch.setattr(os, "write", real)
        turns(a, task.id, "sb", [(1000 + 100 * n, 1050 + 100 * n) for n in range(20)])
        budget["bytes"] = 700  # the disk fills up mid-append
        monkeypatch.setattr(os, "write", stingy)
        with pytest.raises(OSError):
            events.export_events(a.conn)
        unexported = a.conn.execute("SELECT COUNT(*) FROM heartbeats WHERE synced = 0")
        assert unexported.fetchone()[0] == 20
        monkeypatch.setattr(os, "write", real)
        assert events.export_events(a.conn) == 40
    carry("A", "B")
    with use("B") as b:
        told: list[str] = []
        events.import_events(b.conn, report=told)
        assert told == []  # the part written before the failure was taken back: no torn line
        process_pending(b, now=T0 + 10**6)
        assert _claude(b, "demo") == 600 + 20 * 50
    with use("A") as a:
        rebuild()
    with use("A") as a:
        assert _claude(a, "demo") == 600 + 20 * 50


def test_a_fork_here_and_its_parent_deleted_there_keeps_the_parent_and_imports_the_rest(
    machines,
):
    """B deletes ``demo`` while A forks it: on A the delete is kept back (as one of a
    task with subtasks is), everything else still imports, the person is told, and a
    rebuild works too."""
    use, carry = machines
    with use("A") as a:
        a.create_task("demo")
        events.export_events(a.conn)
    carry("A", "B")
    with use("B") as b:
        events.import_events(b.conn)
        b.delete_task(b.get_task_by_name("demo").id)
        other = b.create_task("other")
        turns(b, other.id, "sb", [(0, 300)])
        events.export_events(b.conn)
    with use("A") as a:
        a.create_fork("demo", "fa")
        events.export_events(a.conn)
    carry("B", "A")
    with use("A") as a:
        told: list[str] = []
        events.import_events(a.conn, report=told)
        process_pending(a, now=T0 + 10**6)
        assert {t.name for t in a.list_tasks()} == {"demo", "fa", "other"}
        assert _claude(a, "other") == 300
        assert any("demo" in line and "fork" in line for line in told), told
    with use("A") as a:
        rebuild()
    with use("A") as a:
        assert {t.name for t in a.list_tasks()} == {"demo", "fa", "other"}


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    "bad",
    [
        '{"type":"heartbeat","at":1700000000,"id":' + DEEP + "}",
        None,  # a heartbeat whose task is a list
        None,  # a heartbeat whose context is nested 600 deep
        None,  # a task event whose task is a list
    ],
    ids=["nested-100000", "task-list", "context-600", "task-event-list"],
)
def test_a_malformed_line_spoils_only_itself(machines, tmp_path, bad, request):
    use, carry = machines
    with use("A") as a:
        task = a.create_task("demo")
        turns(a, task.id, "sa", [(0, 600)])
        events.export_events(a.conn)
        uid = a.conn.execute("SELECT uid FROM tasks").fetchone()[0]
    carry("A", "B")
    beat = {"type": "heartbeat", "at": T0 + 5000, "id": "ab" * 16, "session": "sx",
            "prompt": "px0", "task": uid, "kind": "prompt", "context": None}  # fmt: skip
    case = request.node.callspec.id
    if case == "task-list":
        bad = json.dumps(dict(beat, task=[uid]))
    elif case == "task-event-list":
        bad = json.dumps({"type": "task", "at": T0 + 4000, "id": "ab" * 16, "task": [uid],
                          "name": "demo", "path": "active/demo", "status": "active"})  # fmt: skip
    elif case == "context-600":
        bad = json.dumps(dict(beat, id="cd" * 16, context=json.loads("[" * 600 + "]" * 600)))
    log = next((tmp_path / "B" / "mc" / "events").iterdir())  # A's
    with open(next(log.iterdir()), "a") as handle:
        handle.write(bad + "\n")
        good = dict(beat, id="ef" * 16, at=T0 + 2000, prompt="sa9")
        handle.write(json.dumps(good) + "\n")
        handle.write(json.dumps({"type": "turn_end", "at": T0 + 2100, "id": "12" * 16,
                                 "session": "sx", "prompt": "sa9"}) + "\n")  # fmt: skip
    with use("B") as b:
        told: list[str] = []
        events.import_events(b.conn, report=told)
        process_pending(b, now=T0 + 10**6)
        assert _claude(b, "demo") == 600 + 100  # the good lines on either side count
        assert len(told) == 1 and "could not be read" in told[0], told
        again: list[str] = []
        events.import_events(b.conn, report=again)
        assert again == []  # said once
    with use("B") as b:
        rebuild()
    with use("B") as b:
        assert _claude(b, "demo") == 700


def test_a_rebuild_that_cannot_write_the_log_changes_nothing(machines, monkeypatch):
    """The old database's rows that are not in the log yet must reach it before the
    database is rebuilt from the logs; when the disk is full the rebuild stops first."""
    from missioncache_sync import RebuildError

    use, _ = machines
    with use("A") as a:
        task = a.create_task("demo")
        turns(a, task.id, "sa", [(0, 600)])

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(RebuildError):
        rebuild()
    monkeypatch.undo()
    with use("A") as a:
        assert _claude(a, "demo") == 600
    rebuild()
    with use("A") as a:
        assert _claude(a, "demo") == 600


def test_an_import_sqlite_rolls_back_midway_fails_and_the_next_one_imports_everything(
    machines,
):
    """SQLite rolls a whole transaction back on a full disk or an I/O error: the import
    must fail then, not go on outside the transaction and mark the logs read (the turns
    rolled back would never be imported again)."""
    from missioncache_state.sqlite import sqlite3

    use, carry = machines
    with use("A") as a:
        task = a.create_task("demo")
        turns(a, task.id, "sa", [(0, 600)])
        events.export_events(a.conn)
    carry("A", "B")
    with use("B") as b:
        b.conn.execute(  # the turn end's insert meets a full disk: SQLite rolls back
            "CREATE TEMP TRIGGER full BEFORE INSERT ON main.turn_ends "
            "BEGIN SELECT RAISE(ROLLBACK, 'database or disk is full'); END"
        )
        with pytest.raises(sqlite3.Error):
            events.import_events(b.conn)
    with use("B") as b:
        assert events.import_events(b.conn) == 3  # the task, its prompt and its turn end
        process_pending(b, now=T0 + 10**6)
        assert _claude(b, "demo") == 600
