"""A simulated Claude Code session: fires hooks in Claude Code's order and keeps a transcript.

WHY: the product's hooks cooperate across a session (SessionStart binds a task, UserPromptSubmit
records heartbeats, Stop looks for this exchange's edits in the transcript, PreCompact saves before
a compaction). Testing them one event at a time misses the order and the shared files. A Session
plays a scripted session the way Claude Code 2.1.328 runs it (contract sections 1, 2 and 7):

    start(source)            SessionStart
    prompt(text, reply=...)  UserPromptSubmit; if not blocked: the user record, the scripted reply
                             (Write/Edit performed on disk; tool hooks are not simulated), then
                             Stop, looping while a Stop hook blocks, up to the cap of 9
    compact(trigger, ...)    PreCompact; unless blocked: SubagentStop (agent_type ""),
                             SessionStart(compact), PostCompact, then the compaction records
    end(reason)              SessionEnd
    clear()                  SessionEnd(clear), then SessionStart(clear) under a new session id

"Claude" is a script: `session.prompt("fix it", reply=[Text("done"), Edit("a.py", "x", "y")])`.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from missioncache_harness import payloads
from missioncache_harness import transcript as tx
from missioncache_harness.events import stop_block_cap
from missioncache_harness.fire import as_plugins, fire
from missioncache_harness.plugin import Plugin
from missioncache_harness.routing import PROMPT_ERASED, PROMPT_STOPPED, EventResult
from missioncache_harness.runner import claude_dir_for
from missioncache_harness.tools import Block, Text, ToolOutcome, perform, tool_input

DEFAULT_TEXT = "Done."
CONTINUE_TEXT = "Continuing after the Stop hook's feedback."
COMPACT_PROMPT = (
    "Your task is to create a detailed summary of the conversation so far, paying close attention "
    "to the user's explicit requests and your previous actions."
)
STOP_CAP_TEXT = (
    "A hook blocked the turn from ending {n} consecutive times—overriding and ending turn. For "
    "Stop/SubagentStop hooks, check stop_hook_active in the input and return success while it's "
    "true. Set CLAUDE_CODE_STOP_HOOK_BLOCK_CAP to raise this limit."
)


@dataclass
class Turn:
    """One prompt and everything it caused.

    ``model_texts``: hook texts that reached Claude during this turn, in order (SessionStart and
    compaction texts waiting since the last request come first). ``result`` is what ``claude -p``
    would print: the final assistant text, or the block message.
    """

    prompt: str
    prompt_id: str
    events: list[EventResult] = field(default_factory=list)
    model_texts: list[str] = field(default_factory=list)
    human_texts: list[str] = field(default_factory=list)
    blocked: bool = False
    block_kind: str | None = None
    result: str = ""
    last_assistant_message: str = ""
    tools: list[ToolOutcome] = field(default_factory=list)
    stop_rounds: int = 0
    stop_cap_reached: bool = False


@dataclass
class Compaction:
    """One compaction: whether it ran, the instructions it got and what hooks said."""

    trigger: str
    events: list[EventResult] = field(default_factory=list)
    blocked: bool = False
    block_kind: str | None = None
    result: str | None = None
    instructions: str | None = None
    request_text: str = ""
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
        permission_mode: str = "acceptEdits",
        model: str = payloads.DEFAULT_MODEL,
        title: str | None = None,
    ) -> None:
        self.plugins = as_plugins(plugin)
        self.project_dir = Path(os.path.realpath(project_dir))
        self.env = dict(os.environ if env is None else env)
        self.claude_dir = claude_dir_for(self.env)
        self.permission_mode = permission_mode
        self.model = model
        self.title = title
        self.events: list[EventResult] = []
        self.human_log: list[str] = []
        self.model_log: list[str] = []
        self.cli_stderr: list[str] = []
        self.previous_session_ids: list[str] = []
        self._pending_context: list[str] = []
        self._conversation: list[str] = []
        self._replied_since_compaction = True
        self._begin(session_id or payloads.new_id())

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
        self.human_log += result.routed.human_texts
        self.cli_stderr += result.routed.cli_stderr
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

    def start(self, source: str = "startup", **extras: object) -> EventResult:
        """SessionStart; its model texts wait for the next request to the model."""
        payload = payloads.session_start(
            self.base("SessionStart"),
            source,
            prompt_id=self._prompt_id,
            model=self.model,
            session_title=self.title,
            # Measured: a resume right after a compaction carries no cache figures.
            cache_figures=self._replied_since_compaction,
            **extras,  # type: ignore[arg-type]
        )
        result = self.fire("SessionStart", payload)
        self._record(result)
        self._pending_context += result.routed.model_texts
        return result

    def resume(self) -> EventResult:
        """SessionStart(resume), as ``claude --resume <id>`` starts."""
        return self.start("resume")

    def prompt(
        self,
        text: str | list,
        reply: Iterable[Block] | None = None,
        *,
        stop_replies: Iterable[Iterable[Block]] = (),
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
        prompt_id = payloads.new_id()
        self._prompt_id = prompt_id
        flat = payloads.flatten_prompt(text)
        turn = Turn(prompt=flat, prompt_id=prompt_id)
        self.writer.add(tx.queue_operation("enqueue", flat))
        self.writer.add(tx.queue_operation("dequeue"))
        payload = payloads.user_prompt_submit(
            self.base("UserPromptSubmit"),
            text,
            prompt_id=prompt_id,
            permission_mode=self.permission_mode,
            session_title=self.title,
        )
        ups = self._turn_event(turn, "UserPromptSubmit", payload)
        self.writer.open()
        if ups.routed.block_kind == PROMPT_ERASED:
            self._record(ups)
            return self._blocked(turn, ups)
        self.writer.add(
            tx.user_prompt(
                text,
                prompt_id=prompt_id,
                permission_mode=self.permission_mode,
                prompt_index=self._prompt_index,
            )
        )
        self._prompt_index += 1
        self._conversation.append(f"User: {flat}")
        self._record(ups)
        if ups.routed.block_kind == PROMPT_STOPPED:
            return self._blocked(turn, ups)
        self._deliver(turn, self._pending_context + ups.routed.model_texts)
        self._pending_context = []
        self._play(turn, reply)
        if ending == "failure":
            failure = payloads.stop_failure(self.base("StopFailure"), prompt_id=turn.prompt_id)
            self._record(self._turn_event(turn, "StopFailure", failure))
        elif ending == "stop":
            self._stop_loop(turn, iter(stop_replies), background_tasks)
        # Measured on 2.1.328: a turn ended by the Stop block cap has an empty ``-p`` result.
        turn.result = "" if turn.stop_cap_reached else turn.last_assistant_message
        self.writer.add(tx.last_prompt(flat, self.writer.last_uuid))
        return turn

    def compact(
        self,
        trigger: str = "manual",
        custom_instructions: str | None = None,
        *,
        summary: str | None = None,
    ) -> Compaction:
        """A compaction, manual (``/compact [instructions]``) or auto."""
        prompt_id = payloads.new_id()
        self._prompt_id = prompt_id
        comp = Compaction(trigger)
        pre = self._compaction_event(
            comp,
            "PreCompact",
            payloads.pre_compact(
                self.base("PreCompact"),
                prompt_id=prompt_id,
                trigger=trigger,
                custom_instructions=custom_instructions,
            ),
        )
        if pre.routed.blocked:
            return self._compaction_blocked(comp, pre, custom_instructions)
        parts = [p for p in (custom_instructions, pre.routed.compact_instructions) if p]
        comp.instructions = "\n\n".join(parts) if parts else None
        comp.request_text = COMPACT_PROMPT
        if comp.instructions:
            comp.request_text += f"\n\nAdditional Instructions:\n{comp.instructions}\n\n"
        comp.summary = summary or self._default_summary()
        self._compaction_hooks(comp, prompt_id)
        self._write_compaction(comp, pre, custom_instructions)
        return comp

    def end(self, reason: str = "other") -> EventResult:
        """SessionEnd; nothing of it reaches the transcript (contract 2.1)."""
        payload = payloads.session_end(
            self.base("SessionEnd"), reason=reason, prompt_id=self._prompt_id
        )
        return self.fire("SessionEnd", payload)

    def clear(self) -> tuple[EventResult, EventResult]:
        """``/clear``: SessionEnd(clear) for this session, SessionStart(clear) for a new one."""
        ended = self.end("clear")
        self.previous_session_ids.append(self.session_id)
        self._pending_context = []
        self._conversation = []
        self._begin(payloads.new_id())
        started = self.start("clear")
        return ended, started

    # ------------------------------------------------------------ turn internals

    def _begin(self, session_id: str) -> None:
        self.session_id = session_id
        self._prompt_id: str | None = None
        self._prompt_index = 0
        path = Path(payloads.transcript_path(self.claude_dir, self.project_dir, session_id))
        self.writer = tx.TranscriptWriter(path, session_id=session_id, cwd=str(self.project_dir))

    def _turn_event(self, turn: Turn, event: str, payload: Mapping[str, object]) -> EventResult:
        result = self.fire(event, payload)
        turn.events.append(result)
        turn.human_texts += result.routed.human_texts
        return result

    def _deliver(self, turn: Turn, texts: list[str]) -> None:
        turn.model_texts += texts
        self.model_log += texts

    def _record(self, result: EventResult) -> None:
        for body in result.routed.transcript_records:
            if body.get("type") == "user" and self._prompt_id:
                body = {**body, "promptId": self._prompt_id}
            self.writer.add(dict(body))

    def _blocked(self, turn: Turn, ups: EventResult) -> Turn:
        turn.blocked = True
        turn.block_kind = ups.routed.block_kind
        turn.result = ups.routed.result_text or ""
        return turn

    def _play(self, turn: Turn, reply: Iterable[Block] | None) -> None:
        """Write Claude's reply, performing its tool uses in order."""
        blocks = list(reply or [])
        if not blocks or not isinstance(blocks[-1], Text):
            blocks.append(Text(DEFAULT_TEXT))
        for message in _messages(blocks):
            self._message(turn, message)

    def _message(self, turn: Turn, blocks: list[Block]) -> None:
        """One API response: one assistant record per block, then its tool uses in order."""
        message_id = "msg_" + uuid.uuid4().hex[:24]
        request_ref = str(uuid.uuid4())
        has_tools = any(not isinstance(b, Text) for b in blocks)
        uses = []
        for index, block in enumerate(blocks):
            tool_id = None if isinstance(block, Text) else "toolu_" + uuid.uuid4().hex[:24]
            inputs = None if tool_id is None else tool_input(block, self.project_dir)
            record = self.writer.add(
                tx.assistant(
                    block,
                    tool_use_id=tool_id,
                    tool_input=inputs,
                    message_id=message_id,
                    model=self.model,
                    stop_reason="tool_use" if has_tools else "end_turn",
                    block_index=index,
                    request_ref=request_ref,
                )
            )
            self._replied_since_compaction = True
            if isinstance(block, Text):
                turn.last_assistant_message = block.text
                self._conversation.append(f"Claude: {block.text}")
            else:
                uses.append((block, tool_id, record["uuid"]))
        for block, tool_id, source in uses:
            self._tool(turn, block, tool_id, source)

    def _tool(self, turn: Turn, block: Block, tool_id: str, source_uuid: str) -> None:
        outcome = perform(block, self.project_dir)
        turn.tools.append(outcome)
        self.writer.add(
            tx.tool_result(
                outcome, tool_use_id=tool_id, prompt_id=turn.prompt_id, source_uuid=source_uuid
            )
        )
        self._conversation.append(f"Tool {outcome.name}: {outcome.content}")

    def _stop_loop(
        self,
        turn: Turn,
        replies: Iterator[Iterable[Block]],
        background_tasks: list[dict] | None = None,
    ) -> None:
        """Stop, again and again while a hook blocks, up to Claude Code's cap."""
        cap = stop_block_cap(self.env)
        blocks = 0
        while True:
            payload = payloads.stop(
                self.base("Stop"),
                prompt_id=turn.prompt_id,
                last_assistant_message=turn.last_assistant_message,
                stop_hook_active=blocks > 0,
                permission_mode=self.permission_mode,
                background_tasks=background_tasks,
            )
            result = self._turn_event(turn, "Stop", payload)
            self._record(result)
            turn.stop_rounds += 1
            if not result.routed.continues_turn:
                return
            blocks += 1
            if blocks >= cap:
                self.writer.add(tx.informational(STOP_CAP_TEXT.format(n=cap)))
                turn.stop_cap_reached = True
                return
            self._deliver(turn, result.routed.model_texts)
            self._play(turn, next(replies, [Text(CONTINUE_TEXT)]))

    # ------------------------------------------------------------ compaction internals

    def _compaction_event(self, comp: Compaction, event: str, payload: dict) -> EventResult:
        result = self.fire(event, payload)
        comp.events.append(result)
        comp.human_texts += result.routed.human_texts
        return result

    def _compaction_blocked(
        self, comp: Compaction, pre: EventResult, custom: str | None
    ) -> Compaction:
        comp.blocked = True
        comp.block_kind = pre.routed.block_kind
        comp.result = pre.routed.result_text
        if comp.trigger == "manual":
            self.writer.open()
            for body in tx.command_records("/compact", custom or ""):
                self.writer.add(body)
            self.writer.add(tx.local_command_failure(comp.result or ""))
        return comp

    def _compaction_hooks(self, comp: Compaction, prompt_id: str) -> None:
        """The forked summariser's SubagentStop, then SessionStart(compact), then PostCompact."""
        self._compaction_event(
            comp,
            "SubagentStop",
            payloads.subagent_stop(
                self.base("SubagentStop"),
                prompt_id=prompt_id,
                agent_id=payloads.new_agent_id(),
                agent_type="",
                last_assistant_message=comp.summary,
                permission_mode=self.permission_mode,
            ),
        )
        payload = payloads.session_start(
            self.base("SessionStart"), "compact", prompt_id=prompt_id, model=self.model
        )
        self._compaction_event(comp, "SessionStart", payload)
        self._compaction_event(
            comp,
            "PostCompact",
            payloads.post_compact(
                self.base("PostCompact"),
                prompt_id=prompt_id,
                trigger=comp.trigger,
                compact_summary=comp.summary,
            ),
        )

    def _write_compaction(self, comp: Compaction, pre: EventResult, custom: str | None) -> None:
        """Boundary, summary, SessionStart(compact) output and, when manual, /compact's output."""
        _sub, start, post = comp.events[1:4]
        self.writer.open()
        pre_tokens = 10 * sum(len(t) for t in self._conversation) // 4 + 100
        self.writer.add(
            tx.compact_boundary(
                comp.trigger, logical_parent=self.writer.last_uuid, pre_tokens=pre_tokens
            ),
            parent=None,
        )
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
