"""tasks.db: settings, schema, versioned migrations, timestamp format (data model §3)."""

import re
import sqlite3
import subprocess
import time

import pytest

from missioncache_db import TaskDB
from missioncache_db._schema import SCHEMA_VERSION, _use_wal, connect
from missioncache_time import process_pending, record_heartbeat, time_invested, time_split

STAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


def columns(conn, table):
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def test_new_database_has_settings_tables_and_config(db, mc_roots):
    data, _ = mc_roots
    assert db.path == data / "tasks.db"
    conn = db.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert {"id", "path", "short_name", "created_at"} <= columns(conn, "repositories")
    assert {
        "id", "repo_id", "name", "full_path", "parent_id", "status", "jira_key",
        "created_at", "updated_at", "last_worked_on",
    } <= columns(conn, "tasks")  # fmt: skip
    assert {
        "id", "task_id", "timestamp", "session_id", "context", "processed", "uid", "epoch",
    } <= columns(conn, "heartbeats")  # fmt: skip
    assert {
        "id", "task_id", "session_id", "start_time", "end_time", "duration_seconds",
        "heartbeat_count",
    } <= columns(conn, "sessions")  # fmt: skip
    config = dict(conn.execute("SELECT key, value FROM config"))
    assert config["idle_timeout_seconds"] == "300"
    assert config["assumed_work_seconds"] == "120"


def test_required_indexes_exist(db):
    indexes = {
        tuple(row[2] for row in db.conn.execute(f"PRAGMA index_info({name})"))
        for (name,) in db.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
    }
    assert ("task_id", "timestamp") in indexes
    assert ("processed", "timestamp") in indexes
    assert ("uid",) in indexes


def _index_columns(conn, table):
    return {
        name: tuple(row[2] for row in conn.execute(f"PRAGMA index_info({name!r})"))
        for _, name, *_ in conn.execute(f"PRAGMA index_list({table})")
    }


def test_a_message_key_has_one_index_in_a_new_database(db):
    """The copies of a message are found by an index led by its key: in a new database the
    table's own uniqueness, not a second index beside it (a tenth of tasks.db)."""
    indexes = _index_columns(db.conn, "usage")
    led = [columns for columns in indexes.values() if columns[0] == "message_key"]
    assert led == [("message_key", "session_id")]


def test_a_usage_table_of_version_seven_gets_its_message_key_index(mc_roots):
    """A table made before version 8 is unique on (session_id, message_key): version 8 adds
    the index that finds a message's copies."""
    from missioncache_db._schema import MIGRATIONS

    data, _ = mc_roots
    data.mkdir(parents=True)
    conn = sqlite3.connect(str(data / "tasks.db"), isolation_level=None)
    conn.execute("BEGIN")
    for number, migration in enumerate(MIGRATIONS[:7]):
        migration(conn)
        if number == 5:  # the usage table as version 6 made it before version 8
            conn.execute("DROP TABLE usage")
            conn.execute(
                "CREATE TABLE usage (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL,"
                " message_key TEXT NOT NULL, prompt_id TEXT, agent TEXT, epoch REAL NOT NULL,"
                " model TEXT, speed TEXT, input_tokens INTEGER NOT NULL DEFAULT 0,"
                " output_tokens INTEGER NOT NULL DEFAULT 0,"
                " cache_5m_tokens INTEGER NOT NULL DEFAULT 0,"
                " cache_1h_tokens INTEGER NOT NULL DEFAULT 0,"
                " cache_read_tokens INTEGER NOT NULL DEFAULT 0,"
                " task_id INTEGER REFERENCES tasks(id) ON DELETE CASCADE,"
                " UNIQUE(session_id, message_key))"
            )
    conn.execute("PRAGMA user_version = 7")
    conn.execute("COMMIT")
    conn.close()
    with TaskDB() as db:
        assert db.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert ("message_key",) in _index_columns(db.conn, "usage").values()


def test_busy_timeout_is_the_callers(mc_roots):
    with TaskDB(busy_timeout=0.25) as short:
        assert short.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 250


def test_foreign_keys_are_enforced(db):
    with pytest.raises(sqlite3.IntegrityError):
        db.conn.execute("INSERT INTO tasks(name, full_path, repo_id) VALUES ('x', 'active/x', 99)")


def test_status_is_checked_by_the_schema(db):
    with pytest.raises(sqlite3.IntegrityError):
        db.conn.execute("INSERT INTO tasks(name, full_path, status) VALUES ('x', 'x', 'gone')")


def test_reopening_does_not_migrate_again(mc_roots, db):
    db.create_task("kept")
    with TaskDB() as again:
        assert [t.name for t in again.list_tasks()] == ["kept"]
        assert again.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_timestamps_are_fixed_width_local_text(db):
    task = db.create_task("stamped", repo=None)
    record_heartbeat(db, task.id, "s1", timestamp=1_700_000_000)
    process_pending(db, now=1_700_000_000 + 10_000)
    row = db.conn.execute("SELECT created_at, updated_at, last_worked_on FROM tasks").fetchone()
    hb = db.conn.execute("SELECT timestamp FROM heartbeats").fetchone()[0]
    session = db.conn.execute("SELECT start_time, end_time FROM sessions").fetchone()
    for value in (*row, hb, *session):
        assert STAMP.fullmatch(value), value
    expected = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(1_700_000_000))
    assert hb == expected  # local time, not UTC


def test_text_order_is_time_order():
    epochs = [1_600_000_000 + 37 * n * n for n in range(200)]
    texts = [time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e)) for e in epochs]
    assert sorted(texts) == texts


