"""The stdin JSON Claude Code sends each hook event (contract section 1).

WHY exact shapes: hooks parse these objects, and the conformance tier compares them with what the
real CLI sends, so field names, value types and which fields are absent matter. Every builder
returns a fresh dict; optional fields appear only when Claude Code would send them.
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

EFFORT = {"level": "medium"}
DEFAULT_MODEL = "claude-opus-5-5"


def cwd_key(cwd: str | Path) -> str:
    """The transcript folder name for a cwd: every non-alphanumeric character becomes ``-``."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def transcript_path(claude_dir: str | Path, cwd: str | Path, session_id: str) -> str:
    """``<claude>/projects/<cwd-key>/<session-id>.jsonl``."""
    return str(Path(claude_dir) / "projects" / cwd_key(cwd) / f"{session_id}.jsonl")


def new_id() -> str:
    return str(uuid.uuid4())


def common(event: str, *, session_id: str, transcript_path: str, cwd: str) -> dict[str, Any]:
    """The four fields every event carries."""
    return {
        "session_id": session_id,
        "transcript_path": transcript_path,
        "cwd": str(cwd),
        "hook_event_name": event,
    }


def session_start(
    base: dict[str, Any],
    source: str = "startup",
    *,
    prompt_id: str | None = None,
    model: str = DEFAULT_MODEL,
    session_title: str | None = None,
    seconds_since_last_response: float = 0,
    context_tokens: int = 0,
    cache_figures: bool = True,
) -> dict[str, Any]:
    """SessionStart: ``source``; resume adds cache figures; compact adds prompt_id and model.

    A resume whose session ended with a compaction (no reply since) carries no cache figures:
    ``cache_figures=False`` (measured on 2.1.328).
    """
    payload = {**base, "source": source}
    if source == "resume" and cache_figures:
        payload.update(
            seconds_since_last_response=seconds_since_last_response,
            context_tokens=context_tokens,
            prompt_cache_likely_expired=seconds_since_last_response > 300,
            estimated_cache_write_usd=0,
        )
    if source == "compact":
        payload["prompt_id"] = prompt_id or new_id()
        payload["model"] = model
    if session_title is not None and source == "startup":
        payload["session_title"] = session_title
    return payload


def flatten_prompt(prompt: str | list[Any]) -> str:
    """UserPromptSubmit's ``prompt`` is always a string: text blocks joined with newlines."""
    if isinstance(prompt, str):
        return prompt
    texts = [
        str(block.get("text", ""))
        for block in prompt
        if isinstance(block, dict) and block.get("type") == "text"
    ]
    return "\n".join(texts)


def user_prompt_submit(
    base: dict[str, Any],
    prompt: str | list[Any],
    *,
    prompt_id: str,
    permission_mode: str = "acceptEdits",
    session_title: str | None = None,
) -> dict[str, Any]:
    payload = {
        **base,
        "prompt_id": prompt_id,
        "permission_mode": permission_mode,
        "prompt": flatten_prompt(prompt),
    }
    if session_title is not None:
        payload["session_title"] = session_title
    return payload


def stop(
    base: dict[str, Any],
    *,
    prompt_id: str,
    last_assistant_message: str,
    stop_hook_active: bool = False,
    permission_mode: str = "acceptEdits",
    background_tasks: list[dict[str, Any]] | None = None,
    session_crons: list[Any] | None = None,
) -> dict[str, Any]:
    return {
        **base,
        "prompt_id": prompt_id,
        "permission_mode": permission_mode,
        "effort": dict(EFFORT),
        "stop_hook_active": stop_hook_active,
        "last_assistant_message": last_assistant_message,
        "background_tasks": list(background_tasks or []),
        "session_crons": list(session_crons or []),
    }


def new_agent_id() -> str:
    """Agent ids look like ``a5637faacebf144b0``: ``a`` and 16 hex digits."""
    return "a" + uuid.uuid4().hex[:16]


def agent_transcript_path(transcript: str, agent_id: str) -> str:
    """``…/<session_id>/subagents/agent-<agent_id>.jsonl`` beside the main transcript."""
    path = Path(transcript)
    return str(path.parent / path.stem / "subagents" / f"agent-{agent_id}.jsonl")


