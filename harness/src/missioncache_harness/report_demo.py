"""A week of made-up work on three tasks, and its HTML report made by the BUILT plugin's
command line: what the browser test checks and what the README picture shows
(``scripts/report_picture.py``), so the picture is the tested page.

The work is written straight into tasks.db as the hooks record it (``worklog``: a
heartbeat per prompt, a turn end per Stop): a week of real prompts would take a week.
"""

from __future__ import annotations

import time
from pathlib import Path

from missioncache_harness.worklog import record_work
from missioncache_harness.workspace import McEnv, create_task, make_env, python3

# (task, [(days ago, start hour, minutes)]): a plausible week, deterministic.
WEEK = {
    "billing-export": [(6, 9, 95), (5, 10, 140), (4, 9, 60), (2, 14, 110), (1, 9, 75), (0, 9, 50)],
    "auth-refactor": [(6, 14, 45), (4, 13, 130), (3, 9, 160), (2, 9, 40), (0, 11, 35)],
    "flaky-ci": [(5, 15, 30), (3, 15, 55), (1, 14, 90)],
}
PROGRESS = {"billing-export": (5, 8), "auth-refactor": (2, 6), "flaky-ci": (4, 4)}


def tasks_file(done: int, total: int) -> str:
    """A checklist with ``done`` of ``total`` items checked."""
    items = "".join(f"- [{'x' if i < done else ' '}] {i + 1}. Step {i + 1}\n" for i in range(total))
    return "# Tasks\n\n" + items


def _record_plan(db_path: Path, task_id: int, plan: list, now: float) -> None:
    """Each block is prompts every 5 minutes: Claude works 3.5, you read and type 1.5."""
    today = time.localtime(now)
    for days_ago, hour, minutes in plan:
        start = time.mktime(
            (today.tm_year, today.tm_mon, today.tm_mday - days_ago, hour, 0, 0, 0, 0, -1)
        )
        if start + minutes * 60 > now:  # today's work ends before now
            start = now - minutes * 60 - 60
        record_work(db_path, task_id, start, [(210, 90)] * max(1, minutes // 5))


def build(root: Path, plugin: Path, period: str = "week") -> tuple[McEnv, Path]:
    """A home under ``root`` with the demo week; returns it and the HTML report's path."""
    env = make_env(root)
    now = time.time()
    for name, plan in WEEK.items():
        task = create_task(plugin, env, name)
        folder = env.data_root / "active" / name
        (folder / f"{name}-tasks.md").write_text(tasks_file(*PROGRESS[name]), encoding="utf-8")
        _record_plan(env.data_root / "tasks.db", task.id, plan, now)
    page = root / "report.html"
    environ = dict(env.env, PYTHONPATH=str(plugin / "lib"))
    args = [
        python3(),
        "-m",
        "missioncache_db",
        "report",
        "--period",
        period,
        "--format",
        "html",
        "-o",
        str(page),
    ]
    done = env.run(args, env=environ)
    if done.returncode != 0:
        raise RuntimeError(f"report failed: {done.stderr.strip()}")
    return env, page