def test_rows_written_without_epoch_get_one_from_their_text(db):
    task = db.create_task("foreign")
    text = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(1_700_000_000))
    db.conn.execute("INSERT INTO heartbeats(task_id, timestamp) VALUES (?, ?)", (task.id, text))
    assert db.conn.execute("SELECT epoch FROM heartbeats").fetchone()[0] == 1_700_000_000


def test_version_one_database_is_migrated(mc_roots):
    """A database in the shared version-1 shape (no uid/epoch) is upgraded in place and
    its heartbeats keep counting."""
    data, _ = mc_roots
    data.mkdir(parents=True)
    conn = sqlite3.connect(str(data / "tasks.db"), isolation_level=None)
    from missioncache_db._schema import MIGRATIONS

    conn.execute("BEGIN")
    MIGRATIONS[0](conn)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("COMMIT")
    conn.execute("INSERT INTO tasks(name, full_path) VALUES ('old', 'active/old')")
    base = 1_700_000_000
    for offset in (0, 60):
        text = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(base + offset))
        conn.execute("INSERT INTO heartbeats(task_id, timestamp) VALUES (1, ?)", (text,))
    conn.close()
    with TaskDB() as db:
        assert db.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        epochs = [row[0] for row in db.conn.execute("SELECT epoch FROM heartbeats ORDER BY id")]
        assert epochs == [base, base + 60]
        assert process_pending(db, now=base + 10_000) == 2
        assert time_invested(db, 1) == 60 + 120


def test_two_processes_creating_the_database_at_once(mc_bare):
    code = (
        "from missioncache_db import TaskDB\n"
        "with TaskDB(busy_timeout=10) as db:\n"
        "    print(db.conn.execute('PRAGMA user_version').fetchone()[0])\n"
    )
    procs = [mc_bare.spawn(code, stdout=subprocess.PIPE) for _ in range(6)]
    outputs = [p.communicate(timeout=60)[0].strip() for p in procs]
    assert outputs == [str(SCHEMA_VERSION)] * 6


class LockedAtFirst:
    """A connection whose journal-mode switch is refused ``refusals`` times, the way SQLite
    refuses the loser of a creation race without calling its busy handler."""

    def __init__(self, refusals):
        self.refusals = refusals
        self.switched = False

    def execute(self, sql):
        if sql == "PRAGMA journal_mode = WAL":
            if self.refusals:
                self.refusals -= 1
                raise sqlite3.OperationalError("database is locked")
            self.switched = True
        return self

    def fetchone(self):
        return ("wal" if self.switched else "delete",)


def test_wal_switch_refused_at_once_is_retried_within_the_busy_timeout():
    conn = LockedAtFirst(refusals=3)
    _use_wal(conn, busy_timeout=5)
    assert conn.switched


def test_wal_switch_still_locked_after_the_busy_timeout_raises():
    conn = LockedAtFirst(refusals=10**6)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        _use_wal(conn, busy_timeout=0.05)
    assert not conn.switched
    assert conn.refusals > 10**6 - 100  # gave up after a few tries, not a busy loop


def test_wal_switch_does_not_retry_other_errors():
    class Broken(LockedAtFirst):
        def execute(self, sql):
            raise sqlite3.OperationalError("disk I/O error")

    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        _use_wal(Broken(0), busy_timeout=5)


def test_connect_creates_parent_directory(tmp_path):
    conn = connect(tmp_path / "deep" / "er" / "x.db", 1.0)
    conn.close()
    assert (tmp_path / "deep" / "er" / "x.db").is_file()


def test_version_two_database_is_migrated_to_turns_losing_nothing(mc_roots):
    """A version-2 database (heartbeats and sessions, no turns) gains prompt ids, kinds and
    turn ends in place; every heartbeat and session stays, and old heartbeats keep their
    meaning (no turn end: gaps within the idle timeout plus the assumed-work tail)."""
    data, _ = mc_roots
    data.mkdir(parents=True)
    conn = sqlite3.connect(str(data / "tasks.db"), isolation_level=None)
    from missioncache_db._schema import MIGRATIONS

    conn.execute("BEGIN")
    MIGRATIONS[0](conn)
    MIGRATIONS[1](conn)
    conn.execute("PRAGMA user_version = 2")
    conn.execute("COMMIT")
    conn.execute("INSERT INTO tasks(name, full_path) VALUES ('old', 'active/old')")
    base = 1_700_000_000
    for n, offset in enumerate((0, 200, 5000)):
        text = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(base + offset))
        conn.execute(
            "INSERT INTO heartbeats(uid, task_id, timestamp, epoch, session_id, processed)"
            " VALUES (?, 1, ?, ?, 's', 1)",
            (f"ab{n}", text, base + offset),
        )
    conn.execute(
        "INSERT INTO sessions(task_id, session_id, start_time, end_time, duration_seconds,"
        " heartbeat_count, start_epoch, end_epoch, closed) VALUES (1, 's', 'a', 'b', 320, 2,"
        f" {base}, {base + 200}, 1)"
    )
    conn.close()
    with TaskDB() as db:
        assert db.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 9
        rows = db.conn.execute("SELECT uid, prompt_id, kind FROM heartbeats ORDER BY id")
        assert rows.fetchall() == [("ab0", None, None), ("ab1", None, None), ("ab2", None, None)]
        assert db.conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 1
        assert db.conn.execute("SELECT COUNT(*) FROM turn_ends").fetchone()[0] == 0
        # 0..200 plus the tail, and 5000 alone plus the tail: as the old sessions said.
        assert time_split(db, 1, now=base + 10_000).total == 200 + 120 + 120
