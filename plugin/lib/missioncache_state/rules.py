"""Removing the rules file that earlier MissionCache versions installed into ``<claude>/rules/``.

Claude Code loads every file in ``<claude>/rules/`` into every session of every project,
and keeps loading it after ``claude plugin uninstall``: a file there outlives the plugin and
tells Claude about tools that are gone. So MissionCache installs nothing there any more (its
instructions travel in the SessionStart context of sessions that have a task) and removes
what an earlier version left behind.

Ownership is decided by the first bytes of the file: only a file that still starts with
``MARKER`` is ours to remove; a user who deleted the marker line took the file over and it
is never touched. A legacy symlink whose target still carries the marker is removed (the
link, never its target). Anything that is not a regular file is never opened for long:
the read is non-blocking and bounded, so a FIFO or device planted there costs nothing.
"""

from __future__ import annotations

from missioncache_state import lean_os as os
from missioncache_state.locations import rules_dir

MARKER = b"<!-- missioncache-plugin:managed"
LEGACY_RULE_NAMES = ("missioncache.md",)  # every name an earlier version ever installed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Union

    StrPath = Union[str, os.PathLike]


def _starts_with_marker(path: str) -> bool:
    """Whether ``path`` (followed if a link) is a regular file starting with ``MARKER``;
    missioncache_state.files never opens a FIFO or device, nor waits on one."""
    from missioncache_state.files import read_head

    try:
        return read_head(path, len(MARKER))[0] == MARKER
    except OSError:
        return False


def remove_legacy_rules(dest_dir: StrPath | None = None) -> list[str]:
    """Delete the managed rule files an earlier version installed in ``dest_dir`` (default
    ``rules_dir()``); returns the names removed. A user's file, a directory or anything
    unreadable is left alone; a missing directory removes nothing."""
    directory = rules_dir() if dest_dir is None else os.fspath(dest_dir)
    removed = []
    for name in LEGACY_RULE_NAMES:
        path = os.path.join(directory, name)
        if not os.path.lexists(path) or not _starts_with_marker(path):
            continue
        try:
            os.unlink(path)  # a symlink: the link goes, its target stays
        except OSError:
            continue
        removed.append(name)
    return removed
