"""The fake Messages API speaks the wire format the CLI expects and records what it was sent.

These tests talk to the server over real loopback HTTP (urllib), as the CLI does.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from missioncache_harness.fake_api import (
    COMPACT,
    COUNT_TOKENS,
    DEFAULT_TEXT,
    MAIN,
    SIDE,
    FakeAnthropicAPI,
    Reply,
    Text,
    ToolUse,
    as_reply,
)

COMPACT_PROMPT = (
    "CRITICAL: Respond with TEXT ONLY.\n\nYour task is to create a detailed summary of the "
    "conversation so far, paying close attention to the user's explicit requests."
)
TOOLS = [{"name": "Write", "input_schema": {"type": "object"}}]


def post(api: FakeAnthropicAPI, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
    """POST JSON like the CLI does; returns (status, content type, raw body)."""
    req = urllib.request.Request(
        api.base_url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "x-api-key": "sk-test-dummy"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.headers["Content-Type"], resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers["Content-Type"], err.read()


def turn(
    api: FakeAnthropicAPI, prompt: str = "hi", *, stream: bool = True, **extra: Any
) -> tuple[int, str, bytes]:
    body = {
        "model": "claude-opus-5-5",
        "max_tokens": 128000,
        "stream": stream,
        "tools": TOOLS,
        "messages": [{"role": "user", "content": prompt}],
        **extra,
    }
    return post(api, "/v1/messages?beta=true", body)


def sse_events(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    """Parse a server-sent event stream into (event name, data) pairs."""
    events = []
    for chunk in raw.decode().split("\n\n"):
        if not chunk.strip():
            continue
        fields = dict(line.split(": ", 1) for line in chunk.splitlines())
        data = json.loads(fields["data"])
        assert data["type"] == fields["event"]
        events.append((fields["event"], data))
    return events


def assemble(events: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Rebuild content blocks from deltas, the way an SDK client does."""
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    for name, data in events:
        if name == "content_block_start":
            blocks[data["index"]] = dict(data["content_block"])
        elif name == "content_block_delta":
            delta = data["delta"]
            if delta["type"] == "text_delta":
                blocks[data["index"]]["text"] += delta["text"]
            else:
                partial[data["index"]] = partial.get(data["index"], "") + delta["partial_json"]
        elif name == "content_block_stop" and data["index"] in partial:
            blocks[data["index"]]["input"] = json.loads(partial[data["index"]])
    return [blocks[i] for i in sorted(blocks)]


def test_stream_is_the_messages_api_event_sequence_with_tool_use() -> None:
    write = ToolUse("Write", {"file_path": "/tmp/x.txt", "content": 'line "1"\nline 2\n'})
    with FakeAnthropicAPI([[Text("Writing it."), write]]) as api:
        status, ctype, raw = turn(api, "WRITEFILE please")
    assert status == 200
    assert ctype == "text/event-stream"
    events = sse_events(raw)
    names = [name for name, _ in events]
    block = ["content_block_start", "content_block_delta", "content_block_stop"]
    assert names == ["message_start", "ping", *block, *block, "message_delta", "message_stop"]
    start = events[0][1]["message"]
    assert start["role"] == "assistant"
    assert start["content"] == []
    assert start["model"] == "claude-opus-5-5"
    assert start["id"].startswith("msg_")
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"
    assert events[-2][1]["usage"]["output_tokens"] > 0
    text, tool = assemble(events)
    assert text == {"type": "text", "text": "Writing it."}
    assert tool["type"] == "tool_use"
    assert tool["name"] == "Write"
    assert tool["input"] == write.input
    assert tool["id"].startswith("toolu_")


def test_text_only_reply_ends_the_turn_and_a_scripted_stop_reason_is_kept() -> None:
    with FakeAnthropicAPI(["Streamed.", Reply((Text("Whole."),), stop_reason="max_tokens")]) as api:
        events = sse_events(turn(api)[2])
        status, ctype, raw = turn(api, stream=False)
    assert events[-2][1]["delta"]["stop_reason"] == "end_turn"
    assert assemble(events) == [{"type": "text", "text": "Streamed."}]
    assert status == 200
    assert ctype == "text/event-stream"  # the CLI always streams (measured); so does the fake
    events = sse_events(raw)
    assert assemble(events) == [{"type": "text", "text": "Whole."}]
    assert events[-2][1]["delta"]["stop_reason"] == "max_tokens"
    assert set(events[0][1]["message"]["usage"]) >= {"input_tokens", "output_tokens"}


def test_script_is_served_in_order_then_the_default_text() -> None:
    with FakeAnthropicAPI(["first"]) as api:
        api.enqueue(
            "second", ToolUse("Edit", {"file_path": "/a", "old_string": "x", "new_string": "y"})
        )
        assert api.pending == 3
        replies = [assemble(sse_events(turn(api)[2])) for _ in range(4)]
        assert api.pending == 0
    assert replies[0][0]["text"] == "first"
    assert replies[1][0]["text"] == "second"
    assert replies[2][0]["name"] == "Edit"
    assert replies[3] == [{"type": "text", "text": DEFAULT_TEXT}]


def test_tool_ids_are_unique_unless_scripted() -> None:
    script = [ToolUse("Write", {}), ToolUse("Write", {}), ToolUse("Write", {}, id="toolu_mine")]
    with FakeAnthropicAPI(script) as api:
        ids = [assemble(sse_events(turn(api)[2]))[0]["id"] for _ in range(3)]
    assert len(set(ids)) == 3
    assert ids[2] == "toolu_mine"


