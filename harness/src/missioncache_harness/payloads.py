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
    cache_figures: bool = True,
) -> dict[str, Any]:
    """SessionStart: ``source``; resume adds cache figures; compact adds prompt_id and model.

    A resume whose session ended with a compaction (no reply since) carries no cache figures:
    ``cache_figures=False`` (measured on 2.1.328).
    """
    payload = {**base, "source": source}
    if source == "resume" and cache_figures:
        payload.update(
            seconds_since_last_response=0,
            context_tokens=0,
            prompt_cache_likely_expired=False,
            estimated_cache_write_usd=0,
        )
    if source == "compact":
        payload["prompt_id"] = prompt_id or new_id()
        payload["model"] = model
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
) -> dict[str, Any]:
    return {
        **base,
        "prompt_id": prompt_id,
        "permission_mode": permission_mode,
        "prompt": flatten_prompt(prompt),
    }


def stop(
    base: dict[str, Any],
    *,
    prompt_id: str,
    last_assistant_message: str,
    stop_hook_active: bool = False,
    permission_mode: str = "acceptEdits",
    background_tasks: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        **base,
        "prompt_id": prompt_id,
        "permission_mode": permission_mode,
        "effort": dict(EFFORT),
        "stop_hook_active": stop_hook_active,
        "last_assistant_message": last_assistant_message,
        "background_tasks": list(background_tasks or []),
        "session_crons": [],
    }


def stop_failure(
    base: dict[str, Any],
    *,
    prompt_id: str,
    error: str = "server_error",
    last_assistant_message: str = "API Error: 500 fake api_error 500.",
) -> dict[str, Any]:
    """StopFailure (contract 11.3): instead of Stop when a turn ends on an API error; no
    ``permission_mode``, ``error`` from the schema's enum, the error text as the message."""
    return {
        **base,
        "prompt_id": prompt_id,
        "effort": dict(EFFORT),
        "error": error,
        "last_assistant_message": last_assistant_message,
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


def statusline(
    *,
    session_id: str,
    transcript_path: str,
    cwd: str | Path,
    prompt_id: str | None = None,
    version: str = "2.1.328",
    lines_added: int = 0,
    session_name: str | None = None,
) -> dict[str, Any]:
    """The status-line command's stdin (contract 11.1): NOT a hook event, so no
    ``hook_event_name`` and no ``permission_mode``. 13 keys at startup; ``prompt_id`` and
    ``prompt_cache`` join after the first prompt (pass ``prompt_id``); ``session_name``
    only for a named session. ``harness/tests/data/statusline-stdin-2.1.328.json`` is the
    real CLI's, and the conformance test checks this shape against it."""
    started = prompt_id is None
    payload: dict[str, Any] = {
        "session_id": session_id,
        "transcript_path": transcript_path,
        "cwd": str(cwd),
    }
    if prompt_id is not None:
        payload["prompt_id"] = prompt_id
    if session_name is not None:
        payload["session_name"] = session_name
    payload.update(
        {
            "effort": dict(EFFORT),
            "model": {"id": DEFAULT_MODEL, "display_name": "Opus 5.5"},
            "workspace": {"current_dir": str(cwd), "project_dir": str(cwd), "added_dirs": []},
            "version": version,
            "output_style": {"name": "default"},
            "cost": {
                "total_cost_usd": 0 if started else 0.0007,
                "total_duration_ms": 800 if started else 22119,
                "total_api_duration_ms": 0 if started else 262,
                "total_lines_added": lines_added,
                "total_lines_removed": 0,
            },
            "context_window": {
                "total_input_tokens": 0 if started else 10,
                "total_output_tokens": 0 if started else 5,
                "context_window_size": 1000000,
                "current_usage": None
                if started
                else {
                    "input_tokens": 10,
                    "output_tokens": 5,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                },
                "used_percentage": None if started else 0,
                "remaining_percentage": None if started else 100,
            },
            "exceeds_200k_tokens": False,
        }
    )
    if not started:
        payload["prompt_cache"] = {
            "warm": False,
            "caching_observed": False,
            "ttl": "5m",
            "expires_at": None,
            "requests": 3,
            "misses": 0,
            "expected_rebuilds": 0,
            "hit_ratio": 0,
            "cache_write_tokens": 0,
            "miss_recache_tokens": 0,
            "last_miss_at": None,
            "last_miss_cause": None,
            "miss_causes": {},
            "recache_tokens_if_cold": 10,
        }
    payload["fast_mode"] = False
    payload["thinking"] = {"enabled": True}
    return payload
