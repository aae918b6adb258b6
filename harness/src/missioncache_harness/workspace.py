"""Isolated homes, the built plugin and tasks, for fixtures, the demo and anyone else.

WHY not in fixtures.py: the demo and scripts need the same isolation without importing pytest.
A task is made by the plugin's bundled library running as a process, as on a user's machine.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from missioncache_harness.locate import build_script, repo_root

# Variables that would leak the developer's own Claude or MissionCache state into a test.
_LEAKY_PREFIXES = ("CLAUDE", "MISSIONCACHE", "ANTHROPIC", "ITERM_", "TERM_SESSION_ID", "WT_SESSION")


@dataclass
class McEnv:
    """An isolated home: ``env`` is the environment to give subprocesses (hooks included)."""

    home: Path
    claude_dir: Path
    data_root: Path
    env: dict[str, str]

    def run(self, args: Sequence[str], **kwargs: object) -> subprocess.CompletedProcess:
        """Run a command in this environment, capturing text output."""
        options: dict = {"env": self.env, "capture_output": True, "text": True, "timeout": 60}
        options.update(kwargs)
        return subprocess.run(list(args), check=False, **options)

    def with_lib(self, plugin: Path) -> dict[str, str]:
        """This environment with the plugin's bundled libraries importable."""
        return dict(self.env, PYTHONPATH=str(plugin / "lib"))

    def bundled(self, plugin: Path, *args: str, **kwargs: object) -> subprocess.CompletedProcess:
        """``python3 -m missioncache_cli ARGS`` from the plugin's bundled library, as a user
        runs it (the command line the slash commands and the status line use)."""
        argv = [python3(), "-m", "missioncache_cli", *args]
        return self.run(argv, **{"env": self.with_lib(plugin), **kwargs})


@dataclass
class McTask:
    """A task created through the plugin's bundled ``missioncache_cli`` command."""

    name: str
    repo: Path
    id: int | None
    output: str


def make_env(root: Path, base: Mapping[str, str] | None = None) -> McEnv:
    """Create the isolated home under ``root``; keep PATH and unrelated variables."""
    home = root / "home"
    claude = home / ".claude"
    data = home / ".missioncache"
    claude.mkdir(parents=True)
    data.mkdir(parents=True)
    source = os.environ if base is None else base
    env = {k: v for k, v in source.items() if not k.startswith(_LEAKY_PREFIXES)}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(claude), MISSIONCACHE_ROOT=str(data))
    env.setdefault("PATH", os.defpath)
    return McEnv(home=home, claude_dir=claude, data_root=data, env=env)


def make_cli_env(root: Path) -> McEnv:
    """A home under ``root`` for the real interactive CLI (``terminal.Terminal``): its
    ``~/.claude`` and data root made, and ``env`` only HOME, MISSIONCACHE_ROOT and PATH, so
    Claude Code and MissionCache find ``~/.claude`` from HOME, as on a user's machine."""
    home = root / "home"
    claude, data = home / ".claude", home / ".missioncache"
    claude.mkdir(parents=True)
    data.mkdir()
    env = {"HOME": str(home), "MISSIONCACHE_ROOT": str(data), "PATH": os.environ["PATH"]}
    return McEnv(home=home, claude_dir=claude, data_root=data, env=env)


def sources_path(*packages: str) -> str:
    """A PYTHONPATH of the workspace packages' ``src`` folders, e.g. ``"missioncache-db"``."""
    root = repo_root()
    if root is None:
        raise FileNotFoundError("not in a MissionCache checkout: no packages/ to put on PYTHONPATH")
    return os.pathsep.join(str(root / "packages" / name / "src") for name in packages)


