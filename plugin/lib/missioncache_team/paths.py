"""Where the team's files live: ``<data root>/team/`` (docs/team.md). ``os`` only: the
hooks test ``is_set_up`` on every turn."""

from __future__ import annotations

from missioncache_state import lean_os as os


def team_dir() -> str:
    from missioncache_state.locations import team_dir as located

    return located()


def config_path() -> str:
    return os.path.join(team_dir(), "config.json")


def marks_path() -> str:
    """Which tasks are private, and their clients (``config.marks``)."""
    return os.path.join(team_dir(), "tasks.json")


def sent_path() -> str:
    """The ids of the events the server has stored (SQLite)."""
    return os.path.join(team_dir(), "sent.sqlite")


def status_path() -> str:
    return os.path.join(team_dir(), "status.json")


def notice_path() -> str:
    return os.path.join(team_dir(), "notice.txt")


def auto_stamp_path() -> str:
    return os.path.join(team_dir(), "auto.stamp")


def push_lock_path() -> str:
    return os.path.join(team_dir(), "push")


def log_path() -> str:
    return os.path.join(team_dir(), "push.log")


def is_set_up() -> bool:
    return os.path.isfile(config_path())
