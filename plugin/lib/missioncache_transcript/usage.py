"""Token usage of a transcript's assistant messages, read forward from where the last read
stopped.

WHY forward and incremental: usage is needed for every message, not only the current
exchange, and transcripts grow to hundreds of megabytes. Each read starts at the byte
offset the previous one ended at (the caller keeps it) and stops at the last complete
line, so a Stop reads only what its own turn appended. A read is also bounded
(``max_bytes``): a first read of a huge transcript is finished by the next ones.

WHY a key of message id *and* request: Claude Code writes one record per content block,
each repeating the whole message's usage, so a message must count once. The records of
one API response share ``message.id`` and the request (``requestId``, or 2.1.328's
``requestRef``); different responses may reuse a message id (a test model does), so the
id alone would merge them.

Only lines that mention ``"usage"`` are parsed at all: most records are not assistant
messages and a byte search is far cheaper than JSON.
"""

from __future__ import annotations

from missioncache_state import lean_os as os

from ._json_line import loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Union

    PathLike = Union[str, "os.PathLike[str]"]

DEFAULT_MAX_BYTES = 32 << 20  # per read; the next read goes on from there
_CHUNK = 1 << 20
_NEEDLE = b'"usage"'
_PROMPT_NEEDLE = b'"promptId"'
_WAIT_NEEDLE = b'"retryInMs"'
MAX_WAIT = 6 * 3600.0  # a usage limit resets within five hours; more is not a wait
# No message comes near this: the largest context window is 1M tokens and an answer is at
# most 128k. A record claiming more in any field is damaged or forged, and its usage is
# dropped (not clamped: a clamped 10^30 still cost millions), with a breadcrumb.
MAX_TOKENS = 100_000_000


class MessageUsage:
    """One assistant message's tokens. ``cache_5m`` and ``cache_1h`` split the cache
    writes (``cache_creation_input_tokens``); writes the record does not split are counted
    as 5-minute ones, the API's default (and what ccusage assumes). ``copied``: the
    message was answered to another session's request (``copied_record``)."""

    __slots__ = (
        "cache_1h",
        "cache_5m",
        "cache_read",
        "copied",
        "epoch",
        "input",
        "key",
        "model",
        "output",
        "prompt_id",
        "speed",
    )

    def __init__(
        self,
        key: str,
        model: str | None,
        speed: str | None,
        epoch: float | None,
        prompt_id: str | None,
        tokens: tuple[int, int, int, int, int],
        copied: bool = False,
    ) -> None:
        self.key, self.model, self.speed, self.epoch = key, model, speed, epoch
        self.prompt_id, self.copied = prompt_id, copied
        self.input, self.output, self.cache_5m, self.cache_1h, self.cache_read = tokens

    @property
    def cache_write(self) -> int:
        return self.cache_5m + self.cache_1h

    def tokens(self) -> tuple[int, int, int, int, int]:
        return (self.input, self.output, self.cache_5m, self.cache_1h, self.cache_read)

    def __repr__(self) -> str:
        return f"MessageUsage({self.key!r}, {self.model!r}, {self.tokens()!r})"


class UsageRead:
    """What one read found: the messages (each once, in file order), the offset the next
    read starts at, and the prompt id of the last prompt seen (the turn later messages
    belong to)."""

    __slots__ = ("dropped", "messages", "offset", "prompt_id", "restarted", "waits")

    def __init__(
        self,
        messages: list[MessageUsage],
        offset: int,
        prompt_id: str | None,
        restarted: bool,
        waits: list[tuple[float, float]] | None = None,
    ) -> None:
        self.messages, self.offset, self.prompt_id = messages, offset, prompt_id
        self.restarted = restarted
        self.waits = waits or []  # (epoch, seconds): Claude Code waiting to retry
        self.dropped: list[str] = []  # keys of messages whose counts were implausible


