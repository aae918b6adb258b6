"""Where MissionCache and Claude Code keep their state (data model section 1), as strings.

The one path API of the libraries: strings, because the hooks do not import ``pathlib``
(docs/hooks.md); callers that want a ``Path`` wrap the string. Every function reads the
environment at call time (``MISSIONCACHE_ROOT`` / ``CLAUDE_CONFIG_DIR``): tests and users
switch roots, and a value frozen at import would be wrong. Nothing here points under the
plugin root, which Claude Code replaces on update.
"""

from __future__ import annotations

from missioncache_state import lean_os as os


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


def dashboard_dir() -> str:
    """The dashboard's files: ``running.json`` while it serves, ``install.json`` once its
    http hooks are installed (docs/dashboard.md)."""
    return os.path.join(state_dir(), "dashboard")


def team_dir() -> str:
    """The team's machine-local settings and outbox state (``missioncache_team.paths``).
    Here, so the Stop hook can look for it before importing the team library at all."""
    return os.path.join(data_root(), "team")


def sync_dir() -> str:
    """Sync's machine-local state (``missioncache_sync.paths``). Here, below sync, so a hook
    can look for it before importing sync at all: where sync is not set up, one ``stat``."""
    return os.path.join(data_root(), "sync")


def hooks_state_db_path() -> str:
    return os.path.join(claude_dir(), "hooks-state.db")


def rules_dir() -> str:
    return os.path.join(claude_dir(), "rules")


def is_within(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """True when ``path`` (resolved) lies inside ``root`` (resolved) or is it: the last
    guard before anything derived from outside input becomes a write."""
    real_path, real_root = os.path.realpath(path), os.path.realpath(root)
    try:
        return os.path.commonpath([real_path, real_root]) == real_root
    except ValueError:  # different drives on Windows
        return False


def is_set_up() -> bool:
    """Whether MissionCache is in use here: anything at the tasks.db path, even a broken
    database (a directory, a FIFO, garbage). The hooks that only record (a heartbeat, a
    turn's end) then keep what they record in the spool until the database works again;
    with nothing there they create nothing."""
    return os.path.lexists(tasks_db_path())
