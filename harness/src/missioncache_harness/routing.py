"""Where Claude Code sends each hook's output: the model, the human, the transcript, or nowhere.

WHY a separate, pure step: the same hook output means different things per event (contract
sections 2, 8 and 11): SessionStart stdout becomes model context, Stop stdout stays in the
transcript, PreCompact stdout becomes compaction instructions, StopFailure output goes nowhere,
JSON is honoured even with exit 1. Tests of the product assert on these destinations, so this
module turns `HookRun`s into a `Routed` without running anything. Texts carry Claude Code's
exact prefixes.

Only the channels MissionCache uses are routed: plain stdout, `systemMessage`,
`hookSpecificOutput.additionalContext`, failing exits, timeouts and the 10,000-character rule.
A hook that asks Claude Code to block or steer (exit 2 where it blocks, `decision: block`,
`continue: false`, Stop's `additionalContext`) is flagged as `blocked` with a `block_kind` naming
the request, and its consequences are not played out: the product never does this, and what the
real CLI does then is pinned by the recorded CLI runs in harness/tests/golden.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from missioncache_harness.runner import HookRun

OUTPUT_LIMIT = 10_000  # characters of hook stdout passed on before it is persisted or cut
PREVIEW_CHARS = 2_000
CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit"})
COMPACT_EVENTS = frozenset({"PreCompact", "PostCompact"})
# Events whose hooks can block: exit 2 or `decision: block` (and `continue: false`, not at
# PreCompact) stop the prompt, keep the turn going or cancel the compaction (contract 2.2).
BLOCKING_EVENTS = frozenset({"UserPromptSubmit", "Stop", "PreCompact"})
# Claude Code's output schema has no hookSpecificOutput for these (measured for PostCompact,
# contract 11.4: a validation error on manual /compact).
NO_SPECIFIC_OUTPUT = frozenset({"PreCompact", "PostCompact", "SessionEnd"})
# Events whose output reaches no one (contract 11.3 for StopFailure, 2.1 for SessionEnd).
SILENT_EVENTS = frozenset({"StopFailure", "SessionEnd"})


@dataclass
class Routed:
    """The event-level verdict: what Claude, the human and the transcript get.

    ``model_texts`` are the texts the model receives (prefixes included);
    ``transcript_records`` are record bodies (without uuid/timestamp/session keys, which the
    Session adds); ``blocked`` says a hook asked Claude Code to block or steer (``block_kind``
    says how); ``persisted`` maps files Claude Code would write (over-long output) to their text.
    """

    model_texts: list[str] = field(default_factory=list)
    human_texts: list[str] = field(default_factory=list)
    transcript_records: list[dict] = field(default_factory=list)
    blocked: bool = False
    block_kind: str | None = None
    compact_instructions: str | None = None
    local_command_lines: list[str] = field(default_factory=list)
    persisted: dict[str, str] = field(default_factory=dict)


@dataclass
class EventResult:
    """One fired event: its payload, every hook run (completion order) and the routing verdict."""

    event: str
    payload: dict
    hooks: list[HookRun]
    routed: Routed


@dataclass
class _Ctx:
    event: str
    payload: Mapping[str, object]
    name: str


def route(event: str, runs: Sequence[HookRun], payload: Mapping[str, object]) -> Routed:
    """Route every hook run of one event firing; ``runs`` in completion order."""
    # The name Claude Code gives a hook in records and messages, e.g. ``SessionStart:startup``.
    name = f"SessionStart:{payload.get('source', 'startup')}" if event == "SessionStart" else event
    ctx = _Ctx(event, payload, name)
    routed = Routed()
    for run in runs:
        if event not in SILENT_EVENTS:
            _route_hook(ctx, run, routed)
    return routed


def _route_hook(ctx: _Ctx, run: HookRun, out: Routed) -> None:
    parsed, invalid = (None, None) if run.timed_out else _parse_json(ctx, run.stdout)
    block = _block_request(ctx, run, parsed)
    if block:
        if not out.blocked:
            out.blocked, out.block_kind = True, block
    elif ctx.event in COMPACT_EVENTS:
        _route_compact(ctx, run, out, invalid)
    elif run.timed_out:
        out.transcript_records.append(_attachment(ctx, "hook_cancelled"))
    elif invalid is not None:
        _non_blocking(ctx, out, invalid)
    elif run.exit_code == 0 or parsed is not None:
        # Measured on 2.1.328: valid JSON output wins over exit 1 (a hook_success, no error).
        _success(ctx, run, out, parsed)
    else:
        _non_blocking(ctx, out, f"Failed with non-blocking status code: {_stderr(run)}")


def _block_request(ctx: _Ctx, run: HookRun, parsed: dict | None) -> str | None:
    """How the hook asks Claude Code to block or steer this event, or None (the product's case)."""
    if ctx.event not in BLOCKING_EVENTS or run.timed_out:
        return None
    if run.exit_code == 2:
        return "exit 2"
    data = parsed or {}
    if data.get("decision") == "block":
        return "decision: block"
    if data.get("continue") is False and ctx.event != "PreCompact":
        return "continue: false"
    specific = data.get("hookSpecificOutput")
    if ctx.event == "Stop" and isinstance(specific, dict) and "additionalContext" in specific:
        return "Stop additionalContext continues the turn"
    return None


def _success(ctx: _Ctx, run: HookRun, out: Routed, parsed: dict | None) -> None:
    """JSON is interpreted; plain stdout reaches the model only at SessionStart/UPS."""
    if parsed is not None:
        if ctx.event != "UserPromptSubmit":  # measured: UPS JSON leaves no hook_success
            out.transcript_records.append(_attachment(ctx, "hook_success", content=""))
        _apply_json(ctx, out, parsed)
        return
    text = run.stdout.strip()
    if not text:
        return  # no record, nothing sent, stderr lost (contract 2.1)
    content = _limit(ctx, text, out)
    record = _attachment(ctx, "hook_success", content=content)
    if ctx.event in CONTEXT_EVENTS:
        line = f"{ctx.name} hook success: {content}"
        out.model_texts.append(line)
        record["rendered"] = [{"content": f"<system-reminder>\n{line}\n</system-reminder>"}]
        record["renderedRole"] = "system"
    out.transcript_records.append(record)


def _non_blocking(ctx: _Ctx, out: Routed, stderr: str) -> None:
    """A failing exit (1, 3, 126, 127, or 2 where it cannot block): the human sees "hook failed".

    The real CLI words exit 2's texts differently; only the record's kind is compared there.
    """
    out.transcript_records.append(_attachment(ctx, "hook_non_blocking_error", stderr=stderr))
    prefix = "Failed with non-blocking status code: "
    shown = stderr[len(prefix) :] if stderr.startswith(prefix) else stderr
    out.human_texts.append(f"{ctx.name} hook failed\n{shown}")


def _apply_json(ctx: _Ctx, out: Routed, data: dict) -> None:
    """The two JSON channels the product uses: systemMessage and additionalContext."""
    message = data.get("systemMessage")
    if isinstance(message, str):
        out.transcript_records.append(_attachment(ctx, "hook_system_message", content=message))
        out.human_texts.append(f"⎿  {ctx.name} says: {message}")
    specific = data.get("hookSpecificOutput")
    context = specific.get("additionalContext") if isinstance(specific, dict) else None
    if isinstance(context, str):
        # Measured on 2.1.328: the model and the record both get the note, not the text.
        context = _limit(ctx, context, out, "additionalContext")
        record = _attachment(ctx, "hook_additional_context", content=[context])
        if ctx.event == "SessionStart":  # measured: named "SessionStart", without ":<source>"
            record["attachment"]["hookName"] = ctx.event
        out.transcript_records.append(record)
        if ctx.event in CONTEXT_EVENTS:
            out.model_texts.append(f"{ctx.event} hook additional context: {context}")


def _route_compact(ctx: _Ctx, run: HookRun, out: Routed, invalid: str | None) -> None:
    """PreCompact/PostCompact: raw stdout, one line in /compact's output; only manual shows it.

    WHY raw: Claude Code does not interpret their JSON; PreCompact's text itself becomes the
    compaction's "Additional Instructions" (contract 2.3).
    """
    prefix = f"{ctx.event} [{run.command}]"
    if run.timed_out:
        line = f"{prefix} failed: Hook cancelled"
    elif invalid is not None:
        line = f"{prefix} failed: {invalid}"
    elif run.exit_code == 0:
        text = run.stdout.strip()
        line = f"{prefix} completed successfully" + (f": {text}" if text else "")
        if text and ctx.event == "PreCompact":
            cut = _cut_precompact(run, text)
            out.model_texts.append(f"Additional Instructions:\n{cut}")
            old = out.compact_instructions
            out.compact_instructions = cut if old is None else f"{old}\n\n{cut}"
    else:
        line = f"{prefix} failed: {_stderr(run)}"
    if ctx.payload.get("trigger") == "manual":
        out.local_command_lines.append(line)
        out.human_texts.append(line)


def _parse_json(ctx: _Ctx, stdout: str) -> tuple[dict | None, str | None]:
    """(object, None) for JSON output, (None, None) for plain text, (None, msg) when invalid.

    WHY strict: text that merely starts like JSON, or JSON followed by more text, is plain text to
    Claude Code (contract 2.3). A ``hookSpecificOutput`` the schema has no place for, or one
    naming another event, fails the hook.
    """
    text = stdout.strip()
    if not text.startswith("{"):
        return None, None
    try:
        data = json.loads(text)
    except ValueError:
        return None, None
    if not isinstance(data, dict) or data.get("hookSpecificOutput") is None:
        return (data, None) if isinstance(data, dict) else (None, None)
    specific = data["hookSpecificOutput"]
    name = specific.get("hookEventName") if isinstance(specific, dict) else None
    if ctx.event in NO_SPECIFIC_OUTPUT or not isinstance(name, str):
        return None, "Hook JSON output validation failed — hookSpecificOutput.hookEventName"
    if name != ctx.event:
        return None, f"Hook returned incorrect event name: expected '{ctx.event}' but got '{name}'"
    return data, None


def _limit(ctx: _Ctx, text: str, out: Routed, channel: str = "stdout") -> str:
    """Output over 10,000 characters is saved to a file; only a 2 KB preview goes on.

    The same rule holds for stdout and for ``additionalContext`` (contract 4.2 and 11.5).
    """
    if len(text) <= OUTPUT_LIMIT:
        return text
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    transcript = Path(str(ctx.payload.get("transcript_path") or "transcript.jsonl"))
    session_id = str(ctx.payload.get("session_id") or transcript.stem)
    name = f"hook-{uuid.uuid4()}-{digest}-{channel}.txt"
    path = transcript.parent / session_id / "tool-results" / name
    out.persisted[str(path)] = text
    size = len(text.encode("utf-8"))
    shown = f"{size} bytes" if size < 1024 else f"{size / 1024:.1f}KB"
    if size >= 1024 * 1024:
        shown = f"{size / (1024 * 1024):.1f}MB"
    return (
        f"<persisted-output>\nOutput too large ({shown}). Full output saved to: {path}\n\n"
        f"Preview (first 2KB):\n{_preview(text)}\n...\n</persisted-output>"
    )


def _preview(text: str) -> str:
    """The first 2,000 characters, cut back to the last line end in them when that keeps
    more than half (contract 11.5), so the model never gets half a line."""
    head = text[:PREVIEW_CHARS]
    end = head.rfind("\n")
    return head[:end] if end > PREVIEW_CHARS // 2 else head


def _cut_precompact(run: HookRun, text: str) -> str:
    if len(text) <= OUTPUT_LIMIT:
        return text
    return (
        f"{text[:OUTPUT_LIMIT]}\n\n[PreCompact hook [{run.command}] output cut: {len(text)} "
        f"characters is over the {OUTPUT_LIMIT}-character limit]"
    )


def _stderr(run: HookRun) -> str:
    return run.stderr.strip() or "No stderr output"


def _attachment(ctx: _Ctx, kind: str, **fields: object) -> dict:
    """A hook record. Of Claude Code's keys only those tests compare are kept (name, kind,
    content); the rest (stdout, exit code, duration, tool-use id) are real-CLI only."""
    return {"type": "attachment", "attachment": {"type": kind, "hookName": ctx.name, **fields}}
