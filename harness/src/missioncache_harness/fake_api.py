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

Measured on 2.1.328 in `-p` mode with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1: the CLI sends
only `POST /v1/messages?beta=true` with `"stream": true` (main turns and compaction); without that
variable it also sends `HEAD /api/hello` (answered 200). Anything unknown gets a 404 JSON error and
shows up in `unhandled_requests()`.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from missioncache_harness.tools import Text

DEFAULT_TEXT = "Done."
DEFAULT_SUMMARY = (
    "<analysis>\nThe user asked for scripted work; it was done.\n</analysis>\n"
    "<summary>\n1. Primary Request and Intent: scripted test session.\n"
    "2. Pending Tasks: none.\n</summary>"
)
# The CLI's compaction prompt ends with this request (measured on 2.1.328); matched loosely.
COMPACT_MARKERS = (
    "create a detailed summary of the conversation",
    "Your task is to create a detailed summary",
)
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


Block = Text | ToolUse


@dataclass(frozen=True)
class Reply:
    """One scripted model response. `stop_reason` defaults to tool_use/end_turn from the blocks."""

    blocks: tuple[Block, ...]
    stop_reason: str | None = None
    input_tokens: int = 100
    output_tokens: int = 20
    # Answer with this HTTP error instead (e.g. 500): an API error. Claude Code retries (each
    # retry takes the next scripted reply), then fires StopFailure instead of Stop.
    error_status: int = 0

    def resolved_stop_reason(self) -> str:
        if self.stop_reason:
            return self.stop_reason
        return "tool_use" if any(isinstance(b, ToolUse) for b in self.blocks) else "end_turn"


ReplyLike = Reply | Block | str | Iterable[Block | str]


def as_reply(value: ReplyLike) -> Reply:
    """Accept the convenient spellings of a reply: a Reply, one block, a string, or a block list."""
    if isinstance(value, Reply):
        return value
    if isinstance(value, str):
        return Reply((Text(value),))
    if isinstance(value, Text | ToolUse):
        return Reply((value,))
    blocks = tuple(Text(b) if isinstance(b, str) else b for b in value)
    return Reply(blocks)


@dataclass(frozen=True)
class ModelText:
    """One piece of text the model received: where it sat and what it said."""

    request_index: int
    kind: str
    role: str  # "system" for the top-level system prompt, else the message role
    location: str  # e.g. "system[0]", "messages[1].content[0]", "messages[3].content[0].content"
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

    @property
    def messages(self) -> list[dict[str, Any]]:
        msgs = self.body.get("messages") if isinstance(self.body, dict) else None
        return msgs if isinstance(msgs, list) else []

    @property
    def model(self) -> str:
        return str(self.body.get("model", "")) if isinstance(self.body, dict) else ""

    @property
    def tool_names(self) -> list[str]:
        tools = self.body.get("tools") if isinstance(self.body, dict) else None
        return [t.get("name", "") for t in tools or [] if isinstance(t, dict)]

    def last_user_text(self) -> str:
        """The text of the last user message (how compaction and side requests are told apart)."""
        for msg in reversed(self.messages):
            if msg.get("role") == "user":
                return "\n".join(t for _, t in _content_texts(msg.get("content"), ""))
        return ""

    def texts(self) -> list[ModelText]:
        """Every system string and message text block of this request, in order."""
        if not isinstance(self.body, dict):
            return []
        out = [
            ModelText(self.index, self.kind, "system", loc, text)
            for loc, text in _content_texts(self.body.get("system"), "system")
        ]
        for i, msg in enumerate(self.messages):
            role = str(msg.get("role", ""))
            for loc, text in _content_texts(msg.get("content"), f"messages[{i}].content"):
                out.append(ModelText(self.index, self.kind, role, loc, text))
        return out

    def tool_results(self) -> list[dict[str, Any]]:
        """The tool_result blocks this request carries (the CLI's answer to a scripted ToolUse)."""
        found = []
        for msg in self.messages:
            content = msg.get("content")
            if isinstance(content, list):
                found += [
                    b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
                ]
        return found


def _content_texts(content: Any, loc: str) -> Iterator[tuple[str, str]]:
    """Yield (location, text) for a string, a text block, or a list of blocks (tool results too)."""
    if isinstance(content, str):
        yield loc, content
    elif isinstance(content, list):
        for i, block in enumerate(content):
            yield from _content_texts(block, f"{loc}[{i}]")
    elif isinstance(content, dict):
        if isinstance(content.get("text"), str):
            yield loc, content["text"]
        elif content.get("type") == "tool_result":
            yield from _content_texts(content.get("content"), f"{loc}.content")


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
    last = req.last_user_text().lower()
    if any(m.lower() in last for m in COMPACT_MARKERS):
        return COMPACT
    if req.tool_names:
        return MAIN
    max_tokens = req.body.get("max_tokens") if isinstance(req.body, dict) else None
    small = isinstance(max_tokens, int) and max_tokens <= SIDE_MAX_TOKENS
    return SIDE if small or "haiku" in req.model.lower() else MAIN


