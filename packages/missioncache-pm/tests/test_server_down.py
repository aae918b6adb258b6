"""Issue 26 item 1: a ``pm`` server that is not answering is noticed, told once, and the
commands still save.

The launcher and the server keep ``<state>/pm-server/<claude pid>.json``
(``missioncache_state.pm_health``); here the test process plays Claude Code: it starts
plugin.json's command itself, so it is the launcher's parent.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

SERVER_START = 300.0  # a cold uv cache downloads mcp and its dependencies


def launch(plugin: Path, env: dict, path: str | None = None) -> subprocess.Popen:
    """plugin.json's pm command, run the way Claude Code runs it (stdio pipes)."""
    server = json.loads((plugin / ".claude-plugin" / "plugin.json").read_text())["mcpServers"]
    environ = dict(os.environ, **env, MISSIONCACHE_PLUGIN_ROOT=str(plugin))
    if path:
        environ["PATH"] = path
    return subprocess.Popen(
        [server["pm"]["command"], *server["pm"]["args"]],
        env=environ,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def stop(proc: subprocess.Popen) -> None:
    proc.kill()
    proc.wait()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        pipe.close()


def record(world) -> dict | None:
    from missioncache_state.pm_health import read_record

    return read_record(os.getpid())


def wait_for(world, state: str, timeout: float = SERVER_START) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = record(world)
        if found and found.get("state") == state:
            return found
        time.sleep(0.1)
    raise AssertionError(f"no {state!r} record; last: {record(world)}")


def health():
    from missioncache_state.pm_health import health

    return health(os.getpid())


def need_uvx() -> None:
    if shutil.which("uvx") is None:
        if os.environ.get("CI"):
            pytest.fail("uvx is missing: .ci/run installs uv")
        pytest.skip("uvx is not installed")


def test_a_killed_server_reads_as_stopped(world, mc_plugin):
    need_uvx()
    proc = launch(mc_plugin, world.env)
    try:
        ready = wait_for(world, "ready")
        assert ready["launcher_pid"] == proc.pid  # the launcher exec'd uvx: one pid
        assert health().state == "up"
        os.kill(ready["server_pid"], signal.SIGKILL)
        proc.wait(timeout=30)
        found = health()
        assert found.down and found.reason == "stopped"
    finally:
        stop(proc)


def test_a_server_whose_pipes_close_says_stopped(world, mc_plugin):
    need_uvx()
    proc = launch(mc_plugin, world.env)
    try:
        wait_for(world, "ready")
        proc.stdin.close()  # what Claude Code does when it drops the server
        proc.wait(timeout=60)
        assert record(world)["state"] == "stopped"
        assert health().down
    finally:
        stop(proc)


def test_a_server_that_cannot_be_fetched_reads_as_failed_to_start(world, mc_plugin, tmp_path):
    """The trial's case: uvx is there, but the SDK cannot be fetched."""
    fake = tmp_path / "bin" / "uvx"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'error: Failed to fetch: mcp' >&2\nexit 1\n")
    fake.chmod(0o755)
    proc = launch(mc_plugin, world.env, path=f"{fake.parent}:/usr/bin:/bin")
    assert proc.wait(timeout=60) == 1
    stop(proc)
    found = health()
    assert found.down and found.reason == "failed to start"
