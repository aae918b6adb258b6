"""Compare what the simulator says with what the real Claude Code CLI did, step by step.

WHY: the simulator is only worth trusting where it agrees with the CLI users run. The conformance
tests play one scenario twice, through `Session` and through `claude -p` against the fake API, and
reduce each side to the same `Observation`: the stdin every hook got (field names, value types and
the deterministic values), the hook texts that reached the model (with their exact prefixes), the
systemMessage lines recorded for the human, the hook records of the transcript, and what was
blocked. `differences` lists every disagreement; a conformance test asserts there are none.

Paths, session ids and clock readings differ between two runs by nature; `Normaliser` maps each
side's HOME and project directory to placeholders and masks times and durations, so the rest of
the text must match exactly.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from missioncache_harness.payloads import cwd_key
from missioncache_harness.plugin import js_type

# Texts Claude Code puts in front of hook output; each is counted on both sides.
MODEL_PREFIXES = (
    "SessionStart:startup hook success: ",
    "SessionStart:resume hook success: ",
    "SessionStart:compact hook success: ",
    "SessionStart:clear hook success: ",
    "SessionStart hook additional context: ",
    "UserPromptSubmit hook success: ",
    "UserPromptSubmit hook additional context: ",
    "Stop hook feedback:\n",
    "Stop hook additional context: ",
    "Stop hook blocking error from command: ",
    "<local-command-stdout>",
)
# Stdin values that are the same in every run of a scenario (after path normalisation).
DETERMINISTIC = (
    "hook_event_name",
    "source",
    "trigger",
    "cwd",
    "session_id",
    "transcript_path",
    "prompt",
    "stop_hook_active",
    "custom_instructions",
    "permission_mode",
    "reason",
)
HOOK_ATTACHMENTS = frozenset(
    {
        "hook_success",
        "hook_non_blocking_error",
        "hook_additional_context",
        "hook_system_message",
        "hook_blocking_error",
        "hook_stopped_continuation",
        "hook_cancelled",
    }
)
_INSTRUCTIONS = re.compile(r"\n\nAdditional Instructions:\n(.*?)\n\n", re.S)
_REMINDER = re.compile(r"^<system-reminder>\n(.*)\n</system-reminder>$", re.S)
# /compact's output lists each hook's line in completion order, which varies between runs.
_LOCAL_STDOUT = re.compile(r"<local-command-stdout>(.*?)</local-command-stdout>", re.S)
# Measured on 2.1.328: a resume right after a compaction usually carries none of these; when the
# compaction kept a recent segment of the conversation ("preservedSegment" in the boundary's
# metadata) they are back. The simulator does not model preserved segments, so their absence on
# the simulator's side is tolerated; when both sides send them, their types must agree.
RESUME_CACHE_FIELDS = frozenset(
    {
        "seconds_since_last_response",
        "context_tokens",
        "prompt_cache_likely_expired",
        "estimated_cache_write_usd",
    }
)
_MASKS = (
    (re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}"), "<WHEN>"),
    (re.compile(r"\((?:\d+h ?)?(?:\d+m)?(?:\d+s)? invested"), "(<DURATION> invested"),
    (re.compile(r"(\*\*Time invested:\*\* )\S+(?: \d+m)?"), r"\1<DURATION>"),
)


@dataclass
class Normaliser:
    """Maps one run's HOME and project dir to placeholders and masks clock readings."""

    home: Path
    cwd: Path

    def __call__(self, text: str) -> str:
        pairs = [
            (str(self.cwd), "<CWD>"),
            (cwd_key(self.cwd), "<CWD-KEY>"),
            (str(self.home), "<HOME>"),
        ]
        for old, new in sorted(pairs, key=lambda p: -len(p[0])):
            text = text.replace(old, new)
        for pattern, replacement in _MASKS:
            text = pattern.sub(replacement, text)
        return _LOCAL_STDOUT.sub(_sorted_lines, text)

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        return value


