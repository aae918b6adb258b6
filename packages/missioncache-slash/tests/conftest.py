"""Fixtures: an isolated MissionCache world in which the slash commands run as processes.

The same world the ``pm`` server's tests use (packages/missioncache-pm/tests/conftest.py),
without the MCP client: the commands are run the way a ``!`` line runs them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

SID = "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"


@dataclass
class World:
    """A temporary HOME, data root and Claude dir; ``env`` is what the commands get."""

    home: Path
    root: Path
    claude: Path
    repo: Path
    env: dict[str, str]
    sid: str = SID

    def task(self, name: str, repo: Path | None = None, jira: str | None = None) -> Any:
        """Create a task through the real database (this process shares the env)."""
        from missioncache_db import TaskDB

        with TaskDB() as db:
            return db.create_task(name, repo=repo, jira_key=jira)

    def write(self, path: Path, text: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
        return path

    def binding(self, sid: str = SID) -> dict | None:
        from missioncache_state.bindings import read_session_binding

        return read_session_binding(sid)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    home = tmp_path / "home"
    root = home / ".missioncache"
    claude = home / ".claude"
    repo = tmp_path / "work" / "repo"
    for path in (root, claude, repo):
        path.mkdir(parents=True)
    for name in list(os.environ):
        if name.startswith(("CLAUDE", "MISSIONCACHE", "ANTHROPIC")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MISSIONCACHE_ROOT", str(root))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    env = dict(os.environ, CLAUDE_CODE_SESSION_ID=SID)
    return World(home=home, root=root, claude=claude, repo=repo.resolve(), env=env)
