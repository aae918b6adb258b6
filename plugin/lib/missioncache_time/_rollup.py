"""Per task and per local day summaries of time, tokens and cost: what every read of a
window adds up instead of recomputing the whole history (docs/time.md, "Day summaries").

A task's row for a day holds what the full computation gives that day: Claude's and your
seconds (the union of the task's and its forks' turns, clipped to the day, as floats),
the waits, the work sessions started, the first prompt (the task's own), and the tokens
and cost of the family's messages. Only *sealed* days are kept: days that end before
``sealed``, a local midnight at least ``reach`` (two days, the idle timeout and the tail)
before the last refresh, so ``now`` clamps nothing in them and an open turn never reaches
them. A read adds the rows of its window before ``sealed`` and computes the few days
after it from the events (``missioncache_time._daily``).

It is a cache, exact by invalidation: tasks.db triggers write a *mark* (task, first and
last epoch) whenever an event that can reach a sealed day is written, updated or deleted,
whoever writes (a folded spool, another machine's import, an older MissionCache): a
heartbeat, a turn end (the span from its prompt to it), a message, a wait, a work
session, a fork joining or leaving its parent. A turn depends only on events of its
session within ``reach`` of it, so a mark dirties the days from ``reach`` before its first
epoch to ``reach`` after its last; ``refresh`` recomputes exactly those days (and the
parent's, whose figure holds its forks') from the events around them, and seals the days
time has moved past. A changed idle timeout, tail, time zone or price table, or a missing
row of state, rebuilds everything; while marks wait, readers ignore the summaries.
"""

from __future__ import annotations

import time

from missioncache_db import write_transaction
from missioncache_state.sqlite import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MARGIN = 2 * 86400  # the longest turn assumed (docs/time.md, Periods)
VERSION = 4  # of the tables and triggers below: another one creates them again

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS day_rollup (
    task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    start REAL NOT NULL,
    day TEXT NOT NULL,
    claude REAL NOT NULL, you REAL NOT NULL, waiting REAL NOT NULL,
    sessions INTEGER NOT NULL, first REAL,
    messages INTEGER NOT NULL, input INTEGER NOT NULL, output INTEGER NOT NULL,
    cache_5m INTEGER NOT NULL, cache_1h INTEGER NOT NULL, cache_read INTEGER NOT NULL,
    known REAL NOT NULL, unknown TEXT NOT NULL,
    PRIMARY KEY (task_id, start)) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS task_rollup (
    task_id INTEGER PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
    claude REAL NOT NULL, you REAL NOT NULL, waiting REAL NOT NULL,
    sessions INTEGER NOT NULL,
    messages INTEGER NOT NULL, input INTEGER NOT NULL, output INTEGER NOT NULL,
    cache_5m INTEGER NOT NULL, cache_1h INTEGER NOT NULL, cache_read INTEGER NOT NULL,
    known REAL NOT NULL, unknown TEXT NOT NULL)""",
    "CREATE TABLE IF NOT EXISTS rollup_meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS rollup_dirty (task_id INTEGER, lo REAL, hi REAL)",
)

# Every trigger marks only what may reach a sealed day: ``horizon`` is ``sealed + reach``
# (a missing row compares as NULL: nothing sealed yet, nothing to mark).
_HORIZON = "(SELECT value FROM rollup_meta WHERE key = 'horizon')"
_JOINED = (
    "SELECT h.task_id, MIN(h.epoch, {end}), MAX(h.epoch, {end}) FROM heartbeats h "
    "WHERE h.session_id IS {row}.session_id AND h.prompt_id = {row}.prompt_id"
)


def _marks(table: str, event: str, row: str, lo: str, hi: str) -> str:
    return (
        f"CREATE TRIGGER IF NOT EXISTS rollup_{table}_{event.lower()} "
        f"AFTER {event} ON {table} WHEN {row}.{lo} < {_HORIZON} BEGIN "
        f"INSERT INTO rollup_dirty VALUES ({row}.task_id, {row}.{lo}, {hi}); END"
    )


def _turn_end(event: str, row: str) -> str:
    """A turn end marks the span from its prompt (a heartbeat, maybe of another task's
    session row) to itself."""
    joined = _JOINED.format(end=f"{row}.epoch", row=row)
    return (
        f"CREATE TRIGGER IF NOT EXISTS rollup_turn_ends_{event.lower()} "
        f"AFTER {event} ON turn_ends BEGIN INSERT INTO rollup_dirty {joined} "
        f"AND MIN(h.epoch, {row}.epoch) < {_HORIZON}; END"
    )


def _previous(event: str, row: str) -> str:
    """A prompt changes how the turn before it in its session ends (the assumed tail or
    the idle timeout after background work; a failed turn runs to a notification), at any
    distance: the span from that turn's start to the prompt, when the turn is sealed."""
    return (
        f"CREATE TRIGGER IF NOT EXISTS rollup_heartbeats_{event.lower()}_previous "
        f"AFTER {event} ON heartbeats BEGIN INSERT INTO rollup_dirty SELECT task_id, epoch, "
        f"{row}.epoch FROM (SELECT p.task_id, p.epoch FROM heartbeats p "
        f"WHERE p.session_id IS {row}.session_id AND p.epoch < {row}.epoch "
        f"ORDER BY p.epoch DESC LIMIT 1) WHERE epoch < {_HORIZON}; END"
    )


