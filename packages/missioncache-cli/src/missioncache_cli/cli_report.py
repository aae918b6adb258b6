"""``missioncache report``: time per task and per day as text, CSV, JSON, HTML or a
timesheet. A thin front for ``missioncache_report`` (imported only when this command runs).

Periods: the rolling ``today``/``week``/``month``/``all`` of ``time``, or calendar ones a
person bills by (``--period 2026-11``, ``--period 2026-W48``, ``--from``/``--to``), read
through ``missioncache_report.calendar``. ``--format timesheet --for toggl|clockify|harvest``
writes that tool's import columns with each task's client (``missioncache_billing``).
"""

from __future__ import annotations

import argparse
import sqlite3
from typing import Callable

PERIODS = ("today", "week", "month", "all")
FORMATS = ("text", "csv", "json", "html", "timesheet")
TOOLS = ("toggl", "clockify", "harvest")


def cmd_report(args: argparse.Namespace) -> int:
    from missioncache_cli.cli_common import CLI_BUSY_TIMEOUT, task_named
    from missioncache_db import TaskDB
    from missioncache_report import collect, render
    from missioncache_state.atomic import atomic_write_bytes
    from missioncache_time import process_pending

    if args.tool and args.format != "timesheet":
        raise ValueError("--for goes with --format timesheet")
    calendar = _calendar(args)
    with TaskDB(busy_timeout=CLI_BUSY_TIMEOUT) as db:
        try:
            process_pending(db)  # report current totals when the lock allows
        except sqlite3.OperationalError:
            pass
        task = task_named(db, args.task) if args.task else None
        if calendar is None:
            report = collect(db, args.period or "week", task=task)
        else:
            from missioncache_report.calendar import collect_range

            report = collect_range(db, calendar.days, calendar.name, task=task)
        if args.tool:
            from missioncache_billing.timesheet import timesheet

            output = timesheet(db, report, args.tool)
        else:
            output = render(report, args.format)
    if args.format == "timesheet" and not args.tool:
        _warn_empty_email(output)
    if args.output:
        atomic_write_bytes(args.output, output.encode("utf-8"))
        print(f"wrote {args.format} report ({report.period}) to {args.output}")
    else:
        print(output, end="")
    return 0


def _calendar(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """A calendar period (month, ISO week, range), or None for a rolling one."""
    from missioncache_billing import between, parse_period

    if args.start or args.end:
        if not (args.start and args.end) or args.period:
            raise ValueError("give --from and --to together (YYYY-MM-DD), without --period")
        return between(args.start, args.end)
    if args.period is None or args.period in PERIODS:
        return None
    return parse_period(args.period)


def _warn_empty_email(output: str) -> None:
    import sys

    lines = output.splitlines()
    if len(lines) > 1 and lines[1].startswith(","):
        print(
            "note: the Email column is empty (no git user.email here): set it with "
            "`missioncache billing setup --email you@example.com`, or MISSIONCACHE_TIMESHEET_EMAIL",
            file=sys.stderr,
        )


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    command = add("report", cmd_report, "time report per task and per day")
    command.add_argument(
        "--period", help="today, week, month, all (rolling), or 2026-11, 2026-W48, START..END"
    )
    command.add_argument("--from", dest="start", help="first day, YYYY-MM-DD")
    command.add_argument("--to", dest="end", help="last day, YYYY-MM-DD")
    command.add_argument("--format", choices=FORMATS, default="text")
    command.add_argument("--for", dest="tool", choices=TOOLS, help="the timesheet's tool")
    command.add_argument("-o", "--output", help="write to this file instead of stdout")
    command.add_argument("--task", help="only this task")
