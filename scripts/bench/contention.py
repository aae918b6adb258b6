"""Part 2: heartbeats under contention: N sessions prompting while the lock is held.

For each case a fresh HOME with one task. A locker process takes the tasks.db write lock
(``BEGIN IMMEDIATE``) and holds it for 0, 1 or 3 seconds; meanwhile N sessions (each its
own session id, as N Claude Code windows on one repository) each send several prompts,
running the activity tracker as Claude Code would (one prompt after the other within a
session, the sessions at once). Reported: the hook's latency distribution, whether any
hook passed its timeout, then (once every detached child has exited) how many heartbeats
are kept in tasks.db or the spool, and after ``process-heartbeats`` how many are in the
database: both must equal the number sent.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import uuid

from bench.common import Bench, Home
from bench.stats import summarize

NEEDS_HOOKS = True
SESSIONS = (1, 4, 16)
HOLDS = (0.0, 1.0, 3.0)
PROMPTS = 5
QUICK_PROMPTS = 3
SCRIPT = "activity_tracker.py"

_LOCKER = r"""
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("COMMIT")
"""


def _session(home: Home, prompts: int, latencies: list[float], failures: list[str]) -> None:
    sid = str(uuid.uuid4())
    for _ in range(prompts):
        run = home.run_hook(SCRIPT, home.payload("UserPromptSubmit", session_id=sid))
        latencies.append(run.seconds)
        if run.returncode != 0 or run.stdout:
            failures.append(f"exit {run.returncode}, stdout {run.stdout[:80]!r}")


def _lock(home: Home, hold: float) -> subprocess.Popen | None:
    if hold <= 0:
        return None
    locker = subprocess.Popen(
        [sys.executable, "-c", _LOCKER, str(home.db_path), str(hold)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert locker.stdout is not None and locker.stdout.readline().strip() == "locked"
    return locker


class SpoolWatch(threading.Thread):
    """Samples the spool every 25 ms: the most heartbeats waiting in it at once shows the
    spool path was taken (later writers ingest it, so the end state hides that)."""

    def __init__(self, home: Home):
        super().__init__(daemon=True)
        self.home, self.peak, self.done = home, 0, threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.025):
            self.peak = max(self.peak, self.home.spooled_heartbeats())


def case(bench: Bench, sessions: int, hold: float, prompts: int) -> dict:
    home = bench.new_home(f"contention-{sessions}-{hold:g}")
    latencies: list[float] = []
    failures: list[str] = []
    locker = _lock(home, hold)
    watch = SpoolWatch(home)
    watch.start()
    started = time.perf_counter()
    threads = [
        threading.Thread(target=_session, args=(home, prompts, latencies, failures))
        for _ in range(sessions)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    hooks_done = time.perf_counter() - started
    if locker is not None:
        locker.wait()
    home.wait_children_gone(timeout=30)
    settled = time.perf_counter() - started
    watch.done.set()
    watch.join()
    sent = sessions * prompts
    kept = home.kept_heartbeats()
    spooled = home.spooled_heartbeats()
    home.cli("process-heartbeats")
    recorded = home.db_heartbeats(processed=True)
    timeout = bench.hooks[SCRIPT].timeout
    return {
        "sessions": sessions,
        "lock_held_s": hold,
        "sent": sent,
        "kept_before_processing": kept,
        "spooled": spooled,
        "spool_peak": watch.peak,
        "recorded": recorded,
        "lost": sent - recorded,
        "hooks_past_timeout": sum(1 for s in latencies if s >= timeout),
        "hook_failures": failures[:5],
        "hook": summarize(latencies),
        "all_hooks_done_s": round(hooks_done, 2),
        "all_heartbeats_kept_s": round(settled, 2),
    }


def run(bench: Bench) -> dict:
    prompts = QUICK_PROMPTS if bench.quick else PROMPTS
    rows = []
    for sessions in SESSIONS:
        for hold in HOLDS:
            rows.append(case(bench, sessions, hold, prompts))
            r = rows[-1]
            print(
                f"  {sessions} sessions, lock {hold:g} s: hook median {r['hook']['median_ms']} "
                f"ms, p95 {r['hook']['p95_ms']} ms, max {r['hook']['max_ms']} ms; "
                f"sent {r['sent']}, spooled {r['spooled']}, recorded {r['recorded']}",
                flush=True,
            )
    lost = sum(r["lost"] for r in rows)
    late = sum(r["hooks_past_timeout"] for r in rows)
    worst = max(r["hook"]["max_ms"] for r in rows)
    targets = [
        {
            "name": "contention: heartbeats lost (all cases)",
            "target": "0",
            "value": f"{lost} of {sum(r['sent'] for r in rows)}",
            "met": lost == 0,
        },
        {
            "name": "contention: hooks past their 5 s timeout",
            "target": "0",
            "value": f"{late} (slowest {worst:,.0f} ms)",
            "met": late == 0,
        },
    ]
    return {"prompts_per_session": prompts, "rows": rows, "targets": targets}


def markdown(result: dict) -> str:
    from bench.report import ms, table

    rows = [
        [
            r["sessions"],
            f"{r['lock_held_s']:g} s",
            ms(r["hook"]["median_ms"]),
            ms(r["hook"]["p95_ms"]),
            ms(r["hook"]["max_ms"]),
            r["hooks_past_timeout"],
            r["sent"],
            r["spool_peak"],
            r["spooled"],
            r["recorded"],
            f"{r['all_heartbeats_kept_s']:.1f} s",
        ]
        for r in result["rows"]
    ]
    return "\n".join(
        [
            "## Heartbeats under contention",
            "",
            f"N sessions × {result['prompts_per_session']} prompts each (the activity tracker "
            "as Claude Code runs it) while another process holds the tasks.db write lock. "
            "Spool peak = most heartbeats waiting at once in the spool (they found the lock "
            "busy past the 0.75 s busy timeout); in spool at end = still there when the last "
            "child exited (later writers ingest the spool); recorded = in tasks.db after "
            "`process-heartbeats`.",
            "",
            table(
                [
                    "sessions",
                    "lock held",
                    "hook median",
                    "hook p95",
                    "hook max",
                    "past 5 s timeout",
                    "sent",
                    "spool peak",
                    "in spool at end",
                    "recorded",
                    "all kept after",
                ],
                rows,
            ),
            "",
        ]
    )
