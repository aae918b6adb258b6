"""SQLite for the hooks without the ``sqlite3`` package's start-up cost.

WHY: ``import sqlite3`` runs ``sqlite3/dbapi2.py``, which imports ``datetime`` to register
adapters for date and time values: about 2.5 ms of a hook's ~25 ms, on every run that
opens a database. We never bind dates nor ask for converted column types, so the hooks use
the C driver ``_sqlite3`` that the package wraps. The package re-exports it (``from
_sqlite3 import *``), so ``connect``, ``Connection`` and the error classes are the very
same objects either way: code and tests that import ``sqlite3`` interoperate. Where there
is no ``_sqlite3`` (another Python implementation), this is the package itself.

WHY the stand-in ``functools``: from Python 3.11 the driver takes ``functools.lru_cache``
when it is imported, for each connection's cache of prepared statements, and nothing else
of ``functools``. Importing ``functools`` (with ``collections``, which it imports) costs
about half of what the interpreter's own start does (callgrind: +11 M instructions on a
21 M floor), on every hook that opens a database. So while the driver loads, and only when
no real ``functools`` is loaded yet, ``sys.modules`` holds a module whose ``lru_cache`` is
the small bounded cache below; the stand-in is removed right after.

Use: ``from missioncache_state.sqlite import sqlite3``.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable


def _statement_cache(maxsize: int) -> Callable[[Callable[[str], object]], Callable[[str], object]]:
    """``lru_cache(maxsize)`` as the driver calls it: ``(maxsize)(connection)(sql)``. It
    keeps the ``maxsize`` newest statements (first in, first out), which is all a cache of
    prepared statements needs; ``maxsize`` 0 caches nothing, as ``cached_statements=0``
    asks."""

    def wrap(prepare: Callable[[str], object]) -> Callable[[str], object]:
        if maxsize <= 0:
            return prepare
        kept: dict[str, object] = {}

        def cached(sql: str) -> object:
            statement = kept.get(sql)
            if statement is None:
                if len(kept) >= maxsize:
                    del kept[next(iter(kept))]
                statement = kept[sql] = prepare(sql)
            return statement

        return cached

    return wrap


def _load_driver() -> object:
    """``_sqlite3``, loaded beside a stand-in ``functools`` when the real one is not
    loaded yet (see the module's docstring); the ``sqlite3`` package where there is no
    driver module."""
    if "functools" in sys.modules:
        import _sqlite3

        return _sqlite3
    stand_in = type(sys)("functools")
    stand_in.lru_cache = _statement_cache  # type: ignore[attr-defined]
    sys.modules["functools"] = stand_in
    try:
        import _sqlite3

        return _sqlite3
    finally:
        if sys.modules.get("functools") is stand_in:
            del sys.modules["functools"]


if not TYPE_CHECKING:
    try:
        sqlite3 = _load_driver()
    except ImportError:  # pragma: no cover - CPython always has it
        import sqlite3

__all__ = ["sqlite3"]
