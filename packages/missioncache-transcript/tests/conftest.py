"""A small builder of Claude Code-shaped transcripts (2.1.328 record shapes, trimmed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

# A copy of the real (sanitised) Claude Code 2.1.328 transcript from the product docs.
SAMPLE = Path(__file__).resolve().parent / "data" / "sample-transcript.jsonl"


class TranscriptBuilder:
    """Appends records the way Claude Code writes them: one JSON object a line.

    Assistant replies are written one content block per record, the blocks of one API
    message sharing ``message.id``, as the real CLI does.
    """

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self._count = 0
        self._parent: str | None = None

    # -- identifiers -------------------------------------------------------------
    def _next(self, prefix: str) -> str:
        self._count += 1
        return f"{prefix}_{self._count:04d}"

    def _common(self, kind: str, **extra) -> dict:
        uuid = self._next("uuid")
        record = {
            "parentUuid": self._parent,
            "isSidechain": False,
            "type": kind,
            "uuid": uuid,
            "timestamp": f"2026-11-29T13:{self._count // 60:02d}:{self._count % 60:02d}.000Z",
            "userType": "external",
            "entrypoint": "sdk-cli",
            "cwd": "/home/user/project",
            "sessionId": "62092ae1-ac2b-4203-bbca-0c567d602d25",
            "version": "2.1.328",
        }
        record.update(extra)
        self._parent = uuid
        return record

    # -- records -----------------------------------------------------------------
    def add(self, record: dict) -> TranscriptBuilder:
        self.lines.append(json.dumps(record).encode("utf-8"))
        return self

    def raw(self, line: bytes) -> TranscriptBuilder:
        self.lines.append(line)
        return self

    def user(self, content, **extra) -> TranscriptBuilder:
        message = {"role": "user", "content": content}
        return self.add(self._common("user", message=message, **extra))

    def prompt(self, text="please do it", **extra) -> TranscriptBuilder:
        self.add({"type": "queue-operation", "operation": "enqueue", "content": text})
        self.user(text, promptId=self._next("prompt"), permissionMode="acceptEdits", **extra)
        return self.attachment("hook_success")

    def meta(self, text="Stop hook feedback:\nplease continue") -> TranscriptBuilder:
        return self.user(text, isMeta=True)

    def assistant(self, block: dict, msg_id: str | None = None, **extra) -> TranscriptBuilder:
        message = {
            "id": msg_id or self._next("msg"),
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-5-5",
            "content": [block],
            "stop_reason": "tool_use" if block.get("type") == "tool_use" else "end_turn",
        }
        return self.add(self._common("assistant", message=message, **extra))

    def text(self, text: str, msg_id: str | None = None, **extra) -> TranscriptBuilder:
        return self.assistant({"type": "text", "text": text}, msg_id, **extra)

    def thinking(self, text: str, msg_id: str | None = None) -> TranscriptBuilder:
        return self.assistant({"type": "thinking", "thinking": text, "signature": "x"}, msg_id)

    def tool(self, name: str, params: dict, msg_id: str | None = None, **extra):
        """A tool_use record followed by its tool_result record."""
        tool_id = self._next("toolu")
        block = {"type": "tool_use", "id": tool_id, "name": name, "input": params}
        self.assistant(block, msg_id, **extra)
        result = [{"tool_use_id": tool_id, "type": "tool_result", "content": f"{name} ok"}]
        return self.user(result, toolUseResult={"type": "update"}, **extra)

    def edit(self, path: str, tool: str = "Edit", msg_id: str | None = None, **extra):
        key = "notebook_path" if tool == "NotebookEdit" else "file_path"
        params = {key: path, "old_string": "hi", "new_string": "hello", "replace_all": False}
        return self.tool(tool, params, msg_id, **extra)

    def read(self, path: str) -> TranscriptBuilder:
        return self.tool("Read", {"file_path": path})

    def attachment(self, kind: str = "date") -> TranscriptBuilder:
        return self.add(self._common("attachment", attachment={"type": kind, "content": ""}))

    def stop_summary(self) -> TranscriptBuilder:
        return self.add(self._common("system", subtype="stop_hook_summary", hookCount=1))

    def exchange(self, prompt: str, *edits: str, reply: str = "Done.") -> TranscriptBuilder:
        """A whole exchange: prompt, a Read, the given Edits, a closing text, the Stop summary."""
        self.prompt(prompt)
        self.read("/home/user/project/README.md")
        for path in edits:
            self.edit(path)
        return self.text(reply).stop_summary()

    # -- output ------------------------------------------------------------------
    def data(self, trailing_newline: bool = True) -> bytes:
        body = b"\n".join(self.lines)
        return body + b"\n" if trailing_newline and self.lines else body

    def write(self, path: Path, *, prefix: bytes = b"", trailing_newline: bool = True) -> Path:
        path.write_bytes(prefix + self.data(trailing_newline))
        return path


@pytest.fixture
def tx() -> TranscriptBuilder:
    return TranscriptBuilder()


@pytest.fixture
def sample_path() -> Path:
    return SAMPLE
