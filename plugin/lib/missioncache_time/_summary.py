"""The all-time time split of a task without re-reading its whole history every time.

``time_split`` is a pure function of a task's events (``turns``): about 0.2 s at 25,000
prompts when computed from every heartbeat and turn end, at every session start. But
almost all of that history is settled: once a turn is old and ``now`` no longer clamps it,
nothing but a new event of its own session can change it. So the table ``time_summary``
keeps, per task, a ``turns.Sweep`` of every turn that starts before a moment ``cut``
(data model section 3); the split is that sweep continued with the turns from ``cut`` on,
read through the ``(task_id, epoch)`` index. The result is the full computation's, float
for float, and the tests compare the two on random event streams.

Why it stays equal (``_sealed_cut`` checks the first three when a summary is written):

- Every turn before ``cut`` ended (as computed) before the moment the summary was made
  (``made``), and no heartbeat of the task was later than that: ``now`` clamps nothing
  in them, at ``made`` or at any later ``now``. A read with ``now < made`` (a clock set
  back) ignores the summary.
- No prompt has heartbeats on both sides of ``cut`` (it counts once, at its first).
- A turn depends only on events of its own session. Triggers in tasks.db delete a task's
  summary when anything it depends on changes, whoever writes: a heartbeat inserted
  before ``cut`` or into a session that has one before ``cut``, a turn end for a prompt
  before ``cut``, and any update or delete of heartbeats or turn ends. The idle timeout
  and tail it was made with are stored and compared.

A summary is written only by a caller that asks (SessionStart), inside the same write
transaction as the reads it summarises, and never waits for the lock; a read never
writes. New sessions leave a summary in place, so the turns after its cut only grow: a
caller that asks replaces a summary older than ``HORIZON`` with a fresh one (one full
computation every two days at most), or the saving would fade away. A missing,
unreadable or stale row just means the full computation.
"""

from __future__ import annotations

import math

from missioncache_state.sqlite import sqlite3
from missioncache_time._turns import Sweep, TimeSplit, turn_intervals

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

# How far back from now a summary reaches at least: the turns of the last two days (and
# every session active in them) stay outside it, so today's prompts never invalidate it.
HORIZON = 2 * 86400

_COLUMNS = "idle, tail, cut, made, claude, you, block_start, block_end, reach"

# The table and the triggers that delete a task's row whenever an event it summarises
# could change, whoever writes (an older MissionCache, another tool): a cache, so deleting
# it is always safe. Created with the first summary, in its transaction, so no schema
# version is spent on a cache and a row never exists without its triggers. The unary +
# keeps SQLite on the (session_id, prompt_id) index: one session's rows, never every
# earlier heartbeat of the task through (task_id, epoch).
_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS time_summary (
    task_id INTEGER PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
    idle REAL NOT NULL,
    tail REAL NOT NULL,
    cut REAL NOT NULL,
    made REAL NOT NULL,
    claude REAL NOT NULL,
    you REAL NOT NULL,
    block_start REAL,
    block_end REAL,
    reach REAL NOT NULL
)""",
    """CREATE TRIGGER IF NOT EXISTS time_summary_heartbeat_insert AFTER INSERT ON heartbeats
BEGIN
    DELETE FROM time_summary WHERE task_id = NEW.task_id AND (
        NEW.epoch IS NULL OR NEW.epoch < cut OR EXISTS (
            SELECT 1 FROM heartbeats h
            WHERE h.session_id IS NEW.session_id AND +h.task_id = NEW.task_id
            AND +h.epoch < time_summary.cut));
END""",
    """CREATE TRIGGER IF NOT EXISTS time_summary_heartbeat_update
    AFTER UPDATE OF task_id, epoch, session_id, prompt_id, kind ON heartbeats
BEGIN
    DELETE FROM time_summary WHERE task_id IN (OLD.task_id, NEW.task_id);
END""",
    """CREATE TRIGGER IF NOT EXISTS time_summary_heartbeat_delete AFTER DELETE ON heartbeats
BEGIN
    DELETE FROM time_summary WHERE task_id = OLD.task_id;
END""",
    """CREATE TRIGGER IF NOT EXISTS time_summary_turn_end_insert AFTER INSERT ON turn_ends
