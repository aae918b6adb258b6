"""What every subcommand of the command line shares: the busy timeout,
the one-line user error, finding a task by name. Its own module so the subcommand fronts
(``cli_report``, ``cli_statusline``) need not import ``cli``, which imports them."""

from __future__ import annotations

from missioncache_db import Task, TaskDB

CLI_BUSY_TIMEOUT = 10.0  # a person waits; a hook would not


class UserError(Exception):
    """A mistake the user can fix: reported as one line, exit status 1."""


def task_named(db: TaskDB, name: str) -> Task:
    task = db.get_task_by_name(name)
    if task is None:
        raise UserError(f"no task named {name!r}")
    return task
