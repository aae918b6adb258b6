"""Token records into tasks.db: stored from the spool, and given the task of their turn.

Ingesting the spool is the time model's work (``_heartbeats``), and the task a message
is on comes from the session's heartbeats: so the rows are stored here, and priced in
``missioncache_cost``. Rows come from the spool (``record_usage`` writes them at Stop),
one per message and session (``UNIQUE(message_key, session_id)``: a message spooled
twice is stored once). Which task a row is on is decided by the session's heartbeats,
the same facts time invested rests on: the heartbeat of the row's own turn (same
``prompt_id``), else the latest one of the session before the message, else the
session's first. So a turn a slash command started counts for the task the session is
on, and a session with no heartbeat at all (untracked) reaches no task. Heartbeats may
be ingested after the usage (they come through a detached child), so unassigned rows are
assigned again before every read.
"""

from __future__ import annotations

import math

from missioncache_spool import USAGE
from missioncache_state.ids import session_id_or_none

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from missioncache_state.sqlite import sqlite3

_INSERT = (
    "INSERT OR IGNORE INTO usage(session_id, message_key, model, speed, agent, prompt_id,"
    " epoch, input_tokens, output_tokens, cache_5m_tokens, cache_1h_tokens,"
    " cache_read_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_UNASSIGNED = (
    "SELECT u.id, u.session_id, u.prompt_id, u.epoch FROM usage u WHERE u.task_id IS NULL"
    " AND EXISTS (SELECT 1 FROM heartbeats h WHERE h.session_id = u.session_id"
    " AND h.task_id IS NOT NULL)"
)
_SESSION_BEATS = (
    "SELECT prompt_id, epoch, task_id FROM heartbeats WHERE session_id = ?"
    " AND task_id IS NOT NULL AND epoch IS NOT NULL ORDER BY epoch"
)
MAX_TOKENS = 100_000_000  # per field and message, as the reader's bound (docs/cost.md)
TOKEN_FIELDS = ("input", "output", "cache_5m", "cache_1h", "cache_read")


def _text(value: Any, limit: int = 200) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= limit else None


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKENS:
        return None
    return value


def valid_message(session_id: str, row: Any) -> tuple | None:
    """One message ``[key, model, speed, agent, prompt, epoch, 5 counts]`` checked field by
    field (from the spool, or another machine's log), as the row to insert; None if bad."""
    if not isinstance(row, list) or len(row) != 11:
        return None
    key, model, speed, agent, prompt, epoch = row[:6]
    counts = [_count(v) for v in row[6:]]
    if _text(key, 300) is None or any(c is None for c in counts):
        return None
    if isinstance(epoch, bool) or not isinstance(epoch, (int, float)) or not math.isfinite(epoch):
        return None
    return (
        session_id,
        key,
        _text(model),
        _text(speed, 40),
        session_id_or_none(agent),
        session_id_or_none(prompt),
        float(epoch),
        *counts,
    )


def valid_wait(session_id: str, wait: Any) -> tuple | None:
    """One wait ``[epoch, seconds]`` (at most 6 hours) as the row to insert; None if bad."""
    if not isinstance(wait, list) or len(wait) != 2:
        return None
    epoch, seconds = wait
    for value in wait:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        if not math.isfinite(value):
            return None
    if not 0 < seconds <= 6 * 3600:
        return None
    return (session_id, float(epoch), float(seconds))


def valid_usage(raw: dict) -> dict | None:
    """A spooled usage record checked field by field; None when it is not ours."""
    sid, rows = session_id_or_none(raw.get("session_id")), raw.get("m")
    if sid is None or not isinstance(rows, list):
        return None
    checked = [valid_message(sid, row) for row in rows]
    waits = raw.get("w")
    found = [valid_wait(sid, w) for w in waits] if isinstance(waits, list) else []
    return {
        "type": USAGE,
        "uid": raw["uid"],
        "rows": [r for r in checked if r is not None],
        "waits": [w for w in found if w is not None],
    }


def insert_usage(conn: sqlite3.Connection, records: list[dict]) -> int:
    """Store the messages of spooled usage records; returns the rows inserted."""
    rows = [row for record in records for row in record["rows"]]
    waits = [wait for record in records for wait in record.get("waits", ())]
    if waits:
        conn.executemany(
            "INSERT OR IGNORE INTO waits(session_id, epoch, seconds) VALUES (?, ?, ?)", waits
        )
    inserted = conn.executemany(_INSERT, rows).rowcount if rows else 0
    assign_tasks(conn)
    return inserted


def assign_tasks(conn: sqlite3.Connection) -> int:
    """Give unassigned rows the task their session's heartbeats name; returns how many."""
    pending = conn.execute(_UNASSIGNED).fetchall()
    beats: dict[str, list[tuple]] = {}
    updates = []
    for row_id, session_id, prompt_id, epoch in pending:
        if session_id not in beats:
            beats[session_id] = conn.execute(_SESSION_BEATS, (session_id,)).fetchall()
        task_id = task_of(beats[session_id], prompt_id, epoch)
        if task_id is not None:
            updates.append((task_id, row_id))
    conn.executemany("UPDATE usage SET task_id = ? WHERE id = ?", updates)
    waiting = conn.execute(_UNASSIGNED.replace("usage u", "waits u").replace("u.prompt_id", "NULL"))
    wait_updates = []
    for row_id, session_id, _, epoch in waiting.fetchall():
        if session_id not in beats:
            beats[session_id] = conn.execute(_SESSION_BEATS, (session_id,)).fetchall()
        task_id = task_of(beats[session_id], None, epoch)
        if task_id is not None:
            wait_updates.append((task_id, row_id))
    conn.executemany("UPDATE waits SET task_id = ? WHERE id = ?", wait_updates)
    return len(updates) + len(wait_updates)


def task_of(beats: list[tuple], prompt_id: str | None, epoch: float) -> int | None:
    """The task of a message from its session's heartbeats ``(prompt id, epoch, task)``
    (oldest first): its own turn's, else the latest before it, else the first."""
    if not beats:
        return None
    if prompt_id is not None:
        for beat_prompt, _, task_id in beats:
            if beat_prompt == prompt_id:
                return int(task_id)
    before = [task_id for _, beat_epoch, task_id in beats if beat_epoch <= epoch]
    return int(before[-1] if before else beats[0][2])
