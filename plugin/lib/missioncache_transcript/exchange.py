"""The current exchange: everything after the last user prompt, found from the end.

WHY backwards: the exchange a Stop hook asks about is at the end of a file that may hold
hundreds of megabytes of older ones. Walking back from the end until the last prompt costs
what the exchange costs; the byte budget bounds the walk when no prompt is in reach.
"""

from __future__ import annotations

from ._record import namedtuple
from .conversation import is_prompt
from .records import iter_records_reversed
from .reverse_reader import DEFAULT_BLOCK_SIZE, DEFAULT_MAX_BYTES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .reverse_reader import PathLike


class Exchange(namedtuple("Exchange", "prompt records truncated")):
    """The records after the last prompt, oldest first (sidechain records left out).

    ``prompt`` is the prompt record, or None when none was found: the file is missing or
    empty, holds no prompt yet, or ``truncated`` (bool) says the byte budget ran out first
    (then ``records``, a tuple, holds only what was within the budget).
    """

    __slots__ = ()


def current_exchange(
    path: PathLike | None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> Exchange:
    """The current exchange of the transcript at ``path`` (empty when ``path`` is falsy)."""
    if not path:
        return Exchange(None, (), False)
    scan = iter_records_reversed(path, max_bytes, block_size=block_size)
    newest_first: list[dict[str, object]] = []
    for record in scan:
        if record.get("isSidechain") is True:
            continue
        if is_prompt(record):
            newest_first.reverse()
            return Exchange(record, tuple(newest_first), False)
        newest_first.append(record)
    newest_first.reverse()
    return Exchange(None, tuple(newest_first), scan.truncated)
