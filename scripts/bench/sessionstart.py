"""Part 5: SessionStart against the number of tasks and repositories in tasks.db.

Besides the real task tied to the session's project, the database holds N more tasks in N
more repositories (rows written straight into tasks.db: a user's history of projects; a
quarter of them paused, completed or archived). SessionStart resolves the task for its
cwd, binds the session, folds heartbeats and prints the banner; none of that should
depend on how many other tasks exist.
"""

from __future__ import annotations

import random
import sqlite3

from bench.common import Bench, Home
from bench.stats import ratio, summarize

NEEDS_HOOKS = True
COUNTS = (10, 1_000, 10_000)
STATUSES = ("active", "active", "active", "paused", "completed", "archived")


def populate(home: Home, count: int) -> None:
    conn = sqlite3.connect(home.db_path, timeout=30, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    repos = [(f"/home/dev/src/project-{i:05d}", f"project-{i:05d}") for i in range(count)]
    conn.executemany("INSERT INTO repositories(path, short_name) VALUES (?, ?)", repos)
    ids = dict(conn.execute("SELECT path, id FROM repositories"))
    rng = random.Random(count)
    rows = [
        (ids[path], f"task-{i:05d}", f"active/task-{i:05d}", rng.choice(STATUSES))
        for i, (path, _) in enumerate(repos)
    ]
    conn.executemany(
        "INSERT INTO tasks(repo_id, name, full_path, status) VALUES (?, ?, ?, ?)", rows
    )
    conn.execute("COMMIT")
    conn.close()


def run(bench: Bench) -> dict:
    rows = []
    for count in COUNTS:
        home = bench.new_home(f"sessionstart-{count}")
        populate(home, count)
        samples: dict[str, list[float]] = {"floor": [], "session_start": []}
        worked = 0
        for round_no in range(2 + bench.runs):
            order = list(samples)
            random.shuffle(order)
            for name in order:
                if name == "floor":
                    run_ = home.floor()
                else:
                    run_ = home.run_hook("session_start.py", home.payload("SessionStart"))
                    worked += round_no >= 2 and b"Active Task Detected" in run_.stdout
                if round_no >= 2:
                    samples[name].append(run_.seconds)
        stats = {name: summarize(s) for name, s in samples.items()}
        rows.append({"tasks": count + 1, "repositories": count + 1, **stats, "worked": worked})
        print(
            f"  {count + 1:,} tasks: session_start {stats['session_start']['median_ms']} ms, "
            f"floor {stats['floor']['median_ms']} ms",
            flush=True,
        )
    return {"rows": rows, "targets": []}


def markdown(result: dict) -> str:
    from bench.report import ms, table

    base = result["rows"][0]["session_start"]["median_ms"]
    rows = [
        [
            f"{r['tasks']:,}",
            f"{r['repositories']:,}",
            ms(r["session_start"]["median_ms"]),
            ms(r["session_start"]["p95_ms"]),
            f"{ratio(r['session_start']['median_ms'], r['floor']['median_ms']):.2f}x",
            f"{ratio(r['session_start']['median_ms'], base):.2f}x",
            f"{r['worked']}/{r['session_start']['n']}",
        ]
        for r in result["rows"]
    ]
    return "\n".join(
        [
            "## SessionStart against the number of tasks and repositories",
            "",
            table(
                ["tasks", "repositories", "median", "p95", "× floor", "growth", "banner printed"],
                rows,
            ),
            "",
        ]
    )
