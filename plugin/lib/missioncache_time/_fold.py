"""The fold: the spool into tasks.db, and work sessions from heartbeats (data model
section 5).

A work session is a run of one task's heartbeats whose gaps never exceed the idle
timeout; its duration is last minus first heartbeat, plus the assumed-work tail once the
session is over (its last heartbeat older than the idle timeout), since the last prompt
was followed by some work nobody pinged about. An open session gets no tail yet.

Exactness however often this runs, and however late a spooled heartbeat arrives: the
sessions of a task are a pure function of its heartbeats. New heartbeats can only change
sessions ending within one idle timeout of the earliest new heartbeat, so those are
deleted and rebuilt from the heartbeats (old and new) from their start on; everything
earlier stays. An open session is thus extended by later runs (its row id is kept),
and a heartbeat is counted in exactly one session. All of it happens under
``BEGIN IMMEDIATE``, so two runs at once are serialised and the second finds nothing new.

Apart from the reads of time (``_sessions``): every hook that folds (PreCompact, the
heartbeat child, a fold at SessionStart) loads none of the time split's code.
"""

from __future__ import annotations

import time

import missioncache_spool as spool
from missioncache_db import DEFAULT_CONFIG, write_transaction
from missioncache_state.json_codec import loads
from missioncache_state.sqlite import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from missioncache_db import TaskDB

_FLUSH = 500

_INSERT_SESSION = (
    "INSERT INTO sessions(id, task_id, session_id, start_time, end_time, duration_seconds, "
    "heartbeat_count, start_epoch, end_epoch, closed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def read_config(conn: sqlite3.Connection) -> tuple[float, int]:
    """(idle_timeout_seconds, assumed_work_seconds), defaults for missing or bad values."""
    values = {}
    for key, default in DEFAULT_CONFIG.items():
        row = conn.execute("SELECT value FROM config WHERE key = ?", (key,)).fetchone()
        try:
            value = loads(row[0]) if row else loads(default)
            values[key] = max(0, int(value))
        except (TypeError, ValueError):
            values[key] = int(default)
    return float(values["idle_timeout_seconds"]), values["assumed_work_seconds"]


def pending_usage(conn: sqlite3.Connection) -> bool:
    """Whether any usage row waits for a task (cheap: a partial index)."""
    found = conn.execute("SELECT 1 FROM usage WHERE task_id IS NULL LIMIT 1").fetchone()
    return found is not None


def fold_pending(conn: sqlite3.Connection, spool_dir: str, now: float | None = None) -> int:
    """Ingest the spool, fold unprocessed heartbeats into sessions, credit tails of
    sessions gone idle. Returns how many heartbeats were processed."""
    from missioncache_time._heartbeats import ingest_spool  # here: readers of time need none of it

    now = time.time() if now is None else now
    with write_transaction(conn):
        spool.release_unattributed(spool_dir)  # a task may cover them now: try them again
        _, claimed = ingest_spool(conn, spool_dir)
        if (
            pending_usage(conn)
            or conn.execute("SELECT 1 FROM waits WHERE task_id IS NULL LIMIT 1").fetchone()
        ):  # tokens that came before their session's heartbeats
            from missioncache_time._token_rows import assign_tasks

            assign_tasks(conn)
        idle, tail = read_config(conn)
        pending = conn.execute(
            "SELECT task_id, MIN(epoch) FROM heartbeats WHERE processed = 0 GROUP BY task_id"
        ).fetchall()
        for task_id, first in pending:
            if first is not None:
                _rebuild(conn, task_id, first, idle, tail, now)
        # Every unprocessed row of those tasks is now in a session, except rows another
        # tool wrote with an unreadable timestamp: they have no place in time and are
        # retired uncounted.
        conn.execute("UPDATE heartbeats SET processed = 1 WHERE processed = 0 AND epoch IS NULL")
        total = conn.execute("UPDATE heartbeats SET processed = 1 WHERE processed = 0").rowcount
        conn.execute(
            "UPDATE sessions SET duration_seconds = duration_seconds + ?, closed = 1 "
            "WHERE closed = 0 AND end_epoch < ?",
            (tail, now - idle),
        )
    spool.remove(claimed)
    return total


def _rebuild(
    conn: sqlite3.Connection, task_id: int, first_new: float, idle: float, tail: int, now: float
) -> None:
    """Rebuild the task's sessions the heartbeats from ``first_new`` on can touch."""
    horizon = first_new - idle
    reuse_id, start = conn.execute(
        "SELECT MIN(id), MIN(start_epoch) FROM sessions WHERE task_id = ? AND end_epoch >= ?",
        (task_id, horizon),
    ).fetchone()
    start = first_new if start is None else min(start, first_new)
    conn.execute("DELETE FROM sessions WHERE task_id = ? AND end_epoch >= ?", (task_id, horizon))
    rows = conn.execute(
        "SELECT epoch, timestamp, session_id FROM heartbeats "
        "WHERE task_id = ? AND epoch >= ? AND kind IS NOT 'control' ORDER BY epoch, id",
        (task_id, start),
    )
    pending: list[tuple] = []
    current = None  # [start_epoch, start_text, end_epoch, end_text, count, session_id]
    for epoch, text, sid in rows:
        if current is not None and epoch - current[2] <= idle:
            current[2], current[3] = epoch, text
            current[4] += 1
            continue
        if current is not None:
            pending.append(_session_row(reuse_id, task_id, current, tail, True))
            reuse_id = None
            if len(pending) >= _FLUSH:
                conn.executemany(_INSERT_SESSION, pending)
                pending = []
        current = [epoch, text, epoch, text, 1, sid]
    if current is not None:
        closed = now - current[2] > idle
        pending.append(_session_row(reuse_id, task_id, current, tail, closed))
    conn.executemany(_INSERT_SESSION, pending)


def _session_row(session_id: int | None, task_id: int, s: list, tail: int, closed: bool) -> tuple:
    duration = round(s[2] - s[0]) + (tail if closed else 0)
    return (session_id, task_id, s[5], s[1], s[3], duration, s[4], s[0], s[2], int(closed))


def process_pending(db: TaskDB, now: float | None = None) -> int:
    """Ingest the spool (heartbeats, turn ends, token records), give token records their
    task and fold unprocessed heartbeats into work sessions; returns how many heartbeats
    were processed."""
    return fold_pending(db.conn, db.spool_folder, now)
