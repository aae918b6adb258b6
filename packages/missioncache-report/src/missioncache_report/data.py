"""What a report says, read from tasks.db: per task and per day, for one period.

Days are local calendar days; a work session counts on the day it started (the rule
``time_invested`` uses, so a report and ``missioncache-db time`` agree). Two seams switch
on by themselves when the work behind them lands: the Claude/you split
(``TaskDB.time_split``) and compaction counts (``missioncache_db.compactions``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Optional

PERIODS = ("today", "week", "month", "all")


@dataclass
class TaskRow:
    id: int
    name: str
    status: str
    seconds: int = 0
    claude: Optional[int] = None
    you: Optional[int] = None
    sessions: int = 0
    compactions: Optional[int] = None
    done: int = 0
    total_items: int = 0
    last_activity: Optional[str] = None


@dataclass
class DayRow:
    day: str  # YYYY-MM-DD, local
    task: str
    seconds: int
    sessions: int


@dataclass
class Report:
    period: str
    start: Optional[str]  # first day covered (None: from the beginning)
    end: str  # today
    generated: str
    tasks: list = field(default_factory=list)  # TaskRow, most time first
    days: list = field(default_factory=list)  # DayRow, by day then task

    @property
    def seconds(self) -> int:
        return sum(t.seconds for t in self.tasks)

    def split_known(self) -> bool:
        return any(t.claude is not None for t in self.tasks)


def period_start(period: str, now: float) -> Optional[float]:
    """Epoch where ``period`` starts, as ``missioncache-db time`` counts it: today; week =
    today and the 6 days before; month = today and the 29 days before; all = None."""
    from missioncache_db.timefmt import local_midnight_epoch

    if period not in PERIODS:
        raise ValueError(f"invalid period {period!r}: use one of {', '.join(PERIODS)}")
    if period == "all":
        return None
    return local_midnight_epoch({"today": 0, "week": 6, "month": 29}[period], now)


def _day(epoch: float) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(epoch))


def collect(db: Any, period: str = "week", now: Optional[float] = None, task: Any = None) -> Report:
    """The report for ``period`` over every task (or only ``task``) with time in it.
    Tasks with no time in the period are left out unless named."""
    now = time.time() if now is None else now
    since = period_start(period, now)
    report = Report(
        period=period,
        start=_day(since) if since is not None else None,
        end=_day(now),
        generated=time.strftime("%Y-%m-%d %H:%M", time.localtime(now)),
    )
    tasks = [task] if task is not None else db.list_tasks()
    for item in tasks:
        row, days = _task_rows(db, item, since, period)
        if row.seconds or row.sessions or task is not None:
            report.tasks.append(row)
            report.days.extend(days)
    report.tasks.sort(key=lambda t: (-t.seconds, t.name))
    report.days.sort(key=lambda d: (d.day, d.task))
    return report


def _task_rows(db: Any, task: Any, since: Optional[float], period: str) -> tuple:
    sql = "SELECT start_epoch, duration_seconds, end_time FROM sessions WHERE task_id = ?"
    params: tuple = (task.id,)
    if since is not None:
        sql += " AND start_epoch >= ?"
        params += (since,)
    per_day: dict = {}
    row = TaskRow(task.id, task.name, task.status)
    last = task.last_worked_on
    for start, seconds, end_text in db.conn.execute(sql + " ORDER BY start_epoch", params):
        if start is None:
            continue
        bucket = per_day.setdefault(_day(start), [0, 0])
        bucket[0] += int(seconds or 0)
        bucket[1] += 1
        row.seconds += int(seconds or 0)
        row.sessions += 1
        if end_text and (last is None or end_text > last):
            last = end_text
    row.last_activity = last[:16] if isinstance(last, str) else None
    row.claude, row.you = split(db, task.id, period)
    row.compactions = compactions(task, since)
    row.done, row.total_items = progress(task)
    days = [DayRow(day, task.name, s, n) for day, (s, n) in per_day.items()]
    return row, days


def split(db: Any, task_id: int, period: str) -> tuple:
    """(claude, you) seconds, or (None, None) until tasks.db can split time."""
    method = getattr(db, "time_split", None)
    if method is None:
        return None, None
    try:
        found = method(task_id, period=period)
        return int(found.claude), int(found.you)
    except Exception:
        return None, None


def compactions(task: Any, since: Optional[float]) -> Optional[int]:
    try:
        from missioncache_db.compactions import compaction_count
    except ImportError:
        return None
    try:
        return int(compaction_count(task, since_epoch=since))
    except Exception:
        return None


def progress(task: Any) -> tuple:
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
