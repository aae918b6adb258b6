"""``missioncache-db report``: time per task and per day as text, CSV, JSON or HTML. A thin
front for ``missioncache_report`` (imported only when this command runs)."""

from __future__ import annotations

import argparse
import sqlite3
from typing import Callable

PERIODS = ("today", "week", "month", "all")
FORMATS = ("text", "csv", "json", "html", "timesheet")


def cmd_report(args: argparse.Namespace) -> int:
    from missioncache_cli.cli_common import CLI_BUSY_TIMEOUT, task_named
    from missioncache_db import TaskDB
    from missioncache_report import collect, render
    from missioncache_state.atomic import atomic_write_bytes
    from missioncache_time import process_pending

    with TaskDB(busy_timeout=CLI_BUSY_TIMEOUT) as db:
        try:
            process_pending(db)  # report current totals when the lock allows
        except sqlite3.OperationalError:
            pass
        task = task_named(db, args.task) if args.task else None
        output = render(collect(db, args.period, task=task), args.format)
    if args.output:
        atomic_write_bytes(args.output, output.encode("utf-8"))
        print(f"wrote {args.format} report ({args.period}) to {args.output}")
    else:
        print(output, end="")
    return 0


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    command = add("report", cmd_report, "time report per task and per day")
    command.add_argument("--period", choices=PERIODS, default="week")
    command.add_argument("--format", choices=FORMATS, default="text")
    command.add_argument("-o", "--output", help="write to this file instead of stdout")
    command.add_argument("--task", help="only this task")
