"""Compare what the simulator says with what the real Claude Code CLI did, step by step
(the helpers of `harness/tests/test_simulator_matches_the_real_cli.py`, its only user).

WHY: the simulator is only worth trusting where it agrees with the CLI users run. The conformance
tests play one scenario twice, through `Session` and through `claude -p` against the fake API, and
reduce each side to the same `Observation`: the stdin every hook got (field names, value types and
the deterministic values), the hook texts that reached the model (with their exact prefixes), the
systemMessage lines recorded for the human, the hook records of the transcript, and what was
blocked. `differences` lists every disagreement; a conformance test asserts there are none. The
real side is recorded as a golden file (`write_golden`), so the simulator is checked against the
CLI in every run, with or without it.

Paths, session ids and clock readings differ between two runs by nature; `Normaliser` maps each
side's HOME and project directory to placeholders and masks times and durations, so the rest of
the text must match exactly.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from missioncache_harness.fake_api import COMPACT, MAIN, FakeAnthropicAPI
from missioncache_harness.payloads import cwd_key
from missioncache_harness.plugin import js_type

# Texts Claude Code puts in front of hook output; each is counted on both sides.
MODEL_PREFIXES = (
    *(f"SessionStart:{source} hook success: " for source in ("startup", "resume", "compact")),
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
    *("hook_event_name", "source", "trigger", "cwd", "session_id", "transcript_path", "prompt"),
    *("stop_hook_active", "custom_instructions", "permission_mode", "reason"),
)
HOOK_ATTACHMENTS = frozenset(
    f"hook_{kind}"
    for kind in (
        *("success", "non_blocking_error", "additional_context", "system_message"),
        *("blocking_error", "stopped_continuation", "cancelled"),
    )
)
_INSTRUCTIONS = re.compile(r"\n\nAdditional Instructions:\n(.*?)\n\n", re.S)
_REMINDER = re.compile(r"^<system-reminder>\n(.*)\n</system-reminder>$", re.S)
# /compact's output lists each hook's line in completion order, which varies between runs.
_LOCAL_STDOUT = re.compile(r"(<local-command-stdout>)(.*?)(</local-command-stdout>)", re.S)
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
    # The time invested and its split (Claude's, yours: docs/time.md) are clock readings.
    (
        re.compile(r"\((?:\d+h ?)?(?:\d+m)?(?:\d+s)? invested(?:: Claude [^,)]+, you [^)]+)?\)"),
        "(<DURATION> invested)",
    ),
    (re.compile(r"(\*\*Time invested:\*\* )[^\n\\]*"), r"\1<DURATION>"),
)
Stdin = tuple[str, dict[str, str], dict[str, Any]]


@dataclass
class Normaliser:
    """Maps one run's HOME, project dir and session id to placeholders; masks clock readings."""

    home: Path
    cwd: Path
    session_id: str = ""
    plugins: Sequence[Path] = ()

    def __call__(self, text: str) -> str:
        pairs = [(str(self.cwd), "<CWD>"), (cwd_key(self.cwd), "<CWD-KEY>")]
        pairs += [(str(self.home), "<HOME>"), (self.session_id, "<SID>")]
        pairs += [(str(plugin), "<PLUGIN>") for plugin in self.plugins]
        for old, new in sorted(pairs, key=lambda p: -len(p[0])):
            text = text.replace(old, new) if old else text
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


def _sorted_lines(match: re.Match) -> str:
    first, *rest = match.group(2).split("\n")
    return match.group(1) + "\n".join([first, *sorted(rest)]) + match.group(3)


@dataclass
class Observation:
    """One step of a scenario as one side saw it (all texts normalised)."""

    stdin: list[Stdin] = field(default_factory=list)
    model_texts: list[str] = field(default_factory=list)
    human: list[tuple[str, str]] = field(default_factory=list)
    hook_records: list[tuple[str, str]] = field(default_factory=list)
    blocked: bool = False
    result: str | None = None
    compact_instructions: str | None = None
    local_command_stdout: list[str] = field(default_factory=list)

    @property
    def model_text_blob(self) -> str:
        return "\n\n".join(self.model_texts)

    def prefix_counts(self) -> Counter:
        blob = self.model_text_blob
        return Counter({p: blob.count(p) for p in MODEL_PREFIXES if blob.count(p)})


def _shape_differs(event: str, sim: dict[str, str], real: dict[str, str]) -> bool:
    if sim == real:
        return False
    if event != "SessionStart" or set(sim) - set(real):
        return True
    same = all(real[k] == sim[k] for k in sim)
    return not (same and set(real) - set(sim) <= RESUME_CACHE_FIELDS)


def differences(sim: Observation, real: Observation, label: str = "") -> list[str]:
    """Every way the two observations disagree, as readable lines (empty when they agree)."""
    where = f"{label}: " if label else ""
    problems = []
    events = ([e[0] for e in sim.stdin], [e[0] for e in real.stdin])
    if events[0] != events[1]:
        problems.append(f"{where}events: sim {events[0]} real {events[1]}")
    for (event, s_shape, s_vals), (_e, r_shape, r_vals) in zip(sim.stdin, real.stdin):
        if _shape_differs(event, s_shape, r_shape):
            problems.append(f"{where}{event} stdin fields: sim {s_shape} real {r_shape}")
        if s_vals != r_vals:
            problems.append(f"{where}{event} stdin values: sim {s_vals} real {r_vals}")
    for text in sim.model_texts:
        if text not in real.model_text_blob:
            problems.append(
                f"{where}sim says the model got {text!r}; the real CLI sent no such text"
            )
    if sim.prefix_counts() != real.prefix_counts():
        counts = f"sim {dict(sim.prefix_counts())} real {dict(real.prefix_counts())}"
        problems.append(f"{where}hook texts to the model: {counts}")
    names = ("human", "hook_records", "blocked", "result", "compact_instructions")
    for name in (*names, "local_command_stdout"):
        mine, theirs = getattr(sim, name), getattr(real, name)
        if mine != theirs:
            problems.append(f"{where}{name}: sim {mine!r} real {theirs!r}")
    return problems