class FakeAnthropicAPI:
    """Messages API stand-in on 127.0.0.1 (ephemeral port), served from a background thread.

    Use as a context manager; `base_url` goes into ANTHROPIC_BASE_URL. Main-conversation replies
    come from the queue, then `default_text`.
    Compaction gets `compact_summary` (a string, or a callable of the request); side requests get
    `side_text`. Neither consumes the queue.
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
        self._thread: threading.Thread | None = None
        self._port: int | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> FakeAnthropicAPI:
        handler = type("_BoundHandler", (_Handler,), {"api": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._port = int(self._server.server_address[1])
        # A short poll keeps stop() quick (shutdown waits for the loop's next poll).
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeAnthropicAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port; still answers after stop() so tests can compare recorded URLs."""
        if self._port is None:
            raise RuntimeError("FakeAnthropicAPI was never started")
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- scripting -------------------------------------------------------------------------
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
            return Reply((Text(summary(req) if callable(summary) else summary),))
        if req.kind == SIDE:
            return Reply((Text(self.side_text),))
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return Reply((Text(self.default_text),))

    def _next_id(self, prefix: str) -> str:
        return f"{prefix}_fake{next(self._ids):06d}"

    # -- recording and queries ---------------------------------------------------------------
    def _record(self, req: RecordedRequest) -> None:
        with self._lock:
            req.index = len(self.requests)
            self.requests.append(req)

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

    def text_blocks(self, *kinds: str) -> list[ModelText]:
        """Every text the model was given, with its request, role and location."""
        return [t for r in self.message_requests(*kinds) for t in r.texts()]

    def model_texts(self, *kinds: str) -> list[str]:
        """Every system string and message text the model was sent (optionally of some kinds)."""
        return [t.text for t in self.text_blocks(*kinds)]

    def find_texts(self, needle: str, *kinds: str) -> list[ModelText]:
        """The model texts containing `needle`."""
        return [t for t in self.text_blocks(*kinds) if needle in t.text]

    def search(self, needle: str) -> list[RecordedRequest]:
        """Recorded requests whose path or raw body contains `needle` (also JSON-escaped)."""
        escaped = json.dumps(needle)[1:-1]
        hits = []
        for r in list(self.requests):
            raw = r.raw.decode("utf-8", "replace")
            if needle in r.path or needle in raw or escaped in raw:
                hits.append(r)
        return hits


class _Handler(BaseHTTPRequestHandler):
    """Serves one connection; the bound subclass carries the owning FakeAnthropicAPI as `api`."""

    api: FakeAnthropicAPI
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr access log; requests are recorded instead."""

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_HEAD(self) -> None:
        self._handle()

    def _read_body(self) -> bytes:
        """The request body (the CLI sends plain JSON with a Content-Length; no compression)."""
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        raw = self._read_body()
        req = RecordedRequest(
            index=-1,
            method=self.command,
            path=parts.path,
            query=parse_qs(parts.query),
            headers={k.lower(): v for k, v in self.headers.items()},
            raw=raw,
        )
        try:
            req.body = json.loads(raw) if raw else None
        except ValueError:
            req.body = None
        req.kind = classify_request(req)
        self.api._record(req)
        if req.path == "/api/hello":  # connectivity probe (sent unless nonessential traffic is off)
            self._send_json(200, {}, req)
        elif req.kind == COUNT_TOKENS:
            self._send_json(200, {"input_tokens": max(1, len(raw) // 4)}, req)
        elif req.kind in (MAIN, COMPACT, SIDE):
            self._answer_messages(req)
        else:
            err = {"type": "not_found_error", "message": f"fake API: no route {parts.path}"}
            self._send_json(404, {"type": "error", "error": err}, req)

    def _answer_messages(self, req: RecordedRequest) -> None:
        reply = self.api._reply_for(req)
        req.reply = reply
        if reply.error_status:
            err = {"type": "api_error", "message": f"fake api_error {reply.error_status}"}
            self._send_json(reply.error_status, {"type": "error", "error": err}, req)
            return
        message = _message_json(self.api, req, reply)
        if isinstance(req.body, dict) and req.body.get("stream"):
            self._send(200, "text/event-stream", _sse_body(message), req)
        else:
            self._send_json(200, message, req)

    def _send_json(self, status: int, obj: Any, req: RecordedRequest) -> None:
        self._send(status, "application/json", json.dumps(obj).encode(), req)

    def _send(self, status: int, ctype: str, payload: bytes, req: RecordedRequest) -> None:
        req.response_status = status
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("request-id", f"req_fake{req.index:06d}")
        if ctype == "text/event-stream":
            self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)
            self.wfile.flush()


def _message_json(api: FakeAnthropicAPI, req: RecordedRequest, reply: Reply) -> dict[str, Any]:
    """The complete (non-streaming) Messages API response for a scripted reply."""
    content: list[dict[str, Any]] = []
    for block in reply.blocks:
        if isinstance(block, Text):
            content.append({"type": "text", "text": block.text})
        else:
            tool_id = block.id or api._next_id("toolu")
            content.append(
                {"type": "tool_use", "id": tool_id, "name": block.name, "input": block.input}
            )
    return {
        "id": api._next_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": req.model or "claude-fake",
        "content": content,
        "stop_reason": reply.resolved_stop_reason(),
        "stop_sequence": None,
        "usage": {
            "input_tokens": reply.input_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": reply.output_tokens,
        },
    }


def _sse_event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def _sse_body(message: dict[str, Any]) -> bytes:
    """The same message as the API's event stream: start, one start/delta/stop per block, end."""
    usage = message["usage"]
    head = dict(message, content=[], stop_reason=None, stop_sequence=None)
    head["usage"] = dict(usage, output_tokens=1)
    events = [_sse_event("message_start", {"type": "message_start", "message": head})]
    events.append(_sse_event("ping", {"type": "ping"}))
    for i, block in enumerate(message["content"]):
        events += _block_events(i, block)
    delta = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    events.append(
        _sse_event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": delta,
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        )
    )
    events.append(_sse_event("message_stop", {"type": "message_stop"}))
    return b"".join(events)


def _block_events(index: int, block: dict[str, Any]) -> list[bytes]:
    if block["type"] == "text":
        start = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    else:
        start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    return [
        _sse_event(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        ),
        _sse_event(
            "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        ),
        _sse_event("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]
