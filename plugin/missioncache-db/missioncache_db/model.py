"""The Task record and the rules on names and statuses (data model section 2)."""

from __future__ import annotations

from collections import namedtuple
from pathlib import Path

from missioncache_state.paths import data_root

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


def title_for(name: str) -> str:
    """``my-task`` -> ``My Task``: the human heading of the task's files."""
    return " ".join(part.capitalize() for part in name.split("-") if part) or name


_TASK_FIELDS = (
    "id name full_path status jira_key repo_path repo_id parent_id created_at updated_at "
    "last_worked_on"
)


class Task(namedtuple("Task", _TASK_FIELDS, defaults=(None,) * 7)):
    """One row of ``tasks`` joined with its repository path (immutable).

    Fields: id (int), name, full_path, status (str); jira_key, repo_path (str or None);
    repo_id, parent_id (int or None); created_at, updated_at, last_worked_on (text
    timestamps or None).

    A plain ``collections.namedtuple`` rather than a dataclass or ``typing.NamedTuple``:
    ``dataclasses`` and ``typing`` cost milliseconds of imports on every prompt, for
    nothing we need. Paths are computed on access because the data root is read from the
    environment at call time.
    """

    __slots__ = ()

    @property
    def title(self) -> str:
        return title_for(self.name)

    @property
    def directory(self) -> Path:
        return data_root().joinpath(*self.full_path.split("/"))

    @property
    def context_file(self) -> Path:
        return self._first_existing("context.md")

    @property
    def tasks_file(self) -> Path:
        return self._first_existing("tasks.md")

    @property
    def is_open(self) -> bool:
        """Active or paused: the statuses a session binding may point at."""
        return self.status in OPEN_STATUSES

    def _first_existing(self, suffix: str) -> Path:
        """``<name>-<suffix>``, else bare ``<suffix>`` when only that exists (subtasks
        and older layouts); the named file when neither exists yet."""
        directory = self.directory
        named = directory / f"{self.name}-{suffix}"
        if named.is_file():
            return named
        bare = directory / suffix
        return bare if bare.is_file() else named