def _changed(table: str, columns: str, hi: str = "epoch") -> str:
    """An update marks the old and the new row, when either reaches before the horizon: a
    fold that gives today's rows their task marks nothing (a mark per row kept the
    summaries unused until the next reader, and tasks.db a tenth bigger)."""
    old_hi, new_hi = hi.format(row="OLD"), hi.format(row="NEW")
    return (
        f"CREATE TRIGGER IF NOT EXISTS rollup_{table}_update AFTER UPDATE OF {columns} "
        f"ON {table} WHEN OLD.epoch < {_HORIZON} OR NEW.epoch < {_HORIZON} BEGIN "
        f"INSERT INTO rollup_dirty VALUES (OLD.task_id, OLD.epoch, OLD.{old_hi}), "
        f"(NEW.task_id, NEW.epoch, NEW.{new_hi}); END"
    )


_TRIGGERS = (
    _previous("INSERT", "NEW"),
    _previous("DELETE", "OLD"),
    _marks("heartbeats", "INSERT", "NEW", "epoch", "NEW.epoch"),
    _marks("heartbeats", "DELETE", "OLD", "epoch", "OLD.epoch"),
    _marks("usage", "INSERT", "NEW", "epoch", "NEW.epoch"),
    # A message counts on its first row only (missioncache_cost): when that row goes, a
    # copy in another session's transcript counts instead, and its task's days change too.
    "CREATE TRIGGER IF NOT EXISTS rollup_usage_delete AFTER DELETE ON usage BEGIN"
    " INSERT INTO rollup_dirty SELECT OLD.task_id, OLD.epoch, OLD.epoch"
    f" WHERE OLD.epoch < {_HORIZON}; INSERT INTO rollup_dirty SELECT task_id, epoch, epoch"
    f" FROM usage WHERE message_key = OLD.message_key AND epoch < {_HORIZON}; END",
    _marks("waits", "INSERT", "NEW", "epoch", "NEW.epoch + NEW.seconds"),
    _marks("waits", "DELETE", "OLD", "epoch", "OLD.epoch + OLD.seconds"),
    _marks("sessions", "INSERT", "NEW", "start_epoch", "NEW.start_epoch"),
    _marks("sessions", "DELETE", "OLD", "start_epoch", "OLD.start_epoch"),
    _turn_end("INSERT", "NEW"),
    _turn_end("DELETE", "OLD"),
    # Updates (a fold giving rows their task, a repair): the old and the new row, when
    # either may reach a sealed day.
    _changed("heartbeats", "task_id, epoch, session_id, prompt_id, kind"),
    _changed(
        "usage",
        "task_id, epoch, model, speed, input_tokens, output_tokens, cache_5m_tokens,"
        " cache_1h_tokens, cache_read_tokens",
    ),
    _changed("waits", "task_id, epoch, seconds", "epoch + {row}.seconds"),
    "CREATE TRIGGER IF NOT EXISTS rollup_turn_ends_update AFTER UPDATE OF session_id,"
    " prompt_id, epoch, outcome, background ON turn_ends BEGIN INSERT INTO rollup_dirty"
    f" {_JOINED.format(end='OLD.epoch', row='OLD')} AND MIN(h.epoch, OLD.epoch) < {_HORIZON};"
    f" INSERT INTO rollup_dirty {_JOINED.format(end='NEW.epoch', row='NEW')}"
    f" AND MIN(h.epoch, NEW.epoch) < {_HORIZON}; END",
    # A fork joining or leaving a parent changes the parent's union on every day.
    "CREATE TRIGGER IF NOT EXISTS rollup_tasks_fork AFTER UPDATE OF fork_of ON tasks BEGIN"
    " INSERT INTO rollup_dirty VALUES (OLD.fork_of, NULL, NULL), (NEW.fork_of, NULL, NULL);"
    " END",
    "CREATE TRIGGER IF NOT EXISTS rollup_tasks_fork_insert AFTER INSERT ON tasks"
    " WHEN NEW.fork_of IS NOT NULL BEGIN INSERT INTO rollup_dirty VALUES"
    " (NEW.fork_of, NULL, NULL); END",
    "CREATE TRIGGER IF NOT EXISTS rollup_tasks_delete AFTER DELETE ON tasks"
    " WHEN OLD.fork_of IS NOT NULL BEGIN INSERT INTO rollup_dirty VALUES"
    " (OLD.fork_of, NULL, NULL); END",
)


