"""A Report as text, CSV, JSON or HTML."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict

from missioncache_db.durations import format_duration
from missioncache_report.data import Report

FORMATS = ("text", "csv", "json", "html")


def render(report: Report, fmt: str) -> str:
    if fmt == "text":
        return text(report)
    if fmt == "csv":
        return csv_text(report)
    if fmt == "json":
        return json_text(report)
    if fmt == "html":
        from missioncache_report.html import html

        return html(report)
    raise ValueError(f"invalid format {fmt!r}: use one of {', '.join(FORMATS)}")


def covered(report: Report) -> str:
    start = report.start or "the beginning"
    return f"{report.period}: {start} to {report.end}"


def _opt(seconds: object) -> str:
    return "-" if seconds is None else format_duration(seconds)


def text(report: Report) -> str:
    """Aligned columns for a terminal or Claude Code's transcript."""
    lines = [f"MissionCache time report ({covered(report)})", ""]
    if not report.tasks:
        return "\n".join([*lines, "No time recorded in this period.", ""])
    header = [
        "task",
        "total",
        "Claude",
        "you",
        "sessions",
        "compactions",
        "progress",
        "last activity",
    ]
    rows = [
        [
            t.name,
            format_duration(t.seconds),
            _opt(t.claude),
            _opt(t.you),
            str(t.sessions),
            "-" if t.compactions is None else str(t.compactions),
            f"{t.done}/{t.total_items}" if t.total_items else "-",
            t.last_activity or "-",
        ]
        for t in report.tasks
    ]
    total_claude = sum(t.claude or 0 for t in report.tasks) if report.split_known() else None
    total_you = sum(t.you or 0 for t in report.tasks) if report.split_known() else None
    rows.append(
        [
            "total",
            format_duration(report.seconds),
            _opt(total_claude),
            _opt(total_you),
            str(sum(t.sessions for t in report.tasks)),
            "",
            "",
            "",
        ]
    )
    lines += _table(header, rows, total_row=True)
    lines += ["", "Per day:"]
    day_rows = [
        [d.day, d.task, format_duration(d.seconds), f"{d.sessions} session(s)"] for d in report.days
    ]
    lines += _table(["day", "task", "time", "sessions"], day_rows)
    if not report.split_known():
        lines += ["", "(Claude/you split: not recorded yet by this version.)"]
    return "\n".join(lines) + "\n"


def _table(header: list, rows: list, total_row: bool = False) -> list:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def fmt(row: list) -> str:
        cells = [
            str(c).ljust(w) if i == 0 or (i == 1 and len(header) == 4) else str(c).rjust(w)
            for i, (c, w) in enumerate(zip(row, widths))
        ]
        return "  ".join(cells).rstrip()

    out = [fmt(header), fmt(["-" * w for w in widths])]
    body = rows[:-1] if total_row else rows
    out += [fmt(r) for r in body]
    if total_row:
        out += [fmt(["-" * w for w in widths]), fmt(rows[-1])]
    return out


CSV_HEADER = [
    "date",
    "task",
    "status",
    "seconds",
    "hours",
    "duration",
    "sessions",
]


def csv_text(report: Report) -> str:
    """One row per task per day, ready for a timesheet: decimal hours to two places
    (what an invoice line takes) beside the exact seconds."""
    status = {t.name: t.status for t in report.tasks}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for d in report.days:
        writer.writerow(
            [
                d.day,
                d.task,
                status.get(d.task, ""),
                d.seconds,
                f"{d.seconds / 3600:.2f}",
                format_duration(d.seconds),
                d.sessions,
            ]
        )
    return out.getvalue()


def json_text(report: Report) -> str:
    data = asdict(report)
    data["seconds"] = report.seconds
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
