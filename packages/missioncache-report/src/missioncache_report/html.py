"""The report as ONE self-contained HTML page: inline CSS and SVG, no script, nothing
fetched (it opens the same offline, attached to a mail, or years later).

A stacked bar chart of time per day by task, then a table of per-task totals with
progress and last activity. Every text from the database is escaped.
"""

from __future__ import annotations

from datetime import date, timedelta
from html import escape

from missioncache_cost import format_cost
from missioncache_report.data import Report
from missioncache_time import format_duration

PALETTE = [
    "#2f7ed8",
    "#f28f43",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#7f7f7f",
]
CHART_W, CHART_H, PAD_L, PAD_B, PAD_T = 660, 260, 56, 40, 28  # fits a 700 px window
MAX_BARS = 62

CSS = """
body{font:14px/1.45 -apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
margin:24px;color:#1d2330;background:#fff}
h1{font-size:20px;margin:0 0 4px}
.sub{color:#5b6475;margin:0 0 18px}
.cards{display:flex;gap:12px;margin:0 0 18px;flex-wrap:wrap}
.card{border:1px solid #dde2ea;border-radius:8px;padding:10px 14px;min-width:120px}
.card b{display:block;font-size:20px}
.card span{color:#5b6475;font-size:12px}
table{border-collapse:collapse;margin-top:14px;max-width:660px}
th,td{padding:6px 10px;border-bottom:1px solid #e6e9ef;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}
th{font-size:12px;color:#5b6475;font-weight:600}
.sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}
.bar{display:inline-block;width:80px;height:8px;background:#e6e9ef;border-radius:4px;vertical-align:middle;margin-right:6px}
.bar i{display:block;height:8px;background:#2ca02c;border-radius:4px}
.legend{margin:0 0 8px;font-size:12px;color:#5b6475}
small{color:#5b6475;font-size:12px}
tfoot td{font-weight:600;border-bottom:none}
.legend span{margin-right:14px}
.empty{color:#5b6475;font-style:italic}
svg{display:block}
svg text{font-size:11px;fill:#5b6475}
svg text.fig{font-size:10px;fill:#1d2330}
body{max-width:680px}
"""


def _colors(report: Report) -> dict:
    return {t.name: PALETTE[i % len(PALETTE)] for i, t in enumerate(report.tasks)}


def _buckets(report: Report) -> list:
    """The chart's x axis: every day of the period (days without work too, so gaps show),
    or months when the period spans more than ``MAX_BARS`` days."""
    days = sorted({d.day for d in report.days})
    if not days:
        return []
    day, last = date.fromisoformat(report.start or days[0]), date.fromisoformat(report.end)
    every = []
    while day <= last:
        every.append(day.isoformat())
        day += timedelta(days=1)
    if len(every) > MAX_BARS:
        return sorted({day[:7] for day in every})
    return every


