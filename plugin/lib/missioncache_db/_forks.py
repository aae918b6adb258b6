"""Forks: parallel sessions on one piece of work, each a task of its own (docs/forks.md).

A fork has its own row, files and time, and ``tasks.fork_of`` names its parent, whose
context file is the *shared layer* every fork reads. The rules decided here:

- A fork of a fork is refused: there is one shared layer, the parent's, and a chain
  would make "the parent" ambiguous for digests, the marker and time.
- The parent must be open and its folder present: a fork reads its parent on every start.
- A fork lives at ``active/<name>`` (top level, like any task) and takes a name no task has.
- ``--repo DIR`` ties the fork to a directory (a git worktree, usually), stored as that
  directory's repository row: a session started there resolves to the fork (``resolve``).
  One open fork per tied directory, or sessions there could not tell which one they are.
- A parent cannot be closed or deleted while it has open forks (``tasks.set_status`` and
  ``tasks.delete_task`` ask ``open_forks``): the forks would lose their shared layer.
"""

from __future__ import annotations

import time

from missioncache_db._model import OPEN_STATUSES, Task, local_minute, local_text, validate_name
from missioncache_db._schema import write_transaction
from missioncache_db._tasks import (
    ensure_repository,
    folder_gone,
    get_task,
    get_task_by_name,
    query_tasks,
    resolve_repo,
)
from missioncache_state import lean_os as os
from missioncache_state.sqlite import sqlite3

FORK_LINE = "**Fork of:**"


def forks_of(conn: sqlite3.Connection, task_id: int, open_only: bool = False) -> list[Task]:
    """The forks of a task (all statuses, or only the open ones), by name."""
    where = "WHERE t.fork_of = ?"
    if open_only:
        where += f" AND t.status IN ({', '.join('?' * len(OPEN_STATUSES))})"
    return query_tasks(conn, where, (task_id, *(OPEN_STATUSES if open_only else ())))


def open_forks(conn: sqlite3.Connection, task_id: int) -> list[Task]:
    return forks_of(conn, task_id, open_only=True)


def family_ids(conn: sqlite3.Connection, task_id: int) -> list[int]:
    """The task and its forks (every status: a finished fork's time stays in its parent)."""
    rows = conn.execute("SELECT id FROM tasks WHERE fork_of = ? ORDER BY id", (task_id,))
    return [task_id, *(row[0] for row in rows)]


def parent_of(conn: sqlite3.Connection, task: Task) -> Task | None:
    """The parent of a fork (None for a task that is no fork, or a parent row gone)."""
    return get_task(conn, task.fork_of) if task.fork_of is not None else None


def _tied_fork(conn: sqlite3.Connection, repo_id: int) -> Task | None:
    found = query_tasks(
        conn,
        "WHERE t.repo_id = ? AND t.fork_of IS NOT NULL AND t.status IN (?, ?)",
        (repo_id, *OPEN_STATUSES),
    )
    return found[0] if found else None


def check_parent(parent: Task | None, key: str) -> Task:
    """The parent a new fork may branch from, or ValueError saying why not."""
    if parent is None:
        raise ValueError(f"no task named {key!r} to fork")
    if parent.fork_of is not None:
        raise ValueError(
            f"{parent.key} is itself a fork; fork its parent instead (forks share one"
            " layer, their parent's)"
        )
    if not parent.is_open:
        raise ValueError(f"{parent.key} is {parent.status}; reopen it before forking it")
    if not os.path.isdir(parent.directory_path):
        raise ValueError(f"cannot fork {parent.key}: {folder_gone(parent)}")
    return parent


def create_fork(
    conn: sqlite3.Connection,
    parent_key: str,
    name: str,
    directory: str | os.PathLike | None = None,
) -> Task:
    """Insert the fork and write its files (``**Fork of:** PARENT`` after the stamp); the
    row and the files succeed or fail together, as ``tasks.create_task``'s do."""
    from missioncache_db._templates import create_task_files

    validate_name(name)
    tie = resolve_repo(directory) if directory is not None else None
    now = time.time()
    with write_transaction(conn):
        parent = check_parent(get_task_by_name(conn, parent_key), parent_key)
        full_path = "active/" + name
        if conn.execute("SELECT 1 FROM tasks WHERE full_path = ?", (full_path,)).fetchone():
            raise ValueError(f"task {name!r} already exists")
        repo_id = ensure_repository(conn, tie) if tie else None
        other = _tied_fork(conn, repo_id) if repo_id is not None else None
        if other is not None:
            raise ValueError(f"{tie} is already tied to the open fork {other.key}")
        stamp = local_text(now)
        cursor = conn.execute(
            "INSERT INTO tasks(repo_id, name, full_path, parent_id, status, jira_key, "
            "created_at, updated_at, fork_of) VALUES (?, ?, ?, NULL, 'active', ?, ?, ?, ?)",
            (repo_id, name, full_path, parent.jira_key, stamp, stamp, parent.id),
        )
        assert cursor.lastrowid is not None
        fork = get_task(conn, cursor.lastrowid)
        assert fork is not None
        create_task_files(
            fork.directory,
            name,
            local_minute(now),
            fork.jira_key,
            tie or parent.repo_path,
            fork_of=parent.key,
        )
    return fork


def fork_of_line(text: str) -> str | None:
    """The parent named by a context file's ``**Fork of:**`` line (None without one)."""
    for line in text.splitlines():
        if line[: len(FORK_LINE)].lower() == FORK_LINE.lower():
            value = line[len(FORK_LINE) :].strip()
            return value or None
    return None
