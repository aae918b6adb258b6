"""Finishing a fork: its outcome goes into the parent's Recent Changes, then it closes.

Shared by ``missioncache fork-done`` and ``/missioncache:fork-done``. The parent's file is
written by the caller's ``write`` (``missioncache_context.fork_outcome.write_fork_outcome``:
this layer edits no markdown) before the fork is closed, so a failed write leaves the fork
open and running it again loses nothing. The fork's files and recorded time are kept, and
its time still counts in the parent's.

Finishing is exclusive: two at once (two terminals, a command and the slash command) would
both find the fork open and both write an outcome. So the check, the write and the close
run under one lock per fork, and the second finds the fork closed and says so.
"""

from __future__ import annotations

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from missioncache_db._db import TaskDB
    from missioncache_db._model import Task

    # (parent context, fork context, fork key, outcome or None)
    Writer = Callable[[str, str, str, "str | None"], None]


FINISH_LOCK_TIMEOUT = 30.0  # seconds; a finish takes milliseconds


def finish_fork(db: TaskDB, name: str, outcome: str | None, write: Writer) -> tuple[Task, Task]:
    """Record the fork's outcome in its parent (through ``write``) and close the fork
    (``completed``). Returns ``(fork, parent)``; ValueError when ``name`` is no open fork
    (one finished meanwhile included) or the parent's folder is gone."""
    from missioncache_state.locations import data_root
    from missioncache_state.lock import FileLock, LockTimeout

    fork = _open_fork(db, name)
    try:
        with FileLock(os.path.join(data_root(), f".fork-done-{fork.id}"), FINISH_LOCK_TIMEOUT):
            return _finish(db, name, outcome, write)
    except LockTimeout as error:
        raise ValueError(
            f"fork {fork.key} is being finished by another command; try again in a moment"
        ) from error


def _open_fork(db: TaskDB, name: str) -> Task:
    """The open fork ``name``; ValueError otherwise."""
    fork = db.get_task_by_name(name)
    if fork is None:
        raise ValueError(f"no task named {name!r}")
    if fork.fork_of is None:
        raise ValueError(f"{fork.key} is not a fork")
    if not fork.is_open:
        raise ValueError(f"fork {fork.key} is already {fork.status}")
    return fork


def _finish(db: TaskDB, name: str, outcome: str | None, write: Writer) -> tuple[Task, Task]:
    """The finish itself, under the fork's lock: checked again, since another finish may
    have closed the fork while this one waited."""
    from missioncache_db._tasks import folder_gone

    fork = _open_fork(db, name)
    parent = db.parent_of(fork)
    if parent is None:
        raise ValueError(f"the parent of fork {fork.key} is gone from tasks.db")
    if not os.path.isdir(parent.directory_path):
        raise ValueError(f"cannot record the outcome in {parent.key}: {folder_gone(parent)}")
    write(parent.context_path, fork.context_path, fork.key, outcome)
    closed = db.set_status(fork.id, "completed")
    return closed, parent
