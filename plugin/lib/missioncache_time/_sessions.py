"""Time invested: a task's time within a period, and per day, read from its turns.

Time is not the sum of the work sessions the fold keeps (``_fold``): ``time_split``
computes it from the turns (a heartbeat and the turn end with the same prompt id, see
``_turns`` and docs/time.md), which credits a long autonomous turn its whole length; the
sessions table is the heartbeat-only view (the accuracy benchmark compares the two).
Sealed days come from their summaries (``_daily``) once a reader built them.
"""

from __future__ import annotations

import time

from missioncache_db import local_midnight_epoch
from missioncache_state.sqlite import sqlite3
from missioncache_time import _summary as summary
from missioncache_time import _turns as turns
from missioncache_time._fold import read_config
from missioncache_time._turns import TimeSplit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from missioncache_db import TaskDB

PERIODS = ("all", "today", "week", "month")
_PERIOD_DAYS = {"today": 0, "week": 6, "month": 29}
# How long before a period's start a turn may begin and still reach into it: a turn is
# never expected to run for more than two days.
_PERIOD_MARGIN = 2 * 86400


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
