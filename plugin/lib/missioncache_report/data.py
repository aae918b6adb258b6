"""What a report says, read from tasks.db: per task and per day, for one period.

Every figure comes from ``missioncache_time.time_split`` (time from turns: Claude's inside them,
yours in the gaps; docs/time.md), so a report and ``missioncache time`` agree. Days
are local calendar days: a day's figure is the time that fell within it, so the days of a
period add up to its total. Work sessions (runs of prompts within the idle timeout) count
on the day they started. Compaction counts come from ``missioncache_db._compactions``.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from missioncache_time import time_split

if TYPE_CHECKING:
    from missioncache_cost import DayPricing
    from missioncache_db import Task, TaskDB
    from missioncache_time import TimeSplit

PERIODS = ("today", "week", "month", "all")
# "week" is a rolling window, not Monday to Sunday: every report says so in its title.
PERIOD_WORDS = {
    "today": "today",
    "week": "week, the last 7 days",
    "month": "month, the last 30 days",
    "all": "all time",
}
TURN_LIMIT = 2 * 86400  # seconds; the longest turn time_split assumes (docs/time.md, Periods)


@dataclass
class TaskRow:
    id: int
    name: str
    status: str
    seconds: int = 0
    claude: int = 0
    you: int = 0
    waiting: int = 0  # recorded waits (retries, usage limits): nobody's time
    sessions: int = 0
    compactions: int | None = None
    done: int = 0
    total_items: int = 0
    last_activity: str | None = None
    fork_of: str | None = None  # the parent's name: this row's time is inside the parent's
    jira_key: str | None = None  # the client's reference the task carries (create-task --jira)
    tokens: dict = field(default_factory=dict)  # input, output, cache_write, cache_read
    cost_usd: float | None = None  # None: a model without a known price (docs/cost.md)
    unknown_models: list = field(default_factory=list)


@dataclass
class DayRow:
    day: str  # YYYY-MM-DD, local
    task: str
    seconds: int
    sessions: int
    claude: int = 0
    you: int = 0
    tokens: dict = field(default_factory=dict)
    cost_usd: float | None = None
    waiting: int = 0
    first: str = "00:00:00"  # local time of the day's first prompt of the task


@dataclass
class Report:
    period: str
    start: str | None  # first day covered (None: from the beginning)
    end: str  # today
    generated: str
    tasks: list = field(default_factory=list)  # TaskRow, most time first
    days: list = field(default_factory=list)  # DayRow, by day then task

    @property
    def counted(self) -> list:
        """The rows the totals add up: a fork's time is already in its parent's row (the
        union of both, docs/forks.md), so a fork counts only when its parent is not shown."""
        shown = {t.name for t in self.tasks}
        return [t for t in self.tasks if t.fork_of is None or t.fork_of not in shown]

    @property
    def seconds(self) -> int:
        return sum(t.seconds for t in self.counted)


def period_start(period: str, now: float) -> float | None:
    """Epoch where ``period`` starts, exactly as ``missioncache time`` counts it (today;
    week = today and the 6 days before; month = today and the 29 days before; all: None)."""
    from missioncache_time import period_start as db_period_start

    if period not in PERIODS:
        raise ValueError(f"invalid period {period!r}: use one of {', '.join(PERIODS)}")
    return db_period_start(period, now)


def _day(epoch: float) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(epoch))


def collect(
    db: TaskDB, period: str = "week", now: float | None = None, task: Task | None = None
) -> Report:
    """The report for ``period`` over every task (or only ``task``) with time in it.
    Tasks with no time in the period are left out unless named."""
    now = time.time() if now is None else now
    since = period_start(period, now)
    from missioncache_cost import day_pricing
    from missioncache_time import refresh_days

    pricing = day_pricing()  # the price table, read once for every task
    refresh_days(db.conn, now, pricing=pricing)  # the day summaries every row is read from
    report = Report(
        period=period,
        start=_day(since) if since is not None else None,
        end=_day(now),
        generated=time.strftime("%Y-%m-%d %H:%M", time.localtime(now)),
    )
    tasks = [task] if task is not None else db.list_tasks()
    if task is not None:
        tasks += db.forks_of(task.id)  # a parent's report shows its forks under it
    keys = {t.id: shown_name(t) for t in db.list_tasks()}
    for item in tasks:
        row, days = _task_rows(db, item, since, period, now, pricing)
        row.fork_of = keys.get(item.fork_of) if item.fork_of is not None else None
        row.jira_key = item.jira_key
        if row.seconds or row.sessions or any(row.tokens.values()) or item is task:
            report.tasks.append(row)
            report.days.extend(days)
    report.tasks = forks_under_parents(report.tasks)
    shown = {t.name for t in report.tasks}
    # A fork's days are inside its parent's (their union): listed once, under the parent.
    report.days = [d for d in report.days if _counted_day(d, report.tasks, shown)]
    report.days.sort(key=lambda d: (d.day, d.task))
    return report


def _counted_day(day: DayRow, rows: list, shown: set) -> bool:
    row = next((t for t in rows if t.name == day.task), None)
    return row is None or row.fork_of is None or row.fork_of not in shown


def forks_under_parents(rows: list) -> list:
    """Most time first, each parent followed by its forks (most time first)."""
    rows = sorted(rows, key=lambda t: (-t.seconds, t.name))
    names = {t.name for t in rows}
    out = []
    for row in rows:
        if row.fork_of is not None and row.fork_of in names:
            continue
        out.append(row)
        out += [fork for fork in rows if fork.fork_of == row.name]
    return out


def shown_name(task: Task) -> str:
    """``name``, or ``parent/name`` for a subtask: two parents may each have a subtask of
    the same name, and every format keys its rows by this (the command line's form)."""
    name: str = task.full_path.split("/", 1)[-1]
    return name


def _task_rows(
    db: TaskDB, task: Task, since: float | None, period: str, now: float, pricing: DayPricing
) -> tuple:
    row = TaskRow(task.id, shown_name(task), task.status)
    found = time_split(db, task.id, period, now)
    row.seconds, row.claude, row.you = found.total, found.claude, found.you
    row.waiting = found.waiting
    family = [task.id, *(fork.id for fork in db.forks_of(task.id))]
    from missioncache_report.sealed import sealed_rows

    live, days, sealed_sessions, whole = sealed_rows(db, task.id, row.name, since, now, pricing)
    sessions: dict = {}
    active: set = set()
    for member in family:  # a parent's time includes its forks': so do its days
        for day, count in _sessions_per_day(db, member, live).items():
            sessions[day] = sessions.get(day, 0) + count
        active |= _active_days(db, member, live, now)
    row.sessions = sum(sessions.values()) + sealed_sessions
    usage = _usage_per_day(db, family, live)  # a parent's cost holds its forks'
    candidates = sorted(active | set(sessions) | set(usage))
    for day, split in zip(candidates, _day_splits(db, task.id, candidates, now)):
        if split.total or day in sessions or day in usage:
            days.append(
                DayRow(day, row.name, split.total, sessions.get(day, 0), split.claude, split.you)
            )
            days[-1].first = _first_prompt(db, task.id, day)
            days[-1].waiting = split.waiting
            if day in usage:
                days[-1].tokens, days[-1].cost_usd = usage[day].as_json(), usage[day].cost
            else:
                days[-1].tokens = dict.fromkeys(("input", "output", "cache_write", "cache_read"), 0)
                days[-1].cost_usd = 0.0
    _add_rounding(days, found)
    # whole: the sealed days' sums; every message lies in exactly one day
    for day_tokens in usage.values():
        whole.merge(day_tokens)
    row.tokens, row.cost_usd = whole.as_json(), whole.cost
    row.unknown_models = sorted(whole.unknown)
    row.last_activity = last_activity(db, task, family)
    row.compactions = compactions(task, since)
    row.done, row.total_items = progress(task)
    return row, days


def _usage_per_day(db: TaskDB, task_ids: list[int], since: float | None) -> dict:
    """The tasks' tokens and cost by the local day each message was written."""
    from missioncache_cost import Tokens, load_prices, task_rows

    prices = load_prices()
    out: dict[str, Tokens] = {}
    for task_id in task_ids:
        for row in task_rows(db.conn, task_id, since):
            out.setdefault(_day(row[7]), Tokens()).add(row[0], row[1], tuple(row[2:7]), prices)
    return out


def _add_rounding(days: list[DayRow], found: TimeSplit) -> None:
    """Each day is rounded to whole seconds on its own, the period once, so the days can
    miss the total by a second or two; the difference goes to the day with the most of
    that figure, and the days add up to what ``missioncache time`` says, exactly."""
    if not days:
        return
    for name, whole in (("claude", found.claude), ("you", found.you)):
        most = max(days, key=lambda day: getattr(day, name))
        missing = whole - sum(getattr(day, name) for day in days)
        setattr(most, name, max(0, getattr(most, name) + missing))
    for day in days:
        day.seconds = day.claude + day.you


def last_activity(db: TaskDB, task: Task, family: list | None = None) -> str | None:
    """Local ``YYYY-MM-DD HH:MM`` of the task's newest prompt (whatever the period; a
    parent's forks' prompts count too), else its ``last_worked_on`` stamp."""
    newest = None
    for member in family or [task.id]:  # one indexed look-up each, whatever the history
        row = db.conn.execute("SELECT MAX(epoch) FROM heartbeats WHERE task_id = ?", (member,))
        found = row.fetchone()[0]
        newest = found if newest is None or (found is not None and found > newest) else newest
    if newest is not None:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(newest))
    last = task.last_worked_on
    return last[:16] if isinstance(last, str) else None


