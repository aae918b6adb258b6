"""Telling a broken tasks.db from a busy one, and saying what is wrong in plain words.

A busy database (another writer holds the lock) heals itself and must stay quiet: the
heartbeat waits in the spool. A broken one (overwritten, damaged, unreadable, a directory
where the file should be) does not: without a word, the status line, reminders and
snapshots just vanish. So the SessionStart hook tells the human once per session, with
the command that diagnoses it (``doctor``), and heartbeats wait in the spool meanwhile.
"""

from __future__ import annotations

from missioncache_db._schema import is_busy
from missioncache_state import lean_os as os
from missioncache_state.locations import tasks_db_path
from missioncache_state.sqlite import sqlite3

# (a fragment of SQLite's message, lowercase; what it means for the user)
_REASONS = (
    ("not a database", "it is not a SQLite database (overwritten or corrupt)"),
    ("malformed", "it is damaged (SQLite: database disk image is malformed)"),
    ("unable to open", "it cannot be opened (missing permission, or not a regular file)"),
    ("readonly", "it is read-only, so nothing can be recorded"),
    ("read-only", "it is read-only, so nothing can be recorded"),
    ("disk i/o", "the disk reported an I/O error while reading it"),
    ("full", "the disk is full"),
)


def is_broken(error: BaseException) -> bool:
    """Whether ``error`` means tasks.db cannot be used until someone fixes it (a lock
    held by another writer is not broken: it passes)."""
    return isinstance(error, sqlite3.DatabaseError) and not is_busy(error)


def plain_reason(error: BaseException) -> str:
    """What is wrong with the database, in words a user can act on."""
    text = str(error).lower()
    for fragment, reason in _REASONS:
        if fragment in text:
            return reason
    return f"SQLite reports: {' '.join(str(error).split())[:200]}"


def not_a_file_reason() -> str | None:
    """Why tasks.db cannot be opened when something that is not a regular file (a
    directory, a FIFO, a dangling link) sits at its path; None when it is a file or
    absent (absent means MissionCache is simply not set up)."""
    path = tasks_db_path()
    if os.path.isfile(path) or not os.path.lexists(path):
        return None
    return "it is not a regular file (a directory, a device or a broken link is in its place)"
