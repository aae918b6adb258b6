"""Where MissionCache and Claude Code keep their state.

Every function reads the environment at call time: tests and users switch roots with
``MISSIONCACHE_ROOT`` / ``CLAUDE_CONFIG_DIR`` and a value frozen at import would be wrong.
Nothing here ever points under the plugin root, which Claude Code replaces on update.
"""

from __future__ import annotations

import os
from pathlib import Path


def _env_dir(name: str) -> Path | None:
    """An override directory from the environment, only when non-empty and absolute."""
    value = os.environ.get(name, "")
    if value and os.path.isabs(value):
        return Path(value)
    return None


def data_root() -> Path:
    """The MissionCache data root (``~/.missioncache`` unless ``MISSIONCACHE_ROOT`` says)."""
    return _env_dir("MISSIONCACHE_ROOT") or Path.home() / ".missioncache"


def claude_dir() -> Path:
    """Claude Code's config dir (``~/.claude`` unless ``CLAUDE_CONFIG_DIR`` says)."""
    return _env_dir("CLAUDE_CONFIG_DIR") or Path.home() / ".claude"


def tasks_db_path() -> Path:
    return data_root() / "tasks.db"


def heartbeat_spool_dir() -> Path:
    """Heartbeats that could not reach tasks.db in time wait here to be ingested."""
    return data_root() / "spool"


def state_dir() -> Path:
    return claude_dir() / "hooks" / "state"


def projects_dir() -> Path:
    """Session bindings: ``projects/<session-id>.json``."""
    return state_dir() / "projects"


def term_sessions_dir() -> Path:
    return state_dir() / "term-sessions"


def hooks_state_db_path() -> Path:
    return claude_dir() / "hooks-state.db"


def rules_dir() -> Path:
    return claude_dir() / "rules"


def is_within(path: Path, root: Path) -> bool:
    """True when ``path`` (resolved) lies inside ``root`` (resolved): the last guard
    before anything derived from outside input becomes a write."""
    try:
        Path(os.path.realpath(path)).relative_to(os.path.realpath(root))
    except ValueError:
        return False
    return True
