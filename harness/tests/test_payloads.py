"""Stdin payloads carry exactly the fields of contract section 1."""

from __future__ import annotations

from missioncache_harness import payloads as p

COMMON = {"session_id", "transcript_path", "cwd", "hook_event_name"}


def base(event: str) -> dict:
    return p.common(event, session_id="s1", transcript_path="/c/projects/-w/s1.jsonl", cwd="/w")


def keys(payload: dict) -> set[str]:
    return set(payload) - COMMON


def test_common_fields():
    assert base("Stop") == {
        "session_id": "s1",
        "transcript_path": "/c/projects/-w/s1.jsonl",
        "cwd": "/w",
        "hook_event_name": "Stop",
    }


def test_cwd_key_and_transcript_path():
    assert p.cwd_key("/tmp/ccprobe/w_x.y z-1") == "-tmp-ccprobe-w-x-y-z-1"
    assert p.transcript_path("/h/.claude", "/home/user/project", "sid") == (
        "/h/.claude/projects/-home-user-project/sid.jsonl"
    )


def test_session_start_sources():
    assert keys(p.session_start(base("SessionStart"), "startup")) == {"source"}
    assert keys(p.session_start(base("SessionStart"), "resume")) == {
        "source",
        "seconds_since_last_response",
        "context_tokens",
        "prompt_cache_likely_expired",
        "estimated_cache_write_usd",
    }
    compact = p.session_start(base("SessionStart"), "compact", prompt_id="p1")
    assert keys(compact) == {"source", "prompt_id", "model"}
    assert compact["model"] == "claude-opus-5-5"
    assert keys(p.session_start(base("SessionStart"), "clear")) == {"source"}


def test_user_prompt_submit_prompt_is_always_a_string():
    payload = p.user_prompt_submit(base("UserPromptSubmit"), "hi", prompt_id="p1")
    assert keys(payload) == {"prompt_id", "permission_mode", "prompt"}
    blocks = [
        {"type": "text", "text": "first block"},
        {"type": "image", "source": {}},
        {"type": "text", "text": "second block"},
    ]
    flat = p.user_prompt_submit(base("UserPromptSubmit"), blocks, prompt_id="p1")
    assert flat["prompt"] == "first block\nsecond block"
    assert p.flatten_prompt([{"type": "image"}]) == ""


def test_stop_fields():
    payload = p.stop(base("Stop"), prompt_id="p1", last_assistant_message="done")
    assert keys(payload) == {
        "prompt_id",
        "permission_mode",
        "effort",
        "stop_hook_active",
        "last_assistant_message",
        "background_tasks",
        "session_crons",
    }
    assert payload["effort"] == {"level": "medium"}
    assert payload["stop_hook_active"] is False
    assert payload["background_tasks"] == [] and payload["session_crons"] == []


def test_stop_failure_fields():
    """Measured on 2.1.328 (contract 11.3): no permission_mode, an ``error``, the error text."""
    payload = p.stop_failure(base("StopFailure"), prompt_id="p1", error="rate_limit")
    assert keys(payload) == {"prompt_id", "effort", "error", "last_assistant_message"}
    assert payload["error"] == "rate_limit"
    assert p.stop_failure(base("StopFailure"), prompt_id="p1")["error"] == "server_error"


def test_compaction_and_end_fields():
    pre = p.pre_compact(base("PreCompact"), prompt_id="p1")
    assert keys(pre) == {"prompt_id", "trigger", "custom_instructions"}
    assert pre["custom_instructions"] is None and pre["trigger"] == "manual"
    post = p.post_compact(base("PostCompact"), prompt_id="p1", trigger="auto", compact_summary="s")
    assert keys(post) == {"prompt_id", "trigger", "compact_summary"}
    assert keys(p.session_end(base("SessionEnd"))) == {"reason"}
    assert p.session_end(base("SessionEnd"), reason="clear", prompt_id="p")["reason"] == "clear"
    assert keys(p.session_end(base("SessionEnd"), prompt_id="p")) == {"reason", "prompt_id"}
