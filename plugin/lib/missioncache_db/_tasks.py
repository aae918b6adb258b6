"""Task and repository rows: create, look up, list, change status, delete.

Functions take an open connection so ``TaskDB`` stays a thin facade and each rule lives
in one place.
"""

from __future__ import annotations

import time

from missioncache_db._model import (
    OPEN_STATUSES,
    Task,
    is_contained,
    local_minute,
    local_text,
    validate_name,
    validate_status,
)
from missioncache_db._schema import write_transaction
from missioncache_state import lean_os as os
from missioncache_state.sqlite import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

TASK_SELECT = (
    "SELECT t.id, t.name, t.full_path, t.status, t.jira_key, r.path, t.repo_id, "
    "t.parent_id, t.created_at, t.updated_at, t.last_worked_on, t.fork_of "
    "FROM tasks t LEFT JOIN repositories r ON r.id = t.repo_id"
)


def task_from_row(row: Iterable) -> Task:
    return Task(*row)


def query_tasks(conn: sqlite3.Connection, where: str = "", params: tuple = ()) -> list[Task]:
    """Tasks matching ``where``; a row whose path would leave the data root is skipped
    (``model.is_contained``): its files must never be read or written."""
    sql = f"{TASK_SELECT} {where} ORDER BY t.full_path, t.id"
    tasks = (task_from_row(row) for row in conn.execute(sql, params))
    return [task for task in tasks if is_contained(task.full_path, task.name)]


def get_task(conn: sqlite3.Connection, task_id: int) -> Task | None:
    if isinstance(task_id, bool) or not isinstance(task_id, int):
        return None
    if not -(1 << 63) <= task_id < 1 << 63:  # a binding's id no row can hold: SQLite would raise
        return None
    found = query_tasks(conn, "WHERE t.id = ?", (task_id,))
    return found[0] if found else None


def get_tasks_by_name(conn: sqlite3.Connection, name: str) -> list[Task]:
    return query_tasks(conn, "WHERE t.name = ?", (name,))


def get_task_by_name(conn: sqlite3.Connection, name: str) -> Task | None:
    """The one task called ``name`` (or ``parent/name`` for a subtask); None when there
    is none; ValueError naming the candidates when several share the name."""
    if "/" in name:
        found = query_tasks(conn, "WHERE t.full_path = ?", ("active/" + name,))
    else:
        found = get_tasks_by_name(conn, name)
    if len(found) > 1:
        paths = ", ".join(task.full_path.split("/", 1)[-1] for task in found)
        raise ValueError(f"several tasks are named {name!r} ({paths}); use parent/name")
    return found[0] if found else None


def list_tasks(conn: sqlite3.Connection, status: str | None = None) -> list[Task]:
    if status is None:
        return query_tasks(conn)
    return query_tasks(conn, "WHERE t.status = ?", (validate_status(status),))


def resolve_repo(repo: str | os.PathLike) -> str:
    """A repository is stored as its resolved path; it must be an existing directory."""
    path = os.path.realpath(os.path.expanduser(os.fspath(repo)))
    if not os.path.isdir(path):
        raise ValueError(f"repository {os.fspath(repo)!r} is not a directory")
    return path


def ensure_repository(conn: sqlite3.Connection, path: str, remote: str | None = None) -> int:
    """The repository row for ``path``, created when new, with its git remote (read from
    the folder when not given): how another machine recognises it (docs/sync.md)."""
    from missioncache_db._remote import git_remote

    remote = remote or git_remote(path)
    conn.execute(
        "INSERT OR IGNORE INTO repositories(path, short_name, created_at, remote) "
        "VALUES (?, ?, ?, ?)",
        (path, os.path.basename(path) or path, local_text(time.time()), remote),
    )
    if remote:
        conn.execute(
            "UPDATE repositories SET remote = ? WHERE path = ? AND remote IS NULL", (remote, path)
        )
    return int(conn.execute("SELECT id FROM repositories WHERE path = ?", (path,)).fetchone()[0])


def _parent_path(conn: sqlite3.Connection, parent: str) -> tuple[int, str]:
    validate_name(parent)
    row = conn.execute(
        "SELECT id, full_path FROM tasks WHERE full_path = ? ORDER BY id LIMIT 1",
        ("active/" + parent,),
    ).fetchone()
    if row is None:
        raise ValueError(f"no top-level task named {parent!r} to be the parent")
    return row[0], row[1]


