"""tasks.db: connection settings, schema and versioned migrations (data model section 3).

The schema is created on first open and upgraded by ``PRAGMA user_version``, one
migration per version, all pending ones inside a single write transaction that re-reads
the version: two processes opening a new database at once cannot both apply a step.

Version 1 is the shape every MissionCache tool agrees on. Version 2 adds what makes
heartbeat accounting exact and crash-safe: ``heartbeats.uid`` (unique, so replaying a
spooled heartbeat twice inserts it once), ``heartbeats.epoch`` and the sessions' epoch
bounds (gap arithmetic that survives DST and time-zone changes, see ``timefmt``), and
``sessions.closed`` (whether the assumed-work tail has been credited). Rows written by
other tools without an epoch get one from their text timestamp through a trigger.
"""

from __future__ import annotations

from missioncache_state import lean_os as os
from missioncache_state.sqlite import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Callable, Union

    StrPath = Union[str, os.PathLike]

DEFAULT_CONFIG = {"idle_timeout_seconds": "300", "assumed_work_seconds": "120"}

_NOW = "(strftime('%Y-%m-%d %H:%M:%S', 'now', 'localtime'))"

_V1 = f"""
CREATE TABLE IF NOT EXISTS repositories (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    short_name TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT {_NOW}
);
CREATE TABLE IF NOT EXISTS tasks (
    id INTEGER PRIMARY KEY,
    repo_id INTEGER REFERENCES repositories(id),
    name TEXT NOT NULL,
    full_path TEXT NOT NULL,
    parent_id INTEGER REFERENCES tasks(id),
    status TEXT NOT NULL DEFAULT 'active'
        CHECK (status IN ('active', 'paused', 'completed', 'archived')),
    jira_key TEXT,
    created_at TEXT NOT NULL DEFAULT {_NOW},
    updated_at TEXT NOT NULL DEFAULT {_NOW},
    last_worked_on TEXT,
    UNIQUE (repo_id, full_path)
);
CREATE INDEX IF NOT EXISTS tasks_name ON tasks(name);
CREATE INDEX IF NOT EXISTS tasks_full_path ON tasks(full_path);
CREATE INDEX IF NOT EXISTS tasks_repo ON tasks(repo_id, status);
CREATE TABLE IF NOT EXISTS heartbeats (
    id INTEGER PRIMARY KEY,
    task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    timestamp TEXT NOT NULL DEFAULT {_NOW},
    session_id TEXT,
    context TEXT,
    processed INTEGER NOT NULL DEFAULT 0 CHECK (processed IN (0, 1))
);
CREATE INDEX IF NOT EXISTS heartbeats_task_time ON heartbeats(task_id, timestamp);
CREATE INDEX IF NOT EXISTS heartbeats_processed_time ON heartbeats(processed, timestamp);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY,
    task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    session_id TEXT,
    start_time TEXT NOT NULL,
    end_time TEXT NOT NULL,
    duration_seconds INTEGER NOT NULL DEFAULT 0,
    heartbeat_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS sessions_task_start ON sessions(task_id, start_time);
CREATE TABLE IF NOT EXISTS config (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

_V2_COLUMNS = (
    ("heartbeats", "uid", "TEXT"),
    ("heartbeats", "epoch", "REAL"),
    ("sessions", "start_epoch", "REAL"),
    ("sessions", "end_epoch", "REAL"),
    ("sessions", "closed", "INTEGER NOT NULL DEFAULT 0"),
)

# strftime('%s', <local text>, 'utc') reads the text as local time: the best an epoch-less
# row can get. Rows we write always carry their exact epoch.
_TEXT_TO_EPOCH = "CAST(strftime('%s', {col}, 'utc') AS REAL)"

_V2 = f"""
UPDATE heartbeats SET epoch = {_TEXT_TO_EPOCH.format(col="timestamp")} WHERE epoch IS NULL;
UPDATE sessions SET start_epoch = {_TEXT_TO_EPOCH.format(col="start_time")},
    end_epoch = {_TEXT_TO_EPOCH.format(col="end_time")}, closed = 1 WHERE start_epoch IS NULL;
