"""Routing follows the contract tables for the channels MissionCache uses: per event and exit
code, what reaches the model, the human and the transcript; requests to block are only flagged."""

from __future__ import annotations

import json

import pytest

from missioncache_harness.routing import route
from missioncache_harness.runner import HookRun

CMD = 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/h.py"'
TRANSCRIPT = "/home/u/.claude/projects/-w/sid-1.jsonl"


def hr(stdout="", stderr="", code=0, *, timed_out=False, command=CMD, duration=0.25):
    return HookRun(
        command=command,
        exit_code=code,
        duration=duration,
        timed_out=timed_out,
        stdout=stdout,
        stderr=stderr,
        plugin="probe",
        timeout=5.0,
    )


def payload(event, **extra):
    base = {
        "session_id": "sid-1",
        "transcript_path": TRANSCRIPT,
        "cwd": "/w",
        "hook_event_name": event,
    }
    defaults = {
        "SessionStart": {"source": "startup"},
        "UserPromptSubmit": {"prompt": "WRITEFILE please", "prompt_id": "p1"},
        "PreCompact": {"trigger": "manual"},
        "PostCompact": {"trigger": "manual"},
        "SessionEnd": {"reason": "other"},
    }
    return {**base, **defaults.get(event, {}), **extra}


def routed(event, *runs, **extra):
    return route(event, list(runs), payload(event, **extra))


def kinds(result):
    out = []
    for record in result.transcript_records:
        attachment = record.get("attachment")
        out.append(attachment["type"] if attachment else record.get("subtype") or record["type"])
    return out


def attachment(result, kind):
    found = [
        r for r in result.transcript_records if (r.get("attachment") or {}).get("type") == kind
    ]
    assert found, f"no {kind} in {kinds(result)}"
    return found[0]["attachment"]


# ---------------------------------------------------------------- exit 0, plain stdout


@pytest.mark.parametrize("source", ["startup", "resume", "compact", "clear"])
def test_session_start_stdout_reaches_the_model_with_its_source(source):
    result = routed("SessionStart", hr("  ctx from hook\n", "noise"), source=source)
    assert result.model_texts == [f"SessionStart:{source} hook success: ctx from hook"]
    assert result.human_texts == []
    record = result.transcript_records[0]
    assert record["attachment"]["hookName"] == f"SessionStart:{source}"
    assert record["attachment"]["content"] == "ctx from hook"
    assert record["rendered"] == [
        {
            "content": f"<system-reminder>\nSessionStart:{source} hook success: ctx from hook\n"
            "</system-reminder>"
        }
    ]
    assert record["renderedRole"] == "system"


def test_user_prompt_submit_stdout_reaches_the_model():
    result = routed("UserPromptSubmit", hr("reminder"))
    assert result.model_texts == ["UserPromptSubmit hook success: reminder"]
    assert not result.blocked


@pytest.mark.parametrize("event", ["Stop"])
def test_stdout_of_turn_events_is_transcript_only(event):
    result = routed(event, hr("OUT"))
    assert result.model_texts == [] and result.human_texts == []
    assert attachment(result, "hook_success")["hookName"] == event
    assert "rendered" not in result.transcript_records[0]


def test_empty_stdout_leaves_no_trace():
    result = routed("SessionStart", hr("  \n", "lost stderr"))
    assert result.model_texts == [] and result.transcript_records == []


@pytest.mark.parametrize("code", [0, 1, 2])
def test_session_end_output_goes_nowhere(code):
    """Its details (Claude Code's own stderr) are real-CLI only: the product registers none."""
    result = routed("SessionEnd", hr("OUT", "ERR", code))
    assert result.model_texts == result.human_texts == result.transcript_records == []


@pytest.mark.parametrize(
    ("stdout", "code"), [('{"systemMessage": "M"}', 0), ("plain", 0), ("", 2), ("x", 1)]
)
def test_stop_failure_output_goes_nowhere(stdout, code):
    """Measured on 2.1.328 (contract 11.3): systemMessage, plain stdout, stderr and exit 2
    of a StopFailure hook reach neither the screen, the model nor the transcript."""
    result = routed("StopFailure", hr(stdout, "ERR", code), error="server_error")
    assert result.model_texts == result.human_texts == result.transcript_records == []
    assert not result.blocked


