"""Drive the real Claude Code CLI offline: one turn per process, each run in its own HOME.

WHY: the hook contract is only trustworthy when checked against the CLI that users run. These
helpers make such a run reproducible and hermetic: the parent's Anthropic/Claude settings are
stripped, all traffic goes to a loopback `FakeAnthropicAPI`, telemetry and auto-update are off,
and every run gets a private HOME (so `~/.claude` transcripts, settings and plugins are its own).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from missioncache_harness import payloads
from missioncache_harness.locate import repo_root

if TYPE_CHECKING:
    from missioncache_harness.fake_api import FakeAnthropicAPI

BIN_ENV = "MISSIONCACHE_CLAUDE_BIN"
TOOLS_BIN = Path(".tools/claude/node_modules/.bin/claude")
DUMMY_KEY = "sk-test-dummy"
# Nothing listens on the discard port: a run without a fake API can never reach a real model.
NOWHERE_URL = "http://127.0.0.1:9"
DEFAULT_TIMEOUT = 120.0
# Verified on 2.1.328 (strace): CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC alone stops the DNS
# lookups, the telemetry spool and the /api/hello probe; the others are belt and braces.
QUIET_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
}
# Parent variables that would leak a real account, config dir or session into a run.
STRIPPED_PREFIXES = ("ANTHROPIC_", "CLAUDE")


class ClaudeRunError(AssertionError):
    """A CLI run that failed or timed out; the message carries its output for the test log."""


def find_claude() -> Path | None:
    """The CLI to test: $MISSIONCACHE_CLAUDE_BIN, then the repo's pinned install, then PATH."""
    configured = os.environ.get(BIN_ENV)
    if configured:  # explicit wins even when wrong: a CI misconfiguration must fail, not skip
        return Path(configured).expanduser()
    root = repo_root()
    if root is not None and (root / TOOLS_BIN).is_file():
        return root / TOOLS_BIN
    found = shutil.which("claude")
    return Path(found) if found else None


def require_claude() -> Path:
    binary = find_claude()
    if binary is None:
        raise FileNotFoundError(f"Claude Code CLI not found (set {BIN_ENV})")
    return binary


def claude_version(binary: Path | None = None) -> str | None:
    """The CLI's version, e.g. "2.1.328", or None when it is absent or unusable."""
    binary = binary or find_claude()
    if binary is None:
        return None
    try:
        with tempfile.TemporaryDirectory(prefix="mc-claude-ver-") as home:
            out = subprocess.run(
                [str(binary), "--version"],
                env=claude_env(home),
                capture_output=True,
                text=True,
                timeout=60,
                stdin=subprocess.DEVNULL,
            )
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r"\d+\.\d+\.\d+\S*", out.stdout)
    return match.group(0) if out.returncode == 0 and match else None


