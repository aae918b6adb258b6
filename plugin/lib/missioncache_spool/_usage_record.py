"""Recording a session's token usage at the end of a turn, without touching SQLite.

Stop (and StopFailure, PreCompact) read what the session's transcript and its subagents'
transcripts gained since the last read (``missioncache_transcript.usage``), from the byte
offsets kept in ``<claude>/hooks/state/usage/<session id>.json``, and append the messages
found to the heartbeat spool as ``"type": "usage"`` lines. Ingesting stores them in
tasks.db table ``usage`` (``missioncache_time``), one row per message whatever the
number of times it is spooled, so a crash between the spool write and the state write
costs nothing: the next read spools the same messages again and the duplicates are
ignored. Read while the transcript exists: Claude Code deletes old transcripts
(``cleanupPeriodDays``).

Which task the tokens belong to is not worked out here (that needs tasks.db): the rows are
joined to the session's heartbeats when they are stored or read. An untracked session has
none, so its tokens reach no task.
"""

from __future__ import annotations

import time

from missioncache_spool._writes import USAGE
from missioncache_state import lean_os as os
from missioncache_state.ids import session_id_or_none

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from missioncache_state.ids import PromptId, SessionId

STATE_KIND = "usage"
PER_LINE = 150  # messages per spool line: a line stays far below spool.MAX_LINE
MAX_FILES = 200  # subagent transcripts read per call; the rest wait for the next one
# Claude Code may run Stop before it has written the turn to the transcript (2.1.328 drains
# its writes every 100 ms, later on a busy machine: a resumed session's file still ended
# where the last Stop stopped, a new one's did not exist yet). A read that found no reply of
# the turn's own prompt is tried again, a few times, well inside Stop's 10 s.
CATCH_UP_TRIES = 20
CATCH_UP_DELAY = 0.05  # seconds
# A transcript not there yet is waited for less: Claude Code's first write comes within
# its 100 ms drain, and a session that keeps none (``--no-session-persistence``) must not
# cost every Stop the whole second.
MISSING_TRIES = 6
SEEN_PROMPTS = 8  # turns remembered as read: a later Stop for one of them never waits


def _as_row(message: Any, agent: str | None, fallback_prompt: str | None) -> list:
    prompt = message.prompt_id or fallback_prompt
    epoch = message.epoch if message.epoch is not None else time.time()
    return [message.key, message.model, message.speed, agent, prompt, epoch, *message.tokens()]


class _Turn:
    """What the main transcript's reads during one call found besides the rows: Claude
    Code's waits (API retries, usage limits) and the prompts this session's own replies
    answered (``replied``; a message copied from another session is none of them)."""

    __slots__ = ("replied", "waits")

    def __init__(self) -> None:
        self.waits: list[list] = []
        self.replied: list[str | None] = []


def _read_file(
    path: str, entry: Any, agent: str | None, fallback_prompt: str | None, turn: _Turn
) -> tuple[list[list], list]:
    """(rows, new state entry) for one transcript, read from its kept offset; what the
    main transcript says of the turn goes to ``turn``."""
    from missioncache_transcript.usage import read_usage

    offset, prompt = 0, None
    if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int):
        offset = max(0, entry[0])
        prompt = entry[1] if isinstance(entry[1], str) else None
    found = read_usage(path, offset, prompt)
    if found.dropped:
        _tell_dropped(path, found.dropped)
    if agent is None:
        turn.waits.extend([epoch, seconds] for epoch, seconds in found.waits)
        turn.replied.extend(m.prompt_id or fallback_prompt for m in found.messages if not m.copied)
    rows = [_as_row(m, agent, fallback_prompt) for m in found.messages]
    return rows, [found.offset, found.prompt_id]


def _tell_dropped(path: str, keys: list) -> None:
    """One breadcrumb line (stderr: the transcript keeps it, nobody is shown it) for
    messages whose usage was dropped as implausible."""
    import sys

    from missioncache_transcript.usage import MAX_TOKENS

    count = len(keys)
    which = "one message" if count == 1 else f"{count} messages"
    try:
        sys.stderr.write(
            f"missioncache: left out the tokens of {which} in {path} ({', '.join(keys[:3])}):"
            f" a count above {MAX_TOKENS:,} in one field is no real message\n"
        )
    except (OSError, ValueError):
        pass


def _agent_name(path: str) -> str:
    name = os.path.basename(path)[len("agent-") : -len(".jsonl")]
    return session_id_or_none(name) or "agent"


