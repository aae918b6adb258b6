"""The team report as text, CSV, JSON or one HTML page (``report.Report``).

Every name from the server (a task, a person, a client) goes through
``missioncache_report.cells`` in text and CSV, and is escaped in HTML: a member's client
sends what it likes, and a report must not be a way to attack whoever reads it.
"""

from __future__ import annotations

import json
from typing import Any

from missioncache_teamdb.report import Figures, Report

FORMATS = ("text", "csv", "json", "html")


def render(report: Report, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(report.as_json(), indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        return _csv(report)
    if fmt == "html":
        return _html(report)
    if fmt == "text":
        return _text(report)
    raise ValueError(f"invalid format {fmt!r}: use one of {', '.join(FORMATS)}")


def _cost(figures: Figures) -> str:
    text = f"${figures.cost:,.2f}"
    return text + (" + unpriced" if figures.unpriced else "")


def _waiting(figures: Figures) -> str:
    from missioncache_time import format_duration

    return f", waiting {format_duration(figures.waiting)}" if figures.waiting else ""


def _tokens(figures: Figures) -> int:
    return figures.input + figures.output + figures.cache_write + figures.cache_read


def _text(report: Report) -> str:
    from missioncache_report.cells import text_cell
    from missioncache_time import format_duration

    since = report.as_json()["since"] or "the beginning"
    lines = [f"Team report by {report.by}, {report.period} (from {since[:10]})", ""]
    if not report.rows:
        return "\n".join([*lines, "No time or cost recorded in this period."]) + "\n"
    for key in sorted(report.rows):
        total = report.total(key)
        client = report.clients.get(key) if report.by == "task" else None
        head = text_cell(key) + (f" (client {text_cell(client)})" if client else "")
        lines.append(
            f"{head}: {format_duration(total.seconds)}, {_tokens(total):,} tokens, {_cost(total)}"
        )
        if report.by != "person":
            for person, figures in sorted(report.rows[key].items()):
                lines.append(
                    f"  {text_cell(person)}: {format_duration(figures.seconds)}"
                    f" ({format_duration(figures.claude)} Claude, {format_duration(figures.you)}"
                    f" you{_waiting(figures)}), {_tokens(figures):,} tokens, {_cost(figures)}"
                )
    grand = report.as_json()["total"]
    lines += ["", f"Team total: {format_duration(grand['seconds'])}, ${grand['cost_usd']:,.2f}"]
    return "\n".join(lines) + "\n"


def _csv(report: Report) -> str:
    from missioncache_report.cells import csv_rows

    header = [report.by, "person", "seconds", "claude_seconds", "you_seconds", "input_tokens",
              "output_tokens", "cache_write_tokens", "cache_read_tokens", "cost_usd",
              "waiting_seconds"]  # fmt: skip
    rows: list[list[Any]] = []
    for key in sorted(report.rows):
        people = [*sorted(report.rows[key].items()), ("(team)", report.total(key))]
        for person, f in people:
            rows.append([key, person, f.seconds, f.claude, f.you, f.input, f.output,
                         f.cache_write, f.cache_read, round(f.cost, 6), f.waiting])  # fmt: skip
    return csv_rows(header, rows)


def _html(report: Report) -> str:
    from html import escape

    from missioncache_time import format_duration

    body = []
    for key in sorted(report.rows):
        total = report.total(key)
        cells = "".join(
            f"<li>{escape(person)}: {format_duration(f.seconds)}, {escape(_cost(f))}</li>"
            for person, f in sorted(report.rows[key].items())
        )
        body.append(
            f"<tr><td>{escape(key)}</td><td>{format_duration(total.seconds)}</td>"
            f"<td>{_tokens(total):,}</td><td>{escape(_cost(total))}</td><td><ul>{cells}</ul></td></tr>"
        )
    rows = "".join(body) or '<tr><td colspan="5">No time or cost recorded in this period.</td></tr>'
    title = f"Team report by {escape(report.by)}, {escape(report.period)}"
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{title}</title><style>body{{font-family:sans-serif;margin:2em}}"
        "table{border-collapse:collapse}td,th{border-bottom:1px solid #ccc;padding:.3em .8em;"
        "text-align:left;vertical-align:top}ul{margin:0;padding-left:1em}</style></head>"
        f"<body><h1>{title}</h1><table><tr><th>{escape(report.by)}</th><th>time</th>"
        f"<th>tokens</th><th>cost</th><th>people</th></tr>{rows}</table></body></html>\n"
    )