def chart(report: Report) -> str:
    buckets = _buckets(report)
    if not buckets:
        return '<p class="empty">No time recorded in this period.</p>'
    colors = _colors(report)
    key = len(buckets[0])  # 10: days, 7: months
    stacks: dict = {b: {} for b in buckets}
    for d in report.days:
        bucket = d.day[:key]
        if bucket in stacks:
            stacks[bucket][d.task] = stacks[bucket].get(d.task, 0) + d.seconds
    peak = max((sum(s.values()) for s in stacks.values()), default=0) or 1
    hours = peak / 3600
    step = next(
        s for s in (0.25, 0.5, 1, 2, 4, 8, 12, 24, 48, 100, 200, 500, 1000) if hours / s <= 5
    )
    top = step * max(1, -(-hours // step)) * 3600
    inner_w, inner_h = CHART_W - PAD_L - 8, CHART_H - PAD_B - PAD_T
    slot = inner_w / len(buckets)
    bar = max(2.0, slot * 0.7)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{CHART_W}" height="{CHART_H}" '
        f'viewBox="0 0 {CHART_W} {CHART_H}" role="img" aria-label="time per day by task">'
    ]
    ticks = round(top / 3600 / step)
    for i in range(ticks + 1):
        y = PAD_T + inner_h - inner_h * i / ticks
        value = step * i
        label = f"{value:g}"  # decimal hours, as a timesheet takes them
        parts.append(
            f'<line x1="{PAD_L}" y1="{y:.1f}" x2="{CHART_W - 8}" y2="{y:.1f}" stroke="#e6e9ef"/>'
        )
        parts.append(f'<text x="{PAD_L - 6}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    parts.append(
        f'<text x="12" y="{PAD_T + inner_h / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 12 {PAD_T + inner_h / 2:.1f})">hours</text>'
    )
    label_every = max(1, len(buckets) // 12)
    for index, bucket in enumerate(buckets):
        x = PAD_L + slot * index + (slot - bar) / 2
        y = PAD_T + inner_h
        for task in report.tasks:
            seconds = stacks[bucket].get(task.name, 0)
            if not seconds:
                continue
            h = inner_h * seconds / top
            y -= h
            title = escape(f"{bucket} {task.name}: {format_duration(seconds)}")
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                f'fill="{colors[task.name]}"><title>{title}</title></rect>'
            )
        day_total = sum(stacks[bucket].values())
        if day_total and (len(buckets) <= 31 or index % label_every == 0):
            parts.append(  # each day's figure, readable without hovering
                f'<text x="{x + bar / 2:.1f}" y="{y - 4:.1f}" text-anchor="middle" '
                f'class="fig">{day_total / 3600:.2f}</text>'
            )
        if index % label_every == 0:
            text = bucket[5:] if key == 10 else bucket
            y_label = CHART_H - PAD_B + 16
            parts.append(
                f'<text x="{x + bar / 2:.1f}" y="{y_label}" text-anchor="middle">{text}</text>'
            )
    parts.append("</svg>")
    drawn = {name for stack in stacks.values() for name, seconds in stack.items() if seconds}
    legend = "".join(  # only colours a bar has: a fork's time is drawn in its parent's
        f'<span><i class="sw" style="background:{colors[t.name]}"></i>{escape(t.name)}</span>'
        for t in report.tasks
        if t.name in drawn
    )
    return "".join(parts) + f'<div class="legend">{legend}</div>'


def table(report: Report) -> str:
    """Per-task totals, with the same columns as the text report, and a total row."""
    from missioncache_report.columns import columns, totals

    colors = _colors(report)
    table_columns = columns(report)
    head = "".join(f"<th>{escape(name)}</th>" for name, _ in table_columns)
    rows = []
    for t in report.tasks:
        cells = []
        for name, cell in table_columns:
            if name == "task":
                cells.append(
                    f"<td>{'└ ' if t.fork_of else ''}"
                    f'<i class="sw" style="background:{colors[t.name]}"></i>{escape(t.name)}'
                    f"{escape(f' [{t.jira_key}]') if t.jira_key else ''}"
                    f" <small>({escape(t.status)})</small></td>"
                )
            elif name == "progress" and t.total_items:
                share = 100 * t.done / t.total_items
                cells.append(
                    f'<td><span class="bar"><i style="width:{share:.0f}%"></i></span>'
                    f"{t.done}/{t.total_items}</td>"
                )
            else:
                cells.append(f"<td>{escape(cell(t))}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    if not rows:
        return ""
    total = totals(report)
    foot = "".join(f"<td>{escape(total.get(name, ''))}</td>" for name, _ in table_columns)
    return (
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody>"
        f'<tfoot><tr class="total">{foot}</tr></tfoot></table>'
    )


def html(report: Report) -> str:
    cards = [
        (format_duration(report.seconds), "total time"),
        (str(len(report.tasks)), "tasks"),
        (str(sum(t.sessions for t in report.counted)), "work sessions"),
    ]
    from missioncache_time import part_texts

    claude = sum(t.claude for t in report.counted)
    claude_text, you_text = part_texts(report.seconds, claude, report.seconds - claude)
    cards.insert(1, (claude_text, "Claude working"))
    cards.insert(2, (you_text, "you (reading, typing)"))
    from missioncache_report.columns import report_cost, short_tokens, token_count

    tokens = sum(token_count(t.tokens) for t in report.counted)
    if tokens:
        cost = format_cost(report_cost(report)).replace("cost unknown", "unknown")
        cards.append((cost, f"cost ({short_tokens(tokens)} tokens)"))
    card_html = "".join(f'<div class="card"><b>{v}</b><span>{k}</span></div>' for v, k in cards)
    from missioncache_report.formats import covered

    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f"<title>MissionCache time report: {escape(covered(report))}</title>"
        f"<style>{CSS}</style></head><body>"
        "<h1>MissionCache time report</h1>"
        f'<p class="sub">{escape(covered(report))} · generated {escape(report.generated)}</p>'
        f'<div class="cards">{card_html}</div>'
        f"{chart(report)}{table(report)}"
        "</body></html>\n"
    )
