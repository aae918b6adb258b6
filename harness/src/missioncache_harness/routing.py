"""Where Claude Code sends each hook's output: the model, the human, the transcript, or a block.

WHY a separate, pure step: the same hook output means different things per event and exit code
(contract sections 2, 8 and 9): SessionStart stdout becomes model context, Stop stdout goes nowhere,
exit 2 erases a prompt but only warns at SessionStart, PreCompact stdout becomes compaction
instructions, JSON is honoured even with exit 1. Tests of the product assert on these destinations,
so this module turns `HookRun`s into a `Routed` without running anything. Texts carry Claude Code's
exact prefixes. Cases the contract marks "not measured" follow the nearest measured case; their
docstrings say so. Only the events the product relies on have rules here (tool events, permission
decisions and http hooks are not simulated); the recorded CLI runs in harness/tests/golden are the
reference for the rest.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from missioncache_harness.events import (
    ACCEPTED_OUTPUT_EVENT_NAMES,
    OUTPUT_LIMIT,
    PREVIEW_CHARS,
    hook_name,
)
from missioncache_harness.runner import HookRun
from missioncache_harness.transcript import meta_user

CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit"})
STOP_EVENTS = frozenset({"Stop", "SubagentStop"})
COMPACT_EVENTS = frozenset({"PreCompact", "PostCompact"})
# Exit 2 of a script that is not there: UserPromptSubmit and Stop downgrade it (contract 4.2).
MISSING_SCRIPT_EVENTS = frozenset({"UserPromptSubmit", "Stop"})
_MISSING_SCRIPT = re.compile(r"can't open file .*\[Errno 2\]|Cannot find module")

# Block kinds.
PROMPT_ERASED = "prompt_erased"
PROMPT_STOPPED = "prompt_stopped"
COMPACTION_BLOCKED = "compaction_blocked"
COMPACTION_SKIPPED = "compaction_skipped"
_BLOCK_PRIORITY = (
    PROMPT_ERASED,
    PROMPT_STOPPED,
    COMPACTION_BLOCKED,
    COMPACTION_SKIPPED,
)


@dataclass
class HookOutcome:
    """Where one hook's output went. ``where`` names the destinations for printing."""

    run: HookRun
    model_texts: list[str] = field(default_factory=list)
    human_texts: list[str] = field(default_factory=list)
    records: list[dict] = field(default_factory=list)
    block: str | None = None
    reason: str | None = None
    raw_reason: str | None = None
    continue_turn: bool = False
    feedback: list[str] = field(default_factory=list)
    meta_messages: list[str] = field(default_factory=list)
    prevented: bool = False
    stop_reason: str | None = None
    instructions: str | None = None
    local_line: str | None = None
    cli_stderr: str | None = None
    summary_error: str | None = None
    summary_error_failed: bool = False
    additional_context: list[str] = field(default_factory=list)
    persisted: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> list[str]:
        """Destinations, e.g. ``["model", "transcript"]``; ``["nowhere"]`` when lost."""
        places = []
        if self.model_texts or self.instructions or self.feedback:
            places.append("model")
        if self.human_texts or self.local_line:
            places.append("human")
        if self.cli_stderr:
            places.append("claude-stderr")
        if self.records:
            places.append("transcript")
        if self.block:
            places.append(f"blocks ({self.block})")
        if self.continue_turn and not self.prevented:
            places.append("continues turn")
        return places or ["nowhere"]


@dataclass
class Routed:
    """The event-level verdict: what Claude, the human and the transcript get, and what blocks.

    ``model_texts`` are the texts the model receives (prefixes included); ``feedback`` the subset
    that arrive as user messages continuing a Stop turn; ``transcript_records`` are record bodies
    (without uuid/timestamp/session keys, which the Session adds); ``result_text`` is what
    ``claude -p`` would print as its result for a blocked prompt or compaction.
    """

    model_texts: list[str] = field(default_factory=list)
    human_texts: list[str] = field(default_factory=list)
    transcript_records: list[dict] = field(default_factory=list)
    blocked: bool = False
    block_kind: str | None = None
    continues_turn: bool = False
    feedback: list[str] = field(default_factory=list)
    prevented_continuation: bool = False
    stop_reason: str | None = None
    compact_instructions: str | None = None
    local_command_lines: list[str] = field(default_factory=list)
    cli_stderr: list[str] = field(default_factory=list)
    result_text: str | None = None
    persisted: dict[str, str] = field(default_factory=dict)


