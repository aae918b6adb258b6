"""Sending the outbox (``missioncache_team.outbox``) to the team's server.

One transaction per push: the server stores the whole batch or nothing (a push killed
midway, or a server that went away, leaves it as it was). Every insert is ``ON CONFLICT
DO NOTHING`` on (person, id), so a batch sent again, from this machine or from the
person's other machine that synced the same events, is stored once; a task's row is
updated only by a newer change. The person is ``current_user``: it is never sent. Only
after the commit are the ids recorded as sent here.
"""

from __future__ import annotations

from typing import Any

_TASK = (
    "INSERT INTO missioncache.tasks AS t (uid, machine, name, team_key, client, fork_parent,"
    " private, changed) VALUES (%(uid)s, %(machine)s, %(name)s, %(key)s, %(client)s,"
    " %(fork_parent)s, %(private)s, %(changed)s) ON CONFLICT (person, uid) DO UPDATE SET"
    " name = EXCLUDED.name, team_key = EXCLUDED.team_key, client = EXCLUDED.client,"
    " fork_parent = EXCLUDED.fork_parent, private = EXCLUDED.private,"
    " changed = EXCLUDED.changed WHERE t.changed <= EXCLUDED.changed"
)
_START = (
    "INSERT INTO missioncache.turn_starts (id, machine, task_uid, session_id, prompt_id,"
    " epoch, kind) VALUES (%(id)s, %(machine)s, %(task)s, %(session)s, %(prompt)s,"
    " %(epoch)s, %(kind)s) ON CONFLICT (person, id) DO NOTHING"
)
_END = (
    "INSERT INTO missioncache.turn_ends (id, machine, session_id, prompt_id, epoch,"
    " background) VALUES (%(id)s, %(machine)s, %(session)s, %(prompt)s, %(epoch)s,"
    " %(background)s) ON CONFLICT (person, id) DO NOTHING"
)
_MESSAGE = (
    "INSERT INTO missioncache.messages (id, machine, task_uid, session_id, prompt_id, epoch,"
    " model, speed, input_tokens, output_tokens, cache_5m_tokens, cache_1h_tokens,"
    " cache_read_tokens, cost_usd) VALUES (%(id)s, %(machine)s, %(task)s, %(session)s,"
    " %(prompt)s, %(epoch)s, %(model)s, %(speed)s, %(input)s, %(output)s, %(cache_5m)s,"
    " %(cache_1h)s, %(cache_read)s, %(cost)s) ON CONFLICT (person, id) DO NOTHING"
)
_WAIT = (
    "INSERT INTO missioncache.waits (id, machine, task_uid, session_id, epoch, seconds)"
    " VALUES (%(id)s, %(machine)s, %(task)s, %(session)s, %(epoch)s, %(seconds)s)"
    " ON CONFLICT (person, id) DO NOTHING"
)
STATEMENTS = {
    "task": _TASK, "start": _START, "end": _END, "message": _MESSAGE, "wait": _WAIT
}  # fmt: skip
# The schema version that first stores each kind; an older server keeps them waiting here.
SINCE_VERSION = {"wait": 2}
CLOCK_WARNING_SECONDS = 300


class Outcome:
    """What a push did: events sent, events still waiting, the error (None: reached)."""

    def __init__(self, sent: int, waiting: int, error: str | None, skew: float = 0.0):
        self.sent, self.waiting, self.error, self.skew = sent, waiting, error, skew
        self.old_schema = False  # the server cannot store every kind yet

    def lines(self) -> list[str]:
        if self.error:
            return [
                f"the team's server was not reached: {self.error}",
                f"{self.waiting} event{'' if self.waiting == 1 else 's'} wait here and go"
                " with the next push",
            ]
        lines = [
            f"pushed {self.sent} event{'' if self.sent == 1 else 's'} to the team's server"
            if self.sent
            else "nothing new to push: the team's server has every event"
        ]
        if self.old_schema:
            lines.append(
                f"{self.waiting} wait{'' if self.waiting == 1 else 's'} (retry back-offs) stay"
                " here: the team's server has an older schema; whoever administers it runs"
                " `missioncache team setup URL --person NAME --init` once more"
            )
        if abs(self.skew) >= CLOCK_WARNING_SECONDS:
            ahead = "ahead of" if self.skew > 0 else "behind"
            lines.append(
                f"this machine's clock is {abs(self.skew) / 60:.0f} minutes {ahead} the"
                " server's: set it right, or its time is cut at the present moment"
            )
        return lines


def storable(batch: dict[str, list], version: int | None) -> dict[str, list]:
    """The part of ``batch`` the server's schema (``version``) has tables for."""
    return {k: v for k, v in batch.items() if SINCE_VERSION.get(k, 1) <= (version or 1)}


def send(conn: Any, batch: dict[str, list], machine: str) -> None:
    """Store ``batch`` in one transaction (``conn`` in autocommit mode)."""
    with conn.transaction(), conn.cursor() as cursor:
        for kind, statement in STATEMENTS.items():
            rows = [dict(event, machine=machine) for event in batch.get(kind, [])]
            if rows:
                cursor.executemany(statement, rows)


def push(tell: bool) -> Outcome:
    """Send what the server does not have; record the outcome (told once when ``tell``)."""
    import time

    import psycopg

    from missioncache_sync import machine_id
    from missioncache_team import config, outbox, status
    from missioncache_teamdb import schema
    from missioncache_teamdb.connect import Unreachable, connect

    settings = config.read()
    db = outbox.open_tasks_db()
    if db is None:
        status.record(0, 0, None, tell)
        return Outcome(0, 0, None)
    sent = outbox.Sent()
    try:
        batch = outbox.pending(db.conn, settings, sent)
        waiting = outbox.count(batch)
        try:
            conn = connect(settings["url"], settings["person"])
        except Unreachable as error:
            status.record(0, waiting, str(error), tell)
            return Outcome(0, waiting, str(error))
        try:
            row = conn.execute("SELECT extract(epoch FROM clock_timestamp())").fetchone()
            skew = time.time() - float(row[0]) if row else 0.0
            sending = storable(batch, schema.version(conn))
            send(conn, sending, machine_id())
        except psycopg.Error as error:
            message = " ".join(str(error).split())[:300] or type(error).__name__
            status.record(0, waiting, message, tell)
            return Outcome(0, waiting, message)
        finally:
            conn.close()
        sent.add(sending)
        done = outbox.count(sending)
        status.record(done, waiting - done, None, tell)
        outcome = Outcome(done, waiting - done, None, skew)
        outcome.old_schema = done < waiting
        return outcome
    finally:
        sent.close()
        db.close()
