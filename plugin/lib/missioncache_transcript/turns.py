"""The last few prompts and assistant replies, for a human-readable recap.

WHY its own scan: a recap wants the last *n* prompts, which can lie several exchanges
back, so it walks further than :func:`current_exchange` (under the same byte budget). It
stops at a prompt once it holds n prompts and n replies, so every reply it keeps is whole.
"""

from __future__ import annotations

from ._record import namedtuple
from .conversation import (
    is_prompt,
    is_typed_prompt,
    message_id,
    prompt_text,
    role_of,
    text_parts,
)
from .records import iter_records_reversed
from .reverse_reader import DEFAULT_BLOCK_SIZE, DEFAULT_MAX_BYTES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .conversation import Record
    from .reverse_reader import PathLike

ELLIPSIS = "…"


class Turn(namedtuple("Turn", "role text timestamp")):
    """A prompt (``role="user"``) or an assistant text reply, cut to the caller's limit;
    ``timestamp`` is the record's text timestamp or None."""

    __slots__ = ()


class RecentTurns(namedtuple("RecentTurns", "turns truncated")):
    """Turns (a tuple) oldest first; ``truncated`` when the byte budget ran out before n
    prompts and n replies were found."""

    __slots__ = ()


class _Reply:
    """Text of one assistant message, gathered from the records that share its id."""

    __slots__ = ("parts", "position", "timestamp")

    def __init__(self, position: int) -> None:
        self.position = position
        self.parts: list[str] = []
        self.timestamp: str | None = None


def clip(text: str, limit: int | None) -> str:
    """``text`` stripped and, when longer than ``limit``, cut to it with an ellipsis."""
    text = text.strip()
    if limit is None or len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + ELLIPSIS


def _timestamp(record: Record) -> str | None:
    value = record.get("timestamp")
    return value if isinstance(value, str) else None


def read_recent_turns(
    path: PathLike | None,
    n: int = 3,
    limit: int | None = 600,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    block_size: int = DEFAULT_BLOCK_SIZE,
    typed_only: bool = False,
) -> RecentTurns:
    """The last ``n`` prompts and last ``n`` assistant replies, interleaved as they occurred.

    ``typed_only`` keeps only what the human typed to Claude (``is_typed_prompt``): slash
    commands and synthetic turns still separate exchanges but are neither kept nor counted.
    """
    if limit is not None and limit < 1:
        raise ValueError("limit must be at least 1 (or None for no limit)")
    if n <= 0 or not path:
        return RecentTurns((), False)
    scan = iter_records_reversed(path, max_bytes, block_size=block_size)
    prompts: list[tuple[int, Turn]] = []
    replies: list[_Reply] = []  # newest first
    open_replies: dict[str, _Reply] = {}  # replies of the exchange being scanned, by message id
    truncated = False
    for position, record in enumerate(scan):
        role = role_of(record)
        if role == "user" and is_prompt(record):
            if not typed_only or is_typed_prompt(record):
                text = clip(prompt_text(record), limit)
                prompts.append((position, Turn("user", text, _timestamp(record))))
                if len(prompts) >= n and len(replies) >= n:
                    break
            open_replies = {}  # a message never spans a prompt, even if an id repeats
        elif role == "assistant":
            _add_reply_text(replies, open_replies, position, record)
    else:
        truncated = scan.truncated
    chosen = prompts[:n] + [
        (reply.position, Turn("assistant", clip("\n".join(reply.parts), limit), reply.timestamp))
        for reply in replies[:n]
    ]
    chosen.sort(key=lambda item: -item[0])  # scan positions count backwards
    return RecentTurns(tuple(turn for _, turn in chosen), truncated)


def _add_reply_text(
    replies: list[_Reply], open_replies: dict[str, _Reply], position: int, record: Record
) -> None:
    """Prepend ``record``'s text to its message's reply (the scan meets older parts later)."""
    parts = [part for part in text_parts(record) if part.strip()]
    if not parts:
        return
    key = message_id(record) or f"#{position}"
    reply = open_replies.get(key)
    if reply is None:
        reply = open_replies[key] = _Reply(position)
        replies.append(reply)
    reply.parts[:0] = parts
    reply.timestamp = _timestamp(record) or reply.timestamp


def recent_turns(
    path: PathLike | None,
    n: int = 3,
    limit: int | None = 600,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    typed_only: bool = False,
) -> list[Turn]:
    """The last ``n`` user prompts and assistant text replies, oldest first, each cut to
    ``limit`` characters (ellipsis included). Empty when the transcript does not exist.
    ``typed_only``: only prompts the human typed (see :func:`read_recent_turns`)."""
    found = read_recent_turns(path, n, limit, max_bytes=max_bytes, typed_only=typed_only)
    return list(found.turns)
