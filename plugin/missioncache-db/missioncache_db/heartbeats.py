"""Recording heartbeats: straight into tasks.db, or into the spool when it is busy.

A heartbeat is one counted prompt on a task. The write must fit the hook's time budget,
so it waits at most the connection's busy timeout for the write lock; when that runs out
the heartbeat goes to the spool (see ``spool``) with its uid and original timestamp, and
the next writer that gets the lock ingests it.
"""

from __future__ import annotations

import math
import os
import sqlite3

from missioncache_db import spool
from missioncache_db.schema import is_busy, write_transaction
from missioncache_db.tasks import stamp_worked_on
from missioncache_db.timefmt import local_text, to_epoch
from missioncache_state.ids import session_id_or_none
from missioncache_state.json_codec import dumps

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from missioncache_db.timefmt import When

OPPORTUNISTIC_FILES = 32  # a heartbeat writer ingests a little spool, never a lot
_BATCH = 1000
_UID_CHARS = frozenset("0123456789abcdefABCDEF")

_INSERT = (
    "INSERT OR IGNORE INTO heartbeats"
    "(uid, task_id, timestamp, epoch, session_id, context, processed) "
    "SELECT ?, ?, ?, ?, ?, ?, 0 WHERE EXISTS (SELECT 1 FROM tasks WHERE id = ?)"
)


def new_record(task_id: int, session_id: Any, context: Any = None, when: When = None) -> dict:
    """A heartbeat as it is stored or spooled. An invalid session id is kept as None."""
    epoch = to_epoch(when)
    return {
        "uid": os.urandom(16).hex(),
        "task_id": task_id,
        "epoch": epoch,
        "timestamp": local_text(epoch),
        "session_id": session_id_or_none(session_id),
        "context": context,
    }


def insert_records(conn: sqlite3.Connection, records: list[dict]) -> int:
    """Insert (ignoring known uids and vanished tasks); returns rows inserted."""
    if not records:
        return 0
    rows = [
        (
            r["uid"],
            r["task_id"],
            r["timestamp"],
            r["epoch"],
            r["session_id"],
            None if r["context"] is None else dumps(r["context"], sort_keys=True),
            r["task_id"],
        )
        for r in records
    ]
    inserted = conn.executemany(_INSERT, rows).rowcount
    latest: dict[int, str] = {}
    for r in records:
        latest[r["task_id"]] = max(latest.get(r["task_id"], ""), r["timestamp"])
    for task_id, text in latest.items():
        stamp_worked_on(conn, task_id, text)
    return inserted


def valid_record(raw: dict) -> dict | None:
    """A spooled line checked field by field; None for anything not written by us."""
    uid, task_id, epoch = raw.get("uid"), raw.get("task_id"), raw.get("epoch")
    if not (isinstance(uid, str) and 0 < len(uid) <= 64 and set(uid) <= _UID_CHARS):
        return None
    if isinstance(task_id, bool) or not isinstance(task_id, int):
        return None
    if isinstance(epoch, bool) or not isinstance(epoch, (int, float)) or not math.isfinite(epoch):
        return None
    text = raw.get("timestamp")
    if not (isinstance(text, str) and len(text) == 19):
        text = local_text(epoch)
    return {
        "uid": uid,
        "task_id": task_id,
        "epoch": float(epoch),
        "timestamp": text,
        "session_id": session_id_or_none(raw.get("session_id")),
        "context": raw.get("context"),
    }


def ingest_spool(
    conn: sqlite3.Connection, spool_dir: str, limit: int | None = None
) -> tuple[int, list[str]]:
    """Claim and insert spooled heartbeats inside the caller's write transaction.

    Returns (rows inserted, claimed files). The caller deletes the files only after it
    has committed; until then they stay claimed and are read again if anything fails.
    """
    files = spool.claim(spool_dir, limit)
    inserted = 0
    for path in files:
        batch: list[dict] = []
        for raw in spool.read_records(path):
            record = valid_record(raw)
            if record is not None:
                batch.append(record)
            if len(batch) >= _BATCH:
                inserted += insert_records(conn, batch)
                batch = []
        inserted += insert_records(conn, batch)
    return inserted, files


def _ingest_opportunistically(conn: sqlite3.Connection, spool_dir: str) -> list[str]:
    """Ingest a little of the spool under a savepoint: a bad spool must never cost the
    heartbeat being recorded. Files claimed by a failed attempt are read next time."""
    if not spool.pending_files(spool_dir):
        return []
    conn.execute("SAVEPOINT ingest")
    try:
        _, files = ingest_spool(conn, spool_dir, OPPORTUNISTIC_FILES)
    except (sqlite3.Error, OSError, ValueError, TypeError):
        conn.execute("ROLLBACK TO ingest")
        files = []
    conn.execute("RELEASE ingest")
    return files


def record(conn: sqlite3.Connection, spool_dir: str, heartbeat: dict) -> str:
    """Store one heartbeat; returns ``"db"``, or ``"spool"`` when the write lock was not
    free within the busy timeout. ValueError when the task does not exist."""
    try:
        with write_transaction(conn):
            if not insert_records(conn, [heartbeat]):
                raise ValueError(f"no task with id {heartbeat['task_id']!r}")
            claimed = _ingest_opportunistically(conn, spool_dir)
    except sqlite3.OperationalError as error:
        if not is_busy(error):
            raise
        spool.append(spool_dir, heartbeat)
        return "spool"
    spool.remove(claimed)
    return "db"
