"""Opening a transcript without hanging on what sits at its path.

The transcript path comes from the hook's payload: a FIFO there makes a plain ``open``
wait for a writer (Stop then hangs until Claude Code kills it at its timeout), and a
device feeds reads forever. So a transcript is opened without blocking (``O_NONBLOCK``)
and read only when what was opened is a regular file, as
``missioncache_state.files`` does for the notes (this package imports nothing of ours).
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO, Union

    PathLike = Union[str, "os.PathLike[str]"]

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_NOCTTY", 0)
)


def open_transcript(path: PathLike) -> BinaryIO:
    """A binary reader on ``path``; OSError unless it is a regular file (a device is
    never even opened: the path is stat'ed first, the descriptor again after)."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise OSError(f"{os.fspath(path)!r} is not a regular file")
    fd = os.open(path, _FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{os.fspath(path)!r} is not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
