"""missioncache_state.sqlite: the C driver, interchangeable with the sqlite3 package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def test_same_connection_and_error_classes_as_the_package():
    import sqlite3 as package

    from missioncache_state.sqlite import sqlite3

    assert sqlite3.connect is package.connect
    assert sqlite3.Connection is package.Connection
    for name in ("Error", "DatabaseError", "OperationalError", "IntegrityError"):
        assert getattr(sqlite3, name) is getattr(package, name)
    conn = sqlite3.connect(":memory:", timeout=1.0, isolation_level=None)
    try:
        conn.execute("CREATE TABLE t(x)")
        conn.execute("INSERT INTO t VALUES (?)", (1.5,))
        assert conn.execute("SELECT x FROM t").fetchall() == [(1.5,)]
    finally:
        conn.close()


def test_opening_a_database_imports_neither_datetime_nor_the_package(tmp_path):
    code = (
        "import sys\n"
        "from missioncache_state.sqlite import sqlite3\n"
        f"sqlite3.connect({str(tmp_path / 'x.db')!r}).execute('SELECT 1').fetchall()\n"
        "print(sorted({'datetime', 'sqlite3', 'sqlite3.dbapi2'} & set(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code],
        env={"PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_opening_a_database_imports_neither_functools_nor_collections(tmp_path):
    """From Python 3.11 the driver asks for ``functools.lru_cache`` at import; the hooks
    give it a small cache instead of ~11 M instructions of imports on every prompt."""
    code = (
        "import sys\n"
        "from missioncache_state.sqlite import sqlite3\n"
        f"sqlite3.connect({str(tmp_path / 'x.db')!r}).execute('SELECT 1').fetchall()\n"
        "print(sorted({'functools', 'collections'} & set(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code],
        env={"PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_statement_cache_keeps_every_query_right_past_its_size(tmp_path):
    """More distinct statements than the cache holds, the same one on two live cursors,
    and a connection that caches none: every query still gets its own rows."""
    code = (
        "from missioncache_state.sqlite import sqlite3\n"
        "conn = sqlite3.connect(':memory:', cached_statements=4)\n"
        "conn.execute('CREATE TABLE t(x)')\n"
        "for i in range(50):\n"
        "    conn.execute(f'INSERT INTO t VALUES ({i})')\n"
        "    conn.execute('INSERT INTO t VALUES (?)', (-i,))\n"
        "a = conn.execute('SELECT x FROM t ORDER BY x')\n"
        "first = a.fetchone()\n"
        "b = conn.execute('SELECT x FROM t ORDER BY x')\n"
        "print(first, len(b.fetchall()), len(a.fetchall()))\n"
        "none = sqlite3.connect(':memory:', cached_statements=0)\n"
        "print(none.execute('SELECT 7').fetchall(), none.execute('SELECT 7').fetchall())\n"
        "import sys; print('functools' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", code],
        env={"PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["(-49,) 100 99", "[(7,)] [(7,)]", "False"]
