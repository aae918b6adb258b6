"""Drive the real Claude Code CLI offline: one command per process, each run in its own HOME.

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
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from missioncache_harness import payloads
from missioncache_harness.locate import repo_root

if TYPE_CHECKING:
    from missioncache_harness.fake_api import FakeAnthropicAPI

BIN_ENV = "MISSIONCACHE_CLAUDE_BIN"
TOOLS_BIN = Path(".tools/claude/node_modules/.bin/claude")
DUMMY_KEY = "sk-test-dummy"
# Nothing listens on the discard port: a run without a fake API can never reach a real model.
NOWHERE_URL = "http://127.0.0.1:9"
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
# How long a run waits for the plugin's ``pm`` server: uvx installs ``mcp`` and its
# dependencies on first use, which a cold uv cache downloads.
MCP_START_TIMEOUT = 300.0


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


requires_claude = pytest.mark.skipif(
    find_claude() is None,
    reason=f"Claude Code CLI not found: set {BIN_ENV} or install it under {TOOLS_BIN}",
)


def claude_version() -> str | None:
    """The CLI's version, e.g. "2.1.328", or None when it is absent or unusable."""
    if find_claude() is None:
        return None
    run = run_claude(["--version"], timeout=60)
    match = re.search(r"\d+\.\d+\.\d+\S*", run.stdout)
    return match.group(0) if run.ok and match else None


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
    env.update(QUIET_ENV, HOME=str(home), ANTHROPIC_API_KEY=DUMMY_KEY)
    env["ANTHROPIC_BASE_URL"] = fake_api.base_url if fake_api is not None else NOWHERE_URL
    env.update(env_extra or {})
    return env


def transcript_path(home: str | os.PathLike[str], cwd: str | os.PathLike[str], sid: str) -> Path:
    """Where the CLI writes a session's JSONL transcript under a given HOME."""
    return Path(payloads.transcript_path(Path(home) / ".claude", cwd, sid))


def load_transcript(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """All JSON records of a JSONL file (a transcript, a probe's log), skipping a torn line that
    its writer is still appending; [] if the file does not exist."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    records = []
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
        return (self.result or {}).get("result")

    @property
    def session_id(self) -> str | None:
        """The session the CLI reports, else the one asked for with --session-id/--resume."""
        reported = (self.result or {}).get("session_id")
        asked = [i + 1 for i, a in enumerate(self.args[:-1]) if a in ("--session-id", "--resume")]
        return reported or (self.args[asked[0]] if asked else None)

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
            if rtype in (None, r.get("type")) and subtype in (None, r.get("subtype"))
        ]

    def attachments(self, atype: str | None = None) -> list[dict[str, Any]]:
        """The `attachment` payloads of the transcript, e.g. atype="hook_success"."""
        found = [r.get("attachment") or {} for r in self.records("attachment")]
        return [a for a in found if atype in (None, a.get("type"))]

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
    home: str | os.PathLike[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    fake_api: FakeAnthropicAPI | None = None,
    env_extra: Mapping[str, str] | None = None,
    timeout: float = 120.0,
    binary: str | os.PathLike[str] | None = None,
) -> ClaudeRun:
    """Run `claude <args>` once, hermetically, and collect what it left behind.

    Without `home` the run gets a throwaway one (for `plugin validate`, `--version`); `cwd`
    defaults to the HOME. The process gets its own session so a timeout kills the CLI and its
    helpers, not just the top process. stdin is empty (`-p` would append piped stdin).
    """
    if home is None:
        with tempfile.TemporaryDirectory(prefix="mc-claude-home-") as tmp:
            options = {"fake_api": fake_api, "env_extra": env_extra, "binary": binary}
            return run_claude(args, home=tmp, cwd=cwd, timeout=timeout, **options)
    home = Path(home)
    home.mkdir(parents=True, exist_ok=True)
    cwd = Path(cwd or home)
    started = time.monotonic()
    proc = subprocess.Popen(
        [str(binary or require_claude()), *args],
        cwd=cwd,
        env=claude_env(home, fake_api=fake_api, env_extra=env_extra),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
    duration = time.monotonic() - started
    return ClaudeRun(list(args), home, cwd, proc.returncode, out, err, duration, timed_out)


def run_turn(
    prompt: str,
    *,
    plugin_dirs: Iterable[str | os.PathLike[str]] = (),
    session_id: str | None = None,
    resume: str | None = None,
    extra_args: Sequence[str] = (),
    **options: Any,
) -> ClaudeRun:
    """One `-p` prompt (or `/compact [instructions]`) in a new session (a fresh uuid unless
    given) or, with `resume`, an old one; `options` go to `run_claude`. As root,
    --dangerously-skip-permissions is refused, so edits are allowed by permission mode."""
    args = ["-p", prompt]
    for plugin in plugin_dirs:
        args += ["--plugin-dir", str(plugin)]
    args += ["--permission-mode", "acceptEdits", "--output-format", "json"]
    if resume:
        args += ["--resume", resume]
    else:
        args += ["--session-id", session_id or str(uuid.uuid4())]
    return run_claude([*args, *extra_args], **options)


def install_from_marketplace(
    plugin: str | os.PathLike[str],
    market: Path,
    home: str | os.PathLike[str],
    *,
    name: str = "missioncache",
    marketplace: str = "mc-local",
    folder: str | None = None,
    about: str = "MissionCache, built from this checkout",
    summary: str = "MC",
) -> Path:
    """Install ``plugin`` as a user does: a copy in a local marketplace at ``market`` (in
    ``market/<folder>``, by default the plugin's name), added to ``home``'s Claude Code and
    installed at user scope as ``name@marketplace``. Returns the copy, the plugin's root."""
    copy = market / (folder or name)
    shutil.copytree(plugin, copy)
    catalog = {
        "name": marketplace,
        "owner": {"name": "MissionCache tests"},
        "metadata": {"description": about},
        "plugins": [{"name": name, "source": f"./{copy.name}", "description": summary}],
    }
    (market / ".claude-plugin").mkdir()
    (market / ".claude-plugin" / "marketplace.json").write_text(json.dumps(catalog))
    run_claude(["plugin", "marketplace", "add", str(market)], home=home).check()
    run_claude(["plugin", "install", f"{name}@{marketplace}", "--scope", "user"], home=home).check()
    return copy


def uv_cache_dir() -> str | None:
    """The developer's uv cache (``$UV_CACHE_DIR``, else ``uv cache dir``), or None without
    uv. Ask before a test changes HOME: the runs share it so only the first one downloads."""
    if os.environ.get("UV_CACHE_DIR"):
        return os.environ["UV_CACHE_DIR"]
    uv = shutil.which("uv")
    if uv is None:
        return None
    done = subprocess.run([uv, "cache", "dir"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or None


def mcp_server_env(uv_cache: str | None) -> dict[str, str]:
    """What a run that starts the plugin's ``pm`` server (through uvx) adds to its
    environment: Claude Code's ``MCP_TIMEOUT`` raised to ``MCP_START_TIMEOUT``, and the
    shared uv cache when there is one."""
    env = {"MCP_TIMEOUT": str(int(MCP_START_TIMEOUT * 1000))}
    if uv_cache:
        env["UV_CACHE_DIR"] = uv_cache
    return env
