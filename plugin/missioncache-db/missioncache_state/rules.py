"""Installing the plugin's bundled rule files into ``<claude>/rules/``.

Ownership is decided by the first bytes of a file: a file starting with ``MARKER`` is ours
and kept current; any other file is the user's and never touched. A user who deletes the
marker line takes the file over. Legacy installs symlinked the rules into the plugin
directory, which Claude Code replaces on update: such a link is replaced by a regular
file (the link itself, never written through, its target never touched).
"""

from __future__ import annotations

import os

from missioncache_state.atomic import atomic_write_bytes
from missioncache_state.locations import rules_dir

MARKER = b"<!-- missioncache-plugin:managed"
MAX_RULE_BYTES = 1_048_576  # a rule file is a page of markdown; anything bigger is not ours

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Union

    StrPath = Union[str, os.PathLike]


def _read(path: str) -> bytes | None:
    """The file's bytes, or None when unreadable or implausibly large."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_RULE_BYTES + 1)
    except OSError:
        return None
    return data if len(data) <= MAX_RULE_BYTES else None


def _install_one(source: str, dest: str) -> bool:
    """Install one rule file; True when ``dest`` was written."""
    data = _read(source)
    if data is None or not data.startswith(MARKER):
        return False  # only managed files are ours to install
    if not os.path.islink(dest) and os.path.lexists(dest):
        if not os.path.isfile(dest):
            return False  # a directory or special file: not ours
        current = _read(dest)
        if current is None or not current.startswith(MARKER) or current == data:
            return False  # unreadable, user-owned, or already current
    atomic_write_bytes(dest, data)  # os.replace: a symlink is replaced, not followed
    return True


def install_bundled_rules(source_dir: StrPath, dest_dir: StrPath | None = None) -> list[str]:
    """Copy managed ``*.md`` files from ``source_dir`` into ``dest_dir`` (default
    ``rules_dir()``); returns the names written. One bad file never stops the others, and
    a missing source directory installs nothing."""
    dest = rules_dir() if dest_dir is None else os.fspath(dest_dir)
    try:
        names = sorted(n for n in os.listdir(source_dir) if n.endswith(".md"))
    except OSError:
        return []
    written = []
    for name in names:
        source = os.path.join(os.fspath(source_dir), name)
        if not os.path.isfile(source):
            continue
        try:
            if _install_one(source, os.path.join(dest, name)):
                written.append(name)
        except OSError:
            continue
    return written
