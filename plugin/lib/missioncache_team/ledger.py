"""What the team's server has, as this laptop knows it: ``<data root>/team/sent.sqlite``.

- ``sent``: the id of every event the server stored, per kind (a point lookup per event
  read, never the whole list, except for the few task events and a full re-read);
- ``marks``: per kind, how far tasks.db's table has been read (its rowid) and the key of
  the row there. WHY a rowid and not a time: a sync import adds another machine's old
  turns with old epochs but new rowids, so "rows after the mark" still holds them. The
  key guards the mark: when the row under it is gone or another (tasks.db rebuilt from
  the sync logs, the newest rows deleted and their rowids reused), the kind is read whole
  once more, and the ``sent`` ids keep that from sending anything twice;
- ``unready``: rows already passed by the mark that could not leave yet (a message or a
  wait whose task is not known yet, a turn start without its task), read again by rowid
  at each push until they can, or until they are ``UNREADY_DAYS`` old.

A push stages what it read (``stage``); only after the server committed does ``add``
record the ids and move the marks of the kinds it sent.
"""

from __future__ import annotations

from missioncache_state import lean_os as os
from missioncache_team import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

UNREADY_DAYS = 7


class Progress:
    """How far one kind was read by this push: the new mark, its key, the rows passed by
    it that could not leave yet (rowid, epoch), and the earlier such rows now settled."""

    __slots__ = ("key", "mark", "settled", "unready")

    def __init__(self, mark: int, key: str | None) -> None:
        self.mark, self.key = mark, key
        self.unready: list[tuple[int, float]] = []
        self.settled: list[int] = []


class Sent:
    """The ids the server has stored, and how far each kind of tasks.db was read."""

    def __init__(self, path: str | None = None):
        from missioncache_state.sqlite import sqlite3

        self.path = path or paths.sent_path()
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.conn = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        self.conn.executescript(
            "CREATE TABLE IF NOT EXISTS sent (kind TEXT NOT NULL, id TEXT NOT NULL,"
            " PRIMARY KEY (kind, id)) WITHOUT ROWID;"
            "CREATE TABLE IF NOT EXISTS marks (kind TEXT PRIMARY KEY, mark INTEGER NOT NULL,"
            " key TEXT);"
            "CREATE TABLE IF NOT EXISTS unready (kind TEXT NOT NULL, row INTEGER NOT NULL,"
            " epoch REAL NOT NULL, PRIMARY KEY (kind, row)) WITHOUT ROWID;"
        )
        self.staged: dict[str, Progress] = {}

    def has(self, kind: str, event_id: str) -> bool:
        found = self.conn.execute("SELECT 1 FROM sent WHERE kind = ? AND id = ?", (kind, event_id))
        return found.fetchone() is not None

    def mark(self, kind: str) -> tuple[int, str | None]:
        row = self.conn.execute("SELECT mark, key FROM marks WHERE kind = ?", (kind,)).fetchone()
        return (int(row[0]), row[1]) if row else (0, None)

    def unready(self, kind: str) -> list[tuple[int, float]]:
        return self.conn.execute(
            "SELECT row, epoch FROM unready WHERE kind = ? ORDER BY row", (kind,)
        ).fetchall()

    def stage(self, kind: str, progress: Progress) -> None:
        self.staged[kind] = progress

    def add(self, batch: dict[str, list]) -> None:
        """Record ``batch`` as stored, and move the marks of its kinds (one transaction)."""
        from missioncache_db import write_transaction

        rows = [(kind, event["id"]) for kind, events in batch.items() for event in events]
        with write_transaction(self.conn):
            self.conn.executemany("INSERT OR IGNORE INTO sent(kind, id) VALUES (?, ?)", rows)
            for kind in batch:
                progress = self.staged.pop(kind, None)
                if progress is not None:
                    self._advance(kind, progress)

    def _advance(self, kind: str, progress: Progress) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO marks(kind, mark, key) VALUES (?, ?, ?)",
            (kind, progress.mark, progress.key),
        )
        self.conn.executemany(
            "DELETE FROM unready WHERE kind = ? AND row = ?",
            [(kind, row) for row in progress.settled],
        )
        self.conn.executemany(
            "INSERT OR IGNORE INTO unready(kind, row, epoch) VALUES (?, ?, ?)",
            [(kind, row, epoch) for row, epoch in progress.unready],
        )

    def forget(self) -> None:
        """Send everything again (the server was replaced); the ids make it harmless."""
        self.conn.executescript("DELETE FROM sent; DELETE FROM marks; DELETE FROM unready;")

    def close(self) -> None:
        self.conn.close()


def expired(epoch: float | None, now: float) -> bool:
    """Whether a row that could not leave has waited long enough to be let go."""
    return epoch is None or epoch < now - UNREADY_DAYS * 86400


def chunks(items: list[Any], size: int = 400) -> list[list[Any]]:
    """SQLite's bound on variables per statement (999 before 3.32) kept well clear of."""
    return [items[i : i + size] for i in range(0, len(items), size)]