def test_precompact_stdout_becomes_compaction_instructions():
    result = routed("PreCompact", hr("keep the plan\n"))
    assert result.compact_instructions == "keep the plan"
    assert result.model_texts == ["Additional Instructions:\nkeep the plan"]
    line = f"PreCompact [{CMD}] completed successfully: keep the plan"
    assert result.local_command_lines == [line]
    assert result.human_texts == [line]
    assert result.transcript_records == []


def test_auto_precompact_shows_nothing_but_still_instructs():
    result = routed("PreCompact", hr("keep"), trigger="auto")
    assert result.compact_instructions == "keep"
    assert result.human_texts == [] and result.local_command_lines == []


def test_precompact_line_even_without_output():
    result = routed("PreCompact", hr(""))
    assert result.local_command_lines == [f"PreCompact [{CMD}] completed successfully"]
    assert result.compact_instructions is None


def test_postcompact_manual_line_and_auto_nothing():
    manual = routed("PostCompact", hr("done"))
    assert manual.local_command_lines == [f"PostCompact [{CMD}] completed successfully: done"]
    assert routed("PostCompact", hr("done"), trigger="auto").human_texts == []


def test_postcompact_system_message_is_not_interpreted():
    """Contract 11.4: the JSON is shown raw on manual /compact, like plain text."""
    raw = '{"systemMessage": "hello"}'
    manual = routed("PostCompact", hr(raw))
    assert manual.local_command_lines == [f"PostCompact [{CMD}] completed successfully: {raw}"]
    assert manual.model_texts == []


def test_postcompact_hook_specific_output_is_a_failure():
    """Contract 11.4: ``hookSpecificOutput`` from PostCompact fails validation."""
    out = '{"hookSpecificOutput": {"hookEventName": "PostCompact", "additionalContext": "x"}}'
    (line,) = routed("PostCompact", hr(out)).local_command_lines
    assert line.startswith(f"PostCompact [{CMD}] failed: Hook JSON output validation failed")
    assert routed("PostCompact", hr(out), trigger="auto").human_texts == []


def test_texts_keep_completion_order():
    result = routed("UserPromptSubmit", hr("fast"), hr("slow"))
    assert result.model_texts == [
        "UserPromptSubmit hook success: fast",
        "UserPromptSubmit hook success: slow",
    ]


# ---------------------------------------------------------------- exit 1 and other codes


@pytest.mark.parametrize("code", [1, 3, 127])
@pytest.mark.parametrize(
    ("event", "label"),
    [
        ("SessionStart", "SessionStart:startup"),
        ("UserPromptSubmit", "UserPromptSubmit"),
        ("Stop", "Stop"),
    ],
)
def test_non_zero_non_two_is_a_non_blocking_error(event, label, code):
    result = routed(event, hr("OUT", "ERR", code))
    assert result.model_texts == [] and not result.blocked
    record = attachment(result, "hook_non_blocking_error")
    assert record["stderr"] == "Failed with non-blocking status code: ERR"
    assert result.human_texts == [f"{label} hook failed\nERR"]


def test_precompact_exit_1_is_reported_and_compaction_proceeds():
    result = routed("PreCompact", hr("ignored", "ERR", 1))
    assert not result.blocked
    assert result.compact_instructions is None
    assert result.local_command_lines == [f"PreCompact [{CMD}] failed: ERR"]
    assert routed("PreCompact", hr("x", "ERR", 1), trigger="auto").human_texts == []


# ---------------------------------------------------------------- requests to block


