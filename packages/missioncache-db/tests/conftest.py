import os
import subprocess
from pathlib import Path

import pytest

from missioncache_harness.workspace import python3

PACKAGES = Path(__file__).resolve().parents[2]
PYTHONPATH = os.pathsep.join(
    str(PACKAGES / name / "src") for name in ("missioncache-state", "missioncache-db")
)


@pytest.fixture
def roots(tmp_path, monkeypatch):
    """A private data root and Claude dir, the way every MissionCache test isolates state."""
    data = tmp_path / "mc"
    claude = tmp_path / "claude"
    monkeypatch.setenv("MISSIONCACHE_ROOT", str(data))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.delenv("CLAUDE_SESSION_ID", raising=False)
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID", raising=False)
    return data, claude


@pytest.fixture
def db(roots):
    from missioncache_db import TaskDB

    database = TaskDB(busy_timeout=5.0)
    yield database
    database.close()


@pytest.fixture
def workdir(tmp_path):
    """A directory outside the data root that stands for a user's repository."""
    path = tmp_path / "work" / "repo"
    path.mkdir(parents=True)
    return path


@pytest.fixture
def child_env(roots):
    """Environment for a bare interpreter (``python -S``) that finds only our sources."""
    data, claude = roots
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("CLAUDE", "MISSIONCACHE", "PYTHON", "COV"))
    }
    env.update(
        PYTHONPATH=PYTHONPATH,
        MISSIONCACHE_ROOT=str(data),
        CLAUDE_CONFIG_DIR=str(claude),
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


@pytest.fixture
def python(child_env):
    """Run Python code in a fresh bare interpreter; returns the CompletedProcess."""

    def run(code, *args, cwd=None, env=None, timeout=60):
        return subprocess.run(
            [python3(), "-S", "-c", code, *args],
            cwd=cwd,
            env={**child_env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    return run


@pytest.fixture
def cli(child_env):
    """Run ``python -S -m missioncache_db ...`` the way the UserPromptSubmit hook starts its
    heartbeat child (``heartbeat-auto`` is the one command the package runs)."""

    def run(*args, cwd=None, env=None, timeout=60):
        return subprocess.run(
            [python3(), "-S", "-m", "missioncache_db", *args],
            cwd=cwd,
            env={**child_env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    return run


def spawn(child_env, code, *args, **kwargs):
    """Start a bare interpreter running ``code`` (for tests that need processes at once)."""
    return subprocess.Popen(
        [python3(), "-S", "-c", code, *map(str, args)],
        env=child_env,
        text=True,
        **kwargs,
    )


@pytest.fixture
def spawner(child_env):
    return lambda code, *args, **kwargs: spawn(child_env, code, *args, **kwargs)
