"""Fixtures: an isolated MissionCache world, and a real stdio MCP connection to the server.

Every server test talks to ``python -m missioncache_pm`` through the SDK's own client over
stdio, the way Claude Code does; the files and tasks.db it changes are real, under tmp.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

SID = "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"
TOOL_PREFIX = "mcp__plugin_missioncache_pm__"


@dataclass
class Reply:
    """One tool call's outcome as Claude would see it."""

    is_error: bool
    text: str


@dataclass
class World:
    """A temporary HOME, data root and Claude dir; ``env`` is what the server process gets."""

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

    def call(
        self, tool: str, arguments: dict | None = None, meta: dict | None = None, **env: str
    ) -> Reply:
        """One tool call on a fresh server (``meta`` is sent as the request's ``_meta``)."""
        return self.calls([(tool, arguments or {}, meta)], **env)[0]

    def calls(self, requests: Sequence[tuple[str, dict]], **env: str) -> list[Reply]:
        """Several tool calls, in order, on one server; ``env`` overrides its environment
        (a value of "" removes the variable)."""
        environ = {**self.env, **env}
        environ = {k: v for k, v in environ.items() if v != ""}
        return asyncio.run(_session(environ, str(self.repo), requests))

    def concurrently(self, *scripts: Sequence[tuple[str, dict]]) -> list[list[Reply]]:
        """Each script on its own server process, all at once (as parallel sessions)."""

        async def run_all() -> list[list[Reply]]:
            sessions = [_session(self.env, str(self.repo), script) for script in scripts]
            return list(await asyncio.gather(*sessions))

        return asyncio.run(run_all())

    def list_tools(self) -> list[Any]:
        return asyncio.run(_list_tools(self.env, str(self.repo)))


def server_params(env: dict[str, str], cwd: str) -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(
        command=sys.executable, args=["-m", "missioncache_pm"], env=env, cwd=cwd
    )


async def _session(env: dict[str, str], cwd: str, requests: Sequence[tuple]):
    from mcp import Client

    replies = []
    async with Client(server_params(env, cwd), read_timeout_seconds=60) as client:
        for tool, arguments, *meta in requests:
            result = await client.call_tool(tool, arguments, meta=meta[0] if meta else None)
            text = "\n".join(getattr(block, "text", "") for block in result.content)
            replies.append(Reply(bool(result.is_error), text))
    return replies


async def _list_tools(env: dict[str, str], cwd: str) -> list[Any]:
    from mcp import Client

    async with Client(server_params(env, cwd), read_timeout_seconds=60) as client:
        return list((await client.list_tools()).tools)


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
