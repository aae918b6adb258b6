"""Recording heartbeats: straight into tasks.db, or into the spool when it is busy.

A heartbeat is one counted prompt on a task. The write must fit the hook's time budget,
so it waits at most the connection's busy timeout for the write lock; when that runs out
the heartbeat goes to the spool (see ``spool``) with its uid and original timestamp, and
the next writer that gets the lock ingests it.
"""

from __future__ import annotations

import math
import time

import missioncache_spool as spool
from missioncache_db import is_busy, local_text, stamp_worked_on, to_epoch, write_transaction
from missioncache_spool import TURN_END, USAGE
from missioncache_state import lean_os as os
from missioncache_state.ids import prompt_id_or_none, session_id_or_none
from missioncache_state.json_codec import dumps
from missioncache_state.sqlite import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from missioncache_db import TaskDB, When
    from missioncache_state.ids import PromptId, SessionId

OPPORTUNISTIC_FILES = 32  # a heartbeat writer ingests a little spool, never a lot
_BATCH = 1000
_UID_CHARS = frozenset("0123456789abcdefABCDEF")

_INSERT = (
    "INSERT OR IGNORE INTO heartbeats"
    "(uid, task_id, timestamp, epoch, session_id, context, prompt_id, kind, processed) "
    "SELECT ?, ?, ?, ?, ?, ?, ?, ?, 0 WHERE EXISTS (SELECT 1 FROM tasks WHERE id = ?)"
)
_INSERT_END = (
    "INSERT OR IGNORE INTO turn_ends(uid, session_id, prompt_id, epoch, outcome, background) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)
# ``control``: a prompt that is not work by itself (a slash command, a bare ``y``): it is
# recorded only so that the turn it starts, when one ends, counts as Claude's (docs/time.md).
KINDS = ("prompt", "synthetic", "control")


def _uuid_hex(value: Any) -> str | None:
    """The 32 hex digits of a canonical UUID (``8-4-4-4-12``), else None."""
    if not isinstance(value, str) or len(value) != 36:
        return None
    parts = value.split("-")
    if [len(p) for p in parts] != [8, 4, 4, 4, 12]:
        return None
    digits = "".join(parts)
    return digits.lower() if set(digits) <= _UID_CHARS else None


def prompt_uid(session_id: Any, prompt_id: Any) -> str | None:
    """The uid of the heartbeat of prompt ``prompt_id`` in ``session_id``, the same
    whoever records it, so the command hook and the dashboard's http heartbeat recording
    one prompt store one row (``INSERT OR IGNORE`` on ``uid``). Claude Code's ids are
    UUIDs: their 32 + 32 hex digits are the uid, with no hashing import on the hook path.
    None for other ids: those heartbeats get a random uid, as before."""
    session, prompt = _uuid_hex(session_id), _uuid_hex(prompt_id)
    return session + prompt if session and prompt else None


def new_heartbeat(
    task_id: int | None,
    session_id: SessionId | None,
    context: Any = None,
    when: When = None,
    prompt_id: PromptId | None = None,
    kind: str = "prompt",
) -> dict:
    """A heartbeat as it is stored or spooled; ``kind`` is ``prompt`` (the human's) or
    ``synthetic`` (Claude Code's own). The ids come parsed (``SessionId``, ``PromptId``):
    they are not checked again here, only when the record is read back from the spool."""
    epoch = to_epoch(when)
    return {
        "uid": prompt_uid(session_id, prompt_id) or os.urandom(16).hex(),
        "task_id": task_id,
        "epoch": epoch,
        "timestamp": local_text(epoch),
        "session_id": session_id,
        "context": context,
        "prompt_id": prompt_id,
        "kind": kind if kind in KINDS else "prompt",
    }


def insert_records(conn: sqlite3.Connection, records: list[dict]) -> int:
    """Insert (ignoring known uids and vanished tasks); returns rows inserted. Turn-end
    records go to their own table, unattached to a task: the heartbeat of the same
    session and prompt names the task, whichever of the two arrives first. Usage records
    (tokens) go to table ``usage`` the same way (``_token_rows``)."""
    usage = [r for r in records if r.get("type") == USAGE]
    if usage:
        from missioncache_time._token_rows import insert_usage

        records = [r for r in records if r.get("type") != USAGE]
        insert_usage(conn, usage)
    ends = [r for r in records if r.get("type") == TURN_END]
    if ends:
        records = [r for r in records if r.get("type") != TURN_END]
        fields = ("uid", "session_id", "prompt_id", "epoch", "outcome", "background")
        conn.executemany(_INSERT_END, [tuple(r[f] for f in fields) for r in ends])
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
            r.get("prompt_id"),
            None if r.get("kind", "prompt") == "prompt" else r["kind"],
            r["task_id"],
        )
        for r in records
    ]
    inserted = conn.executemany(_INSERT, rows).rowcount
    latest: dict[int, str] = {}
    now = time.time()
    for r in records:
        # A clock that ran ahead must not pin last_worked_on in the future.
        text = r["timestamp"] if r["epoch"] <= now else local_text(now)
        latest[r["task_id"]] = max(latest.get(r["task_id"], ""), text)
    for task_id, text in latest.items():
        stamp_worked_on(conn, task_id, text)
    return inserted


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _spooled_cwd(raw: dict) -> str | None:
    context = raw.get("context")
    cwd = context.get("cwd") if isinstance(context, dict) else None
    return cwd if isinstance(cwd, str) and cwd.startswith("/") and "\0" not in cwd else None


