"""The http hook endpoints' payloads, parsed once into typed events.

Claude Code POSTs each hook's stdin JSON as the body (contract section 6). Anything
malformed is dropped silently: the answer is always ``{}``, so a hook is never failed or
slowed by what we make of it.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from missioncache_state.ids import PromptId, SessionId, prompt_id_or_none, session_id_or_none

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
MAX_BODY = 5 * 1024 * 1024  # a PostToolUse body carries the file's new text
MAX_NOTE = 1024 * 1024  # task-created: a task's name, with room to spare
MAX_SESSION_END = 1024 * 1024  # a SessionEnd payload: ids, a path and a reason


@dataclass(frozen=True)
class Edit:
    session_id: SessionId
    tool_use_id: str | None
    cwd: str | None


@dataclass(frozen=True)
class Prompt:
    session_id: SessionId
    prompt_id: PromptId | None
    prompt: str
    synthetic: bool
    cwd: str | None
    at: float


@dataclass(frozen=True)
class TurnEnd:
    session_id: SessionId
    cwd: str | None


@dataclass(frozen=True)
class SessionEnd:
    session_id: SessionId
    at: float


def parse_json(body: bytes) -> dict[str, Any] | None:
    if len(body) > MAX_BODY:
        return None
    try:
        value = json.loads(body.decode("utf-8")) if body.strip() else None
    except (UnicodeDecodeError, ValueError, RecursionError):  # nested 100,000 deep
        return None
    return value if isinstance(value, dict) else None


def _text(payload: dict[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) and value else None


def edit_event(payload: dict[str, Any]) -> Edit | None:
    """A PostToolUse of an editing tool, from a session with a valid id."""
    session = session_id_or_none(payload.get("session_id"))
    event = payload.get("hook_event_name", "PostToolUse")
    if session is None or event != "PostToolUse" or _text(payload, "tool_name") not in EDIT_TOOLS:
        return None
    tool_use_id = _text(payload, "tool_use_id")
    return Edit(session, tool_use_id[:200] if tool_use_id else None, _text(payload, "cwd"))


def heartbeat_event(payload: dict[str, Any]) -> Prompt | TurnEnd | None:
    """A counted UserPromptSubmit (the rules of data model 10.1, as the command hook
    applies them) or the Stop/StopFailure that ends the turn."""
    from missioncache_hookio.prompts import counted_prompt, is_synthetic

    session = session_id_or_none(payload.get("session_id"))
    if session is None:
        return None
    event = payload.get("hook_event_name")
    cwd = _text(payload, "cwd")
    if event in ("Stop", "StopFailure"):
        return None if payload.get("agent_id") else TurnEnd(session, cwd)
    if event != "UserPromptSubmit":
        return None
    prompt = counted_prompt(payload)
    if prompt is None:
        return None
    prompt_id = prompt_id_or_none(payload.get("prompt_id"))
    return Prompt(session, prompt_id, prompt, is_synthetic(prompt), cwd, time.time())


def session_end_event(payload: dict[str, Any]) -> SessionEnd | None:
    """Claude Code's SessionEnd (``/exit``, the end of a ``-p`` run, ``/clear`` for the
    session it leaves): the session no longer waits for anyone."""
    session = session_id_or_none(payload.get("session_id"))
    if session is None or payload.get("hook_event_name") != "SessionEnd":
        return None
    return SessionEnd(session, time.time())


def record_heartbeat(event: Prompt) -> None:
    """The second heartbeat path: stored with the uid the command hook gives the same
    prompt (``heartbeats.prompt_uid``), so a prompt both paths record counts once.
    Only with a prompt id: without one the two records could not be told apart."""
    from missioncache_db import open_if_set_up
    from missioncache_time import record_heartbeat_auto

    if event.prompt_id is None or event.cwd is None:
        return
    db = open_if_set_up(0.75)
    if db is None:
        return
    with db:
        kind = "synthetic" if event.synthetic else "prompt"
        record_heartbeat_auto(db, event.cwd, event.session_id, event.at, event.prompt_id, kind)
