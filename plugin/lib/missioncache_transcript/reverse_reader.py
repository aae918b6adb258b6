"""Read a file's lines from the last to the first, in blocks, within a byte budget.

WHY: Claude Code transcripts grow to hundreds of megabytes while a hook only needs the
last few records. Reading backwards from the end makes the cost depend on how far back
the caller looks, not on the size of the file; the byte budget keeps even a pathological
caller (no prompt anywhere) from reading the whole file.

Lines are split on ``b"\\n"`` only, which never occurs inside a multi-byte UTF-8 sequence,
so a block boundary can cut a character in half without harm: each line is reassembled
whole before anyone decodes it.
"""

from __future__ import annotations

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import BinaryIO, Union

    PathLike = Union[str, os.PathLike[str]]

DEFAULT_BLOCK_SIZE = 64 * 1024
DEFAULT_MAX_BYTES = 32 * 1024 * 1024


class ReverseLineReader:
    """Iterable over the non-empty lines of ``path``, last line first (without ``b"\\n"``).

    The text after the final newline (a record Claude Code may still be writing) is
    yielded first like any other line; the JSON layer rejects it if it is incomplete.
    Reading stops after ``max_bytes`` bytes back from the end: a line that starts before
    that point is not yielded and ``truncated`` becomes True once iteration reaches it.
    A missing or unreadable file yields nothing (``missing`` is then True).
    """

    def __init__(
        self,
        path: PathLike,
        *,
        block_size: int = DEFAULT_BLOCK_SIZE,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        if block_size < 1:
            raise ValueError("block_size must be at least 1")
        if max_bytes < 0:
            raise ValueError("max_bytes must not be negative")
        self.path = path
        self.block_size = block_size
        self.max_bytes = max_bytes
        self.truncated = False
        self.missing = False
        self.bytes_read = 0

    def __iter__(self) -> Iterator[bytes]:
        from missioncache_state.files import open_regular

        try:
            handle = os.fdopen(
                open_regular(self.path), "rb"
            )  # a FIFO or device is refused, never waited on
        except (OSError, ValueError, TypeError):
            self.missing = True
            return
        with handle:
            yield from self._lines(handle)

    def _lines(self, handle: BinaryIO) -> Iterator[bytes]:
        end = handle.seek(0, os.SEEK_END)
        floor = max(0, end - self.max_bytes)
        pos = end
        # Pieces of the line being assembled, in reverse file order: its start lies
        # before ``pos`` and has not been read yet.
        pending: list[bytes] = []
        while pos > floor:
            size = min(self.block_size, pos - floor)
            pos -= size
            chunk = self._read_at(handle, pos, size)
            if len(chunk) != size:  # the file shrank under us: stop, report nothing more
                return
            cut = chunk.rfind(b"\n")
            if cut < 0:
                pending.append(chunk)
                continue
            pending.append(chunk[cut + 1 :])
            line = b"".join(reversed(pending))
            if line:
                yield line
            parts = chunk[:cut].split(b"\n")
            for index in range(len(parts) - 1, 0, -1):
                if parts[index]:
                    yield parts[index]
            pending = [parts[0]]
        yield from self._first_line(handle, pos, pending)

    def _first_line(self, handle: BinaryIO, pos: int, pending: list[bytes]) -> Iterator[bytes]:
        """The line at ``pos``: whole if the file starts there or a newline precedes it."""
        line = b"".join(reversed(pending))
        if pos > 0:
            self.truncated = True  # older lines exist beyond the budget
            if self._read_at(handle, pos - 1, 1) != b"\n":
                return  # the line starts before the budget: we only hold its end
        if line:
            yield line

    def _read_at(self, handle: BinaryIO, pos: int, size: int) -> bytes:
        handle.seek(pos)
        data = handle.read(size)
        self.bytes_read += len(data)
        return data


def iter_lines_reversed(
    path: PathLike,
    *,
    block_size: int = DEFAULT_BLOCK_SIZE,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> ReverseLineReader:
    """Convenience constructor: ``for line in iter_lines_reversed(path): ...``."""
    return ReverseLineReader(path, block_size=block_size, max_bytes=max_bytes)