CREATE UNIQUE INDEX IF NOT EXISTS heartbeats_uid ON heartbeats(uid);
CREATE INDEX IF NOT EXISTS heartbeats_task_epoch ON heartbeats(task_id, epoch);
CREATE INDEX IF NOT EXISTS sessions_task_end ON sessions(task_id, end_epoch);
CREATE INDEX IF NOT EXISTS sessions_open ON sessions(end_epoch) WHERE closed = 0;
CREATE TRIGGER IF NOT EXISTS heartbeats_epoch AFTER INSERT ON heartbeats
    WHEN NEW.epoch IS NULL
BEGIN
    UPDATE heartbeats SET epoch = {_TEXT_TO_EPOCH.format(col="NEW.timestamp")}
        WHERE id = NEW.id;
END;
"""


def _migrate_v1(conn: sqlite3.Connection) -> None:
    for statement in _split(_V1):
        conn.execute(statement)
    conn.executemany(
        "INSERT OR IGNORE INTO config(key, value) VALUES (?, ?)", DEFAULT_CONFIG.items()
    )


def _migrate_v2(conn: sqlite3.Connection) -> None:
    for table, column, decl in _V2_COLUMNS:
        if column not in _columns(conn, table):
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")
    for statement in _split(_V2):
        conn.execute(statement)


# Version 3 records turns (docs/time.md): which prompt a heartbeat started
# (``prompt_id``) and whether Claude Code made that prompt itself (``kind`` 'synthetic';
# NULL for a human prompt), and the end of each turn. Nothing existing is rewritten:
# heartbeats from before keep NULL prompt ids, which is what "no recorded end" means.
_V3_COLUMNS = (
    ("heartbeats", "prompt_id", "TEXT"),
    ("heartbeats", "kind", "TEXT"),
)

_V3 = """
CREATE TABLE IF NOT EXISTS turn_ends (
    id INTEGER PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    session_id TEXT,
    prompt_id TEXT NOT NULL,
    epoch REAL NOT NULL,
    outcome TEXT NOT NULL DEFAULT 'stop',
    background INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS turn_ends_prompt ON turn_ends(session_id, prompt_id);
CREATE INDEX IF NOT EXISTS heartbeats_prompt ON heartbeats(session_id, prompt_id);
"""


def _migrate_v3(conn: sqlite3.Connection) -> None:
    for table, column, decl in _V3_COLUMNS:
        if column not in _columns(conn, table):
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")
    for statement in _split(_V3):
        conn.execute(statement)


# Version 4 records forks (docs/forks.md): ``tasks.fork_of`` is the task a fork branched
# from, whose context is the shared layer every fork reads. NULL for every other task,
# which is what every earlier row means.
_V4 = "CREATE INDEX IF NOT EXISTS tasks_fork_of ON tasks(fork_of);"


def _migrate_v4(conn: sqlite3.Connection) -> None:
    if "fork_of" not in _columns(conn, "tasks"):
        conn.execute("ALTER TABLE tasks ADD COLUMN fork_of INTEGER REFERENCES tasks(id)")
    conn.execute(_V4)


# Version 5 makes tasks.db a cache of the per-machine event logs (docs/sync.md,
# ``missioncache_sync._event_log``): a task gets a stable ``uid`` (the same task on two machines is
# one task), ``changed`` (epoch of its last change, stamped by a trigger whoever writes) and
# ``synced`` (the ``changed`` last written to this machine's log); a repository its git
# ``remote`` and whether its path is another machine's (``elsewhere``: matched to a local
# folder by remote or name when a session starts there, ``resolve``); heartbeats and turn
# ends a ``synced`` flag (0: not in this machine's log yet, so every row from before, and
# every row another tool writes, is exported once); a
# deleted task leaves a tombstone; ``task_uids`` holds the other uids a task answers to
# (the same task created on two machines before they synced); ``event_files`` how far each
# other machine's log has been read.
_V5_COLUMNS = (
    ("tasks", "uid", "TEXT"),
    ("tasks", "changed", "REAL"),
    ("tasks", "synced", "REAL"),
    ("repositories", "remote", "TEXT"),
    ("repositories", "elsewhere", "INTEGER NOT NULL DEFAULT 0"),
    ("heartbeats", "synced", "INTEGER NOT NULL DEFAULT 0"),
    ("turn_ends", "synced", "INTEGER NOT NULL DEFAULT 0"),
)

_EPOCH_NOW = "((julianday('now') - 2440587.5) * 86400.0)"

_V5 = f"""
UPDATE tasks SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL;
UPDATE tasks SET changed = {_TEXT_TO_EPOCH.format(col="updated_at")} WHERE changed IS NULL;
UPDATE tasks SET changed = {_EPOCH_NOW} WHERE changed IS NULL;
CREATE UNIQUE INDEX IF NOT EXISTS tasks_uid ON tasks(uid);
CREATE INDEX IF NOT EXISTS heartbeats_unsynced ON heartbeats(synced) WHERE synced = 0;
CREATE INDEX IF NOT EXISTS turn_ends_unsynced ON turn_ends(synced) WHERE synced = 0;
CREATE TABLE IF NOT EXISTS task_uids (
    uid TEXT PRIMARY KEY,
    task_id INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS task_tombstones (
    uid TEXT PRIMARY KEY,
    epoch REAL NOT NULL,
    synced INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS event_files (
    path TEXT PRIMARY KEY,
    offset INTEGER NOT NULL
);
CREATE TRIGGER IF NOT EXISTS tasks_uid_insert AFTER INSERT ON tasks
    WHEN NEW.uid IS NULL OR NEW.changed IS NULL
BEGIN
    UPDATE tasks SET uid = coalesce(uid, lower(hex(randomblob(16)))),
        changed = coalesce(changed, {_EPOCH_NOW}) WHERE id = NEW.id;
END;
CREATE TRIGGER IF NOT EXISTS tasks_changed AFTER UPDATE OF
    name, full_path, status, jira_key, parent_id, repo_id, fork_of ON tasks
    WHEN NEW.changed IS OLD.changed
BEGIN
    UPDATE tasks SET changed = max({_EPOCH_NOW}, coalesce(OLD.changed, 0) + 0.001)
        WHERE id = NEW.id;
END;
CREATE TRIGGER IF NOT EXISTS tasks_tombstone AFTER DELETE ON tasks
    WHEN OLD.uid IS NOT NULL
BEGIN
    INSERT OR REPLACE INTO task_tombstones(uid, epoch, synced)
        VALUES (OLD.uid, {_EPOCH_NOW}, 0);
END;
"""


def _migrate_v5(conn: sqlite3.Connection) -> None:
    for table, column, decl in _V5_COLUMNS:
        if column not in _columns(conn, table):
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")
    for statement in _split(_V5):
        conn.execute(statement)


# Version 6 records tokens (docs/cost.md): one row per assistant message (its key is the
# message id and its request, so a message written as several records counts once), with
# the turn (``prompt_id``) and the session it belongs to. ``task_id`` is filled from the
# session's heartbeats, whenever those arrive; an untracked session's rows keep NULL.
_V6 = """
CREATE TABLE IF NOT EXISTS usage (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    message_key TEXT NOT NULL,
    prompt_id TEXT,
    agent TEXT,
    epoch REAL NOT NULL,
    model TEXT,
    speed TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_5m_tokens INTEGER NOT NULL DEFAULT 0,
    cache_1h_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    task_id INTEGER REFERENCES tasks(id) ON DELETE CASCADE,
    UNIQUE(message_key, session_id)
);
CREATE INDEX IF NOT EXISTS usage_task_epoch ON usage(task_id, epoch);
CREATE INDEX IF NOT EXISTS usage_unassigned ON usage(session_id) WHERE task_id IS NULL;
CREATE TABLE IF NOT EXISTS waits (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    epoch REAL NOT NULL,
    seconds REAL NOT NULL,
    task_id INTEGER REFERENCES tasks(id) ON DELETE CASCADE,
    UNIQUE(session_id, epoch)
);
CREATE INDEX IF NOT EXISTS waits_task_epoch ON waits(task_id, epoch);
"""


def _migrate_v6(conn: sqlite3.Connection) -> None:
    for statement in _split(_V6):
        conn.execute(statement)


# Version 7 puts tokens and waits in the event logs too (docs/sync.md): a ``synced`` flag
# as heartbeats have (0: not in this machine's log yet), so cost merges across machines
# and ``doctor --rebuild`` keeps it. A row is exported once it has its task.
_V7 = """
CREATE INDEX IF NOT EXISTS usage_unsynced ON usage(synced) WHERE synced = 0;
CREATE INDEX IF NOT EXISTS waits_unsynced ON waits(synced) WHERE synced = 0;
"""


def _migrate_v7(conn: sqlite3.Connection) -> None:
    for table in ("usage", "waits"):
        if "synced" not in _columns(conn, table):
            conn.execute(f"ALTER TABLE {table} ADD COLUMN synced INTEGER NOT NULL DEFAULT 0")
    for statement in _split(_V7):
        conn.execute(statement)


# Version 8 finds a message's other copies (docs/cost.md: a forked session's transcript
# repeats its parent's messages, each priced once) through an index led by the message
# key. A table made since then has one: its uniqueness is (message_key, session_id), and
# a second index would cost tasks.db a tenth of its size (docs/history.md, Storage).
def _migrate_v8(conn: sqlite3.Connection) -> None:
    if not _unique_led_by(conn, "usage", "message_key"):
        conn.execute("CREATE INDEX IF NOT EXISTS usage_message_key ON usage(message_key)")


def _unique_led_by(conn: sqlite3.Connection, table: str, column: str) -> bool:
    """Whether a unique index of ``table`` has ``column`` first."""
    for row in conn.execute(f"PRAGMA index_list({table})").fetchall():
        if row[2]:  # unique
            info = conn.execute(f"PRAGMA index_info({row[1]!r})").fetchall()
            if info and info[0][2] == column:
                return True
    return False


# Version 9 says which machine a heartbeat came from (the dashboard's live sessions name
# another machine's session): NULL for this machine's own, else the name that machine
# gives itself in its event log (``machine``), or its id when it gives none.
def _migrate_v9(conn: sqlite3.Connection) -> None:
    if "machine" not in _columns(conn, "heartbeats"):
        conn.execute("ALTER TABLE heartbeats ADD COLUMN machine TEXT")


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _migrate_v1,
    _migrate_v2,
    _migrate_v3,
    _migrate_v4,
    _migrate_v5,
    _migrate_v6,
    _migrate_v7,
    _migrate_v8,
    _migrate_v9,
]
SCHEMA_VERSION = len(MIGRATIONS)


def _split(script: str) -> list[str]:
    """Statements of a script; a trigger body keeps its inner semicolons."""
    statements, current = [], []
    for line in script.strip().splitlines():
        current.append(line)
        text = "\n".join(current).strip()
        if text.endswith(";") and sqlite3.complete_statement(text):
            statements.append(text)
            current = []
    return statements


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def is_busy(error: BaseException) -> bool:
    """Whether an sqlite3 error means "another connection holds the lock"."""
    text = str(error).lower()
    return isinstance(error, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


class write_transaction:  # lowercase: used like the function it replaced
    """``with write_transaction(conn):`` runs ``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK``
    on any exception): the write lock is taken before anything is read, so what a writer
    decides from its reads is still true when it writes.

    A small class rather than ``contextlib.contextmanager``: importing contextlib costs
    time on every prompt's hook.
    """

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.conn.execute("ROLLBACK" if exc_type is not None else "COMMIT")


def connect(path: StrPath, busy_timeout: float) -> sqlite3.Connection:
    """Open tasks.db (WAL, foreign keys, ``busy_timeout`` seconds) with the schema current.

    The connection is in autocommit mode: every write goes through
    :func:`write_transaction`, never through sqlite3's implicit transactions.
    """
    path = os.fspath(path)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        _use_wal(conn, busy_timeout)
        conn.execute("PRAGMA synchronous = NORMAL")
        migrate(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _use_wal(conn: sqlite3.Connection, busy_timeout: float) -> None:
    """Switch the file to WAL, retrying "database is locked" until ``busy_timeout`` runs out.

    SQLite does not call its busy handler for every lock this switch needs: when two
    processes create a new tasks.db at once, the loser of the race can get SQLITE_BUSY at
    once (deadlock avoidance), whatever the timeout. CI caught it under load (1 run in
    ~150 with 12 processes); the retry makes the timeout mean what it says.
    """
    import time

    deadline = time.monotonic() + busy_timeout
    delay = 0.005
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() + delay > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def migrate(conn: sqlite3.Connection) -> int:
    """Apply the missing migrations; returns the resulting schema version."""
    if conn.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
        return SCHEMA_VERSION
    with write_transaction(conn):
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        for number in range(version, SCHEMA_VERSION):
            MIGRATIONS[number](conn)
            conn.execute(f"PRAGMA user_version = {number + 1}")
    return max(version, SCHEMA_VERSION)
