"""Computing the day summaries of one task over a window of local days, from the events
around it (``missioncache_time._rollup`` decides which windows; docs/time.md).

A day's figure is what the full computation gives it: the turns and gaps of the task's
family (the task and its forks, a union) worked out from every event that can reach the
window, then clipped to each day, adding the same terms in the same order as
``turns.clipped`` (a term of an interval outside the day is zero and changes no float).
"""

from __future__ import annotations

import time

from missioncache_db import local_midnight_epoch
from missioncache_state.sqlite import sqlite3
from missioncache_time import _turns as turns
from missioncache_time._summary import FAILURE_BACKGROUND, KIND_CODE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_DAY_COLUMNS = (
    "claude, you, waiting, sessions, messages, input, output, cache_5m, cache_1h,"
    " cache_read, known, unknown"
)


def day_start(epoch: float) -> float:
    """Local midnight of the day holding ``epoch``."""
    return local_midnight_epoch(0, epoch)


def next_day(epoch: float) -> float:
    """Local midnight after the day holding ``epoch``."""
    return local_midnight_epoch(-1, epoch)


def label(start: float) -> str:
    """``YYYY-MM-DD`` of the local day starting at ``start`` (read at its noon: DST-safe)."""
    return time.strftime("%Y-%m-%d", time.localtime(start + 12 * 3600))


def days(lo: float, hi: float) -> list[tuple[float, float]]:
    """The local days ``[start, end)`` from the one starting at ``lo`` up to ``hi``."""
    out = []
    start = lo
    while start < hi:
        end = next_day(start + 12 * 3600)
        out.append((start, end))
        start = end
    return out


def family_events(
    conn: sqlite3.Connection, family: list[int], low: float, high: float
) -> tuple[list, dict]:
    """The family's counted prompts in ``[low, high)`` and the last end of each, plus each
    session's next prompt after ``high`` when its last turn in the window ended with
    background work (or a failure): how long that turn runs depends on it."""
    starts: list = []
    ends: dict = {}
    marks = ",".join("?" * len(family))
    where = f"task_id IN ({marks}) AND epoch >= ? AND epoch < ?"
    params = (*family, low, high)
    starts = conn.execute(
        f"SELECT epoch, session_id, prompt_id, {KIND_CODE} FROM heartbeats WHERE {where}",
        params,
    ).fetchall()
    starts += earlier_copies(conn, family, low, high)
    for session_id, prompt_id, epoch, background in conn.execute(
        f"SELECT e.session_id, e.prompt_id, e.epoch, {FAILURE_BACKGROUND} FROM heartbeats h "
        "JOIN turn_ends e ON e.session_id IS h.session_id AND e.prompt_id = h.prompt_id "
        f"WHERE h.prompt_id IS NOT NULL AND h.{where.replace(' AND ', ' AND h.')}",
        params,
    ):
        key, value = (session_id, prompt_id), (epoch, background)
        if key not in ends or value > ends[key]:
            ends[key] = value
    last: dict = {}
    for epoch, session_id, prompt_id, _kind in starts:
        if session_id not in last or epoch > last[session_id][0]:
            last[session_id] = (epoch, prompt_id)
    for session_id, (_epoch, prompt_id) in last.items():
        end = ends.get((session_id, prompt_id))
        if end is None or not end[1]:
            continue
        following = conn.execute(
            f"SELECT epoch, session_id, prompt_id, {KIND_CODE} FROM heartbeats "
            f"WHERE session_id IS ? AND task_id IN ({marks}) AND epoch >= ? "
            "ORDER BY epoch LIMIT 1",
            (session_id, *family, high),
        ).fetchone()
        if following is not None:
            starts.append(following)
    return starts, ends