BEGIN
    DELETE FROM time_summary WHERE EXISTS (
        SELECT 1 FROM heartbeats h
        WHERE h.session_id IS NEW.session_id AND h.prompt_id = NEW.prompt_id
        AND +h.task_id = time_summary.task_id AND +h.epoch < time_summary.cut);
END""",
    """CREATE TRIGGER IF NOT EXISTS time_summary_turn_end_update
    AFTER UPDATE OF session_id, prompt_id, epoch, background ON turn_ends
BEGIN
    DELETE FROM time_summary;
END""",
    """CREATE TRIGGER IF NOT EXISTS time_summary_turn_end_delete AFTER DELETE ON turn_ends
BEGIN
    DELETE FROM time_summary;
END""",
)


def all_time(
    conn: sqlite3.Connection, task_id: int, idle: float, tail: float, now: float, keep: bool
) -> TimeSplit:
    """``turns.split`` of all the task's events at ``now``, from the summary when there is
    a usable one; ``keep``: write a fresh summary when there is none (never waiting)."""
    if conn.in_transaction:  # the caller's snapshot; no summary is read or written
        starts, ends = events(conn, task_id, None)
        return Sweep().add(sorted(turn_intervals(starts, ends, idle, tail, now)), now).result(now)
    if keep and _begin_immediate(conn):
        try:
            result = _with_summary(conn, task_id, idle, tail, now, write=True)
            conn.execute("COMMIT")
            return result
        except sqlite3.Error:  # a full disk, a read-only file: the summary waits
            _rollback(conn)
        except BaseException:
            _rollback(conn)
            raise
    conn.execute("BEGIN")  # one snapshot for the summary and the events after it
    try:
        return _with_summary(conn, task_id, idle, tail, now, write=False)
    finally:
        conn.execute("COMMIT")


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:  # a failed COMMIT may have ended it already
        conn.execute("ROLLBACK")


def _begin_immediate(conn: sqlite3.Connection) -> bool:
    """Take the write lock if it is free right now: a summary is never worth a wait."""
    waited = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        conn.execute("BEGIN IMMEDIATE")
        return True
    except Exception:  # busy, read-only file or database: the plain read below
        return False
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(waited)}")


def _with_summary(
    conn: sqlite3.Connection, task_id: int, idle: float, tail: float, now: float, write: bool
) -> TimeSplit:
    stored = _load(conn, task_id, idle, tail, now)
    if stored is not None and not (write and stored[1] < now - HORIZON):
        since, _made, resumed = stored
        starts, ends = events(conn, task_id, since)
        later = sorted(turn_intervals(starts, ends, idle, tail, now))
        return resumed.add(later, now).result(now)
    starts, ends = events(conn, task_id, None)
    turns = sorted(turn_intervals(starts, ends, idle, tail, now))
    cut = _sealed_cut(starts, turns, now, idle, tail) if write else None
    if cut is None:
        return Sweep().add(turns, now).result(now)
    before = [turn for turn in turns if turn[0] < cut]
    sweep = Sweep().add(before, now)
    _store(conn, task_id, idle, tail, cut, now, sweep)
    return sweep.add(turns[len(before) :], now).result(now)


# The fourth field of a start: 0 a human prompt, 1 synthetic, 2 control (turns.CONTROL).
KIND_CODE = "CASE kind WHEN 'synthetic' THEN 1 WHEN 'control' THEN 2 ELSE 0 END"


# A StopFailure does not list background tasks (contract 1): its end is marked -1, "maybe
# an agent still runs", which turns.py resolves by the session's next prompt.
FAILURE_BACKGROUND = (
    "CASE WHEN e.outcome = 'failure' AND e.background = 0 THEN -1 ELSE e.background END"
)


def events(conn: sqlite3.Connection, task_id: int, since: float | None) -> tuple[list, dict]:
    """The task's counted prompts (``(epoch, session, prompt, synthetic)``) and the last end
    of each (``{(session, prompt): (epoch, background)}``), from ``since`` on (or all)."""
    where, params = "task_id = ? AND epoch IS NOT NULL", [float(task_id)]
    if since is not None:
        where += " AND epoch >= ?"
        params.append(since)
    starts = conn.execute(
        f"SELECT epoch, session_id, prompt_id, {KIND_CODE} FROM heartbeats WHERE {where}",
        params,
    ).fetchall()
    ends: dict = {}
    # Driven from the task's heartbeats (indexed by task and time), each joined to its ends
    # through the (session_id, prompt_id) index: never a scan of every turn end.
    for session_id, prompt_id, epoch, background in conn.execute(
        "SELECT e.session_id, e.prompt_id, e.epoch,"
        f" {FAILURE_BACKGROUND} FROM heartbeats h "
        "JOIN turn_ends e ON e.session_id IS h.session_id AND e.prompt_id = h.prompt_id "
        f"WHERE h.prompt_id IS NOT NULL AND h.{where.replace(' AND ', ' AND h.')}",
        params,
    ):
        key, value = (session_id, prompt_id), (epoch, background)
        if key not in ends or value > ends[key]:
            ends[key] = value  # the last end: Stop fires again when a Stop hook continued
    return starts, ends


def _sealed_cut(starts: list, turns: list, now: float, idle: float, tail: float) -> float | None:
    """The moment before which every turn is settled (module docstring), or None."""
    recent = now - HORIZON - idle - tail
    if not starts or min(start[0] for start in starts) >= recent:
        return None  # all of it is recent: nothing to summarise yet
    if max(start[0] for start in starts) > now:
        return None  # a heartbeat from the future: now still clamps it
    cut = recent
    firsts: dict = {}  # session -> its first prompt; a session active lately stays whole
    spans: dict = {}  # (session, prompt) -> (first, last) heartbeat of that prompt
    for epoch, session_id, prompt_id, _synthetic in starts:
        firsts[session_id] = min(firsts.get(session_id, epoch), epoch)
        if prompt_id is not None:
            low, high = spans.get((session_id, prompt_id), (epoch, epoch))
            spans[session_id, prompt_id] = (min(low, epoch), max(high, epoch))
    for epoch, session_id, _prompt_id, _synthetic in starts:
        if epoch >= recent:
            cut = min(cut, firsts[session_id])
    while True:
        moved = cut
        for start, stop, _reach in turns:
            if start < moved and stop >= now:  # still running, or now clamps it
                moved = min(moved, start)
        for low, high in spans.values():
            if low < moved <= high:  # a prompt counted once must stay on one side
                moved = low
        if moved == cut:
            break
        cut = moved
    return cut if turns and turns[0][0] < cut else None


def _load(
    conn: sqlite3.Connection, task_id: int, idle: float, tail: float, now: float
) -> tuple[float, float, Sweep] | None:
    try:
        row = conn.execute(
            f"SELECT {_COLUMNS} FROM time_summary WHERE task_id = ?", (task_id,)
        ).fetchone()
    except sqlite3.OperationalError:  # no table yet: no summary was ever written
        return None
    if row is None:
        return None
    s_idle, s_tail, cut, made, claude, you, block_start, block_end, reach = row
    numbers = (s_idle, s_tail, cut, made, claude, you, reach)
    if not all(isinstance(value, float) for value in numbers):
        return None  # damaged or written by something else: recompute
    if (s_idle, s_tail) != (idle, tail) or now < made or cut > made:
        return None
    if isinstance(block_start, float) and isinstance(block_end, float):
        block: list[float] | None = [block_start, block_end]
    elif block_start is None and block_end is None:
        block = None
    else:
        return None
    return cut, made, Sweep(claude, you, block, reach)


def _store(
    conn: sqlite3.Connection,
    task_id: int,
    idle: float,
    tail: float,
    cut: float,
    now: float,
    sweep: Sweep,
) -> None:
    for statement in _SCHEMA:
        conn.execute(statement)
    start, end = sweep.block or (None, None)
    conn.execute(  # inside the write transaction that read the events: one snapshot
        f"INSERT OR REPLACE INTO time_summary(task_id, {_COLUMNS}) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (task_id, idle, tail, cut, now, sweep.claude, sweep.you, start, end, sweep.reach),
    )


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
    return wait_union(rows, since, until)


def wait_union(waits: Iterable[tuple[float, float]], since: float | None, until: float) -> float:
    """Seconds inside ``[since, until]`` covered by the union of ``waits`` (start, end):
    the rule of ``waiting_seconds`` over waits already read, which the team report applies
    to the waits on the team's server, so both take out the same seconds."""
    low = -math.inf if since is None else since
    kept = sorted(w for w in waits if w[0] < until and w[0] >= low - WAIT_LIMIT)
    total, reached = 0.0, low
    for start, end in kept:
        start, end = max(start, reached), min(end, until)
        if end > start:
            total += end - start
            reached = end
    return total
