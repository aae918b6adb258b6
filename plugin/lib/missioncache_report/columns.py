"""The per-task columns every tabular report shows (text, CSV header, HTML table), in one
place so the formats agree and neither format module needs the other."""

from __future__ import annotations

from missioncache_db.durations import format_duration
from missioncache_report.data import Report


def optional_duration(seconds: float | None) -> str:
    return "-" if seconds is None else format_duration(seconds)


def columns(report: Report) -> list:
    """(header, cell) pairs; the split and compaction columns only when this version of
    tasks.db records them (a column of dashes tells the reader nothing)."""
    columns = [("task", lambda t: t.name), ("total", lambda t: format_duration(t.seconds))]
    if report.split_known():
        columns += [
            ("Claude", lambda t: optional_duration(t.claude)),
            ("you", lambda t: optional_duration(t.you)),
        ]
    columns.append(("sessions", lambda t: str(t.sessions)))
    if any(t.compactions is not None for t in report.tasks):
        columns.append(
            ("compactions", lambda t: "-" if t.compactions is None else str(t.compactions))
        )
    columns += [
        ("progress", lambda t: f"{t.done}/{t.total_items}" if t.total_items else "-"),
        ("last activity", lambda t: t.last_activity or "-"),
    ]
    return columns
