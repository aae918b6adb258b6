"""A loopback stand-in for the Anthropic Messages API, so the real Claude Code CLI runs offline.

WHY: conformance tests must prove what the real CLI does with our hooks, without a network, an API
key or a model. The CLI only needs `POST /v1/messages` (streamed as server-sent events) and
`count_tokens`; this server answers those from a script of Claude's turns and records every request,
so a test can check exactly what reached the model (and with which prefix).

Scripted turns are lists of blocks (`Text`, `ToolUse`). A turn holding a `ToolUse` ends with
`stop_reason: "tool_use"`; the CLI then runs the tool and calls back with a `tool_result`, which is
answered by the next scripted turn. Requests outside the main conversation (compaction, and side
requests such as title generation or quota probes) are recognised and answered without consuming
the script.

Measured on 2.1.328 with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1: the CLI sends only
`POST /v1/messages?beta=true` with `"stream": true` (main turns and compaction), so every answer is
an event stream; without that variable it also sends `HEAD /api/hello` (answered 200). Anything
unknown gets a 404 JSON error and shows up in `unhandled_requests()`.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple
from urllib.parse import parse_qs, urlsplit

from missioncache_harness.tools import Text

DEFAULT_TEXT = "Done."
DEFAULT_SUMMARY = (
    "<analysis>\nThe user asked for scripted work; it was done.\n</analysis>\n"
    "<summary>\n1. Primary Request and Intent: scripted test session.\n"
    "2. Pending Tasks: none.\n</summary>"
)
# The CLI's compaction prompt asks for this (measured on 2.1.328); matched case-insensitively.
COMPACT_MARKER = "create a detailed summary"
# A tool-less request asking for at most this many tokens is a side request, not a turn.
SIDE_MAX_TOKENS = 1024
# Request kinds, as classified by `classify_request`.
MAIN, COMPACT, SIDE, COUNT_TOKENS, OTHER = "main", "compact", "side", "count_tokens", "other"


@dataclass(frozen=True)
class ToolUse:
    """A tool call of a scripted reply, e.g. `ToolUse("Write", {"file_path": p, "content": c})`."""

    name: str
    input: dict[str, Any]
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """One scripted model response. `stop_reason` defaults to tool_use/end_turn from the blocks."""

    blocks: tuple[Text | ToolUse, ...]
    stop_reason: str | None = None
    input_tokens: int = 100
    output_tokens: int = 20
    # Prompt-cache tokens the reply reports (usage.cache_creation_input_tokens, of which
    # cache_1h_tokens were written for an hour, and cache_read_input_tokens).
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    cache_1h_tokens: int = 0
    # Answer with this HTTP error instead (e.g. 500): an API error. Claude Code retries (each
    # retry takes the next scripted reply), then fires StopFailure instead of Stop.
    error_status: int = 0

    def resolved_stop_reason(self) -> str:
        if self.stop_reason:
            return self.stop_reason
        return "tool_use" if any(isinstance(b, ToolUse) for b in self.blocks) else "end_turn"


ReplyLike = Reply | Text | ToolUse | str | Iterable[Text | ToolUse | str]


def as_reply(value: ReplyLike) -> Reply:
    """Accept the convenient spellings of a reply: a Reply, one block, a string, or a block list."""
    if isinstance(value, Reply):
        return value
    if isinstance(value, str | Text | ToolUse):
        value = [value]
    return Reply(tuple(Text(b) if isinstance(b, str) else b for b in value))


class ModelText(NamedTuple):
    """One piece of text the model received, and the request that carried it."""

    request_index: int
    text: str


@dataclass
class RecordedRequest:
    """Everything the CLI sent in one HTTP request, plus how the fake classified it."""

    index: int
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    raw: bytes
    body: Any = None
    kind: str = OTHER
    response_status: int = 0
    reply: Reply | None = None

    def _get(self, key: str) -> Any:
        return self.body.get(key) if isinstance(self.body, dict) else None

    @property
    def messages(self) -> list[dict[str, Any]]:
        msgs = self._get("messages")
        return msgs if isinstance(msgs, list) else []

    @property
    def tool_names(self) -> list[str]:
        return [t.get("name", "") for t in self._get("tools") or [] if isinstance(t, dict)]

    def last_user_text(self) -> str:
        """The text of the last user message (how compaction and side requests are told apart)."""
        users = [m for m in self.messages if m.get("role") == "user"]
        return "\n".join(_texts(users[-1].get("content"))) if users else ""

    def texts(self) -> list[ModelText]:
        """Every system string and message text block (tool results too) of this request."""
        contents = [self._get("system"), *(m.get("content") for m in self.messages)]
        return [ModelText(self.index, t) for content in contents for t in _texts(content)]

    def tool_results(self) -> list[dict[str, Any]]:
        """The tool_result blocks this request carries (the CLI's answer to a scripted ToolUse)."""
        lists = [m["content"] for m in self.messages if isinstance(m.get("content"), list)]
        return [
            b for c in lists for b in c if isinstance(b, dict) and b.get("type") == "tool_result"
        ]


def _texts(content: Any) -> Iterator[str]:
    """The texts of a string, a text block, or a list of blocks (tool results too)."""
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for block in content:
            yield from _texts(block)
    elif isinstance(content, dict):
        if isinstance(content.get("text"), str):
            yield content["text"]
        elif content.get("type") == "tool_result":
            yield from _texts(content.get("content"))


def classify_request(req: RecordedRequest) -> str:
    """Tell the main conversation from compaction and from the CLI's side requests.

    WHY these rules: compaction is recognised by its closing request for a summary, whatever it
    carries. Side requests (title generation, quota probe) offer no tools and ask the small fast
    model (haiku) for a short answer; the main loop offers tools, or, run with `--tools ""`, still
    asks the main model for a full-length reply (128,000 max_tokens on 2.1.328).
    """
    path = req.path.rstrip("/")
    if path.endswith("/count_tokens"):
        return COUNT_TOKENS
    if req.method != "POST" or path != "/v1/messages":
        return OTHER
    if COMPACT_MARKER in req.last_user_text().lower():
        return COMPACT
    if req.tool_names:
        return MAIN
    max_tokens = req._get("max_tokens")
    small = isinstance(max_tokens, int) and max_tokens <= SIDE_MAX_TOKENS
    return SIDE if small or "haiku" in str(req._get("model")).lower() else MAIN


class FakeAnthropicAPI:
    """Messages API stand-in on 127.0.0.1 (ephemeral port), served from a background thread.

    Use as a context manager; `base_url` goes into ANTHROPIC_BASE_URL. Main-conversation replies
    come from the queue, then `default_text`. Compaction gets `compact_summary` (a string, or a
    callable of the request); side requests get `side_text`. Neither consumes the queue.
    """

    def __init__(
        self,
        replies: Iterable[ReplyLike] = (),
        *,
        compact_summary: str | Callable[[RecordedRequest], str] = DEFAULT_SUMMARY,
        default_text: str = DEFAULT_TEXT,
        side_text: str = "Scripted session",
    ) -> None:
        self._queue: deque[Reply] = deque(as_reply(r) for r in replies)
        self.compact_summary = compact_summary
        self.default_text = default_text
        self.side_text = side_text
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None
        self._port: int | None = None

    def __enter__(self) -> FakeAnthropicAPI:
        handler = type("_BoundHandler", (_Handler,), {"api": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._port = int(self._server.server_address[1])
        # A short poll keeps the exit quick (shutdown waits for the loop's next poll).
        serve = self._server.serve_forever
        threading.Thread(target=serve, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @property
    def port(self) -> int:
        """The bound port; still answers after the exit so tests can compare recorded URLs."""
        if self._port is None:
            raise RuntimeError("FakeAnthropicAPI was never started")
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def enqueue(self, *replies: ReplyLike) -> None:
        """Append scripted main-conversation replies (one per model call)."""
        with self._lock:
            self._queue.extend(as_reply(r) for r in replies)

    @property
    def pending(self) -> int:
        """How many scripted replies have not been served yet."""
        with self._lock:
            return len(self._queue)

    def _reply_for(self, req: RecordedRequest) -> Reply:
        if req.kind == COMPACT:
            summary = self.compact_summary
            return as_reply(summary(req) if callable(summary) else summary)
        if req.kind == SIDE:
            return as_reply(self.side_text)
        with self._lock:
            return self._queue.popleft() if self._queue else as_reply(self.default_text)

    def _next_id(self, prefix: str) -> str:
        return f"{prefix}_fake{next(self._ids):06d}"

    def message_requests(self, *kinds: str) -> list[RecordedRequest]:
        """Recorded `POST /v1/messages` requests, optionally only of the given kinds."""
        wanted = kinds or (MAIN, COMPACT, SIDE)
        return [r for r in list(self.requests) if r.kind in wanted]

    def main_requests(self) -> list[RecordedRequest]:
        return self.message_requests(MAIN)

    def compaction_requests(self) -> list[RecordedRequest]:
        return self.message_requests(COMPACT)

    def unhandled_requests(self) -> list[RecordedRequest]:
        """Requests answered with 404: a new CLI calling something this fake does not know."""
        return [r for r in list(self.requests) if r.response_status == 404]

    def model_texts(self, *kinds: str) -> list[str]:
        """Every system string and message text the model was sent (optionally of some kinds)."""
        return [t.text for r in self.message_requests(*kinds) for t in r.texts()]

    def find_texts(self, needle: str, *kinds: str) -> list[ModelText]:
        """The model texts containing `needle`, with the index of the request that sent each."""
        return [t for r in self.message_requests(*kinds) for t in r.texts() if needle in t.text]


class _Handler(BaseHTTPRequestHandler):
    """Serves one connection; the bound subclass carries the owning FakeAnthropicAPI as `api`."""

    api: FakeAnthropicAPI
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr access log; requests are recorded instead."""

    def do_POST(self) -> None:
        parts = urlsplit(self.path)
        # The CLI sends plain JSON with a Content-Length; no compression.
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {k.lower(): v for k, v in self.headers.items()}
        req = RecordedRequest(-1, self.command, parts.path, parse_qs(parts.query), headers, raw)
        try:
            req.body = json.loads(raw) if raw else None
        except ValueError:
            pass
        req.kind = classify_request(req)
        with self.api._lock:
            req.index = len(self.api.requests)
            self.api.requests.append(req)
        if req.path == "/api/hello":  # connectivity probe (sent unless nonessential traffic is off)
            self._send(200, "application/json", b"{}", req)
        elif req.kind == COUNT_TOKENS:
            self._send_json(200, {"input_tokens": max(1, len(raw) // 4)}, req)
        elif req.kind == OTHER:
            self._send_error(404, "not_found_error", f"fake API: no route {parts.path}", req)
        else:
            req.reply = reply = self.api._reply_for(req)
            if reply.error_status:
                message = f"fake api_error {reply.error_status}"
                self._send_error(reply.error_status, "api_error", message, req)
            else:
                self._send(200, "text/event-stream", _sse_body(self.api, req, reply), req)

    do_GET = do_HEAD = do_POST

    def _send_error(self, status: int, kind: str, message: str, req: RecordedRequest) -> None:
        error = {"type": "error", "error": {"type": kind, "message": message}}
        self._send_json(status, error, req)

    def _send_json(self, status: int, obj: Any, req: RecordedRequest) -> None:
        self._send(status, "application/json", json.dumps(obj).encode(), req)

    def _send(self, status: int, ctype: str, payload: bytes, req: RecordedRequest) -> None:
        req.response_status = status
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("request-id", f"req_fake{req.index:06d}")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)
            self.wfile.flush()


def _sse_body(api: FakeAnthropicAPI, req: RecordedRequest, reply: Reply) -> bytes:
    """A scripted reply as the API's event stream: start, a start/delta/stop per block, end."""
    usage: dict[str, Any] = {"input_tokens": reply.input_tokens, "output_tokens": 1}
    usage.update(
        cache_creation_input_tokens=reply.cache_write_tokens,
        cache_read_input_tokens=reply.cache_read_tokens,
    )
    if reply.cache_1h_tokens:
        usage["cache_creation"] = {
            "ephemeral_5m_input_tokens": reply.cache_write_tokens - reply.cache_1h_tokens,
            "ephemeral_1h_input_tokens": reply.cache_1h_tokens,
        }
    head = {"id": api._next_id("msg"), "type": "message", "role": "assistant", "content": []}
    head.update(model=req._get("model") or "claude-fake", stop_reason=None, stop_sequence=None)
    events: list[dict[str, Any]] = [{"type": "message_start", "message": dict(head, usage=usage)}]
    events.append({"type": "ping"})
    for index, block in enumerate(reply.blocks):
        if isinstance(block, Text):
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block.text}
        else:
            tool_id = block.id or api._next_id("toolu")
            start = {"type": "tool_use", "id": tool_id, "name": block.name, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block.input)}
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    stop = {"stop_reason": reply.resolved_stop_reason(), "stop_sequence": None}
    end = {"output_tokens": reply.output_tokens}
    events.append({"type": "message_delta", "delta": stop, "usage": end})
    events.append({"type": "message_stop"})
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)
