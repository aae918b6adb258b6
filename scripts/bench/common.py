"""What every benchmark part shares: the run settings, isolated homes, timed processes.

WHY these choices, because each one changes the figures:
- Hooks run as Claude Code runs them: ``/bin/sh -c '<command from hooks.json>'`` with
  ``CLAUDE_PLUGIN_ROOT`` set, on a plugin built by ``scripts/build_plugin.py``, in a
  temporary HOME holding a real task tied to a project directory (the hook's cwd).
- ``python3`` in that command is a symlink, first on PATH, to one real interpreter (a
  pyenv shim would add ~100 ms of bash to hook and floor alike and hide our own cost).
- Every ``PYTHON*`` variable is removed: ``uv run`` exports PYTHONDONTWRITEBYTECODE,
  which would make every hook recompile its modules, which no user's machine does.
"""

from __future__ import annotations

import json
import os
import random
import re
import sqlite3
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from bench.files import append_turn, context_text, tasks_text, write_transcript
from bench.procs import children_cpu, wait_until
from missioncache_harness import payloads
from missioncache_harness.children import heartbeat_children
from missioncache_harness.fixtures import make_env

REPO = Path(__file__).resolve().parents[2]
FLOOR_COMMAND = "python3 -S -c pass || true"  # the hooks' own `python3 -S … || true` shape
PROMPT = "Please refactor the session parser and add a test for the empty-file case."


@dataclass
class HookSpec:
    event: str
    command: str
    timeout: float


@dataclass
class Bench:
    """Run-wide settings: the interpreter, the built plugin, scratch space, the profile."""

    python: str
    plugin: Path
    scratch: Path
    quick: bool
    runs: int
    # Another build measured in the same rounds (``--baseline``): its homes, its hooks.
    baseline: Bench | None = None
    bin_dir: Path = field(init=False)
    hooks: dict[str, HookSpec] = field(init=False)

    def __post_init__(self) -> None:
        self.bin_dir = self.scratch / "bin"
        self.bin_dir.mkdir(parents=True, exist_ok=True)
        link = self.bin_dir / "python3"
        if not link.exists():
            link.symlink_to(self.python)
        self.hooks = load_hooks(self.plugin)

    def new_home(self, name: str, transcript_bytes: int = 0) -> Home:
        return Home(self, self.scratch / f"{name}-{uuid.uuid4().hex[:8]}", transcript_bytes)


T = TypeVar("T")
WARMUP_ROUNDS = 2  # rounds run first and dropped: the page cache and byte code settle


def interleaved(
    bench: Bench,
    cases: Mapping[str, Callable[[], T]],
    warmup: int = WARMUP_ROUNDS,
    before_round: Callable[[int], None] | None = None,
) -> dict[str, list[T]]:
    """Each case once per round, in a fresh random order, for ``bench.runs`` kept rounds:
    a drift of the shared machine then falls on every case (the floor included) alike,
    instead of on whichever case happened to run last."""
    samples: dict[str, list[T]] = {name: [] for name in cases}
    for round_no in range(warmup + bench.runs):
        if before_round is not None:
            before_round(round_no)
        order = list(cases)
        random.shuffle(order)
        for name in order:
            result = cases[name]()
            if round_no >= warmup:
                samples[name].append(result)
    return samples


def load_hooks(plugin: Path) -> dict[str, HookSpec]:
    """``{script: HookSpec}`` from the built ``hooks.json`` (the commands users get)."""
    path = plugin / "hooks" / "hooks.json"
    if not path.exists():
        return {}
    config = json.loads(path.read_text(encoding="utf-8"))
    found: dict[str, HookSpec] = {}
    for event, groups in config["hooks"].items():
        for group in groups:
            for hook in group["hooks"]:
                # `"${CLAUDE_PLUGIN_ROOT}/hooks/run" stop`, or an older build's `hooks/stop.py`
                script = re.search(r'hooks/run"? (\w+)|hooks/([\w.-]+)\.py', hook["command"])
                if script:
                    name = (script.group(1) or script.group(2)) + ".py"
                    found[name] = HookSpec(event, hook["command"], hook["timeout"])
    return found


