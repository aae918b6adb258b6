"""The periods a person bills by, parsed once: calendar months and ISO weeks, a range of
days, and the rolling ``today``/``week``/``month`` of the reports (said in every title).
"""

from __future__ import annotations

import datetime as dt
import re
import time
from dataclasses import dataclass

ROLLING = {"today": 0, "week": 6, "month": 29}


@dataclass(frozen=True)
class Period:
    first: dt.date
    last: dt.date  # inclusive
    title: str  # what the output's heading says

    @property
    def days(self) -> list[str]:
        count = (self.last - self.first).days + 1
        return [(self.first + dt.timedelta(days=i)).isoformat() for i in range(count)]

    @property
    def name(self) -> str:
        """The title without its dates (``November 2026``), for a heading that adds them."""
        return self.title.split(" (", 1)[0]


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"invalid date {text!r}: use YYYY-MM-DD such as 2026-11-30") from None


def parse_period(text: str, now: float | None = None) -> Period:
    """``2026-11``, ``2026-W48``, ``2026-11-01..2026-11-30``, ``2026-11-03`` (one day), or
    ``today``/``week``/``month`` (the last 1, 7 or 30 days up to today)."""
    today = dt.date.fromtimestamp(time.time() if now is None else now)
    value = text.strip()
    if value in ROLLING:
        first = today - dt.timedelta(days=ROLLING[value])
        words = {"today": "today", "week": "the last 7 days", "month": "the last 30 days"}
        return Period(first, today, f"{words[value]} ({first} to {today})")
    month = re.fullmatch(r"(\d{4})-(\d{2})", value)
    if month:
        year, number = int(month[1]), int(month[2])
        if not 1 <= number <= 12:
            raise ValueError(f"invalid month {text!r}: use YYYY-MM such as 2026-11")
        first = dt.date(year, number, 1)
        last = dt.date(year + number // 12, number % 12 + 1, 1) - dt.timedelta(days=1)
        return Period(first, last, f"{first:%B %Y} ({first} to {last})")
    week = re.fullmatch(r"(\d{4})-[Ww](\d{1,2})", value)
    if week:
        try:
            first = dt.date.fromisocalendar(int(week[1]), int(week[2]), 1)
        except ValueError:
            raise ValueError(f"invalid week {text!r}: use YYYY-Www such as 2026-W48") from None
        last = first + dt.timedelta(days=6)
        return Period(first, last, f"week {int(week[2])} of {week[1]} ({first} to {last})")
    if ".." in value:
        start, end = value.split("..", 1)
        return between(start, end)
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        day = _date(value)
        return Period(day, day, f"{day}")
    raise ValueError(
        f"invalid choice of period {text!r}: use a month (2026-11), a week (2026-W48), "
        f"a range (2026-11-01..2026-11-30), or today, week, month"
    )


def between(start: str, end: str) -> Period:
    """``--from START --to END``, both days included."""
    first, last = _date(start), _date(end)
    if last < first:
        raise ValueError(f"the period ends ({last}) before it starts ({first})")
    if (last - first).days > 3700:
        raise ValueError("the period is longer than ten years")
    return Period(first, last, f"{first} to {last}")
