"""Heartbeats, work sessions and time (data model §5)."""

import json
import os
import random
import sqlite3
import time
from pathlib import Path

import pytest

from missioncache_db import TaskDB
from missioncache_state import locations
from missioncache_state.bindings import write_session_binding
from missioncache_time import (
    format_duration,
    process_pending,
    record_heartbeat,
    record_heartbeat_auto,
    time_invested,
    time_split,
)
from missioncache_time._sessions import period_start


def heartbeat_spool_dir() -> Path:
    return Path(locations.heartbeat_spool_dir())


T0 = 1_700_000_000  # explicit timestamps: tests never depend on the clock
IDLE, TAIL = 300, 120


def sessions_of(db, task_id):
    return db.conn.execute(
        "SELECT start_epoch, end_epoch, duration_seconds, heartbeat_count, closed "
        "FROM sessions WHERE task_id = ? ORDER BY start_epoch",
        (task_id,),
    ).fetchall()


def beat(db, task, *offsets, sid="s1"):
    for offset in offsets:
        assert record_heartbeat(db, task.id, sid, timestamp=T0 + offset) == "db"


def test_record_heartbeat_stores_row_and_stamps_last_worked_on(db):
    task = db.create_task("a")
    record_heartbeat(db, task.id, "s1", {"why": "test"}, timestamp=T0)
    uid, ts, epoch, sid, context, processed = db.conn.execute(
        "SELECT uid, timestamp, epoch, session_id, context, processed FROM heartbeats"
    ).fetchone()
    assert len(uid) == 32 and epoch == T0 and sid == "s1" and processed == 0
    assert json.loads(context) == {"why": "test"}
    assert ts == time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(T0))
    assert db.get_task(task.id).last_worked_on == ts
    record_heartbeat(db, task.id, "s1", timestamp=T0 - 500)  # late one never rewinds it
    assert db.get_task(task.id).last_worked_on == ts


SESSION_UUID = "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"
PROMPT_UUID = "9A8B7C6D-5E4F-4A3B-8C2D-1E0F9A8B7C6D"


def test_one_prompt_recorded_twice_is_one_heartbeat(db):
    """The command hook and the dashboard's http heartbeat may both record a prompt: with
    Claude Code's UUID ids the uid is theirs, so the second write is ignored."""
    task = db.create_task("a")
    record_heartbeat(db, task.id, SESSION_UUID, timestamp=T0, prompt_id=PROMPT_UUID)
    record_heartbeat(db, task.id, SESSION_UUID, timestamp=T0 + 0.2, prompt_id=PROMPT_UUID)
    other = "1a2b3c4d-0000-4000-8000-00000000abcd"
    record_heartbeat(db, task.id, SESSION_UUID, timestamp=T0 + 60, prompt_id=other)
    rows = db.conn.execute("SELECT uid, prompt_id FROM heartbeats ORDER BY epoch").fetchall()
    assert len(rows) == 2
    assert rows[0][0] == (SESSION_UUID + PROMPT_UUID).replace("-", "").lower()
    # Ids that are not UUIDs keep random uids: two prompts never merge by accident.
    record_heartbeat(db, task.id, "s1", timestamp=T0 + 90, prompt_id="p1")
    record_heartbeat(db, task.id, "s1", timestamp=T0 + 95, prompt_id="p1")
    assert db.conn.execute("SELECT COUNT(*) FROM heartbeats").fetchone()[0] == 4


def test_record_heartbeat_for_unknown_task(db):
    with pytest.raises(ValueError, match="no task"):
        record_heartbeat(db, 42, "s1")
    assert db.conn.execute("SELECT COUNT(*) FROM heartbeats").fetchone()[0] == 0


def test_record_heartbeat_auto(db, mc_workdir):
    assert record_heartbeat_auto(db, mc_workdir, "s1") is False
    task = db.create_task("a", repo=mc_workdir)
    assert record_heartbeat_auto(db, mc_workdir, "s1") is True
    row = db.conn.execute("SELECT task_id, session_id, context FROM heartbeats").fetchone()
    assert row[:2] == (task.id, "s1")
    assert json.loads(row[2]) == {"cwd": str(mc_workdir)}
    assert db.get_task(task.id).last_worked_on is not None


def test_record_heartbeat_auto_follows_the_binding(db, mc_workdir):
    db.create_task("repo-task", repo=mc_workdir)
    bound = db.create_task("bound")
    write_session_binding("s9", "bound", bound.id)
    assert record_heartbeat_auto(db, mc_workdir, "s9")
    assert db.conn.execute("SELECT task_id FROM heartbeats").fetchone()[0] == bound.id


def tree(path):
    return sorted(
        os.path.relpath(os.path.join(d, f), path) for d, _, files in os.walk(path) for f in files
    )