@pytest.mark.parametrize(
    ("event", "output", "code", "kind"),
    [
        ("UserPromptSubmit", "", 2, "exit 2"),
        ("Stop", "", 2, "exit 2"),
        ("PreCompact", "", 2, "exit 2"),
        ("UserPromptSubmit", '{"decision": "block", "reason": "R"}', 0, "decision: block"),
        ("Stop", '{"decision": "block", "reason": "R"}', 1, "decision: block"),
        ("PreCompact", '{"decision": "block", "reason": "R"}', 0, "decision: block"),
        ("UserPromptSubmit", '{"continue": false}', 0, "continue: false"),
        ("Stop", '{"continue": false}', 0, "continue: false"),
    ],
)
def test_requests_to_block_are_flagged_not_played(event, output, code, kind):
    """The product never blocks; the real CLI's handling is pinned by the golden file."""
    result = routed(event, hr(output, "ERR", code))
    assert result.blocked and result.block_kind == kind
    assert result.model_texts == result.human_texts == result.transcript_records == []


def test_stop_additional_context_is_flagged_as_continuing_the_turn():
    result = routed("Stop", hr(ctx_json("Stop", "CTX-Stop")))
    assert result.blocked and "continues the turn" in (result.block_kind or "")


def test_exit_2_where_it_cannot_block_is_a_failure():
    result = routed("SessionStart", hr("OUT", "ERR", 2))
    assert not result.blocked and result.model_texts == []
    assert attachment(result, "hook_non_blocking_error")["stderr"].endswith("ERR")
    assert result.human_texts == ["SessionStart:startup hook failed\nERR"]
    assert not routed("PostCompact", hr("OUT", "ERR", 2)).blocked


# ---------------------------------------------------------------- JSON output


def js(obj):
    return json.dumps(obj)


def ctx_json(event, text="CTX"):
    return js({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})


@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit"])
def test_additional_context_reaches_the_model_without_source(event):
    result = routed(event, hr(ctx_json(event)))
    assert result.model_texts == [f"{event} hook additional context: CTX"]
    record = attachment(result, "hook_additional_context")
    assert (record["content"], record["hookName"]) == (["CTX"], event)
    # Measured on 2.1.328 (test_simulator_matches_the_real_cli): UserPromptSubmit JSON
    # leaves no hook_success.
    if event == "SessionStart":
        assert attachment(result, "hook_success")["content"] == ""
    else:
        assert "hook_success" not in kinds(result)


@pytest.mark.parametrize(
    ("event", "label"),
    [
        ("Stop", "Stop"),
        ("SessionStart", "SessionStart:startup"),
        ("UserPromptSubmit", "UserPromptSubmit"),
    ],
)
def test_system_message_is_for_the_human_only(event, label):
    result = routed(event, hr(js({"systemMessage": "M"})))
    assert result.human_texts == [f"⎿  {label} says: M"]
    assert result.model_texts == [] and not result.blocked
    assert attachment(result, "hook_system_message")["content"] == "M"


def test_system_message_and_context_together():
    out = {
        "systemMessage": "M",
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "C"},
    }
    result = routed("SessionStart", hr(js(out)))
    assert result.human_texts == ["⎿  SessionStart:startup says: M"]
    assert result.model_texts == ["SessionStart hook additional context: C"]


def test_continue_false_is_ignored_at_session_start():
    result = routed("SessionStart", hr(js({"continue": False, "stopReason": "R"})))
    assert (
        not result.blocked and result.transcript_records[0]["attachment"]["type"] == "hook_success"
    )


def test_json_is_honoured_with_exit_1():
    result = routed("SessionStart", hr(ctx_json("SessionStart"), "", 1))
    assert result.model_texts == ["SessionStart hook additional context: CTX"]
    assert "hook_non_blocking_error" not in kinds(result)


@pytest.mark.parametrize("text", ["{not json at all", '{"a": 1} trailing', "[1, 2]"])
def test_malformed_json_is_plain_text(text):
    result = routed("UserPromptSubmit", hr(text))
    assert result.model_texts == [f"UserPromptSubmit hook success: {text}"]


