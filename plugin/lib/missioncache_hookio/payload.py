"""Reading the JSON Claude Code pipes to a hook, trusting nothing in it.

Anything that is not a JSON object, or a field of the wrong type, is treated as absent:
a hook given bad input stays silent rather than guessing.
"""

from __future__ import annotations

import sys

from missioncache_state import lean_os as os
from missioncache_state.tuples import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO, NamedTuple

    from missioncache_state.ids import PromptId, SessionId

# Claude Code's own stdin payloads are small, but a Write tool_input can be megabytes;
# reading more than this is never useful to us and would only cost time.
MAX_PAYLOAD_BYTES = 16 * 1024 * 1024


if TYPE_CHECKING:

    class Identity(NamedTuple):
        session_id: SessionId | None
        cwd: str
        transcript_path: str | None
        prompt_id: PromptId | None

else:

    class Identity(namedtuple("Identity", "session_id cwd transcript_path prompt_id")):
        """Who is calling: the parsed session id (a ``SessionId``, or None when stdin had
        none or an invalid one), the project dir (str), the transcript (str or None), the
        parsed prompt id of the turn (a ``PromptId``, or None; UserPromptSubmit, Stop and
        StopFailure carry one).
        A light named tuple at run time (``missioncache_state.tuples``): ``typing`` costs
        milliseconds of imports on every prompt (the checker sees the typed form above)."""

        __slots__ = ()


def read_payload(stream: BinaryIO | None = None) -> dict[str, Any] | None:
    """The stdin payload as a dict, or None when it is not a JSON object."""
    from missioncache_state.json_codec import loads_small as loads

    source = stream if stream is not None else sys.stdin.buffer
    try:
        raw = source.read(MAX_PAYLOAD_BYTES + 1)
    except (OSError, ValueError):
        return None
    if not raw or len(raw) > MAX_PAYLOAD_BYTES:
        return None
    try:
        value = loads(raw.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):  # RecursionError: JSON nested thousands deep
        return None
    return value if isinstance(value, dict) else None


# The type Claude Code gives each field our hooks read (contract section 1). Lists are
# accepted for ``prompt`` because older versions sent content blocks.
FIELD_TYPES: dict[str, Any] = {
    "session_id": str,
    "transcript_path": str,
    "cwd": str,
    "hook_event_name": str,
    "source": str,
    "prompt": (str, list),
    "agent_id": str,
    "trigger": str,
    "custom_instructions": str,
    "compact_summary": str,
    "stop_hook_active": bool,
}


def well_typed(payload: dict[str, Any]) -> bool:
    """True when every known field present (and not null) has the type Claude Code gives
    it. A payload with a mistyped field did not come from the Claude Code we were built
    against: hooks stay silent rather than guess what it meant."""
    for key, expected in FIELD_TYPES.items():
        value = payload.get(key)
        if value is not None and not isinstance(value, expected):
            return False
    return True


def text_field(payload: dict[str, Any], key: str) -> str | None:
    """A string field, or None when absent, of another type, or holding a NUL."""
    value = payload.get(key)
    if isinstance(value, str) and "\x00" not in value:
        return value
    return None


def prose_field(payload: dict[str, Any], key: str) -> str | None:
    """A free-text string field (a compaction summary), None when absent or of another
    type. Unlike :func:`text_field` a NUL does not reject it: prose never becomes a path
    or an argument, and one stray NUL must not cost a whole summary. Each NUL is replaced
    by U+FFFD, so the reader sees that something was there."""
    value = payload.get(key)
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    return None


def identity(payload: dict[str, Any]) -> Identity:
    """The hook's identity from stdin: where a hook's session and prompt ids are parsed,
    once (the code after it takes the ``SessionId`` and ``PromptId``, and hands them on
    typed). An invalid id is absent; a cwd that is not an absolute existing directory
    falls back to the process cwd, which Claude Code sets to the same project directory."""
    from missioncache_state.ids import prompt_id_or_none, session_id_or_none

    cwd = text_field(payload, "cwd")
    if not cwd or not os.path.isabs(cwd) or not os.path.isdir(cwd):
        cwd = os.getcwd()
    transcript = text_field(payload, "transcript_path")
    if transcript and not os.path.isabs(transcript):
        transcript = None
    return Identity(
        session_id_or_none(payload.get("session_id")),
        cwd,
        transcript or None,
        prompt_id_or_none(payload.get("prompt_id")),
    )