def _valid_turn_end(raw: dict) -> dict | None:
    from missioncache_spool import MAX_BACKGROUND, OUTCOMES

    prompt_id, background = prompt_id_or_none(raw.get("prompt_id")), raw.get("background", 0)
    if prompt_id is None or not _is_int(background) or raw.get("outcome") not in OUTCOMES:
        return None
    return {
        "type": TURN_END,
        "uid": raw["uid"],
        "session_id": session_id_or_none(raw.get("session_id")),
        "prompt_id": prompt_id,
        "epoch": float(raw["epoch"]),
        "outcome": raw["outcome"],
        "background": max(0, min(background, MAX_BACKGROUND)),
    }


def valid_record(raw: dict) -> dict | None:
    """A spooled line checked field by field; None for anything not written by us. File
    boundary: the ids are parsed again here, as anything read back from a file is.
    A heartbeat, or a turn end (``type`` ``turn_end``). A heartbeat spooled while tasks.db
    was broken may carry no task id, only its cwd: it is resolved at ingest
    (``_resolve_unbound``)."""
    uid, task_id, epoch = raw.get("uid"), raw.get("task_id"), raw.get("epoch")
    if not (isinstance(uid, str) and 0 < len(uid) <= 64 and set(uid) <= _UID_CHARS):
        return None
    if isinstance(epoch, bool) or not isinstance(epoch, (int, float)) or not math.isfinite(epoch):
        return None
    if raw.get("type") == TURN_END:
        return _valid_turn_end(raw)
    if raw.get("type") == USAGE:
        from missioncache_time._token_rows import valid_usage

        return valid_usage(raw)
    if raw.get("type") is not None:
        return None
    if not (_is_int(task_id) or (task_id is None and _spooled_cwd(raw) is not None)):
        return None
    kind = raw.get("kind", "prompt")
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
        "prompt_id": prompt_id_or_none(raw.get("prompt_id")),
        "kind": kind if kind in KINDS else "prompt",
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
    resolved: dict = {}
    waiting: list[dict] = []  # spooled while tasks.db was broken; no task covers them yet
    for path in files:
        batch: list[dict] = []
        for record in spool.read_records(path, valid_record):  # bad lines: quarantined
            if record.get("type") is None and record["task_id"] is None:  # tasks.db broken
                attributed = _resolve_unbound(conn, record, resolved)
                if attributed is None:
                    waiting.append(record)
                record = attributed
            if record is not None:
                batch.append(record)
            if len(batch) >= _BATCH:
                inserted += insert_records(conn, batch)
                batch = []
        inserted += insert_records(conn, batch)
    spool.keep_unattributed(spool_dir, waiting)
    return inserted, files


def _resolve_unbound(conn: sqlite3.Connection, record: dict, cache: dict) -> dict | None:
    """Give a heartbeat spooled without a task (tasks.db was broken when it was written)
    the task its cwd and session resolve to now; None when nothing resolves yet. The
    caller keeps such a heartbeat aside (``spool.keep_unattributed``) rather than drop it:
    the database may have been repaired before its tasks were registered again."""
    from missioncache_db import find_task_for_cwd

    key = (record["context"]["cwd"], record["session_id"])
    if key not in cache:
        task = find_task_for_cwd(conn, key[0], key[1])
        cache[key] = None if task is None else task.id
    if cache[key] is None:
        return None
    return {**record, "task_id": cache[key]}


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


def _stored(conn: sqlite3.Connection, uid: str) -> bool:
    """Whether a heartbeat with this uid is in tasks.db: the same prompt recorded by the
    other path first (``prompt_uid``) is recorded, not an error."""
    return conn.execute("SELECT 1 FROM heartbeats WHERE uid = ?", (uid,)).fetchone() is not None


def record(conn: sqlite3.Connection, spool_dir: str, heartbeat: dict) -> str:
    """Store one heartbeat; returns ``"db"``, or ``"spool"`` when the write lock was not
    free within the busy timeout. ValueError when the task does not exist."""
    try:
        with write_transaction(conn):
            if not insert_records(conn, [heartbeat]) and not _stored(conn, heartbeat["uid"]):
                raise ValueError(f"no task with id {heartbeat['task_id']!r}")
            claimed = _ingest_opportunistically(conn, spool_dir)
    except sqlite3.OperationalError as error:
        if not is_busy(error):
            raise
        spool.append(spool_dir, heartbeat)
        return "spool"
    spool.remove(claimed)
    return "db"


# -- the calls on an open TaskDB (the package's front) ------------------------------------
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
    sid, pid = session_id_or_none(session_id), prompt_id_or_none(prompt_id)
    heartbeat = new_heartbeat(task_id, sid, context, timestamp, pid, kind)
    return record(db.conn, db.spool_folder, heartbeat)


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
    from missioncache_spool import append, new_turn_end

    sid, pid = session_id_or_none(session_id), prompt_id_or_none(prompt_id)
    record = new_turn_end(sid, pid, outcome, background, timestamp)
    if record is None:
        return False
    append(db.spool_folder, record)
    return True