def reach(idle: float, tail: float) -> float:
    """How far one event's effect on time can go either side of it."""
    return MARGIN + idle + tail


def zone() -> str:
    """The local time zone's rules as this process sees them: days are local days."""
    return f"{time.timezone},{time.altzone},{time.daylight},{','.join(time.tzname)}"


def _meta(conn: sqlite3.Connection) -> dict:
    try:
        return dict(conn.execute("SELECT key, value FROM rollup_meta"))
    except sqlite3.OperationalError:  # no table yet: nothing was ever summarised
        return {}


def sealed_at(conn: sqlite3.Connection, idle: float, tail: float, now: float) -> float | None:
    """The moment up to which the day summaries are exact for a read at ``now``, or None
    when they cannot be used (none yet, marks waiting, other settings, a clock set back)."""
    meta = _meta(conn)
    sealed, made = meta.get("sealed"), meta.get("made")
    if not isinstance(sealed, float) or not isinstance(made, float) or now < made:
        return None
    if (meta.get("version"), meta.get("idle"), meta.get("tail"), meta.get("zone")) != (
        VERSION,
        idle,
        tail,
        zone(),
    ):
        return None  # another version's rows, or other settings: a refresh rebuilds them
    if conn.execute("SELECT 1 FROM rollup_dirty LIMIT 1").fetchone() is not None:
        return None
    return sealed


def prices_match(conn: sqlite3.Connection, pricing: Any) -> bool:
    """Whether the summaries were priced with the table of ``pricing`` (a ``DayPricing``)."""
    return bool(_meta(conn).get("prices") == pricing.key)


def refresh(
    conn: sqlite3.Connection,
    now: float | None = None,
    existing: bool = False,
    *,
    pricing: Any,
) -> bool:
    """Bring the summaries up to date at ``now``: recompute the days marks dirtied, seal
    the days time moved past, or build everything when the settings changed.
    ``existing``: only maintain summaries already built (a sync never pays for the first
    build); ``pricing``: ``missioncache_cost.day_pricing()``, from the caller above both
    layers. Returns whether the summaries are usable now."""
    now = time.time() if now is None else now
    if existing and not isinstance(_meta(conn).get("sealed"), float):
        return False
    if conn.in_transaction:
        return _refresh(conn, now, pricing)
    try:
        with write_transaction(conn):
            return _refresh(conn, now, pricing)
    except sqlite3.OperationalError:  # busy or read-only: readers compute from the events
        return False


