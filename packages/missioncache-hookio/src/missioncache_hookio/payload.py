"""Reading the JSON Claude Code pipes to a hook, trusting nothing in it.

Anything that is not a JSON object, or a field of the wrong type, is treated as absent:
a hook given bad input stays silent rather than guessing.
"""

from __future__ import annotations

import os
import sys
from typing import Any, BinaryIO, NamedTuple

# Claude Code's own stdin payloads are small, but a Write tool_input can be megabytes;
# reading more than this is never useful to us and would only cost time.
MAX_PAYLOAD_BYTES = 16 * 1024 * 1024


class Identity(NamedTuple):
    """Who is calling: the validated session id, the project dir, the transcript."""

    session_id: str | None
    cwd: str
    transcript_path: str | None


def read_payload(stream: BinaryIO | None = None) -> dict[str, Any] | None:
    """The stdin payload as a dict, or None when it is not a JSON object."""
    import json

    source = stream if stream is not None else sys.stdin.buffer
    try:
        raw = source.read(MAX_PAYLOAD_BYTES + 1)
    except (OSError, ValueError):
        return None
    if not raw or len(raw) > MAX_PAYLOAD_BYTES:
        return None
    try:
        value = json.loads(raw.decode("utf-8", errors="replace"))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def text_field(payload: dict[str, Any], key: str) -> str | None:
    """A string field, or None when absent, of another type, or holding a NUL."""
    value = payload.get(key)
    if isinstance(value, str) and "\x00" not in value:
        return value
    return None


def identity(payload: dict[str, Any]) -> Identity:
    """The hook's identity from stdin. An invalid session id is absent; a cwd that is
    not an absolute existing directory falls back to the process cwd, which Claude Code
    sets to the same project directory."""
    from missioncache_state.ids import session_id_or_none

    cwd = text_field(payload, "cwd")
    if not cwd or not os.path.isabs(cwd) or not os.path.isdir(cwd):
        cwd = os.getcwd()
    transcript = text_field(payload, "transcript_path")
    if transcript and not os.path.isabs(transcript):
        transcript = None
    return Identity(session_id_or_none(payload.get("session_id")), cwd, transcript or None)
