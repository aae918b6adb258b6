"""The per-task columns every tabular report shows (text, CSV header, HTML table), in one
place so the formats agree and neither format module needs the other."""

from __future__ import annotations

from missioncache_db.durations import format_duration
from missioncache_report.data import Report


def columns(report: Report) -> list:
    """(header, cell) pairs."""
    return [
        ("task", label),
        ("total", lambda t: format_duration(t.seconds)),
        ("Claude", lambda t: format_duration(t.claude)),
        ("you", lambda t: format_duration(t.you)),
        ("sessions", lambda t: str(t.sessions)),
        ("compactions", lambda t: "-" if t.compactions is None else str(t.compactions)),
        ("progress", lambda t: f"{t.done}/{t.total_items}" if t.total_items else "-"),
        ("last activity", lambda t: t.last_activity or "-"),
    ]


def label(row: object) -> str:
    """A task's name; a fork's, indented under its parent's row."""
    name = str(getattr(row, "name", ""))
    return f"  └ {name}" if getattr(row, "fork_of", None) else name


def totals(report: Report) -> dict[str, str]:
    """The total row's cells by column header (blank where a column has no total). A
    fork's row is inside its parent's (``Report.counted``): added once."""
    counted = report.counted
    return {
        "task": "total",
        "total": format_duration(report.seconds),
        "Claude": format_duration(sum(t.claude for t in counted)),
        "you": format_duration(sum(t.you for t in counted)),
        "sessions": str(sum(t.sessions for t in counted)),
    }
