"""What the pages show, read from what MissionCache keeps: tasks.db, the task files, the
compaction records and the earlier versions beside them.

Every figure comes from the same functions the command line and the report use
(``missioncache_time.time_split``, ``missioncache_report.data``), so the dashboard and
``missioncache report`` never disagree. A task's files are reached through its database row
only (its id from the URL picks the row; the row's checked ``full_path`` gives the folder):
nothing in a request ever becomes a path.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from missioncache_time import time_split

if TYPE_CHECKING:
    from missioncache_cost import DayPricing
    from missioncache_db import Task, TaskDB

PERIODS = ("today", "week", "all")
FILE_LIMIT = 512 * 1024  # a context file bigger than this is shown cut
RECENT_SESSIONS_SECONDS = 6 * 3600  # a Claude session with a prompt this recent is listed
WORK_SESSIONS_SHOWN = 30
COMPACTIONS_SHOWN = 20


def _split(db: TaskDB, task: Task, period: str, now: float) -> dict:
    from missioncache_time import part_texts

    found = time_split(db, task.id, period, now)
    claude, you = part_texts(found.total, found.claude, found.you)  # as `time` writes them
    return {
        "total": found.total,
        "claude": found.claude,
        "you": found.you,
        "shown": {"claude": claude, "you": you},
    }


def _cost(db: TaskDB, task: Task, now: float, pricing: DayPricing) -> float | None:
    """All-time dollars of the task's messages, a parent's with its forks' (a message
    belongs to one task, docs/forks.md); None when a model has no known price. Read
    through the day summaries when they can be used: a live update reads no old message."""
    from missioncache_cost import task_tokens
    from missioncache_time import window_tokens

    tokens = window_tokens(db.conn, task.id, None, pricing, now)
    if tokens is None:
        tokens = task_tokens(db.conn, task.id)
    return tokens.cost  # type: ignore[no-any-return]


def task_summary(db: TaskDB, task: Task, now: float, pricing: DayPricing) -> dict:
    """One row of the task list: status, progress, time per period (a parent's the union
    with its forks'), cost, last worked; ``fork_of`` names the task a fork branched from."""
    from missioncache_report.data import last_activity, progress, shown_name

    done, total = progress(task)
    return {
        "id": task.id,
        "name": task.name,
        "shown_name": shown_name(task),
        "status": task.status,
        "parent_id": task.parent_id,
        "fork_of": task.fork_of,
        "cost": _cost(db, task, now, pricing),
        "jira_key": task.jira_key,
        "done": done,
        "total": total,
        "time": {period: _split(db, task, period, now) for period in PERIODS},
        "last_worked": last_activity(db, task),
        "billing": _billing(db, task, now),
    }


def _billing(db: TaskDB, task: Task, now: float) -> dict | None:
    """The task's client and its billable hours and amount this calendar month
    (docs/billing.md); None when it has no client, or billing cannot be read."""
    try:
        from missioncache_billing.compute import month_billing

        return month_billing(db, task, now)
    except (ImportError, OSError, ValueError):
        return None


def task_list(db: TaskDB, now: float | None = None) -> list[dict]:
    """Every task, each parent before its forks and subtasks, each group newest work first."""
    now = time.time() if now is None else now
    from missioncache_cost import day_pricing
    from missioncache_time import refresh_days

    # the day summaries; nothing to do on most live updates
    pricing = day_pricing()  # the price table read once per list, not once per task
    refresh_days(db.conn, now, pricing=pricing)
    rows = [task_summary(db, task, now, pricing) for task in db.list_tasks()]
    by_parent: dict[Any, list[dict]] = {}
    ids = {row["id"] for row in rows}
    for row in rows:
        above = row["fork_of"] if row["fork_of"] is not None else row["parent_id"]
        parent = above if above in ids else None
        by_parent.setdefault(parent, []).append(row)
    ordered: list[dict] = []

    def add(parent: Any, depth: int) -> None:
        children = sorted(
            by_parent.get(parent, []), key=lambda r: r["last_worked"] or "", reverse=True
        )
        for row in children:
            if depth > 8 or row in ordered:  # a damaged database's loop stops here
                continue
            ordered.append(dict(row, depth=depth))
            add(row["id"], depth + 1)

    add(None, 0)
    return ordered


def day_chart(db: TaskDB, period: str, now: float | None = None) -> dict:
    """Time per local day of the last week or month, per task: every day of the period is
    present, so idle days show as gaps."""
    from missioncache_report.data import collect

    if period not in ("week", "month"):
        raise ValueError("period: week or month")
    report = collect(db, period, now)
    days: dict[str, dict[str, int]] = {}
    anchor = time.mktime(time.strptime(report.end, "%Y-%m-%d")) + 12 * 3600
    count = 7 if period == "week" else 30
    for back in range(count - 1, -1, -1):
        year, month, mday = time.localtime(anchor)[:3]
        day = time.strftime(
            "%Y-%m-%d", time.localtime(time.mktime((year, month, mday - back, 12, 0, 0, 0, 0, -1)))
        )
        days[day] = {}
    for row in report.days:
        if row.day in days and row.seconds:
            days[row.day][row.task] = row.seconds
    drawn = {name for tasks in days.values() for name in tasks}
    return {
        "period": period,
        # only tasks a bar is drawn for: a fork's time is in its parent's days
        "tasks": [t.name for t in report.tasks if t.name in drawn],
        "days": [{"day": day, "tasks": tasks} for day, tasks in days.items()],
    }


def _read_text(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(FILE_LIMIT + 1)
    except OSError:
        return None
    text = data[:FILE_LIMIT].decode("utf-8", "replace")
    return text + "\n\n[… cut by the dashboard]" if len(data) > FILE_LIMIT else text


def _checklist(task: Task) -> list[dict]:
    from missioncache_context import parse_items

    text = _read_text(task.tasks_path)
    if text is None:
        return []
    try:
        items = parse_items(text)
    except ValueError:
        return []
    return [{"number": i.number, "text": i.text, "done": i.done} for i in items]


def _compactions(task: Task) -> list[dict]:
    from missioncache_db import recent_compactions

    return [
        {"when": c.when, "trigger": c.trigger, "session_id": c.session_id, "summary": c.summary}
        for c in recent_compactions(task, COMPACTIONS_SHOWN)
    ]


def _history(task: Task) -> list[dict]:
    """The earlier versions kept beside the context and tasks files, newest first."""
    from missioncache_state.history import versions

    found = []
    for path in (task.context_path, task.tasks_path):
        for version in versions(path):
            try:
                info = os.stat(version)
            except OSError:
                continue
            found.append(
                {
                    "file": os.path.basename(path),
                    "version": os.path.basename(version),
                    "saved": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info.st_mtime)),
                    "bytes": info.st_size,
                    "text": _read_text(version),
                }
            )
    return found


