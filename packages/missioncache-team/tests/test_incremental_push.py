"""A push costs what is new, not the history (docs/team.md, "How it runs"): after N new
turns it reads as much of tasks.db whether the history before is 300 turns or 3,000
(work counted as SQLite virtual machine steps, ``set_progress_handler``, on tasks.db and
the ledger), and it still finds what arrives out of order: a synced machine's old turns
(old epochs, new rowids), a message that gets its task later, a turn end that came
before its start, and a tasks.db whose newest rows are gone (rowids reused)."""

from __future__ import annotations

import sqlite3
import time
import uuid
from pathlib import Path

from missioncache_db import TaskDB
from missioncache_harness.team import record_messages, record_waits
from missioncache_harness.worklog import record_work
from missioncache_team import config, outbox

TICK = 50  # steps between two calls of the counter
NEW_TURNS = 5


def _history(path: Path, turns: int) -> tuple[TaskDB, int]:
    """A task with ``turns`` turns, a message each and a wait every tenth, all pushed."""
    db = TaskDB(path)
    task = db.create_task(f"checkout-{uuid.uuid4().hex[:6]}", None).id
    base = time.time() - turns * 80 - 3600
    record_work(db.file, task, base, [(60, 10)] * turns, session_id="old")
    messages = [(base + n * 70, "m", (1, 2, 0, 0, 0)) for n in range(turns)]
    record_messages(db.file, task, "old", messages)
    record_waits(db.file, task, "old", [(base + n * 700, 5) for n in range(turns // 10)])
    return db, task


def _steps(db: TaskDB, sent: outbox.Sent, settings: dict) -> tuple[int, dict]:
    count = [0]

    def tick() -> int:
        count[0] += 1
        return 0

    for conn in (db.conn, sent.conn):
        conn.set_progress_handler(tick, TICK)
    try:
        batch = outbox.pending(db.conn, settings, sent)
    finally:
        for conn in (db.conn, sent.conn):
            conn.set_progress_handler(None, TICK)
    return count[0], batch


def test_a_push_after_new_turns_reads_as_much_whatever_the_history(mc_roots, tmp_path):
    settings = config.setup("postgresql://db.example.invalid/team", "alice")
    work = []
    for turns in (300, 3000):
        db, task = _history(tmp_path / f"{turns}.db", turns)
        sent = outbox.Sent(str(tmp_path / f"{turns}-sent.sqlite"))
        first = outbox.pending(db.conn, settings, sent)
        assert len(first["start"]) == turns and len(first["message"]) == turns
        sent.add(first)
        moment = record_work(db.file, task, time.time() - 600, [(30, 5)] * NEW_TURNS, "new")
        fresh = [(moment - 100 - n, "m", (1, 2, 0, 0, 0)) for n in range(NEW_TURNS)]
        record_messages(db.file, task, "new", fresh)
        steps, batch = _steps(db, sent, settings)
        counts = {kind: len(events) for kind, events in batch.items()}
        assert counts == {"task": 0, "start": 5, "end": 5, "message": 5, "wait": 0}
        work.append(steps)
        sent.close()
        db.close()
    short, long = work
    assert short > 0
    assert long <= short * 1.1, f"{short} steps after 300 turns, {long} after 3000"


def test_late_and_out_of_order_rows_are_still_pushed(mc_roots, tmp_path):
    settings = config.setup("postgresql://db.example.invalid/team", "alice")
    db, task = _history(tmp_path / "tasks.db", 20)
    sent = outbox.Sent(str(tmp_path / "sent.sqlite"))
    sent.add(outbox.pending(db.conn, settings, sent))
    old = time.time() - 30 * 86400

    # a synced machine's turn of a month ago: an old epoch, a new rowid
    record_work(db.file, task, old, [(120, 0)], session_id="desk")
    # a message whose task is not known yet, and a turn end that came before its start
    with sqlite3.connect(db.file) as conn:
        conn.execute(
            "INSERT INTO usage(session_id, message_key, epoch, model, input_tokens,"
            " output_tokens, task_id) VALUES ('later', 'k1', ?, 'm', 1, 1, NULL)",
            (time.time() - 50,),
        )
        conn.execute(
            "INSERT INTO turn_ends(uid, session_id, prompt_id, epoch) VALUES"
            " ('end-first', 'early', 'p-early', ?)",
            (time.time() - 40,),
        )
    batch = outbox.pending(db.conn, settings, sent)
    assert [len(batch[k]) for k in ("start", "end", "message")] == [1, 1, 0]
    assert batch["start"][0]["epoch"] == old
    sent.add(batch)
    assert outbox.count(outbox.pending(db.conn, settings, sent)) == 0

    with sqlite3.connect(db.file) as conn:
        conn.execute("UPDATE usage SET task_id = ? WHERE session_id = 'later'", (task,))
        conn.execute(
            "INSERT INTO heartbeats(uid, task_id, timestamp, epoch, session_id, prompt_id)"
            " VALUES ('start-late', ?, 'x', ?, 'early', 'p-early')",
            (task, time.time() - 100),
        )
    batch = outbox.pending(db.conn, settings, sent)
    assert [e["id"] for e in batch["end"]] == ["end-first"]
    assert [e["id"] for e in batch["start"]] == ["start-late"]
    assert [e["session"] for e in batch["message"]] == ["later"]
    sent.add(batch)

    # the newest rows deleted, their rowids given to new ones: found all the same
    with sqlite3.connect(db.file) as conn:
        conn.execute("DELETE FROM heartbeats WHERE uid = 'start-late'")
        conn.execute(
            "INSERT INTO heartbeats(uid, task_id, timestamp, epoch, session_id, prompt_id)"
            " VALUES ('start-reused', ?, 'x', ?, 'again', 'p-again')",
            (task, time.time() - 10),
        )
    batch = outbox.pending(db.conn, settings, sent)
    assert [e["id"] for e in batch["start"]] == ["start-reused"]  # nothing sent twice
    sent.close()
    db.close()
