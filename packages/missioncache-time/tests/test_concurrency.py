"""Real processes on a real tasks.db: no heartbeat is lost or counted twice."""

import subprocess
import time
from pathlib import Path

from missioncache_db import TaskDB
from missioncache_state import locations
from missioncache_time import process_pending, time_invested


def heartbeat_spool_dir() -> Path:
    return Path(locations.heartbeat_spool_dir())


T0 = 1_700_000_000

PROCESS = """
import sys, time
from missioncache_db import TaskDB
from missioncache_time import process_pending
start, now = float(sys.argv[1]), float(sys.argv[2])
with TaskDB(busy_timeout=60) as db:
    time.sleep(max(0.0, start - time.time()))  # both processes start at the same moment
    print(process_pending(db, now=now))
"""

HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()  # hold the write lock until the test says so
conn.execute("COMMIT")
"""

WRITER = """
import sys
from missioncache_db import TaskDB
from missioncache_time import record_heartbeat
task_id, worker, count, t0 = map(int, sys.argv[1:5])
results = []
with TaskDB(busy_timeout=0.02) as db:
    for n in range(count):
        when = t0 + worker * 100000 + n * 10
        results.append(record_heartbeat(db, task_id, "w%d" % worker, timestamp=when))
        if n == 0:
            print("first", results[0], flush=True)
print("spooled", results.count("spool"), flush=True)
"""


def test_two_process_heartbeats_at_once_count_each_heartbeat_once(mc_roots, mc_bare):
    with TaskDB() as db:
        task = db.create_task("a")
        for n in range(3000):
            db.conn.execute(
                "INSERT INTO heartbeats(uid, task_id, timestamp, epoch) VALUES (?, ?, ?, ?)",
                (f"{n:032x}", task.id, "2023-11-14 22:13:20", T0 + n * 7),
            )
    start = time.time() + 1.0
    procs = [mc_bare.spawn(PROCESS, start, T0 + 10**6, stdout=subprocess.PIPE) for _ in range(2)]
    counts = sorted(int(p.communicate(timeout=120)[0]) for p in procs)
    assert counts == [0, 3000]
    with TaskDB() as db:
        assert process_pending(db, now=T0 + 10**6) == 0
        total = db.conn.execute("SELECT SUM(heartbeat_count) FROM sessions").fetchone()[0]
        assert total == 3000
        assert time_invested(db, task.id) == 2999 * 7 + 120


def test_eight_writers_against_a_held_lock_lose_and_double_nothing(mc_roots, mc_bare):
    """8 processes x 200 heartbeats while another process holds the write lock longer
    than their budget: every heartbeat is kept (database or spool) and, after
    processing, counted exactly once."""
    with TaskDB() as db:
        task = db.create_task("a")
        path = db.path
    holder = mc_bare.spawn(HOLDER, path, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "locked"
        writers = [
            mc_bare.spawn(WRITER, task.id, worker, 200, T0, stdout=subprocess.PIPE)
            for worker in range(8)
        ]
        # every writer has met the held lock (and spooled) before it is released
        assert [w.stdout.readline().split() for w in writers] == [["first", "spool"]] * 8
    finally:
        holder.communicate("release\n", timeout=60)
    spooled = [int(w.communicate(timeout=120)[0].split()[-1]) for w in writers]
    assert all(w.returncode == 0 for w in writers)
    assert sum(spooled) >= 8
    with TaskDB() as db:
        assert process_pending(db) == 1600
        assert process_pending(db) == 0
        conn = db.conn
        assert conn.execute("SELECT COUNT(*) FROM heartbeats").fetchone()[0] == 1600
        processed = conn.execute("SELECT COUNT(*) FROM heartbeats WHERE processed = 1")
        assert processed.fetchone()[0] == 1600
        assert conn.execute("SELECT SUM(heartbeat_count) FROM sessions").fetchone()[0] == 1600
        assert conn.execute("SELECT COUNT(DISTINCT epoch) FROM heartbeats").fetchone()[0] == 1600
    leftovers = list(heartbeat_spool_dir().iterdir()) if heartbeat_spool_dir().exists() else []
    assert leftovers == []


def test_heartbeat_auto_command_spools_when_the_lock_is_held(mc_roots, cli, mc_workdir):
    with TaskDB() as db:
        task = db.create_task("a", repo=mc_workdir)
        holder = db.conn
        holder.execute("BEGIN IMMEDIATE")
        done = cli("heartbeat-auto", cwd=mc_workdir, env={"CLAUDE_SESSION_ID": "s1"})
        holder.execute("ROLLBACK")
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
        assert db.conn.execute("SELECT COUNT(*) FROM heartbeats").fetchone()[0] == 0
        assert process_pending(db) == 1
        assert db.conn.execute("SELECT task_id, session_id FROM heartbeats").fetchall() == [
            (task.id, "s1")
        ]
