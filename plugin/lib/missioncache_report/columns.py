"""The per-task columns every tabular report shows (text, CSV header, HTML table), in one
place so the formats agree and neither format module needs the other."""

from __future__ import annotations

from missioncache_cost import format_cost
from missioncache_report.data import Report
from missioncache_time import format_duration, part_texts


def token_count(tokens: dict) -> int:
    """All the tokens of a ``tokens`` dict (input, output, cache writes and reads)."""
    return sum(tokens.values())


def short_tokens(count: int) -> str:
    """``18.9k``, ``1.3M``: the token figure of a table cell."""
    from missioncache_cost import format_tokens

    return format_tokens(count).replace(" tokens", "")


def report_cost(report: Report) -> float | None:
    """The period's cost: None when any task's is unknown (never a partial sum)."""
    costs = [t.cost_usd for t in report.counted]  # a fork is inside its parent
    return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)


def columns(report: Report) -> list:
    """(header, cell) pairs."""
    return [
        ("task", label),
        ("total", lambda t: format_duration(t.seconds)),
        ("Claude", lambda t: part_texts(t.seconds, t.claude, t.you)[0]),
        ("you", lambda t: part_texts(t.seconds, t.claude, t.you)[1]),
        ("hours", lambda t: decimal_hours(t.seconds)),
        ("sessions", lambda t: str(t.sessions)),
        ("compactions", lambda t: "-" if t.compactions is None else str(t.compactions)),
        ("progress", lambda t: f"{t.done}/{t.total_items}" if t.total_items else "-"),
        ("last activity", lambda t: t.last_activity or "-"),
        ("tokens", lambda t: short_tokens(token_count(t.tokens))),
        ("cost", lambda t: format_cost(t.cost_usd).replace("cost unknown", "unknown")),
    ]


def decimal_hours(seconds: int) -> str:
    """``1.25``: hours to two decimals, half up as an invoice line rounds them
    (``missioncache_billing.entry_hours``), so the report and the invoice agree."""
    from decimal import ROUND_HALF_UP, Decimal

    hours = Decimal(seconds) / Decimal(3600)
    return str(hours.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def label(row: object) -> str:
    """A task's name (with the JIRA key it carries); a fork's, indented under its parent's
    row."""
    name = str(getattr(row, "name", ""))
    key = getattr(row, "jira_key", None)
    name = f"{name} [{key}]" if key else name
    return f"  └ {name}" if getattr(row, "fork_of", None) else name


def totals(report: Report) -> dict[str, str]:
    """The total row's cells by column header (blank where a column has no total). A
    fork's row is inside its parent's (``Report.counted``): added once."""
    counted = report.counted
    claude, you = sum(t.claude for t in counted), sum(t.you for t in counted)
    return {
        "task": "total",
        "total": format_duration(report.seconds),
        "hours": decimal_hours(report.seconds),
        "Claude": part_texts(report.seconds, claude, you)[0],
        "you": part_texts(report.seconds, claude, you)[1],
        "sessions": str(sum(t.sessions for t in counted)),
        "tokens": short_tokens(sum(token_count(t.tokens) for t in counted)),
        "cost": format_cost(report_cost(report)).replace("cost unknown", "unknown"),
    }
