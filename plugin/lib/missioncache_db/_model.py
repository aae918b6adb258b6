"""The Task record, the rules on names and statuses (data model section 2), and the
stored timestamps.

Text columns hold local time as fixed-width ``YYYY-MM-DD HH:MM:SS`` so humans can read
them and text order is time order. Local wall-clock text is not a complete clock,
though: in the hour repeated when daylight saving time ends two instants share one text,
and a time-zone change (travel) shifts every later text. Gap arithmetic therefore uses
the epoch seconds stored beside the text, which are exact.
"""

from __future__ import annotations

import time

from missioncache_state import lean_os as os
from missioncache_state.locations import data_root
from missioncache_state.tuples import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from pathlib import Path
    from typing import Union

    When = Union[float, int, datetime, None]

STATUSES = ("active", "paused", "completed", "archived")
OPEN_STATUSES = ("active", "paused")
NAME_MAX = 128  # keeps <name>-context.md well inside every file system's name limit

_NAME_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_NAME_REST = _NAME_FIRST | {"-"}


def is_valid_name(name: object) -> bool:
    """``^[a-z0-9][a-z0-9-]*$`` (checked without ``re``: this sits on the hook path)."""
    return (
        isinstance(name, str)
        and 0 < len(name) <= NAME_MAX
        and name[0] in _NAME_FIRST
        and set(name) <= _NAME_REST
    )


def validate_name(name: object) -> str:
    if not is_valid_name(name):
        raise ValueError(
            f"invalid task name {name!r}: use lowercase letters, digits and '-', "
            f"starting with a letter or digit (at most {NAME_MAX} characters)"
        )
    return str(name)


def validate_status(status: object) -> str:
    if status not in STATUSES:
        raise ValueError(f"invalid status {status!r}: use one of {', '.join(STATUSES)}")
    return str(status)


def _unsafe_part(part: object) -> bool:
    return (
        not isinstance(part, str) or part in ("", ".", "..") or any(c in part for c in "/\\:\x00")
    )


def is_contained(full_path: object, name: object) -> bool:
    """Whether a task row's ``full_path`` and ``name`` stay inside the data root.

    Names and paths we create always do; a row written by another tool (or a damaged
    database) might hold ``../..``, an absolute path, a drive or a backslash, and the
    task's files would then be read and written outside the data root. Such a row is not
    served (``query_tasks`` drops it). Checked without ``re``: this sits on the hook path."""
    if not isinstance(full_path, str) or _unsafe_part(name):
        return False
    return not any(_unsafe_part(part) for part in full_path.split("/"))


def title_for(name: str) -> str:
    """``my-task`` -> ``My Task``: the human heading of the task's files."""
    return " ".join(part.capitalize() for part in name.split("-") if part) or name


class Task(
    namedtuple(  # literal field list and defaults: the type checker reads them
        "Task",
        [
            "id",
            "name",
            "full_path",
            "status",
            "jira_key",
            "repo_path",
            "repo_id",
            "parent_id",
            "created_at",
            "updated_at",
            "last_worked_on",
            "fork_of",
        ],
        defaults=(None, None, None, None, None, None, None, None),
    )
):
    """One row of ``tasks`` joined with its repository path (immutable).

    Fields: id (int), name, full_path, status (str); jira_key, repo_path (str or None);
    repo_id, parent_id (int or None); created_at, updated_at, last_worked_on (text
    timestamps or None); fork_of (the id of the task this one is a fork of, or None:
    docs/forks.md).

    A light named tuple (``missioncache_state.tuples``), not a dataclass or
    ``typing.NamedTuple``: ``dataclasses``, ``typing`` and ``collections`` cost milliseconds
    of imports on every prompt, for nothing we need. Paths are computed on access because
    the data root is read from the environment at call time. ``directory``, ``context_file``
    and ``tasks_file`` are ``Path`` objects; ``directory_path``, ``context_path`` and
    ``tasks_path`` are the same as strings, for hooks (importing pathlib costs milliseconds
    on every hook run).
    """

    __slots__ = ()

    @property
    def title(self) -> str:
        return title_for(self.name)

    @property
    def directory(self) -> Path:
        return _as_path(self.directory_path)

    @property
    def context_file(self) -> Path:
        return _as_path(self.context_path)

    @property
    def tasks_file(self) -> Path:
        return _as_path(self.tasks_path)

    @property
    def directory_path(self) -> str:
        return os.path.join(data_root(), *self.full_path.split("/"))

    @property
    def context_path(self) -> str:
        return self._first_existing("context.md")

    @property
    def tasks_path(self) -> str:
        return self._first_existing("tasks.md")

    @property
    def is_open(self) -> bool:
        """Active or paused: the statuses a session binding may point at."""
        return self.status in OPEN_STATUSES

    @property
    def is_fork(self) -> bool:
        return self.fork_of is not None

    @property
    def key(self) -> str:
        """``name``, or ``parent/name`` for a subtask: what the user types to name it."""
        return str(self.full_path).split("/", 1)[-1]

    def _first_existing(self, suffix: str) -> str:
        """``<name>-<suffix>``, else bare ``<suffix>`` when only that exists (subtasks
        and older layouts); the named file when neither exists yet."""
        directory = self.directory_path
        named = os.path.join(directory, f"{self.name}-{suffix}")
        if os.path.isfile(named):
            return named
        bare = os.path.join(directory, suffix)
        return bare if os.path.isfile(bare) else named


def _as_path(path: str) -> Path:
    from pathlib import Path

    return Path(path)


# -- stored timestamps -------------------------------------------------------------------
TEXT_FORMAT = "%Y-%m-%d %H:%M:%S"
MINUTE_FORMAT = "%Y-%m-%d %H:%M"


def to_epoch(when: When = None) -> float:
    """Epoch seconds for ``when``: now when None, a naive datetime is local time."""
    if when is None:
        return time.time()
    from datetime import datetime  # only here: hooks always pass None or a number

    if isinstance(when, datetime):
        return when.timestamp()
    if isinstance(when, bool) or not isinstance(when, (int, float)):
        raise TypeError(f"timestamp must be epoch seconds or a datetime, not {when!r}")
    return float(when)


def local_text(epoch: float) -> str:
    """The column format: local ``YYYY-MM-DD HH:MM:SS``."""
    return time.strftime(TEXT_FORMAT, time.localtime(epoch))


def local_minute(epoch: float) -> str:
    """The context-file stamp format: local ``YYYY-MM-DD HH:MM``."""
    return time.strftime(MINUTE_FORMAT, time.localtime(epoch))


def local_midnight_epoch(days_ago: int = 0, now: float | None = None) -> float:
    """Epoch of local midnight ``days_ago`` days before today (DST-safe via mktime)."""
    t = time.localtime(time.time() if now is None else now)
    return time.mktime((t.tm_year, t.tm_mon, t.tm_mday - days_ago, 0, 0, 0, 0, 0, -1))
