import io
import subprocess
import sys
import textwrap

import pytest

from missioncache_hookio import output, payload, prompts


def parse(raw: bytes):
    return payload.read_payload(io.BytesIO(raw))


@pytest.mark.parametrize(
    "raw", [b"", b"not json", b"[]", b'"s"', b"null", b"3", b'{"a": 1', b"\xff\xfe{}"]
)
def test_non_objects_are_none(raw):
    assert parse(raw) is None


def test_object_with_invalid_utf8_still_parses():
    assert parse(b'{"prompt": "a\xffb"}') == {"prompt": "a\ufffdb"}


def test_oversized_payload_is_none():
    big = b'{"prompt": "' + b"x" * payload.MAX_PAYLOAD_BYTES + b'"}'
    assert parse(big) is None


def test_identity_validates_everything(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ident = payload.identity(
        {
            "session_id": "../x",
            "cwd": "relative",
            "transcript_path": "rel.jsonl",
            "prompt_id": "../p",
        }
    )
    assert ident == payload.Identity(None, str(tmp_path), None, None)
    good = payload.identity(
        {
            "session_id": "abc-1",
            "cwd": str(tmp_path),
            "transcript_path": "/t/x.jsonl",
            "prompt_id": "p-9",
        }
    )
    assert good == payload.Identity("abc-1", str(tmp_path), "/t/x.jsonl", "p-9")
    from missioncache_state.ids import PromptId, SessionId

    assert type(good.session_id) is SessionId  # parsed here; what follows takes the type
    assert type(good.prompt_id) is PromptId
    assert payload.identity({"cwd": 5, "session_id": 7}).session_id is None
    assert payload.identity({"cwd": "/no/such/dir"}).cwd == str(tmp_path)


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ("hello", "hello"),
        ([{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}], "a\nb"),
        ([{"type": "image"}], ""),
        ([1, "x", {"type": "text", "text": 3}], ""),
        (None, None),
        (42, None),
        ({"text": "x"}, None),
    ],
)
def test_flatten_prompt(raw, text):
    assert prompts.flatten_prompt(raw) == text


@pytest.mark.parametrize(
    "prompt",
    ["", "   ", "/compact", "/missioncache:save", "!ls", "y", "YES", "no", "exit", " help "],
)
def test_skipped_prompts(prompt):
    assert prompts.should_skip(prompt)


@pytest.mark.parametrize("prompt", ["fix the bug", "yes please do it", "/ not a command", "n!"])
def test_counted_prompts(prompt):
    assert not prompts.should_skip(prompt)


def test_counted_prompt_skips_subagents_and_bad_types():
    assert prompts.counted_prompt({"prompt": "work", "agent_id": "a1"}) is None
    assert prompts.counted_prompt({"prompt": ["x"]}) is None
    assert prompts.counted_prompt({"prompt": "work"}) == "work"


def test_hook_json_combines_channels():
    assert output.hook_json("Stop", system_message="hi") == {"systemMessage": "hi"}
    both = output.hook_json("SessionStart", additional_context="ctx", system_message="m")
    assert both["hookSpecificOutput"] == {
        "hookEventName": "SessionStart",
        "additionalContext": "ctx",
    }


@pytest.mark.parametrize(
    "body", ["raise RuntimeError('boom')", "sys.exit(2)", "raise KeyboardInterrupt", "pass"]
)
def test_run_hook_always_exits_zero(body):
    script = textwrap.dedent(f"""
        import sys
        from missioncache_hookio.output import run_hook, emit
        def main():
            emit("before ")
            {body}
        run_hook(main)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 0
    assert proc.stdout == "before "
    assert "Traceback" not in proc.stderr
    if "boom" in body:
        assert proc.stderr == "missioncache: RuntimeError: boom\n"


@pytest.mark.parametrize(
    "bad",
    [
        {"session_id": 7},
        {"cwd": ["/"]},
        {"transcript_path": {}},
        {"hook_event_name": 1},
        {"source": True},
        {"prompt": 3},
        {"agent_id": 5},
        {"trigger": ["auto"]},
        {"custom_instructions": 1},
        {"stop_hook_active": "true"},
        {"stop_hook_active": 1},
    ],
)
def test_mistyped_fields_are_not_well_typed(bad):
    assert not payload.well_typed({"session_id": "s1", "cwd": "/", **bad})


def test_well_typed_payloads():
    assert payload.well_typed({})
    assert payload.well_typed({"session_id": None, "custom_instructions": None, "extra": 1})
    assert payload.well_typed(
        {
            "session_id": "../hostile",
            "cwd": "/x",
            "transcript_path": "/t.jsonl",
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "prompt": [{"type": "text", "text": "hi"}],
            "trigger": "auto",
            "source": "startup",
        }
    )


def test_deeply_nested_json_is_not_a_payload():
    """Regression (reliability suite): json.loads raises RecursionError, not ValueError,
    for input nested thousands deep; the hook must treat it as bad input, not crash."""
    assert parse(b'{"a":' * 100_000 + b"1" + b"}" * 100_000) is None
    assert parse(b"[" * 100_000) is None
