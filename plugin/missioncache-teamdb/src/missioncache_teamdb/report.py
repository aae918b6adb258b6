"""The team report: per task (or person, client, day), each person's time and the team's.

Each person's time on a team task is the product's time model (``missioncache_time``)
over every turn of theirs on that task, from every machine and session: one person's
parallel sessions and machines are counted once, as ``missioncache time`` does. The
team's time is the sum over people (two people at once is two people's time). Tokens and
cost are summed. The rows come from the views ``team_turn_events`` and ``team_messages``,
which every member may read; the idle timeout and tail are the server's
(``missioncache.settings``), so the report and the views agree.
"""

from __future__ import annotations

import time
from typing import Any

BYS = ("task", "person", "client", "day")


class Figures:
    """Seconds (total, Claude's, the person's own), tokens and cost of one cell."""

    __slots__ = ("cache_read", "cache_write", "claude", "cost", "input", "output", "seconds",
                 "unpriced", "waiting", "you")  # fmt: skip

    def __init__(self) -> None:
        self.seconds = self.claude = self.you = self.waiting = 0
        self.input = self.output = self.cache_write = self.cache_read = self.unpriced = 0
        self.cost = 0.0

    def add_time(self, seconds: int, claude: int, you: int, waiting: int = 0) -> None:
        self.seconds += seconds
        self.claude += claude
        self.you += you
        self.waiting += waiting

    def add_message(self, row: tuple) -> None:
        self.input += row[0]
        self.output += row[1]
        self.cache_write += row[2] + row[3]
        self.cache_read += row[4]
        if row[5] is None:
            self.unpriced += 1
        else:
            self.cost += row[5]

    def merge(self, other: Figures) -> None:
        self.add_time(other.seconds, other.claude, other.you, other.waiting)
        self.add_message(
            (other.input, other.output, other.cache_write, 0, other.cache_read, other.cost)
        )
        self.unpriced += other.unpriced

    def as_json(self) -> dict[str, Any]:
        return {
            "seconds": self.seconds,
            "claude_seconds": self.claude,
            "you_seconds": self.you,
            "waiting_seconds": self.waiting,
            "tokens": {
                "input": self.input,
                "output": self.output,
                "cache_write": self.cache_write,
                "cache_read": self.cache_read,
            },
            "cost_usd": round(self.cost, 6),
            "unpriced_messages": self.unpriced,
        }


class Report:
    """Rows keyed by the ``by`` value, each with its people's figures and their sum."""

    def __init__(self, period: str, by: str, since: float | None, now: float):
        self.period, self.by, self.since, self.now = period, by, since, now
        self.rows: dict[str, dict[str, Figures]] = {}
        self.clients: dict[str, str] = {}

    def cell(self, key: str, person: str) -> Figures:
        return self.rows.setdefault(key, {}).setdefault(person, Figures())

    def total(self, key: str) -> Figures:
        summed = Figures()
        for figures in self.rows.get(key, {}).values():
            summed.merge(figures)
        return summed

    def as_json(self) -> dict[str, Any]:
        rows = []
        for key in sorted(self.rows):
            row: dict[str, Any] = {self.by: key}
            if self.by == "task":
                row["client"] = self.clients.get(key)
            row.update(self.total(key).as_json())
            row["people"] = {p: f.as_json() for p, f in sorted(self.rows[key].items())}
            rows.append(row)
        grand = Figures()
        for key in self.rows:
            grand.merge(self.total(key))
        return {
            "period": self.period,
            "by": self.by,
            "since": _iso(self.since),
            "until": _iso(self.now),
            "rows": rows,
            "total": grand.as_json(),
        }


def _iso(epoch: float | None) -> str | None:
    if epoch is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(epoch))


def _day_bounds(since: float, now: float) -> list[tuple[str, float, float]]:
    """Each local day from ``since`` to ``now`` as (date, start, end)."""
    days = []
    local = time.localtime(since)
    start = time.mktime((local.tm_year, local.tm_mon, local.tm_mday, 0, 0, 0, 0, 0, -1))
    while start < now:
        parts = time.localtime(start)
        end = time.mktime((parts.tm_year, parts.tm_mon, parts.tm_mday + 1, 0, 0, 0, 0, 0, -1))
        days.append((time.strftime("%Y-%m-%d", parts), start, end))
        start = end
    return days


