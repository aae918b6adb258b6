"""The report's demo week, for the report's browser test and the README picture
(``scripts/report_picture.py``): both go through ``build`` (and ``browser``), so the
picture is the tested page.

The work is written straight into tasks.db as the hooks record it (``worklog``): a week of
real prompts takes a week.
"""

from __future__ import annotations

import time
from pathlib import Path

from missioncache_harness.worklog import record_work
from missioncache_harness.workspace import McEnv, create_task, make_env

# (task, [(days ago, start hour, minutes)]): a plausible week, deterministic.
WEEK = {
    "billing-export": [(6, 9, 95), (5, 10, 140), (4, 9, 60), (2, 14, 110), (1, 9, 75), (0, 9, 50)],
    "auth-refactor": [(6, 14, 45), (4, 13, 130), (3, 9, 160), (2, 9, 40), (0, 11, 35)],
    "flaky-ci": [(5, 15, 30), (3, 15, 55), (1, 14, 90)],
}
PROGRESS = {"billing-export": (5, 8), "auth-refactor": (2, 6), "flaky-ci": (4, 4)}


def build(root: Path, plugin: Path) -> tuple[McEnv, Path]:
    """A home under ``root`` with the demo week; returns it and the HTML report's path.

    Each block is prompts every 5 minutes: Claude works 3.5, you read and type 1.5."""
    env = make_env(root)
    now = time.time()
    today = time.localtime(now)
    for name, plan in WEEK.items():
        task = create_task(plugin, env, name)
        done, total = PROGRESS[name]
        items = "".join(
            f"- [{'x' if i < done else ' '}] {i + 1}. Step {i + 1}\n" for i in range(total)
        )
        (env.data_root / "active" / name / f"{name}-tasks.md").write_text("# Tasks\n\n" + items)
        for days_ago, hour, minutes in plan:
            day = (today.tm_year, today.tm_mon, today.tm_mday - days_ago)
            start = min(time.mktime((*day, hour, 0, 0, 0, 0, -1)), now - minutes * 60 - 60)
            turns = [(210.0, 90.0)] * max(1, minutes // 5)
            record_work(env.data_root / "tasks.db", task.id, start, turns)
    page = root / "report.html"
    done = env.bundled(plugin, "report", "--period", "week", "--format", "html", "-o", str(page))
    if done.returncode != 0:
        raise RuntimeError(f"report failed: {done.stderr.strip()}")
    return env, page
