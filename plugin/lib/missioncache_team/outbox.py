"""Every event that leaves the laptop, each with its id, and which ones the server has.

This is the whole of what is sent (docs/team.md lists the same columns); nothing else of
tasks.db is read here. Never a prompt, a heartbeat's context, a context or tasks file, a
summary, a transcript, a path, a repository or its URL:

- a task: its uid, its name and its team key (its JIRA key when it has one, else its
  name: how one task is matched across people), its client, the uid of the task it was
  forked from, whether it is private, when it last changed. A private task's name and key
  are replaced by an opaque one (``private-`` and a hash), and its client is not sent;
- a turn's start: its session, its prompt id, its epoch, its kind (0 a person's prompt,
  1 one Claude Code made, 2 a control prompt) and its task's uid;
- a turn's end: its session, its prompt id, its epoch, and whether background work was
  still running (-1: a failure that may have left an agent running);
- a message: its session, its turn's prompt id, its epoch, its task's uid, its model and
  speed, its five token counts and its cost in USD as computed here (None: no price);
- a wait (a retry back-off or a usage limit Claude Code waited out, docs/time.md): its
  session, its task's uid, when it began and how many seconds it lasted.

An event's id is stable (a heartbeat's and a turn end's own uid, a hash of a message's
key or of a wait's session and start, a hash of a task's sent fields), so sending one
twice stores it once. A push reads only what is new: the rows of each table past the
mark ``ledger.Sent`` keeps (a rowid, so rows a sync import adds late are new too), the
few rows passed earlier that could not leave yet, and the turn ends of new turn starts
(an end that came before its start leaves with the start). The tasks, a few hundred rows
at most, are read whole.
"""

from __future__ import annotations

import hashlib

from missioncache_team.ledger import Progress, Sent, chunks, expired

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from missioncache_state.sqlite import sqlite3

__all__ = ["KINDS", "Sent", "all_events", "count", "opaque_name", "pending", "waiting"]

KINDS = ("task", "start", "end", "message", "wait")


