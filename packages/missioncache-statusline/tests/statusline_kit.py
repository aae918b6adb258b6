"""How Claude Code shows a status line: simulated from what 2.1.328 was measured to do
(contract 11.1), and the real interactive CLI in tmux, for this package's tests only.

The simulator runs the command under ``/bin/sh -c`` in the session's cwd with the JSON on
stdin (then EOF), ``COLUMNS``/``LINES`` set to the terminal size, ``CLAUDE_PROJECT_DIR``
and ``CLAUDECODE=1``, and NO ``CLAUDE_PLUGIN_ROOT``. What the user sees: nothing when it
exits non-zero or prints nothing; otherwise each non-empty stdout line, trimmed, one row
each, cut at the width with ``…``. stderr is never shown; ANSI colours are kept.

WHY tmux for the real CLI: the status line is drawn only by the interactive terminal UI
(never with ``-p``); a pane of a fixed size is a real terminal whose screen can be read
back. Each run has its own tmux server (``-L <unique name>``), so closing it ends exactly
what this run started.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from missioncache_harness.claude_cli import DUMMY_KEY, claude_env, require_claude
from missioncache_harness.fake_api import FakeAnthropicAPI

_SGR = re.compile(r"\x1b\[[0-9;]*m")


def strip_ansi(text: str) -> str:
    """Drop colour sequences: what a captured screen shows of a coloured line."""
    return _SGR.sub("", text)


@dataclass
class StatusRun:
    exit_code: int | None
    stdout: str
    stderr: str
    rows: list[str] = field(default_factory=list)  # as shown, ANSI kept

    @property
    def plain_rows(self) -> list[str]:
        return [strip_ansi(row) for row in self.rows]


def run_status_line(
    command: str,
    payload: dict,
    *,
    cwd: str | Path,
    env: Mapping[str, str],
    columns: int = 200,
    timeout: float = 60,
) -> StatusRun:
    """Run ``command`` as Claude Code runs a status line and return what it would show."""
    environ = {k: v for k, v in env.items() if not k.startswith("CLAUDE_PLUGIN_")}
    environ.update(COLUMNS=str(columns), LINES="50", CLAUDE_PROJECT_DIR=str(cwd), CLAUDECODE="1")
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", command],
            input=json.dumps(payload).encode(),
            cwd=os.fspath(cwd),
            env=environ,
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as expired:
        return StatusRun(None, (expired.stdout or b"").decode("utf-8", "replace"), "")
    stdout = done.stdout.decode("utf-8", "replace")
    run = StatusRun(done.returncode, stdout, done.stderr.decode("utf-8", "replace"))
    if done.returncode == 0:
        run.rows = [_cut(row.strip(), columns) for row in stdout.splitlines() if row.strip()]
    return run


def _cut(row: str, columns: int) -> str:
    """A row wider than the terminal is cut with ``…`` (measured on the plain text)."""
    plain = strip_ansi(row)
    return row if len(plain) <= columns else plain[: columns - 1] + "…"


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