def claude_env(
    home: str | os.PathLike[str],
    *,
    fake_api: FakeAnthropicAPI | None = None,
    env_extra: Mapping[str, str] | None = None,
    base_env: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment of one hermetic run: parent env minus ANTHROPIC_*/CLAUDE*, plus our own."""
    source = os.environ if base_env is None else base_env
    env = {k: v for k, v in source.items() if not k.startswith(STRIPPED_PREFIXES)}
    env.update(QUIET_ENV)
    env["HOME"] = str(home)
    env["ANTHROPIC_BASE_URL"] = fake_api.base_url if fake_api is not None else NOWHERE_URL
    env["ANTHROPIC_API_KEY"] = DUMMY_KEY
    env.update(env_extra or {})
    return env


def transcript_path(home: str | os.PathLike[str], cwd: str | os.PathLike[str], sid: str) -> Path:
    """Where the CLI writes a session's JSONL transcript under a given HOME."""
    return Path(payloads.transcript_path(Path(home) / ".claude", cwd, sid))


def load_transcript(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """All JSON records of a transcript (skipping a torn last line); [] if it does not exist."""
    records = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return records


@dataclass
class ClaudeRun:
    """One finished CLI process: its output, its parsed JSON result and its transcript."""

    args: list[str]
    home: Path
    cwd: Path
    rc: int | None
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    env_extra: dict[str, str] = field(default_factory=dict)

    @cached_property
    def result(self) -> dict[str, Any] | None:
        """The `--output-format json` result object, or None when stdout is not one."""
        try:
            parsed = json.loads(self.stdout)
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None

    @property
    def result_text(self) -> str | None:
        res = self.result
        return res.get("result") if res else None

    @property
    def requested_session_id(self) -> str | None:
        """The id given with --session-id or --resume, if any."""
        return _requested_session(self.args)

    @property
    def session_id(self) -> str | None:
        """The session the CLI reports, else the one we asked for (--session-id/--resume)."""
        res = self.result
        return (res or {}).get("session_id") or self.requested_session_id

    @property
    def transcript_path(self) -> Path | None:
        sid = self.session_id
        return transcript_path(self.home, self.cwd, sid) if sid else None

    def transcript(self) -> list[dict[str, Any]]:
        """The session's transcript records as they are now (re-read on every call)."""
        path = self.transcript_path
        return load_transcript(path) if path else []

    def records(self, rtype: str | None = None, subtype: str | None = None) -> list[dict[str, Any]]:
        """Transcript records of a `type` and, for system records, a `subtype`."""
        return [
            r
            for r in self.transcript()
            if (rtype is None or r.get("type") == rtype)
            and (subtype is None or r.get("subtype") == subtype)
        ]

    def attachments(self, atype: str | None = None) -> list[dict[str, Any]]:
        """The `attachment` payloads of the transcript, e.g. atype="hook_success"."""
        found = [r.get("attachment") or {} for r in self.records("attachment")]
        return [a for a in found if atype is None or a.get("type") == atype]

    @property
    def ok(self) -> bool:
        return self.rc == 0 and not self.timed_out

    def check(self) -> ClaudeRun:
        """Return self if the CLI exited 0 in time, else raise with its output for the log."""
        if not self.ok:
            raise ClaudeRunError(self.describe())
        return self

    def describe(self) -> str:
        state = "timed out" if self.timed_out else f"rc={self.rc}"
        return (
            f"claude {' '.join(self.args)} ({state}, {self.duration_s:.1f}s)\n"
            f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"
        )


def run_claude(
    args: Sequence[str],
    *,
    home: str | os.PathLike[str],
    cwd: str | os.PathLike[str],
    fake_api: FakeAnthropicAPI | None = None,
    env_extra: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    input: str | None = None,
    binary: str | os.PathLike[str] | None = None,
) -> ClaudeRun:
    """Run `claude <args>` once, hermetically, and collect what it left behind.

    The process gets its own session so a timeout kills the CLI and its helpers, not just the
    top process. stdin is empty unless `input` is given (`-p` appends piped stdin to the prompt).
    """
    exe = str(binary or require_claude())
    home, cwd = Path(home), Path(cwd)
    home.mkdir(parents=True, exist_ok=True)
    env = claude_env(home, fake_api=fake_api, env_extra=env_extra)
    started = time.monotonic()
    proc = subprocess.Popen(
        [exe, *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
        start_new_session=True,
    )
    timed_out = False
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc.pid)
        out, err = proc.communicate()
    return ClaudeRun(
        args=list(args),
        home=home,
        cwd=cwd,
        rc=proc.returncode,
        stdout=out,
        stderr=err,
        duration_s=time.monotonic() - started,
        timed_out=timed_out,
        env_extra=dict(env_extra or {}),
    )


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _requested_session(args: Sequence[str]) -> str | None:
    for flag in ("--session-id", "--resume", "-r"):
        if flag in args:
            i = list(args).index(flag)
            if i + 1 < len(args):
                return args[i + 1]
    return None


def turn_args(
    prompt: str,
    *,
    plugin_dirs: Iterable[str | os.PathLike[str]] = (),
    session_id: str | None = None,
    resume: str | None = None,
    permission_mode: str = "acceptEdits",
    output_format: str = "json",
    extra_args: Sequence[str] = (),
) -> list[str]:
    """Arguments of one `-p` turn. As root, --dangerously-skip-permissions is refused."""
    args = ["-p", prompt]
    for plugin in plugin_dirs:
        args += ["--plugin-dir", str(plugin)]
    args += ["--permission-mode", permission_mode, "--output-format", output_format]
    if resume:
        args += ["--resume", resume]
    elif session_id:
        args += ["--session-id", session_id]
    return args + list(extra_args)


def run_turn(
    prompt: str,
    *,
    home: str | os.PathLike[str],
    cwd: str | os.PathLike[str],
    fake_api: FakeAnthropicAPI | None,
    plugin_dirs: Iterable[str | os.PathLike[str]] = (),
    session_id: str | None = None,
    resume: str | None = None,
    env_extra: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    extra_args: Sequence[str] = (),
) -> ClaudeRun:
    """One prompt in a new session (fresh uuid unless given) or, with `resume`, an old one."""
    if not resume and not session_id:
        session_id = str(uuid.uuid4())
    args = turn_args(
        prompt,
        plugin_dirs=plugin_dirs,
        session_id=session_id,
        resume=resume,
        extra_args=extra_args,
    )
    return run_claude(
        args, home=home, cwd=cwd, fake_api=fake_api, env_extra=env_extra, timeout=timeout
    )


def run_compact(
    session_id: str,
    *,
    home: str | os.PathLike[str],
    cwd: str | os.PathLike[str],
    fake_api: FakeAnthropicAPI | None,
    instructions: str | None = None,
    plugin_dirs: Iterable[str | os.PathLike[str]] = (),
    env_extra: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> ClaudeRun:
    """Manual compaction of an existing session: `-p "/compact [instructions]" --resume <sid>`."""
    prompt = "/compact" + (f" {instructions}" if instructions else "")
    return run_turn(
        prompt,
        home=home,
        cwd=cwd,
        fake_api=fake_api,
        plugin_dirs=plugin_dirs,
        resume=session_id,
        env_extra=env_extra,
        timeout=timeout,
    )


def _run_offline(
    args: Sequence[str],
    home: str | os.PathLike[str] | None,
    cwd: str | os.PathLike[str] | None,
    timeout: float,
) -> ClaudeRun:
    """A non-model command (plugin/marketplace) in the given HOME, or a throwaway one."""
    if home is not None:
        return run_claude(args, home=home, cwd=cwd or home, timeout=timeout)
    with tempfile.TemporaryDirectory(prefix="mc-claude-home-") as tmp:
        return run_claude(args, home=tmp, cwd=cwd or tmp, timeout=timeout)


def plugin_validate(
    path: str | os.PathLike[str],
    *,
    home: str | os.PathLike[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    strict: bool = False,
    timeout: float = 60.0,
) -> ClaudeRun:
    """`claude plugin validate <path>` (a plugin or marketplace folder); rc 0 means it passed."""
    args = ["plugin", "validate", str(Path(path).resolve())]
    if strict:
        args.append("--strict")
    return _run_offline(args, home, cwd, timeout)


def marketplace_add(
    source: str | os.PathLike[str],
    *,
    home: str | os.PathLike[str],
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 60.0,
) -> ClaudeRun:
    """`claude plugin marketplace add <folder>` into HOME's user settings (works offline)."""
    src = str(Path(source).resolve()) if Path(source).exists() else str(source)
    return _run_offline(["plugin", "marketplace", "add", src], home, cwd, timeout)


def plugin_install(
    plugin: str,
    *,
    home: str | os.PathLike[str],
    marketplace: str | None = None,
    scope: str = "user",
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 60.0,
) -> ClaudeRun:
    """`claude plugin install <plugin>[@<marketplace>]`; later sessions then run its hooks."""
    spec = f"{plugin}@{marketplace}" if marketplace else plugin
    return _run_offline(["plugin", "install", spec, "--scope", scope], home, cwd, timeout)


def __getattr__(name: str) -> Any:
    """`requires_claude`: a pytest skipif marker, built lazily so importing this needs no pytest."""
    if name == "requires_claude":
        import pytest

        binary = find_claude()
        reason = f"Claude Code CLI not found: set {BIN_ENV} or install it under {TOOLS_BIN}"
        return pytest.mark.skipif(binary is None, reason=reason)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
