"""Transcript lines -> JSON records, tolerantly, newest first.

WHY tolerant: the transcript is written by another program while we read it. The last
line may be half written, a crash may leave garbage, and hooks must never fail because
of what they find there. Anything that is not one JSON object on one line is skipped.
"""

from __future__ import annotations

from ._json_line import loads
from .reverse_reader import DEFAULT_BLOCK_SIZE, DEFAULT_MAX_BYTES, ReverseLineReader

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from .reverse_reader import PathLike

    Record = dict[str, Any]


def parse_record(line: bytes) -> Record | None:
    """The JSON object on ``line``, or None for blank, partial, garbage or non-object lines.

    Bytes that are not UTF-8 become U+FFFD instead of failing the whole read.
    """
    try:
        value = loads(line.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


class ReverseRecords:
    """Iterable over the JSON records of a transcript, newest first.

    ``truncated`` (True once iteration reaches the byte budget without reaching the start
    of the file) and ``missing`` mirror the underlying :class:`ReverseLineReader`.
    """

    def __init__(
        self,
        path: PathLike,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        block_size: int = DEFAULT_BLOCK_SIZE,
    ) -> None:
        self.lines = ReverseLineReader(path, block_size=block_size, max_bytes=max_bytes)

    @property
    def truncated(self) -> bool:
        return self.lines.truncated

    @property
    def missing(self) -> bool:
        return self.lines.missing

    @property
    def bytes_read(self) -> int:
        return self.lines.bytes_read

    def __iter__(self) -> Iterator[Record]:
        for line in self.lines:
            record = parse_record(line)
            if record is not None:
                yield record


def iter_records_reversed(
    path: PathLike,
    max_bytes: int = DEFAULT_MAX_BYTES,
    *,
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> ReverseRecords:
    """The records of the transcript at ``path``, newest first (see :class:`ReverseRecords`)."""
    return ReverseRecords(path, max_bytes=max_bytes, block_size=block_size)