@pytest.mark.parametrize("output", [{"continue": False, "stopReason": "R"}, {"systemMessage": "M"}])
def test_precompact_json_is_raw_instructions(output):
    text = js(output)
    result = routed("PreCompact", hr(text))
    assert not result.blocked
    assert result.compact_instructions == text
    assert result.human_texts == [f"PreCompact [{CMD}] completed successfully: {text}"]


def test_rejected_hook_event_names_fail_the_hook():
    pre = routed("PreCompact", hr(ctx_json("PreCompact")))
    assert pre.local_command_lines[0].startswith(
        f"PreCompact [{CMD}] failed: Hook JSON output validation failed"
    )
    assert pre.compact_instructions is None
    start = routed("SessionStart", hr(ctx_json("PreCompact")))
    assert start.model_texts == []
    assert "incorrect event name" in attachment(start, "hook_non_blocking_error")["stderr"]


# ---------------------------------------------------------------- limits and timeouts


def test_stdout_of_10000_chars_passes_verbatim():
    text = "a" * 10_000
    assert routed("SessionStart", hr(text)).model_texts == [
        f"SessionStart:startup hook success: {text}"
    ]


def test_stdout_over_10000_chars_is_persisted_with_a_preview():
    text = "b" * 10_100
    result = routed("UserPromptSubmit", hr(text))
    (model,) = result.model_texts
    (path,) = result.persisted
    assert result.persisted[path] == text
    assert path.startswith("/home/u/.claude/projects/-w/sid-1/tool-results/hook-")
    assert path.endswith("-stdout.txt")
    assert model == (
        "UserPromptSubmit hook success: <persisted-output>\nOutput too large (9.9KB). "
        f"Full output saved to: {path}\n\nPreview (first 2KB):\n{'b' * 2000}\n...\n"
        "</persisted-output>"
    )
    assert attachment(result, "hook_success")["content"] == model.split(": ", 1)[1]


def test_the_preview_is_cut_back_to_a_line_end():
    """Claude Code keeps whole lines in the preview (contract 11.5): 181 lines of 11
    characters fit in 2,000; the 182nd would be cut in the middle."""
    text = "".join(f"{n:05d}-line\n" for n in range(1_000))
    (model,) = routed("SessionStart", hr(text)).model_texts
    preview = model.split("Preview (first 2KB):\n", 1)[1]
    assert preview == text[: 181 * 11 - 1] + "\n...\n</persisted-output>"


def test_additional_context_over_10000_chars_is_persisted_with_a_preview():
    """The limit holds for additionalContext too (contract 11.5): the model gets the note."""
    text = "d" * 10_001
    result = routed("SessionStart", hr(ctx_json("SessionStart", text)))
    (path,) = result.persisted
    assert result.persisted[path] == text
    assert path.endswith("-additionalContext.txt")
    (model,) = result.model_texts
    assert model.startswith("SessionStart hook additional context: <persisted-output>\n")
    assert f"Full output saved to: {path}" in model and text not in model
    assert attachment(result, "hook_additional_context")["content"] == [model.split(": ", 1)[1]]


def test_additional_context_of_10000_chars_passes_whole():
    text = "e" * 10_000
    result = routed("UserPromptSubmit", hr(ctx_json("UserPromptSubmit", text)))
    assert result.model_texts == [f"UserPromptSubmit hook additional context: {text}"]
    assert result.persisted == {}


def test_precompact_output_is_cut_at_10000_chars():
    text = "c" * 10_001
    result = routed("PreCompact", hr(text))
    assert result.compact_instructions == (
        "c" * 10_000 + f"\n\n[PreCompact hook [{CMD}] output cut: 10001 characters is over the "
        "10000-character limit]"
    )


def test_timeout_is_recorded_as_cancelled():
    result = routed("Stop", hr("partial?", timed_out=True, code=-15, duration=1.02))
    assert kinds(result) == ["hook_cancelled"]
    assert result.model_texts == [] and not result.blocked


def test_compaction_timeout_is_reported_as_cancelled():
    (line,) = routed("PreCompact", hr(timed_out=True, code=-15)).local_command_lines
    assert line == f"PreCompact [{CMD}] failed: Hook cancelled"
