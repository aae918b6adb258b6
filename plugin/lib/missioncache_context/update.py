"""Locked, atomic read-transform-write of a user's markdown file.

Concurrent writers (hooks, the MCP server, several sessions) must never lose each other's
edits, and a crash must never leave half a file: we hold the sidecar lock from
missioncache_state for the whole read-transform-write and replace the file atomically.
A file that is not UTF-8 is refused rather than "repaired": decoding it lossily and writing
it back would destroy the user's bytes.
"""

from __future__ import annotations

import stat
import sys
import time

from missioncache_state import lean_os as os
from missioncache_state.tuples import namedtuple

from . import reading  # read as the readers do; MAX_EDIT_BYTES looked up at each use

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


class UpdateResult(namedtuple("UpdateResult", "file changed before after")):
    """Outcome of :func:`update_file`: the ``file`` written (a string, symlinks resolved;
    ``path`` is the same as a Path), whether the text ``changed`` (and so was written),
    and the text ``before``/``after`` the transform (BOM excluded). Pure transforms can be
    re-run on ``before`` for details."""

    __slots__ = ()

    @property
    def path(self) -> Path:
        return reading.as_path(self.file)


RACE_ATTEMPTS = 5  # a file that changes under us this many times in a row is left alone
QUIET_SECONDS = 1.0  # a file modified more recently than this may be in the middle of a save
CHANGING_LIMIT = 2.5  # how long a file may keep changing before it is left alone
RESCUE_LIMIT = 1.5  # more time for a save that reached the replaced file to finish
# WHY these bounds: an update takes at most its lock wait + CHANGING_LIMIT + RESCUE_LIMIT,
# and PreCompact (30 s budget) also waits up to 5 s for the lock and 20 s for tasks.db.
_WRITTEN = ".written"  # our last write's signature, in the file's history folder
# WHY not on Windows: there a file open anywhere, our own descriptor included, cannot be
# replaced, and an editor holding it open blocks the replace (retried, then reported)
# instead of writing into a replaced file, so there is nothing to rescue.
HOLD_ACROSS_REPLACE = sys.platform != "win32"


def _signature(info: os.stat_result) -> tuple[int, int, int, int]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def _written_record(path: str) -> str:
    from missioncache_state.history import history_dir

    return os.path.join(history_dir(path), _WRITTEN)


def _written_by_us(path: str, info: os.stat_result) -> bool:
    """Whether the file is exactly as our last update left it (recorded beside its
    history), so its fresh mtime is ours and not an editor's save in progress: back to
    back updates (a pm tool call, then PreCompact) must not each wait QUIET_SECONDS."""
    try:
        with open(_written_record(path), "rb") as handle:
            recorded = handle.read(200).split()
    except OSError:
        return False
    return [str(value).encode() for value in _signature(info)] == recorded


def _record_written(path: str, target: str) -> None:
    from missioncache_state.atomic import atomic_write_bytes
    from missioncache_state.history import safe_history_dir

    try:
        if safe_history_dir(path) is None:
            return
        info = os.stat(target)
        line = " ".join(str(value) for value in _signature(info)).encode()
        atomic_write_bytes(_written_record(path), line, mode=0o600, durable=False)
    except OSError:
        pass  # only costs the next update a QUIET_SECONDS wait


def _quiet_wait(info: os.stat_result, path: str | None = None) -> float:
    """Seconds to wait before the file can be trusted not to be mid-save: 0 when it was
    last modified QUIET_SECONDS ago or more (or by our own last update). An editor that
    saves in place (truncate, write, pause, write) updates the mtime with every write,
    so a read taken in its pause shows a fresh mtime. WHY an mtime window and not two
    reads: a paused editor leaves two reads identical, however far apart; the mtime says
    how long ago it last wrote. A whole-second mtime (a coarse file system) gets an extra
    second, because its age may be under-stated by up to that much."""
    age = time.time() - info.st_mtime_ns / 1e9
    quiet = QUIET_SECONDS + (1.0 if info.st_mtime_ns % 1_000_000_000 == 0 else 0.0)
    if age >= quiet or age <= -quiet or (path is not None and _written_by_us(path, info)):
        return 0.0
    return quiet - max(age, 0.0)


