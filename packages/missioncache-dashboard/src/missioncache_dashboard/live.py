"""What the http hooks told the running dashboard: per Claude session, its edits, its last
prompt and whether a turn is running. Kept in memory; the command hooks' records in
tasks.db are the lasting truth, this only makes the page live within a second.

Untrusted payloads are parsed once, at the edge (``hooks.py``), into the calls below.
Bounded: at most ``MAX_SESSIONS`` sessions and ``MAX_TOOL_IDS`` tool ids per session are
remembered, so a flood of requests cannot grow the process without end.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from dataclasses import dataclass, field

MAX_SESSIONS = 500
MAX_TOOL_IDS = 2000
PROMPT_CHARS = 300


@dataclass
class LiveSession:
    session_id: str
    cwd: str | None = None
    edit_count: int = 0
    last_prompt: str | None = None
    turn_started: float | None = None  # epoch of the running turn's prompt
    turn_running: bool = False
    last_event: float = 0.0
    tool_ids: OrderedDict = field(default_factory=OrderedDict)

    def public(self) -> dict:
        return {
            "session_id": self.session_id,
            "cwd": self.cwd,
            "edit_count": self.edit_count,
            "last_prompt": self.last_prompt,
            "turn_started": self.turn_started,
            "turn_running": self.turn_running,
            "last_event": self.last_event,
        }


class Live:
    """The sessions the hooks reported, and a version that changes with every event (the
    page's event stream waits on it)."""

    def __init__(self) -> None:
        self.sessions: OrderedDict[str, LiveSession] = OrderedDict()
        self.version = 0
        self.tasks_version = 0
        # session id -> when Claude Code said it ended; bounded like ``sessions``.
        self.ended: OrderedDict[str, float] = OrderedDict()
        self._changed: asyncio.Event | None = None

    def session(self, session_id: str, cwd: str | None = None) -> LiveSession:
        found = self.sessions.get(session_id)
        if found is None:
            found = self.sessions[session_id] = LiveSession(session_id)
            while len(self.sessions) > MAX_SESSIONS:
                self.sessions.popitem(last=False)
        self.sessions.move_to_end(session_id)
        if cwd:
            found.cwd = cwd
        found.last_event = time.time()
        return found

    def record_edit(self, session_id: str, tool_use_id: str | None, cwd: str | None) -> bool:
        """Count one edit; a tool call already counted (the same ``tool_use_id`` posted
        twice) counts once. Returns whether it was counted."""
        found = self.session(session_id, cwd)
        if tool_use_id is not None:
            if tool_use_id in found.tool_ids:
                return False
            found.tool_ids[tool_use_id] = None
            while len(found.tool_ids) > MAX_TOOL_IDS:
                found.tool_ids.popitem(last=False)
        found.edit_count += 1
        self.changed()
        return True

    def record_prompt(self, session_id: str, prompt: str, cwd: str | None, at: float) -> None:
        self.ended.pop(session_id, None)
        found = self.session(session_id, cwd)
        found.last_prompt = " ".join(prompt.split())[:PROMPT_CHARS]
        found.turn_started, found.turn_running = at, True
        self.changed()

    def record_turn_end(self, session_id: str, cwd: str | None) -> None:
        found = self.session(session_id, cwd)
        found.turn_running = False
        self.changed()

    def record_session_end(self, session_id: str, at: float) -> None:
        """The session ended: its row goes. A heartbeat from before ``at`` (tasks.db keeps
        them for hours) does not bring it back; a later prompt (``--resume``) does."""
        self.sessions.pop(session_id, None)
        self.ended[session_id] = at
        self.ended.move_to_end(session_id)
        while len(self.ended) > MAX_SESSIONS:
            self.ended.popitem(last=False)
        self.changed()

    def is_ended(self, session_id: str, turn_started: float | None) -> bool:
        """Whether the session ended after its last prompt (``turn_started``)."""
        at = self.ended.get(session_id)
        return at is not None and (turn_started or 0) <= at

    def task_created(self) -> None:
        self.tasks_version += 1
        self.changed()

    def changed(self) -> None:
        self.version += 1
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    async def wait(self, version: int, timeout: float) -> int:
        """The version once it differs from ``version``, or after ``timeout`` seconds."""
        if self.version == version:
            if self._changed is None:
                self._changed = asyncio.Event()
            try:
                await asyncio.wait_for(self._changed.wait(), timeout)
            except asyncio.TimeoutError:
                pass
        return self.version
