"""Finishing a fork: its outcome goes into the parent's Recent Changes, then it closes.

The one place where a task's database row and a context file change together for forks,
shared by ``missioncache fork-done`` and ``/missioncache:fork-done``. The parent's file is
written through ``missioncache_context`` (locked, atomic, one splice), before the fork
is closed: a failed write leaves the fork open, so running it again loses nothing. The
fork's files and recorded time are kept, and its time still counts in the parent's.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from missioncache_db.db import TaskDB
    from missioncache_db.model import Task


def outcome_lines(fork: Task, outcome: str | None) -> list[str]:
    """What the parent records: the given outcome, else the fork's newest Recent Changes
    entry (what its last save said), else that nothing was recorded."""
    from missioncache_context import newest_recent_change, read_head

    text = (outcome or "").strip()
    if not text:
        try:
            newest = newest_recent_change(read_head(fork.context_path)) or ""
        except (OSError, ValueError):
            newest = ""
        body = newest.split("\n", 1)[1] if newest.startswith("### ") and "\n" in newest else ""
        text = body.strip() or "(the fork recorded no outcome)"
    lines = [f"- Fork {fork.key} finished. Outcome:"]
    for line in text.splitlines():
        if line.strip():
            lines.append(f"  {line.rstrip()}" if line.lstrip().startswith("-") else f"  - {line}")
    return lines


def finish_fork(db: TaskDB, name: str, outcome: str | None = None) -> tuple[Task, Task]:
    """Append the fork's outcome to its parent's Recent Changes and close the fork
    (``completed``). Returns ``(fork, parent)``; ValueError when ``name`` is no open fork
    or the parent's context cannot take the entry."""
    from missioncache_context import record_change
    from missioncache_context.update import update_file
    from missioncache_db.tasks import folder_gone

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
    lines = outcome_lines(fork, outcome)
    update_file(parent.context_path, lambda text: record_change(text, lines))
    closed = db.set_status(fork.id, "completed")
    return closed, parent
