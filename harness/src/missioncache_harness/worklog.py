"""Past work written straight into tasks.db, as the hooks would have recorded it: one
heartbeat per prompt (the turn's start) and one turn end per Stop (docs/time.md).

WHY: reports and the status line show time; a test or the demo needs a week of it in
an instant. Rows carry exact epochs and ids, so ``time_split`` reads them like real ones.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from pathlib import Path

HEARTBEAT_SQL = (
    "INSERT INTO heartbeats(task_id, timestamp, session_id, epoch, uid, prompt_id)"
    " VALUES (?, ?, ?, ?, ?, ?)"
)
TURN_END_SQL = "INSERT INTO turn_ends(uid, session_id, prompt_id, epoch) VALUES (?, ?, ?, ?)"


def record_work(
    db_path: str | Path,
    task_id: int,
    start: float,
    turns: list[tuple[float, float]],
    session_id: str | None = None,
) -> float:
    """Turns from ``start``: each ``(claude_seconds, gap_seconds)`` is a prompt, Claude
    working that long, then the human taking ``gap_seconds`` before the next prompt.
    Time = every turn (Claude) + every gap followed by a prompt within the idle timeout
    (you). Returns the epoch after the last turn's gap."""
    sid = session_id or str(uuid.uuid4())
    heartbeats, ends = [], []
    moment = start
    for claude, gap in turns:
        prompt = str(uuid.uuid4())
        text = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(moment))
        heartbeats.append((task_id, text, sid, moment, uuid.uuid4().hex, prompt))
        ends.append((uuid.uuid4().hex, sid, prompt, moment + claude))
        moment += claude + gap
    conn = sqlite3.connect(str(db_path), timeout=30)
    try:
        with conn:
            conn.executemany(HEARTBEAT_SQL, heartbeats)
            conn.executemany(TURN_END_SQL, ends)
    finally:
        conn.close()
    return moment


def record_plan(db: Path, task_id: int, plan: list, now: float, clear: float = 60) -> None:
    """A demo's work: at each ``(days ago, start hour, minutes)``, prompts every 5 minutes
    (Claude 3.5, you 1.5), each block ending at least ``clear`` seconds before ``now``."""
    today = time.localtime(now)
    for days_ago, hour, minutes in plan:
        day = (today.tm_year, today.tm_mon, today.tm_mday - days_ago)
        start = min(time.mktime((*day, hour, 0, 0, 0, 0, -1)), now - minutes * 60 - clear)
        record_work(db, task_id, start, [(210.0, 90.0)] * max(1, minutes // 5))