class FileChangedError(OSError):
    """Another writer kept changing the file while we updated it; it was left untouched."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path} kept changing while it was being updated; left untouched")
        self.file = path


class SaveDivertedError(FileChangedError):
    """A save by another program (an editor that opened the file just before we replaced
    it) went to the replaced version and could not be put back; ``copy`` is where it is
    kept (None when even the copy failed)."""

    def __init__(self, path: str, copy: str | None) -> None:
        OSError.__init__(
            self,
            f"an editor's save could not be put back (it reached the version this update"
            f" replaced); it is kept at {copy or '(nowhere: the copy failed)'}",
        )
        self.file = path
        self.copy = copy


def _snapshot(target: str) -> tuple[int, os.stat_result, bytes]:
    """(open descriptor, its stat, its bytes) of the file as it is now. The descriptor
    stays open across the replace: writes that still reach the replaced file afterwards
    (an editor that opened it just before) can then be seen and rescued."""
    from missioncache_state.files import FileTooLargeError, open_regular, read_fd

    fd = open_regular(target)
    try:
        info = os.fstat(fd)
        data = read_fd(fd, reading.MAX_EDIT_BYTES + 1)
        if len(data) > reading.MAX_EDIT_BYTES:
            raise FileTooLargeError(target, reading.MAX_EDIT_BYTES)
    except BaseException:
        os.close(fd)
        raise
    return fd, info, data


def _unchanged(target: str, info: os.stat_result, data: bytes) -> bool:
    """Right before the replace: is the file still the one we read, byte for byte?"""
    from missioncache_state.files import check_regular

    try:
        now = check_regular(target)
        return _signature(now) == _signature(info) and reading.read_bytes(target) == data
    except OSError:
        return False


def _written_after(fd: int, info: os.stat_result) -> bool:
    """Whether the replaced file changed after we read it: a save that opened it before
    our replace and wrote into it after, and so would be lost with it (never on Windows,
    where no descriptor is held: ``fd`` is -1)."""
    if fd < 0:
        return False
    try:
        return _signature(os.fstat(fd)) != _signature(info)
    except OSError:
        return False


def _rescue(path: str, target: str, fd: int, ours: bytes, limit: float) -> None:
    """A save went to the file we replaced. Wait until it has finished (its mtime quiet
    for QUIET_SECONDS, at most until ``limit``), keep it in the history, and put it back if
    the file is still the version we wrote; the caller then starts over from it. When it
    cannot be put back (the editor saved again meanwhile, on top of our version, or it
    never finished) SaveDivertedError says where the copy is: never lost in silence."""
    from missioncache_state.atomic import atomic_write_bytes
    from missioncache_state.files import read_fd
    from missioncache_state.history import keep_version

    wait = _quiet_wait(os.fstat(fd))
    while wait > 0 and time.monotonic() + wait <= limit:
        time.sleep(wait)
        wait = _quiet_wait(os.fstat(fd))
    info = os.fstat(fd)
    os.lseek(fd, 0, os.SEEK_SET)
    saved = read_fd(fd, reading.MAX_EDIT_BYTES)
    mode = stat.S_IMODE(info.st_mode)
    copy = keep_version(path, saved, mode=mode)
    if wait <= 0 and atomic_write_bytes(
        target, saved, mode=mode, still_valid=lambda: reading.read_bytes(target) == ours
    ):
        _record_written(path, target)  # put back by us: the retry need not wait for it
        return
    raise SaveDivertedError(target, copy)


def _sweep(target: str) -> None:
    """Tidy the folder: remove the temp files writers killed mid-write left beside it
    (only our own temp names; an editor's are never touched)."""
    from missioncache_state.atomic import sweep_stale_temps

    sweep_stale_temps(target)


def update_file(
    path: str | os.PathLike[str],
    transform: Callable[[str], str],
    *,
    timeout: float = 10.0,
) -> UpdateResult:
    """Apply ``transform`` (text -> text) to the file under its lock, writing only on change.

    The file must exist (FileNotFoundError otherwise; it is never created), be a regular
    file (OSError otherwise: a FIFO, device or directory is never read or replaced) and
    be UTF-8 (NotUtf8Error otherwise, file untouched). A UTF-8 BOM is stripped before the
    transform and put back after. The write is atomic and keeps the file's permission
    bits; a symlink is followed so the real file is updated and the link kept. The
    version replaced is kept in ``.missioncache-history/`` beside the file
    (missioncache_state.history). Raises missioncache_state.lock.LockTimeout when the
    lock is not free within ``timeout``, and FileChangedError when another writer keeps
    changing the file for CHANGING_LIMIT seconds; an exception from ``transform``
    propagates and nothing is written.

    Editors save without our lock, often by truncating and rewriting in place, so a read
    can catch half a save and a save can land while we transform. Three guards: a file
    modified less than QUIET_SECONDS ago is waited for (see _quiet_wait); the bytes are
    re-read just before the replace, starting over if they moved; and a save that still
    reaches the replaced file afterwards is rescued (see _rescue).
    """
    from missioncache_state.files import check_regular
    from missioncache_state.lock import FileLock

    name = os.fspath(path)
    target = os.path.realpath(name)
    if not os.path.exists(target):
        raise FileNotFoundError(2, "No such file", name)
    check_regular(target)
    with FileLock(target, timeout=timeout):
        deadline = time.monotonic() + CHANGING_LIMIT
        for _attempt in range(RACE_ATTEMPTS):
            result = _attempt_update(name, target, transform, deadline)
            if result is not None:
                _sweep(target)
                return result
    raise FileChangedError(target)


def _attempt_update(
    name: str, target: str, transform: Callable[[str], str], deadline: float
) -> UpdateResult | None:
    """One read-transform-write; None when the file moved under us (try again)."""
    from missioncache_state.atomic import atomic_write_bytes
    from missioncache_state.history import keep_version

    fd, info, data = _snapshot(target)
    if HOLD_ACROSS_REPLACE is False:
        os.close(fd)
        fd = -1
    try:
        wait = _quiet_wait(info, name)
        while wait > 0:
            if time.monotonic() + wait > deadline:
                raise FileChangedError(target)
            time.sleep(wait)
            if _signature(os.stat(target)) != _signature(info):
                return None  # it changed while we waited: read it again
            wait = _quiet_wait(info, name)
        bom, before = reading.decode_utf8(target, data)
        after = transform(before)
        if not isinstance(after, str):
            raise TypeError(f"transform returned {type(after).__name__}, not str")
        if after == before:
            return UpdateResult(target, False, before, after)
        mode = stat.S_IMODE(info.st_mode)
        new = bom + after.encode("utf-8")
        keep_version(name, data, mode=mode)
        if not atomic_write_bytes(
            target, new, mode=mode, still_valid=lambda: _unchanged(target, info, data)
        ):
            return None
        if _written_after(fd, info):
            _rescue(name, target, fd, new, deadline + RESCUE_LIMIT)
            return None
        _record_written(name, target)
        return UpdateResult(target, True, before, after)
    finally:
        if fd >= 0:
            os.close(fd)