@pytest.mark.parametrize("sid", ["../x", "a/b", "s" * 300, "a\x00b", "."])
def test_hostile_session_ids_write_nothing(db, tmp_path, mc_workdir, sid):
    task = db.create_task("a", repo=mc_workdir)
    before = tree(tmp_path)
    assert write_session_binding(sid, "a", task.id) is False
    assert record_heartbeat_auto(db, mc_workdir, sid) is True
    after = [p for p in tree(tmp_path) if not p.startswith("mc/tasks.db")]
    assert after == [p for p in before if not p.startswith("mc/tasks.db")]
    assert db.conn.execute("SELECT session_id FROM heartbeats").fetchall() == [(None,)]


def test_one_session_adds_gaps_and_stays_open(db):
    task = db.create_task("a")
    beat(db, task, 0, 60, 200, 499)
    assert process_pending(db, now=T0 + 500) == 4
    # open: last heartbeat is 1 s old, no tail yet
    assert sessions_of(db, task.id) == [(T0, T0 + 499, 499, 4, 0)]
    # time is computed from the turns: the last, unended one counts up to now (1 s)
    assert time_split(db, task.id, now=T0 + 500).total == 500


def test_idle_gap_splits_sessions_and_only_idle_ones_get_the_tail(db):
    task = db.create_task("a")
    beat(db, task, 0, 100, 100 + IDLE + 1, 100 + IDLE + 61)
    assert process_pending(db, now=T0 + 100 + IDLE + 100) == 4
    assert sessions_of(db, task.id) == [
        (T0, T0 + 100, 100 + TAIL, 2, 1),  # ended by the idle gap: tail credited
        (T0 + 401, T0 + 461, 60, 2, 0),  # still open: no tail
    ]


def test_gap_equal_to_the_idle_timeout_continues_the_session(db):
    task = db.create_task("a")
    beat(db, task, 0, IDLE)
    process_pending(db, now=T0 + IDLE + 1)
    assert [s[3] for s in sessions_of(db, task.id)] == [2]


def test_tail_is_credited_once_when_the_session_goes_idle(db):
    task = db.create_task("a")
    beat(db, task, 0, 30)
    assert process_pending(db, now=T0 + 60) == 2
    assert time_split(db, task.id, now=T0 + 60).total == 60  # the tail grows with now
    assert process_pending(db, now=T0 + 30 + IDLE + 1) == 0
    assert time_split(db, task.id, now=T0 + 30 + IDLE + 1).total == 30 + TAIL
    assert process_pending(db, now=T0 + 10_000) == 0
    assert time_split(db, task.id, now=T0 + 10_000).total == 30 + TAIL
    assert time_invested(db, task.id) == 30 + TAIL


def test_open_session_is_extended_by_a_later_run(db):
    task = db.create_task("a")
    beat(db, task, 0, 60)
    process_pending(db, now=T0 + 61)
    (first_id,) = db.conn.execute("SELECT id FROM sessions").fetchone()
    beat(db, task, 120, 180)
    assert process_pending(db, now=T0 + 181) == 2
    assert db.conn.execute("SELECT id FROM sessions").fetchall() == [(first_id,)]
    assert sessions_of(db, task.id) == [(T0, T0 + 180, 180, 4, 0)]
    beat(db, task, 180 + IDLE + 10)
    process_pending(db, now=T0 + 5000)
    assert sessions_of(db, task.id) == [
        (T0, T0 + 180, 180 + TAIL, 4, 1),
        (T0 + 490, T0 + 490, TAIL, 1, 1),
    ]


def test_late_heartbeat_inside_a_closed_session_or_bridging_two(db):
    task = db.create_task("a")
    beat(db, task, 0, 200, 200 + 2 * IDLE)
    process_pending(db, now=T0 + 10_000)
    assert len(sessions_of(db, task.id)) == 2
    beat(db, task, 100)  # inside the first session: counted, no extra time
    assert process_pending(db, now=T0 + 10_000) == 1
    assert sessions_of(db, task.id)[0] == (T0, T0 + 200, 200 + TAIL, 3, 1)
    beat(db, task, 200 + IDLE)  # bridges both sessions into one
    process_pending(db, now=T0 + 10_000)
    assert sessions_of(db, task.id) == [(T0, T0 + 800, 800 + TAIL, 5, 1)]


def test_tasks_are_accounted_separately(db):
    a, b = db.create_task("a"), db.create_task("b")
    beat(db, a, 0, 50)
    beat(db, b, 10, 20, 30)
    assert process_pending(db, now=T0 + 10_000) == 5
    assert time_invested(db, a.id) == 50 + TAIL
    assert time_invested(db, b.id) == 20 + TAIL


