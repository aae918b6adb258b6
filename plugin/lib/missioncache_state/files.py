"""Reading a user's file without hanging, exhausting memory or touching a device.

A context or tasks path is whatever the user (or a damaged database) left there: a FIFO
makes a plain ``open`` block for a hook's whole timeout, ``/dev/zero`` feeds ``read()``
until memory runs out, and a directory or socket makes no sense as notes. So every read
opens without blocking (``O_NONBLOCK``: a FIFO opens at once, a device is never waited
on), checks that what it opened is a regular file, and reads at most a stated number of
bytes. A symlink is followed (users keep notes elsewhere on purpose); what it points at
must still be a regular file.
"""

from __future__ import annotations

import stat

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Union

    StrPath = Union[str, bytes, os.PathLike]

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_NOCTTY", 0)
)
_CHUNK = 1 << 20


class NotRegularFileError(OSError):
    """The path names a FIFO, device, directory or socket; it was not read or written."""

    def __init__(self, path: StrPath, kind: str) -> None:
        super().__init__(f"{os.fsdecode(path)} is a {kind}, not a regular file; left alone")
        self.file = os.fsdecode(path)
        self.kind = kind


class FileTooLargeError(OSError):
    """The file is larger than the caller's bound; it was not read whole."""

    def __init__(self, path: StrPath, limit: int) -> None:
        super().__init__(f"{os.fsdecode(path)} is larger than {limit} bytes; left alone")
        self.file = os.fsdecode(path)
        self.limit = limit


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "directory"),
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISSOCK, "socket"),
    ):
        if test(mode):
            return name
    return "special file"


def check_regular(path: StrPath) -> os.stat_result:
    """``os.stat(path)`` when it is a regular file (symlinks followed); else
    NotRegularFileError (FileNotFoundError when missing). Callers that replace a file
    ask this first: replacing a device node or FIFO with a regular file (as root) would
    destroy it."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise NotRegularFileError(path, _kind(info.st_mode))
    return info


def open_regular(path: StrPath) -> int:
    """A read-only descriptor on ``path``, refused (NotRegularFileError) unless it is a
    regular file. The path is stat'ed before opening, so a device is never even opened,
    and the descriptor is fstat'ed after, so a swap in between is caught too."""
    check_regular(path)
    fd = os.open(path, _FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFileError(path, _kind(info.st_mode))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_fd(fd: int, limit: int) -> bytes:
    """Up to ``limit`` bytes from ``fd``'s current position (fewer at the end)."""
    chunks = []
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, _CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_regular(path: StrPath, limit: int) -> bytes:
    """The whole of a regular file of at most ``limit`` bytes; FileTooLargeError when it
    is larger (nothing is returned: a caller that would write it back must not get half)."""
    data = _read_past(path, limit)
    if len(data) > limit:
        raise FileTooLargeError(path, limit)
    return data


def read_head(path: StrPath, limit: int) -> tuple[bytes, bool]:
    """(the first ``limit`` bytes of a regular file, whether that is the whole file).
    For readers that need only the top of a file (a digest, a reminder): they pay for
    what they use, not for a file the user let grow to 50 MB."""
    data = _read_past(path, limit)
    if len(data) > limit:
        return data[:limit], False
    return data, True


def read_ends(path: StrPath, limit: int) -> tuple[bytes, bytes, bool]:
    """(first ``limit`` bytes, last ``limit`` bytes after them, whether bytes were skipped
    between the two) of a regular file. For a file that grows at the bottom (tasks appended
    to a checklist): its format is at the top, its newest lines at the end, and a reader
    must see both without paying for the middle of a 50 MB file."""
    fd = open_regular(path)
    try:
        head = read_fd(fd, limit)
        size = os.fstat(fd).st_size
        if size <= len(head):
            return head, b"", False
        start = max(len(head), size - limit)
        os.lseek(fd, start, os.SEEK_SET)
        return head, read_fd(fd, limit), start > len(head)
    finally:
        os.close(fd)


def _read_past(path: StrPath, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of a regular file: one byte more than allowed tells a
    file that is exactly ``limit`` long from a longer one."""
    fd = open_regular(path)
    try:
        return read_fd(fd, limit + 1)
    finally:
        os.close(fd)
