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
