"""Routing follows the contract tables: per event and exit code, model/human/transcript/block."""

from __future__ import annotations

import json

import pytest

from missioncache_harness.routing import (
    COMPACTION_BLOCKED,
    COMPACTION_SKIPPED,
    PROMPT_ERASED,
    PROMPT_STOPPED,
    route,
)
from missioncache_harness.runner import HookRun

CMD = 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/h.py"'
EXP = 'python3 "/plug/hooks/h.py"'
FROM = "This hook comes from the probe@inline plugin."
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
        plugin_root="/plug",
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
    return route(event, list(runs), payload(event, **extra))[0]


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
    assert record["attachment"]["stderr"] == "noise"
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


@pytest.mark.parametrize("event", ["Stop", "SubagentStop"])
def test_stdout_of_turn_events_is_transcript_only(event):
    result = routed(event, hr("OUT"))
    assert result.model_texts == [] and result.human_texts == []
    assert attachment(result, "hook_success")["hookName"] == event
    assert "rendered" not in result.transcript_records[0]


def test_stop_summary_records_every_round():
    result = routed("Stop", hr("OUT", duration=0.097))
    summary = result.transcript_records[-1]
    assert summary["subtype"] == "stop_hook_summary"
    assert summary["hookInfos"] == [{"command": CMD, "durationMs": 97}]
    assert summary["hasOutput"] is True
    assert summary["hookErrors"] == [] and summary["preventedContinuation"] is False
    assert not result.continues_turn


def test_no_stop_hooks_no_summary():
    assert routed("Stop").transcript_records == []


def test_empty_stdout_leaves_no_trace():
    result = routed("SessionStart", hr("  \n", "lost stderr"))
    assert result.model_texts == [] and result.transcript_records == []


def test_session_end_output_goes_nowhere():
    result = routed("SessionEnd", hr("OUT", "ERR"))
    assert result.model_texts == result.human_texts == result.transcript_records == []
    assert result.cli_stderr == []


@pytest.mark.parametrize(
    ("stdout", "code"), [('{"systemMessage": "M"}', 0), ("plain", 0), ("", 2), ("x", 1)]
)
def test_stop_failure_output_goes_nowhere(stdout, code):
    """Measured on 2.1.328 (contract 11.3): systemMessage, plain stdout, stderr and exit 2
    of a StopFailure hook reach neither the screen, the model nor the transcript."""
    result = routed("StopFailure", hr(stdout, "ERR", code), error="server_error")
    assert result.model_texts == result.human_texts == result.transcript_records == []
    assert not result.blocked and not result.continues_turn


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
    assert result.model_texts == [] and not result.blocked and not result.continues_turn
    record = attachment(result, "hook_non_blocking_error")
    assert record["stderr"] == "Failed with non-blocking status code: ERR"
    assert record["stdout"] == "OUT"
    assert record["exitCode"] == code
    assert record["command"] == CMD
    assert result.human_texts == [f"{label} hook failed\nERR"]


def test_stop_exit_1_is_listed_in_the_summary():
    result = routed("Stop", hr("", "ERR", 1))
    summary = result.transcript_records[-1]
    assert summary["hookErrors"] == ["Failed with non-blocking status code: ERR"]
    assert summary["failedHookErrorIndexes"] == [0]


@pytest.mark.parametrize("code", [1, 2, 5])
def test_session_end_failures_go_to_claudes_stderr(code):
    result = routed("SessionEnd", hr("", "ERR\n", code))
    assert result.cli_stderr == [f"SessionEnd hook [{CMD}] failed: ERR"]
    assert result.transcript_records == []


def test_precompact_exit_1_is_reported_and_compaction_proceeds():
    result = routed("PreCompact", hr("ignored", "ERR", 1))
    assert not result.blocked
    assert result.compact_instructions is None
    assert result.local_command_lines == [f"PreCompact [{CMD}] failed: ERR"]
    assert routed("PreCompact", hr("x", "ERR", 1), trigger="auto").human_texts == []


# ---------------------------------------------------------------- exit 2


def test_session_start_exit_2_does_not_block():
    result = routed("SessionStart", hr("OUT", "ERR", 2))
    assert not result.blocked and result.model_texts == []
    record = attachment(result, "hook_non_blocking_error")
    assert record["stderr"] == f"[{EXP}]: ERR\n{FROM}"
    assert record["stdout"] == "" and record["exitCode"] == 2
    assert "durationMs" not in record
    assert result.human_texts == [f"SessionStart:startup hook failed\n[{EXP}]: ERR"]