@dataclass
class Observation:
    """One step of a scenario as one side saw it (all texts normalised)."""

    stdin: list[tuple[str, dict[str, str], dict[str, Any]]] = field(default_factory=list)
    model_texts: list[str] = field(default_factory=list)
    model_text_blob: str = ""
    human: list[tuple[str, str]] = field(default_factory=list)
    hook_records: list[tuple[str, str]] = field(default_factory=list)
    blocked: bool = False
    result: str | None = None
    compact_instructions: str | None = None
    local_command_stdout: list[str] = field(default_factory=list)

    def prefix_counts(self) -> Counter:
        blob = self.model_text_blob or "\n\n".join(self.model_texts)
        return Counter({p: blob.count(p) for p in MODEL_PREFIXES if blob.count(p)})


def _sorted_lines(match: re.Match) -> str:
    lines = match.group(1).split("\n")
    return (
        "<local-command-stdout>"
        + "\n".join(lines[:1] + sorted(lines[1:]))
        + ("</local-command-stdout>")
    )


def _shape_differs(event: str, sim: dict[str, str], real: dict[str, str]) -> bool:
    if sim == real:
        return False
    if event != "SessionStart" or set(sim) - set(real):
        return True
    extra = set(real) - set(sim)
    same = all(real[k] == sim[k] for k in sim)
    return not (same and extra <= RESUME_CACHE_FIELDS)


def stdin_entries(
    log: Iterable[Mapping[str, Any]], norm: Normaliser
) -> list[tuple[str, dict[str, str], dict[str, Any]]]:
    """(event, {field: type}, {deterministic field: value}) per logged hook run, in order."""
    out = []
    for entry in log:
        stdin = entry.get("stdin") or {}
        shape = {key: js_type(value) for key, value in sorted(stdin.items())}
        values = {k: norm.value(stdin[k]) for k in DETERMINISTIC if k in stdin}
        out.append((str(entry.get("event")), shape, values))
    return out


def hook_records(records: Iterable[Mapping[str, Any]], norm: Normaliser) -> list[tuple[str, str]]:
    """(hookName, attachment type) of every hook record, sorted (completion order varies)."""
    found = []
    for record in records:
        attachment = record.get("attachment")
        if isinstance(attachment, dict) and attachment.get("type") in HOOK_ATTACHMENTS:
            found.append((str(attachment.get("hookName")), str(attachment["type"])))
    return sorted(found)


def system_messages(
    records: Iterable[Mapping[str, Any]], norm: Normaliser
) -> list[tuple[str, str]]:
    """(hookName, content) of every systemMessage recorded for the human."""
    found = []
    for record in records:
        attachment = record.get("attachment")
        if isinstance(attachment, dict) and attachment.get("type") == "hook_system_message":
            found.append((str(attachment.get("hookName")), norm(str(attachment.get("content")))))
    return found


def local_command_stdout(records: Iterable[Mapping[str, Any]], norm: Normaliser) -> list[str]:
    """The ``<local-command-stdout>`` user records (what a manual /compact showed)."""
    found = []
    for record in records:
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str) and content.startswith("<local-command-stdout>"):
            found.append(norm(content))
    return found


def request_texts(request: Any, since_prompt: str | None) -> list[str]:
    """Texts of one request's messages from the last user message holding ``since_prompt``.

    WHY from the prompt on: a resumed session replays earlier hook texts before the new prompt;
    the texts a step added follow its prompt (contract 2.1). ``<system-reminder>`` wrappers are
    removed so both models' wrappings compare alike.
    """
    messages = request.messages
    start = 0
    if since_prompt is not None:
        for index, message in enumerate(messages):
            if message.get("role") == "user" and since_prompt in _texts(message.get("content")):
                start = index
    out = []
    for message in messages[start:]:
        for text in _texts(message.get("content")):
            match = _REMINDER.match(text.strip())
            out.append(match.group(1) if match else text)
    return out


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        found = []
        for block in content:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                found.append(block["text"])
        return found
    return []


def compaction_instructions(text: str) -> str | None:
    """The "Additional Instructions" the compaction request carried, if any."""
    match = _INSTRUCTIONS.search(text)
    return match.group(1) if match else None


