"""``TaskDB``: the one object hooks and tools use to reach tasks.db.

A thin facade: each rule lives in its own module (``tasks``, ``resolve``, ``heartbeats``,
``sessions``); this class owns the connection and the spool directory that belongs to it.
"""

from __future__ import annotations

import os

from missioncache_db import resolve, tasks
from missioncache_db.model import Task
from missioncache_db.schema import connect
from missioncache_db.spool import spool_folder_for
from missioncache_state.bindings import unbind_task
from missioncache_state.ids import prompt_id_or_none, session_id_or_none
from missioncache_state.locations import tasks_db_path
from missioncache_state.sqlite import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from types import TracebackType
    from typing import Any

    from missioncache_db.timefmt import When
    from missioncache_db.turns import TimeSplit
    from missioncache_db.usage import Tokens
    from missioncache_state.ids import PromptId, SessionId

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
        binding answers for its task without tasks.db (``missioncache_db.bound``)."""
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
        from missioncache_db import forks

        return forks.create_fork(self.conn, parent, name, directory)

    def forks_of(self, task_id: int, open_only: bool = False) -> list[Task]:
        from missioncache_db import forks

        return forks.forks_of(self.conn, task_id, open_only)

    def parent_of(self, task: Task) -> Task | None:
        """The parent of a fork; None for any other task."""
        from missioncache_db import forks

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

    # -- heartbeats and time -------------------------------------------------------------
    def record_heartbeat(
        self,
        task_id: int,
        session_id: SessionId | None,
        context: Any = None,
        timestamp: When = None,
        prompt_id: PromptId | None = None,
        kind: str = "prompt",
    ) -> str:
        """Record one heartbeat (``timestamp``: epoch seconds or datetime, default now):
        the start of the turn ``prompt_id``, a human prompt or (``kind="synthetic"``) one
        Claude Code made itself. Returns ``"db"``, or ``"spool"`` when the lock was busy
        past the busy timeout."""
        from missioncache_db import heartbeats  # only the heartbeat's writers need it

        sid, pid = session_id_or_none(session_id), prompt_id_or_none(prompt_id)
        record = heartbeats.new_record(task_id, sid, context, timestamp, pid, kind)
        return heartbeats.record(self.conn, self.spool_folder, record)

    def record_heartbeat_auto(
        self,
        cwd: str | os.PathLike,
        session_id: SessionId | None,
        timestamp: When = None,
        prompt_id: PromptId | None = None,
        kind: str = "prompt",
    ) -> bool:
        """Resolve the task for ``cwd``/``session_id`` and record a heartbeat on it;
        returns whether one was kept (in the database or the spool)."""
        session_id = session_id_or_none(session_id)
        task = self.find_task_for_cwd(cwd, session_id)
        if task is None:
            return False
        context = {"cwd": os.fspath(cwd)}
        self.record_heartbeat(task.id, session_id, context, timestamp, prompt_id, kind)
        return True

    def record_turn_end(
        self,
        session_id: SessionId | None,
        prompt_id: PromptId | None,
        outcome: str = "stop",
        background: int = 0,
        timestamp: float | None = None,
    ) -> bool:
        """Record the end of the turn ``prompt_id`` (``outcome`` ``stop`` or ``failure``;
        ``background``: how many background tasks were still running) through this
        database's spool, as the Stop hook does; False for an invalid prompt id."""
        from missioncache_db import spool
        from missioncache_db.turn_end import new_turn_end

        sid, pid = session_id_or_none(session_id), prompt_id_or_none(prompt_id)
        record = new_turn_end(sid, pid, outcome, background, timestamp)
        if record is None:
            return False
        spool.append(self.spool_folder, record)
        return True

    def process_heartbeats(self, now: float | None = None) -> int:
        """Fold unprocessed (and spooled) heartbeats into work sessions; returns how
        many were processed."""
        from missioncache_db import sessions

        return sessions.process_heartbeats(self.conn, self.spool_folder, now)

    def time_invested(self, task_id: int, period: str = "all") -> int:
        """Seconds worked on the task: ``all``, ``today``, ``week`` (last 7 days) or
        ``month`` (last 30 days). The total of ``time_split``."""
        from missioncache_db import sessions

        return sessions.time_invested(self.conn, task_id, period)

    def time_split(
        self,
        task_id: int,
        period: str = "all",
        now: float | None = None,
        keep_summary: bool = False,
    ) -> TimeSplit:
        """Seconds worked on the task within ``period``: ``total`` (the union), ``claude``
        (inside turns) and ``you`` (the human's gaps within the idle timeout).
        ``keep_summary``: store the summary that makes the next all-time read fast, when
        the database is free (``missioncache_db.summary``)."""
        from missioncache_db import sessions

        return sessions.time_split(self.conn, task_id, period, now, keep_summary)

    def task_tokens(self, task_id: int, period: str = "all") -> Tokens:
        """The tokens and cost of a task's messages in ``period`` (docs/cost.md)."""
        from missioncache_db.sessions import period_start
        from missioncache_db.usage import task_tokens

        return task_tokens(self.conn, task_id, period_start(period))


def open_if_set_up(busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> TaskDB | None:
    """tasks.db opened, or None when MissionCache is not set up on this machine.

    Hooks run in every Claude Code session, tracked or not: opening would create a
    database (and a data root) for a user who never created a task."""
    if not os.path.isfile(tasks_db_path()):
        return None
    return TaskDB(busy_timeout=busy_timeout)
