"""A portable, exclusive, inter-process file lock with a timeout.

The lock lives on a sidecar ``<file>.lock`` so the protected file itself can be replaced
atomically while the lock is held. ``fcntl`` (POSIX) and ``msvcrt`` (Windows) are
imported inside the functions that need them: a module-level ``fcntl`` import is what
kept the original hooks from even starting on Windows.
"""

from __future__ import annotations

import sys
import time

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Union

    StrPath = Union[str, os.PathLike]


class LockTimeout(TimeoutError):
    """The lock could not be taken within the caller's budget."""


def lock_file_for(path: StrPath) -> str:
    """The sidecar ``<path>.lock`` as a string."""
    text = os.fspath(path)
    return (text.rstrip("/" + os.sep) or text) + ".lock"


def _open_lock_file(path: str) -> int:
    """Open (creating) the sidecar without following a planted symlink."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    return os.open(path, flags, 0o644)


def _try_lock(fd: int) -> bool:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):
        return False
    return True


def _unlock(fd: int) -> None:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        except OSError:
            pass
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)


def _still_named(path: str, fd: int) -> bool:
    """Whether ``path`` still names the file open on ``fd`` (not removed or replaced)."""
    try:
        named = os.lstat(path)
    except OSError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


class FileLock:
    """``with FileLock(path, timeout=5): ...`` holds an exclusive lock on ``path.lock``.

    Raises :class:`LockTimeout` when the lock is not free within ``timeout`` seconds
    (``0`` means a single attempt). Not re-entrant.
    """

    def __init__(self, path: StrPath, timeout: float = 10.0) -> None:
        self.path = lock_file_for(path)  # a string, not a Path (hook path)
        self.timeout = timeout
        self._fd: int | None = None

    def acquire(self) -> None:
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        deadline = time.monotonic() + max(self.timeout, 0.0)
        delay = 0.001
        while True:
            fd = _open_lock_file(self.path)
            while not _try_lock(fd):
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise LockTimeout(f"could not lock {self.path} within {self.timeout:g}s")
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
            if _still_named(self.path, fd):
                self._fd = fd
                return
            # The holder we waited for removed the sidecar on release: our lock is on a
            # file nobody else will ever open again. Lock the current one instead.
            _unlock(fd)
            os.close(fd)

    def release(self) -> None:
        """Unlock, removing the sidecar first so task folders do not fill with
        ``.lock`` files: a waiter that locked the removed file notices in acquire()."""
        if self._fd is None:
            return
        try:
            if sys.platform != "win32" and _still_named(self.path, self._fd):
                try:
                    os.unlink(self.path)
                except OSError:
                    pass  # a read-only folder: the sidecar stays, still correct
            _unlock(self._fd)
        finally:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
