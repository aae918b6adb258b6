"""Timestamps: one text format for every column, plus epoch seconds for arithmetic.

Text columns hold local time as fixed-width ``YYYY-MM-DD HH:MM:SS`` so humans can read
them and text order is time order. Local wall-clock text is not a complete clock,
though: in the hour repeated when daylight saving time ends two instants share one text,
and a time-zone change (travel) shifts every later text. Gap arithmetic therefore uses
the epoch seconds stored beside the text, which are exact.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Union

    When = Union[float, int, datetime, None]

TEXT_FORMAT = "%Y-%m-%d %H:%M:%S"
MINUTE_FORMAT = "%Y-%m-%d %H:%M"


def to_epoch(when: When = None) -> float:
    """Epoch seconds for ``when``: now when None, a naive datetime is local time."""
    if when is None:
        return time.time()
    from datetime import datetime  # only here: hooks always pass None or a number

    if isinstance(when, datetime):
        return when.timestamp()
    if isinstance(when, bool) or not isinstance(when, (int, float)):
        raise TypeError(f"timestamp must be epoch seconds or a datetime, not {when!r}")
    return float(when)


def local_text(epoch: float) -> str:
    """The column format: local ``YYYY-MM-DD HH:MM:SS``."""
    return time.strftime(TEXT_FORMAT, time.localtime(epoch))


def local_minute(epoch: float) -> str:
    """The context-file stamp format: local ``YYYY-MM-DD HH:MM``."""
    return time.strftime(MINUTE_FORMAT, time.localtime(epoch))


def local_midnight_epoch(days_ago: int = 0, now: float | None = None) -> float:
    """Epoch of local midnight ``days_ago`` days before today (DST-safe via mktime)."""
    t = time.localtime(time.time() if now is None else now)
    return time.mktime((t.tm_year, t.tm_mon, t.tm_mday - days_ago, 0, 0, 0, 0, 0, -1))