@dataclass
class EventResult:
    """One fired event: its payload, every hook run (completion order) and the routing verdict."""

    event: str
    payload: dict
    hooks: list[HookRun]
    routed: Routed
    outcomes: list[HookOutcome] = field(default_factory=list)


@dataclass
class _Ctx:
    event: str
    payload: Mapping[str, object]
    name: str
    tool_use_id: str

    @property
    def manual(self) -> bool:
        return self.payload.get("trigger") == "manual"


def route(
    event: str, runs: Sequence[HookRun], payload: Mapping[str, object]
) -> tuple[Routed, list[HookOutcome]]:
    """Route every hook run of one event firing; ``runs`` in completion order."""
    tool_use_id = payload.get("tool_use_id")
    ctx = _Ctx(
        event,
        payload,
        hook_name(event, payload),
        tool_use_id if isinstance(tool_use_id, str) else str(uuid.uuid4()),
    )
    outcomes = [_route_hook(ctx, run) for run in runs]
    return _combine(ctx, outcomes), outcomes


# ---------------------------------------------------------------- one hook


def _route_hook(ctx: _Ctx, run: HookRun) -> HookOutcome:
    if ctx.event == "StopFailure":
        # Measured on 2.1.328 (contract 11.3): its output and exit code go nowhere, not
        # to the screen, the model or the transcript.
        return HookOutcome(run)
    if ctx.event == "SessionEnd":
        return _route_session_end(ctx, run)
    if ctx.event in COMPACT_EVENTS:
        return _route_compact(ctx, run)
    out = HookOutcome(run)
    if run.timed_out:
        out.records.append(_cancelled(ctx, run))
        return out
    parsed, invalid = _parse_json(ctx, run.stdout)
    if invalid is not None:
        _non_blocking(ctx, run, out, invalid)
        return out
    if run.exit_code == 0 or (parsed is not None and run.exit_code != 2):
        # Measured on 2.1.328: valid JSON output wins over exit 1 (a hook_success, no error).
        _success(ctx, run, out, parsed)
    elif run.exit_code == 2:
        _exit2(ctx, run, out)
    else:
        _non_blocking(ctx, run, out, f"Failed with non-blocking status code: {_stderr(run)}")
    return out


def _success(ctx: _Ctx, run: HookRun, out: HookOutcome, parsed: dict | None) -> None:
    """Exit 0: JSON is interpreted; plain stdout reaches the model only at SessionStart/UPS."""
    if parsed is not None:
        if ctx.event != "UserPromptSubmit":  # measured: UPS JSON leaves no hook_success
            out.records.append(_hook_success(ctx, run, ""))
        _apply_json(ctx, run, out, parsed)
        return
    text = run.stdout.strip()
    if not text:
        return  # no record, nothing sent, stderr lost (contract 2.1)
    content = _limit(ctx, text, out)
    record = _hook_success(ctx, run, content)
    if ctx.event in CONTEXT_EVENTS:
        line = f"{ctx.name} hook success: {content}"
        out.model_texts.append(line)
        record["rendered"] = [{"content": f"<system-reminder>\n{line}\n</system-reminder>"}]
        record["renderedRole"] = "system"
    out.records.append(record)


