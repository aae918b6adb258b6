"""Reading a window of time and tokens through the day summaries (``rollup``): the sealed
days of the window from their rows, the few days after ``sealed`` from the events. A read
costs what its window holds: a period reads its days' rows (all time: one row per task)
and the events of the last days, never the whole history.

Every function returns None when the summaries cannot be used right now (none built, a
mark waiting, another idle timeout, a clock set back, a window that starts after
``sealed``): the caller then computes from the events as before, with the same result.
"""

from __future__ import annotations

from missioncache_state.sqlite import sqlite3
from missioncache_time import _rollup as rollup
from missioncache_time import _turns as turns
from missioncache_time._turns import TimeSplit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _cut(conn: sqlite3.Connection, since: float | None, now: float) -> float | None:
    from missioncache_time._fold import read_config

    idle, tail = read_config(conn)
    sealed = rollup.sealed_at(conn, idle, float(tail), now)
    if sealed is None or (since is not None and since >= sealed):
        return None
    return sealed


def window_split(
    conn: sqlite3.Connection,
    task_id: int,
    family: list[int],
    since: float | None,
    idle: float,
    tail: float,
    now: float,
) -> TimeSplit | None:
    """``sessions.time_split`` of ``[since, now]`` (``since`` a local midnight, or None)."""
    from missioncache_time._sessions import family_events
    from missioncache_time._summary import waiting_seconds

    sealed = _cut(conn, since, now)
    if sealed is None:
        return None
    claude = you = waiting = 0.0
    if since is None:
        row = conn.execute(
            "SELECT claude, you, waiting FROM task_rollup WHERE task_id = ?", (task_id,)
        ).fetchone()
        if row is not None:
            claude, you, waiting = row
    else:
        for day_claude, day_you, day_waiting in conn.execute(
            "SELECT claude, you, waiting FROM day_rollup WHERE task_id = ? AND start >= ?"
            " AND start < ? ORDER BY start",
            (task_id, since, sealed),
        ):
            claude += day_claude
            you += day_you
            waiting += day_waiting
    from missioncache_time import _daybook as daybook

    low = sealed - rollup.reach(idle, tail)
    starts, ends = family_events(conn, family, low)
    starts += daybook.earlier_copies(conn, family, low, float("inf"))
    blocks, gaps = turns.merge(turns.turn_intervals(starts, ends, idle, tail, now))
    claude += turns.clipped(blocks, sealed, now)
    you += turns.clipped(gaps, sealed, now)
    waiting += waiting_seconds(conn, family, sealed, now)
    total = round(claude + you)
    claude_whole = min(total, round(claude))
    return TimeSplit(total, claude_whole, total - claude_whole).less_waiting(waiting)


def window_tokens(
    conn: sqlite3.Connection, task_id: int, since: float | None, pricing: Any, now: float
) -> Any:
    """``task_tokens`` of ``[since, now]``: the family's tokens and cost (a ``Tokens``),
    priced by ``pricing`` (``missioncache_cost.day_pricing()``)."""
    from missioncache_db import family_ids

    sealed = _cut(conn, since, now)
    if sealed is None or not rollup.prices_match(conn, pricing):
        return None
    tokens = pricing.tokens()
    if since is None:
        rows = conn.execute(
            f"SELECT {_TOKEN_COLUMNS} FROM task_rollup WHERE task_id = ?", (task_id,)
        ).fetchall()
    else:
        rows = conn.execute(
            f"SELECT {_TOKEN_COLUMNS} FROM day_rollup WHERE task_id = ? AND start >= ?"
            " AND start < ? ORDER BY start",
            (task_id, since, sealed),
        ).fetchall()
    for row in rows:
        tokens.merge(pricing.from_columns(row))
    for member in family_ids(conn, task_id):
        pricing.add_rows(conn, member, sealed, None, lambda _epoch: tokens)
    return tokens


_TOKEN_COLUMNS = "input, output, cache_5m, cache_1h, cache_read, known, unknown"


class SealedDay:
    """One sealed day of a task, as the report shows it."""

    __slots__ = ("day", "first", "has_usage", "sessions", "split", "tokens")

    def __init__(self, row: tuple, pricing: Any):
        day, claude, you, waiting, sessions, first, messages = row[:7]
        total = round(claude + you)
        claude_whole = min(total, round(claude))
        self.day: str = day
        self.split = TimeSplit(total, claude_whole, total - claude_whole).less_waiting(waiting)
        self.sessions: int = sessions
        self.first: float | None = first
        self.has_usage = bool(messages)
        self.tokens = pricing.from_columns(row[7:])


def sealed_days(
    conn: sqlite3.Connection, task_id: int, since: float | None, now: float, pricing: Any
) -> tuple[float, list[SealedDay]] | None:
    """The task's sealed days from ``since`` on and the moment after which the caller
    computes from the events, or None when the summaries cannot be used (their costs
    were priced with another price table: a refresh that could not run left them so)."""
    sealed = _cut(conn, since, now)
    if sealed is None or not rollup.prices_match(conn, pricing):
        return None
    rows = conn.execute(
        "SELECT day, claude, you, waiting, sessions, first, messages,"
        f" {_TOKEN_COLUMNS} FROM day_rollup WHERE task_id = ? AND start >= ? AND start < ?"
        " ORDER BY start",
        (task_id, -1e300 if since is None else since, sealed),
    ).fetchall()
    return sealed, [SealedDay(row, pricing) for row in rows]
