"""The task list written into the page itself, so it names every task before any script
has run (a reader without JavaScript, or a DOM dump taken at the load event, sees it too).
The script then replaces these rows with the same ones built from ``/api/tasks``.
Every value is HTML-escaped."""

from __future__ import annotations

from html import escape

MARK = "<!--tasks-->"


def _duration(seconds: int) -> str:
    from missioncache_time import format_duration

    return format_duration(seconds)


def money(cost: float | None) -> str:
    """All-time dollars as the page's script writes them (``app.js`` ``money``)."""
    return "unknown price" if cost is None else f"${cost:,.2f}"


def task_rows(tasks: list[dict]) -> str:
    rows = []
    for task in tasks:
        name = task["name"] if task["depth"] else task["shown_name"]
        indent = ' class="fork"'  # no style attribute: the page's CSP allows none
        times = task["time"]
        split = times["all"]
        cells = [
            f'<td{indent if task["depth"] else ""}><a href="#/task/{int(task["id"])}">'
            f"{escape(name)}</a></td>",
            f'<td><span class="status">{escape(task["status"])}</span></td>',
            f'<td class="num">[{int(task["done"])}/{int(task["total"])}]</td>',
            f'<td class="num">{_duration(times["today"]["total"])}</td>',
            f'<td class="num">{_duration(times["week"]["total"])}</td>',
            f'<td class="num">{_duration(split["total"])} ({escape(split["shown"]["claude"])} / '
            f"{escape(split['shown']['you'])})</td>",
            f'<td class="num">{money(task["cost"])}</td>',
            f'<td class="num">{escape(task["last_worked"] or "never")}</td>',
        ]
        rows.append(f'<tr data-task="{escape(task["name"])}">{"".join(cells)}</tr>')
    return "".join(rows)


def page(template: str, tasks: list[dict]) -> str:
    return template.replace(MARK, task_rows(tasks), 1)
