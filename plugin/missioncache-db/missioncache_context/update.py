"""Locked, atomic read-transform-write of a user's markdown file.

Concurrent writers (hooks, the MCP server, several sessions) must never lose each other's
edits, and a crash must never leave half a file: we hold the sidecar lock from
missioncache_state for the whole read-transform-write and replace the file atomically.
A file that is not UTF-8 is refused rather than "repaired": decoding it lossily and writing
it back would destroy the user's bytes.
"""

from __future__ import annotations

import os
import stat
from collections import namedtuple
from collections.abc import Callable
from pathlib import Path

_BOM = b"\xef\xbb\xbf"


class NotUtf8Error(ValueError):
    """The file is not valid UTF-8; it was left untouched."""

    def __init__(self, path: Path, position: int) -> None:
        super().__init__(f"{path} is not valid UTF-8 (byte {position}); left untouched")
        self.path = path
        self.position = position


class UpdateResult(namedtuple("UpdateResult", "path changed before after")):
    """Outcome of :func:`update_file`: the ``path`` written (symlinks resolved), whether
    the text ``changed`` (and so was written), and the text ``before``/``after`` the
    transform (BOM excluded). Pure transforms can be re-run on ``before`` for details."""

    __slots__ = ()


def _decode(path: Path, data: bytes) -> tuple[bytes, str]:
    """(BOM bytes or b"", text) - raising NotUtf8Error instead of guessing."""
    bom = _BOM if data.startswith(_BOM) else b""
    try:
        return bom, data[len(bom) :].decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotUtf8Error(path, error.start + len(bom)) from None


def read_file(path: str | os.PathLike[str]) -> str:
    """A context/tasks file's text without BOM (no lock: writers replace atomically).

    Raises FileNotFoundError when missing and NotUtf8Error when not UTF-8.
    """
    target = Path(path)
    return _decode(target, target.read_bytes())[1]


def update_file(
    path: str | os.PathLike[str],
    transform: Callable[[str], str],
    *,
    timeout: float = 10.0,
) -> UpdateResult:
    """Apply ``transform`` (text -> text) to the file under its lock, writing only on change.

    The file must exist (FileNotFoundError otherwise; it is never created) and be UTF-8
    (NotUtf8Error otherwise, file untouched). A UTF-8 BOM is stripped before the transform
    and put back after. The write is atomic and keeps the file's permission bits; a symlink
    is followed so the real file is updated and the link kept. Raises
    missioncache_state.lock.LockTimeout when the lock is not free within ``timeout``; an
    exception from ``transform`` propagates and nothing is written.
    """
    from missioncache_state.atomic import atomic_write_bytes
    from missioncache_state.lock import FileLock

    target = Path(os.path.realpath(path))
    if not target.exists():
        raise FileNotFoundError(2, "No such file", str(path))
    with FileLock(target, timeout=timeout):
        data = target.read_bytes()
        bom, before = _decode(target, data)
        after = transform(before)
        if not isinstance(after, str):
            raise TypeError(f"transform returned {type(after).__name__}, not str")
        if after == before:
            return UpdateResult(target, False, before, after)
        mode = stat.S_IMODE(os.stat(target).st_mode)
        atomic_write_bytes(target, bom + after.encode("utf-8"), mode=mode)
    return UpdateResult(target, True, before, after)