def test_configured_idle_and_tail_are_used(db):
    db.conn.execute("UPDATE config SET value = '10' WHERE key = 'idle_timeout_seconds'")
    db.conn.execute("UPDATE config SET value = '5' WHERE key = 'assumed_work_seconds'")
    task = db.create_task("a")
    beat(db, task, 0, 10, 21)
    process_pending(db, now=T0 + 100)
    assert [s[2] for s in sessions_of(db, task.id)] == [15, 5]


def single_pass(offsets, now):
    """What the rules give for a set of heartbeats, computed independently."""
    total, start, last = 0, None, None
    for t in sorted(offsets):
        if last is not None and t - last > IDLE:
            total += last - start + TAIL
            start = t
        start = t if start is None else start
        last = t
    if last is not None:
        total += last - start + min(TAIL, now - last)
    return total


@pytest.mark.parametrize("seed", range(6))
def test_runs_at_any_moment_give_the_single_pass_totals(mc_roots, seed):
    """However often processing runs, and with heartbeats arriving late (out of time
    order, as spooled ones do), totals and counts equal a single pass over all of them."""
    rnd = random.Random(seed)
    offsets, t = [], 0
    for _ in range(120):
        t += rnd.choice([5, 40, 120, 290, 300, 301, 700, 3000])
        offsets.append(t)
    arrival = offsets[:]
    for _ in range(15):  # some arrive late
        i, j = sorted(rnd.sample(range(len(arrival)), 2))
        arrival.insert(j, arrival.pop(i))
    with TaskDB() as db:
        task = db.create_task("a")
        done, now = 0, 0
        for index, offset in enumerate(arrival):
            record_heartbeat(db, task.id, "s", timestamp=T0 + offset)
            now = max(now, offset) + rnd.choice([0, 1, 200, 400])
            if rnd.random() < 0.3 or index == len(arrival) - 1:
                done += process_pending(db, now=T0 + now)
        assert done == len(offsets)
        assert time_split(db, task.id, now=T0 + now).total == single_pass(offsets, now)
        counts = db.conn.execute("SELECT SUM(heartbeat_count) FROM sessions").fetchone()[0]
        assert counts == len(offsets)


def test_second_run_processes_nothing(db):
    task = db.create_task("a")
    beat(db, task, 0, 10, 20)
    assert process_pending(db, now=T0 + 30) == 3
    assert process_pending(db, now=T0 + 30) == 0
    assert db.conn.execute("SELECT SUM(heartbeat_count) FROM sessions").fetchone()[0] == 3
    assert db.conn.execute("SELECT COUNT(*) FROM heartbeats WHERE processed = 0").fetchone()[0] == 0


def test_heartbeat_with_unreadable_foreign_timestamp_is_retired(db):
    task = db.create_task("a")
    db.conn.execute("INSERT INTO heartbeats(task_id, timestamp) VALUES (?, 'garbage')", (task.id,))
    beat(db, task, 0)
    assert process_pending(db, now=T0 + 10) == 1
    assert db.conn.execute("SELECT COUNT(*) FROM heartbeats WHERE processed = 0").fetchone()[0] == 0


def test_time_invested_periods(db):
    task = db.create_task("a")
    now = time.mktime((2026, 3, 11, 15, 30, 0, 0, 0, -1))
    today = period_start("today", now)
    week = period_start("week", now)
    month = period_start("month", now)
    assert month < week < today <= now
    # old, this month, this week, today
    for when in (today - 40 * 86400, today - 20 * 86400, week + 3600, today + 1):
        record_heartbeat(db, task.id, "s", timestamp=when)
    process_pending(db, now=now)
    assert time_split(db, task.id, "today", now=now).total == TAIL
    assert time_split(db, task.id, "week", now=now).total == TAIL * 2
    assert time_split(db, task.id, "month", now=now).total == TAIL * 3
    assert time_split(db, task.id, "all", now=now).total == TAIL * 4
    with pytest.raises(ValueError, match="invalid period"):
        time_invested(db, task.id, "year")


def test_period_boundaries_are_local_midnights():
    now = time.mktime((2026, 3, 11, 15, 30, 0, 0, 0, -1))
    assert time.localtime(period_start("today", now))[:6] == (2026, 3, 11, 0, 0, 0)
    assert time.localtime(period_start("week", now))[:6] == (2026, 3, 5, 0, 0, 0)
    assert time.localtime(period_start("month", now))[:6] == (2026, 2, 10, 0, 0, 0)
    assert period_start("all", now) is None


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0s"), (45, "45s"), (59.9, "59s"), (60, "1m"), (720, "12m"), (779, "12m"),
     (3600, "1h"), (3659, "1h"), (3900, "1h 5m"), (90_000, "25h"), (-5, "0s")],
)  # fmt: skip
def test_format_duration(seconds, text):
    assert format_duration(seconds) == text