def collect(
    transcript: str,
    state: dict,
    prompt_id: str | None,
    turn: _Turn | None = None,
    agents: bool = True,
) -> tuple[list[list], dict]:
    """The new messages of a session's transcripts and the state to keep after them.
    ``agents`` False: the main transcript only (the one that brings the turn's reply),
    the subagents' places kept as they were."""
    turn = _Turn() if turn is None else turn
    from missioncache_transcript.usage import subagent_transcripts

    files = state.get("files") if state.get("transcript") == transcript else None
    old = files if isinstance(files, dict) else {}
    new: dict[str, list] = {} if agents else {k: v for k, v in old.items() if k != "main"}
    rows, kept = _read_file(transcript, old.get("main"), None, prompt_id, turn)
    new["main"] = kept
    for path in subagent_transcripts(transcript)[:MAX_FILES] if agents else []:
        key = os.path.basename(path)
        found, kept = _read_file(path, old.get(key), _agent_name(path), prompt_id, turn)
        rows.extend(found)
        new[key] = kept
    return rows, {"transcript": transcript, "files": new}


def spool_records(session_id: str, rows: list[list], waits: list | None = None) -> list[dict]:
    """The spool lines holding ``rows`` (``PER_LINE`` messages each) and ``waits``."""
    now = time.time()
    records = [
        {
            "type": USAGE,
            "uid": os.urandom(16).hex(),
            "epoch": now,
            "session_id": session_id,
            "m": rows[start : start + PER_LINE],
        }
        for start in range(0, len(rows), PER_LINE)
    ]
    for start in range(0, len(waits or []), PER_LINE):
        records.append(
            {
                "type": USAGE,
                "uid": os.urandom(16).hex(),
                "epoch": now,
                "session_id": session_id,
                "m": [],
                "w": (waits or [])[start : start + PER_LINE],
            }
        )
    return records


def _seen_prompts(seen: list, replied: list) -> list:
    """The newest ``SEEN_PROMPTS`` prompt ids whose own replies have been read."""
    for prompt in replied:
        if isinstance(prompt, str) and prompt not in seen:
            seen = [*seen, prompt]
    return seen[-SEEN_PROMPTS:]


def _may_still_come(path: str, waited: int) -> bool:
    """Whether waiting can bring the turn: the transcript is a regular file, or not there
    yet (Claude Code creates it at its first write) and ``waited`` tries are fewer than
    ``MISSING_TRIES``. A FIFO or a device never will."""
    if os.path.isfile(path):
        return True
    return not os.path.lexists(path) and waited < MISSING_TRIES


def record_usage(
    sid: SessionId | None,
    transcript_path: Any,
    prompt_id: PromptId | None = None,
    catch_up: bool = True,
) -> int:
    """Spool the messages ``transcript_path`` and its subagents gained since the last
    call for this session; returns how many. The ids come parsed (the hook's entry parses
    them once). ``catch_up``: wait a little for the turn's reply (a failed turn has none).
    Nothing where MissionCache is not set up, without a session id or for a transcript
    path that is not an absolute ``.jsonl``."""
    from missioncache_state.locations import heartbeat_spool_dir, is_set_up

    if sid is None or not is_set_up():
        return 0
    if not isinstance(transcript_path, str) or not transcript_path.endswith(".jsonl"):
        return 0
    if not os.path.isabs(transcript_path) or "\0" in transcript_path:
        return 0
    from missioncache_state.statefile import load_state, save_state

    state = load_state(STATE_KIND, sid) or {}
    turn = _Turn()
    rows, kept = collect(transcript_path, state, prompt_id, turn)
    # A turn whose reply an earlier call already read (a second Stop for the same prompt,
    # a StopFailure then a Stop) is caught up: nothing more of it is coming. A message
    # under the turn's prompt is no reply when it was copied from another session: a
    # fork's transcript starts with the parent's messages, its first user record stamped
    # with the fork's prompt id, and its own reply may be written a second later.
    kept_seen = state.get("seen")
    seen: list = kept_seen if isinstance(kept_seen, list) else []
    tries = CATCH_UP_TRIES if catch_up else 0
    while prompt_id is not None and tries and prompt_id not in seen:
        if prompt_id in turn.replied or not _may_still_come(
            transcript_path, CATCH_UP_TRIES - tries
        ):
            break
        tries -= 1
        time.sleep(CATCH_UP_DELAY)
        more, kept = collect(transcript_path, kept, prompt_id, turn, agents=False)
        rows.extend(more)
    kept["seen"] = _seen_prompts(seen, turn.replied)
    if rows or turn.waits:
        from missioncache_spool import _writes as spool

        for record in spool_records(sid, rows, turn.waits):
            spool.append(heartbeat_spool_dir(), record)
    if kept != state:
        save_state(STATE_KIND, kept, sid)
    return len(rows)
