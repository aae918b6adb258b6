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
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from missioncache_harness.events import KILL_GRACE, effective_timeout
from missioncache_harness.plugin import HookSpec, Plugin

READ_CHUNK = 65536


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
    plugin_root: str = ""
    timeout: float = 0.0
    started: float = 0.0
    finished: float = 0.0

    @property
    def duration_ms(self) -> int:
        return round(self.duration * 1000)


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
        for spec in plugin.hooks_for(event, dict(payload)):
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
        run.plugin, run.plugin_root = plugin.name, str(plugin.root)
        run.started -= t0
        run.finished -= t0
        return run

    if not jobs:
        return []
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
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
    """Run one hook command to completion or timeout. ``started``/``finished`` are monotonic."""
    started = time.monotonic()
    proc = subprocess.Popen(
        ["/bin/sh", "-c", command],
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    pump = _Pump(proc, stdin)
    timed_out = pump.wait_until(started + timeout)
    if timed_out:
        _signal_group(proc.pid, signal.SIGTERM)
        kill_at = time.monotonic() + kill_grace
        if pump.wait_until(kill_at):
            _signal_group(proc.pid, signal.SIGKILL)
            pump.wait_until(None)
        else:
            # The sh leader is gone but a TERM-ignoring child may live on in the group.
            _later(kill_at - time.monotonic(), _signal_group, proc.pid, signal.SIGKILL)
    finished = time.monotonic()
    out, err = pump.finish()
    return HookRun(
        command=command,
        exit_code=proc.returncode,
        duration=finished - started,
        timed_out=timed_out,
        stdout="" if timed_out else out.decode("utf-8", errors="replace"),
        stderr="" if timed_out else err.decode("utf-8", errors="replace"),
        timeout=timeout,
        started=started,
        finished=finished,
    )


class _Pump:
    """Feeds stdin and collects stdout/stderr of one process without ever blocking on a pipe.

    WHY one selector loop: a hook that never reads a big stdin must not stall the runner (the write
    side is non-blocking and a broken pipe just ends it), 5 MB of output must keep flowing while the
    hook runs, and a background child that inherits stdout must not make us wait for EOF: the hook
    is done when its process exits (contract section 4).
    """

    def __init__(self, proc: subprocess.Popen, data: bytes) -> None:
        self.proc = proc
        self.sel = selectors.DefaultSelector()
        self.out = bytearray()
        self.err = bytearray()
        # fd -> (stream, buffer) for the output pipes still open on our side.
        self.readers = {
            proc.stdout.fileno(): (proc.stdout, self.out),
            proc.stderr.fileno(): (proc.stderr, self.err),
        }
        for fd in self.readers:
            os.set_blocking(fd, False)
            self.sel.register(fd, selectors.EVENT_READ)
        self.pending = memoryview(data)
        self.stdin_open = True
        os.set_blocking(proc.stdin.fileno(), False)
        if self.pending:
            self.sel.register(proc.stdin.fileno(), selectors.EVENT_WRITE)
        else:
            self._close_stdin()

    def wait_until(self, deadline: float | None) -> bool:
        """Pump until the process exits (False) or ``deadline`` passes (True)."""
        while self.proc.poll() is None:
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return True
            slice_ = 0.02 if deadline is None else min(0.02, deadline - now)
            for key, _mask in self.sel.select(timeout=max(slice_, 0.0)):
                self._handle(key.fd)
        return False

    def finish(self) -> tuple[bytes, bytes]:
        """Drain what the exited hook left in the pipes; leave lingering writers to a reaper."""
        for fd in list(self.readers):
            self._read(fd, drain=True)
        self._close_stdin()
        self.sel.close()
        for stream, _buf in self.readers.values():
            threading.Thread(target=_discard, args=(stream,), daemon=True).start()
        return bytes(self.out), bytes(self.err)

    def _handle(self, fd: int) -> None:
        if fd in self.readers:
            self._read(fd, drain=False)
        else:
            self._write_stdin()

    def _read(self, fd: int, *, drain: bool) -> None:
        stream, buf = self.readers[fd]
        while True:
            try:
                chunk = os.read(fd, READ_CHUNK)
            except BlockingIOError:
                return
            if not chunk:
                self.sel.unregister(fd)
                del self.readers[fd]
                stream.close()
                return
            buf.extend(chunk)
            if not drain:
                return

    def _write_stdin(self) -> None:
        try:
            written = os.write(self.proc.stdin.fileno(), self.pending[:READ_CHUNK])
        except BlockingIOError:
            return
        except OSError:  # BrokenPipeError and friends: the hook stopped listening
            self._close_stdin()
            return
        self.pending = self.pending[written:]
        if not self.pending:
            self._close_stdin()

    def _close_stdin(self) -> None:
        if not self.stdin_open:
            return
        self.stdin_open = False
        try:
            self.sel.unregister(self.proc.stdin.fileno())
        except (KeyError, ValueError):
            pass
        try:
            self.proc.stdin.close()
        except OSError:
            pass


def _discard(stream) -> None:
    """Read and drop what a lingering background child writes, so it is never killed by SIGPIPE."""
    os.set_blocking(stream.fileno(), True)
    try:
        while os.read(stream.fileno(), READ_CHUNK):
            pass
    except OSError:
        pass
    stream.close()


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _later(delay: float, func: Callable[..., None], *args: object) -> None:
    timer = threading.Timer(delay, func, args=args)
    timer.daemon = True
    timer.start()
