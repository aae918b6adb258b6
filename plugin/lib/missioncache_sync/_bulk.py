"""What an import of another machine's events runs with (``_event_merge``): ids parsed
once per import, and the settings a bulk of inserts needs, restored after."""

from __future__ import annotations

from missioncache_state.sqlite import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class Parsed(dict):
    """``parse(text)`` remembered for one import: a session's id comes on every event of
    the session and a prompt's on its heartbeat, turn end and every message, so each is
    checked once. What is not text is parsed each time (and never kept as a key)."""

    def __init__(self, parse: Callable[[Any], Any]):
        super().__init__()
        self.parse = parse

    def __missing__(self, text: str) -> Any:
        found = self[text] = self.parse(text)
        return found

    def __call__(self, value: Any) -> Any:
        return self[value] if type(value) is str else self.parse(value)


class Bulk:
    """What an import runs under, restored after: a page cache that holds the indexes it
    inserts into (with SQLite's default 2 MB, the first import of years of events spills
    its transaction to the WAL page by page and reads the pages back), and no cyclic
    garbage collection while it makes one dict per event (none of them cyclic), which
    would otherwise walk them all again and again."""

    CACHE_KIB = 64 * 1024  # at most; only the pages an import touches are ever held

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.cache = -2000
        self.collecting = False

    def __enter__(self) -> None:
        import gc

        self.cache = int(self.conn.execute("PRAGMA cache_size").fetchone()[0])
        self.conn.execute(f"PRAGMA cache_size = {-self.CACHE_KIB}")
        self.collecting = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        import gc

        if self.collecting:
            gc.enable()
        self.conn.execute(f"PRAGMA cache_size = {self.cache}")