def _sessions_per_day(db: TaskDB, task_id: int, since: float | None) -> dict:
    """Work sessions (runs of prompts within the idle timeout) by the day they started."""
    sql = "SELECT start_epoch FROM sessions WHERE task_id = ? AND start_epoch IS NOT NULL"
    params: tuple = (task_id,)
    if since is not None:  # end_epoch: the indexed column, and a session ends after it starts
        sql += " AND start_epoch >= ? AND end_epoch >= ?"
        params += (since, since)
    counts: dict = {}
    for (start,) in db.conn.execute(sql, params):
        counts[_day(start)] = counts.get(_day(start), 0) + 1
    return counts


def _active_days(db: TaskDB, task_id: int, since: float | None, now: float) -> set:
    """Days that may hold time: every day from each prompt's to the one TURN_LIMIT later
    (or today), since a turn, or the gap after it, can run into days that have no prompt
    of their own (23:50 to 00:20; a long autonomous turn). A day without time is dropped
    by the caller, so a generous bound costs a little work, never a wrong figure."""
    sql = "SELECT epoch FROM heartbeats WHERE task_id = ? AND epoch IS NOT NULL"
    params: tuple = (task_id,)
    if since is not None:
        sql += " AND epoch >= ?"
        params += (since - TURN_LIMIT,)
    days: set = set()
    for (epoch,) in db.conn.execute(sql, params):
        days.update(_days_between(max(epoch, since or epoch), min(epoch + TURN_LIMIT, now)))
    return days