def earlier_copies(conn: sqlite3.Connection, family: list[int], low: float, high: float) -> list:
    """The heartbeats before ``low`` of the prompts the window holds, and the session's next
    prompt after each: a prompt recorded again (a resent prompt id, a replayed hook) counts
    once, at its first heartbeat, in the full computation, so the window must see that
    heartbeat too, or it counts the prompt a second time at a later one."""
    marks = ",".join("?" * len(family))
    kind = KIND_CODE.replace("kind", "h.kind")
    # CROSS JOIN and unary +: driven from the window's heartbeats, each looked up by its
    # prompt (the index on session and prompt), never from every heartbeat before it.
    rows = conn.execute(
        f"SELECT DISTINCT h.rowid, h.epoch, h.session_id, h.prompt_id, {kind} FROM heartbeats w"
        " CROSS JOIN heartbeats h ON h.session_id IS w.session_id AND h.prompt_id = w.prompt_id"
        f" WHERE w.task_id IN ({marks}) AND w.epoch >= ? AND w.epoch < ?"
        f" AND w.prompt_id IS NOT NULL AND +h.task_id IN ({marks}) AND +h.epoch < ?",
        (*family, low, high, *family, low),
    ).fetchall()
    out = [tuple(row[1:]) for row in rows]
    for epoch, session_id in {(row[1], row[2]) for row in rows}:
        following = conn.execute(
            f"SELECT epoch, session_id, prompt_id, {KIND_CODE} FROM heartbeats"
            f" WHERE session_id IS ? AND task_id IN ({marks}) AND epoch > ? AND epoch < ?"
            " ORDER BY epoch LIMIT 1",
            (session_id, *family, epoch, low),
        ).fetchone()
        if following is not None:
            out.append(tuple(following))
    return list(dict.fromkeys(out))  # each heartbeat once


def _clip(intervals: list, bounds: list[tuple[float, float]]) -> list[float]:
    """``turns.clipped(intervals, start, end)`` for each day, in one pass: ``intervals``
    sorted and disjoint (as ``turns.merge`` gives them)."""
    out = []
    first = 0
    for start, end in bounds:
        while first < len(intervals) and intervals[first][1] <= start:
            first += 1
        total = 0.0
        index = first
        while index < len(intervals) and intervals[index][0] < end:
            a, b = intervals[index]
            total += max(0.0, min(b, end) - max(a, start))
            index += 1
        out.append(total)
    return out


def _waits(rows: list, bounds: list[tuple[float, float]]) -> list[float]:
    """``usage.waiting_seconds`` of each day: the union of the waits inside it."""
    out = []
    for start, until in bounds:
        total, reached = 0.0, start
        for begin, end in rows:
            if begin >= until:
                break
            begin, end = max(begin, reached), min(end, until)
            if end > begin:
                total += end - begin
                reached = end
        out.append(total)
    return out


def compute(
    conn: sqlite3.Connection,
    task_id: int,
    lo: float | None,
    hi: float,
    idle: float,
    tail: float,
    now: float,
    pricing: Any,
) -> None:
    """Replace the task's day rows in ``[lo, hi)`` (``lo`` None: from its first event)."""
    from missioncache_db import family_ids
    from missioncache_time._rollup import reach

    family = family_ids(conn, task_id)
    if lo is None:
        lo = _first_day(conn, family)
        conn.execute("DELETE FROM day_rollup WHERE task_id = ? AND start < ?", (task_id, hi))
        if lo is None:
            return
    else:
        conn.execute(
            "DELETE FROM day_rollup WHERE task_id = ? AND start >= ? AND start < ?",
            (task_id, lo, hi),
        )
    bounds = days(lo, hi)
    if not bounds:
        return
    span = reach(idle, tail)
    starts, ends = family_events(conn, family, lo - span, hi + span)
    claude, you = turns.merge(turns.turn_intervals(starts, ends, idle, tail, now))
    marks = ",".join("?" * len(family))
    waits = conn.execute(
        f"SELECT epoch, epoch + seconds FROM waits WHERE task_id IN ({marks})"
        " AND epoch >= ? AND epoch < ? ORDER BY epoch",
        (*family, lo - span, hi),
    ).fetchall()
    rows = zip(bounds, _clip(claude, bounds), _clip(you, bounds), _waits(waits, bounds))
    extra = _day_facts(conn, task_id, family, lo, hi, pricing)
    out = []
    for (start, _end), claude_s, you_s, wait_s in rows:
        sessions, first, tokens = extra.get(label(start), (0, None, None))
        if not (claude_s or you_s or wait_s or sessions or first is not None or tokens):
            continue
        out.append((task_id, start, label(start), claude_s, you_s, wait_s, sessions, first,
                    *_token_columns(tokens)))  # fmt: skip
    conn.executemany(
        "INSERT OR REPLACE INTO day_rollup(task_id, start, day, claude, you, waiting,"
        " sessions, first, messages, input, output, cache_5m, cache_1h, cache_read, known,"
        " unknown) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        out,
    )


