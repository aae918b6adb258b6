"""Where MissionCache and Claude Code keep their state, as ``Path`` objects.

Every function reads the environment at call time: tests and users switch roots with
``MISSIONCACHE_ROOT`` / ``CLAUDE_CONFIG_DIR`` and a value frozen at import would be wrong.
Nothing here ever points under the plugin root, which Claude Code replaces on update.
The places themselves are defined once, as strings, in :mod:`missioncache_state.locations`
(which code on the hooks' path uses, to avoid importing pathlib).
"""

from __future__ import annotations

import os
from pathlib import Path

from missioncache_state import locations


def data_root() -> Path:
    """The MissionCache data root (``~/.missioncache`` unless ``MISSIONCACHE_ROOT`` says)."""
    return Path(locations.data_root())


def claude_dir() -> Path:
    """Claude Code's config dir (``~/.claude`` unless ``CLAUDE_CONFIG_DIR`` says)."""
    return Path(locations.claude_dir())


def tasks_db_path() -> Path:
    return Path(locations.tasks_db_path())


def heartbeat_spool_dir() -> Path:
    """Heartbeats that could not reach tasks.db in time wait here to be ingested."""
    return Path(locations.heartbeat_spool_dir())


def state_dir() -> Path:
    return Path(locations.state_dir())


def projects_dir() -> Path:
    """Session bindings: ``projects/<session-id>.json``."""
    return Path(locations.projects_dir())


def term_sessions_dir() -> Path:
    return Path(locations.term_sessions_dir())


def hooks_state_db_path() -> Path:
    return Path(locations.hooks_state_db_path())


def rules_dir() -> Path:
    return Path(locations.rules_dir())


def is_within(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """True when ``path`` (resolved) lies inside ``root`` (resolved): the last guard
    before anything derived from outside input becomes a write."""
    try:
        Path(os.path.realpath(path)).relative_to(os.path.realpath(root))
    except ValueError:
        return False
    return True