def test_user_prompt_submit_exit_2_erases_the_prompt():
    result = routed("UserPromptSubmit", hr("ctx"), hr("OUT", "STDERR-UPS", 2))
    assert result.blocked and result.block_kind == PROMPT_ERASED
    assert result.model_texts == []
    text = (
        f"UserPromptSubmit operation blocked by hook:\n[{EXP}]: STDERR-UPS\n{FROM}\n\n"
        "Original prompt: WRITEFILE please"
    )
    assert result.result_text == text
    info = result.transcript_records[-1]
    assert info["subtype"] == "informational" and info["level"] == "warning"
    assert info["content"] == text
    assert info["promptSubmitEnding"] == {
        "ending": {"kind": "blocked_by_hook", "reason": "STDERR-UPS"},
        "promptKept": False,
    }


@pytest.mark.parametrize("event", ["Stop", "SubagentStop"])
def test_stop_exit_2_continues_the_turn(event):
    result = routed(event, hr("dropped", "STDERR-Stop", 2))
    feedback = f"Stop hook feedback:\n[{EXP}]: STDERR-Stop\n{FROM}"
    assert result.continues_turn and not result.blocked
    assert result.feedback == [feedback]
    assert result.model_texts == [feedback]
    summary, meta = result.transcript_records[-2:]
    assert summary["hookErrors"] == [f"[{EXP}]: STDERR-Stop\n{FROM}"]
    assert summary["failedHookErrorIndexes"] == []
    assert summary["hookInfos"] == [{"command": CMD}]
    assert meta == {
        "type": "user",
        "isMeta": True,
        "message": {"role": "user", "content": feedback},
    }
    assert result.human_texts == [f"{event} hook reported a problem\n[{EXP}]: STDERR-Stop"]


def test_manual_precompact_exit_2_blocks_compaction():
    result = routed("PreCompact", hr("OUT", "STDERR-PreCompact", 2))
    assert result.block_kind == COMPACTION_BLOCKED
    message = f"Compaction blocked by PreCompact hook: [{CMD}]: STDERR-PreCompact"
    assert result.result_text == message
    assert result.human_texts == [message]
    assert result.compact_instructions is None


def test_auto_precompact_exit_2_skips_silently():
    result = routed("PreCompact", hr("OUT", "ERR", 2), trigger="auto")
    assert result.blocked and result.block_kind == COMPACTION_SKIPPED
    assert result.human_texts == [] and result.result_text is None


# ---------------------------------------------------------------- missing scripts

MISSING = "python3: can't open file '/w/missing.py': [Errno 2] No such file or directory\n"


@pytest.mark.parametrize("event", ["UserPromptSubmit", "Stop"])
def test_missing_script_is_downgraded_for_prompt_and_stop(event):
    result = routed(event, hr("", MISSING, 2, command="python3 missing.py"))
    assert not result.blocked and not result.continues_turn
    record = attachment(result, "hook_non_blocking_error")
    assert record["stderr"].startswith(
        'Hook script appears to be missing — "python3 missing.py" exited 2 with: python3: '
        "can't open file"
    )
    assert "Treating as non-blocking. Run `/plugin` to reinstall 'probe@inline'" in record["stderr"]


def test_missing_script_at_session_start_is_an_ordinary_exit_2():
    result = routed("SessionStart", hr("", MISSING, 2, command="python3 missing.py"))
    assert attachment(result, "hook_non_blocking_error")["stderr"].startswith(
        "[python3 missing.py]:"
    )


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
    # Measured on 2.1.328 (test_conformance): UserPromptSubmit JSON leaves no hook_success.
    if event == "SessionStart":
        assert attachment(result, "hook_success")["content"] == ""
    else:
        assert "hook_success" not in kinds(result)


def test_stop_additional_context_continues_the_turn():
    result = routed("Stop", hr(ctx_json("Stop", "CTX-Stop")))
    assert result.continues_turn
    assert result.model_texts == ["Stop hook additional context: CTX-Stop"]
    assert result.feedback == [
        "<system-reminder>\nStop hook additional context: CTX-Stop\n</system-reminder>"
    ]
    assert result.transcript_records[-1]["hookAdditionalContext"] == ["CTX-Stop"]


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
    assert result.model_texts == [] and not result.continues_turn
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


def test_continue_false_stops_the_prompt_but_keeps_it():
    result = routed("UserPromptSubmit", hr(js({"continue": False, "stopReason": "R"})))
    assert result.block_kind == PROMPT_STOPPED
    assert result.result_text == "Operation stopped by hook: R"
    meta, info = result.transcript_records[-2:]
    assert meta["isMeta"] and meta["message"]["content"] == "Operation stopped by hook: R"
    assert info["promptSubmitEnding"]["promptKept"] is True
    assert info["promptSubmitEnding"]["ending"]["kind"] == "stopped_by_hook"


