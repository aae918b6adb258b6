"""Task lookup, creation and session binding, shared by the MCP tools and the commands.

Binding a session (``<claude>/hooks/state/projects/<session-id>.json``) is what makes the
hooks, the statusline and later tool calls agree on the task, whatever the cwd: it is the
first rule of ``find_task_for_cwd``. The session id comes from Claude Code
(``CLAUDE_CODE_SESSION_ID`` in the environment of MCP servers and ``!`` command lines;
``missioncache_state.ids.session_id_from_env``) and is validated before it becomes a file name.
"""

from __future__ import annotations

import os
import sqlite3
from typing import TYPE_CHECKING, Any

from missioncache_pm.errors import PmError

if TYPE_CHECKING:
    from missioncache_db import Task, TaskDB
    from missioncache_state.ids import SessionId

DB_BUSY_TIMEOUT = 5.0
_SHOWN_TASKS = 10
_SHOWN_PENDING = 20


def checked_session(session_id: object) -> SessionId | None:
    """An explicitly given session id (None when not given); PmError when invalid. The
    tool's argument is parsed here, where it enters; the code after it takes the result."""
    from missioncache_state.ids import session_id_or_none

    if session_id is None or session_id == "":
        return None
    sid = session_id_or_none(session_id)
    if sid is None:
        raise PmError(f"{str(session_id)[:80]!r} is not a valid Claude session id")
    return sid


def open_db() -> TaskDB:
    from missioncache_db import TaskDB

    return TaskDB(busy_timeout=DB_BUSY_TIMEOUT)


# -- describing a task ---------------------------------------------------------------------


def time_invested(db: TaskDB, task: Task) -> str:
    """``1h 5m in total (today 12m, last 7 days 1h)``, heartbeats folded in first when the
    database lock allows (a busy database only makes the figure slightly stale)."""
    from missioncache_time import format_duration, process_pending
    from missioncache_time import time_invested as task_time

    try:
        process_pending(db)
    except sqlite3.OperationalError:
        pass
    total, today, week = (task_time(db, task.id, period) for period in ("all", "today", "week"))
    return (
        f"{format_duration(total)} in total (today {format_duration(today)}, "
        f"last 7 days {format_duration(week)})"
    )


def task_lines(db: TaskDB, task: Task) -> list[str]:
    """The facts about a task, one markdown line each."""
    lines = [f"**Task:** {task.name} (id {task.id}, {task.status}, {task.full_path})"]
    if task.jira_key:
        lines.append(f"**JIRA:** {task.jira_key}")
    if task.repo_path:
        lines.append(f"**Repository:** {task.repo_path}")
    lines.append(f"**Time invested:** {time_invested(db, task)}")
    for label, path in (("Context file", task.context_file), ("Tasks file", task.tasks_file)):
        lines.append(f"**{label}:** {path}" + ("" if path.is_file() else " (missing)"))
    return lines


def summary_lines(task: Task) -> list[str]:
    """A short digest: Next Steps and the newest Recent Changes entry, then the
    unchecked items of the tasks file."""
    from missioncache_context import digest, parse_items, read_file

    lines: list[str] = []
    try:
        context = digest(read_file(task.context_file), limit=3000)
    except (OSError, ValueError):
        context = ""
    if context.strip():
        from missioncache_hookio.quoting import quoted

        # Quoted: the file may hold headings MissionCache writes (missioncache_hookio.quoting).
        lines += ["", "Context digest (quoted from the context file):", "", quoted(context.strip())]
    try:
        pending = [item for item in parse_items(read_file(task.tasks_file)) if not item.done]
    except (OSError, ValueError):
        return lines
    shown = [f"- [ ] {item.number + '. ' if item.number else ''}{item.text}" for item in pending]
    if len(shown) > _SHOWN_PENDING:
        shown = [*shown[:_SHOWN_PENDING], f"- ... {len(pending) - _SHOWN_PENDING} more"]
    lines += ["", f"Unchecked tasks ({len(pending)}):", *shown] if pending else []
    return lines