class ImplausibleUsage(ValueError):
    """A record claims more tokens in one field than any message can hold."""


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return 0
    if value > MAX_TOKENS:
        raise ImplausibleUsage(value)
    return value


def _text(value: Any, limit: int = 200) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= limit else None


def _digits(text: str, start: int, end: int) -> int:
    part = text[start:end]
    if len(part) != end - start or not part.isascii() or not part.isdigit():
        raise ValueError(text)
    return int(part)


def iso_epoch(text: Any) -> float | None:
    """``2026-12-01T22:28:37.227Z`` (UTC, as Claude Code writes it) as a Unix epoch;
    None for anything else. Hand-written: ``datetime`` costs the Stop hook an import."""
    if not isinstance(text, str) or len(text) < 20 or text[-1] != "Z" or text[10] != "T":
        return None
    try:
        year, month, day = _digits(text, 0, 4), _digits(text, 5, 7), _digits(text, 8, 10)
        hour, minute, second = _digits(text, 11, 13), _digits(text, 14, 16), _digits(text, 17, 19)
        fraction = 0.0
        if len(text) > 20:
            if text[19] != ".":
                return None
            fraction = _digits(text, 20, len(text) - 1) / 10 ** (len(text) - 21)
    except ValueError:
        return None
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        return None
    # Days from the civil date (H. Hinnant's algorithm): no calendar module needed.
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    return days * 86400 + hour * 3600 + minute * 60 + second + fraction


def copied_record(record: dict) -> bool:
    """Whether an ``assistant`` record is a copy of another session's message: Claude Code
    (2.1.328) stamps ``requestSessionId``, the session whose request the message answered,
    on every record it writes into a session other than that one (``--fork-session`` and
    ``/branch`` copy the parent's messages into the new transcript, keeping their ids,
    timestamps and usage). A session's own replies never carry it."""
    requester = _text(record.get("requestSessionId"))
    return requester is not None and requester != record.get("sessionId")


def message_usage(record: dict, prompt_id: str | None = None) -> MessageUsage | None:
    """The usage of one ``assistant`` record, or None when it carries none we can key.
    ImplausibleUsage when a count is beyond ``MAX_TOKENS``."""
    if record.get("type") != "assistant":
        return None
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    usage, message_id = message.get("usage"), _text(message.get("id"))
    if not isinstance(usage, dict) or message_id is None:
        return None
    request = _text(record.get("requestId")) or _text(record.get("requestRef")) or ""
    write = _count(usage.get("cache_creation_input_tokens"))
    split = usage.get("cache_creation")
    one_hour = _count(split.get("ephemeral_1h_input_tokens")) if isinstance(split, dict) else 0
    one_hour = min(one_hour, write)
    tokens = (
        _count(usage.get("input_tokens")),
        _count(usage.get("output_tokens")),
        write - one_hour,
        one_hour,
        _count(usage.get("cache_read_input_tokens")),
    )
    model = _text(message.get("model"))
    speed = _text(usage.get("speed"), 40)
    key = f"{message_id}:{request}"
    epoch = iso_epoch(record.get("timestamp"))
    return MessageUsage(key, model, speed, epoch, prompt_id, tokens, copied_record(record))


def _prompt_id(record: dict) -> str | None:
    """The turn a ``user`` record opens or continues (2.1.328 stamps ``promptId``)."""
    if record.get("type") != "user":
        return None
    return _text(record.get("promptId"), 128)


