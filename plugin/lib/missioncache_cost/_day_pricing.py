"""The price side of the day summaries (``missioncache_time``'s ``refresh_days``,
``window_tokens`` and ``sealed_days``, docs/time.md "Day summaries").

Time and cost are sibling layers: time keeps the summaries (days, seals, marks) and never
imports cost, so whoever reads or refreshes them from above both passes this object in,
which adds messages up into ``Tokens`` with the price table in use and fingerprints that
table (a changed price rebuilds every summary).
"""

from __future__ import annotations

from missioncache_cost._prices import PriceTable, load_prices
from missioncache_cost._tokens import Tokens, task_rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from missioncache_state.sqlite import sqlite3


class DayPricing:
    """Tokens and cost of messages, priced with one price table."""

    __slots__ = ("key", "prices")

    def __init__(self, prices: PriceTable):
        self.prices = prices
        table = getattr(prices, "prices", {})
        self.key = repr(sorted((str(k), sorted(dict(v).items())) for k, v in table.items()))

    def tokens(self) -> Tokens:
        return Tokens()

    def add_rows(
        self,
        conn: sqlite3.Connection,
        task_id: int,
        since: float | None,
        until: float | None,
        into: Callable[[float], Tokens],
    ) -> None:
        """Add the task's messages in ``[since, until)``, oldest first (as ``task_tokens``
        does), each to ``into(its epoch)``."""
        for row in task_rows(conn, task_id, since, until):
            into(row[7]).add(row[0], row[1], tuple(row[2:7]), self.prices)

    def from_columns(self, row: tuple) -> Tokens:
        """A ``Tokens`` from a summary's columns ``input, output, cache_5m, cache_1h,
        cache_read, known, unknown``."""
        tokens = Tokens()
        tokens.input, tokens.output, tokens.cache_5m, tokens.cache_1h = row[:4]
        tokens.cache_read, tokens.known = row[4], row[5]
        tokens.unknown = set(row[6].split("\n")) if row[6] else set()
        return tokens


def day_pricing(prices: PriceTable | None = None) -> DayPricing:
    """The pricing of the day summaries with ``prices`` (the user's price table if None)."""
    return DayPricing(load_prices() if prices is None else prices)
