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
twice stores it once. The ids the server has stored are kept in ``team/sent.sqlite``;
only the others are sent.
"""

from __future__ import annotations

import hashlib
import os

from missioncache_team import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from missioncache_state.sqlite import sqlite3

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


_STARTS = (
    "SELECT h.uid, h.id, t.uid, h.session_id, h.prompt_id, h.epoch,"
    " CASE h.kind WHEN 'synthetic' THEN 1 WHEN 'control' THEN 2 ELSE 0 END"
    " FROM heartbeats h JOIN tasks t ON t.id = h.task_id"
    " WHERE h.epoch IS NOT NULL AND t.uid IS NOT NULL"
)

_ENDS = (
    "SELECT e.uid, e.session_id, e.prompt_id, e.epoch,"
    " CASE WHEN e.outcome = 'failure' AND e.background = 0 THEN -1 ELSE e.background END"
    " FROM turn_ends e WHERE EXISTS (SELECT 1 FROM heartbeats h"
    " WHERE h.session_id IS e.session_id AND h.prompt_id = e.prompt_id)"
)

_MESSAGES = (
    "SELECT u.session_id, u.message_key, u.prompt_id, u.epoch, t.uid, u.model, u.speed,"
    " u.input_tokens, u.output_tokens, u.cache_5m_tokens, u.cache_1h_tokens,"
    " u.cache_read_tokens FROM usage u JOIN tasks t ON t.id = u.task_id"
    " WHERE t.uid IS NOT NULL"
)


_WAITS = (
    "SELECT w.session_id, w.epoch, w.seconds, t.uid FROM waits w JOIN tasks t"
    " ON t.id = w.task_id WHERE t.uid IS NOT NULL AND w.seconds > 0"
)


def _waits(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    return [
        {"id": _hash("wait", session, epoch), "task": task, "session": session,
         "epoch": float(epoch), "seconds": float(seconds)}
        for session, epoch, seconds, task in conn.execute(_WAITS)
    ]  # fmt: skip


def _starts(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    events = []
    for uid, rowid, task, session, prompt, epoch, kind in conn.execute(_STARTS):
        event_id = uid or _hash("start", session, prompt, epoch, rowid)
        events.append(
            {"id": event_id, "task": task, "session": session or "", "prompt": prompt,
             "epoch": float(epoch), "kind": int(kind)}
        )  # fmt: skip
    return events


def _ends(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    return [
        {"id": uid, "session": session or "", "prompt": prompt, "epoch": float(epoch),
         "background": int(background or 0)}
        for uid, session, prompt, epoch, background in conn.execute(_ENDS)
    ]  # fmt: skip


def _messages(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    from missioncache_cost import load_prices

    prices = load_prices()
    events = []
    for row in conn.execute(_MESSAGES):
        session, key, prompt, epoch, task, model, speed = row[:7]
        counts = tuple(int(c or 0) for c in row[7:12])
        events.append(
            {"id": _hash("message", session, key), "task": task, "session": session,
             "prompt": prompt, "epoch": float(epoch), "model": model, "speed": speed,
             "input": counts[0], "output": counts[1], "cache_5m": counts[2],
             "cache_1h": counts[3], "cache_read": counts[4],
             "cost": prices.cost(model, speed, counts)}  # type: ignore[arg-type]
        )  # fmt: skip
    return events


def all_events(conn: sqlite3.Connection, settings: dict[str, Any]) -> dict[str, list]:
    """Every event of tasks.db, by kind (``KINDS``)."""
    return {
        "task": _tasks(conn, settings),
        "start": _starts(conn),
        "end": _ends(conn),
        "message": _messages(conn),
        "wait": _waits(conn),
    }


class Sent:
    """The ids the server has stored (``team/sent.sqlite``), per kind."""

    def __init__(self, path: str | None = None):
        from missioncache_state.sqlite import sqlite3

        self.path = path or paths.sent_path()
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.conn = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS sent (kind TEXT NOT NULL, id TEXT NOT NULL,"
            " PRIMARY KEY (kind, id)) WITHOUT ROWID"
        )

    def ids(self, kind: str) -> set[str]:
        return {row[0] for row in self.conn.execute("SELECT id FROM sent WHERE kind = ?", (kind,))}

    def add(self, batch: dict[str, list]) -> None:
        rows = [(kind, event["id"]) for kind, events in batch.items() for event in events]
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            self.conn.executemany("INSERT OR IGNORE INTO sent(kind, id) VALUES (?, ?)", rows)
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def forget(self) -> None:
        """Send everything again (the server was replaced); the ids make it harmless."""
        self.conn.execute("DELETE FROM sent")

    def close(self) -> None:
        self.conn.close()


def pending(conn: sqlite3.Connection, settings: dict[str, Any], sent: Sent) -> dict[str, list]:
    """The events the server does not have yet, by kind."""
    events = all_events(conn, settings)
    batch = {}
    for kind in KINDS:
        done = sent.ids(kind)
        batch[kind] = [event for event in events[kind] if event["id"] not in done]
    return batch


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