def _work_sessions(db: TaskDB, task: Task) -> list[dict]:
    """The task's work sessions, newest first. A work session is a span of activity, not a
    Claude Code session: it may hold several of them (each /exit and restart), so each row
    names every Claude Code session with a prompt in its span."""
    rows = db.conn.execute(
        "SELECT session_id, start_time, end_time, duration_seconds, heartbeat_count, "
        "start_epoch, end_epoch "
        "FROM sessions WHERE task_id = ? ORDER BY start_epoch DESC, id DESC LIMIT ?",
        (task.id, WORK_SESSIONS_SHOWN),
    )
    keys = ("session_id", "start", "end", "seconds", "prompts")
    found = []
    for row in rows.fetchall():
        item = dict(zip(keys, row[:5]))
        ids = db.conn.execute(
            "SELECT session_id FROM heartbeats WHERE task_id = ? AND session_id IS NOT NULL"
            " AND epoch BETWEEN ? AND ? GROUP BY session_id ORDER BY MIN(epoch)",
            (task.id, row[5], row[6]),
        ).fetchall()
        item["claude_sessions"] = [i[0] for i in ids] or ([row[0]] if row[0] else [])
        found.append(item)
    return found


def task_detail(db: TaskDB, task_id: int, now: float | None = None) -> dict | None:
    """Everything the task's page shows, or None when no task has that id."""
    from missioncache_dashboard.markdown import render

    task = db.get_task(task_id)
    if task is None:
        return None
    now = time.time() if now is None else now
    from missioncache_cost import day_pricing
    from missioncache_time import refresh_days

    pricing = day_pricing()
    refresh_days(db.conn, now, pricing=pricing)
    context = _read_text(task.context_path)
    detail = task_summary(db, task, now, pricing)
    detail.update(
        context_file=os.path.basename(task.context_path),
        context_html=render(context) if context is not None else None,
        checklist=_checklist(task),
        compactions=_compactions(task),
        history=_history(task),
        sessions=_work_sessions(db, task),
        forks=[
            {"id": t.id, "name": t.name, "status": t.status}
            for t in db.list_tasks()
            if task.id in (t.fork_of, t.parent_id)
        ],
    )
    return detail


def recent_sessions(db: TaskDB, now: float | None = None) -> dict[str, dict]:
    """Claude sessions with a prompt in the last hours, from the heartbeats the command
    hook records and sync brings from other machines: the task, when the last prompt
    started, whether its turn ended, and which other machine it runs on."""
    now = time.time() if now is None else now
    rows = db.conn.execute(
        "SELECT h.session_id, h.task_id, t.name, h.epoch, h.prompt_id, h.machine, "
        "EXISTS (SELECT 1 FROM turn_ends e WHERE e.session_id = h.session_id "
        "        AND e.prompt_id = h.prompt_id) "
        "FROM heartbeats h JOIN tasks t ON t.id = h.task_id "
        "WHERE h.session_id IS NOT NULL AND h.epoch >= ? ORDER BY h.epoch",
        (now - RECENT_SESSIONS_SECONDS,),
    )
    found: dict[str, dict] = {}
    for session_id, task_id, name, epoch, prompt_id, machine, ended in rows:
        found[session_id] = {
            "session_id": session_id,
            "task_id": task_id,
            "task": name,
            "turn_started": epoch,
            # No prompt id (an older hook): the turn's end cannot be matched; say waiting.
            "turn_running": bool(prompt_id) and not ended,
            # Synced from another machine: its name (None: a session of this machine).
            "machine": machine,
        }
    return found


def resolve_task(db: TaskDB, cwd: str | None, session_id: str) -> tuple[int | None, str | None]:
    """The task a session reported by an http hook is on (data model section 4)."""
    from missioncache_state.ids import session_id_or_none

    if not cwd:
        return None, None
    try:
        task = db.find_task_for_cwd(cwd, session_id_or_none(session_id))
    except (OSError, ValueError):
        return None, None
    return (task.id, task.name) if task is not None else (None, None)
