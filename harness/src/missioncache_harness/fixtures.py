"""Shared pytest fixtures (registered through the ``pytest11`` entry point; opt in by name).

WHY shared: every package's tests need the same isolation (a private HOME, Claude dir and data
root) and the integration tests need the same built plugin and a task tied to a project. Building
them one way keeps tests honest: the plugin is built by the real build script and tasks are made by
the plugin's bundled library running as a process, exactly as a user's machine would. A hook
script is tested the same way: a real process of the BUILT plugin, JSON on stdin, in ``mc_env``.

- ``mc_env``: a temporary HOME with ``~/.claude`` and a data root; ``.env`` for subprocesses.
- ``mc_plugin``: the plugin tree built by ``scripts/build_plugin.py`` (once per test session).
- ``mc_repo``: a project directory (no git) for a task to be tied to.
- ``mc_task``: a task named ``demo-task`` tied to ``mc_repo``, created through the plugin.
- ``mc_hook(payload)`` runs the script a hook package names by overriding ``mc_hook_script`` and
  asserts the hook boundary held (exit 0, no traceback); ``mc_query``/``mc_execute`` reach
  tasks.db directly; ``mc_cli`` runs the bundled command.
- ``mc_roots``: ``(data_root, claude_dir)`` set in this process's environment (no session
  id), for a library's in-process tests; ``mc_workdir``: a directory standing for a repository.
- ``mc_bare``: a bare ``python3 -S`` (``.python``, ``.module``, ``.spawn``, ``.env``) that
  finds only the sources a package's conftest names by overriding ``mc_sources``.
- ``mc_chromium``: headless Chromium's path (``browser.find_chromium``), once per session;
  skips without one, fails with ``CI`` set.
- ``mc_postgres``: a throwaway PostgreSQL cluster on a loopback port (``postgres.Cluster``);
  skips without PostgreSQL, fails with ``CI`` set.
- Hypothesis: every property test runs under the profiles of ``hypothesis_profiles``.
- ``MISSIONCACHE_HOOK_PYTHON=/path/to/python3.9``: hooks and bare ``python3`` children run
  under that interpreter (a ``python3`` link put first on PATH), the tests themselves do not.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from missioncache_harness.locate import build_script
from missioncache_harness.workspace import (
    Bare,
    McEnv,
    McTask,
    bare,
    build_plugin,
    create_task,
    make_env,
    put_hook_python_first,
    python3,
)

__all__ = ["McEnv", "McTask", "mc_env", "mc_plugin", "mc_repo", "mc_task"]


def pin_afternoon_time_zone() -> str:
    """Set ``TZ`` to a fixed-offset zone in which it is now about 13:00, and return it.

    Fixtures put work at "today, 00:01" or "today, 09:00": run just after midnight, those
    hours are still to come and every "today" figure is short. A zone chosen at the start
    of the run keeps them in the past whenever the suite runs (it inherits into every
    subprocess through the environment); tests about midnight build their own times.
    """
    import time

    offset = (13 - time.gmtime().tm_hour + 11) % 24 - 11  # local = UTC + offset, -11..+12
    zone = f"MCT{-offset:+d}"  # POSIX spells east of UTC with a minus sign
    os.environ["TZ"] = zone
    time.tzset()
    return zone


def pytest_configure(config: pytest.Config) -> None:
    import shutil
    import tempfile

    pin_afternoon_time_zone()

    # The built plugin runs under $MISSIONCACHE_HOOK_PYTHON when set (docs/testing.md).
    shim_dir = Path(tempfile.mkdtemp(prefix="mc-hook-python-"))
    config.add_cleanup(lambda: shutil.rmtree(shim_dir, ignore_errors=True))
    put_hook_python_first(shim_dir)
    try:
        from missioncache_harness.hypothesis_profiles import register

        register()
    except ImportError:  # Hypothesis is a dev dependency; without it there is nothing to set
        pass


@pytest.fixture
def mc_roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A private data root and Claude dir, the way every library test isolates its state:
    ``MISSIONCACHE_ROOT`` and ``CLAUDE_CONFIG_DIR`` point at them (not yet made), and no
    ``CLAUDE_SESSION_ID``/``CLAUDE_CODE_SESSION_ID`` leaks in. Returns ``(data, claude)``."""
    data = tmp_path / "mc"
    claude = tmp_path / "claude"
    monkeypatch.setenv("MISSIONCACHE_ROOT", str(data))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.delenv("CLAUDE_SESSION_ID", raising=False)
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID", raising=False)
    return data, claude


@pytest.fixture
def mc_workdir(tmp_path: Path) -> Path:
    """A directory outside the data root that stands for a user's repository."""
    path = tmp_path / "work" / "repo"
    path.mkdir(parents=True)
    return path


@pytest.fixture
def mc_sources() -> tuple[str, ...]:
    """The workspace packages ``mc_bare`` finds; a package's conftest overrides it."""
    pytest.fail("override the `mc_sources` fixture in the package's conftest.py")


@pytest.fixture
def mc_bare(mc_roots: tuple[Path, Path], mc_sources: tuple[str, ...]) -> Bare:
    """A bare ``python3 -S`` in ``mc_roots`` that finds only ``mc_sources``' code."""
    return bare(*mc_roots, mc_sources)


@pytest.fixture
def mc_env(tmp_path: Path) -> McEnv:
    """A temporary HOME with ``~/.claude`` and a data root (both env overrides set)."""
    return make_env(tmp_path)