def test_continue_false_on_stop_prevents_continuation_even_with_a_block():
    result = routed(
        "Stop",
        hr(js({"continue": False, "stopReason": "R"})),
        hr("", "more", 2),
    )
    assert result.prevented_continuation and not result.continues_turn
    summary = next(r for r in result.transcript_records if r.get("subtype") == "stop_hook_summary")
    assert summary["preventedContinuation"] is True and summary["stopReason"] == "R"


def test_stop_decision_block_feeds_back_twice():
    result = routed("Stop", hr(js({"decision": "block", "reason": "R"})))
    assert result.continues_turn
    assert result.feedback == ["Stop hook feedback:\nR"]
    assert f'Stop hook blocking error from command: "{CMD}": R' in result.model_texts
    assert attachment(result, "hook_blocking_error")["blockingError"] == {
        "blockingError": "R",
        "command": CMD,
    }


def test_json_is_honoured_with_exit_1():
    result = routed("Stop", hr(js({"decision": "block", "reason": "R-exit1"}), "", 1))
    assert result.continues_turn
    assert result.feedback == ["Stop hook feedback:\nR-exit1"]


@pytest.mark.parametrize("text", ["{not json at all", '{"a": 1} trailing', "[1, 2]"])
def test_malformed_json_is_plain_text(text):
    result = routed("UserPromptSubmit", hr(text))
    assert result.model_texts == [f"UserPromptSubmit hook success: {text}"]


def test_user_prompt_submit_decision_block_erases_the_prompt():
    result = routed("UserPromptSubmit", hr(js({"decision": "block", "reason": "R"})))
    assert result.block_kind == PROMPT_ERASED
    assert result.result_text == (
        "UserPromptSubmit operation blocked by hook:\nR\n\nOriginal prompt: WRITEFILE please"
    )


@pytest.mark.parametrize("output", [{"continue": False, "stopReason": "R"}, {"systemMessage": "M"}])
def test_precompact_json_is_raw_instructions(output):
    text = js(output)
    result = routed("PreCompact", hr(text))
    assert not result.blocked
    assert result.compact_instructions == text
    assert result.human_texts == [f"PreCompact [{CMD}] completed successfully: {text}"]


def test_precompact_decision_block_blocks():
    result = routed("PreCompact", hr(js({"decision": "block", "reason": "R"})))
    assert result.block_kind == COMPACTION_BLOCKED
    assert result.result_text == f"Compaction blocked by PreCompact hook: [{CMD}]: R"


def test_rejected_hook_event_names_fail_the_hook():
    end = routed("SessionEnd", hr(ctx_json("SessionEnd")))
    assert end.cli_stderr[0].startswith(
        f"SessionEnd hook [{CMD}] failed: Hook JSON output validation failed — "
        'hookSpecificOutput.hookEventName: expected one of "PreToolUse" | "UserPromptSubmit"'
    )
    pre = routed("PreCompact", hr(ctx_json("PreCompact")))
    assert pre.local_command_lines[0].startswith(
        f"PreCompact [{CMD}] failed: Hook JSON output validation failed"
    )
    assert pre.compact_instructions is None
    start = routed("SessionStart", hr(ctx_json("PreCompact")))
    assert start.model_texts == []
    assert "validation failed" in attachment(start, "hook_non_blocking_error")["stderr"]


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
    assert attachment(result, "hook_success")["stdout"] == text


def test_precompact_output_is_cut_at_10000_chars():
    text = "c" * 10_001
    result = routed("PreCompact", hr(text))
    assert result.compact_instructions == (
        "c" * 10_000 + f"\n\n[PreCompact hook [{CMD}] output cut: 10001 characters is over the "
        "10000-character limit]"
    )


def test_timeout_is_recorded_as_cancelled():
    result = routed("Stop", hr("partial?", timed_out=True, code=-15, duration=1.02))
    record = attachment(result, "hook_cancelled")
    assert record["timedOut"] is True and record["timeoutMs"] == 5000
    assert record["durationMs"] == 1020
    assert result.model_texts == [] and not result.continues_turn


def test_session_end_timeout_prints_hook_cancelled():
    result = routed("SessionEnd", hr(timed_out=True, code=-15))
    assert result.cli_stderr == [f"SessionEnd hook [{CMD}] failed: Hook cancelled"]


def test_where_labels_each_hook():
    _routed, outcomes = route(
        "UserPromptSubmit",
        [hr("ctx"), hr(js({"systemMessage": "M"})), hr("", "", 0), hr("", "E", 2)],
        payload("UserPromptSubmit"),
    )
    assert outcomes[0].where == ["model", "transcript"]
    assert outcomes[1].where == ["human", "transcript"]
    assert outcomes[2].where == ["nowhere"]
    assert outcomes[3].where == ["blocks (prompt_erased)"]
