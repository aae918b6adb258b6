"""Tokens in tasks.db: storing the spooled usage records, and what a task's turns cost.

Rows come from the spool (``usage_record`` writes them at Stop), one per message and
session (``UNIQUE(session_id, message_key)``: a message spooled twice is stored once).
Which task a row is on is decided by the session's heartbeats, the same facts time
invested rests on: the heartbeat of the row's own turn (same ``prompt_id``), else the
latest one of the session before the message, else the session's first. So a turn a
slash command started counts for the task the session is on, and a session with no
heartbeat at all (untracked) reaches no task. Heartbeats may be ingested after the
usage (they come through a detached child), so unassigned rows are assigned again before
every read.
"""

from __future__ import annotations

import math

from missioncache_spool import USAGE
from missioncache_state.ids import session_id_or_none

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from missioncache_cost._prices import PriceTable
    from missioncache_state.sqlite import sqlite3

_INSERT = (
    "INSERT OR IGNORE INTO usage(session_id, message_key, model, speed, agent, prompt_id,"
    " epoch, input_tokens, output_tokens, cache_5m_tokens, cache_1h_tokens,"
    " cache_read_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_UNASSIGNED = (
    "SELECT u.id, u.session_id, u.prompt_id, u.epoch FROM usage u WHERE u.task_id IS NULL"
    " AND EXISTS (SELECT 1 FROM heartbeats h WHERE h.session_id = u.session_id"
    " AND h.task_id IS NOT NULL)"
)
_SESSION_BEATS = (
    "SELECT prompt_id, epoch, task_id FROM heartbeats WHERE session_id = ?"
    " AND task_id IS NOT NULL AND epoch IS NOT NULL ORDER BY epoch"
)
MAX_TOKENS = 1 << 40
TOKEN_FIELDS = ("input", "output", "cache_5m", "cache_1h", "cache_read")


def _text(value: Any, limit: int = 200) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= limit else None


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKENS:
        return None
    return value


def valid_message(session_id: str, row: Any) -> tuple | None:
    """One message ``[key, model, speed, agent, prompt, epoch, 5 counts]`` checked field by
    field (from the spool, or another machine's log), as the row to insert; None if bad."""
    if not isinstance(row, list) or len(row) != 11:
        return None
    key, model, speed, agent, prompt, epoch = row[:6]
    counts = [_count(v) for v in row[6:]]
    if _text(key, 300) is None or any(c is None for c in counts):
        return None
    if isinstance(epoch, bool) or not isinstance(epoch, (int, float)) or not math.isfinite(epoch):
        return None
    return (
        session_id,
        key,
        _text(model),
        _text(speed, 40),
        session_id_or_none(agent),
        session_id_or_none(prompt),
        float(epoch),
        *counts,
    )


def valid_wait(session_id: str, wait: Any) -> tuple | None:
    """One wait ``[epoch, seconds]`` (at most 6 hours) as the row to insert; None if bad."""
    if not isinstance(wait, list) or len(wait) != 2:
        return None
    epoch, seconds = wait
    for value in wait:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        if not math.isfinite(value):
            return None
    if not 0 < seconds <= 6 * 3600:
        return None
    return (session_id, float(epoch), float(seconds))


def valid_usage(raw: dict) -> dict | None:
    """A spooled usage record checked field by field; None when it is not ours."""
    sid, rows = session_id_or_none(raw.get("session_id")), raw.get("m")
    if sid is None or not isinstance(rows, list):
        return None
    checked = [valid_message(sid, row) for row in rows]
    waits = raw.get("w")
    found = [valid_wait(sid, w) for w in waits] if isinstance(waits, list) else []
    return {
        "type": USAGE,
        "uid": raw["uid"],
        "rows": [r for r in checked if r is not None],
        "waits": [w for w in found if w is not None],
    }


def insert_usage(conn: sqlite3.Connection, records: list[dict]) -> int:
    """Store the messages of spooled usage records; returns the rows inserted."""
    rows = [row for record in records for row in record["rows"]]
    waits = [wait for record in records for wait in record.get("waits", ())]
    if waits:
        conn.executemany(
            "INSERT OR IGNORE INTO waits(session_id, epoch, seconds) VALUES (?, ?, ?)", waits
        )
    inserted = conn.executemany(_INSERT, rows).rowcount if rows else 0
    assign_tasks(conn)
    return inserted


def assign_tasks(conn: sqlite3.Connection) -> int:
    """Give unassigned rows the task their session's heartbeats name; returns how many."""
    pending = conn.execute(_UNASSIGNED).fetchall()
    beats: dict[str, list[tuple]] = {}
    updates = []
    for row_id, session_id, prompt_id, epoch in pending:
        if session_id not in beats:
            beats[session_id] = conn.execute(_SESSION_BEATS, (session_id,)).fetchall()
        task_id = task_of(beats[session_id], prompt_id, epoch)
        if task_id is not None:
            updates.append((task_id, row_id))
    conn.executemany("UPDATE usage SET task_id = ? WHERE id = ?", updates)
    waiting = conn.execute(_UNASSIGNED.replace("usage u", "waits u").replace("u.prompt_id", "NULL"))
    wait_updates = []
    for row_id, session_id, _, epoch in waiting.fetchall():
        if session_id not in beats:
            beats[session_id] = conn.execute(_SESSION_BEATS, (session_id,)).fetchall()
        task_id = task_of(beats[session_id], None, epoch)
        if task_id is not None:
            wait_updates.append((task_id, row_id))
    conn.executemany("UPDATE waits SET task_id = ? WHERE id = ?", wait_updates)
    return len(updates) + len(wait_updates)


WAIT_LIMIT = 2 * 86400  # seconds: the longest wait assumed, as the longest turn


def waiting_seconds(
    conn: sqlite3.Connection, task_ids: list[int], since: float | None, until: float
) -> float:
    """Seconds inside ``[since, until]`` that some recorded wait (a retry back-off, a usage
    limit) of the tasks covers: time that is neither Claude's nor yours (docs/time.md).
    The union of the waits, as time is a union of turns: two parallel sessions (or forks,
    or machines) rate-limited in the same minute wait one minute, not two."""
    low = -math.inf if since is None else since
    marks = ",".join("?" * len(task_ids))
    rows = conn.execute(  # a wait is assumed to last less than WAIT_LIMIT
        f"SELECT epoch, epoch + seconds FROM waits WHERE task_id IN ({marks}) AND epoch < ?"
        " AND epoch >= ? ORDER BY epoch",
        (*task_ids, until, low - WAIT_LIMIT),
    ).fetchall()
    total, reached = 0.0, low
    for start, end in rows:
        start, end = max(start, reached), min(end, until)
        if end > start:
            total += end - start
            reached = end
    return total


def task_of(beats: list[tuple], prompt_id: str | None, epoch: float) -> int | None:
    """The task of a message from its session's heartbeats ``(prompt id, epoch, task)``
    (oldest first): its own turn's, else the latest before it, else the first."""
    if not beats:
        return None
    if prompt_id is not None:
        for beat_prompt, _, task_id in beats:
            if beat_prompt == prompt_id:
                return int(task_id)
    before = [task_id for _, beat_epoch, task_id in beats if beat_epoch <= epoch]
    return int(before[-1] if before else beats[0][2])


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


_SELECT = (
    "SELECT model, speed, input_tokens, output_tokens, cache_5m_tokens, cache_1h_tokens,"
    " cache_read_tokens, epoch, prompt_id FROM usage WHERE task_id = ?"
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
