"""Work sessions from heartbeats, and time invested (data model section 5).

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
"""

from __future__ import annotations

import sqlite3
import time

from missioncache_db import spool
from missioncache_db.heartbeats import ingest_spool
from missioncache_db.schema import DEFAULT_CONFIG, write_transaction
from missioncache_db.timefmt import local_midnight_epoch
from missioncache_state.json_codec import loads

PERIODS = ("all", "today", "week")
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


def process_heartbeats(conn: sqlite3.Connection, spool_dir: str, now: float | None = None) -> int:
    """Ingest the spool, fold unprocessed heartbeats into sessions, credit tails of
    sessions gone idle. Returns how many heartbeats were processed."""
    now = time.time() if now is None else now
    with write_transaction(conn):
        _, claimed = ingest_spool(conn, spool_dir)
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
        "WHERE task_id = ? AND epoch >= ? ORDER BY epoch, id",
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


def period_start(period: str, now: float | None = None) -> float | None:
    """Epoch where ``period`` begins: None for all, local midnight for today, local
    midnight six days ago for week (today and the six days before it)."""
    if period == "all":
        return None
    if period == "today":
        return local_midnight_epoch(0, now)
    if period == "week":
        return local_midnight_epoch(6, now)
    raise ValueError(f"invalid period {period!r}: use one of {', '.join(PERIODS)}")


def time_invested(conn: sqlite3.Connection, task_id: int, period: str = "all") -> int:
    """Seconds of work sessions of the task that started within ``period``."""
    since = period_start(period)
    sql = "SELECT COALESCE(SUM(duration_seconds), 0) FROM sessions WHERE task_id = ?"
    params: tuple = (task_id,)
    if since is not None:
        sql += " AND start_epoch >= ?"
        params += (since,)
    return int(conn.execute(sql, params).fetchone()[0])