def _split(
    claude: list, you: list, waits: list, since: float | None, until: float
) -> tuple[int, int, int, int]:
    """(total, Claude's, yours, waiting) inside ``[since, until]``, as ``missioncache time``
    splits a task's time: the waits inside the window come out of Claude's seconds."""
    from missioncache_time import TimeSplit, clipped, wait_union

    claude_seconds = clipped(claude, since, until)
    total = round(claude_seconds + clipped(you, since, until))
    claude_whole = min(total, round(claude_seconds))
    split = TimeSplit(total, claude_whole, total - claude_whole)
    split = split.less_waiting(wait_union(waits, since, until))
    return split.total, split.claude, split.you, split.waiting


def _waits_by_person_task(conn: Any) -> dict[tuple[str, str], list]:
    """Each (person, team task)'s waits as (start, end); none on a server whose schema
    predates them (``--init`` not run again since)."""
    row = conn.execute("SELECT to_regclass('missioncache.team_wait_events')").fetchone()
    if row is None or row[0] is None:
        return {}
    waits: dict[tuple[str, str], list] = {}
    for person, task, epoch, seconds in conn.execute(
        "SELECT person, task, epoch, seconds FROM missioncache.team_wait_events"
    ):
        waits.setdefault((person, task), []).append((epoch, epoch + seconds))
    return waits


def _turns_by_person_task(conn: Any, now: float) -> dict[tuple[str, str], list]:
    """Each (person, team task)'s turns, through ``turns.turn_intervals`` per task uid."""
    from missioncache_time import turn_intervals

    idle, tail = conn.execute(
        "SELECT idle_seconds, tail_seconds FROM missioncache.settings"
    ).fetchone()
    events: dict[tuple[str, str], tuple[str, list, dict]] = {}
    for person, task_uid, task, session, prompt, started, kind, ended, background in conn.execute(
        "SELECT person, task_uid, task, session_id, prompt_id, started, kind, ended, background"
        " FROM missioncache.team_turn_events"
    ):
        _task, starts, ends = events.setdefault((person, task_uid), (task, [], {}))
        starts.append((started, session, prompt, kind))
        if ended is not None:
            key, value = (session, prompt), (ended, background)
            if key not in ends or value > ends[key]:
                ends[key] = value
    turns: dict[tuple[str, str], list] = {}
    for (person, _uid), (task, starts, ends) in events.items():
        turns.setdefault((person, task), []).extend(turn_intervals(starts, ends, idle, tail, now))
    return turns


def collect(conn: Any, period: str, by: str, now: float | None = None) -> Report:
    """The team report for ``period`` (``missioncache_time.PERIODS``) grouped ``by``."""
    from missioncache_time import merge, period_start

    if by not in BYS:
        raise ValueError(f"invalid grouping {by!r}: use one of {', '.join(BYS)}")
    now = time.time() if now is None else now
    since = period_start(period, now)
    report = Report(period, by, since, now)
    clients = dict(
        conn.execute(
            "SELECT task, max(client) FROM missioncache.team_turn_events GROUP BY task"
        ).fetchall()
    )
    report.clients = {k: v for k, v in clients.items() if v}
    days = (
        _day_bounds(since if since is not None else _first(conn, now), now) if by == "day" else []
    )
    waits = _waits_by_person_task(conn)
    for (person, task), turns in _turns_by_person_task(conn, now).items():
        claude, you = merge(turns)
        waited = waits.get((person, task), [])
        if by == "day":
            for day, start, end in days:
                figures = _split(claude, you, waited, max(start, since or start), min(end, now))
                if figures[0]:
                    report.cell(day, person).add_time(*figures)
            continue
        figures = _split(claude, you, waited, since, now)
        if figures[0]:
            report.cell(_key(by, person, task, report.clients), person).add_time(*figures)
    where, params = (
        ("WHERE epoch >= %s AND epoch <= %s", [since, now])
        if since
        else ("WHERE epoch <= %s", [now])
    )
    for person, task, epoch, *counts in conn.execute(
        "SELECT person, task, epoch, input_tokens, output_tokens, cache_5m_tokens,"
        f" cache_1h_tokens, cache_read_tokens, cost_usd FROM missioncache.team_messages {where}",
        params,
    ):
        key = (
            time.strftime("%Y-%m-%d", time.localtime(epoch))
            if by == "day"
            else _key(by, person, task, report.clients)
        )
        report.cell(key, person).add_message(tuple(counts))
    return report


def _key(by: str, person: str, task: str, clients: dict[str, str]) -> str:
    if by == "person":
        return person
    if by == "client":
        return clients.get(task) or "(no client)"
    return task


def _first(conn: Any, now: float) -> float:
    row = conn.execute("SELECT min(started) FROM missioncache.team_turn_events").fetchone()
    return min(now, row[0]) if row and row[0] is not None else now