def subagent_stop(
    base: dict[str, Any],
    *,
    prompt_id: str,
    agent_id: str,
    agent_type: str,
    last_assistant_message: str,
    stop_hook_active: bool = False,
    permission_mode: str = "acceptEdits",
) -> dict[str, Any]:
    """SubagentStop; compaction fires it with ``agent_type: ""`` (the forked summariser)."""
    return {
        **base,
        "prompt_id": prompt_id,
        "permission_mode": permission_mode,
        "agent_id": agent_id,
        "agent_type": agent_type,
        "effort": dict(EFFORT),
        "stop_hook_active": stop_hook_active,
        "agent_transcript_path": agent_transcript_path(base["transcript_path"], agent_id),
        "last_assistant_message": last_assistant_message,
        "background_tasks": [],
        "session_crons": [],
    }


def pre_compact(
    base: dict[str, Any],
    *,
    prompt_id: str,
    trigger: str = "manual",
    custom_instructions: str | None = None,
) -> dict[str, Any]:
    """PreCompact: ``custom_instructions`` is null unless text followed ``/compact``."""
    return {
        **base,
        "prompt_id": prompt_id,
        "trigger": trigger,
        "custom_instructions": custom_instructions,
    }


def post_compact(
    base: dict[str, Any], *, prompt_id: str, trigger: str, compact_summary: str
) -> dict[str, Any]:
    return {**base, "prompt_id": prompt_id, "trigger": trigger, "compact_summary": compact_summary}


def session_end(
    base: dict[str, Any], *, reason: str = "other", prompt_id: str | None = None
) -> dict[str, Any]:
    """SessionEnd: ``prompt_id`` only when the session had a prompt."""
    payload = dict(base)
    if prompt_id is not None:
        payload["prompt_id"] = prompt_id
    payload["reason"] = reason
    return payload


def pre_tool_use(
    base: dict[str, Any],
    *,
    tool_name: str,
    tool_input: dict[str, Any],
    tool_use_id: str,
    prompt_id: str | None = None,
    permission_mode: str = "acceptEdits",
) -> dict[str, Any]:
    payload = dict(base)
    if prompt_id is not None:
        payload["prompt_id"] = prompt_id
    payload.update(
        permission_mode=permission_mode,
        effort=dict(EFFORT),
        tool_name=tool_name,
        tool_input=tool_input,
        tool_use_id=tool_use_id,
    )
    return payload


def post_tool_use(
    base: dict[str, Any],
    *,
    tool_name: str,
    tool_input: dict[str, Any],
    tool_use_id: str,
    tool_response: Any,
    duration_ms: int = 0,
    prompt_id: str | None = None,
    permission_mode: str = "acceptEdits",
) -> dict[str, Any]:
    payload = pre_tool_use(
        base,
        tool_name=tool_name,
        tool_input=tool_input,
        tool_use_id=tool_use_id,
        prompt_id=prompt_id,
        permission_mode=permission_mode,
    )
    payload["hook_event_name"] = "PostToolUse"
    payload["tool_response"] = tool_response
    payload["duration_ms"] = duration_ms
    return payload


def for_event(event: str, base: dict[str, Any], **options: Any) -> dict[str, Any]:
    """A plausible payload for any event, for ``missioncache-harness fire`` and quick tests."""
    prompt_id = options.get("prompt_id") or new_id()
    if event == "SessionStart":
        return session_start(base, options.get("source") or "startup", prompt_id=prompt_id)
    if event == "UserPromptSubmit":
        return user_prompt_submit(base, options.get("prompt") or "", prompt_id=prompt_id)
    if event == "Stop":
        return stop(base, prompt_id=prompt_id, last_assistant_message=options.get("reply", ""))
    if event == "SubagentStop":
        return subagent_stop(
            base,
            prompt_id=prompt_id,
            agent_id=new_agent_id(),
            agent_type=options.get("agent_type", ""),
            last_assistant_message=options.get("reply", ""),
        )
    if event == "PreCompact":
        return pre_compact(
            base,
            prompt_id=prompt_id,
            trigger=options.get("trigger") or "manual",
            custom_instructions=options.get("custom_instructions"),
        )
    if event == "PostCompact":
        return post_compact(
            base,
            prompt_id=prompt_id,
            trigger=options.get("trigger") or "manual",
            compact_summary=options.get("summary", ""),
        )
    if event == "SessionEnd":
        return session_end(base, reason=options.get("reason") or "other", prompt_id=prompt_id)
    if event in ("PreToolUse", "PostToolUse"):
        tool = dict(
            tool_name=options.get("tool_name") or "Write",
            tool_input=options.get("tool_input") or {},
            tool_use_id=options.get("tool_use_id") or "toolu_01",
            prompt_id=prompt_id,
        )
        if event == "PreToolUse":
            return pre_tool_use(base, **tool)
        return post_tool_use(base, tool_response=options.get("tool_response") or {}, **tool)
    return {**base, "prompt_id": prompt_id}
