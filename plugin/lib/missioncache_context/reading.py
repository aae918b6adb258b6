"""Reading a user's markdown file: whole, its head, or its two ends, as UTF-8 text.

WHY apart from ``update``: the hooks on every prompt and at session start only read
(the digest, the task tracker's check, the status line), and the locked, atomic editing
in ``update`` is most of this package's code to load. A file that is not UTF-8 is refused
(``NotUtf8Error``), never decoded lossily: the editors would write the damage back.
"""

from __future__ import annotations

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

_BOM = b"\xef\xbb\xbf"
MAX_EDIT_BYTES = 64 << 20  # a larger file is refused, not read whole into memory (x10)
HEAD_LIMIT = 1 << 20  # what a hook reads of a file for a digest or a reminder


def as_path(path: str) -> Path:
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
        return as_path(self.file)


def decode_utf8(path: str, data: bytes) -> tuple[bytes, str]:
    """(BOM bytes or b"", text) - raising NotUtf8Error instead of guessing."""
    bom = _BOM if data.startswith(_BOM) else b""
    try:
        return bom, data[len(bom) :].decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotUtf8Error(path, error.start + len(bom)) from None


def read_bytes(path: str) -> bytes:
    """The whole file, if it is a regular file of at most MAX_EDIT_BYTES (OSError
    otherwise: a FIFO, a device or a directory is never read, let alone replaced)."""
    from missioncache_state.files import read_regular

    return read_regular(path, MAX_EDIT_BYTES)


def read_file(path: str | os.PathLike[str]) -> str:
    """A context/tasks file's text without BOM (no lock: writers replace atomically).

    Raises FileNotFoundError when missing, NotUtf8Error when not UTF-8, and OSError
    (missioncache_state.files) when it is not a regular file or larger than
    MAX_EDIT_BYTES.
    """
    target = os.fspath(path)
    return decode_utf8(target, read_bytes(target))[1]


def read_head(path: str | os.PathLike[str], limit: int = HEAD_LIMIT) -> str:
    """The text of a file's first ``limit`` bytes, cut at the last whole line when the
    file is longer: the digest and the task tracker need the top of a file (entries are
    kept newest first), and a 50 MB file must not cost every prompt its whole size in
    time and ten times it in memory. Errors as :func:`read_file`."""
    from missioncache_state.files import read_head as read_head_bytes

    target = os.fspath(path)
    data, whole = read_head_bytes(target, limit)
    if not whole:  # no half line; a head without any line end loses no more than a character
        cut = data.rfind(b"\n") + 1
        data = data[:cut] if cut else _without_cut_character(data)
    return decode_utf8(target, data)[1]


def _without_cut_character(data: bytes) -> bytes:
    """``data`` less the start of a character the limit cut in two, and nothing else: an
    invalid byte anywhere before it is still refused (NotUtf8Error), never dropped."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.reason == "unexpected end of data":
            return data[: error.start]
    return data


def read_ends(path: str | os.PathLike[str], limit: int = HEAD_LIMIT) -> list[str]:
    """A file that grows at the bottom (a tasks file: new items are appended), bounded:
    ``[whole text]`` when it is at most ``2 * limit`` bytes, else ``[head, tail]`` of
    ``limit`` bytes each, cut at whole lines. The two parts are parsed apart, because a
    fence left open at the cut would otherwise hide the whole tail. Errors as
    :func:`read_file`."""
    from missioncache_state.files import read_ends as read_ends_bytes

    target = os.fspath(path)
    head, tail, skipped = read_ends_bytes(target, limit)
    if not skipped:
        return [decode_utf8(target, head + tail)[1]]
    head = head[: head.rfind(b"\n") + 1]
    first_end = tail.find(b"\n")
    tail = tail[first_end + 1 :] if first_end >= 0 else b""  # no whole line: nothing
    return [decode_utf8(target, head)[1], decode_utf8(target, tail)[1]]
