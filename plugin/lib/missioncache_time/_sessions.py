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

Time invested is no longer the sum of these sessions: ``time_split`` computes it from
the turns (a heartbeat and the turn end with the same prompt id, see ``turns`` and
docs/time.md), which credits a long autonomous turn its whole length. The sessions table
is kept as the heartbeat-only view (the accuracy benchmark compares the two).
"""

from __future__ import annotations

import time

import missioncache_spool as spool
from missioncache_db import DEFAULT_CONFIG, local_midnight_epoch, write_transaction
from missioncache_state.json_codec import loads
from missioncache_state.sqlite import sqlite3
from missioncache_time import _summary as summary
from missioncache_time import _turns as turns
from missioncache_time._turns import TimeSplit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from missioncache_db import TaskDB

PERIODS = ("all", "today", "week", "month")
_PERIOD_DAYS = {"today": 0, "week": 6, "month": 29}
# How long before a period's start a turn may begin and still reach into it: a turn is
# never expected to run for more than two days.
_PERIOD_MARGIN = 2 * 86400
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


def period_start(period: str, now: float | None = None) -> float | None:
    """Epoch where ``period`` begins: None for all, local midnight for today, local
    midnight six days ago for week (today and the six days before it), twenty-nine days
    ago for month (today and the 29 days before it)."""
    if period == "all":
        return None
    days = _PERIOD_DAYS.get(period)
    if days is None:
        raise ValueError(f"invalid period {period!r}: use one of {', '.join(PERIODS)}")
    return local_midnight_epoch(days, now)


def split_of(
    conn: sqlite3.Connection,
    task_id: int,
    period: str = "all",
    now: float | None = None,
    keep_summary: bool = False,
) -> TimeSplit:
    """The task's time within ``period``: total (the union), Claude's (inside turns) and
    yours (gaps within the idle timeout), computed from the recorded events (``turns``).

    Reads what has been ingested; call ``process_pending`` first for the spool too.
    A period clips intervals at its start: a session across midnight counts its part
    after midnight in ``today``. All time is read through the task's summary of settled
    turns when it has one; ``keep_summary`` writes one when it has none
    (``missioncache_time._summary``).
    """
    now = time.time() if now is None else now
    since = period_start(period, now)
    idle, tail = read_config(conn)
    from missioncache_db import family_ids

    family = family_ids(conn, task_id)
    if _has_day_summaries(conn):  # sealed days from their summaries (docs/time.md)
        from missioncache_time._daily import window_split

        cached = window_split(conn, task_id, family, since, idle, float(tail), now)
        if cached is not None:
            return cached
    if len(family) > 1:  # a parent with forks: the union of the family's time
        waits = summary.waiting_seconds(conn, family, since, now)
        return family_split(conn, family, since, idle, float(tail), now).less_waiting(waits)
    waits = summary.waiting_seconds(conn, [task_id], since, now)
    if since is None:
        found = summary.all_time(conn, task_id, idle, float(tail), now, keep_summary)
        return found.less_waiting(waits)
    # Earlier turns can reach into the period, up to a margin.
    starts, ends = summary.events(conn, task_id, since - _PERIOD_MARGIN - idle - tail)
    return turns.split(starts, ends, idle, float(tail), now, since).less_waiting(waits)


def _has_day_summaries(conn: sqlite3.Connection) -> bool:
    """Whether a reader ever built the day summaries: until one did (a report, ``time``,
    the dashboard), a hook's read loads none of their code."""
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rollup_meta'"
    ).fetchone()
    return found is not None


def family_split(
    conn: sqlite3.Connection,
    task_ids: list[int],
    since: float | None,
    idle: float,
    tail: float,
    now: float,
) -> TimeSplit:
    """A parent's time with its forks': the union of all their turns and gaps, so an hour
    two forks worked side by side counts once (docs/forks.md). Computed from the events
    in full: a summary of settled time belongs to one task, and the family's union
    cannot be resumed from the members' summaries."""
    low = None if since is None else since - _PERIOD_MARGIN - idle - tail
    starts, ends = family_events(conn, task_ids, low)
    return turns.split(starts, ends, idle, tail, now, since)


def family_events(
    conn: sqlite3.Connection, task_ids: list[int], low: float | None
) -> tuple[list, dict]:
    """The turn starts and ends of every task in ``task_ids`` from ``low`` on, as one
    stream (``summary.events``): parallel sessions of one family are parallel turns."""
    if len(task_ids) == 1:
        return summary.events(conn, task_ids[0], low)
    starts: list = []
    ends: dict = {}
    for task_id in task_ids:
        task_starts, task_ends = summary.events(conn, task_id, low)
        starts += task_starts
        for key, value in task_ends.items():
            if key not in ends or value > ends[key]:
                ends[key] = value
    return starts, ends


def invested_of(conn: sqlite3.Connection, task_id: int, period: str = "all") -> int:
    """Seconds worked on the task within ``period``: the total of ``time_split``."""
    return split_of(conn, task_id, period).total


def day_splits(
    conn: sqlite3.Connection,
    task_id: int,
    days: list[tuple[float, float]],
    now: float | None = None,
) -> list[TimeSplit]:
    """The task's time inside each ``[start, end)`` of ``days`` (local days, say).

    The turns and gaps are worked out ONCE from every event, then clipped to each day:
    computing a day as "today seen from its last instant" would clamp the next morning's
    prompt to that instant and credit the night's gap to the human (docs/time.md, Periods).
    """
    now = time.time() if now is None else now
    if not days:
        return []
    from missioncache_db import family_ids

    idle, tail = read_config(conn)
    first = min(start for start, _ in days)
    family = family_ids(conn, task_id)  # a parent's days hold its forks' (their union)
    starts, ends = family_events(conn, family, first - _PERIOD_MARGIN - idle - tail)
    claude, you = turns.merge(turns.turn_intervals(starts, ends, idle, float(tail), now))
    out = []
    for start, end in days:
        stop = min(end, now)
        claude_seconds = turns.clipped(claude, start, stop)
        total = round(claude_seconds + turns.clipped(you, start, stop))
        claude_whole = min(total, round(claude_seconds))
        day = TimeSplit(total, claude_whole, total - claude_whole)
        waits = summary.waiting_seconds(conn, family, start, stop)
        out.append(day.less_waiting(waits))
    return out


# -- the calls on an open TaskDB (the package's front) ------------------------------------
def process_pending(db: TaskDB, now: float | None = None) -> int:
    """Ingest the spool (heartbeats, turn ends, token records), give token records their
    task and fold unprocessed heartbeats into work sessions; returns how many heartbeats
    were processed."""
    return fold_pending(db.conn, db.spool_folder, now)


def time_invested(db: TaskDB, task_id: int, period: str = "all") -> int:
    """Seconds worked on the task: ``all``, ``today``, ``week`` (last 7 days) or
    ``month`` (last 30 days). The total of ``time_split``."""
    return invested_of(db.conn, task_id, period)


def time_split(
    db: TaskDB,
    task_id: int,
    period: str = "all",
    now: float | None = None,
    keep_summary: bool = False,
) -> TimeSplit:
    """Seconds worked on the task within ``period``: ``total`` (the union), ``claude``
    (inside turns) and ``you`` (the human's gaps within the idle timeout).
    ``keep_summary``: store the summary that makes the next all-time read fast, when
    the database is free (``missioncache_time._summary``)."""
    return split_of(db.conn, task_id, period, now, keep_summary)