def rebuild(conn: sqlite3.Connection, pricing: Any, now: float | None = None) -> None:
    """Drop every summary and build them again from the events (``doctor --rebuild``)."""
    with write_transaction(conn):
        for statement in _SCHEMA:
            conn.execute(statement)
        conn.execute("DELETE FROM rollup_meta")
    refresh(conn, now, pricing=pricing)


def _refresh(conn: sqlite3.Connection, now: float, pricing: Any) -> bool:
    from missioncache_time._fold import read_config

    idle, tail = read_config(conn)
    span = reach(idle, float(tail))
    meta = _meta(conn)
    from missioncache_time import _daybook as daybook

    if meta.get("version") != VERSION:
        _recreate(conn)
    made = meta.get("made")
    if isinstance(made, float) and now < made:
        return False  # a clock set back: leave everything as it is
    sealed = daybook.day_start(now - span)
    wanted = {
        "version": VERSION,
        "idle": idle,
        "tail": float(tail),
        "zone": zone(),
        "prices": pricing.key,
    }
    old = meta.get("sealed")
    plan: dict[int, list] = {}
    tasks = dict(conn.execute("SELECT id, fork_of FROM tasks"))
    if not isinstance(old, float) or any(meta.get(k) != v for k, v in wanted.items()):
        conn.execute("DELETE FROM day_rollup")
        conn.execute("DELETE FROM task_rollup")
        for task_id in tasks:
            plan[task_id] = [(None, sealed)]
    else:
        sealed = max(sealed, old)
        marks = conn.execute("SELECT task_id, lo, hi FROM rollup_dirty").fetchall()
        if not marks and sealed == old:
            return True  # up to date: nothing written
        for task_id, lo, hi in marks:
            if task_id not in tasks:
                continue
            window: tuple[float | None, float] = (None, old)  # a whole task
            if lo is not None and hi is not None:
                window = (daybook.day_start(lo - span), min(old, daybook.next_day(hi + span)))
            for member in {task_id, tasks[task_id]} - {None}:
                plan.setdefault(member, []).append(window)
        if sealed > old:
            for task_id in tasks:
                plan.setdefault(task_id, []).append((old, sealed))
    ranges = {task_id: _merged(windows) for task_id, windows in plan.items()}
    for task_id, windows in ranges.items():
        for lo, hi in windows:
            daybook.compute(conn, task_id, lo, hi, idle, float(tail), now, pricing)
        daybook.total(conn, task_id)
    conn.execute("DELETE FROM rollup_dirty")
    wanted.update(sealed=sealed, horizon=sealed + span, made=float(now))
    conn.executemany("INSERT OR REPLACE INTO rollup_meta VALUES (?, ?)", wanted.items())
    return True


def _recreate(conn: sqlite3.Connection) -> None:
    """The tables and triggers of this version: another version's triggers dropped first
    (``IF NOT EXISTS`` would keep them as they were)."""
    names = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'rollup/_%' ESCAPE '/'"
    ).fetchall()
    for (name,) in names:
        conn.execute(f'DROP TRIGGER IF EXISTS "{name}"')
    for statement in _SCHEMA + _TRIGGERS:
        conn.execute(statement)


def _merged(windows: list) -> list:
    """Overlapping ``(lo, hi)`` windows joined (``lo`` None: from the beginning)."""
    out: list[list] = []
    for lo, hi in sorted(windows, key=lambda w: (w[0] is not None, w[0] or 0.0)):
        if lo is not None and hi <= lo:
            continue
        if out and (lo is None or lo <= out[-1][1]):
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [tuple(window) for window in out]


refresh_days, rebuild_days = refresh, rebuild  # the names the package exports