@dataclass
class Bare:
    """A bare interpreter (``python3 -S``) that finds only the sources on ``env``'s
    PYTHONPATH, in an isolated data root and Claude dir: how the hooks' children run."""

    env: dict[str, str]

    def python(
        self, code: str, *args: str, cwd: Any = None, env: Any = None, timeout: float = 60
    ) -> subprocess.CompletedProcess:
        """Run ``python3 -S -c CODE ARGS``; returns the finished process (text output)."""
        return self._run(["-c", code, *args], cwd, env, timeout)

    def module(
        self, name: str, *args: str, cwd: Any = None, env: Any = None, timeout: float = 60
    ) -> subprocess.CompletedProcess:
        """Run ``python3 -S -m NAME ARGS`` as a user (or a hook's child) would."""
        return self._run(["-m", name, *args], cwd, env, timeout)

    def script(
        self, path: Any, *args: str, cwd: Any = None, env: Any = None, timeout: float = 60
    ) -> subprocess.CompletedProcess:
        """Run ``python3 -S PATH ARGS``: a file started as a script, as a hook starts one."""
        return self._run([str(path), *args], cwd, env, timeout)

    def spawn(self, code: str, *args: object, **kwargs: Any) -> subprocess.Popen:
        """Start ``python3 -S -c CODE ARGS`` (for tests that need processes at once)."""
        argv = [python3(), "-S", "-c", code, *map(str, args)]
        return subprocess.Popen(argv, env=self.env, text=True, **kwargs)

    def _run(
        self, argv: list[str], cwd: Any, env: Any, timeout: float
    ) -> subprocess.CompletedProcess:
        return subprocess.run(
            [python3(), "-S", *argv],
            cwd=cwd,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def bare(data_root: Path, claude_dir: Path, packages: Sequence[str]) -> Bare:
    """A ``Bare`` whose PYTHONPATH is ``packages``' sources; the parent's Claude,
    MissionCache, Python and coverage variables are left out."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("CLAUDE", "MISSIONCACHE", "PYTHON", "COV"))
    }
    env.update(
        PYTHONPATH=sources_path(*packages),
        MISSIONCACHE_ROOT=str(data_root),
        CLAUDE_CONFIG_DIR=str(claude_dir),
        PYTHONDONTWRITEBYTECODE="1",
    )
    return Bare(env)


def build_plugin(out: Path) -> Path:
    """Build the plugin into ``out`` with the repository's build script; return the tree."""
    script = build_script()
    if script is None:
        raise FileNotFoundError("scripts/build_plugin.py not found")
    done = subprocess.run(
        [sys.executable, str(script), "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    if done.returncode != 0:
        raise RuntimeError(f"plugin build failed ({done.returncode}):\n{done.stderr}")
    return out


HOOK_PYTHON_VARIABLE = "MISSIONCACHE_HOOK_PYTHON"


def python3() -> str:
    """The interpreter hooks get (``python3`` on PATH), as Claude Code would run them."""
    return shutil.which("python3") or sys.executable


def put_hook_python_first(shim_dir: Path, environ: dict[str, str] | None = None) -> str | None:
    """Make ``python3`` mean ``$MISSIONCACHE_HOOK_PYTHON`` for every process started later.

    WHY: the hooks promise Python 3.9 and newer, while the tests themselves run on the
    workspace's interpreter. Hooks are ``python3 -S ...`` commands resolved on PATH (by the
    simulator, the real CLI and ``python3()`` alike), so a ``python3`` link to the chosen
    interpreter at the front of PATH runs the built plugin under it everywhere. Returns the
    interpreter, or None when the variable is unset.
    """
    environ = os.environ if environ is None else environ
    chosen = environ.get(HOOK_PYTHON_VARIABLE, "")
    if not chosen:
        return None
    target = shutil.which(chosen) or chosen
    if not os.access(target, os.X_OK):
        raise FileNotFoundError(f"{HOOK_PYTHON_VARIABLE}={chosen} is not an executable")
    shim_dir.mkdir(parents=True, exist_ok=True)
    link = shim_dir / "python3"
    if not link.exists():
        link.symlink_to(target)
    environ["PATH"] = os.pathsep.join([str(shim_dir), environ.get("PATH", os.defpath)])
    return target


def create_task(plugin: Path, env: McEnv, name: str, repo: Path | None = None) -> McTask:
    """Create a task by running the plugin's bundled library as a process."""
    args = ["create-task", name, *(["--repo", str(repo)] if repo is not None else [])]
    done = env.bundled(plugin, *args, cwd=str(repo or env.home))
    if done.returncode != 0:
        raise RuntimeError(f"create-task {name} failed: {done.stderr.strip()}")
    found = re.search(r"\(id (\d+)\)", done.stdout)
    return McTask(name, repo or env.home, int(found.group(1)) if found else None, done.stdout)


def create_fork(plugin: Path, env: McEnv, parent: str, name: str) -> tuple[int, Path]:
    """``missioncache fork PARENT NAME`` through the plugin's bundled library: the fork's
    id and folder."""
    done = env.bundled(plugin, "fork", parent, name, cwd=str(env.home))
    found = re.search(r"\(id (\d+)\) in (.+?)(?:; |$)", done.stdout.strip())
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"fork {name} failed: {done.stderr.strip() or done.stdout}")
    return int(found.group(1)), Path(found.group(2).strip())