def clean_environ() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}


@dataclass
class Run:
    """One timed process: wall seconds from spawn to exit (and its pipes closed)."""

    seconds: float
    returncode: int | None
    stdout: bytes = b""
    stderr: bytes = b""
    cpu: float | None = None  # user+system seconds of the shell and the hook it ran

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


# A compaction reply of a realistic size (a few thousand characters), analysis included.
COMPACT_SUMMARY = (
    "<analysis>"
    + "Reviewing the session. " * 40
    + "</analysis>\n<summary>"
    + "1. Primary Request and Intent: rename the helper and fix its tests. " * 40
    + "</summary>"
)


class Home:
    """A temporary HOME with Claude dir, data root, a project and a real task tied to it."""

    def __init__(self, bench: Bench, root: Path, transcript_bytes: int = 0):
        self.bench = bench
        self.mc = make_env(root, base=clean_environ())
        self.repo = (root / "work" / "project").resolve()
        self.repo.mkdir(parents=True)
        (self.repo / "README.md").write_text("# project\n", encoding="utf-8")
        path = f"{bench.bin_dir}{os.pathsep}{self.mc.env.get('PATH', os.defpath)}"
        self.env = dict(self.mc.env, PATH=path, CLAUDE_PLUGIN_ROOT=str(bench.plugin))
        self.db_path = self.mc.data_root / "tasks.db"
        self.spool_dir = self.mc.data_root / "spool"
        self.task_id = self.cli("create-task", "bench-task", "--repo", str(self.repo))
        self.task_dir = self.mc.data_root / "active" / "bench-task"
        self.context_file = self.task_dir / "bench-task-context.md"
        self.context_text = context_text(self.repo)
        self.context_file.write_text(self.context_text, encoding="utf-8")
        (self.task_dir / "bench-task-tasks.md").write_text(tasks_text(), encoding="utf-8")
        self.session_id = str(uuid.uuid4())
        self.transcript = Path(
            payloads.transcript_path(self.mc.claude_dir, self.repo, self.session_id)
        )
        if transcript_bytes:
            write_transcript(self.transcript, transcript_bytes)

    def cli(self, *args: str) -> int | None:
        """Run the plugin's bundled ``missioncache_cli`` command (as the user would)."""
        lib = self.bench.plugin / "lib"
        env = dict(self.env, PYTHONPATH=str(lib))
        # A plugin built before the command line had its own package kept it in the db's.
        module = "missioncache_cli" if (lib / "missioncache_cli").is_dir() else "missioncache_db"
        done = subprocess.run(
            [self.bench.python, "-m", module, *args],
            env=env,
            cwd=self.repo,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0:
            raise RuntimeError(f"missioncache_cli {args[0]} failed: {done.stderr.strip()}")
        found = re.search(r"\(id (\d+)\)", done.stdout)
        return int(found.group(1)) if found else None

    def new_turn(self, number: int) -> None:
        """The person prompts again: a finished turn with a prompt id of its own at the
        end of the transcript, which the next payloads name."""
        append_turn(self.transcript, number)

    def payload(self, event: str, session_id: str | None = None, **options: object) -> bytes:
        sid = session_id or self.session_id
        transcript = (
            str(self.transcript)
            if sid == self.session_id
            else payloads.transcript_path(self.mc.claude_dir, self.repo, sid)
        )
        base = payloads.common(event, session_id=sid, transcript_path=transcript, cwd=self.repo)
        # Claude Code sends the id of the prompt being answered, which the transcript's
        # last prompt record carries; Stop relies on the match (see find_edits).
        prompt_id = current_prompt_id(transcript) or payloads.new_id()
        if event == "SessionStart":
            data = payloads.session_start(base, str(options.get("source", "startup")))
        elif event == "UserPromptSubmit":
            data = payloads.user_prompt_submit(base, PROMPT, prompt_id=prompt_id)
        elif event == "PreCompact":
            data = payloads.pre_compact(base, prompt_id=prompt_id, trigger="auto")
        elif event == "PostCompact":
            data = payloads.post_compact(
                base, prompt_id=prompt_id, trigger="auto", compact_summary=COMPACT_SUMMARY
            )
        elif event == "Stop":
            data = payloads.stop(base, prompt_id=prompt_id, last_assistant_message="Renamed.")
        elif event == "StopFailure":
            data = payloads.stop_failure(base, prompt_id=prompt_id)
        else:
            raise ValueError(event)
        return json.dumps(data).encode()

    def start(self, command: str) -> subprocess.Popen:
        """Start ``/bin/sh -c command`` as Claude Code does, pipes on all three streams."""
        return subprocess.Popen(
            ["/bin/sh", "-c", command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
            cwd=self.repo,
        )

    def run(self, command: str, stdin: bytes = b"", timeout: float = 60) -> Run:
        """Time ``/bin/sh -c command`` until it exits and its pipes close. ``cpu`` is
        exact only while no other child of ours ends meanwhile (part 1 runs one at a
        time); a detached grandchild is never counted (it is not our child)."""
        before = children_cpu()
        start = time.perf_counter()
        proc = self.start(command)
        try:
            out, err = proc.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return Run(time.perf_counter() - start, None)
        seconds = time.perf_counter() - start
        return Run(seconds, proc.returncode, out, err, children_cpu() - before)

    def run_hook(self, script: str, stdin: bytes) -> Run:
        spec = self.bench.hooks[script]
        return self.run(spec.command, stdin, timeout=spec.timeout + 30)

    def floor(self) -> Run:
        return self.run(FLOOR_COMMAND)

    # -- heartbeats -----------------------------------------------------------------------
    def db_heartbeats(self, processed: bool | None = None) -> int:
        if not self.db_path.exists():
            return 0
        where = "" if processed is None else f" WHERE processed = {int(processed)}"
        with sqlite3.connect(self.db_path, timeout=30) as conn:
            return conn.execute("SELECT count(*) FROM heartbeats" + where).fetchone()[0]

    def spooled_heartbeats(self) -> int:
        """Heartbeat lines waiting in spool files (claimed ones included). The turn ends
        and token usage Stop spools beside them (docs/time.md) carry a ``type`` and are
        not heartbeats: counting them made a heartbeat look lost whenever an ingest moved
        a turn's usage out of the spool while it was being written."""
        total = 0
        for path in self.spool_dir.glob("*") if self.spool_dir.is_dir() else []:
            try:
                lines = path.read_bytes().splitlines()
            except OSError:
                continue
            total += sum(1 for line in lines if _is_heartbeat_line(line))
        return total

    def kept_heartbeats(self) -> int:
        """Heartbeats that are durable: in the database or in the spool."""
        return self.db_heartbeats() + self.spooled_heartbeats()

    def wait_for_heartbeats(self, expected: int, timeout: float) -> float:
        """Seconds until ``expected`` heartbeats are kept (``math.inf`` when never)."""
        return wait_until(lambda: self.kept_heartbeats() >= expected, timeout)

    def wait_children_gone(self, timeout: float = 10) -> float:
        """Seconds until no detached heartbeat child of this home is alive."""
        return wait_until(lambda: not heartbeat_children(self.mc.data_root), timeout, 0.005)


def _is_heartbeat_line(line: bytes) -> bool:
    """A whole spooled heartbeat: a JSON object with no ``type`` (a line still being
    appended, or torn, is not counted)."""
    try:
        record = json.loads(line)
    except ValueError:
        return False
    return isinstance(record, dict) and "type" not in record


def current_prompt_id(transcript: str) -> str | None:
    """The ``promptId`` of the transcript's newest prompt, if the file has one."""
    from missioncache_transcript import current_exchange

    prompt = current_exchange(transcript).prompt
    found = prompt.get("promptId") if prompt else None
    return found if isinstance(found, str) else None
