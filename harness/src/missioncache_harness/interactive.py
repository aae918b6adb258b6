"""The real Claude Code CLI in an interactive terminal (tmux), for what only shows there:
the status line (Claude Code runs it only interactively, never with ``-p``).

WHY tmux: the status line is drawn by the CLI's terminal UI; a pane of a fixed size is a
real terminal whose screen can be read back (``capture-pane``). Each run uses its own
tmux server (``-L <unique name>``), so nothing here touches anyone else's tmux, and
closing it ends exactly what this run started.

The HOME is hermetic like ``claude_cli``'s: onboarding done, the dummy API key approved,
the project trusted (the status line runs only after trust), auto-update OFF (the
interactive CLI otherwise updates itself globally, contract 11.0 trap 1).
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path

from missioncache_harness.claude_cli import DUMMY_KEY, claude_env, require_claude

COLUMNS, LINES = 200, 50


def tmux_available() -> bool:
    return shutil.which("tmux") is not None


def prepare_home(home: Path, cwd: Path) -> None:
    """``~/.claude.json`` as a user who finished onboarding and trusted ``cwd`` has it."""
    home.mkdir(parents=True, exist_ok=True)
    state = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "customApiKeyResponses": {"approved": [DUMMY_KEY[-20:]], "rejected": []},
        "projects": {str(cwd): {"hasTrustDialogAccepted": True, "allowedTools": []}},
    }
    (home / ".claude.json").write_text(json.dumps(state), encoding="utf-8")


class Terminal:
    """One interactive ``claude`` in a private tmux server; ``screen()`` reads the pane."""

    def __init__(
        self,
        home: Path,
        cwd: Path,
        *,
        base_url: str,
        env_extra: Mapping[str, str] | None = None,
        args: tuple[str, ...] = ("--permission-mode", "acceptEdits"),
    ) -> None:
        self.socket = f"mc-{uuid.uuid4().hex[:12]}"
        self.home, self.cwd = home, cwd
        env = claude_env(home, env_extra=env_extra)
        env["ANTHROPIC_BASE_URL"] = base_url
        env["DISABLE_AUTOUPDATER"] = "1"
        script = home / "start-claude.sh"
        exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in sorted(env.items()))
        command = " ".join(shlex.quote(a) for a in (str(require_claude()), *args))
        script.write_text(f"#!/bin/sh\n{exports}cd {shlex.quote(str(cwd))}\nexec {command}\n")
        script.chmod(0o755)
        self._tmux(
            "new-session", "-d", "-s", "cc", "-x", str(COLUMNS), "-y", str(LINES), str(script)
        )

    def _tmux(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30
        )

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "cc").stdout

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "cc", "-l", text)
        time.sleep(0.3)
        self._tmux("send-keys", "-t", "cc", "Enter")

    def wait_for(self, found: Callable[[str], bool], timeout: float = 60) -> str:
        """The screen once ``found(screen)`` holds; AssertionError with the screen if never."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if found(screen):
                return screen
            time.sleep(0.25)
        raise AssertionError(f"not on screen after {timeout:.0f} s:\n{screen}")

    def close(self) -> None:
        """End this run's tmux server (and the claude in it); nothing else."""
        self._tmux("kill-server")

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
