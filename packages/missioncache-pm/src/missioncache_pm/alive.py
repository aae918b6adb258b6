"""The server's "I am answering" record (``missioncache_state.pm_health``).

Written at start, then every ``BEAT_SECONDS`` by a task on the server's own event loop
(a loop that hangs stops beating, which a thread would not), and marked ``stopped`` when
the server ends. The record belongs to the Claude Code process the launcher named in
``MISSIONCACHE_PM_CLAUDE_PID``; a server started by hand (no such variable) keeps none.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any


def claude_pid_from(env: Mapping[str, str]) -> int | None:
    value = env.get("MISSIONCACHE_PM_CLAUDE_PID", "")
    return int(value) if value.isdigit() and int(value) > 1 else None


def _write(claude: int, state: str, started: float) -> None:
    from missioncache_state.pm_health import read_record, write_record

    try:
        before = read_record(claude) or {}
        record = {
            "state": state,
            "claude_pid": claude,
            "launcher_pid": before.get("launcher_pid", os.getppid()),
            "server_pid": os.getpid(),
            "started": before.get("started", started),
            "beat": time.time(),
        }
        write_record(claude, record)
    except OSError:
        pass  # a read-only Claude dir: the server works, only the record is missing


@asynccontextmanager
async def beating(_app: Any = None) -> AsyncIterator[dict[str, Any]]:
    """Lifespan of the MCP server: beat while it serves, say ``stopped`` at the end."""
    import anyio

    from missioncache_state.pm_health import BEAT_SECONDS

    claude = claude_pid_from(os.environ)
    if claude is None:
        yield {}
        return
    started = time.time()
    _write(claude, "ready", started)

    async def beat() -> None:
        while True:
            await anyio.sleep(BEAT_SECONDS)
            _write(claude, "ready", started)

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(beat)
            try:
                yield {}
            finally:
                group.cancel_scope.cancel()
    finally:
        _write(claude, "stopped", started)
