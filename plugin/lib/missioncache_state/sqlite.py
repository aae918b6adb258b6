"""SQLite for the hooks without the ``sqlite3`` package's start-up cost.

WHY: ``import sqlite3`` runs ``sqlite3/dbapi2.py``, which imports ``datetime`` to register
adapters for date and time values: about 2.5 ms of a hook's ~25 ms, on every run that
opens a database. We never bind dates nor ask for converted column types, so the hooks use
the C driver ``_sqlite3`` that the package wraps. The package re-exports it (``from
_sqlite3 import *``), so ``connect``, ``Connection`` and the error classes are the very
same objects either way: code and tests that import ``sqlite3`` interoperate. Where there
is no ``_sqlite3`` (another Python implementation), this is the package itself.

Use: ``from missioncache_state.sqlite import sqlite3``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
else:
    try:
        import _sqlite3 as sqlite3
    except ImportError:  # pragma: no cover - CPython always has it
        import sqlite3

__all__ = ["sqlite3"]