def _exit2(ctx: _Ctx, run: HookRun, out: HookOutcome) -> None:
    """Exit 2: stdout dropped; the meaning depends on the event (contract 2.2)."""
    if ctx.event in MISSING_SCRIPT_EVENTS and _MISSING_SCRIPT.search(run.stderr):
        message = (
            f'Hook script appears to be missing — "{run.command}" exited 2 with: {_stderr(run)}. '
            f"Treating as non-blocking. Run `/plugin` to reinstall '{run.plugin}@inline' or "
            "remove it from settings."
        )
        _non_blocking(ctx, run, out, message)
        return
    formatted = _exit2_text(run)
    short = f"[{run.expanded_command}]: {_stderr(run)}"
    event = ctx.event
    if event == "UserPromptSubmit":
        _block(out, PROMPT_ERASED, formatted, _stderr(run))
    elif event in STOP_EVENTS:
        message = f"Stop hook feedback:\n{formatted}"
        out.continue_turn = True
        out.feedback.append(message)
        out.meta_messages.append(message)
        out.model_texts.append(message)
        out.summary_error = formatted
        out.human_texts.append(f"{ctx.name} hook reported a problem\n{short}")
    else:  # SessionStart and the rest: an ordinary non-blocking error
        out.records.append(
            _attachment(
                ctx,
                "hook_non_blocking_error",
                stderr=formatted,
                stdout="",
                exitCode=2,
                command=run.command,
            )
        )
        out.human_texts.append(f"{ctx.name} hook failed\n{short}")


def _non_blocking(ctx: _Ctx, run: HookRun, out: HookOutcome, stderr: str) -> None:
    """Exit 1 (and 3, 126, 127...): transcript only; the human sees "hook failed"."""
    out.records.append(
        _attachment(
            ctx,
            "hook_non_blocking_error",
            stderr=stderr,
            stdout=run.stdout,
            exitCode=run.exit_code,
            command=run.command,
            durationMs=run.duration_ms,
        )
    )
    out.human_texts.append(f"{ctx.name} hook failed\n{_human_stderr(stderr)}")
    if ctx.event in STOP_EVENTS:
        out.summary_error = stderr
        out.summary_error_failed = True


def _apply_json(ctx: _Ctx, run: HookRun, out: HookOutcome, data: dict) -> None:
    """Interpret JSON output: systemMessage, additionalContext, continue:false, decision:block."""
    message = data.get("systemMessage")
    if isinstance(message, str):
        out.records.append(_attachment(ctx, "hook_system_message", content=message))
        out.human_texts.append(f"⎿  {ctx.name} says: {message}")
    specific = data.get("hookSpecificOutput")
    context = specific.get("additionalContext") if isinstance(specific, dict) else None
    if isinstance(context, str):
        _additional_context(ctx, out, context)
    if data.get("continue") is False:
        _stop_continuation(ctx, out, _text(data.get("stopReason")))
    if data.get("decision") == "block":
        _decision_block(ctx, run, out, _text(data.get("reason")))


def _additional_context(ctx: _Ctx, out: HookOutcome, context: str) -> None:
    record = _attachment(ctx, "hook_additional_context", content=[context])
    if ctx.event == "SessionStart":  # measured: named "SessionStart", without ":<source>"
        record["attachment"]["hookName"] = ctx.event
    out.records.append(record)
    out.additional_context.append(context)
    if ctx.event in STOP_EVENTS:
        line = f"Stop hook additional context: {context}"
        out.continue_turn = True
        out.model_texts.append(line)
        out.feedback.append(f"<system-reminder>\n{line}\n</system-reminder>")
        return
    if ctx.event in CONTEXT_EVENTS:
        out.model_texts.append(f"{ctx.event} hook additional context: {context}")


def _stop_continuation(ctx: _Ctx, out: HookOutcome, reason: str) -> None:
    """``continue: false``: ignored at SessionStart; stops the prompt or the Stop turn."""
    if ctx.event == "SessionStart":
        return
    if ctx.event == "UserPromptSubmit":
        _block(out, PROMPT_STOPPED, reason, reason)
        return
    out.records.append(_attachment(ctx, "hook_stopped_continuation", message=reason))
    if ctx.event in STOP_EVENTS:
        out.prevented = True
        out.stop_reason = reason