def _hash(*parts: object) -> str:
    text = "\x1f".join("" if p is None else str(p) for p in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def opaque_name(person: str, name: str) -> str:
    """A private task's name on the server: the same for one person's machines, telling
    nothing of the name itself."""
    return "private-" + _hash("private", person, name)[:12]


def _tasks(conn: sqlite3.Connection, settings: dict[str, Any]) -> list[dict[str, Any]]:
    from missioncache_team.config import task_mark

    rows = conn.execute(
        "SELECT t.uid, t.name, t.jira_key, p.uid, t.changed FROM tasks t"
        " LEFT JOIN tasks p ON p.id = t.fork_of WHERE t.uid IS NOT NULL"
    ).fetchall()
    events = []
    for uid, name, jira, parent, changed in rows:
        private, client = task_mark(settings, uid)
        key = jira.strip() if isinstance(jira, str) and jira.strip() else name
        if private:
            name = key = opaque_name(settings["person"], key)
            client = None
        fields = {
            "uid": uid,
            "name": name,
            "key": key,
            "client": client,
            "fork_parent": parent,
            "private": private,
            "changed": float(changed or 0.0),
        }
        events.append({"id": _hash("task", *fields.values()), **fields})
    return events


# Each table read by rowid: the columns, and the key that tells the row under a mark.
# A row becomes an event, or None while it cannot leave yet (its task unknown).
_STARTS = (
    "SELECT h.id, h.epoch, h.uid, t.uid, h.session_id, h.prompt_id,"
    " CASE h.kind WHEN 'synthetic' THEN 1 WHEN 'control' THEN 2 ELSE 0 END"
    " FROM heartbeats h LEFT JOIN tasks t ON t.id = h.task_id"
)
_ENDS = (
    "SELECT e.id, e.epoch, e.uid, e.session_id, e.prompt_id,"
    " CASE WHEN e.outcome = 'failure' AND e.background = 0 THEN -1 ELSE e.background END,"
    " EXISTS (SELECT 1 FROM heartbeats h WHERE h.session_id IS e.session_id"
    " AND h.prompt_id = e.prompt_id) FROM turn_ends e"
)
_MESSAGES = (
    "SELECT u.id, u.epoch, u.session_id, u.message_key, u.prompt_id, t.uid, u.model, u.speed,"
    " u.input_tokens, u.output_tokens, u.cache_5m_tokens, u.cache_1h_tokens,"
    " u.cache_read_tokens FROM usage u LEFT JOIN tasks t ON t.id = u.task_id"
)
_WAITS = (
    "SELECT w.id, w.epoch, w.session_id, w.seconds, t.uid FROM waits w"
    " LEFT JOIN tasks t ON t.id = w.task_id"
)
# The turn ends of the turn starts past a mark: an end may come before its start. CROSS
# JOIN keeps the new starts the outer loop (SQLite's planner would scan every turn end).
_ENDS_OF_NEW_STARTS = (
    "SELECT DISTINCT e.id, e.epoch, e.uid, e.session_id, e.prompt_id,"
    " CASE WHEN e.outcome = 'failure' AND e.background = 0 THEN -1 ELSE e.background END, 1"
    " FROM heartbeats h CROSS JOIN turn_ends e ON e.session_id IS h.session_id"
    " AND e.prompt_id = h.prompt_id WHERE h.id > ?"
)


def _start(row: tuple) -> dict[str, Any] | None:
    rowid, epoch, uid, task, session, prompt, kind = row
    if epoch is None or task is None:
        return None
    event_id = uid or _hash("start", session, prompt, epoch, rowid)
    return {"id": event_id, "task": task, "session": session or "", "prompt": prompt,
            "epoch": float(epoch), "kind": int(kind)}  # fmt: skip


def _end(row: tuple) -> dict[str, Any] | None:
    _rowid, epoch, uid, session, prompt, background, has_start = row
    if not has_start:
        return None
    return {"id": uid, "session": session or "", "prompt": prompt, "epoch": float(epoch),
            "background": int(background or 0)}  # fmt: skip


def _wait(row: tuple) -> dict[str, Any] | None:
    _rowid, epoch, session, seconds, task = row
    if task is None:
        return None
    return {"id": _hash("wait", session, epoch), "task": task, "session": session,
            "epoch": float(epoch), "seconds": float(seconds)}  # fmt: skip


def _message_reader() -> Callable[[tuple], dict[str, Any] | None]:
    from missioncache_cost import load_prices

    prices = load_prices()

    def message(row: tuple) -> dict[str, Any] | None:
        session, key, prompt, task, model, speed = row[2:8]
        if task is None:
            return None
        counts = tuple(int(c or 0) for c in row[8:13])
        return {"id": _hash("message", session, key), "task": task, "session": session,
                "prompt": prompt, "epoch": float(row[1]), "model": model, "speed": speed,
                "input": counts[0], "output": counts[1], "cache_5m": counts[2],
                "cache_1h": counts[3], "cache_read": counts[4],
                "cost": prices.cost(model, speed, counts)}  # type: ignore[arg-type]  # fmt: skip

    return message


_TABLES = {
    "start": ("heartbeats", _STARTS, "h", "coalesce(uid, '') || '|' || coalesce(session_id, '')"
              " || '|' || coalesce(prompt_id, '')"),
    "end": ("turn_ends", _ENDS, "e", "uid"),
    "message": ("usage", _MESSAGES, "u", "session_id || '|' || message_key"),
    "wait": ("waits", _WAITS, "w", "session_id || '|' || epoch"),
}  # fmt: skip
# Rows that can never leave are not kept waiting: a turn end leaves with its start.
_KEPT_WAITING = ("start", "message", "wait")


def _parsers() -> dict[str, Callable[[tuple], dict[str, Any] | None]]:
    return {"start": _start, "end": _end, "message": _message_reader(), "wait": _wait}


def all_events(conn: sqlite3.Connection, settings: dict[str, Any]) -> dict[str, list]:
    """Every event of tasks.db, by kind (``KINDS``): what a first push sends."""
    parsers = _parsers()
    found: dict[str, list] = {"task": _tasks(conn, settings)}
    for kind, (_table, select, _alias, _key) in _TABLES.items():
        events = (parsers[kind](row) for row in conn.execute(select))
        found[kind] = [event for event in events if event is not None]
    return found


def _key_at(conn: sqlite3.Connection, kind: str, rowid: int) -> str | None:
    table, _select, _alias, key = _TABLES[kind]
    row = conn.execute(f"SELECT {key} FROM {table} WHERE id = ?", (rowid,)).fetchone()
    return None if row is None else str(row[0])


def _read(
    conn: sqlite3.Connection,
    kind: str,
    sent: Sent,
    parse: Callable[[tuple], dict[str, Any] | None],
    now: float,
) -> tuple[list[dict[str, Any]], Progress, int]:
    """The events of ``kind`` past its mark, and those kept waiting that can leave now;
    how far it was read, and from which rowid."""
    _table, select, alias, _key = _TABLES[kind]
    mark, key = sent.mark(kind)
    if mark and _key_at(conn, kind, mark) != key:
        mark = 0  # tasks.db rebuilt, or its newest rows gone: read it all once more
    progress = Progress(mark, key)
    events = []
    for row in conn.execute(f"{select} WHERE {alias}.id > ? ORDER BY {alias}.id", (mark,)):
        progress.mark = int(row[0])
        event = parse(row)
        if event is not None:
            events.append(event)
        elif kind in _KEPT_WAITING and not expired(row[1], now):
            progress.unready.append((int(row[0]), float(row[1])))
    if progress.mark != mark:
        progress.key = _key_at(conn, kind, progress.mark)
    kept = dict(sent.unready(kind)) if kind in _KEPT_WAITING else {}
    for part in chunks(sorted(kept)):
        marks = ",".join("?" * len(part))
        for row in conn.execute(f"{select} WHERE {alias}.id IN ({marks})", part):
            event = parse(row)
            if event is not None:
                events.append(event)
            if event is not None or expired(row[1], now):
                progress.settled.append(int(row[0]))
            kept.pop(int(row[0]))
    progress.settled.extend(kept)  # deleted meanwhile
    return events, progress, mark


def pending(conn: sqlite3.Connection, settings: dict[str, Any], sent: Sent) -> dict[str, list]:
    """The events the server does not have yet, by kind; how far each kind was read is
    staged on ``sent`` for ``Sent.add`` once the server has them."""
    import time

    now = time.time()
    parsers = _parsers()
    batch: dict[str, list] = {}
    batch["task"] = _unsent("task", _tasks(conn, settings), sent)
    starts_from = 0
    for kind in _TABLES:
        events, progress, read_from = _read(conn, kind, sent, parsers[kind], now)
        if kind == "start":
            starts_from = read_from
        if kind == "end":
            ends = (_end(row) for row in conn.execute(_ENDS_OF_NEW_STARTS, (starts_from,)))
            events += [event for event in ends if event is not None]
        sent.stage(kind, progress)
        batch[kind] = _unsent(kind, events, sent)
    return batch


def _unsent(kind: str, events: list[dict[str, Any]], sent: Sent) -> list[dict[str, Any]]:
    unique = {event["id"]: event for event in events}
    return [event for event_id, event in unique.items() if not sent.has(kind, event_id)]


def count(batch: dict[str, list]) -> int:
    return sum(len(events) for events in batch.values())


def waiting(conn: sqlite3.Connection, settings: dict[str, Any]) -> int:
    """How many events wait to be pushed (what ``team status`` and the dashboard say)."""
    sent = Sent()
    try:
        return count(pending(conn, settings, sent))
    finally:
        sent.close()


def open_tasks_db() -> Any:
    """tasks.db (``TaskDB``) with the spooled heartbeats folded in, or None when MissionCache
    is not set up here."""
    from missioncache_db import open_if_set_up
    from missioncache_time import process_pending

    db = open_if_set_up(busy_timeout=10.0)
    if db is not None:
        try:
            process_pending(db)
        except Exception:  # tasks.db busy: what is there already is sent, the rest next time
            pass
    return db
