"""Fixtures for testing a hook script as Claude Code runs it: a real process of the BUILT
plugin, JSON on stdin, in an isolated HOME (``mc_env``, ``mc_plugin``, ``mc_task``).

A hook package's ``tests/conftest.py`` names its script by overriding ``mc_hook_script``;
``hook(payload)`` then runs it and asserts the hook boundary held (exit 0, no traceback).
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
from types import SimpleNamespace

import pytest

from missioncache_harness.workspace import python3


@pytest.fixture
def mc_hook_script() -> str:
    """The hook script ``mc_hook(...)`` runs; each hook package's conftest overrides it."""
    pytest.fail("override the `mc_hook_script` fixture in the hook package's conftest.py")


class Done:
    """A finished hook run: exit status, raw stdout/stderr, stdout parsed as JSON."""

    def __init__(self, proc: subprocess.CompletedProcess):
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    @property
    def json(self) -> dict:
        value = json.loads(self.stdout)
        assert isinstance(value, dict)
        return value

    def silent(self) -> bool:
        return self.rc == 0 and self.stdout == ""


@pytest.fixture
def mc_hook(mc_plugin, mc_env, mc_repo, mc_hook_script):
    """``mc_hook(payload)`` runs the script; payload may be a dict (sent as JSON) or bytes.

    Unless given, ``cwd`` in the payload and the process cwd are the tracked repo."""

    def run(payload=None, *, cwd=None, env=None, script=None, timeout=60) -> Done:
        workdir = str(cwd or mc_repo)
        if isinstance(payload, dict):
            payload = {"cwd": workdir, **payload}
            raw = json.dumps(payload).encode()
        else:
            raw = payload if payload is not None else b""
        proc = subprocess.run(
            [python3(), str(mc_plugin / "hooks" / (script or mc_hook_script))],
            input=raw,
            cwd=workdir,
            env={**mc_env.env, **(env or {})},
            capture_output=True,
            timeout=timeout,
        )
        done = Done(
            subprocess.CompletedProcess(
                proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode()
            )
        )
        assert done.rc == 0, done.stderr
        assert "Traceback" not in done.stderr
        return done

    return run


@pytest.fixture
def mc_query(mc_env):
    """Run SQL on the test's tasks.db directly (no library in between)."""

    def run(sql: str, params: tuple = ()) -> list:
        conn = sqlite3.connect(str(mc_env.data_root / "tasks.db"))
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    return run


@pytest.fixture
def mc_execute(mc_env):
    """Write to the test's tasks.db directly (to stage rows or hold its lock)."""

    def run(sql: str, params: tuple = ()) -> None:
        conn = sqlite3.connect(str(mc_env.data_root / "tasks.db"))
        try:
            with conn:
                conn.execute(sql, params)
        finally:
            conn.close()

    return run


@pytest.fixture
def mc_make_task(mc_cli):
    """Create another task through the plugin's bundled command: ``.name``, ``.id``."""

    def run(name, repo=None):
        args = ["create-task", name] + (["--repo", str(repo)] if repo else [])
        found = re.search(r"\(id (\d+)\)", mc_cli(*args))
        return SimpleNamespace(name=name, id=int(found.group(1)))

    return run


@pytest.fixture
def mc_task_dir(mc_env, mc_task):
    return mc_env.data_root / "active" / mc_task.name


@pytest.fixture
def mc_cli(mc_plugin, mc_env):
    """``python3 -m missioncache_db ARGS`` from the plugin's bundled library (must succeed)."""

    def run(*args, cwd=None):
        env = dict(mc_env.env, PYTHONPATH=str(mc_plugin / "lib"))
        done = mc_env.run([python3(), "-m", "missioncache_db", *args], env=env, cwd=cwd)
        assert done.returncode == 0, done.stderr
        return done.stdout

    return run


@pytest.fixture
def mc_python(mc_plugin, mc_env):
    """Start ``python3 -c CODE ARGS`` with the bundled library (stdout piped); the caller
    kills it."""
    started = []

    def run(code, *args):
        env = dict(mc_env.env, PYTHONPATH=str(mc_plugin / "lib"))
        proc = subprocess.Popen(
            [python3(), "-c", code, *args], env=env, stdout=subprocess.PIPE, text=True
        )
        started.append(proc)
        return proc

    yield run
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()  # waits and closes the stdout pipe


def spooled(mc_env) -> list:
    """Every record waiting in the test home's heartbeat spool (heartbeats and turn ends),
    file by file: what a hook appended instead of writing tasks.db."""
    folder = mc_env.data_root / "spool"
    records: list = []
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        records += [json.loads(line) for line in path.read_text().splitlines()]
    return records