def _decision_block(ctx: _Ctx, run: HookRun, out: HookOutcome, reason: str) -> None:
    if ctx.event == "UserPromptSubmit":
        _block(out, PROMPT_ERASED, reason, reason)
    elif ctx.event in STOP_EVENTS:
        message = f"Stop hook feedback:\n{reason}"
        out.continue_turn = True
        out.feedback.append(message)
        out.meta_messages.append(message)
        out.model_texts.append(message)
        _blocking_feedback(ctx, run, out, reason)
        # Not measured: the human line for a JSON block mirrors exit 2's.
        out.human_texts.append(f"{ctx.name} hook reported a problem\n{reason}")


def _blocking_feedback(ctx: _Ctx, run: HookRun, out: HookOutcome, text: str) -> None:
    """A system message to the model: ``<name> hook blocking error from command: "<cmd>": …``."""
    out.model_texts.append(f'{ctx.name} hook blocking error from command: "{run.command}": {text}')
    out.records.append(
        _attachment(
            ctx,
            "hook_blocking_error",
            blockingError={"blockingError": text, "command": run.command},
        )
    )


def _block(out: HookOutcome, kind: str, reason: str, raw: str) -> None:
    out.block = kind
    out.reason = reason
    out.raw_reason = raw


def _route_session_end(ctx: _Ctx, run: HookRun) -> HookOutcome:
    """SessionEnd: never the model, never the transcript; failures on claude's own stderr."""
    out = HookOutcome(run)
    _parsed, invalid = _parse_json(ctx, run.stdout)
    if run.timed_out:
        problem = "Hook cancelled"
    elif invalid is not None:
        problem = invalid
    elif run.exit_code != 0:
        problem = _stderr(run)
    else:
        return out
    out.cli_stderr = f"SessionEnd hook [{run.command}] failed: {problem}"
    return out


def _route_compact(ctx: _Ctx, run: HookRun) -> HookOutcome:
    """PreCompact/PostCompact: raw stdout, lines in /compact's output; only manual shows them.

    WHY raw: Claude Code does not interpret PreCompact JSON except ``decision: block``; the text
    itself becomes the compaction's "Additional Instructions" (contract 2.3). Timeouts are not
    measured here; they are reported like SessionEnd's, as "failed: Hook cancelled".
    """
    out = HookOutcome(run)
    parsed, invalid = (None, None) if run.timed_out else _parse_json(ctx, run.stdout)
    pre = ctx.event == "PreCompact"
    if run.timed_out:
        line = f"{ctx.event} [{run.command}] failed: Hook cancelled"
    elif invalid is not None:
        line = f"{ctx.event} [{run.command}] failed: {invalid}"
    elif pre and run.exit_code == 2:
        _compaction_block(ctx, run, out, _stderr(run))
        return out
    elif pre and parsed is not None and parsed.get("decision") == "block":
        _compaction_block(ctx, run, out, _text(parsed.get("reason")))
        return out
    elif run.exit_code == 0:
        text = run.stdout.strip()
        line = f"{ctx.event} [{run.command}] completed successfully"
        if text:
            line += f": {text}"
            if pre:
                out.instructions = _cut_precompact(run, text)
                out.model_texts.append(f"Additional Instructions:\n{out.instructions}")
    else:
        line = f"{ctx.event} [{run.command}] failed: {_stderr(run)}"
    if ctx.manual:
        out.local_line = line
        out.human_texts.append(line)
    return out


def _compaction_block(ctx: _Ctx, run: HookRun, out: HookOutcome, reason: str) -> None:
    if ctx.manual:
        message = f"Compaction blocked by PreCompact hook: [{run.command}]: {reason}"
        _block(out, COMPACTION_BLOCKED, message, reason)
        out.human_texts.append(message)
    else:
        _block(out, COMPACTION_SKIPPED, "", reason)


# ---------------------------------------------------------------- the event


