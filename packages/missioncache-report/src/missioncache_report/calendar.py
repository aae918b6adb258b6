"""Reports over any run of calendar days (a month, an ISO week, ``--from``/``--to``), and
the per-day figures billing reads.

The figures are the report's own: each day's time from ``sessions.day_splits`` (the time
model, forks' time inside their parent's), each day's tokens and cost by the day the
message was written. A range's total is the sum of its days, so the days add up exactly.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from missioncache_report.data import (
    DayRow,
    Report,
    TaskRow,
    _counted_day,
    _day_bounds,
    _day_splits,
    _first_prompt,
    _sessions_per_day,
    _usage_per_day,
    forks_under_parents,
    last_activity,
    progress,
    shown_name,
)

if TYPE_CHECKING:
    from missioncache_db import Task, TaskDB

_ZERO_TOKENS = ("input", "output", "cache_write", "cache_read")


def task_days(db: TaskDB, task: Task, days: list[str], now: float | None = None) -> list[DayRow]:
    """The task's figures on each of ``days`` (local ``YYYY-MM-DD``, in order): its time
    (Claude's and yours; a parent's holds its forks'), sessions started, tokens and cost.
    Days with neither time nor usage are left out."""
    now = time.time() if now is None else now
    if not days:
        return []
    since = _day_bounds(days[0])[0]
    family = [task.id, *(fork.id for fork in db.forks_of(task.id))]
    usage = _usage_per_day(db, family, since)
    sessions: dict = {}
    for member in family:
        for day, count in _sessions_per_day(db, member, since).items():
            sessions[day] = sessions.get(day, 0) + count
    out = []
    name = shown_name(task)
    for day, split in zip(days, _day_splits(db, task.id, days, now)):
        if not split.total and day not in usage:
            continue
        row = DayRow(day, name, split.total, sessions.get(day, 0), split.claude, split.you)
        row.waiting = split.waiting
        row.first = _first_prompt(db, task.id, day)
        if day in usage:
            row.tokens, row.cost_usd = usage[day].as_json(), usage[day].cost
        else:
            row.tokens, row.cost_usd = dict.fromkeys(_ZERO_TOKENS, 0), 0.0
        out.append(row)
    return out


def collect_range(
    db: TaskDB,
    days: list[str],
    title: str,
    now: float | None = None,
    task: Task | None = None,
) -> Report:
    """``collect`` over the calendar ``days`` (first to last, every one listed): the same
    rows, forks under their parent, ``title`` in the heading (``November 2026 ...``)."""
    now = time.time() if now is None else now
    report = Report(
        period=title,
        start=days[0],
        end=days[-1],
        generated=time.strftime("%Y-%m-%d %H:%M", time.localtime(now)),
    )
    tasks = [task, *db.forks_of(task.id)] if task is not None else db.list_tasks()
    keys = {t.id: shown_name(t) for t in db.list_tasks()}
    for item in tasks:
        found = task_days(db, item, days, now)
        row = TaskRow(item.id, shown_name(item), item.status)
        row.fork_of = keys.get(item.fork_of) if item.fork_of is not None else None
        row.jira_key = item.jira_key
        _sum_days(row, found)
        if row.seconds or any(row.tokens.values()) or item is task:
            row.last_activity = last_activity(db, item)
            row.done, row.total_items = progress(item)
            report.tasks.append(row)
            report.days.extend(found)
    report.tasks = forks_under_parents(report.tasks)
    shown = {t.name for t in report.tasks}
    report.days = [d for d in report.days if _counted_day(d, report.tasks, shown)]
    report.days.sort(key=lambda d: (d.day, d.task))
    return report


def _sum_days(row: TaskRow, days: list[DayRow]) -> None:
    row.seconds = sum(d.seconds for d in days)
    row.claude = sum(d.claude for d in days)
    row.you = sum(d.you for d in days)
    row.waiting = sum(d.waiting for d in days)
    row.sessions = sum(d.sessions for d in days)
    row.tokens = {k: sum(d.tokens.get(k, 0) for d in days) for k in _ZERO_TOKENS}
    costs = [d.cost_usd for d in days]
    row.cost_usd = None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)
