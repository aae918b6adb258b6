"""Edits Claude made in this session, counted incrementally from the transcript.

WHY incremental: the transcript only grows, and the status line runs after every
assistant message. Reading only the bytes appended since the last run (offset kept in
the cache) makes each run cost the size of one message, not of the session. Only
complete lines are consumed: the last line may still be being written.
"""

from __future__ import annotations

from missioncache_state import lean_os as os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# A first look at a huge transcript (a resumed session) reads at most this much from its
# end and marks the count as partial ("4+ edits") rather than stall the status line.
FIRST_READ_MAX = 8 * 1024 * 1024
_MARK = b'"tool_use"'


def count_edits(path: Any, state: dict | None) -> dict:
    """``{"ino", "offset", "count", "partial"}`` for the transcript at ``path``, continuing
    from ``state`` (the previous result) when it is the same file and has not shrunk."""
    fresh = {"ino": None, "offset": 0, "count": 0, "partial": False}
    if not isinstance(path, str) or not path:
        return fresh
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return fresh
    if (
        isinstance(state, dict)
        and state.get("ino") == info.st_ino
        and isinstance(state.get("offset"), int)
        and isinstance(state.get("count"), int)
        and 0 <= state["offset"] <= info.st_size
    ):
        current = dict(state)
    else:
        current = dict(fresh, ino=info.st_ino)
    if current["offset"] == info.st_size:
        return current
    start, jumped = current["offset"], False
    if info.st_size - start > FIRST_READ_MAX:
        start, jumped = info.st_size - FIRST_READ_MAX, True
        current["partial"] = True
    with open(path, "rb") as handle:
        handle.seek(start)
        data = handle.read(info.st_size - start)
    if jumped:  # we landed inside a line: start at the next one
        cut = data.find(b"\n")
        if cut < 0:
            current["offset"] = info.st_size
            return current
        start, data = start + cut + 1, data[cut + 1 :]
    end = data.rfind(b"\n")
    if end < 0:  # only a line still being written: read it whole next time
        current["offset"] = start
        return current
    current["count"] += _edits_in(data[: end + 1])
    current["offset"] = start + end + 1
    return current


def _edits_in(chunk: bytes) -> int:
    """Editing ``tool_use`` blocks of assistant records in ``chunk`` (complete lines).
    Lines without a tool_use are skipped before any JSON parsing: most are not."""
    if _MARK not in chunk:
        return 0
    from missioncache_transcript.conversation import EDIT_TOOLS, blocks_of, role_of
    from missioncache_transcript.records import parse_record

    found = 0
    for line in chunk.split(b"\n"):
        if _MARK not in line:
            continue
        record = parse_record(line)
        if record is None or role_of(record) != "assistant":
            continue
        found += sum(1 for b in blocks_of(record, "tool_use") if b.get("name") in EDIT_TOOLS)
    return found