def _combine(ctx: _Ctx, outcomes: list[HookOutcome]) -> Routed:
    routed = Routed()
    for out in outcomes:
        routed.model_texts += out.model_texts
        routed.human_texts += out.human_texts
        routed.transcript_records += out.records
        routed.feedback += out.feedback
        routed.persisted.update(out.persisted)
        if out.local_line:
            routed.local_command_lines.append(out.local_line)
        if out.cli_stderr:
            routed.cli_stderr.append(out.cli_stderr)
    kinds = [out.block for out in outcomes if out.block]
    if kinds:
        routed.blocked = True
        routed.block_kind = min(kinds, key=_BLOCK_PRIORITY.index)
    if ctx.event == "UserPromptSubmit":
        _combine_prompt(ctx, routed, outcomes)
    elif ctx.event in STOP_EVENTS:
        _combine_stop(ctx, routed, outcomes)
    elif ctx.event == "PreCompact":
        _combine_precompact(routed, outcomes)
    return routed


def _combine_prompt(ctx: _Ctx, routed: Routed, outcomes: list[HookOutcome]) -> None:
    """A blocked prompt never reaches the model; its message becomes the ``-p`` result."""
    if not routed.blocked:
        return
    blockers = [o for o in outcomes if o.block == routed.block_kind]
    reasons = "\n".join(o.reason or "" for o in blockers)
    raw = "\n".join(o.raw_reason or "" for o in blockers)
    routed.model_texts = []
    routed.feedback = []
    if routed.block_kind == PROMPT_ERASED:
        prompt = _text(ctx.payload.get("prompt"))
        text = (
            f"UserPromptSubmit operation blocked by hook:\n{reasons}\n\nOriginal prompt: {prompt}"
        )
        ending = {"ending": {"kind": "blocked_by_hook", "reason": raw}, "promptKept": False}
    else:
        text = f"Operation stopped by hook: {reasons}"
        ending = {"ending": {"kind": "stopped_by_hook", "reason": raw}, "promptKept": True}
        routed.transcript_records.append(meta_user(text))
    routed.result_text = text
    routed.human_texts.append(text)
    routed.transcript_records.append(
        {
            "type": "system",
            "subtype": "informational",
            "level": "warning",
            "content": text,
            "promptSubmitEnding": ending,
        }
    )


def _combine_stop(ctx: _Ctx, routed: Routed, outcomes: list[HookOutcome]) -> None:
    prevented = [o for o in outcomes if o.prevented]
    routed.prevented_continuation = bool(prevented)
    routed.stop_reason = prevented[0].stop_reason if prevented else None
    routed.continues_turn = any(o.continue_turn for o in outcomes) and not prevented
    if outcomes:
        routed.transcript_records.append(_stop_summary(ctx, outcomes, routed))
    for out in outcomes:
        routed.transcript_records += [meta_user(text) for text in out.meta_messages]
    if prevented:
        routed.feedback = []


def _combine_precompact(routed: Routed, outcomes: list[HookOutcome]) -> None:
    if routed.blocked:
        routed.model_texts = []
        reasons = [o.reason for o in outcomes if o.block == routed.block_kind and o.reason]
        routed.result_text = "\n".join(reasons) or None
        return
    parts = [o.instructions for o in outcomes if o.instructions]
    routed.compact_instructions = "\n\n".join(parts) if parts else None


def _stop_summary(ctx: _Ctx, outcomes: list[HookOutcome], routed: Routed) -> dict:
    errors: list[str] = []
    failed: list[int] = []
    infos = []
    for out in outcomes:
        info: dict = {"command": out.run.command}
        if out.run.exit_code != 2 or out.run.timed_out:
            info["durationMs"] = out.run.duration_ms
        infos.append(info)
        if out.summary_error is not None:
            if out.summary_error_failed:
                failed.append(len(errors))
            errors.append(out.summary_error)
    return {
        "type": "system",
        "subtype": "stop_hook_summary",
        "hookCount": len(outcomes),
        "hookInfos": infos,
        "hookErrors": errors,
        "failedHookErrorIndexes": failed,
        "hookAdditionalContext": [c for o in outcomes for c in o.additional_context],
        "preventedContinuation": routed.prevented_continuation,
        "stopReason": routed.stop_reason or "",
        "hasOutput": any(o.run.stdout.strip() for o in outcomes),
        "level": "suggestion",
        "toolUseID": ctx.tool_use_id,
    }


# ---------------------------------------------------------------- helpers


