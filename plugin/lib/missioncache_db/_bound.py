"""The task a session's binding names, read from the binding alone: no SQLite.

Stop and the task tracker run after, or before, every turn and need only the task's files.
Opening tasks.db costs them the ``sqlite3`` import (a third of their time). SessionStart,
``/missioncache:load`` and ``missioncache-db bind`` resolve the task through tasks.db and write
the binding with the task's folder (``fullPath``); closing or deleting a task removes the
bindings that name it (``bindings.unbind_task``). So a binding with a folder names an open task,
and step 1 of the resolution (data model section 4) can be answered from it. A binding without
a folder (written by an earlier version), with a name or folder that would leave the data root,
or whose folder is gone, answers nothing, and the caller resolves through tasks.db.
"""

from __future__ import annotations

from missioncache_db._model import Task, is_contained, is_valid_name
from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from missioncache_state.ids import SessionId


def bound_task(session_id: SessionId | None) -> Task | None:
    """The session's task from its binding, or None (then ask tasks.db). Fields the binding
    does not carry (status, JIRA key, repository, times) are None."""
    from missioncache_state.bindings import read_session_binding

    binding = read_session_binding(session_id)
    if binding is None:
        return None
    task_id, name, full_path = (
        binding.get("taskId"),
        binding.get("projectName"),
        binding.get("fullPath"),
    )
    if not isinstance(task_id, int) or not is_valid_name(name):
        return None
    if not is_contained(full_path, name):
        return None
    task = Task(task_id, name, full_path, None)
    return task if os.path.isdir(task.directory_path) else None


def find_task(cwd: str, session_id: SessionId | None, busy_timeout: float = 2.0) -> Task | None:
    """The task this session is on (data model section 4); None when MissionCache is not
    set up or nothing resolves. The one call for a hook that needs only the task's files:
    the binding answers when it can, tasks.db (and ``sqlite3``) only when it cannot."""
    from missioncache_state.locations import tasks_db_path

    if not os.path.isfile(tasks_db_path()):
        return None  # not set up: nothing to track, and no database to create
    task = bound_task(session_id)
    if task is not None:
        return task
    from missioncache_db._db import open_if_set_up

    db = open_if_set_up(busy_timeout)
    if db is None:
        return None
    with db:
        return db.find_task_for_cwd(cwd, session_id)
