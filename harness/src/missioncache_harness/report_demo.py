"""The report's demo week, for the report's browser test and the README picture
(``scripts/report_picture.py``): both go through ``build`` (and ``browser``), so the
picture is the tested page.

The work is written straight into tasks.db as the hooks record it (``worklog``): a week of
real prompts takes a week.
"""

from __future__ import annotations

import time
from pathlib import Path

from missioncache_harness.worklog import record_plan
from missioncache_harness.workspace import McEnv, create_fork, create_task, make_env

# (task, [(days ago, start hour, minutes)]): a plausible week, deterministic.
WEEK = {
    "billing-export": [(6, 9, 95), (5, 10, 140), (4, 9, 60), (2, 14, 110), (1, 9, 75), (0, 9, 50)],
    "auth-refactor": [(6, 14, 45), (4, 13, 130), (3, 9, 160), (2, 9, 40), (0, 11, 35)],
    "flaky-ci": [(5, 15, 30), (3, 15, 55), (1, 14, 90)],
}
PROGRESS = {"billing-export": (5, 8), "auth-refactor": (2, 6), "flaky-ci": (4, 4)}
# A fork of auth-refactor, one morning beside its parent and one afternoon alone: the
# report shows it under its parent, whose time holds it once (docs/forks.md).
FORK = ("auth-refactor", "token-spike", [(3, 10, 50), (1, 16, 40)])


def build(root: Path, plugin: Path) -> tuple[McEnv, Path]:
    """A home under ``root`` with the demo week; returns it and the HTML report's path.

    Each block is prompts every 5 minutes: Claude works 3.5, you read and type 1.5."""
    env = make_env(root)
    now = time.time()
    for name, plan in WEEK.items():
        task = create_task(plugin, env, name)
        done, total = PROGRESS[name]
        items = "".join(
            f"- [{'x' if i < done else ' '}] {i + 1}. Step {i + 1}\n" for i in range(total)
        )
        (env.data_root / "active" / name / f"{name}-tasks.md").write_text("# Tasks\n\n" + items)
        if task.id is None:
            raise RuntimeError(f"create-task {name} printed no id")
        record_plan(env.data_root / "tasks.db", task.id, plan, now)
    parent, name, plan = FORK
    fork_id, _folder = create_fork(plugin, env, parent, name)
    record_plan(env.data_root / "tasks.db", fork_id, plan, now)
    page = root / "report.html"
    done = env.bundled(plugin, "report", "--period", "week", "--format", "html", "-o", str(page))
    if done.returncode != 0:
        raise RuntimeError(f"report failed: {done.stderr.strip()}")
    return env, page
