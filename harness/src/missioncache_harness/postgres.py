"""A real, throwaway PostgreSQL server for the team tests (docs/team.md).

WHY a real server: the team's guarantees (row-level security, roles, ``ON CONFLICT``, a
server that goes away mid-push) are the server's, not our client's; only a real one shows
them. Debian's ``postgresql`` (what ``.ci/run`` installs) brings ``initdb``/``pg_ctl`` under
``/usr/lib/postgresql/<version>/bin``; ``$MISSIONCACHE_PG_BIN`` names another folder.

``initdb`` refuses to run as root, so as root the cluster is made and run by the
``postgres`` system user (``runuser``), in a folder it owns under the temporary directory;
its socket goes to that folder too and it listens on 127.0.0.1 only, on a free port.
Authentication is ``trust`` (loopback, throwaway): a role is whoever the client says it is,
which is exactly what the tests of row-level security need, since they connect as each
member.

- ``find_pg_bin()``: the folder with ``initdb`` and ``pg_ctl``, or None.
- ``Cluster``: ``start``/``stop``/``kill``/``restart``, ``url(user)``, ``psql_env``,
  ``dump()`` (``pg_dump`` of the whole database as text), ``psql(sql, user)`` and
  ``psql_argv(user)`` (a session kept open).
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

PG_BIN_VARIABLE = "MISSIONCACHE_PG_BIN"
OWNER = "mc_owner"
DATABASE = "team"


def find_pg_bin() -> str | None:
    """``$MISSIONCACHE_PG_BIN``, else the newest ``/usr/lib/postgresql/*/bin``, else the
    folder of an ``initdb`` on PATH."""
    explicit = os.environ.get(PG_BIN_VARIABLE)
    candidates = [explicit] if explicit else []
    candidates += sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0,
        reverse=True,
    )
    found = shutil.which("initdb")
    if found:
        candidates.append(str(Path(found).parent))
    for folder in candidates:
        if all(os.access(os.path.join(folder, t), os.X_OK) for t in ("initdb", "pg_ctl")):
            return folder
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Cluster:
    """One throwaway cluster: an owner role ``mc_owner`` and a database ``team`` it owns."""

    def __init__(self, bin_dir: str, root: Path | None = None):
        self.bin_dir = bin_dir
        self.as_root = os.geteuid() == 0 if hasattr(os, "geteuid") else False
        self.root = Path(root or tempfile.mkdtemp(prefix="mc-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = free_port()
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
            self.root.chmod(0o755)

    def _run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        command = [os.path.join(self.bin_dir, argv[0]), *argv[1:]]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        if check and done.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
        return done

    def init(self) -> Cluster:
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", OWNER, "-E", "UTF8")
        self.start()
        self._run(
            "createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", OWNER, "-O", OWNER, DATABASE
        )
        return self

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop", check=False)

    def kill(self) -> None:
        """The server gone at once, as a crash or a pulled cable looks to a client."""
        pid_file = self.data / "postmaster.pid"
        try:
            pid = int(pid_file.read_text().splitlines()[0])
        except (OSError, ValueError, IndexError):
            return
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except OSError:
                break
            time.sleep(0.05)
        pid_file.unlink(missing_ok=True)

    def running(self) -> bool:
        return self._run("pg_ctl", "-D", str(self.data), "status", check=False).returncode == 0

    def url(self, user: str = OWNER) -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{DATABASE}?connect_timeout=3"

    def dump(self) -> str:
        """``pg_dump`` of the database, schema and data, as text."""
        return self._run(
            "pg_dump", "-h", "127.0.0.1", "-p", str(self.port), "-U", OWNER, DATABASE
        ).stdout

    def psql_argv(self, user: str = OWNER) -> list[str]:
        """The ``psql`` command line for ``user``, for a session a test keeps open (one
        holding a lock); add ``-c SQL``."""
        command = [os.path.join(self.bin_dir, "psql"), "-X", "-q", "-h", "127.0.0.1",
                   "-p", str(self.port), "-U", user, "-d", DATABASE]  # fmt: skip
        return ["runuser", "-u", "postgres", "--", *command] if self.as_root else command

    def psql(self, sql: str, user: str = OWNER) -> subprocess.CompletedProcess:
        """``psql -c sql`` as ``user`` (not checked: a refusal is a result)."""
        return self._run(
            "psql", "-X", "-q", "-A", "-t", "-h", "127.0.0.1", "-p", str(self.port), "-U", user,
            "-d", DATABASE, "-v", "ON_ERROR_STOP=1", "-c", sql, check=False,
        )  # fmt: skip

    def destroy(self) -> None:
        if self.data.is_dir():
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
