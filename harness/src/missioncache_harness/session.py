"""A simulated Claude Code session: fires hooks in Claude Code's order and keeps a transcript.

WHY: the product's hooks cooperate across a session (SessionStart binds a task, UserPromptSubmit
records heartbeats, Stop looks for this exchange's edits in the transcript, PreCompact saves before
a compaction). Testing them one event at a time misses the order and the shared files. A Session
plays a scripted session the way Claude Code 2.1.328 runs it (contract sections 1, 2, 7 and 11):

    start(source)            SessionStart
    prompt(text, reply=...)  UserPromptSubmit, the user record, the scripted reply (Write/Edit
                             performed on disk; tool hooks are not simulated), then Stop (or
                             StopFailure, or nothing for an Esc)
    compact(trigger, ...)    PreCompact, SessionStart(compact), PostCompact, then the records
    end(reason)              SessionEnd

"Claude" is a script: `session.prompt("fix it", reply=[Text("done"), Edit("a.py", "x", "y")])`.
A hook that asks to block or steer (see routing) ends the step where Claude Code would act on it,
with ``blocked`` set; what the real CLI does next is pinned by the golden file, not played here.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from missioncache_harness import payloads
from missioncache_harness import transcript as tx
from missioncache_harness.plugin import Plugin, load_plugin
from missioncache_harness.routing import EventResult, route
from missioncache_harness.runner import claude_dir_for, run_event
from missioncache_harness.tools import Block, Text, Tool, ToolOutcome, perform, tool_input

DEFAULT_TEXT = "Done."


def as_plugins(plugins: Plugin | str | Path | Sequence[Plugin | str | Path]) -> list[Plugin]:
    """Accept a Plugin, a plugin directory, or a list of either."""
    items = [plugins] if isinstance(plugins, (Plugin, str, Path)) else list(plugins)
    return [p if isinstance(p, Plugin) else load_plugin(p) for p in items]


def fire(
    plugins: Plugin | str | Path | Sequence[Plugin | str | Path],
    event: str,
    payload: Mapping[str, object],
    *,
    project_dir: str | Path,
    env: Mapping[str, str] | None = None,
) -> EventResult:
    """Fire one event outside a session: run its hooks with ``payload`` on stdin and say where
    their output goes (the runner knows processes, the router Claude Code's rules)."""
    runs = run_event(as_plugins(plugins), event, payload, project_dir=project_dir, env=env)
    return EventResult(event, dict(payload), runs, route(event, runs, payload))


@dataclass
class Turn:
    """One prompt and everything it caused.

    ``model_texts``: hook texts that reached Claude during this turn, in order (SessionStart and
    compaction texts waiting since the last request come first). ``result`` is what ``claude -p``
    would print: the final assistant text ("" when a hook blocked the prompt).
    """

    prompt: str
    prompt_id: str
    events: list[EventResult] = field(default_factory=list)
    model_texts: list[str] = field(default_factory=list)
    human_texts: list[str] = field(default_factory=list)
    blocked: bool = False
    block_kind: str | None = None
    result: str = ""
    tools: list[ToolOutcome] = field(default_factory=list)


@dataclass
class Compaction:
    """One compaction: whether it ran, the instructions it got and what hooks said."""

    trigger: str
    events: list[EventResult] = field(default_factory=list)
    blocked: bool = False
    block_kind: str | None = None
    result: str | None = None  # Claude Code's message for a blocked compaction: real-CLI only
    instructions: str | None = None
    summary: str = ""
    human_texts: list[str] = field(default_factory=list)


class Session:
    """A scripted Claude Code session against one or more plugins, in a project directory."""

    def __init__(
        self,
        plugin: Plugin | str | Path | Sequence[Plugin | str | Path],
        project_dir: str | Path,
        *,
        env: Mapping[str, str] | None = None,
        session_id: str | None = None,
    ) -> None:
        self.plugins = as_plugins(plugin)
        self.project_dir = Path(os.path.realpath(project_dir))
        self.env = dict(os.environ if env is None else env)
        self.session_id = session_id or payloads.new_id()
        self.events: list[EventResult] = []
        self.model_log: list[str] = []  # every hook text delivered to the model, in order
        self._prompt_id: str | None = None
        self._pending_context: list[str] = []
        self._conversation: list[str] = []
        self._replied_since_compaction = True
        claude_dir = claude_dir_for(self.env)
        path = payloads.transcript_path(claude_dir, self.project_dir, self.session_id)
        self.writer = tx.TranscriptWriter(
            Path(path), session_id=self.session_id, cwd=str(self.project_dir)
        )

    # ------------------------------------------------------------ public

    @property
    def transcript_path(self) -> Path:
        return self.writer.path

    def records(self) -> list[dict]:
        """The transcript as written so far (empty while the file does not exist)."""
        return self.writer.records()

    def fire(self, event: str, payload: Mapping[str, object]) -> EventResult:
        """Fire any event with a payload of your own; logged like the scripted ones."""
        result = fire(self.plugins, event, payload, project_dir=self.project_dir, env=self.env)
        self.events.append(result)
        for path, text in result.routed.persisted.items():
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(text, encoding="utf-8")
        return result

    def base(self, event: str) -> dict:
        """The common stdin fields for ``event`` in this session."""
        return payloads.common(
            event,
            session_id=self.session_id,
            transcript_path=str(self.transcript_path),
            cwd=str(self.project_dir),
        )

    def start(self, source: str = "startup") -> EventResult:
        """SessionStart; its model texts wait for the next request to the model."""
        payload = payloads.session_start(
            self.base("SessionStart"),
            source,
            prompt_id=self._prompt_id,
            # Measured: a resume right after a compaction carries no cache figures.
            cache_figures=self._replied_since_compaction,
        )
        result = self.fire("SessionStart", payload)
        self._record(result)
        self._pending_context += result.routed.model_texts
        return result

    def prompt(
        self,
        text: str | list,
        reply: Iterable[Block] | None = None,
        *,
        ending: str = "stop",
        background_tasks: list[dict] | None = None,
    ) -> Turn:
        """One user prompt and Claude's scripted reply; Stop follows unless something ended it.

        ``text`` may be a list of content blocks (as stream-json or an image prompt sends): the
        transcript keeps the list, UserPromptSubmit gets the text joined with newlines.
        ``ending``: ``stop`` (Stop, with ``background_tasks`` still running), ``failure``
        (an API error: StopFailure instead of Stop) or ``interrupt`` (Esc or Ctrl-C: no hook
        fires for the turn), as measured on 2.1.328 (contract 11.2, 11.3).
        """
        prompt_id = self._prompt_id = payloads.new_id()
        flat = payloads.flatten_prompt(text)
        turn = Turn(prompt=flat, prompt_id=prompt_id)
        self.writer.add(tx.queue_operation("enqueue", flat))
        self.writer.add(tx.queue_operation("dequeue"))
        payload = payloads.user_prompt_submit(
            self.base("UserPromptSubmit"), text, prompt_id=prompt_id
        )
        ups = self._step_event(turn, "UserPromptSubmit", payload)
        self.writer.open()
        if ups.routed.blocked:
            return turn
        self.writer.user(text, promptId=prompt_id, permissionMode="acceptEdits")
        self._conversation.append(f"User: {flat}")
        self._record(ups)
        turn.model_texts += self._pending_context + ups.routed.model_texts
        self.model_log += turn.model_texts
        self._pending_context = []
        self._play(turn, reply)
        if ending == "failure":
            failure = payloads.stop_failure(self.base("StopFailure"), prompt_id=prompt_id)
            self._record(self._step_event(turn, "StopFailure", failure))
        elif ending == "stop":
            stop = payloads.stop(
                self.base("Stop"),
                prompt_id=prompt_id,
                last_assistant_message=turn.result,
                background_tasks=background_tasks,
            )
            self._record(self._step_event(turn, "Stop", stop))
        return turn

    def compact(
        self,
        trigger: str = "manual",
        custom_instructions: str | None = None,
        *,
        summary: str | None = None,
    ) -> Compaction:
        """A compaction, manual (``/compact [instructions]``) or auto."""
        prompt_id = self._prompt_id = payloads.new_id()
        comp = Compaction(trigger)
        pre = payloads.pre_compact(
            self.base("PreCompact"),
            prompt_id=prompt_id,
            trigger=trigger,
            custom_instructions=custom_instructions,
        )
        if self._step_event(comp, "PreCompact", pre).routed.blocked:
            return comp
        parts = [p for p in (custom_instructions, comp.events[0].routed.compact_instructions) if p]
        comp.instructions = "\n\n".join(parts) if parts else None
        comp.summary = summary or self._default_summary()
        base = self.base("SessionStart")
        start = payloads.session_start(base, "compact", prompt_id=prompt_id)
        self._step_event(comp, "SessionStart", start)
        post = payloads.post_compact(
            self.base("PostCompact"),
            prompt_id=prompt_id,
            trigger=trigger,
            compact_summary=comp.summary,
        )
        self._step_event(comp, "PostCompact", post)
        self._write_compaction(comp, custom_instructions)
        return comp

    def end(self, reason: str = "other") -> EventResult:
        """SessionEnd; nothing of it reaches the transcript (contract 2.1)."""
        payload = payloads.session_end(
            self.base("SessionEnd"), reason=reason, prompt_id=self._prompt_id
        )
        return self.fire("SessionEnd", payload)

    # ------------------------------------------------------------ internals

    def _step_event(
        self, step: Turn | Compaction, event: str, payload: Mapping[str, object]
    ) -> EventResult:
        """Fire an event of a turn or a compaction, and note what it showed or asked for."""
        result = self.fire(event, payload)
        step.events.append(result)
        step.human_texts += result.routed.human_texts
        if result.routed.blocked and not step.blocked:
            step.blocked, step.block_kind = True, result.routed.block_kind
        return result

    def _record(self, result: EventResult) -> None:
        for body in result.routed.transcript_records:
            self.writer.add(dict(body))

    def _play(self, turn: Turn, reply: Iterable[Block] | None) -> None:
        """Write Claude's reply, performing its tool uses in order."""
        blocks = list(reply or [])
        if not blocks or not isinstance(blocks[-1], Text):
            blocks.append(Text(DEFAULT_TEXT))
        for message in _messages(blocks):
            self._message(turn, message)

    def _message(self, turn: Turn, blocks: list[Block]) -> None:
        """One API response: one assistant record per block (sharing ``message.id``), then its
        tool uses performed in order, each answered by a tool_result record."""
        message_id = "msg_" + uuid.uuid4().hex[:24]
        uses = []
        for block in blocks:
            if isinstance(block, Text):
                self.writer.text(block.text, message_id)
                turn.result = block.text
                self._conversation.append(f"Claude: {block.text}")
            else:
                tool_id = "toolu_" + uuid.uuid4().hex[:24]
                name = block.name if isinstance(block, Tool) else type(block).__name__
                params = tool_input(block, self.project_dir)
                use = {"type": "tool_use", "id": tool_id, "name": name, "input": params}
                self.writer.assistant(use, message_id)
                uses.append((block, tool_id))
            self._replied_since_compaction = True
        for block, tool_id in uses:
            outcome = perform(block, self.project_dir)
            turn.tools.append(outcome)
            result = {"tool_use_id": tool_id, "type": "tool_result", "content": outcome.content}
            if outcome.is_error:
                result["is_error"] = True
            self.writer.user([result], promptId=turn.prompt_id)
            self._conversation.append(f"Tool {outcome.name}: {outcome.content}")

    def _write_compaction(self, comp: Compaction, custom: str | None) -> None:
        """Boundary, summary, SessionStart(compact) output and, when manual, /compact's output."""
        pre, start, post = comp.events
        self.writer.open()
        pre_tokens = 10 * sum(len(t) for t in self._conversation) // 4 + 100
        boundary = tx.compact_boundary(
            comp.trigger, logical_parent=self.writer.last_uuid, pre_tokens=pre_tokens
        )
        self.writer.add(boundary, parent=None)
        self.writer.add(tx.compact_summary(comp.summary))
        self._record(start)
        self._conversation = [f"Summary: {comp.summary}"]
        # Measured: texts waiting from before the compaction (a resume's SessionStart) still
        # reach the model on the next turn, with SessionStart(compact)'s.
        self._pending_context += start.routed.model_texts
        self._replied_since_compaction = False
        if comp.trigger != "manual":
            return
        lines = ["Compacted (ctrl+o to see full summary)"]
        lines += pre.routed.local_command_lines + post.routed.local_command_lines
        output = tx.command_stdout(lines)
        for body in [*tx.command_records("/compact", custom or ""), output]:
            self.writer.add(body)
        self._pending_context.append(output["message"]["content"])

    def _default_summary(self) -> str:
        body = "\n".join(f"- {line[:200]}" for line in self._conversation[-20:]) or "- (empty)"
        return (
            "<analysis>\nThe conversation so far, condensed by the harness.\n</analysis>\n"
            f"<summary>\n1. Primary Request and Intent:\n{body}\n"
            "2. Pending Tasks: none.\n</summary>"
        )


def _messages(blocks: list[Block]) -> list[list[Block]]:
    """Split a reply into API responses: text then tool uses; text after a tool use starts anew."""
    messages: list[list[Block]] = []
    current: list[Block] = []
    for block in blocks:
        if isinstance(block, Text) and any(not isinstance(b, Text) for b in current):
            messages.append(current)
            current = []
        current.append(block)
    if current:
        messages.append(current)
    return messages
