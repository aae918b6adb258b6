"""What a task's turns cost: its token rows summed and priced (docs/cost.md).

The rows are stored and given their task by the time model (``missioncache_time``, which
ingests the spool); here they are read, priced with the price table (``_prices``) and
put in words.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from missioncache_cost._prices import PriceTable
    from missioncache_state.sqlite import sqlite3

TOKEN_FIELDS = ("input", "output", "cache_5m", "cache_1h", "cache_read")


class Tokens:
    """Summed tokens and cost of some messages. ``cost`` is None when any message had
    tokens but no known price (``unknown_models`` says which): a partial sum shown as the
    cost would understate it."""

    __slots__ = ("cache_1h", "cache_5m", "cache_read", "input", "known", "output", "unknown")

    def __init__(self) -> None:
        self.input = self.output = self.cache_5m = self.cache_1h = self.cache_read = 0
        self.known = 0.0
        self.unknown: set[str] = set()

    def add(self, model: Any, speed: Any, counts: tuple, prices: PriceTable) -> None:
        self.input += counts[0]
        self.output += counts[1]
        self.cache_5m += counts[2]
        self.cache_1h += counts[3]
        self.cache_read += counts[4]
        cost = prices.cost(model, speed, counts)
        if cost is None:
            self.unknown.add(f"{model or '?'}{' (fast)' if speed == 'fast' else ''}")
        else:
            self.known += cost

    def merge(self, other: Tokens) -> None:
        """Add ``other``'s sums to these."""
        self.input += other.input
        self.output += other.output
        self.cache_5m += other.cache_5m
        self.cache_1h += other.cache_1h
        self.cache_read += other.cache_read
        self.known += other.known
        self.unknown |= other.unknown

    @property
    def cache_write(self) -> int:
        return self.cache_5m + self.cache_1h

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_write + self.cache_read

    @property
    def cost(self) -> float | None:
        return None if self.unknown else self.known

    def as_json(self) -> dict:
        return {
            "input": self.input,
            "output": self.output,
            "cache_write": self.cache_write,
            "cache_read": self.cache_read,
        }


# A message is priced once, whatever number of transcripts hold it: ``claude --resume ID
# --fork-session`` copies the parent's messages into the new session's transcript, same
# message id and request. Only the first row of a key counts (anywhere in tasks.db); a key
# without its request part (``id:``) is never merged across rows, as ccusage merges only
# records that carry one.
_SELECT = (
    "SELECT model, speed, input_tokens, output_tokens, cache_5m_tokens, cache_1h_tokens,"
    " cache_read_tokens, epoch, prompt_id FROM usage u WHERE task_id = ?"
    " AND (message_key LIKE '%:' OR NOT EXISTS (SELECT 1 FROM usage o"
    " WHERE o.message_key = u.message_key AND o.id < u.id))"
)


def task_rows(
    conn: sqlite3.Connection, task_id: int, since: float | None = None, until: float | None = None
) -> list[tuple]:
    """A task's messages ``(model, speed, 5 counts, epoch, prompt id)``, oldest first."""
    sql = _SELECT
    args: list[float] = [task_id]
    if since is not None:
        sql += " AND epoch >= ?"
        args.append(since)
    if until is not None:
        sql += " AND epoch < ?"
        args.append(until)
    return conn.execute(sql + " ORDER BY epoch", args).fetchall()


def summed(rows: list[tuple], prices: PriceTable) -> Tokens:
    tokens = Tokens()
    for row in rows:
        tokens.add(row[0], row[1], tuple(row[2:7]), prices)
    return tokens


def task_tokens(
    conn: sqlite3.Connection,
    task_id: int,
    since: float | None = None,
    prices: PriceTable | None = None,
) -> Tokens:
    """The tokens and cost of a task's messages from ``since`` on (all when None). A
    parent's hold its forks', as its time does (docs/forks.md): ``time``, the status line
    and the report name one figure."""
    from missioncache_cost._prices import load_prices
    from missioncache_db import family_ids

    family = family_ids(conn, task_id)
    rows = [row for member in family for row in task_rows(conn, member, since)]
    return summed(rows, prices or load_prices())


def per_turn(rows: list[tuple], prices: PriceTable) -> dict[str | None, Tokens]:
    """The rows' tokens per turn (prompt id), in order of each turn's first message."""
    turns: dict[str | None, Tokens] = {}
    for row in rows:
        turns.setdefault(row[8], Tokens()).add(row[0], row[1], tuple(row[2:7]), prices)
    return turns


def format_tokens(count: int) -> str:
    """``950 tokens``, ``12.3k tokens``, ``1.3M tokens``."""
    if count < 1000:
        return f"{count} tokens"
    if count < 1_000_000:
        return f"{count / 1000:.1f}k tokens".replace(".0k", "k")
    return f"{count / 1_000_000:.1f}M tokens".replace(".0M", "M")


def format_cost(cost: float | None) -> str:
    """``$4.12``; ``<$0.01`` for a cost that rounds to nothing; ``cost unknown``."""
    if cost is None:
        return "cost unknown"
    if 0 < cost < 0.005:
        return "<$0.01"
    return f"${cost:,.2f}"


def cost_part(tokens: Tokens) -> str:
    """``, $4.12, 1.3M tokens`` for a line of figures; empty when nothing was recorded."""
    if not tokens.total:
        return ""
    return f", {format_cost(tokens.cost)}, {format_tokens(tokens.total)}"