# -- the spool ---------------------------------------------------------------------------


def hold_write_lock(path):
    holder = sqlite3.connect(str(path), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    return holder


def spool_files():
    """What is left to ingest (quarantined entries are never read again)."""
    directory = heartbeat_spool_dir()
    if not directory.exists():
        return []
    return sorted(p.name for p in directory.iterdir() if p.name != "quarantine")


def test_busy_heartbeat_is_spooled_with_its_timestamp_then_ingested(mc_roots):
    with TaskDB(busy_timeout=0.05) as db:
        task = db.create_task("a")
        holder = hold_write_lock(db.path)
        assert record_heartbeat(db, task.id, "s1", {"k": 1}, timestamp=T0) == "spool"
        assert record_heartbeat_auto(db, task.directory, "s1", timestamp=T0 + 60) is True
        holder.execute("ROLLBACK")
        holder.close()
        (name,) = spool_files()
        lines = (heartbeat_spool_dir() / name).read_text().splitlines()
        assert [json.loads(line)["epoch"] for line in lines] == [T0, T0 + 60]
        assert process_pending(db, now=T0 + 10_000) == 2
        assert spool_files() == []
        rows = db.conn.execute("SELECT epoch, session_id, context FROM heartbeats").fetchall()
        assert sorted(r[0] for r in rows) == [T0, T0 + 60]
        assert json.loads(sorted(rows)[0][2]) == {"k": 1}
        assert time_invested(db, task.id) == 60 + TAIL
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(T0 + 60))
        assert db.get_task(task.id).last_worked_on == stamp


def test_next_writer_ingests_the_spool(mc_roots):
    with TaskDB(busy_timeout=0.05) as db:
        task = db.create_task("a")
        holder = hold_write_lock(db.path)
        assert record_heartbeat(db, task.id, "s1", timestamp=T0) == "spool"
        holder.execute("ROLLBACK")
        assert record_heartbeat(db, task.id, "s1", timestamp=T0 + 10) == "db"
        assert spool_files() == []
        assert db.conn.execute("SELECT COUNT(*) FROM heartbeats").fetchone()[0] == 2


def test_replaying_a_claimed_file_never_double_counts(db):
    """A crash after the commit but before the claimed file was deleted: the file is read
    again and its uids are ignored."""
    task = db.create_task("a")
    directory = heartbeat_spool_dir()
    directory.mkdir(parents=True)
    line = {"uid": "ab" * 16, "task_id": task.id, "epoch": T0, "timestamp": "x" * 19}
    (directory / "1-aa.jsonl").write_text(json.dumps(line) + "\n")
    assert process_pending(db, now=T0 + 10) == 1
    (directory / "1-aa.bb.claimed").write_text(json.dumps(line) + "\n" + json.dumps(line) + "\n")
    (directory / "2-cc.jsonl").write_text(json.dumps(line) + "\n")
    assert process_pending(db, now=T0 + 20) == 0
    assert spool_files() == []
    assert db.conn.execute("SELECT COUNT(*) FROM heartbeats").fetchone()[0] == 1


def test_torn_foreign_and_orphan_lines_are_skipped(db):
    task = db.create_task("a")
    gone = db.create_task("gone")
    db.delete_task(gone.id)
    directory = heartbeat_spool_dir()
    directory.mkdir(parents=True)
    good = {"uid": "01" * 16, "task_id": task.id, "epoch": T0, "session_id": "../x"}
    bad = [
        {"uid": "zz", "task_id": task.id, "epoch": T0},
        {"uid": "02" * 16, "task_id": "1", "epoch": T0},
        {"uid": "03" * 16, "task_id": task.id, "epoch": "soon"},
        {"uid": "04" * 16, "task_id": gone.id, "epoch": T0},
        [1, 2],
    ]
    text = "\n".join(json.dumps(x) for x in [good, *bad]) + '\nnot json\n{"uid": "05'
    (directory / "9-x.jsonl").write_text(text)
    assert process_pending(db, now=T0 + 10) == 1
    assert db.conn.execute("SELECT uid, session_id FROM heartbeats").fetchall() == [
        ("01" * 16, None)
    ]
    assert spool_files() == []
    # the unparsable lines are kept aside once; the torn last line is just skipped
    (bad_file,) = (heartbeat_spool_dir() / "quarantine").iterdir()
    assert bad_file.read_text().splitlines() == ["[1, 2]", "not json"]


def test_other_database_files_have_their_own_spool(mc_roots, tmp_path):
    with TaskDB(tmp_path / "other.db") as other:
        assert other.spool_dir == tmp_path / "other.db.spool"
    with TaskDB() as db:
        assert db.spool_dir == heartbeat_spool_dir()
