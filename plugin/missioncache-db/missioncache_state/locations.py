"""Where MissionCache and Claude Code keep their state, as plain strings.

The same places as :mod:`missioncache_state.paths`, without ``pathlib``: importing it
(with the URL parser it pulls in) costs 4 to 8 ms of a ~12 ms interpreter start, on every
hook run, for path joins ``os.path`` does as well. Library code on the hooks' path uses
these; ``paths`` wraps them in ``Path`` for everyone else. Every function reads the
environment at call time (``MISSIONCACHE_ROOT`` / ``CLAUDE_CONFIG_DIR``).
"""

from __future__ import annotations

import os


def _env_dir(name: str) -> str | None:
    """An override directory from the environment, only when non-empty and absolute."""
    value = os.environ.get(name, "")
    if value and os.path.isabs(value):
        return value
    return None


def data_root() -> str:
    """The MissionCache data root (``~/.missioncache`` unless ``MISSIONCACHE_ROOT`` says)."""
    return _env_dir("MISSIONCACHE_ROOT") or os.path.join(os.path.expanduser("~"), ".missioncache")


def claude_dir() -> str:
    """Claude Code's config dir (``~/.claude`` unless ``CLAUDE_CONFIG_DIR`` says)."""
    return _env_dir("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")


def tasks_db_path() -> str:
    return os.path.join(data_root(), "tasks.db")


def heartbeat_spool_dir() -> str:
    """Heartbeats that could not reach tasks.db in time wait here to be ingested."""
    return os.path.join(data_root(), "spool")


def state_dir() -> str:
    return os.path.join(claude_dir(), "hooks", "state")


def projects_dir() -> str:
    """Session bindings: ``projects/<session-id>.json``."""
    return os.path.join(state_dir(), "projects")


def term_sessions_dir() -> str:
    return os.path.join(state_dir(), "term-sessions")


def hooks_state_db_path() -> str:
    return os.path.join(claude_dir(), "hooks-state.db")


def rules_dir() -> str:
    return os.path.join(claude_dir(), "rules")
