"""Run the hooks of one event as Claude Code does: processes, in parallel, its env and timeouts.

WHY processes and not imports: the product's hooks are only correct if they work as Claude Code
starts them, `/bin/sh -c '<command as written>'` in a new session and process group, stdin JSON then
EOF, cwd the project dir, a few CLAUDE_* variables, SIGTERM to the group at the timeout and SIGKILL
1.5 s later (contract sections 3, 4 and 5). Every hook of the event starts at once and the event
waits for all of them; results come back in completion order, which is the order Claude Code uses.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryFile
from typing import IO

from missioncache_harness.plugin import HookSpec, Plugin

# Default timeouts in seconds when a hook sets none (contract section 4.1).
DEFAULT_TIMEOUT = 600.0
EVENT_DEFAULT_TIMEOUTS: Mapping[str, float] = {"UserPromptSubmit": 30.0}
KILL_GRACE = 1.5  # SIGKILL follows SIGTERM this many seconds later


@dataclass
class HookRun:
    """One hook process: what ran, how it ended, what it printed (decoded, U+FFFD for junk)."""

    command: str
    exit_code: int | None
    duration: float
    timed_out: bool
    stdout: str
    stderr: str
    plugin: str = ""
    timeout: float = 0.0
    started: float = 0.0
    finished: float = 0.0


def effective_timeout(event: str, timeout: float | None) -> float:
    """Seconds a hook may run: its explicit timeout, else the event's default."""
    return timeout if timeout is not None else EVENT_DEFAULT_TIMEOUTS.get(event, DEFAULT_TIMEOUT)


def claude_dir_for(env: Mapping[str, str]) -> Path:
    """Claude Code's config dir for an environment (CLAUDE_CONFIG_DIR, else $HOME/.claude)."""
    override = env.get("CLAUDE_CONFIG_DIR", "")
    if override and os.path.isabs(override):
        return Path(override)
    return Path(env.get("HOME") or os.path.expanduser("~")) / ".claude"


def hook_env(
    plugin: Plugin, *, project_dir: str, session_id: str, base_env: Mapping[str, str]
) -> dict[str, str]:
    """The environment Claude Code gives a hook: the caller's env plus its own variables.

    Per-event extras the product does not read (SessionStart's ``CLAUDE_ENV_FILE``, Stop's
    ``CLAUDE_EFFORT``) are left out.
    """
    env = dict(base_env)
    data_dir = claude_dir_for(env) / "plugins" / "data" / f"{plugin.name}-inline"
    data_dir.mkdir(parents=True, exist_ok=True)
    env.update(
        CLAUDE_PLUGIN_ROOT=str(plugin.root),
        CLAUDE_PLUGIN_DATA=str(data_dir),
        CLAUDE_PROJECT_DIR=project_dir,
        CLAUDE_CODE_SESSION_ID=session_id,
        CLAUDECODE="1",
        CLAUDE_CODE_ENTRYPOINT="sdk-cli",
        PWD=project_dir,
    )
    env.pop("CLAUDE_ENV_FILE", None)
    return env


def run_event(
    plugins: Plugin | Sequence[Plugin],
    event: str,
    payload: Mapping[str, object],
    *,
    project_dir: str | Path,
    env: Mapping[str, str] | None = None,
    kill_grace: float = KILL_GRACE,
) -> list[HookRun]:
    """Run every hook of ``event`` in every plugin at once; results in completion order."""
    plugin_list = [plugins] if isinstance(plugins, Plugin) else list(plugins)
    base_env = dict(os.environ if env is None else env)
    cwd = os.path.realpath(project_dir)
    session_id = str(payload.get("session_id", ""))
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    jobs = []
    for plugin in plugin_list:
        environ = hook_env(plugin, project_dir=cwd, session_id=session_id, base_env=base_env)
        for spec in plugin.hooks_for(event):
            jobs.append((plugin, spec, environ, effective_timeout(event, spec.timeout)))
    return _run_all(jobs, cwd, data, kill_grace)


def _run_all(jobs: list[tuple], cwd: str, data: bytes, kill_grace: float) -> list[HookRun]:
    """Start every job at once, wait for all; a harness error in one is re-raised here."""
    t0 = time.monotonic()

    def work(job: tuple[Plugin, HookSpec, dict[str, str], float]) -> HookRun:
        plugin, spec, environ, timeout = job
        run = run_command(
            spec.command, env=environ, cwd=cwd, stdin=data, timeout=timeout, kill_grace=kill_grace
        )
        run.plugin = plugin.name
        run.started -= t0
        run.finished -= t0
        return run

    with ThreadPoolExecutor(max_workers=max(len(jobs), 1)) as pool:
        results = list(pool.map(work, jobs))
    return sorted(results, key=lambda r: r.finished)


def run_command(
    command: str,
    *,
    env: Mapping[str, str],
    cwd: str,
    stdin: bytes,
    timeout: float,
    kill_grace: float = KILL_GRACE,
) -> HookRun:
    """Run one hook command to completion or timeout. ``started``/``finished`` are monotonic.

    WHY files, not pipes: stdin, stdout and stderr are unlinked temporary files, so a hook that
    never reads a big stdin, prints megabytes, or leaves a background child holding its stdout
    can never stall the runner; the hook is done when its process exits (contract section 4),
    and what a lingering child writes later is simply never read.
    """
    with TemporaryFile() as data, TemporaryFile() as out, TemporaryFile() as err:
        data.write(stdin)
        data.seek(0)
        started = time.monotonic()
        proc = subprocess.Popen(
            ["/bin/sh", "-c", command],
            cwd=cwd,
            env=dict(env),
            stdin=data,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        timed_out = not _exited(proc, timeout)
        if timed_out:
            _signal_group(proc.pid, signal.SIGTERM)
            kill_at = time.monotonic() + kill_grace
            if _exited(proc, kill_grace):
                # The sh leader is gone but a TERM-ignoring child may live on in the group.
                _later(kill_at - time.monotonic(), _signal_group, proc.pid, signal.SIGKILL)
            else:
                _signal_group(proc.pid, signal.SIGKILL)
                proc.wait()
        finished = time.monotonic()
        texts = [_read(f) for f in (out, err)] if not timed_out else ["", ""]
    return HookRun(
        command=command,
        exit_code=proc.returncode,
        duration=finished - started,
        timed_out=timed_out,
        stdout=texts[0],
        stderr=texts[1],
        timeout=timeout,
        started=started,
        finished=finished,
    )


def _exited(proc: subprocess.Popen, seconds: float) -> bool:
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return False
    return True


def _read(file: IO[bytes]) -> str:
    """What the hook wrote so far, decoded (U+FFFD for bytes that are not UTF-8)."""
    file.seek(0)
    return file.read().decode("utf-8", errors="replace")


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _later(delay: float, func: Callable[..., None], *args: object) -> None:
    timer = threading.Timer(delay, func, args=args)
    timer.daemon = True
    timer.start()
