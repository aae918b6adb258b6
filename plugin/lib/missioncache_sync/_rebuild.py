"""``missioncache doctor --rebuild``: a new tasks.db from every machine's event log.

tasks.db is a cache of the logs (``missioncache_sync._event_log``), so a damaged, lost or
doubtful database is rebuilt rather than repaired. What the old one knew and the logs do
not yet is exported first (when it can be opened); its task ids and settings are kept, so
session bindings stay true. The new database is built beside it and swapped in at the
end; the old one is kept as ``tasks.db.before-rebuild`` (with its WAL files), never deleted.
"""

from __future__ import annotations

import os

from missioncache_db import write_transaction
from missioncache_state.locations import tasks_db_path
from missioncache_state.sqlite import sqlite3
from missioncache_sync._event_log import export_events
from missioncache_sync._event_merge import import_events

BACKUP_SUFFIX = ".before-rebuild"
_SIDECARS = ("", "-wal", "-shm")


class RebuildError(Exception):
    """The rebuild stopped before it changed anything (the old database's rows could not
    be written to the log: the new one would lack them)."""


class Rebuilt:
    """What a rebuild did: tasks and events in the new database, events exported first,
    and what the import has to tell (lines skipped, deletes kept back)."""

    def __init__(self, tasks: int, imported: int, exported: int, backup: str | None):
        self.tasks, self.imported, self.exported, self.backup = tasks, imported, exported, backup
        self.report: list[str] = []


def _salvage(path: str) -> tuple[int, dict, list]:
    """Export what the old database holds, and read its task ids and config; nothing when
    it cannot be opened (then the logs are all there is)."""
    if not os.path.isfile(path):
        return 0, {}, []
    try:
        from missioncache_db import TaskDB
        from missioncache_time import process_pending

        with TaskDB(path, busy_timeout=10.0) as db:
            process_pending(db)
            try:
                exported = export_events(db.conn)
            except OSError as error:
                raise RebuildError(
                    f"the event log could not be written ({error}), so tasks.db was left as it"
                    " is; free some disk space, then run `missioncache doctor --rebuild` again"
                ) from error
            ids = dict(db.conn.execute("SELECT uid, id FROM tasks"))
            config = db.conn.execute("SELECT key, value FROM config").fetchall()
            return exported, ids, config
    except sqlite3.OperationalError as error:
        if "full" in str(error) or "disk i/o" in str(error).lower():
            raise RebuildError(  # a full disk, not a damaged file: its rows would be lost
                f"tasks.db could not be written ({error}), so it was left as it is; free some"
                " disk space, then run `missioncache doctor --rebuild` again"
            ) from error
        return 0, {}, []
    except (sqlite3.Error, OSError):
        return 0, {}, []


def rebuild(busy_timeout: float = 10.0) -> Rebuilt:
    """Rebuild tasks.db from the logs of every machine (this one's included)."""
    path = tasks_db_path()
    exported, ids, config = _salvage(path)
    fresh = path + ".rebuild"
    for suffix in _SIDECARS:
        _remove(fresh + suffix)
    from missioncache_db import TaskDB
    from missioncache_time import process_pending

    db = TaskDB(fresh, busy_timeout)  # its spool: <fresh>.spool, empty
    conn = db.conn
    try:
        with write_transaction(conn):
            conn.executemany("INSERT OR REPLACE INTO config(key, value) VALUES (?, ?)", config)
        report: list[str] = []
        imported = import_events(conn, include_own=True, keep_ids=ids, report=report)
        process_pending(db)
        from missioncache_cost import day_pricing
        from missioncache_time import rebuild_days

        rebuild_days(
            conn, day_pricing()
        )  # the day summaries, exactly from the events just imported
        tasks = int(conn.execute("SELECT COUNT(*) FROM tasks").fetchone()[0])
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    backup = None
    if os.path.lexists(path):
        backup = path + BACKUP_SUFFIX
        for suffix in _SIDECARS:
            if os.path.lexists(path + suffix):
                os.replace(path + suffix, backup + suffix)
    os.replace(fresh, path)
    for suffix in _SIDECARS[1:]:
        _remove(fresh + suffix)
    _drop_wrong_bindings()
    done = Rebuilt(tasks, imported, exported, backup)
    done.report = report
    return done


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _drop_wrong_bindings() -> None:
    """A binding whose task id now names another task (ids could not be kept) goes; the
    next SessionStart binds the session again."""
    from missioncache_db import TaskDB
    from missioncache_state.bindings import delete_session_binding, read_session_binding
    from missioncache_state.ids import session_id_or_none
    from missioncache_state.locations import projects_dir

    try:
        names = os.listdir(projects_dir())
    except OSError:
        return
    with TaskDB() as db:
        for name in names:
            sid = session_id_or_none(name[: -len(".json")]) if name.endswith(".json") else None
            binding = read_session_binding(sid) if sid else None
            if binding is None or binding.get("taskId") is None:
                continue
            task = db.get_task(binding["taskId"])
            if task is None or task.full_path != binding.get("fullPath", task.full_path):
                delete_session_binding(sid)
