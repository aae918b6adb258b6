"""A Report as text, CSV, JSON or HTML."""

from __future__ import annotations

import json
from dataclasses import asdict

from missioncache_cost import format_cost
from missioncache_report.cells import csv_rows, text_cell
from missioncache_report.columns import (
    columns,
    decimal_hours,
    short_tokens,
    token_count,
    totals,
)
from missioncache_report.data import Report
from missioncache_time import format_duration, part_texts

FORMATS = ("text", "csv", "json", "html", "timesheet")


def render(report: Report, fmt: str) -> str:
    if fmt == "text":
        return text(report)
    if fmt == "csv":
        return csv_text(report)
    if fmt == "json":
        return json_text(report)
    if fmt == "timesheet":
        return timesheet_text(report)
    if fmt == "html":
        from missioncache_report.html import html

        return html(report)
    raise ValueError(f"invalid format {fmt!r}: use one of {', '.join(FORMATS)}")


def covered(report: Report) -> str:
    """``week, the last 7 days: 2026-11-25 to 2026-12-01``."""
    from missioncache_report.data import PERIOD_WORDS

    start = report.start or "the beginning"
    return f"{PERIOD_WORDS.get(report.period, report.period)}: {start} to {report.end}"


def text(report: Report) -> str:
    """Aligned columns for a terminal or Claude Code's transcript."""
    lines = [text_cell(f"MissionCache time report ({covered(report)})"), ""]
    if not report.tasks:
        return "\n".join([*lines, "No time recorded in this period.", ""])
    shown = columns(report)
    rows = [[cell(t) for _, cell in shown] for t in report.tasks]
    total = totals(report)
    total_row = [total.get(name, "") for name, _ in shown]
    lines += _table([name for name, _ in shown], rows, total_row)
    lines += ["", "Per day:"]
    header = ["day", "task", "time", "Claude", "you", "sessions", "tokens", "cost", "hours"]
    day_rows = [
        [
            d.day,
            d.task,
            format_duration(d.seconds),
            *part_texts(d.seconds, d.claude, d.you),
            str(d.sessions),
            short_tokens(token_count(d.tokens)),
            format_cost(d.cost_usd).replace("cost unknown", "unknown"),
            decimal_hours(d.seconds),
        ]
        for d in report.days
    ]
    lines += _table(header, day_rows, left=2)
    return "\n".join(lines) + "\n"


def _table(header: list, rows: list, total: list | None = None, left: int = 1) -> list:
    """Left-aligned text in the first ``left`` columns, right-aligned figures after."""
    # Every cell through cells.text_cell: a name's bidi override or ESC cannot reorder or
    # restyle the line (and the widths are of what is shown).
    header, rows = [text_cell(c) for c in header], [[text_cell(c) for c in r] for r in rows]
    total = [text_cell(c) for c in total] if total else None
    every = [header, *rows] + ([total] if total else [])
    widths = [max(len(str(r[i])) for r in every) for i in range(len(header))]

    def fmt(row: list) -> str:
        cells = [
            c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))
        ]
        return "  ".join(cells).rstrip()

    rule = fmt(["-" * w for w in widths])
    out = [fmt(header), rule, *(fmt(r) for r in rows)]
    if total:
        out += [rule, fmt(total)]
    return out


CSV_HEADER = [
    "date",
    "task",
    "status",
    "seconds",
    "hours",
    "duration",
    "claude_seconds",
    "you_seconds",
    "sessions",
    "input_tokens",
    "output_tokens",
    "cache_write_tokens",
    "cache_read_tokens",
    "cost_usd",
    "jira",
]


def csv_text(report: Report) -> str:
    """One row per task per day, ready for a timesheet: decimal hours to two places
    (what an invoice line takes) beside the exact seconds, then the day's tokens and
    cost (blank when a model's price is unknown: never a misleading 0). Every cell goes
    through ``cells.csv_cell``: a task name can neither run as a formula nor reorder the
    line."""
    status = {t.name: t.status for t in report.tasks}
    jira = {t.name: t.jira_key or "" for t in report.tasks}
    rows = (
        [
            d.day,
            d.task,
            status.get(d.task, ""),
            d.seconds,
            f"{d.seconds / 3600:.2f}",
            format_duration(d.seconds),
            d.claude,
            d.you,
            d.sessions,
            *(d.tokens.get(k, 0) for k in ("input", "output", "cache_write", "cache_read")),
            "" if d.cost_usd is None else f"{d.cost_usd:.4f}",
            jira.get(d.task, ""),
        ]
        for d in report.days
    )
    return csv_rows(CSV_HEADER, rows)


TIMESHEET_HEADER = ["Email", "Project", "Description", "Start date", "Start time", "Duration"]


def timesheet_text(report: Report, email: str | None = None) -> str:
    """One time entry per task per day in Toggl Track's CSV import columns (``Email``,
    ``Project``, ``Description``, ``Start date``, ``Start time``, ``Duration`` as
    ``HH:MM:SS``), which Clockify's CSV import maps too. The entry starts at the day's
    first prompt of the task (midnight for time that only ran over from the day before)
    and lasts the day's total. The email is ``MISSIONCACHE_TIMESHEET_EMAIL``, else
    git's ``user.email``."""
    email = email if email is not None else _timesheet_email()
    rows = []
    for d in report.days:
        if not d.seconds:
            continue
        hours, rest = divmod(d.seconds, 3600)
        duration = f"{hours:02d}:{rest // 60:02d}:{rest % 60:02d}"
        claude, you = part_texts(d.seconds, d.claude, d.you)
        description = f"Claude {claude}, you {you}"
        rows.append([email, d.task, description, d.day, d.first, duration])
    return csv_rows(TIMESHEET_HEADER, rows)


def _timesheet_email() -> str:
    import os
    import subprocess

    configured = os.environ.get("MISSIONCACHE_TIMESHEET_EMAIL")
    if configured:
        return configured
    try:
        done = subprocess.run(
            ["git", "config", "user.email"], capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()


def json_text(report: Report) -> str:
    data = asdict(report)
    data["seconds"] = report.seconds
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