def _observe(
    log: Iterable[Mapping[str, Any]], records: Iterable[Mapping[str, Any]], norm: Normaliser
) -> Observation:
    """What both sides record alike: hook stdin (from the probe's log) and the transcript's
    hook attachments, systemMessage lines and `<local-command-stdout>` records."""
    obs = Observation()
    for entry in log:
        stdin = entry.get("stdin") or {}
        shape = {key: js_type(value) for key, value in sorted(stdin.items())}
        values = {k: norm.value(stdin[k]) for k in DETERMINISTIC if k in stdin}
        obs.stdin.append((str(entry.get("event")), shape, values))
    for record in records:
        attachment = record.get("attachment")
        kind = attachment.get("type") if isinstance(attachment, dict) else None
        if kind in HOOK_ATTACHMENTS:
            obs.hook_records.append((str(attachment.get("hookName")), str(kind)))
        if kind == "hook_system_message":
            content = norm(str(attachment.get("content")))
            obs.human.append((str(attachment.get("hookName")), content))
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str) and content.startswith("<local-command-stdout>"):
            obs.local_command_stdout.append(norm(content))
    obs.hook_records.sort()  # completion order varies
    return obs


def observe_real(
    run: Any,
    api: FakeAnthropicAPI,
    *,
    requests_before: int,
    log: Sequence[Mapping[str, Any]],
    records: Sequence[Mapping[str, Any]],
    norm: Normaliser,
    prompt: str | None,
) -> Observation:
    """One real CLI process (``run``) reduced to an Observation.

    ``log`` and ``records`` are the probe-log entries and transcript records this process added;
    ``requests_before`` is how many requests the fake API had seen before it started. The texts
    are those of the last main request from the last user message holding ``prompt``: a resumed
    session replays earlier hook texts before the new prompt (contract 2.1).
    ``<system-reminder>`` wrappers are removed so both sides' wrappings compare alike.
    """
    obs = _observe(log, records, norm)
    made = api.requests[requests_before:]
    main = [r for r in made if r.kind == MAIN]
    compact = [r for r in made if r.kind == COMPACT]
    if main:
        messages = main[-1].messages
        holding = [
            i
            for i, m in enumerate(messages)
            if prompt is not None and m.get("role") == "user" and prompt in _texts(m)
        ]
        for text in [t for m in messages[holding[-1] if holding else 0 :] for t in _texts(m)]:
            wrapped = _REMINDER.match(text.strip())
            obs.model_texts.append(norm(wrapped.group(1) if wrapped else text))
    if compact:
        instructions = _INSTRUCTIONS.search(compact[-1].last_user_text())
        obs.compact_instructions = norm(instructions.group(1)) if instructions else None
    obs.blocked = not main and not compact
    obs.result = norm(run.result_text or "") if (obs.blocked or main) else None
    return obs


def _texts(message: Mapping[str, Any]) -> list[str]:
    """The texts of one message: its content string, or its text blocks."""
    content = message.get("content")
    blocks = content if isinstance(content, list) else [{"text": content}]
    return [b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)]


def observe_sim(
    outcome: Any,
    *,
    log: Sequence[Mapping[str, Any]],
    records: Sequence[Mapping[str, Any]],
    norm: Normaliser,
) -> Observation:
    """One simulated step (a `Turn` or a `Compaction`) reduced to an Observation."""
    from missioncache_harness.session import Compaction

    obs = _observe(log, records, norm)
    obs.blocked = outcome.blocked
    if isinstance(outcome, Compaction):
        obs.result = norm(outcome.result or "") if outcome.blocked else None
        if outcome.instructions is not None:
            obs.compact_instructions = norm(outcome.instructions)
    else:
        obs.model_texts = [norm(t) for t in outcome.model_texts]
        obs.result = norm(outcome.result)
    return obs


def write_golden(path: Path, observed: Mapping[str, Observation], version: str | None) -> None:
    """Record the real CLI's observations of a scenario, small and sanitised.

    Of the texts the model got, only the paragraphs that start with a hook prefix are kept: the
    CLI's own sections (its environment, reminders) are neither compared nor stable. Paths and
    ids are already placeholders, so nothing of the recording machine remains. One line per
    field keeps the file small and its diffs readable.
    """
    steps = []
    for name, obs in observed.items():
        data = asdict(obs)
        paragraphs = [p for text in obs.model_texts for p in text.split("\n\n")]
        data["model_texts"] = [p for p in paragraphs if p.startswith(MODEL_PREFIXES)]
        fields = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in data.items())
        steps.append(f" {json.dumps(name)}: {{\n{fields}\n }}")
    body = ",\n".join(steps)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = f'{{"claude_code": {json.dumps(version)}, "steps": {{\n{body}\n}}}}\n'
    path.write_text(text, encoding="utf-8")


def read_golden(path: Path) -> dict[str, Observation]:
    """The recorded observations per step, as the real side of `differences`."""
    steps = json.loads(path.read_text(encoding="utf-8"))["steps"]
    out = {}
    for name, data in steps.items():
        obs = out[name] = Observation(**data)
        obs.stdin = [(event, shape, values) for event, shape, values in obs.stdin]
        obs.human = [(hook, text) for hook, text in obs.human]
        obs.hook_records = [(hook, kind) for hook, kind in obs.hook_records]
    return out