def test_compaction_gets_a_summary_without_consuming_the_script() -> None:
    with FakeAnthropicAPI(["scripted turn"]) as api:
        default = assemble(sse_events(turn(api, COMPACT_PROMPT)[2]))[0]["text"]
        api.compact_summary = lambda req: f"<analysis>a</analysis>\n<summary>{req.index}</summary>"
        custom = assemble(sse_events(turn(api, COMPACT_PROMPT)[2]))[0]["text"]
        assert api.pending == 1
        assert [r.kind for r in api.requests] == [COMPACT, COMPACT]
        assert api.compaction_requests() == api.requests
        assert api.main_requests() == []
    assert default.startswith("<analysis>")
    assert "</analysis>" in default
    assert "<summary>" in default
    assert default.endswith("</summary>")
    assert custom == "<analysis>a</analysis>\n<summary>1</summary>"


def test_side_requests_are_answered_without_consuming_the_script() -> None:
    quota = {
        "model": "claude-haiku-4-5",
        "max_tokens": 1,
        "messages": [{"role": "user", "content": "quota"}],
    }
    title = dict(quota, model="claude-opus-5-5", max_tokens=512)
    no_tools_turn = {
        "model": "claude-opus-5-5",
        "max_tokens": 128000,
        "messages": [{"role": "user", "content": "run with --tools ''"}],
    }
    with FakeAnthropicAPI(["for the main loop"], side_text="A title") as api:
        quota_reply = assemble(sse_events(post(api, "/v1/messages?beta=true", quota)[2]))
        post(api, "/v1/messages?beta=true", title)
        assert api.pending == 1
        main_reply = assemble(sse_events(post(api, "/v1/messages", no_tools_turn)[2]))
    assert quota_reply == [{"type": "text", "text": "A title"}]
    assert main_reply == [{"type": "text", "text": "for the main loop"}]
    assert [r.kind for r in api.requests] == [SIDE, SIDE, MAIN]


def test_count_tokens_answers_and_unknown_routes_are_404_json_errors() -> None:
    with FakeAnthropicAPI() as api:
        status, _, raw = post(api, "/v1/messages/count_tokens?beta=true", {"messages": []})
        assert status == 200
        assert json.loads(raw)["input_tokens"] >= 1
        status, ctype, raw = post(api, "/v1/models", {})
        assert status == 404
        assert ctype == "application/json"
        error = json.loads(raw)
        with urllib.request.urlopen(api.base_url + "/api/hello", timeout=10) as resp:
            assert resp.status == 200
    assert error["type"] == "error"
    assert error["error"]["type"] == "not_found_error"
    assert [r.kind for r in api.requests][:1] == [COUNT_TOKENS]
    assert [r.path for r in api.unhandled_requests()] == ["/v1/models"]
    assert api.message_requests() == []


def test_every_request_is_recorded_with_path_query_headers_and_body() -> None:
    with FakeAnthropicAPI() as api:
        turn(api, "hello there")
    (req,) = api.requests
    assert req.method == "POST"
    assert req.path == "/v1/messages"
    assert req.query == {"beta": ["true"]}
    assert req.headers["x-api-key"] == "sk-test-dummy"
    assert req.body["messages"] == [{"role": "user", "content": "hello there"}]
    assert req.kind == MAIN
    assert req.response_status == 200
    assert req.reply == Reply((Text(DEFAULT_TEXT),))
    assert req.tool_names == ["Write"]


def test_model_texts_cover_system_messages_and_tool_results() -> None:
    body = {
        "model": "claude-opus-5-5",
        "max_tokens": 128000,
        "stream": True,
        "tools": TOOLS,
        "system": [{"type": "text", "text": "SYSTEM PROMPT"}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": 'say "hi"\nplease'}]},
            {"role": "system", "content": "UserPromptSubmit hook success: CTX"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": "W", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t", "content": "File created"}],
            },
        ],
    }
    with FakeAnthropicAPI() as api:
        post(api, "/v1/messages?beta=true", body)
        post(
            api,
            "/v1/messages?beta=true",
            dict(body, system="PLAIN SYSTEM", messages=body["messages"][:1]),
        )
    texts = api.model_texts()
    assert texts[:4] == [
        "SYSTEM PROMPT",
        'say "hi"\nplease',
        "UserPromptSubmit hook success: CTX",
        "File created",
    ]
    assert "PLAIN SYSTEM" in texts
    assert api.find_texts("hook success: CTX") == [(0, "UserPromptSubmit hook success: CTX")]
    assert [hit.request_index for hit in api.find_texts('say "hi"')] == [0, 1]
    assert api.find_texts("nowhere") == []
    assert api.model_texts(COMPACT) == []


def test_reply_spellings_and_ephemeral_ports() -> None:
    write = ToolUse("Write", {"file_path": "/x"})
    assert as_reply("hi") == Reply((Text("hi"),))
    assert as_reply(write) == Reply((write,))
    assert as_reply(["a", write]) == Reply((Text("a"), write))
    assert as_reply(["a", write]).resolved_stop_reason() == "tool_use"
    with FakeAnthropicAPI() as one, FakeAnthropicAPI() as two:
        assert one.port != two.port
        assert one.base_url.startswith("http://127.0.0.1:")
        url = one.base_url
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url + "/api/hello", timeout=5)
    assert one.base_url == url
    with pytest.raises(RuntimeError):
        _ = FakeAnthropicAPI().port
