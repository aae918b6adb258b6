"""The report's rows for the sealed days of a period, read from the day summaries
(``missioncache_time.sealed_days``): the report computes from the events only the days after
them, so a year's report reads a row per day, not every prompt and message."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from missioncache_cost import DayPricing, Tokens
    from missioncache_db import TaskDB

_NO_TOKENS = ("input", "output", "cache_write", "cache_read")


def sealed_rows(
    db: TaskDB, task_id: int, name: str, since: float | None, now: float, pricing: DayPricing
) -> tuple[float | None, list, int, Tokens]:
    """``(live, days, sessions, tokens)``: the moment from which the caller computes from
    the events (``since`` itself when no summary can be used), the ``DayRow`` of every
    sealed day with something in it, their work sessions and their tokens. ``pricing``:
    ``missioncache_cost.day_pricing()``, made once for the whole report."""
    from missioncache_cost import Tokens
    from missioncache_report.data import DayRow
    from missioncache_time import sealed_days

    whole = Tokens()
    found = sealed_days(db.conn, task_id, since, now, pricing)
    if found is None:
        return since, [], 0, whole
    cut, sealed = found
    days = []
    sessions = 0
    for item in sealed:
        split = item.split
        if not (split.total or item.sessions or item.has_usage):
            continue
        sessions += item.sessions
        row = DayRow(item.day, name, split.total, item.sessions, split.claude, split.you)
        if item.first is not None:
            row.first = time.strftime("%H:%M:%S", time.localtime(item.first))
        row.waiting = split.waiting
        if item.has_usage:
            row.tokens, row.cost_usd = item.tokens.as_json(), item.tokens.cost
            whole.merge(item.tokens)
        else:
            row.tokens, row.cost_usd = dict.fromkeys(_NO_TOKENS, 0), 0.0
        days.append(row)
    return cut, days, sessions, whole
