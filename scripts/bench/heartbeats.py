"""Part 4: process_pending against the number of unprocessed heartbeats.

The heartbeats are written straight into tasks.db (one ``executemany`` in one
transaction) with realistic shapes: three parallel "terminals" each working through
bursts of prompts on one of several tasks in one Claude session, prompts 20 s to a few
minutes apart, now and then an idle break that splits a work session, hours between
bursts; all of it ending an hour ago so every session closes. Then a fresh process (the
hook interpreter, the plugin's bundled library) runs ``process_pending`` once and
reports its wall time and its peak resident memory (``ru_maxrss``), beside the RSS it
had before the call (interpreter + open connection) so the growth is visible.
"""

from __future__ import annotations

import heapq
import json
import os
import random
import sqlite3
import subprocess
import time
import uuid
from collections.abc import Iterator

from bench.common import Bench, Home

SIZES = (10_000, 100_000, 1_000_000)
QUICK_SIZES = (10_000, 100_000)
TASKS = 12
STREAMS = 3
TARGET_SECONDS = 20.0
TARGET_MIB = 200.0

_INSERT = (
    "INSERT INTO heartbeats(uid, task_id, timestamp, epoch, session_id, context, processed) "
    "VALUES (?, ?, ?, ?, ?, ?, 0)"
)

_CHILD = r"""
import json, os, resource, sys, time
from missioncache_db import TaskDB
from missioncache_time import process_pending

def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

with TaskDB(sys.argv[1], busy_timeout=30) as db:
    db.conn.execute("SELECT count(*) FROM tasks").fetchone()
    before = rss_kib()
    start = time.perf_counter()
    processed = process_pending(db)
    seconds = time.perf_counter() - start
    sessions = db.conn.execute("SELECT count(*), sum(heartbeat_count) FROM sessions").fetchone()
print(json.dumps({
    "seconds": seconds, "processed": processed, "rss_before_kib": before,
    "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    "sessions": sessions[0], "sessions_heartbeats": sessions[1],
}))
"""


def _stream(rng: random.Random, count: int, task_ids: list[int]) -> Iterator[tuple]:
    """(relative epoch, task id, session id) for one terminal, in time order."""
    t = 0.0
    emitted = 0
    while emitted < count:
        task = rng.choice(task_ids)
        session = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        for _ in range(rng.randint(5, 80)):
            if emitted >= count:
                return
            yield t, task, session
            emitted += 1
            gap = min(rng.expovariate(1 / 90), 280)
            if rng.random() < 0.05:
                gap = rng.uniform(301, 900)  # coffee: a new work session, same Claude session
            t += max(gap, 5)
        t += rng.uniform(60, 1800) if rng.random() < 0.7 else rng.uniform(3600, 14 * 3600)


def _timeline(seed: int, count: int, task_ids: list[int]) -> Iterator[tuple]:
    shares = [count // STREAMS + (1 if i < count % STREAMS else 0) for i in range(STREAMS)]
    streams = [_stream(random.Random(seed * 100 + i), n, task_ids) for i, n in enumerate(shares)]
    return heapq.merge(*streams)


def generate(home: Home, count: int, seed: int = 7) -> dict:
    """Insert ``count`` unprocessed heartbeats; returns generation facts."""
    started = time.perf_counter()
    conn = sqlite3.connect(home.db_path, timeout=30, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(
        "INSERT INTO tasks(name, full_path, status) VALUES (?, ?, 'active')",
        [(f"gen-{i}", f"active/gen-{i}") for i in range(TASKS - 1)],
    )
    task_ids = [r[0] for r in conn.execute("SELECT id FROM tasks ORDER BY id")]
    last = max((rel for rel, _task, _sid in _timeline(seed, count, task_ids)), default=0.0)
    shift = time.time() - 3600 - last  # the newest heartbeat is an hour old
    context = json.dumps({"cwd": str(home.repo)}, sort_keys=True)

    def rows() -> Iterator[tuple]:
        for rel, task, sid in _timeline(seed, count, task_ids):
            epoch = rel + shift
            text = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))
            yield os.urandom(16).hex(), task, text, epoch, sid, context

    conn.executemany(_INSERT, rows())
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return {
        "generate_s": round(time.perf_counter() - started, 1),
        "span_days": round(last / 86400, 1),
        "db_mib": round(home.db_path.stat().st_size / 2**20, 1),
    }