def bind(task: Task, session_id: SessionId | None) -> str:
    """Bind the session to an open task; returns the line saying what happened."""
    from missioncache_state.bindings import write_session_binding

    if session_id is None:
        return "This session was not bound: Claude Code gave no valid session id."
    if not task.is_open:
        return (
            f"This session was not bound: {task.name} is {task.status} "
            "(only active or paused tasks can be worked on)."
        )
    write_session_binding(session_id, task.name, task.id, task.full_path)
    return f"This session ({session_id}) is now bound to {task.name}."


def known_tasks(db: TaskDB) -> str:
    """``Open tasks: a, b, c`` for error messages (or a hint to create one)."""
    names = [t.full_path.split("/", 1)[-1] for t in db.list_tasks() if t.is_open]
    if not names:
        return "There are no open tasks yet; create one with /missioncache:new <name>"
    more = f" (+{len(names) - _SHOWN_TASKS} more)" if len(names) > _SHOWN_TASKS else ""
    return "Open tasks: " + ", ".join(names[:_SHOWN_TASKS]) + more


def task_named(db: TaskDB, name: Any) -> Task:
    """The task called ``name`` (``parent/name`` for a subtask); PmError naming the open
    tasks when there is none."""
    from missioncache_db import validate_name

    if not isinstance(name, str) or not name.strip():
        raise PmError("Give the task's name")
    name = name.strip()
    for part in name.split("/", 1):
        validate_name(part)
    task = db.get_task_by_name(name)
    if task is None:
        raise PmError(f"No task named {name!r}. {known_tasks(db)}")
    return task


# -- the tools -------------------------------------------------------------------------------


def find_task_for_directory(directory: Any, session_id: object = None) -> str:
    """Which task a session in ``directory`` is on (data model section 4), with its files
    and time invested; says so, with the candidates, when none resolves."""
    from missioncache_state.bindings import read_session_binding

    if not isinstance(directory, str) or not directory.strip():
        raise PmError("Give the directory to look up")
    path = os.path.expanduser(directory.strip())
    if not os.path.isabs(path):
        raise PmError(f"The directory must be an absolute path, not {directory.strip()!r}")
    if not os.path.isdir(path):
        raise PmError(f"There is no directory {path}")
    from missioncache_state.ids import session_id_from_env

    sid = checked_session(session_id) or session_id_from_env()
    with open_db() as db:
        task = db.find_task_for_cwd(path, sid)
        if task is None:
            return no_task_message(db, path)
        binding = read_session_binding(sid) if sid else None
        bound = binding is not None and binding.get("taskId") in (task.id, None)
        via = f"the binding of session {sid}" if bound else f"the directory {path}"
        return "\n".join([f"Resolved through {via}.", *task_lines(db, task)])


def no_task_message(db: TaskDB, path: str) -> str:
    """Why nothing resolved for ``path``, with the candidates or the open tasks."""
    candidates = db.active_tasks_for_cwd_repo(path)
    if len(candidates) > 1:
        names = ", ".join(t.name for t in candidates[:_SHOWN_TASKS])
        return (
            f"No single task for {path}: its repository has {len(candidates)} active tasks "
            f"({names}). Pick one with /missioncache:load <name> or the get_task tool."
        )
    return f"No MissionCache task for {path}. {known_tasks(db)}."


def get_task(name: Any, session_id: SessionId | None = None) -> str:
    """The named task's facts and digest; binds the session to it."""
    with open_db() as db:
        task = task_named(db, name)
        lines = task_lines(db, task)
    return "\n".join([*lines, bind(task, session_id), *summary_lines(task)])


def create_task(
    name: Any, repo: Any = None, jira_key: Any = None, session_id: SessionId | None = None
) -> str:
    """Create a task (row, directory, context and tasks files) and bind the session."""
    repo_path = None
    if repo is not None and repo != "":
        if not isinstance(repo, str):
            raise PmError("repo must be a directory path")
        repo_path = os.path.expanduser(repo.strip())
        if not os.path.isabs(repo_path):
            raise PmError(f"repo must be an absolute path, not {repo.strip()!r}")
    if jira_key is not None and not isinstance(jira_key, str):
        raise PmError("jira_key must be text such as PROJ-123")
    if not isinstance(name, str):
        raise PmError("Give the new task's name")
    with open_db() as db:
        task = db.create_task(name.strip(), repo=repo_path, jira_key=jira_key)
        lines = task_lines(db, task)
    return "\n".join([f"Created task {task.name}.", *lines, bind(task, session_id)])
