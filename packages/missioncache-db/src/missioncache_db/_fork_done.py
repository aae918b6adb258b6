"""Finishing a fork: its outcome goes into the parent's Recent Changes, then it closes.

Shared by ``missioncache fork-done`` and ``/missioncache:fork-done``. The parent's file is
written by the caller's ``write`` (``missioncache_context.fork_outcome.write_fork_outcome``:
this layer edits no markdown) before the fork is closed, so a failed write leaves the fork
open and running it again loses nothing. The fork's files and recorded time are kept, and
its time still counts in the parent's.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from missioncache_db._db import TaskDB
    from missioncache_db._model import Task

    # (parent context, fork context, fork key, outcome or None)
    Writer = Callable[[str, str, str, "str | None"], None]


def finish_fork(db: TaskDB, name: str, outcome: str | None, write: Writer) -> tuple[Task, Task]:
    """Record the fork's outcome in its parent (through ``write``) and close the fork
    (``completed``). Returns ``(fork, parent)``; ValueError when ``name`` is no open fork
    or the parent's folder is gone."""
    from missioncache_db._tasks import folder_gone

    fork = db.get_task_by_name(name)
    if fork is None:
        raise ValueError(f"no task named {name!r}")
    if fork.fork_of is None:
        raise ValueError(f"{fork.key} is not a fork")
    if not fork.is_open:
        raise ValueError(f"fork {fork.key} is already {fork.status}")
    parent = db.parent_of(fork)
    if parent is None:
        raise ValueError(f"the parent of fork {fork.key} is gone from tasks.db")
    if not os.path.isdir(parent.directory_path):
        raise ValueError(f"cannot record the outcome in {parent.key}: {folder_gone(parent)}")
    write(parent.context_path, fork.context_path, fork.key, outcome)
    closed = db.set_status(fork.id, "completed")
    return closed, parent
