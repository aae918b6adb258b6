"""The real Claude Code CLI interactive, in tmux: for what only its terminal UI does (the
status line is drawn only there, never with ``-p``; the http hooks' errors show under the
prompt).

WHY tmux: a pane of a fixed size is a real terminal whose screen can be read back. Each run
has its own tmux server (``-L <unique name>``), so closing it ends exactly what this run
started.
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
from missioncache_harness.fake_api import FakeAnthropicAPI


def tmux_available() -> bool:
    return shutil.which("tmux") is not None


class Terminal:
    """One interactive ``claude`` in a private tmux server; ``screen()`` reads the pane.

    Its HOME is set up as a user who finished onboarding, approved the dummy API key and
    trusted ``cwd`` (the status line runs only after trust); auto-update stays off, as in
    every ``claude_env`` (the interactive CLI otherwise updates itself, contract 11.0)."""

    def __init__(
        self, home: Path, cwd: Path, api: FakeAnthropicAPI, env_extra: Mapping[str, str]
    ) -> None:
        self.socket = f"mc-{uuid.uuid4().hex[:12]}"
        home.mkdir(parents=True, exist_ok=True)
        state = {
            "hasCompletedOnboarding": True,
            "theme": "dark",
            "customApiKeyResponses": {"approved": [DUMMY_KEY[-20:]], "rejected": []},
            "projects": {str(cwd): {"hasTrustDialogAccepted": True, "allowedTools": []}},
        }
        (home / ".claude.json").write_text(json.dumps(state), encoding="utf-8")
        env = claude_env(home, fake_api=api, env_extra=env_extra)
        exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in sorted(env.items()))
        command = shlex.join([str(require_claude()), "--permission-mode", "acceptEdits"])
        script = home / "start-claude.sh"
        script.write_text(f"#!/bin/sh\n{exports}cd {shlex.quote(str(cwd))}\nexec {command}\n")
        script.chmod(0o755)
        self._tmux("new-session", "-d", "-s", "cc", "-x", "200", "-y", "50", str(script))

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
        while not found(screen := self.screen()):
            if time.monotonic() > deadline:
                raise AssertionError(f"not on screen after {timeout:.0f} s:\n{screen}")
            time.sleep(0.25)
        return screen

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self._tmux("kill-server")  # this run's tmux server (and the claude in it); nothing else
