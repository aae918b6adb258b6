"""``TaskDB``: the one object hooks and tools use to reach tasks.db.

A thin facade: each rule lives in its own module (``tasks``, ``resolve``, ``heartbeats``,
``sessions``); this class owns the connection and the spool directory that belongs to it.
"""

from __future__ import annotations

from missioncache_db import _resolve as resolve
from missioncache_db import _tasks as tasks
from missioncache_db._model import Task
from missioncache_db._schema import connect
from missioncache_spool import spool_folder_for
from missioncache_state import lean_os as os
from missioncache_state.bindings import unbind_task
from missioncache_state.ids import session_id_or_none
from missioncache_state.locations import tasks_db_path
from missioncache_state.sqlite import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from types import TracebackType

    from missioncache_state.ids import SessionId

DEFAULT_BUSY_TIMEOUT = 2.0


class TaskDB:
    """tasks.db with its schema current.

    ``busy_timeout`` (seconds) is how long a write waits for the lock. Choose it shorter
    than your own time budget: a heartbeat that does not get the lock in time is spooled,
    any other write raises ``sqlite3.OperationalError`` ("database is locked").
    """

    def __init__(self, path: str | os.PathLike | None = None, busy_timeout: float = 2.0):
        # Strings inside: pathlib costs milliseconds on every hook run. ``path`` and
        # ``spool_dir`` give Path objects to whoever asks.
        self.file = os.fspath(path) if path is not None else tasks_db_path()
        self.busy_timeout = busy_timeout
        self.spool_folder = spool_folder_for(self.file)
        self.conn: sqlite3.Connection = connect(self.file, busy_timeout)

    @property
    def path(self) -> Path:
        from pathlib import Path

        return Path(self.file)

    @property
    def spool_dir(self) -> Path:
        from pathlib import Path

        return Path(self.spool_folder)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> TaskDB:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- tasks ---------------------------------------------------------------------------
    def create_task(
        self,
        name: str,
        repo: str | os.PathLike | None = None,
        jira_key: str | None = None,
        parent: str | None = None,
    ) -> Task:
        """Create the task row and ``<root>/<full_path>/`` with its context and tasks
        files (existing files are kept). ValueError for a bad name, an unknown parent,
        a missing repository directory or a task that already exists."""
        return tasks.create_task(self.conn, name, repo, jira_key, parent)

    def get_task(self, task_id: int) -> Task | None:
        return tasks.get_task(self.conn, task_id)

    def get_tasks_by_name(self, name: str) -> list[Task]:
        return tasks.get_tasks_by_name(self.conn, name)

    def get_task_by_name(self, name: str) -> Task | None:
        """The task called ``name`` (``parent/name`` for a subtask); ValueError when
        several tasks share the name."""
        return tasks.get_task_by_name(self.conn, name)

    def list_tasks(self, status: str | None = None) -> list[Task]:
        return tasks.list_tasks(self.conn, status)

    def set_status(self, task_id: int, status: str) -> Task:
        """A task no longer open (completed, archived) loses its sessions' bindings: a
        binding answers for its task without tasks.db (``missioncache_db._bound``)."""
        task = tasks.set_status(self.conn, task_id, status)
        if not task.is_open:
            unbind_task(task_id)
        return task

    def delete_task(self, task_id: int) -> None:
        tasks.delete_task(self.conn, task_id)
        unbind_task(task_id)

    def recreate_task_files(self, task: Task) -> list:
        """Recreate a task's missing context and tasks files from the templates."""
        parent = self.parent_of(task)
        return tasks.recreate_files(task, parent.key if parent else None)

    # -- forks (docs/forks.md) -----------------------------------------------------------
    def create_fork(
        self, parent: str, name: str, directory: str | os.PathLike | None = None
    ) -> Task:
        """Fork ``parent`` (its name, ``parent/name`` for a subtask) as the task ``name``,
        tied to ``directory`` when given. ValueError when that is not allowed."""
        from missioncache_db import _forks as forks

        return forks.create_fork(self.conn, parent, name, directory)

    def forks_of(self, task_id: int, open_only: bool = False) -> list[Task]:
        from missioncache_db import _forks as forks

        return forks.forks_of(self.conn, task_id, open_only)

    def parent_of(self, task: Task) -> Task | None:
        """The parent of a fork; None for any other task."""
        from missioncache_db import _forks as forks

        return forks.parent_of(self.conn, task)

    def task_folder_missing(self, task: Task) -> bool:
        """Whether the task's folder was deleted or moved away."""
        return tasks.folder_missing(task)

    # -- resolution ----------------------------------------------------------------------
    # The ids these methods take are ``SessionId`` / ``PromptId``, parsed where they entered.
    # This class is also the package's edge for callers holding plain strings (scripts,
    # tests), so each method passes its ids through the parser once more: a parsed id
    # comes back at the cost of a type test, anything else is parsed (and may be absent).

    def find_task_for_cwd(
        self, cwd: str | os.PathLike, session_id: SessionId | None = None
    ) -> Task | None:
        """The task this session works on (data model section 4), or None."""
        return resolve.find_task_for_cwd(self.conn, cwd, session_id_or_none(session_id))

    def active_tasks_for_cwd_repo(self, cwd: str | os.PathLike) -> list[Task]:
        return resolve.active_tasks_for_cwd_repo(self.conn, cwd)


def open_if_set_up(busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> TaskDB | None:
    """tasks.db opened, or None when MissionCache is not set up on this machine.

    Hooks run in every Claude Code session, tracked or not: opening would create a
    database (and a data root) for a user who never created a task."""
    if not os.path.isfile(tasks_db_path()):
        return None
    return TaskDB(busy_timeout=busy_timeout)