def _parse_json(ctx: _Ctx, stdout: str) -> tuple[dict | None, str | None]:
    """(object, None) for JSON output, (None, None) for plain text, (None, msg) when invalid.

    WHY strict: text that merely starts like JSON, or JSON followed by more text, is plain text to
    Claude Code (contract 2.3). A ``hookSpecificOutput.hookEventName`` outside the schema makes the
    hook fail; a name for another event is assumed to fail too (not measured).
    """
    text = stdout.strip()
    if not text.startswith("{"):
        return None, None
    try:
        data = json.loads(text)
    except ValueError:
        return None, None
    if not isinstance(data, dict):
        return None, None
    specific = data.get("hookSpecificOutput")
    if specific is None:
        return data, None
    name = specific.get("hookEventName") if isinstance(specific, dict) else None
    if name not in ACCEPTED_OUTPUT_EVENT_NAMES:
        expected = " | ".join(f'"{n}"' for n in ACCEPTED_OUTPUT_EVENT_NAMES)
        return None, (
            "Hook JSON output validation failed — hookSpecificOutput.hookEventName: "
            f"expected one of {expected}"
        )
    if ctx.event not in COMPACT_EVENTS and name != ctx.event:
        return None, (
            f"Hook returned incorrect event name: expected '{ctx.event}' but got '{name}'"
        )
    return data, None


def _limit(ctx: _Ctx, text: str, out: HookOutcome) -> str:
    """Stdout over 10,000 characters is saved to a file; only a 2 KB preview goes on."""
    if len(text) <= OUTPUT_LIMIT:
        return text
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    name = f"hook-{uuid.uuid4()}-{digest}-stdout.txt"
    path = _tool_results_dir(ctx) / name
    out.persisted[str(path)] = text
    size = _human_size(len(text.encode("utf-8")))
    return (
        f"<persisted-output>\nOutput too large ({size}). Full output saved to: {path}\n\n"
        f"Preview (first 2KB):\n{text[:PREVIEW_CHARS]}\n...\n</persisted-output>"
    )


def _cut_precompact(run: HookRun, text: str) -> str:
    if len(text) <= OUTPUT_LIMIT:
        return text
    return (
        f"{text[:OUTPUT_LIMIT]}\n\n[PreCompact hook [{run.command}] output cut: {len(text)} "
        f"characters is over the {OUTPUT_LIMIT}-character limit]"
    )


def _tool_results_dir(ctx: _Ctx) -> Path:
    transcript = Path(_text(ctx.payload.get("transcript_path")) or "transcript.jsonl")
    session_id = _text(ctx.payload.get("session_id")) or transcript.stem
    return transcript.parent / session_id / "tool-results"


def _human_size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f}KB"
    return f"{size / (1024 * 1024):.1f}MB"


def _exit2_text(run: HookRun) -> str:
    return (
        f"[{run.expanded_command}]: {_stderr(run)}\n"
        f"This hook comes from the {run.plugin}@inline plugin."
    )


def _stderr(run: HookRun) -> str:
    return run.stderr.strip() or "No stderr output"


def _human_stderr(stderr: str) -> str:
    prefix = "Failed with non-blocking status code: "
    return stderr[len(prefix) :] if stderr.startswith(prefix) else stderr


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _attachment(ctx: _Ctx, kind: str, **fields: object) -> dict:
    body = {"type": kind, "hookName": ctx.name, "toolUseID": ctx.tool_use_id}
    body["hookEvent"] = ctx.event
    body.update(fields)
    return {"type": "attachment", "attachment": body}


def _hook_success(ctx: _Ctx, run: HookRun, content: str) -> dict:
    return _attachment(
        ctx,
        "hook_success",
        content=content,
        stdout=run.stdout,
        stderr=run.stderr,
        exitCode=0,
        command=run.command,
        durationMs=run.duration_ms,
    )


def _cancelled(ctx: _Ctx, run: HookRun) -> dict:
    return _attachment(
        ctx,
        "hook_cancelled",
        command=run.command,
        durationMs=run.duration_ms,
        timedOut=True,
        timeoutMs=round(run.timeout * 1000),
    )
