"""Shared pieces of the reliability suite: a lived-in scene, raw-stdin firing, tree snapshots.

WHY raw firing: ``fire()`` takes a payload mapping and serialises it as JSON, but the suite must
also feed bytes that are not JSON at all (garbage, NUL, invalid UTF-8). ``fire_raw`` does what
``fire`` does (the harness's own hook environment, timeouts, process groups and routing) with any
bytes on stdin.

WHY a "strict" plugin: a command ending in ``|| true`` would turn every failure into exit 0;
``strict`` drops such a suffix so that a hook that crashes, exits 2 or dies of a signal is seen as
such instead of being masked. The built commands (``"${CLAUDE_PLUGIN_ROOT}/hooks/run" <hook>``)
carry none: ``hooks/run`` itself exits 0 when launch.sh or a hook script is missing, which
``test_plugin_directory_vanishes`` checks through the real commands.
"""

from __future__ import annotations

import hashlib
import json as _json
import os
import re
import sqlite3 as _sqlite3
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from missioncache_harness.children import wait_heartbeat_children
from missioncache_harness.plugin import Plugin
from missioncache_harness.polling import poll_until
from missioncache_harness.routing import Routed, route
from missioncache_harness.runner import HookRun, effective_timeout, hook_env, run_command
from missioncache_harness.session import Session
from missioncache_harness.tools import Text, Write
from missioncache_harness.workspace import McEnv, create_task, make_env

# Fast profile by default (runs in `uv run pytest` and CI); the long profile is
# `MISSIONCACHE_FUZZ_EXAMPLES=5000 uv run pytest harness/tests/reliability -p no:randomly`.
FUZZ_EXAMPLES = int(os.environ.get("MISSIONCACHE_FUZZ_EXAMPLES", "150") or "150")
LONG_PROFILE = FUZZ_EXAMPLES > 150

SESSION_ID = "sess-main"
TASK = "demo-task"
EVENTS = ("SessionStart", "UserPromptSubmit", "PreCompact", "PostCompact", "Stop")
_OR_TRUE = re.compile(r"\s*\|\|\s*true\s*$")


def strict(plugin: Plugin) -> Plugin:
    """The same plugin with the ``|| true`` suffix removed from every command."""
    hooks = [replace(h, command=_OR_TRUE.sub("", h.command)) for h in plugin.hooks]
    return replace(plugin, hooks=hooks)


def wrapped(plugin: Plugin, prefix: str) -> Plugin:
    """The strict plugin with every command run through ``prefix`` (a fault injector)."""
    hooks = [replace(h, command=f"{prefix} {h.command}") for h in strict(plugin).hooks]
    return replace(plugin, hooks=hooks)


@dataclass
class Fired:
    """Every hook run of one event and the routing verdict."""

    runs: list[HookRun]
    routed: Routed

    def problems(self, *, quiet: bool = True) -> list[str]:
        """What Claude Code would suffer from: non-zero exits, timeouts, blocks (a Stop that
        continues the turn included); with ``quiet`` also any stderr (a breadcrumb means a
        handled crash)."""
        found = []
        for run in self.runs:
            name = run.command.rsplit("/", 1)[-1].strip('"')
            if run.timed_out:
                found.append(f"{name}: timed out after {run.duration:.1f}s")
            elif run.exit_code != 0:
                found.append(f"{name}: exit {run.exit_code}: {run.stderr.strip()[-300:]}")
            if "Traceback" in run.stderr:
                found.append(f"{name}: traceback: {run.stderr.strip()[-300:]}")
            elif quiet and run.stderr.strip():
                found.append(f"{name}: stderr: {run.stderr.strip()[-300:]}")
        if self.routed.blocked:  # a block or a Stop that keeps the turn going
            found.append(f"blocked: {self.routed.block_kind}")
        return found

    def stdout(self, script: str) -> str:
        """What the runs of one hook printed, named by its script (``stop.py``) or its
        name (``stop``): hooks.json runs ``hooks/run stop``, never ``stop_failure`` for
        ``stop``."""
        import re

        name = re.escape(script.removesuffix(".py"))
        hook = re.compile(rf"\b{name}(\.py)?(?=[\"'\s]|$)")
        return "".join(r.stdout for r in self.runs if hook.search(r.command))