@pytest.fixture(scope="session")
def mc_plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plugin tree, built once per test session by ``scripts/build_plugin.py --out``."""
    if build_script() is None:
        pytest.skip("scripts/build_plugin.py is not in this checkout: no plugin to build")
    try:
        return build_plugin(tmp_path_factory.mktemp("built") / "plugin")
    except RuntimeError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture
def mc_repo(tmp_path: Path) -> Path:
    """A project directory without git, resolved (Claude Code reports real paths)."""
    repo = tmp_path / "work" / "tracked-repo"
    repo.mkdir(parents=True)
    (repo / "README.md").write_text("# tracked repo\n", encoding="utf-8")
    return repo.resolve()


@pytest.fixture
def mc_task(mc_plugin: Path, mc_env: McEnv, mc_repo: Path) -> McTask:
    """A task ``demo-task`` tied to ``mc_repo``, created through the built plugin."""
    return create_task(mc_plugin, mc_env, "demo-task", mc_repo)


@pytest.fixture
def mc_make_task(mc_plugin: Path, mc_env: McEnv):
    """Create another task through the plugin's bundled command: ``.name``, ``.id``."""
    return lambda name, repo=None: create_task(mc_plugin, mc_env, name, repo)


@pytest.fixture
def mc_task_dir(mc_env: McEnv, mc_task: McTask) -> Path:
    return mc_env.data_root / "active" / mc_task.name


@pytest.fixture
def mc_hook_script() -> str:
    """The hook script ``mc_hook(...)`` runs; each hook package's conftest overrides it."""
    pytest.fail("override the `mc_hook_script` fixture in the hook package's conftest.py")


@dataclass
class Done:
    """A finished hook run: exit status, raw stdout/stderr, stdout parsed as JSON."""

    rc: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict:
        value = json.loads(self.stdout)
        assert isinstance(value, dict)
        return value

    def silent(self) -> bool:
        return self.rc == 0 and self.stdout == ""


@pytest.fixture
def mc_hook(mc_plugin: Path, mc_env: McEnv, mc_repo: Path, mc_hook_script: str):
    """``mc_hook(payload)`` runs the script; payload may be a dict (sent as JSON) or bytes.

    Unless given, ``cwd`` in the payload and the process cwd are the tracked repo."""

    def run(payload=None, *, cwd=None, env=None, script=None, timeout=60) -> Done:
        workdir = str(cwd or mc_repo)
        if isinstance(payload, dict):
            payload = json.dumps({"cwd": workdir, **payload}).encode()
        proc = subprocess.run(
            [python3(), str(mc_plugin / "hooks" / (script or mc_hook_script))],
            input=payload or b"",
            cwd=workdir,
            env={**mc_env.env, **(env or {})},
            capture_output=True,
            timeout=timeout,
        )
        done = Done(proc.returncode, proc.stdout.decode(), proc.stderr.decode())
        assert done.rc == 0, done.stderr
        assert "Traceback" not in done.stderr
        return done

    return run


def _sql(mc_env: McEnv, sql: str, params: tuple) -> list:
    conn = sqlite3.connect(str(mc_env.data_root / "tasks.db"))
    try:
        with conn:
            return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


@pytest.fixture
def mc_query(mc_env: McEnv):
    """Run SQL on the test's tasks.db directly (no library in between)."""
    return lambda sql, params=(): _sql(mc_env, sql, params)


@pytest.fixture
def mc_execute(mc_env: McEnv):
    """Write to the test's tasks.db directly (to stage rows or hold its lock)."""

    def run(sql: str, params: tuple = ()) -> None:
        _sql(mc_env, sql, params)

    return run


@pytest.fixture
def mc_cli(mc_plugin: Path, mc_env: McEnv):
    """``python3 -m missioncache_cli ARGS`` from the plugin's bundled library (must succeed)."""

    def run(*args: str, cwd: Any = None) -> str:
        done = mc_env.bundled(mc_plugin, *args, cwd=cwd)
        assert done.returncode == 0, done.stderr
        return done.stdout

    return run


@pytest.fixture
def mc_python(mc_plugin: Path, mc_env: McEnv) -> Iterator[Any]:
    """Start ``python3 -c CODE ARGS`` with the bundled library (stdout piped); killed after."""
    started: list[subprocess.Popen] = []

    def run(code: str, *args: str) -> subprocess.Popen:
        env = mc_env.with_lib(mc_plugin)
        argv = [python3(), "-c", code, *args]
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, text=True)
        started.append(proc)
        return proc

    yield run
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()  # waits and closes the stdout pipe


@pytest.fixture(scope="session")
def mc_chromium() -> str:
    """Chromium for the browser tests: skipped where it is missing, except in CI (``CI``
    set), where a missing browser is a failure (``.ci/run`` installs Debian's ``chromium``)."""
    from missioncache_harness.browser import find_chromium

    found = find_chromium()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the browser test: chromium is missing (.ci/run installs it)")
        pytest.skip("chromium is not installed (apt-get install chromium); CI never skips this")
    return found


def spooled(mc_env: McEnv) -> list:
    """Every record waiting in the test home's heartbeat spool (heartbeats and turn ends),
    file by file: what a hook appended instead of writing tasks.db."""
    folder = mc_env.data_root / "spool"
    records: list = []
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        records += [json.loads(line) for line in path.read_text().splitlines()]
    return records


@pytest.fixture
def mc_postgres() -> Iterator[Any]:
    """A throwaway PostgreSQL cluster on a loopback port (``postgres.Cluster``: owner
    ``mc_owner``, database ``team``), stopped and removed after the test. Skipped where
    PostgreSQL is missing, except in CI (``CI`` set), where that is a failure (``.ci/run``
    installs Debian's ``postgresql``)."""
    from missioncache_harness.postgres import Cluster, find_pg_bin

    bin_dir = find_pg_bin()
    if bin_dir is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the team tests: PostgreSQL is missing (.ci/run installs it)")
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql); CI never skips this")
    cluster = Cluster(bin_dir)
    try:
        yield cluster.init()
    finally:
        cluster.destroy()