def _parse(line: bytes) -> dict | None:
    try:
        value = loads(line.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _merge(seen: dict[str, MessageUsage], found: MessageUsage) -> None:
    """Keep one entry per key; a later record of the same message with larger counts (a
    block written before the final usage arrived) raises them, never lowers them."""
    old = seen.get(found.key)
    if old is None:
        seen[found.key] = found
        return
    merged = tuple(max(a, b) for a, b in zip(old.tokens(), found.tokens()))
    old.input, old.output, old.cache_5m, old.cache_1h, old.cache_read = merged


def read_usage(
    path: PathLike,
    offset: int = 0,
    prompt_id: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> UsageRead:
    """The assistant messages of ``path`` from byte ``offset`` on, up to its last complete
    line (at most ``max_bytes`` read). ``prompt_id`` is the turn the last read ended in. A
    file now shorter than ``offset`` was replaced: it is read again from the start
    (``restarted``). A missing or unreadable file reads as nothing, offset unchanged."""
    from missioncache_state.files import open_regular

    try:
        handle = os.fdopen(open_regular(path), "rb")  # a FIFO or device is refused, never waited on
    except (OSError, ValueError, TypeError):
        return UsageRead([], offset, prompt_id, False)
    try:
        size = os.fstat(handle.fileno()).st_size
        restarted = size < offset
        if restarted:
            offset = 0
        handle.seek(offset)
        seen: dict[str, MessageUsage] = {}
        dropped: list[str] = []
        waits: list[tuple[float, float]] = []
        position, budget, carry = offset, max_bytes, b""
        while budget > 0:
            block = handle.read(min(_CHUNK, budget))
            if not block:
                break
            budget -= len(block)
            data = carry + block
            end = data.rfind(b"\n") + 1
            carry = data[end:]
            for line in data[:end].split(b"\n"):
                if _WAIT_NEEDLE in line:
                    _wait(line, waits)
                else:
                    prompt_id = _scan(line, prompt_id, seen, dropped)
            position += end
        found = UsageRead(list(seen.values()), position, prompt_id, restarted, waits)
        found.dropped = dropped
        return found
    except OSError:
        return UsageRead([], offset, prompt_id, False)
    finally:
        handle.close()


def _scan(
    line: bytes, prompt_id: str | None, seen: dict[str, MessageUsage], dropped: list[str]
) -> str | None:
    """Take one line's message into ``seen`` (or its key into ``dropped`` when its counts
    are implausible); returns the turn's prompt id after it."""
    if _PROMPT_NEEDLE in line and b'"user"' in line:
        record = _parse(line)
        found = _prompt_id(record) if record is not None else None
        return found or prompt_id
    if _NEEDLE not in line:
        return prompt_id
    record = _parse(line)
    try:
        usage = message_usage(record, prompt_id) if record is not None else None
    except ImplausibleUsage:
        message = record.get("message") if record is not None else None
        dropped.append(str(message.get("id"))[:80] if isinstance(message, dict) else "?")
        return prompt_id
    if usage is not None:
        _merge(seen, usage)
    return prompt_id


def wait_of(record: dict) -> tuple[float, float] | None:
    """``(epoch, seconds)`` of a wait Claude Code recorded: a ``system`` record carrying
    ``retryInMs`` (measured on 2.1.328: ``subtype: "api_error"``, ``source:
    "request_retry"``, one per retry, written when the back-off starts)."""
    if record.get("type") != "system":
        return None
    delay, epoch = record.get("retryInMs"), iso_epoch(record.get("timestamp"))
    if isinstance(delay, bool) or not isinstance(delay, (int, float)) or epoch is None:
        return None
    if not 0 < delay <= MAX_WAIT * 1000:
        return None
    return epoch, delay / 1000.0


def _wait(line: bytes, waits: list[tuple[float, float]]) -> None:
    record = _parse(line)
    found = wait_of(record) if record is not None else None
    if found is not None:
        waits.append(found)


def subagent_transcripts(transcript: PathLike) -> list[str]:
    """The subagents' transcripts of a session, ``<dir>/<session id>/subagents/agent-*.jsonl``
    beside the main one (contract section 7), sorted; none when there are none."""
    path = os.fspath(transcript)
    base = path[:-6] if path.endswith(".jsonl") else path
    folder = os.path.join(base, "subagents")
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = [n for n in names if n.startswith("agent-") and n.endswith(".jsonl")]
    return [os.path.join(folder, n) for n in sorted(found)]