def _days_between(first: float, last: float) -> list[str]:
    """The local days from the one holding ``first`` to the one holding ``last``, stepped
    by calendar day at noon (a DST day is 23 or 25 hours long)."""
    out: list[str] = []
    year, month, mday = time.localtime(first)[:3]
    while True:
        noon = time.mktime((year, month, mday + len(out), 12, 0, 0, 0, 0, -1))
        day = _day(noon)
        if day > _day(last):
            return out
        out.append(day)


def _first_prompt(db: TaskDB, task_id: int, day: str) -> str:
    """``HH:MM:SS`` of the task's first prompt that day; midnight when none."""
    start, end = _day_bounds(day)
    row = db.conn.execute(
        "SELECT MIN(epoch) FROM heartbeats WHERE task_id = ? AND epoch >= ? AND epoch < ?",
        (task_id, start, end),
    ).fetchone()
    return "00:00:00" if row[0] is None else time.strftime("%H:%M:%S", time.localtime(row[0]))


def _day_bounds(day: str) -> tuple[float, float]:
    """``[local midnight, next local midnight)`` of a ``YYYY-MM-DD`` day (DST-safe)."""
    from missioncache_db import local_midnight_epoch

    year, month, mday = (int(part) for part in day.split("-"))
    noon = time.mktime((year, month, mday, 12, 0, 0, 0, 0, -1))  # DST-safe anchor
    return local_midnight_epoch(0, noon), local_midnight_epoch(-1, noon)


def _day_splits(db: TaskDB, task_id: int, days: list[str], now: float) -> list:
    """The task's time within each local day: the turns and gaps are cut once from all
    the events, then clipped to each day (``sessions.day_splits``), so a day's figure
    never depends on what happened the next morning, and the days add up to the period."""
    from missioncache_time import day_splits

    return day_splits(db.conn, task_id, [_day_bounds(day) for day in days], now)


def compactions(task: Task, since: float | None) -> int | None:
    """Compactions in the period; None when the records cannot be read (shown as -)."""
    from missioncache_db import compaction_count

    try:
        return int(compaction_count(task, since_epoch=since))
    except Exception:
        return None


def progress(task: Task) -> tuple:
    """(done, total) checklist items of the task's tasks file; (0, 0) without one."""
    from missioncache_context import parse_items, read_file

    path = task.tasks_path
    if not os.path.isfile(path):
        return 0, 0
    try:
        items = parse_items(read_file(path))
    except (OSError, ValueError):
        return 0, 0
    return sum(1 for i in items if i.done), len(items)
