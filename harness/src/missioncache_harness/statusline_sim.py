"""What Claude Code does with a status-line command, as measured on 2.1.328 (contract
11.1), for tests that cannot run the interactive CLI.

The command runs under ``/bin/sh -c`` in the session's cwd with the status-line JSON on
stdin (then EOF), pipes on all three streams, ``COLUMNS``/``LINES`` set to the terminal
size, ``CLAUDE_PROJECT_DIR`` and ``CLAUDECODE=1``, and NO ``CLAUDE_PLUGIN_ROOT``. What the
user sees: nothing when it exits non-zero (stdout ignored) or prints nothing; otherwise
each non-empty stdout line, trimmed, one row each, cut at the width with ``…``. stderr is
never shown. ANSI colours are kept (``plain_rows`` drops them, to compare with a screen).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class StatusRun:
    exit_code: int | None
    stdout: str
    stderr: str
    rows: list[str] = field(default_factory=list)  # as shown, ANSI kept

    @property
    def plain_rows(self) -> list[str]:
        return [strip_ansi(row) for row in self.rows]


def strip_ansi(text: str) -> str:
    """Drop SGR sequences (``ESC[...m``): what a captured screen shows of a coloured line."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("\x1b[", i):
            end = text.find("m", i)
            if end < 0:
                break
            i = end + 1
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def run_status_line(
    command: str,
    payload: dict,
    *,
    cwd: str | Path,
    env: Mapping[str, str],
    columns: int = 200,
    lines: int = 50,
    timeout: float = 60,
) -> StatusRun:
    """Run ``command`` as Claude Code runs a status line and return what it would show."""
    environ = {
        k: v for k, v in env.items() if k not in ("CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA")
    }
    environ.update(
        COLUMNS=str(columns), LINES=str(lines), CLAUDE_PROJECT_DIR=str(cwd), CLAUDECODE="1"
    )
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
    if len(strip_ansi(row)) <= columns:
        return row
    plain = strip_ansi(row)
    return plain[: columns - 1] + "…"
