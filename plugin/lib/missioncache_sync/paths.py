"""Where sync keeps its machine-local state: ``<data root>/sync/`` (never synced).

Standard library and ``os`` only: the hooks import this to ask "is sync set up?".
"""

from __future__ import annotations

from missioncache_state import lean_os as os
from missioncache_state.locations import sync_dir as sync_dir


def config_path() -> str:
    """``{"remote": URL, "name": machine name}``, written by ``sync setup``."""
    return os.path.join(sync_dir(), "config.json")


def status_path() -> str:
    """The last sync's outcome and what the human has been told about."""
    return os.path.join(sync_dir(), "status.json")


def notice_path() -> str:
    """Lines for the next SessionStart to show the human once, then delete."""
    return os.path.join(sync_dir(), "notice.txt")


def auto_stamp_path() -> str:
    """Touched when a hook starts an automatic sync: the debounce."""
    return os.path.join(sync_dir(), "last-auto")


def lock_target() -> str:
    """``FileLock`` target: one sync at a time per data root."""
    return os.path.join(sync_dir(), "sync")


def is_set_up() -> bool:
    return os.path.isfile(config_path())
