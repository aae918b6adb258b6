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
import time
from collections import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

_BOM = b"\xef\xbb\xbf"


def _as_path(path: str) -> Path:
    from pathlib import Path  # only when asked: hooks work with strings

    return Path(path)


class NotUtf8Error(ValueError):
    """The file is not valid UTF-8; it was left untouched. ``file`` is its path as a
    string, ``path`` as a Path."""

    def __init__(self, path: str | os.PathLike[str], position: int) -> None:
        super().__init__(f"{path} is not valid UTF-8 (byte {position}); left untouched")
        self.file = os.fspath(path)
        self.position = position

    @property
    def path(self) -> Path:
        return _as_path(self.file)


class UpdateResult(namedtuple("UpdateResult", "file changed before after")):
    """Outcome of :func:`update_file`: the ``file`` written (a string, symlinks resolved;
    ``path`` is the same as a Path), whether the text ``changed`` (and so was written),
    and the text ``before``/``after`` the transform (BOM excluded). Pure transforms can be
    re-run on ``before`` for details."""

    __slots__ = ()

    @property
    def path(self) -> Path:
        return _as_path(self.file)


def _decode(path: str, data: bytes) -> tuple[bytes, str]:
    """(BOM bytes or b"", text) - raising NotUtf8Error instead of guessing."""
    bom = _BOM if data.startswith(_BOM) else b""
    try:
        return bom, data[len(bom) :].decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotUtf8Error(path, error.start + len(bom)) from None


RACE_ATTEMPTS = 5  # a file that changes under us this many times in a row is left alone
SETTLE_SECONDS = 1.0  # how long an empty read stays empty before it is trusted
SETTLE_STEP = 0.02  # how often it is re-read meanwhile


def _maybe_mid_save(data: bytes) -> bool:
    """Whether a read may have caught an editor between truncating the file and writing
    it back. An empty read is the one that costs everything (the whole file replaced by
    our entry), and two reads an instant apart cannot tell: a paused editor leaves both
    empty. A context file that is really empty pays the whole settle wait."""
    return not data.strip(_BOM + b" \t\r\n")


def _save_landed(path: str, data: bytes) -> bool:
    """Re-read an empty read until it changes (a save landed) or has stayed the same for
    SETTLE_SECONDS. WHY that long: under load an editor's pause between truncating and
    writing reached 0.4 s (measured with a busy 2-core machine); the 50 ms once used
    here let PreCompact replace the whole file with its entry in the reliability suite."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        time.sleep(SETTLE_STEP)
        if _read_bytes(path) != data:
            return True
        if time.monotonic() >= deadline:
            return False


class FileChangedError(OSError):
    """Another writer kept changing the file while we updated it; it was left untouched."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path} kept changing while it was being updated; left untouched")
        self.file = path


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def read_file(path: str | os.PathLike[str]) -> str:
    """A context/tasks file's text without BOM (no lock: writers replace atomically).

    Raises FileNotFoundError when missing and NotUtf8Error when not UTF-8.
    """
    target = os.fspath(path)
    return _decode(target, _read_bytes(target))[1]


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

    target = os.path.realpath(path)
    if not os.path.exists(target):
        raise FileNotFoundError(2, "No such file", os.fspath(path))
    with FileLock(target, timeout=timeout):
        for _attempt in range(RACE_ATTEMPTS):
            data = _read_bytes(target)
            if _maybe_mid_save(data) and _save_landed(target, data):
                continue  # a save was in flight: read what it wrote
            bom, before = _decode(target, data)
            after = transform(before)
            if not isinstance(after, str):
                raise TypeError(f"transform returned {type(after).__name__}, not str")
            if after == before:
                return UpdateResult(target, False, before, after)
            mode = stat.S_IMODE(os.stat(target).st_mode)
            # Editors save without our lock, often by truncating and rewriting in place:
            # a read can catch a half-saved file (checked above), and a save can land
            # while we transform. Re-read just before the replace and start over if the
            # bytes moved, so only a save landing between that re-read and the replace
            # can be lost.

            def unchanged(seen: bytes = data) -> bool:
                return _read_bytes(target) == seen

            if atomic_write_bytes(
                target, bom + after.encode("utf-8"), mode=mode, still_valid=unchanged
            ):
                return UpdateResult(target, True, before, after)
    raise FileChangedError(target)
