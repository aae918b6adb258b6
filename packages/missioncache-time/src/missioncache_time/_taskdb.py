"""The time model's calls on an open ``TaskDB``: recording a heartbeat or a turn end,
folding what is pending into work sessions, and a task's time.

The store (``missioncache_db``) owns the connection and the spool folder that goes with
it; what a heartbeat means, and how time is computed from it, lives in this package.
Each function parses the ids it is given once more: this is the package's edge for
callers holding plain strings (scripts, tests); a parsed id costs a type test.
"""

from __future__ import annotations

import os

from missioncache_state.ids import prompt_id_or_none, session_id_or_none

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from missioncache_db import TaskDB, When
    from missioncache_state.ids import PromptId, SessionId
    from missioncache_time._turns import TimeSplit


def record_heartbeat(
    db: TaskDB,
    task_id: int,
    session_id: SessionId | None,
    context: Any = None,
    timestamp: When = None,
    prompt_id: PromptId | None = None,
    kind: str = "prompt",
) -> str:
    """Record one heartbeat (``timestamp``: epoch seconds or datetime, default now):
    the start of the turn ``prompt_id``, a human prompt or (``kind="synthetic"``) one
    Claude Code made itself. Returns ``"db"``, or ``"spool"`` when the lock was busy
    past the busy timeout."""
    from missioncache_time import _heartbeats as heartbeats
    from missioncache_time._heartbeats import new_heartbeat

    sid, pid = session_id_or_none(session_id), prompt_id_or_none(prompt_id)
    record = new_heartbeat(task_id, sid, context, timestamp, pid, kind)
    return heartbeats.record(db.conn, db.spool_folder, record)


def record_heartbeat_auto(
    db: TaskDB,
    cwd: str | os.PathLike,
    session_id: SessionId | None,
    timestamp: When = None,
    prompt_id: PromptId | None = None,
    kind: str = "prompt",
) -> bool:
    """Resolve the task for ``cwd``/``session_id`` and record a heartbeat on it;
    returns whether one was kept (in the database or the spool)."""
    session_id = session_id_or_none(session_id)
    task = db.find_task_for_cwd(cwd, session_id)
    if task is None:
        return False
    context = {"cwd": os.fspath(cwd)}
    record_heartbeat(db, task.id, session_id, context, timestamp, prompt_id, kind)
    return True


def spool_turn_end(
    db: TaskDB,
    session_id: SessionId | None,
    prompt_id: PromptId | None,
    outcome: str = "stop",
    background: int = 0,
    timestamp: float | None = None,
) -> bool:
    """Record the end of the turn ``prompt_id`` (``outcome`` ``stop`` or ``failure``;
    ``background``: how many background tasks were still running) through this
    database's spool, as the Stop hook does; False for an invalid prompt id."""
    from missioncache_spool import append
    from missioncache_time._turn_end import new_turn_end

    sid, pid = session_id_or_none(session_id), prompt_id_or_none(prompt_id)
    record = new_turn_end(sid, pid, outcome, background, timestamp)
    if record is None:
        return False
    append(db.spool_folder, record)
    return True


def process_pending(db: TaskDB, now: float | None = None) -> int:
    """Ingest the spool (heartbeats, turn ends, token records), give token records their
    task and fold unprocessed heartbeats into work sessions; returns how many heartbeats
    were processed."""
    from missioncache_time import _sessions as sessions

    return sessions.process_pending(db.conn, db.spool_folder, now)


def time_invested(db: TaskDB, task_id: int, period: str = "all") -> int:
    """Seconds worked on the task: ``all``, ``today``, ``week`` (last 7 days) or
    ``month`` (last 30 days). The total of ``time_split``."""
    from missioncache_time import _sessions as sessions

    return sessions.time_invested(db.conn, task_id, period)


def time_split(
    db: TaskDB,
    task_id: int,
    period: str = "all",
    now: float | None = None,
    keep_summary: bool = False,
) -> TimeSplit:
    """Seconds worked on the task within ``period``: ``total`` (the union), ``claude``
    (inside turns) and ``you`` (the human's gaps within the idle timeout).
    ``keep_summary``: store the summary that makes the next all-time read fast, when
    the database is free (``missioncache_time._summary``)."""
    from missioncache_time import _sessions as sessions

    return sessions.time_split(db.conn, task_id, period, now, keep_summary)
