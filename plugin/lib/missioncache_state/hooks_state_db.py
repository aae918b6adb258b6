"""``<claude>/hooks-state.db``: small shared SQLite store the statusline reads.

Every writer creates the schema if it is missing (data model section 6), so whichever
hook runs first on a new machine sets it up.
"""

from __future__ import annotations

import errno
import time

from missioncache_state import lean_os as os
from missioncache_state.locations import hooks_state_db_path
from missioncache_state.sqlite import sqlite3

SCHEMA = """
CREATE TABLE IF NOT EXISTS term_sessions (
    term_session_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
"""


SIDECARS = ("", "-journal", "-wal", "-shm")


def _refuse_links(path: str) -> None:
    """SQLite follows a symlink at the database (or at a journal it creates beside it)
    and would write our rows into whatever file it points at: refuse instead. The row is
    a convenience; the plain-text term-session file is written either way."""
    for suffix in SIDECARS:
        candidate = f"{path}{suffix}"
        if os.path.islink(candidate):
            raise OSError(errno.ELOOP, "refusing a symlinked hooks-state.db", candidate)


def connect(timeout: float = 1.0) -> sqlite3.Connection:
    """Open hooks-state.db with the schema ensured and a short busy timeout; OSError when
    the database or one of its journals is a symlink."""
    path = hooks_state_db_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    _refuse_links(path)
    conn = sqlite3.connect(path, timeout=timeout)
    conn.executescript(SCHEMA)
    return conn


def record_term_session(term_session_id: str, session_id: str, timeout: float = 1.0) -> None:
    conn = connect(timeout)
    try:
        with conn:
            conn.execute(
                "INSERT INTO term_sessions(term_session_id, session_id, updated_at) "
                "VALUES (?, ?, ?) ON CONFLICT(term_session_id) DO UPDATE SET "
                "session_id = excluded.session_id, updated_at = excluded.updated_at",
                (term_session_id, session_id, time.strftime("%Y-%m-%d %H:%M:%S")),
            )
    finally:
        conn.close()


def lookup_term_session(term_session_id: str) -> str | None:
    """The session last recorded for a terminal id: the status line's way from the terminal
    tab it runs in to the Claude session (``terminal.lookup_terminal_session``)."""
    conn = connect()
    try:
        row = conn.execute(
            "SELECT session_id FROM term_sessions WHERE term_session_id = ?", (term_session_id,)
        ).fetchone()
    finally:
        conn.close()
    return row[0] if row else None