def _first_day(conn: sqlite3.Connection, family: list[int]) -> float | None:
    firsts = []
    for member in family:
        for table, column in (("heartbeats", "epoch"), ("usage", "epoch"), ("waits", "epoch")):
            row = conn.execute(
                f"SELECT MIN({column}) FROM {table} WHERE task_id = ?", (member,)
            ).fetchone()
            if row[0] is not None:
                firsts.append(row[0])
        row = conn.execute(
            "SELECT MIN(start_epoch) FROM sessions WHERE task_id = ?", (member,)
        ).fetchone()
        if row[0] is not None:
            firsts.append(row[0])
    return day_start(min(firsts)) if firsts else None


def _day_facts(
    conn: sqlite3.Connection, task_id: int, family: list[int], lo: float, hi: float, pricing: Any
) -> dict:
    """Per local day: the family's work sessions started, the task's first prompt, and
    the family's tokens (added member by member, each oldest first, as the report does)."""

    def day(epoch: float) -> str:
        return time.strftime("%Y-%m-%d", time.localtime(epoch))

    sessions: dict[str, int] = {}
    firsts: dict[str, float] = {}
    tokens: dict[str, Any] = {}
    for member in family:
        for (start,) in conn.execute(
            "SELECT start_epoch FROM sessions WHERE task_id = ? AND start_epoch >= ?"
            " AND start_epoch < ? AND end_epoch >= ?",  # end_epoch: the indexed column
            (member, lo, hi, lo),
        ):
            sessions[day(start)] = sessions.get(day(start), 0) + 1
        pricing.add_rows(
            conn, member, lo, hi, lambda epoch: tokens.setdefault(day(epoch), pricing.tokens())
        )
    for (epoch,) in conn.execute(
        "SELECT epoch FROM heartbeats WHERE task_id = ? AND epoch >= ? AND epoch < ?",
        (task_id, lo, hi),
    ):
        key = day(epoch)
        if key not in firsts or epoch < firsts[key]:
            firsts[key] = epoch
    return {
        key: (sessions.get(key, 0), firsts.get(key), tokens.get(key))
        for key in set(sessions) | set(firsts) | set(tokens)
    }


def _token_columns(tokens: object) -> tuple:
    if tokens is None:
        return (0, 0, 0, 0, 0, 0, 0.0, "")
    t = tokens
    unknown = "\n".join(sorted(t.unknown))  # type: ignore[attr-defined]
    return (1, t.input, t.output, t.cache_5m, t.cache_1h, t.cache_read, t.known, unknown)  # type: ignore[attr-defined]


def total(conn: sqlite3.Connection, task_id: int) -> None:
    """The task's all-time row: its day rows added in day order."""
    sums = [0.0, 0.0, 0.0, 0, 0, 0, 0, 0, 0, 0, 0.0]
    unknown: set[str] = set()
    found = False
    for row in conn.execute(
        f"SELECT {_DAY_COLUMNS} FROM day_rollup WHERE task_id = ? ORDER BY start", (task_id,)
    ):
        found = True
        for index in range(11):
            sums[index] += row[index]
        if row[11]:
            unknown.update(row[11].split("\n"))
    if not found:
        conn.execute("DELETE FROM task_rollup WHERE task_id = ?", (task_id,))
        return
    conn.execute(
        f"INSERT OR REPLACE INTO task_rollup(task_id, {_DAY_COLUMNS})"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (task_id, *sums, "\n".join(sorted(unknown))),
    )