def add_recent(home: Home, count: int = 20) -> None:
    """A few new heartbeats from the last minutes on two tasks: what PreCompact and
    SessionStart find on a database with a long processed history."""
    now = time.time()
    conn = sqlite3.connect(home.db_path, timeout=30, isolation_level=None)
    tasks = [r[0] for r in conn.execute("SELECT id FROM tasks ORDER BY id LIMIT 2")]
    rows = []
    for i in range(count):
        epoch = now - 600 + i * 25
        text = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))
        rows.append((os.urandom(16).hex(), tasks[i % 2], text, epoch, "recent-session", None))
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(_INSERT, rows)
    conn.execute("COMMIT")
    conn.close()


def measure(home: Home) -> dict:
    """Run process_pending once in a fresh process of the hook interpreter."""
    env = dict(home.env, PYTHONPATH=str(home.bench.plugin / "lib"))
    done = subprocess.run(
        [home.bench.python, "-c", _CHILD, str(home.db_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"process_pending child failed:\n{done.stderr}")
    result = json.loads(done.stdout)
    wal = home.db_path.with_name(home.db_path.name + "-wal")
    result["wal_mib"] = round(wal.stat().st_size / 2**20, 1) if wal.exists() else 0.0
    return result


def run(bench: Bench, sizes: tuple[int, ...] | None = None) -> dict:
    sizes = sizes or (QUICK_SIZES if bench.quick else SIZES)
    rows = []
    for count in sizes:
        home = bench.new_home(f"heartbeats-{count}")
        facts = generate(home, count)
        result = measure(home)
        if result["processed"] != count or result["sessions_heartbeats"] != count:
            raise RuntimeError(f"{count} heartbeats generated, result {result}")
        add_recent(home)
        later = measure(home)
        if later["processed"] != 20 or later["sessions_heartbeats"] != count + 20:
            raise RuntimeError(f"20 new heartbeats after {count}, result {later}")
        peak = result["maxrss_kib"] / 1024
        rows.append(
            {
                "heartbeats": count,
                "seconds": round(result["seconds"], 3),
                "us_per_heartbeat": round(result["seconds"] / count * 1e6, 2),
                "peak_rss_mib": round(peak, 1),
                "rss_before_mib": round(result["rss_before_kib"] / 1024, 1),
                "sessions": result["sessions"],
                "then_20_new_ms": round(later["seconds"] * 1000, 2),
                "wal_mib": result["wal_mib"],
                **facts,
            }
        )
        print(f"  process_pending {count:,}: {rows[-1]}", flush=True)
    largest = max(rows, key=lambda r: r["heartbeats"])
    targets = []
    if largest["heartbeats"] >= 1_000_000:
        targets = [
            {
                "name": "process_pending, 1M heartbeats: time",
                "target": f"< {TARGET_SECONDS:g} s",
                "value": f"{largest['seconds']:.1f} s",
                "met": largest["seconds"] < TARGET_SECONDS,
            },
            {
                "name": "process_pending, 1M heartbeats: peak memory",
                "target": f"< {TARGET_MIB:g} MiB",
                "value": f"{largest['peak_rss_mib']:.0f} MiB",
                "met": largest["peak_rss_mib"] < TARGET_MIB,
            },
        ]
    return {"rows": rows, "targets": targets}


def markdown(result: dict) -> str:
    from bench.report import table

    rows = [
        [
            f"{r['heartbeats']:,}",
            f"{r['sessions']:,}",
            f"{r['seconds']:.2f} s",
            f"{r['us_per_heartbeat']:.1f} µs",
            f"{r['peak_rss_mib']:.0f} MiB",
            f"{r['rss_before_mib']:.0f} MiB",
            f"{r['db_mib']:.0f} MiB",
            f"{r['then_20_new_ms']:.1f} ms",
        ]
        for r in result["rows"]
    ]
    return "\n".join(
        [
            "## process_pending against heartbeat count",
            "",
            f"{TASKS} tasks, {STREAMS} parallel terminals, bursts of prompts 5 s to 280 s apart "
            "with idle breaks; one call in a fresh process. Peak = the process's ru_maxrss; "
            "before = its RSS just before the call (interpreter + connection). Then 20 new = "
            "the next call after 20 more heartbeats arrive (what PreCompact and SessionStart "
            "pay on a long history).",
            "",
            table(
                [
                    "heartbeats",
                    "work sessions",
                    "time",
                    "per heartbeat",
                    "peak RSS",
                    "RSS before",
                    "tasks.db",
                    "then 20 new",
                ],
                rows,
            ),
            "",
        ]
    )