def differences(sim: Observation, real: Observation, label: str = "") -> list[str]:
    """Every way the two observations disagree, as readable lines (empty when they agree)."""
    where = f"{label}: " if label else ""
    problems = []
    if [e[0] for e in sim.stdin] != [e[0] for e in real.stdin]:
        problems.append(
            f"{where}events: sim {[e[0] for e in sim.stdin]} real {[e[0] for e in real.stdin]}"
        )
    for (event, s_shape, s_vals), (_e, r_shape, r_vals) in zip(sim.stdin, real.stdin):
        if _shape_differs(event, s_shape, r_shape):
            problems.append(f"{where}{event} stdin fields: sim {s_shape} real {r_shape}")
        if s_vals != r_vals:
            problems.append(f"{where}{event} stdin values: sim {s_vals} real {r_vals}")
    blob = real.model_text_blob or "\n\n".join(real.model_texts)
    for text in sim.model_texts:
        if text not in blob:
            problems.append(
                f"{where}sim says the model got {text!r}; the real CLI sent no such text"
            )
    if sim.prefix_counts() != real.prefix_counts():
        problems.append(
            f"{where}hook texts to the model: sim {dict(sim.prefix_counts())} "
            f"real {dict(real.prefix_counts())}"
        )
    for name in ("human", "hook_records", "blocked", "result", "compact_instructions"):
        mine, theirs = getattr(sim, name), getattr(real, name)
        if mine != theirs:
            problems.append(f"{where}{name}: sim {mine!r} real {theirs!r}")
    if sim.local_command_stdout != real.local_command_stdout:
        problems.append(
            f"{where}/compact output: sim {sim.local_command_stdout!r} "
            f"real {real.local_command_stdout!r}"
        )
    return problems


def observe_real(
    run: Any,
    api: Any,
    *,
    requests_before: int,
    log: Sequence[Mapping[str, Any]],
    records: Sequence[Mapping[str, Any]],
    norm: Normaliser,
    prompt: str | None,
) -> Observation:
    """One real CLI process (``run``) reduced to an Observation.

    ``log`` and ``records`` are the probe-log entries and transcript records this process added;
    ``requests_before`` is how many requests the fake API had seen before it started.
    """
    from missioncache_harness.fake_api import COMPACT, MAIN

    made = api.requests[requests_before:]
    main = [r for r in made if r.kind == MAIN]
    compact = [r for r in made if r.kind == COMPACT]
    texts = [norm(t) for t in request_texts(main[-1], prompt)] if main else []
    instructions = None
    if compact:
        instructions = compaction_instructions(compact[-1].last_user_text())
    blocked = not main and not compact
    return Observation(
        stdin=stdin_entries(log, norm),
        model_texts=texts,
        model_text_blob="\n\n".join(texts),
        human=system_messages(records, norm),
        hook_records=hook_records(records, norm),
        blocked=blocked,
        result=norm(run.result_text or "") if (blocked or main) else None,
        compact_instructions=norm(instructions) if instructions is not None else None,
        local_command_stdout=local_command_stdout(records, norm),
    )


def observe_sim(
    outcome: Any,
    *,
    log: Sequence[Mapping[str, Any]],
    records: Sequence[Mapping[str, Any]],
    norm: Normaliser,
) -> Observation:
    """One simulated step (a `Turn` or a `Compaction`) reduced to an Observation."""
    from missioncache_harness.session import Compaction

    if isinstance(outcome, Compaction):
        texts: list[str] = []
        result = norm(outcome.result or "") if outcome.blocked else None
        instructions = outcome.instructions
    else:
        texts = [norm(t) for t in outcome.model_texts]
        result = norm(outcome.result)
        instructions = None
    return Observation(
        stdin=stdin_entries(log, norm),
        model_texts=texts,
        human=system_messages(records, norm),
        hook_records=hook_records(records, norm),
        blocked=outcome.blocked,
        result=result,
        compact_instructions=norm(instructions) if instructions is not None else None,
        local_command_stdout=local_command_stdout(records, norm),
    )


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """JSON lines of a file (a probe log), [] when it does not exist."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
