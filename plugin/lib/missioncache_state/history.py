"""The last few versions of every file MissionCache rewrites, kept beside it.

An editor that saves without our lock can still lose a save to a rewrite in a window we
cannot close from outside the editor (see docs/reliability.md), and a bug in a transform
could mangle a user's notes. Either way the version we replaced is kept: before a rewrite,
the bytes it replaces are copied to ``<folder>/.missioncache-history/<file name>/``
as ``<UTC time>-<random>.<ext>`` (a new copy is always named after the newest one, even
one named by a clock that was ahead), and only the newest ``KEEP`` copies stay. Restoring is
copying one back (docs/reliability.md, "Restoring an earlier version").

The folder sits beside the path the caller named, not beside a symlink's target, so the
copies stay under the data root. A planted symlink at the folder is never written through.
"""

from __future__ import annotations

import time

from missioncache_state import lean_os as os

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


def _stamp(seconds: int, micro: int) -> str:
    return f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime(seconds))}.{micro:06d}Z"


def _stamp_of(name: str) -> tuple[int, int] | None:
    """(seconds, microseconds) of one of our copy names, None for any other name. Parsed
    only when the clock is behind the newest name (calendar is not imported otherwise)."""
    import calendar

    digits = name[:8] + name[9:15]
    if not (digits.isdigit() and name[8:9] == "T" and name[15:16] == "." and name[22:23] == "Z"):
        return None
    fields = [int(digits[i:j]) for i, j in ((0, 4), (4, 6), (6, 8), (8, 10), (10, 12), (12, 14))]
    if not name[16:22].isdigit():
        return None
    try:
        return calendar.timegm((*fields, 0, 0, 0)), int(name[16:22])
    except (ValueError, OverflowError):
        return None


def _version_name(path: str, newest: str | None = None) -> str:
    """Named by the UTC time, sortable; the random tail keeps two copies in one microsecond
    apart. Names are what orders the copies (and what pruning goes by), so a new copy is
    always named after the newest one there, even when that one was named by a clock that
    was ahead: otherwise the version just replaced would sort oldest and be pruned at once,
    and no undo copy would be kept until the clock caught up."""
    now = time.time()
    seconds, micro = int(now), int((now % 1) * 1_000_000)
    name = _stamp(seconds, micro)
    newest_name = os.path.basename(newest) if newest else ""
    last = _stamp_of(newest_name) if newest_name[: len(name)] >= name else None
    if last is not None:
        seconds, micro = last[0] + (last[1] + 1) // 1_000_000, (last[1] + 1) % 1_000_000
        name = _stamp(seconds, micro)
    extension = os.path.splitext(path)[1]
    return f"{name}-{os.urandom(3).hex()}{extension}"


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
        copy = os.path.join(folder, _version_name(os.fspath(path), newest[0] if newest else None))
        atomic_write_bytes(copy, data, mode=mode, durable=False)
    except OSError:
        return None
    # The new copy is never the one pruned, whatever the other names say.
    for old in [kept for kept in versions(path) if kept != copy][max(keep - 1, 0) :]:
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
