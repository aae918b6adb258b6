"""The last few versions of every file MissionCache rewrites, kept beside it.

An editor that saves without our lock can still lose a save to a rewrite in a window we
cannot close from outside the editor (see docs/reliability.md), and a bug in a transform
could mangle a user's notes. Either way the version we replaced is kept: before a rewrite,
the bytes it replaces are copied to ``<folder>/.missioncache-history/<file name>/``
as ``<UTC time>-<random>.<ext>``, and only the newest ``KEEP`` copies stay. Restoring is
copying one back (docs/reliability.md, "Restoring an earlier version").

The folder sits beside the path the caller named, not beside a symlink's target, so the
copies stay under the data root. A planted symlink at the folder is never written through.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Union

    StrPath = Union[str, os.PathLike]

HISTORY_FOLDER = ".missioncache-history"
KEEP = 10  # versions kept per file: a bound on disk use, and plenty to undo a bad minute


def history_dir(path: StrPath) -> str:
    """Where the earlier versions of ``path`` are kept."""
    full = os.path.abspath(os.fspath(path))
    folder, name = os.path.split(full)
    return os.path.join(folder, HISTORY_FOLDER, name)


def _safe_folder(folder: str) -> bool:
    """Create ``folder`` (and its parent) unless either is a symlink someone planted."""
    parent = os.path.dirname(folder)
    for part in (parent, folder):
        if os.path.islink(part):
            return False
        try:
            os.mkdir(part, 0o700)
        except FileExistsError:
            if not os.path.isdir(part) or os.path.islink(part):
                return False
    return True


def _version_name(path: str) -> str:
    """Sortable by time; the random tail keeps two copies in one microsecond apart."""
    now = time.time()
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now))
    micro = int((now % 1) * 1_000_000)
    extension = os.path.splitext(path)[1]
    return f"{stamp}.{micro:06d}Z-{os.urandom(3).hex()}{extension}"


def safe_history_dir(path: StrPath) -> str | None:
    """``history_dir(path)``, created; None when it cannot be (or a symlink was planted
    there): nothing is ever written through a link into someone else's folder."""
    folder = history_dir(path)
    try:
        return folder if _safe_folder(folder) else None
    except OSError:
        return None


def versions(path: StrPath) -> list[str]:
    """The kept versions of ``path``, newest first (full paths)."""
    folder = history_dir(path)
    try:
        names = [n for n in os.listdir(folder) if not n.startswith(".") and n[:1].isdigit()]
    except OSError:
        return []
    return [os.path.join(folder, n) for n in sorted(names, reverse=True)]


def keep_version(path: StrPath, data: bytes, *, mode: int = 0o600, keep: int = KEEP) -> str | None:
    """Store ``data`` as the newest earlier version of ``path`` and drop the oldest beyond
    ``keep``; returns the copy's path, or None when no copy could be made (the caller
    still writes: a full disk must not also stop the notes from being saved). The same
    bytes as the newest copy are not stored again: an update retried after a save raced
    it would otherwise push genuinely older versions out."""
    from missioncache_state.atomic import atomic_write_bytes

    folder = safe_history_dir(path)
    if folder is None:
        return None
    newest = versions(path)[:1]
    if newest and _same_bytes(newest[0], data):
        return newest[0]
    try:
        copy = os.path.join(folder, _version_name(os.fspath(path)))
        atomic_write_bytes(copy, data, mode=mode, durable=False)
    except OSError:
        return None
    for old in versions(path)[keep:]:
        try:
            os.unlink(old)
        except OSError:
            pass
    return copy


def _same_bytes(copy: str, data: bytes) -> bool:
    try:
        if os.path.getsize(copy) != len(data):
            return False
        with open(copy, "rb") as handle:
            return handle.read(len(data) + 1) == data
    except OSError:
        return False
