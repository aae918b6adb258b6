"""How Claude Code shows a status line, simulated from what 2.1.328 was measured to do
(contract 11.1); the real interactive CLI that draws one is ``terminal.Terminal``.

The simulator runs the command under ``/bin/sh -c`` in the session's cwd with the JSON on
stdin (then EOF), ``COLUMNS``/``LINES`` set to the terminal size, ``CLAUDE_PROJECT_DIR``
and ``CLAUDECODE=1``, and NO ``CLAUDE_PLUGIN_ROOT``. What the user sees: nothing when it
exits non-zero or prints nothing; otherwise each non-empty stdout line, trimmed, one row
each, cut at the width with ``…``. stderr is never shown; ANSI colours are kept.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

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