def create_task(
    conn: sqlite3.Connection,
    name: str,
    repo: str | os.PathLike | None = None,
    jira_key: str | None = None,
    parent: str | None = None,
) -> Task:
    """Insert the task and create ``<root>/<full_path>/`` with its two files.

    The row and the files succeed or fail together: the files are written inside the
    transaction, which rolls back if they cannot be. A full_path already used by any
    task is refused, whatever its repository: both would share one directory.
    """
    from missioncache_db._templates import create_task_files

    validate_name(name)
    repo_path = resolve_repo(repo) if repo is not None else None
    jira_key = (jira_key or "").strip() or None
    now = time.time()
    with write_transaction(conn):
        parent_id, full_path = None, "active/" + name
        if parent is not None:
            parent_id, parent_path = _parent_path(conn, parent)
            full_path = f"{parent_path}/{name}"
        if conn.execute("SELECT 1 FROM tasks WHERE full_path = ?", (full_path,)).fetchone():
            raise ValueError(f"task {full_path.split('/', 1)[1]!r} already exists")
        repo_id = ensure_repository(conn, repo_path) if repo_path else None
        stamp = local_text(now)
        cursor = conn.execute(
            "INSERT INTO tasks(repo_id, name, full_path, parent_id, status, jira_key, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, 'active', ?, ?, ?)",
            (repo_id, name, full_path, parent_id, jira_key, stamp, stamp),
        )
        assert cursor.lastrowid is not None  # an INSERT that succeeded has a row id
        task = get_task(conn, cursor.lastrowid)
        assert task is not None
        create_task_files(task.directory, name, local_minute(now), jira_key, repo_path)
    return task


def set_status(conn: sqlite3.Connection, task_id: int, status: str) -> Task:
    """A parent with open forks stays open: they read its context as their shared layer
    (docs/forks.md); finish or close the forks first."""
    validate_status(status)
    with write_transaction(conn):
        if status not in OPEN_STATUSES:
            _refuse_with_open_forks(conn, task_id, f"be {status}")
        cursor = conn.execute(
            "UPDATE tasks SET status = ?, updated_at = ? WHERE id = ?",
            (status, local_text(time.time()), task_id),
        )
        if cursor.rowcount != 1:
            raise ValueError(f"no task with id {task_id!r}")
    task = get_task(conn, task_id)
    assert task is not None
    return task


def delete_task(conn: sqlite3.Connection, task_id: int) -> None:
    """Delete the row with its heartbeats and sessions. Its files stay on disk: they are
    the user's notes. A task with subtasks cannot be deleted before them."""
    with write_transaction(conn):
        if conn.execute("SELECT 1 FROM tasks WHERE parent_id = ?", (task_id,)).fetchone():
            raise ValueError(f"task {task_id!r} has subtasks; delete them first")
        forks = conn.execute("SELECT name FROM tasks WHERE fork_of = ?", (task_id,)).fetchall()
        if forks:  # their time counts in this task's total, and their rows point at it
            names = ", ".join(row[0] for row in forks)
            raise ValueError(f"task {task_id!r} has forks ({names}); delete them first")
        if conn.execute("DELETE FROM tasks WHERE id = ?", (task_id,)).rowcount != 1:
            raise ValueError(f"no task with id {task_id!r}")


def _refuse_with_open_forks(conn: sqlite3.Connection, task_id: int, what: str) -> None:
    rows = conn.execute(
        "SELECT name FROM tasks WHERE fork_of = ? AND status IN (?, ?) ORDER BY name",
        (task_id, *OPEN_STATUSES),
    ).fetchall()
    if rows:
        names = ", ".join(row[0] for row in rows)
        raise ValueError(
            f"task {task_id!r} has open forks ({names}) that read it as their shared layer;"
            f" finish them (fork-done) or close them before it can {what}"
        )


def recreate_files(task: Task, fork_of: str | None = None) -> list:
    """Write the task's context and tasks files from the templates where they are missing
    (its folder was deleted or moved); existing files are kept. Returns the files written.
    ``fork_of``: the parent's name, for a fork's ``**Fork of:**`` line."""
    from missioncache_db._templates import create_task_files

    stamp = local_minute(time.time())
    return create_task_files(
        task.directory, task.name, stamp, task.jira_key, task.repo_path, fork_of=fork_of
    )


def folder_missing(task: Task) -> bool:
    """Whether the task's folder is gone (deleted or moved away): nothing can be read or
    saved there, and the user must be offered a way out instead of a FileNotFoundError."""
    return not os.path.isdir(task.directory_path)


def folder_gone(task: Task) -> str:
    """``its folder PATH is gone (deleted or moved)``: one wording wherever it is told (the
    doctor, SessionStart, the slash commands), so the user recognises it."""
    return f"its folder {task.directory_path} is gone (deleted or moved)"


def folder_ways_out(name: str, launcher: str) -> str:
    """The terminal commands out of a gone folder, as one phrase."""
    return (
        f"`{launcher} recreate {name}` (new files from the templates), `{launcher} close"
        f" {name}` (stop tracking it) or `{launcher} delete {name} --yes` (forget it and its"
        " recorded time)"
    )


def stamp_worked_on(conn: sqlite3.Connection, task_id: int, text: str) -> None:
    """``last_worked_on`` only moves forward: a late (spooled) heartbeat never rewinds it."""
    conn.execute(
        "UPDATE tasks SET last_worked_on = ? WHERE id = ? "
        "AND (last_worked_on IS NULL OR last_worked_on < ?)",
        (text, task_id, text),
    )