def fire_raw(
    plugin: Plugin,
    event: str,
    stdin: bytes,
    *,
    project_dir: Path,
    env: dict[str, str],
    session_id: str = SESSION_ID,
    payload: dict | None = None,
) -> Fired:
    """Run every hook of ``event`` at once with ``stdin`` as given, as the harness runs them."""
    cwd = os.path.realpath(project_dir)
    routing_payload = dict(payload or {"session_id": session_id, "hook_event_name": event})
    specs = plugin.hooks_for(event)
    runs: list[HookRun] = []
    lock = threading.Lock()

    def one(spec) -> None:
        environ = hook_env(plugin, project_dir=cwd, session_id=session_id, base_env=env)
        timeout = effective_timeout(event, spec.timeout)
        run = run_command(spec.command, env=environ, cwd=cwd, stdin=stdin, timeout=timeout)
        run.plugin = plugin.name
        with lock:
            runs.append(run)

    threads = [threading.Thread(target=one, args=(spec,)) for spec in specs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    runs.sort(key=lambda r: r.finished)
    return Fired(runs, route(event, runs, routing_payload))


# ------------------------------------------------------------------ snapshots


def snapshot(root: Path, skip: tuple[Path, ...] = ()) -> dict[str, tuple]:
    """Every entry under ``root`` (links not followed): kind, content hash or link target."""
    skipped = {os.path.realpath(p) for p in skip}
    entries: dict[str, tuple] = {}
    for folder, dirs, files in os.walk(root):
        if os.path.realpath(folder) in skipped:
            dirs[:] = []
            continue
        dirs[:] = [d for d in dirs if os.path.realpath(os.path.join(folder, d)) not in skipped]
        for name in dirs + files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            if os.path.islink(path):
                entries[rel] = ("link", os.readlink(path))
            elif os.path.isdir(path):
                entries[rel] = ("dir",)
            elif os.path.isfile(path):
                with open(path, "rb") as handle:
                    entries[rel] = ("file", hashlib.sha256(handle.read()).hexdigest())
            else:
                entries[rel] = ("special",)
    return entries


def diff(before: dict[str, tuple], after: dict[str, tuple]) -> list[str]:
    """Paths created, removed or changed between two snapshots."""
    keys = set(before) | set(after)
    return sorted(k for k in keys if before.get(k) != after.get(k))


# ------------------------------------------------------------------ the scene

_ENTRY_LINE = re.compile(
    r"^(### \d{4}-\d{2}-\d{2} \d{2}:\d{2}|- Auto-saved before compaction \(.*\)"
    r"|  - (User|Claude|Turn|Files changed): .*|  - \(earlier exchanges since the last save .*\)"
    r"|\*\*Last Updated:\*\* .*|## Recent Changes|)$"
)


def context_grew_only_by_entries(before: str, after: str) -> str | None:
    """None when ``after`` is ``before`` plus PreCompact entries (and a new stamp), else why
    not. Every old line except the stamp must survive in order, and every added line must be
    one of the entry's own shapes: no snapshot text may become a heading, fence or stamp."""
    old = [line for line in before.splitlines() if not line.startswith("**Last Updated:**")]
    new = after.splitlines()
    position = 0
    added = []
    for line in new:
        if position < len(old) and line == old[position]:
            position += 1
        else:
            added.append(line)
    if position < len(old):
        return f"lost line {old[position]!r}"
    bad = [line for line in added if not _ENTRY_LINE.match(line)]
    return f"foreign lines added: {bad[:3]!r}" if bad else None


@dataclass
class Scene:
    """A lived-in installation: a task bound to a session with a transcript that edited a
    file, a divergent task number (so the task tracker speaks), and a sentinel directory
    outside every allowed root that attacks aim at."""

    root: Path
    env: McEnv
    repo: Path
    outside: Path
    context: Path
    tasks: Path
    transcript: Path
    task_id: int | None

    @property
    def allowed(self) -> tuple[Path, Path]:
        return (self.env.claude_dir, self.env.data_root)

    def outside_snapshot(self) -> dict[str, tuple]:
        """Everything a hook may not touch: the whole test root minus the two allowed dirs."""
        return snapshot(self.root, skip=self.allowed)

    def payload(self, event: str, **fields) -> dict:
        base = {
            "session_id": SESSION_ID,
            "transcript_path": str(self.transcript),
            "cwd": str(self.repo),
            "hook_event_name": event,
        }
        extra = {
            "SessionStart": {"source": "startup"},
            "UserPromptSubmit": {"prompt": "keep going"},
            "PreCompact": {"trigger": "manual", "custom_instructions": None},
            "PostCompact": {"trigger": "manual", "compact_summary": "<summary>s</summary>"},
            "Stop": {"stop_hook_active": False},
            "StopFailure": {"prompt_id": "p-fuzz", "error": "server_error"},
        }.get(event, {})
        return {**base, **extra, **fields}


def make_scene(root: Path, plugin: Plugin, built: Path) -> Scene:
    env = make_env(root)
    repo = root / "work" / "tracked-repo"
    repo.mkdir(parents=True)
    repo = repo.resolve()
    (repo / "README.md").write_text("# tracked\n", encoding="utf-8")
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("user secret\n", encoding="utf-8")
    (outside / f"{TASK}-context.md").write_text("# Not yours\n", encoding="utf-8")
    (outside / f"{SESSION_ID}.json").write_text('{"taskId": 999}\n', encoding="utf-8")
    task = create_task(built, env, TASK, repo)
    task_dir = env.data_root / "active" / TASK
    context, tasks = task_dir / f"{TASK}-context.md", task_dir / f"{TASK}-tasks.md"
    with context.open("a", encoding="utf-8") as handle:
        handle.write("\n### Task 1\nFound the cause.\n")
    with tasks.open("a", encoding="utf-8") as handle:
        handle.write("\n- [ ] 1. Find the cause\n")
    session = Session(plugin, repo, env=env.env, session_id=SESSION_ID)
    session.start()
    session.prompt("fix the parser", reply=[Text("On it."), Write("parser.py", "x = 1\n")])
    # The prompt's heartbeat child must be done before a test corrupts or locks what it uses.
    assert wait_heartbeat_children(env.data_root)
    return Scene(
        root=root,
        env=env,
        repo=repo,
        outside=outside,
        context=context,
        tasks=tasks,
        transcript=session.transcript_path,
        task_id=task.id,
    )


# ------------------------------------------------------------------ faults and counting


def fire_event(plugin: Plugin, scene: Scene, event: str, env: dict | None = None, **fields):
    """Fire ``event`` with the scene's well-formed payload (fields overridden)."""
    data = _json.dumps(scene.payload(event, **fields)).encode()
    return fire_raw(plugin, event, data, project_dir=scene.repo, env=env or scene.env.env)


def breadcrumb_only(fired: Fired) -> list[str]:
    """Problems, allowing at most one ``missioncache:`` breadcrumb line per hook."""
    found = fired.problems(quiet=False)
    allowed = []
    for run in fired.runs:
        lines = run.stderr.strip().splitlines()
        if len(lines) == 1 and lines[0].startswith("missioncache: "):
            allowed.append(lines[0][-300:])
    return [p for p in found if not any(p.endswith(a) for a in allowed)]


INSTRUCTION = f'Keep the MissionCache task name "{TASK}" and its Next Steps in the summary.'
"""PreCompact's whole stdout: the compaction's "Additional Instructions" (shown to the person
under a manual /compact), so nothing but the line for the summariser."""
_SNAPSHOT_LINE = "\n- Auto-saved before compaction ("


def snapshots(scene: Scene) -> int:
    """How many pre-compaction snapshots the scene's context file holds (0 if unreadable):
    the outcome of PreCompact a user finds, since its stdout no longer says it."""
    try:
        return scene.context.read_text(encoding="utf-8").count(_SNAPSHOT_LINE)
    except (OSError, UnicodeDecodeError):
        return 0


def pending_failure(scene: Scene) -> dict | None:
    """The ``precompact-error`` record PreCompact left for the next SessionStart, if any."""
    record = scene.env.claude_dir / "hooks" / "state" / "precompact-error.json"
    try:
        return _json.loads(record.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def system_message(fired: Fired) -> str:
    """What SessionStart shows the person (its ``systemMessage``), empty when silent."""
    out = fired.stdout("session_start")
    return _json.loads(out).get("systemMessage", "") if out.strip() else ""


def heartbeats(scene: Scene, session_id: str | None = None) -> int:
    conn = _sqlite3.connect(f"file:{scene.env.data_root / 'tasks.db'}?mode=ro", uri=True)
    try:
        sql, args = "SELECT COUNT(*) FROM heartbeats", ()
        if session_id is not None:
            sql, args = sql + " WHERE session_id = ?", (session_id,)
        return conn.execute(sql, args).fetchone()[0]
    finally:
        conn.close()


def spooled(scene: Scene) -> int:
    spool = scene.env.data_root / "spool"
    if not spool.is_dir():
        return 0
    return sum(p.read_bytes().count(b"\n") for p in spool.iterdir() if p.is_file())


def wait_for(condition, timeout: float = 10.0, step: float = 0.05) -> bool:
    """Poll (bounded) for a detached heartbeat child's effect."""
    return bool(poll_until(condition, timeout, step))


def _holds_open(pid: str, target: str) -> bool:
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                return True
        except OSError:
            continue
    return False


def _cmdline(pid: str) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def wait_for_lock_waiter(sidecar: str | Path, timeout: float = 30.0) -> bool:
    """Wait until another process has opened ``sidecar``, a locked file's ``.lock``
    (``missioncache_state.lock.lock_file_for``: the test names it, as the harness imports
    none of the product).

    WHY this event and not a sleep: a hook that holds the sidecar open is inside its lock
    wait (it opens the sidecar only to take the lock), which is the moment these tests
    must act in; a fixed sleep is either too short on a loaded machine or wasted time.
    A process with this one's command line is a child between fork and exec, holding the
    test's own lock descriptor, not the hook: counting it would let the test act before
    the hook has even started.
    """
    target = os.path.realpath(sidecar)
    me = str(os.getpid())
    my_cmdline = _cmdline(me)

    def waiting() -> bool:
        pids = [p for p in os.listdir("/proc") if p.isdigit() and p != me]
        return any(_holds_open(pid, target) and _cmdline(pid) != my_cmdline for pid in pids)

    return bool(poll_until(waiting, timeout, 0.02))


def process_heartbeats(scene: Scene, built: Path) -> None:
    """Fold heartbeats and ingest the spool through the plugin's bundled command."""
    done = scene.env.bundled(built, "process-heartbeats")
    assert done.returncode == 0, done.stderr
